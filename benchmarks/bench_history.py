"""The viewer's history (viewer/history.py): what a snapshot costs and what
going back costs, per scene.

    python benchmarks/bench_history.py [--frames N] [--scene NAME ...] [--game DIR N ...]

For each scene (default: the bundled default level and stress/bowl_100; --game
an original level of a Ballance folder) it runs N frames of 1/60 s, then
times taking a snapshot (the frame the viewer holds up), building one (the
first part of a move back), and a move back by 1 s and forward again, and
gives the table's records and its estimated bytes (the ring's bound counts
these). No window, no GL. Prints, asserts nothing.
"""

from __future__ import annotations

import argparse
import time


def measure(name: str, load, frames: int) -> None:
    from bbglue.meshes import Mesh
    from ivp.snapshot import build, flatten
    from viewer.history import estimated_bytes
    from viewer.session import Session
    session = Session(load)
    session.keep_history(30.0)
    for _ in range(frames):
        session.tick(1.0 / 60.0)
    ctx = session.ctx
    t0 = time.perf_counter()
    table = flatten(ctx, share=(Mesh,))
    t1 = time.perf_counter()
    build(table)
    t2 = time.perf_counter()
    session.scrub(-1.0)
    t3 = time.perf_counter()
    session.go_to(session.history.end)
    t4 = time.perf_counter()
    print(f"{name}: snapshot {1000 * (t1 - t0):7.1f} ms, build {1000 * (t2 - t1):7.1f} ms, "
          f"1 s back {1000 * (t3 - t2):7.1f} ms, forward again {1000 * (t4 - t3):7.1f} ms; "
          f"{len(table)} records, about {estimated_bytes(table) / 1e6:.1f} MB; "
          f"{len(session.history.snapshots)} snapshots kept after {frames} frames", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=180)
    ap.add_argument("--scene", action="append", help="a scene file or bundled name (repeatable)")
    ap.add_argument("--game", nargs=2, action="append", metavar=("DIR", "N"),
                    help="level N of the Ballance folder DIR (repeatable)")
    args = ap.parse_args()
    import scenes
    from scenes.virtools import game_level
    names = args.scene or ([] if args.game else [scenes.DEFAULT_SCENE, "stress/bowl_100"])
    for name in names:
        measure(name, lambda name=name: scenes.load(name), args.frames)
    for folder, n in args.game or []:
        path = game_level(folder, int(n))
        measure(f"level {n}", lambda path=path: scenes.load(path), args.frames)


if __name__ == "__main__":
    main()
