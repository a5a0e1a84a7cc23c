"""The ``ivp`` command line.

``ivp demo`` runs a small headless scene with the dynamics and prints what
happened. Later subcommands (run, check, play, render) are added by the scenes
and viewer layers.
"""

from __future__ import annotations

import argparse
import sys


def _demo(args) -> int:
    from ivp import BallTemplate, Environment, ObjectTemplate, build_surface

    env = Environment(gravity=(0.0, -20.0, 0.0))
    ball = env.create_ball(BallTemplate(name="wood ball", mass=1.9, radius=2.0,
                                        speed_damp_factor=0.9, rot_speed_damp_factor=(0.1,) * 3),
                           position=(0.0, 50.0, 0.0))
    box = build_surface("box", [[(x, y, z) for x in (-2.5, 2.5) for y in (-2.5, 2.5) for z in (-2.5, 2.5)]])
    crate = env.create_polygon(box, ObjectTemplate(name="crate", mass=1.0, speed_damp_factor=0.1,
                                                   rot_speed_damp_factor=(0.1,) * 3),
                               position=(10.0, 50.0, 0.0))
    ball.wake()
    crate.wake()
    crate.async_push_object_ws((10.0, 52.5, 0.0), (0.0, 0.0, 2.0))
    frames = int(args.seconds * 60)
    for f in range(frames):
        env.simulate(1.0 / 60.0)
        if f % 60 == 59:
            for obj in (ball, crate):
                R, p = obj.get_m_world_f_object_AT(env.current_time)
                print(f"t={env.current_time:6.3f}s  {obj.name:9s} y={p[1]:9.3f} "
                      f"v={obj.core.speed[1]:8.3f} w={tuple(round(w, 3) for w in obj.core.rot_speed)}")
    print(f"{env.psi_count} PSIs in {env.current_time:.3f} s of simulated time")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ivp", description="Ballance's IVP physics in Python")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="simulate a small scene headless and print what happened")
    p.add_argument("--seconds", type=float, default=3.0)
    p.set_defaults(func=_demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
