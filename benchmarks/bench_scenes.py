"""Benchmark: loading and running the bundled scenes headless.

Prints, per bundled scene, the load time (parse, check, build, Physicalize) and
the run speed over its length (PSIs per wall second, microseconds per PSI and
per awake body); the stress scenes run for ``--stress-seconds`` of frame time.

    python benchmarks/bench_scenes.py [--stress-seconds 2] [NAME ...]
"""

from __future__ import annotations

import argparse
import time

import scenes
from ivp import MT_MOVING, rng
from scenes.headless import run


def bench(name: str, seconds: float | None) -> str:
    rng.reset()
    t0 = time.perf_counter()
    scene = scenes.load(name)
    load_ms = (time.perf_counter() - t0) * 1e3
    awake = []
    summary = run(scene, seconds=seconds,
                  on_frame=lambda n, ctx: awake.append(
                      sum(1 for o in ctx.physics.env.objects if o.object_state == MT_MOVING)))
    wall = summary.wall_seconds
    body_psis = sum(awake) / max(len(awake), 1) * summary.psis
    return (f"{name:28s} load {load_ms:8.1f} ms   {summary.psis:5d} PSIs in {wall:7.2f} s "
            f"({summary.psis / wall:7.0f} PSIs/s, {wall / max(summary.psis, 1) * 1e6:9.0f} us/PSI, "
            f"{wall / max(body_psis, 1) * 1e6:7.0f} us per awake body and PSI)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="bundled scenes (default: all)")
    ap.add_argument("--stress-seconds", type=float, default=2.0)
    args = ap.parse_args()
    scenes.load("ball_wood")            # import the behaviours once, outside the timings
    for name in args.names or scenes.bundled_names():
        print(bench(name, args.stress_seconds if name.startswith("stress/") else None), flush=True)


if __name__ == "__main__":
    main()
