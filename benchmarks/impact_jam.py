"""Benchmark: the impact-system jams of issue 41 item 1, per PSI.

Lays the reproducers (``../shared/repro/scenes``) and the 20,000-case fuzz's
worst scene cases (``tests.fuzz`` seeds over 60 s of CPU alone: the player's
ball pieces given physics, in a heap) over a copy of the bundled scenes,
runs each headless and prints the worst and mean time of a PSI (the
PSI event plus every collision event up to the next one; wall time, or with
--cpu the process's CPU time, steadier on a shared machine), where the worst
one's time goes, and the most impacts and propagation loops of a PSI.

    python -m benchmarks.impact_jam [--repro DIR] [--seeds 8750 12104] [--seconds 1] [--cpu] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import tempfile
import time
from collections import Counter

import scenes
from ivp import rng
from ivp.collision import impact, mindist_batches, mindist_search
from ivp.collision.system import CollisionSystem
from ivp.time_manager import PsiEvent, TimeManager
from scenes.headless import run
from tests.fuzz import scene_cases

SCENES = ("fan_column__fz7235.yaml", "modules/ph34_falling_stone__fz18363.yaml")
SEEDS = (8750, 12104, 13396, 19628)     # fuzz scene cases: the pieces with mass 0.001 / friction 0 / no damping
WARM_UP_SECONDS = 0.2           # of frames run untimed first


class PsiClock:
    """The time inside TimeManager.simulate_until (``clock``) split at each PSI event:
    a PSI's share is its own event and every collision event up to the next
    PSI. Per PSI also: the impact systems (mindist-triggered impacts, 4.1),
    per starting pair, and their propagation loops (4.8), the ms spent in the loops' kernel and
    in the re-measure and event re-search after each impact (4.9), the
    event searches (3.5) and the ms in the two-piece search kernel, the
    passes that measure and search pairs of two pieces at once and the ms in
    their kernel (mindist_batches.piece_pairs_k), those of a piece with a
    grid's triangles (piece_triangles_k), and the most impacts one core took
    (4.7's counter)."""

    def __init__(self, clock=time.perf_counter):
        self.clock = clock
        self.rows = []
        self.mark = None

    def _lap(self) -> None:
        now = self.clock()
        if self.rows and self.mark is not None:
            self.rows[-1]["ms"] += (now - self.mark) * 1e3
        self.mark = now

    def _timed(self, fn, key, count=None):
        def timed(*args):
            t0 = self.clock()
            out = fn(*args)
            if self.rows:
                self.rows[-1][key] += (self.clock() - t0) * 1e3
                if count:
                    self.rows[-1][count] += 1
            return out
        return timed

    def __enter__(self):
        self._saved = (TimeManager.simulate_until, PsiEvent.simulate_time_event, impact.ImpactSystem.run,
                       impact.impact_system_loop_k, CollisionSystem.update_events_of_cores,
                       mindist_search.piece_event_search_k, mindist_batches.piece_pairs_k,
                       mindist_batches.piece_triangles_k)
        until, psi, run_system, loop_k, research, piece_search, pairs, triangles = self._saved
        clock = self

        def timed_until(tm, env, target):
            clock.mark = clock.clock()
            until(tm, env, target)
            clock._lap()
            clock.mark = None

        def timed_psi(event, tm, env):
            clock._lap()
            if clock.rows:
                clock.rows[-1]["core_impacts"] = max((impact.impacts_this_psi(o.core) for o in env.objects),
                                                     default=0)
            clock.rows.append(dict(ms=0.0, systems=0, loops=0, loop_ms=0.0, research_ms=0.0, core_impacts=0,
                                   searches=0, search_ms=0.0, passes=0, pass_ms=0.0, tri_passes=0, tri_ms=0.0,
                                   of_pair=Counter()))
            psi(event, tm, env)

        def counted_run(system, *args):
            over = run_system(system, *args)
            if clock.rows:
                clock.rows[-1]["systems"] += 1
                clock.rows[-1]["loops"] += system.loops
                clock.rows[-1]["of_pair"][id(args[0].pair)] += 1
            return over

        (TimeManager.simulate_until, PsiEvent.simulate_time_event, impact.ImpactSystem.run,
         impact.impact_system_loop_k, CollisionSystem.update_events_of_cores, mindist_search.piece_event_search_k,
         mindist_batches.piece_pairs_k, mindist_batches.piece_triangles_k) = (
            timed_until, timed_psi, counted_run, self._timed(loop_k, "loop_ms"), self._timed(research, "research_ms"),
            self._timed(piece_search, "search_ms", "searches"), self._timed(pairs, "pass_ms", "passes"),
            self._timed(triangles, "tri_ms", "tri_passes"))
        return self

    def __exit__(self, *exc):
        (TimeManager.simulate_until, PsiEvent.simulate_time_event, impact.ImpactSystem.run,
         impact.impact_system_loop_k, CollisionSystem.update_events_of_cores,
         mindist_search.piece_event_search_k, mindist_batches.piece_pairs_k,
         mindist_batches.piece_triangles_k) = self._saved


def bench(path: str, seconds: float, profile: bool, cpu: bool) -> None:
    rng.reset()
    run(scenes.load(path), seconds=min(seconds, WARM_UP_SECONDS))     # kernels load at their first call
    rng.reset()
    scene = scenes.load(path)
    prof = cProfile.Profile() if profile else None
    with PsiClock(time.process_time if cpu else time.perf_counter) as clock:
        if prof:
            prof.enable()
        t0 = time.perf_counter()
        run(scene, seconds=seconds)
        wall = time.perf_counter() - t0
        if prof:
            prof.disable()
    unit = "CPU ms" if cpu else "ms"
    rows = clock.rows
    worst = max(range(len(rows)), key=lambda i: rows[i]["ms"])
    w = rows[worst]
    print(f"{os.path.basename(path):36s} {len(clock.rows):4d} PSIs in {wall:6.2f} s: "
          f"worst {w['ms']:8.2f} {unit} (PSI {worst}), mean {sum(r['ms'] for r in rows) / len(rows):6.2f} {unit}\n"
          f"    worst PSI: {w['systems']} impact systems, {w['loops']} loops ({w['loop_ms']:.1f} {unit} in the loop "
          f"kernel), {w['research_ms']:.1f} {unit} re-measuring and re-searching events after impacts; "
          f"{w['searches']} two-piece event searches ({w['search_ms']:.1f} {unit} in their kernel), "
          f"{w['passes']} passes of pairs of two pieces ({w['pass_ms']:.1f} {unit} in their kernel), "
          f"{w['tri_passes']} of a piece with triangles ({w['tri_ms']:.1f} {unit}); "
          f"most impacts of one core {w['core_impacts']}\n"
          f"    over the run: most systems in a PSI {max(r['systems'] for r in rows)} (of one pair "
          f"{max(max(r['of_pair'].values(), default=0) for r in rows)}), most loops "
          f"{max(r['loops'] for r in rows)}, most impacts of one core {max(r['core_impacts'] for r in rows)}",
          flush=True)
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repro", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "repro",
                                                    "scenes"))
    ap.add_argument("--seeds", type=int, nargs="*", default=SEEDS, help="tests.fuzz scene cases to run too")
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of each run")
    ap.add_argument("--cpu", action="store_true", help="the process's CPU time, not wall time (a shared machine)")
    args = ap.parse_args()
    here = os.path.join(os.path.dirname(__file__), "..", "scenes", "bundled")
    with tempfile.TemporaryDirectory() as rt:
        shutil.copytree(here, rt, dirs_exist_ok=True)
        shutil.copytree(args.repro, rt, dirs_exist_ok=True)
        names = list(SCENES)
        for seed in args.seeds:
            files, name = scene_cases.case_files(seed, rt)
            for rel, text in files.items():
                with open(os.path.join(rt, rel), "w", encoding="utf-8") as fh:
                    fh.write(text)
            names.append(name + ".yaml")
        scenes.load("ball_wood")            # import the behaviours once, outside the timings
        for name in names:
            bench(os.path.join(rt, name), args.seconds, args.profile, args.cpu)


if __name__ == "__main__":
    main()
