"""Benchmark: N free awake bodies (half balls, half boxes), gravity and damping, no contacts.

Prints microseconds per awake body per PSI for N = 1, 10, 100, 1000, the best
of three runs: with the collision system (its broad phase finds nothing) and
the dynamics alone (an environment without one).
Issue 2's target: at most 40 us per awake body per PSI.
"""

from __future__ import annotations

import time

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface


def make_world(n: int, collision: bool = True) -> Environment:
    env = Environment(gravity=(0.0, -20.0, 0.0), collision=collision)
    box = build_surface("box", [[(x, y, z) for x in (-2.5, 2.5) for y in (-1, 1) for z in (-0.5, 0.5)]])
    for i in range(n):
        pos = (float(i % 32) * 12.0, 1000.0, float(i // 32) * 12.0)
        if i % 2:
            obj = env.create_polygon(box, ObjectTemplate(name=f"box{i}", mass=1.0, speed_damp_factor=0.1,
                                                         rot_speed_damp_factor=(0.1,) * 3), pos)
            obj.async_add_rot_speed_object_cs((0.5, 2.0, 0.3))
        else:
            obj = env.create_ball(BallTemplate(name=f"ball{i}", mass=1.9, radius=2.0, speed_damp_factor=0.9,
                                               rot_speed_damp_factor=(0.1,) * 3), pos)
            obj.async_add_rot_speed_object_cs((1.0, 0.0, 0.5))
        obj.wake()
    return env


def time_psis(env: Environment, psis: int, warm_up: float) -> tuple[float, int]:
    """Microseconds per PSI over ``psis`` PSIs after ``warm_up`` seconds (revive
    and warm up), and the number of bodies awake at the end."""
    env.simulate(warm_up)
    start = env.psi_count
    t0 = time.perf_counter()
    env.simulate(psis / 66.0)
    dt = time.perf_counter() - t0
    awake = sum(1 for o in env.objects if o.object_state == 1)
    return dt / (env.psi_count - start) * 1e6, awake


def measure(n: int, psis: int = 66, collision: bool = True, runs: int = 3) -> float:
    """Microseconds per awake body per PSI, the best of ``runs`` fresh worlds."""
    best = float("inf")
    for _ in range(runs):
        us, awake = time_psis(make_world(n, collision), psis, 0.1)
        assert awake == n, f"only {awake} of {n} bodies awake"
        best = min(best, us / n)
    return best


def main() -> None:
    print("free bodies: microseconds per awake body per PSI, best of 3 (target <= 40)")
    for n in (1, 10, 100, 1000):
        psis = 66 if n < 1000 else 33
        us = measure(n, psis)
        alone = measure(n, psis, collision=False)
        print(f"  N = {n:5d}: {us:7.2f} us/body/PSI   dynamics alone {alone:7.2f}")


if __name__ == "__main__":
    main()
