"""``python -m tests.fuzz [--cases N] [--seed S] [--kinds scene,call]``: run the
fuzz cases and print the count per outcome class, then the bad cases."""

from __future__ import annotations

import argparse
import logging
import sys
import time

from . import BAD, CLASSES, run, tally


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="the first case's seed (cases are seed, seed + 1, ...)")
    p.add_argument("--kinds", default="scene,call", help="generators, in turn: scene, call or both")
    p.add_argument("--show", type=int, default=20, help="bad cases listed at the end")
    args = p.parse_args(argv)
    logging.getLogger("bbglue").addHandler(logging.NullHandler())
    logging.getLogger("bbglue").propagate = False          # the cases' console lines are not the report
    start = time.perf_counter()
    done = []

    def progress(o):
        done.append(o)
        if len(done) % 500 == 0:
            counts = tally(done)
            print(f"{len(done)} cases, {time.perf_counter() - start:.0f} s: "
                  + ", ".join(f"{c} {counts[c]}" for c in CLASSES), file=sys.stderr, flush=True)

    outcomes = run(args.cases, args.seed, tuple(args.kinds.split(",")), progress)
    counts = tally(outcomes)
    for kind in sorted({o.kind for o in outcomes}):
        sub = tally(o for o in outcomes if o.kind == kind)
        print(f"{kind:6s}: " + ", ".join(f"{c} {sub[c]}" for c in CLASSES))
    print(f"all   : {len(outcomes)} cases in {time.perf_counter() - start:.0f} s: "
          + ", ".join(f"{c} {counts[c]}" for c in CLASSES))
    bad = [o for o in outcomes if o.cls in BAD]
    for o in bad[:args.show]:
        print(f"  seed {o.seed} ({o.kind}) {o.cls}: {o.detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
