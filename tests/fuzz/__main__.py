"""``python -m tests.fuzz [--cases N] [--seed S] [--kinds scene,call] [--game DIR] [--out DIR]``:
run the fuzz cases, each in a worker process cut after 10 s (a hang), print
the count per outcome class as a table and write a reproducer of every case
that is neither clean nor located to the output folder. With ``--game`` (the
Ballance folder) mutated copies of its levels join the cases."""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time

from . import BAD, CLASSES, HANG_SECONDS, run, tally


def table(outcomes, kinds) -> str:
    """The counts per kind and outcome class, a Markdown table."""
    rows = [(k, [o for o in outcomes if o.kind == k]) for k in kinds] + [("all", list(outcomes))]
    lines = ["| cases | " + " | ".join(CLASSES) + " |", "|---" * (len(CLASSES) + 1) + "|"]
    for kind, sub in rows:
        counts = tally(sub)
        lines.append(f"| {kind} {len(sub)} | " + " | ".join(str(counts[c]) for c in CLASSES) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0, help="the first case's seed (cases are seed, seed + 1, ...)")
    p.add_argument("--kinds", default=None, help="generators, in turn: scene, call, level (default: scene,call, "
                   "and level with --game)")
    p.add_argument("--game", default=None, help="the Ballance folder: its levels, mutated, are cases too")
    p.add_argument("--out", default=None, help="the folder for reproducers (default: a new one in the temp dir)")
    p.add_argument("--seconds", type=float, default=HANG_SECONDS, help="a case over this long is a hang")
    args = p.parse_args(argv)
    kinds = tuple(args.kinds.split(",")) if args.kinds else ("scene", "call") + (("level",) if args.game else ())
    if "level" in kinds and not args.game:
        p.error("level cases need --game DIR")
    out = args.out or tempfile.mkdtemp(prefix="ivp-fuzz-repro-")
    logging.getLogger("bbglue").addHandler(logging.NullHandler())
    logging.getLogger("bbglue").propagate = False          # the cases' console lines are not the report
    start = time.perf_counter()
    done = []

    def progress(o):
        done.append(o)
        if o.cls in BAD:
            print(f"seed {o.seed} ({o.kind}) {o.cls}: {o.detail}\n    {o.repro}", flush=True)
        if len(done) % 100 == 0:
            counts = tally(done)
            print(f"{len(done)} cases, {time.perf_counter() - start:.0f} s: "
                  + ", ".join(f"{c} {counts[c]}" for c in CLASSES), file=sys.stderr, flush=True)

    outcomes = run(args.cases, args.seed, kinds, args.game, progress, args.seconds, out)
    print(f"\n{table(outcomes, kinds)}\n\n{len(outcomes)} cases in {time.perf_counter() - start:.0f} s; "
          f"reproducers in {out}")
    return 1 if any(o.cls in BAD for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
