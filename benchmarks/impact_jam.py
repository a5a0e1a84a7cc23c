"""Benchmark: the impact-system jams of issue 41 item 1, per PSI.

Lays the reproducers (``../shared/repro/scenes``) over a copy of the bundled
scenes, runs each headless and prints the worst and mean wall time of a PSI
(the PSI event plus every collision event up to the next one) and the most
impacts and propagation loops of one PSI.

    python -m benchmarks.impact_jam [--repro DIR] [--seconds 1] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import tempfile
import time

import scenes
from ivp import rng
from ivp.collision import impact
from ivp.time_manager import PsiEvent, TimeManager
from scenes.headless import run

SCENES = ("fan_column__fz7235.yaml", "modules/ph34_falling_stone__fz18363.yaml")


class PsiClock:
    """The wall time inside TimeManager.simulate_until split at each PSI event:
    a PSI's share is its own event and every collision event up to the next
    PSI; impact systems and their loops counted per PSI."""

    def __init__(self):
        self.ms = []
        self.impacts = []
        self.loops = []
        self.mark = None

    def _lap(self) -> None:
        now = time.perf_counter()
        if self.ms and self.mark is not None:
            self.ms[-1] += (now - self.mark) * 1e3
        self.mark = now

    def __enter__(self):
        self._saved = TimeManager.simulate_until, PsiEvent.simulate_time_event, impact.ImpactSystem.run
        until, psi, run_system = self._saved
        clock = self

        def timed_until(tm, env, target):
            clock.mark = time.perf_counter()
            until(tm, env, target)
            clock._lap()
            clock.mark = None

        def timed_psi(event, tm, env):
            clock._lap()
            clock.ms.append(0.0)
            clock.impacts.append(0)
            clock.loops.append(0)
            psi(event, tm, env)

        def counted_run(system, *args):
            over = run_system(system, *args)
            if clock.ms:
                clock.impacts[-1] += 1
                clock.loops[-1] += system.loops
            return over

        TimeManager.simulate_until, PsiEvent.simulate_time_event, impact.ImpactSystem.run = (
            timed_until, timed_psi, counted_run)
        return self

    def __exit__(self, *exc):
        TimeManager.simulate_until, PsiEvent.simulate_time_event, impact.ImpactSystem.run = self._saved


def bench(path: str, seconds: float, profile: bool) -> None:
    rng.reset()
    scene = scenes.load(path)
    prof = cProfile.Profile() if profile else None
    with PsiClock() as clock:
        if prof:
            prof.enable()
        t0 = time.perf_counter()
        run(scene, seconds=seconds)
        wall = time.perf_counter() - t0
        if prof:
            prof.disable()
    ms = clock.ms[1:] or [0.0]           # the first PSI pays for compiling
    worst = max(range(len(ms)), key=ms.__getitem__)
    print(f"{os.path.basename(path):36s} {len(clock.ms):4d} PSIs in {wall:6.2f} s: "
          f"worst {ms[worst]:8.2f} ms (PSI {worst + 1}), mean {sum(ms) / len(ms):6.2f} ms; "
          f"most impacts in a PSI {max(clock.impacts)}, most loops {max(clock.loops)}", flush=True)
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repro", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "repro",
                                                    "scenes"))
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of each run")
    args = ap.parse_args()
    here = os.path.join(os.path.dirname(__file__), "..", "scenes", "bundled")
    with tempfile.TemporaryDirectory() as rt:
        shutil.copytree(here, rt, dirs_exist_ok=True)
        shutil.copytree(args.repro, rt, dirs_exist_ok=True)
        scenes.load("ball_wood")            # import the behaviours once, outside the timings
        for name in SCENES:
            bench(os.path.join(rt, name), args.seconds, args.profile)


if __name__ == "__main__":
    main()
