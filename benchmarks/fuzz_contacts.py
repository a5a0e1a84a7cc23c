"""Random drops of balls and boxes onto floors, ramps and each other (issue 17).

Every trial is made from its seed alone: a fixed floor (two triangles or a
tessellated grid, level or tilted up to 25 degrees), one to three balls and
boxes of random size, mass, material, pose and start velocity above it, run
for 1.5 s of 60 Hz frames. A trial fails when

* a core's state is NaN or infinite, or an exception escapes a PSI;
* a body tunnels: its centre ends behind the floor's plane;
* the scene gains energy: the mechanical energy (kinetic + potential) at the
  end exceeds the start's by more than TOLERANCE_J (impacts' rescue pushes
  may add a little, as the engine's own stack does: ivp-contacts 4.6).

    python benchmarks/fuzz_contacts.py [--trials N] [--first SEED]

prints the failures and a summary line (and a progress line every 100 trials).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface  # noqa: E402
from ivp.collision import Material  # noqa: E402
from scenes.headless import finite_state  # noqa: E402

G = 20.0
FRAMES = 90
TOLERANCE_J = 0.05          # per kg of movable mass


def _floor(env, rnd):
    tilt = math.radians(rnd.uniform(0.0, 25.0)) if rnd.random() < 0.5 else 0.0
    n = rnd.choice((1, 4, 10))
    xs = np.linspace(-20.0, 20.0, n + 1)
    V = np.array([(x, 0.0, z) for z in xs for x in xs])
    F = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            F += [(a, a + n + 1, a + 1), (a + 1, a + n + 1, a + n + 2)]
    c, s = math.cos(tilt), math.sin(tilt)
    V = V @ np.array([[1, 0, 0], [0, c, -s], [0, s, c]]).T
    surf = build_surface("floor", concave_meshes=[(V, np.array(F))])
    env.create_polygon(surf, ObjectTemplate(name="floor", physical_unmoveable=True,
                                            material=Material(rnd.uniform(0.2, 1.0), rnd.uniform(0.0, 0.6))),
                       (0.0, 0.0, 0.0))
    return (0.0, c, s)                       # the floor's unit normal


def _quat(rnd):
    q = [rnd.gauss(0.0, 1.0) for _ in range(4)]
    k = 1.0 / math.sqrt(sum(x * x for x in q))
    return tuple(x * k for x in q)


def _above(normal, x, z, h):
    """The point h along the floor's normal above the floor point over (x, z)."""
    y = -z * normal[2] / normal[1]
    return (x + normal[0] * h, y + normal[1] * h, z + normal[2] * h)


def _body(env, rnd, i, normal, up):
    mat = Material(rnd.uniform(0.1, 1.0), rnd.uniform(0.0, 0.8))
    mass = rnd.uniform(0.3, 5.0)
    damp = dict(speed_damp_factor=rnd.choice((0.0, 0.1, 0.9)), rot_speed_damp_factor=(0.1, 0.1, 0.1))
    x, z = rnd.uniform(-6.0, 6.0), rnd.uniform(-6.0, 6.0)
    if rnd.random() < 0.5:
        r = rnd.uniform(0.3, 2.0)
        pos = _above(normal, x, z, r + up)
        return env.create_ball(BallTemplate(name=f"ball{i}", mass=mass, radius=r, material=mat, **damp), pos), r
    sx, sy, sz = (rnd.uniform(0.4, 3.0) for _ in range(3))
    pts = [(a, b, c) for a in (-sx / 2, sx / 2) for b in (-sy / 2, sy / 2) for c in (-sz / 2, sz / 2)]
    pos = _above(normal, x, z, 0.5 * math.sqrt(sx * sx + sy * sy + sz * sz) + up)
    surf = build_surface(f"box{i}", convex_point_sets=[pts])
    tmpl = ObjectTemplate(name=f"box{i}", mass=mass, material=mat, **damp)
    return env.create_polygon(surf, tmpl, pos, _quat(rnd)), 0.0


def _energy(env) -> float:
    e = 0.0
    for o in env.objects:
        c = o.core
        if c.physical_unmoveable:
            continue
        v = c.speed
        w = c.rot_speed
        I = c.rot_inertia
        e += 0.5 * c.mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        e += 0.5 * (I[0] * w[0] * w[0] + I[1] * w[1] * w[1] + I[2] * w[2] * w[2])
        e += c.mass * G * c.pos_world_f_core_last_psi[1]
    return e


def trial(seed: int):
    """Run one trial; None when it passes, else the reason."""
    rnd = random.Random(seed)
    env = Environment(gravity=(0.0, -G, 0.0))
    normal = _floor(env, rnd)
    bodies = []
    for i in range(rnd.randint(1, 3)):
        obj, r = _body(env, rnd, i, normal, rnd.uniform(0.05, 5.0) + 3.0 * i)
        obj.wake()
        obj.async_add_speed_object_ws(tuple(rnd.uniform(-5.0, 5.0) for _ in range(3)))
        bodies.append((obj, r))
    mass = sum(o.core.mass for o, _ in bodies)
    env.simulate(0.0)
    try:
        for o, _ in bodies:                  # the start's energy with the start velocities landed
            c = o.core
            c.commit_all_async_pushs()
        e0 = _energy(env)
        for _ in range(FRAMES):
            env.simulate(1.0 / 60.0)
            if not finite_state(env):
                return f"NaN at t = {env.current_time:.3f}"
    except Exception as exc:                 # noqa: BLE001 - the fuzzer reports what escaped
        return f"{type(exc).__name__}: {exc}"
    for o, r in bodies:
        p = o.core.pos_world_f_core_last_psi
        if p[0] * normal[0] + p[1] * normal[1] + p[2] * normal[2] < 0.0 and abs(p[0]) < 20 and abs(p[2]) < 20:
            return f"{o.name} tunnelled: centre {tuple(round(x, 3) for x in p)} behind the floor"
    gain = _energy(env) - e0
    if gain > TOLERANCE_J * mass:
        return f"gained {gain:.3f} J"
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0, help="the first seed")
    args = ap.parse_args(argv)
    if args.trials < 1:
        ap.error("--trials must be at least 1")
    t0 = time.perf_counter()
    failed = []
    for k in range(args.trials):
        seed = args.first + k
        why = trial(seed)
        if why is not None:
            failed.append(seed)
            print(f"seed {seed}: {why}", flush=True)
        if (k + 1) % 100 == 0:
            print(f"... {k + 1}/{args.trials} trials, {len(failed)} failed, "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    print(f"fuzz: {args.trials} trials from seed {args.first}: {len(failed)} failed "
          f"({time.perf_counter() - t0:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
