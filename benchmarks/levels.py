"""Benchmark: the original levels of your Ballance folder (issue 40, item 5).

    python benchmarks/levels.py --game /path/to/Ballance [--seconds 5] [--levels 1 2 3] [--probes ...]
                                [--autopilot [SECONDS]] [--routes]

Per level, a Markdown table row: the load time (read, import, build; target
under 3 s), objects and triangles of the file (all, and in the Phys_* groups),
entities and bodies of the scene, the warnings the import gave, then a
headless run of ``--seconds`` of frame time without input: wall seconds per
second of frame time, whether the state stayed finite, and the player ball's
height at the start and the end (it settles on the start plate: a drop of a
few units, not a fall through the floor). With ``--probes`` (all, or some of
rest, fans, trafos, boxes, extras), each level's mechanisms after the table
(benchmarks/level_probes.py). With ``--autopilot``, a second table: the
autopilot playing each level (``ivp run --autopilot``, at most SECONDS of
play, default 900): its outcome, the seconds of play, the rollbacks of its
search and its wall seconds. With ``--routes``, per level and sector the
autopilot's map: the route's cost, or where the map's reach ends
(benchmarks/level_probes.routes). The project ships no game file: the
folder is yours (docs/levels.md).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import scenes  # noqa: E402
from behaviors.ballance import player_of  # noqa: E402
from behaviors.ballance.level import level_behavior  # noqa: E402
from behaviors.levels import autopilot_of, level_meaning  # noqa: E402
from benchmarks import level_probes  # noqa: E402
from scenes import headless  # noqa: E402
from scenes.virtools import game_level  # noqa: E402

HEADER = ("| level | load s | objects | triangles | in Phys_* | entities | bodies | warnings "
          "| wall s per s | finite | ball y start -> end |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|")


def row(game: str, number: int, seconds: float) -> str:
    """One level's table row."""
    path = game_level(game, number)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the engine's own lines; the import's are counted below
        scene = scenes.load(path)
    load = time.perf_counter() - t0
    level = level_behavior(scene.ctx)
    level.start_delay = level.birth_delay = 0.0     # the seconds measure play, not the 4 s birth
    rep = scene.level
    heights = []                                    # the player ball's y after each frame

    def ball_height(n, ctx):
        ball = player_of(ctx).ball
        heights.append(ball.get_position()[1] if ball is not None else float("nan"))

    summary = headless.run(scene, seconds, on_frame=ball_height)
    y0, y1 = (heights[0], heights[-1]) if heights else (float("nan"),) * 2
    per_second = summary.wall_seconds / summary.frame_seconds if summary.frame_seconds else float("nan")
    return (f"| {number:02d} | {load:.2f} | {rep.objects} | {rep.triangles} | {rep.physics_triangles} "
            f"| {len(scene.plan.entities)} | {summary.bodies} | {len(rep.warnings)} | {per_second:.2f} "
            f"| {'yes' if summary.finite else 'NO'} | {y0:.2f} -> {y1:.2f} |")


AUTOPILOT_HEADER = ("| level | autopilot | play s | rollbacks | wall s |\n"
                    "|---|---|---|---|---|")


def autopilot_row(game: str, number: int, seconds: float) -> str:
    """One level's row of the autopilot's table."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scene = scenes.load(game_level(game, number))
    outcome = autopilot_of(level_meaning())(scene, seconds)
    said = outcome.text().split(": ", 1)[1].split(" (")[0]
    return (f"| {number:02d} | {said} | {outcome.seconds:.1f} | {outcome.rollbacks} "
            f"| {outcome.wall_seconds:.0f} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, help="your Ballance folder (the one holding '3D Entities')")
    p.add_argument("--seconds", type=float, default=5.0, help="seconds of frame time each level runs (default 5)")
    p.add_argument("--levels", type=int, nargs="*", default=list(range(1, 13)), help="level numbers (default 1-12)")
    p.add_argument("--probes", nargs="*", choices=level_probes.PROBES,
                   help="then each level's probes of its mechanisms (default with the flag: all)")
    p.add_argument("--autopilot", type=float, nargs="?", const=900.0, metavar="SECONDS",
                   help="then the autopilot's table: each level played by it, at most SECONDS of play (default 900)")
    p.add_argument("--routes", action="store_true",
                   help="then per level and sector whether the autopilot's map has a route to the goal")
    args = p.parse_args(argv)
    scenes.load(game_level(args.game, args.levels[0]))      # numba's kernels compiled or loaded before timing
    print(HEADER, flush=True)
    for n in args.levels:
        print(row(args.game, n, args.seconds), flush=True)
    if args.autopilot is not None:
        print("\n" + AUTOPILOT_HEADER, flush=True)
        for n in args.levels:
            print(autopilot_row(args.game, n, args.autopilot), flush=True)
    if args.routes:
        for n in args.levels:
            level_probes.routes(args.game, n)
    if args.probes is not None:
        for n in args.levels:
            level_probes.report(args.game, n, args.probes or level_probes.PROBES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
