"""Benchmark: collision, friction and impacts (issue 4's speed targets).

Prints microseconds per PSI for
* one wood ball rolling on a 20,000-triangle floor (target: at most 300),
* 100 balls dropped into a bowl,
* a stack of 10 boxes settling (until it sleeps),
* 1000 balls dropped on a tessellated floor (the stress scene floor_1000):
  while they settle, and once they all sleep.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

from ivp import MT_NOT_SIM, BallTemplate, Environment, ForceController, ObjectTemplate, build_surface
from ivp.collision import Material

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_collision_scenes import WOOD, box, floor, grid_mesh  # noqa: E402


def timed(env, psis: int) -> float:
    start = env.psi_count
    t0 = time.perf_counter()
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
    return (time.perf_counter() - t0) / (env.psi_count - start) * 1e6


def ball_on_big_floor() -> float:
    env = Environment(gravity=(0.0, -20.0, 0.0))
    t0 = time.perf_counter()
    fl = floor(env, n=100, size=200.0)
    build = time.perf_counter() - t0
    assert len(fl.collision_data.grid) == 20000
    ball = env.create_ball(BallTemplate(name="wood", radius=2.0, **WOOD), (-60.0, 2.3, -50.0))
    ball.wake()
    env.simulate(1.0)
    env.sim_unit_manager.add_controller_to_core(ForceController(ball.core, (0, 0, 0), (0.43, 0.0, 0.3)),
                                                ball.core)
    ball.wake()
    us = timed(env, 660)
    print(f"  (floor of 20,000 triangles built in {build * 1e3:.0f} ms; "
          f"ball at x = {ball.core.pos_world_f_core_last_psi[0]:.1f})")
    return us


def bowl_mesh(radius=30.0, rings=12, sectors=32):
    """The inside of a hemisphere (lower half), triangles facing in."""
    V = [(0.0, -radius, 0.0)]
    for i in range(1, rings + 1):
        phi = math.pi / 2 * i / rings
        y = -radius * math.cos(phi)
        rr = radius * math.sin(phi)
        for k in range(sectors):
            a = 2 * math.pi * k / sectors
            V.append((rr * math.cos(a), y, rr * math.sin(a)))
    F = []
    for k in range(sectors):
        F.append((0, 1 + (k + 1) % sectors, 1 + k))
    for i in range(rings - 1):
        b0 = 1 + i * sectors
        b1 = b0 + sectors
        for k in range(sectors):
            a, b = b0 + k, b0 + (k + 1) % sectors
            c, d = b1 + k, b1 + (k + 1) % sectors
            F += [(a, b, d), (a, d, c)]
    return np.array(V), np.array(F)


def balls_in_a_bowl(n=100) -> tuple:
    env = Environment(gravity=(0.0, -20.0, 0.0))
    V, F = bowl_mesh()
    env.create_polygon(build_surface("bowl", concave_meshes=[(V, F)]),
                       ObjectTemplate(name="bowl", physical_unmoveable=True, material=Material(0.7, 0.3)),
                       (0.0, 0.0, 0.0))
    balls = []
    for i in range(n):
        x = (i % 10 - 4.5) * 2.5
        z = (i // 10 - 4.5) * 2.5
        b = env.create_ball(BallTemplate(name=f"b{i}", radius=1.0, mass=1.0, material=Material(0.6, 0.2),
                                         speed_damp_factor=0.1, rot_speed_damp_factor=(0.1,) * 3),
                            (x, -10.0 + (i % 3) * 0.7, z))
        b.wake()
        balls.append(b)
    us = timed(env, 198)
    contacts = len(list(env.collision.contacts()))
    lowest = min(b.core.pos_world_f_core_last_psi[1] for b in balls)
    assert lowest > -30.0, "a ball fell through the bowl"
    return us, contacts


def stack_of_boxes(n=10) -> tuple:
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    boxes = [box(env, (0.0, 0.52 + 1.02 * i, 0.0), name=f"box{i}", material=Material(0.7, 0.3))
             for i in range(n)]
    for b in boxes:
        b.wake()
    start = env.psi_count
    t0 = time.perf_counter()
    while env.psi_count - start < 660 and (env.psi_count == start or any(b.object_state == 1 for b in boxes)):
        env.simulate(env.delta_PSI_time)
    ran = env.psi_count - start
    us = (time.perf_counter() - t0) / ran * 1e6
    top = boxes[-1].core.pos_world_f_core_last_psi
    return us, ran, top


def balls_on_a_floor(n_x=40, n_z=25, settle_cap=800, asleep_psis=132) -> tuple:
    """floor_1000: radius-1 balls (mass 1, 0.6 / 0.2) 3 apart, dropped 0.5 onto
    a 140 x 100 floor of 28 x 20 cells. us/PSI until all sleep, then asleep."""
    env = Environment(gravity=(0.0, -20.0, 0.0))
    V, F = grid_mesh(28, 140.0, 20, 100.0)
    env.create_polygon(build_surface("floor", concave_meshes=[(V, F)]),
                       ObjectTemplate(name="floor", physical_unmoveable=True, material=Material(0.7, 0.3)),
                       (0.0, 0.0, 0.0))
    balls = []
    for i in range(n_x):
        for k in range(n_z):
            b = env.create_ball(BallTemplate(name=f"b{i}_{k}", radius=1.0, mass=1.0, material=Material(0.6, 0.2)),
                                (-58.5 + 3.0 * i, 1.5, -36.0 + 3.0 * k))
            b.wake()
            balls.append(b)
    start = env.psi_count
    t0 = time.perf_counter()
    while env.psi_count - start < settle_cap and (env.psi_count == start or
                                                  any(b.object_state != MT_NOT_SIM for b in balls)):
        env.simulate(env.delta_PSI_time)
    settled = env.psi_count - start
    settle_us = (time.perf_counter() - t0) / settled * 1e6
    asleep = sum(1 for b in balls if b.object_state == MT_NOT_SIM)
    asleep_us = timed(env, asleep_psis)
    return settle_us, settled, asleep, asleep_us


def main() -> None:
    print("collision: microseconds per PSI")
    print(f"  one ball rolling on a 20,000-triangle floor: {ball_on_big_floor():8.1f} us/PSI (target <= 300)")
    us, contacts = balls_in_a_bowl()
    print(f"  100 balls in a bowl:                         {us:8.1f} us/PSI ({contacts} contacts at 3 s)")
    us, ran, top = stack_of_boxes()
    print(f"  stack of 10 boxes until it sleeps:           {us:8.1f} us/PSI ({ran} PSIs; "
          f"top box at ({top[0]:.3f}, {top[1]:.3f}, {top[2]:.3f}))")
    settle_us, settled, asleep, asleep_us = balls_on_a_floor()
    print(f"  1000 balls on a tessellated floor, settling:  {settle_us:8.1f} us/PSI ({settled} PSIs, "
          f"{asleep} asleep)")
    print(f"  1000 balls on a tessellated floor, asleep:    {asleep_us:8.1f} us/PSI")


if __name__ == "__main__":
    main()
