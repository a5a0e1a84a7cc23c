"""How far the per-joint constraint solver (spec 12.6) lets a long hinge chain
come apart: a bridge of N planks (2 m long, 1 kg, damping 0.1) hinged end to
end about z, both ends hinged to fixed points, gravity -20 m/s^2, collision
off. Prints, per N, the largest gap between the two bodies' copies of a hinge
point (world distance) over the run, the largest and final energy, and
whether the state stayed finite (docs/ivp.md, "Long hinge chains").

    python benchmarks/hinge_chain.py [N ...] [--seconds S]
"""

from __future__ import annotations

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface, create_hinge  # noqa: E402
from ivp import umath  # noqa: E402
from scenes.headless import energy, finite_state  # noqa: E402

PLANK_LENGTH = 2.0
PLANK = build_surface("plank", [[(x, y, z) for x in (-1.0, 1.0) for y in (-0.1, 0.1) for z in (-1.5, 1.5)]])
GRAVITY = -20.0


def chain(n: int):
    """The bridge and its hinges as (body a, local point on a, body b, local point on b)."""
    env = Environment(gravity=(0.0, GRAVITY, 0.0))
    ends = [env.create_ball(BallTemplate(name=f"post{i}", radius=0.5, physical_unmoveable=True,
                                         collision_enabled=False), (i * n * PLANK_LENGTH, 0.0, 0.0)) for i in (0, 1)]
    tmpl = ObjectTemplate(name="plank", mass=1.0, speed_damp_factor=0.1, rot_speed_damp_factor=(0.1,) * 3,
                          collision_enabled=False)
    planks = [env.create_polygon(PLANK, tmpl, ((i + 0.5) * PLANK_LENGTH, 0.0, 0.0)) for i in range(n)]
    bodies = [ends[0], *planks, ends[1]]
    hinges = []
    for i in range(n + 1):
        point = (i * PLANK_LENGTH, 0.0, 0.0)
        a, b = bodies[i], bodies[i + 1]
        create_hinge(env, b, a, point, (0.0, 0.0, 1.0))
        hinges.append((a, local(a, point), b, local(b, point)))
    for p in planks:
        p.wake()
    return env, hinges


def local(obj, p_ws):
    c = obj.core
    R = umath.quat_to_matrix(c.q_world_f_core_last_psi)
    return umath.rot_t_mul_v(R, umath.sub(p_ws, c.pos_world_f_core_last_psi))


def world(obj, p_cs):
    c = obj.core
    R = umath.quat_to_matrix(c.q_world_f_core_last_psi)
    return umath.add(umath.rot_mul_v(R, p_cs), c.pos_world_f_core_last_psi)


def largest_gap(hinges) -> float:
    return max(umath.length(umath.sub(world(a, pa), world(b, pb))) for a, pa, b, pb in hinges)


def measure(n: int, seconds: float, step: float = 0.1) -> dict:
    env, hinges = chain(n)
    e0 = energy(env)
    gap = e_max = 0.0
    finite = True
    for _ in range(int(round(seconds / step))):
        env.simulate(step)
        finite = finite_state(env)
        if not finite:
            break
        gap = max(gap, largest_gap(hinges))
        e_max = max(e_max, energy(env))
    return {"planks": n, "largest_gap": gap, "energy_start": e0, "energy_max": e_max,
            "energy_end": energy(env) if finite else math.nan, "finite": finite}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("planks", type=int, nargs="*", default=[10, 50, 200])
    p.add_argument("--seconds", type=float, default=10.0)
    args = p.parse_args(argv)
    print(f"hinge bridge, {args.seconds:g} s, gravity {GRAVITY:g} m/s^2, planks {PLANK_LENGTH:g} m and 1 kg")
    for n in args.planks:
        r = measure(n, args.seconds)
        print(f"  {n:4d} planks: largest hinge gap {r['largest_gap']:.3f} m, energy {r['energy_start']:.1f} -> "
              f"{r['energy_end']:.1f} J (max {r['energy_max']:.1f}), {'finite' if r['finite'] else 'NaN!'}")


if __name__ == "__main__":
    main()
