"""Benchmark: constraints (spec 12.6) in two scenes, microseconds per PSI.

* a plank bridge like Ballance's module 29: 9 planks (mass 0.5, the last 1)
  on 10 hinges, the two ends hinged to a fixed FixCube, all in one sim unit;
* 100 independent pendulums, each a plank on a hinge to the FixCube.

Collision is off for every body, so only the joints and the dynamics run.
"""

from __future__ import annotations

from bench_free_bodies import time_psis

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface, create_hinge

PLANK = build_surface("plank", [[(x, y, z) for x in (-1.0, 1.0) for y in (-0.1, 0.1) for z in (-1.5, 1.5)]])


def fix_cube(env) -> object:
    return env.create_ball(BallTemplate(name="FixCube", radius=0.5, physical_unmoveable=True,
                                        collision_enabled=False), (0.0, 0.0, 0.0))


def plank(env, name, pos, mass, q=None):
    tmpl = ObjectTemplate(name=name, mass=mass, speed_damp_factor=0.1, rot_speed_damp_factor=(0.1,) * 3,
                          collision_enabled=False)
    return env.create_polygon(PLANK, tmpl, pos, q)


def plank_bridge() -> Environment:
    """Planks of length 2 along x, hinged about z at their shared edges."""
    env = Environment(gravity=(0.0, -20.0, 0.0))
    fix = fix_cube(env)
    planks = [plank(env, f"plank{i}", (2.0 * i + 1.0, 0.0, 0.0), 1.0 if i == 8 else 0.5) for i in range(9)]
    create_hinge(env, planks[0], fix, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    for i in range(8):
        create_hinge(env, planks[i + 1], planks[i], (2.0 * i + 2.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    create_hinge(env, planks[8], fix, (18.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    planks[4].async_push_object_ws((9.0, 0.0, 0.0), (0.0, -3.0, 0.0))     # a ball lands on it
    return env


def pendulums(n: int = 100) -> Environment:
    """n planks released from horizontal, each on its own hinge about z."""
    env = Environment(gravity=(0.0, -20.0, 0.0))
    fix = fix_cube(env)
    for i in range(n):
        z = 4.0 * i
        p = plank(env, f"pendulum{i}", (1.0, 0.0, z), 1.0)
        create_hinge(env, p, fix, (0.0, 0.0, z), (0.0, 0.0, 1.0))
        p.wake()
    return env


def main() -> None:
    print("joints: microseconds per PSI (collision off)")
    us, awake = time_psis(plank_bridge(), 132, 0.05)
    assert awake == 9, f"only {awake} of 9 planks awake"
    print(f"  plank bridge, 9 planks / 10 hinges: {us:8.1f} us/PSI ({us / 10:6.1f} us per hinge)")
    us, awake = time_psis(pendulums(100), 66, 0.05)
    assert awake == 100, f"only {awake} of 100 pendulums awake"
    print(f"  100 pendulums:                      {us:8.1f} us/PSI ({us / 100:6.1f} us per pendulum)")
    print(f"  (PSI = {1000.0 / 66.0:.2f} ms of simulated time; real time needs < {1e6 / 132:.0f} us/PSI "
          f"at Ballance's time factor 2)")


if __name__ == "__main__":
    main()
