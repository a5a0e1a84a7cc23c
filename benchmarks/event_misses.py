"""Benchmark: two-piece event searches (ivp-contacts 3.5) against a brute force.

Runs a reference-trace scenario (``tests/reference_traces``) with every pair of
two pieces (a grid's triangles too) measured and searched one by one through mindist_search.event_search,
and checks each search against the first time, on 301 samples from t_now to
the next PSI, at which the pieces' closest distance (measured afresh) is
within the threshold, for a pair beyond it at t_now: a search that finds no event where the samples cross,
or one more than 1e-4 s after them, is printed as a miss.

    python benchmarks/event_misses.py stack3 [--build sse] [--traces DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
import reference_traces as rt  # noqa: E402
from ivp.collision import mindist_batches, mindist_search  # noqa: E402
from ivp.collision.constants import COLL_DIST  # noqa: E402
from ivp.collision.event_kernels import _closest  # noqa: E402
from ivp.collision.mindist_search import piece_arg  # noqa: E402

SAMPLES = 301
LATE = 1e-4                     # s: an event this much after the samples' crossing is a miss
NONE = (-1,) * 6


def first_crossing(md, t_now: float, t_max: float):
    """The first sample time after t_now at which the pair's closest distance is within its threshold, or None."""
    a, b = md.a, md.b
    PA, BA = piece_arg(a, md.ka), a.obj.core.pose_parts()
    PB, BB = piece_arg(b, md.kb), b.obj.core.pose_parts()
    for s in np.linspace(t_now, t_max, SAMPLES)[1:]:
        if _closest(s, PA, BA, PB, BB, NONE) <= COLL_DIST + md.sum_extra_radius:
            return s
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("--build", default="sse")
    ap.add_argument("--traces", default=str(ROOT.parent / "shared" / "reference-traces"))
    args = ap.parse_args()
    real = mindist_search.event_search
    counts = {"searches": 0, "misses": 0}

    def checked(md, dev, t_now, t_max):
        t = real(md, dev, t_now, t_max)
        if not md.a.is_ball and md.len_numerator > COLL_DIST:      # (inside it, 3.5 waits for a nearing)
            counts["searches"] += 1
            tb = first_crossing(md, t_now, t_max)
            if tb is not None and (t is None or t > tb + LATE):
                counts["misses"] += 1
                print(f"miss at {t_now:.6f}: {md.a.obj.name} {md.b.obj.name} {md.prev} gap "
                      f"{md.len_numerator:.6f}: found {t}, crossing {tb:.6f}")
        return t

    def one_by_one(mds, t):
        for md in mds:
            md.recalc(t)

    mindist_search.event_search = checked
    mindist_batches._recalc_piece_pairs = one_by_one
    mindist_batches._recalc_piece_triangles = lambda shape, key, soup, tri_first, mds, t: one_by_one(mds, t)
    trace = rt.load_trace(rt.trace_path(args.traces, args.build, args.scenario))
    rt.run_port(trace)
    print(f"{counts['searches']} two-piece searches, {counts['misses']} misses")


if __name__ == "__main__":
    main()
