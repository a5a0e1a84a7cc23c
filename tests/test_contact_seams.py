"""Smooth rolling over tessellated geometry (surfaces-and-contacts 6.4): floor seams, rails."""

import math

import numpy as np
import pytest

from ivp import Environment, ForceController, ObjectTemplate, build_surface
from test_collision_scenes import WOOD, ball, floor, height, run

WOOD_FORCE = 0.43        # Ball Navigation's force per PSI for the wood ball (glue-and-content 3)


def push(env, obj, force):
    env.sim_unit_manager.add_controller_to_core(ForceController(obj.core, (0.0, 0.0, 0.0), force), obj.core)
    obj.wake()


def test_wood_ball_rolls_over_every_seam_of_a_20x20_floor_without_a_hop():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, n=20, size=40.0)                     # 2 m cells, 800 triangles
    b = ball(env, (-15.0, 2.5, -12.0), name="wood", **WOOD)
    b.wake()
    run(env, 2.0)                                   # land and settle
    push(env, b, (WOOD_FORCE, 0.0, 0.3))            # diagonal: x, z and the cells' diagonals
    ys = []
    supports = set()

    def record(e):
        ys.append(height(b))
        supports.update(c.support for c in e.collision.contacts())

    run(env, 3.0, record)
    p = b.core.pos_world_f_core_last_psi
    assert p[0] > -15.0 + 20.0                      # crossed ten cells along x
    assert len(supports) >= 20                      # handed from triangle to triangle
    assert max(ys) - min(ys) <= 0.005
    assert min(ys) > 2.0                            # never sinks into the floor


def octagon_rails(env, length=60.0, segment=2.0, radius=0.35, spacing=3.75, name="rails"):
    """Two octagonal tubes along z (flat top), centres at x = +-spacing/2, y = 0."""
    angles = [math.radians(22.5 + 45.0 * k) for k in range(8)]
    zs = np.arange(-length / 2, length / 2 + 1e-9, segment)
    V = []
    F = []
    for cx in (-spacing / 2, spacing / 2):
        base = len(V)
        for z in zs:
            for a in angles:
                V.append((cx + radius * math.cos(a), radius * math.sin(a), z))
        for s in range(len(zs) - 1):
            for k in range(8):
                a = base + s * 8 + k
                b = base + s * 8 + (k + 1) % 8
                c = a + 8
                d = b + 8
                F += [(a, b, d), (a, d, c)]
    surf = build_surface(name, concave_meshes=[(np.array(V), np.array(F))])
    return env.create_polygon(surf, ObjectTemplate(name=name, physical_unmoveable=True), (0.0, 0.0, 0.0))


def rest_height_on_rails(r=2.0, radius=0.35, spacing=3.75, gap=0.02):
    """Centre height where the ball's distance to each octagon (2D) is r + gap, by bisection."""
    angles = [math.radians(22.5 + 45.0 * k) for k in range(8)]
    poly = [(spacing / 2 + radius * math.cos(a), radius * math.sin(a)) for a in angles]

    def dist(y):
        best = math.inf
        for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1]):
            ex, ey = bx - ax, by - ay
            t = min(max(((0 - ax) * ex + (y - ay) * ey) / (ex * ex + ey * ey), 0.0), 1.0)
            best = min(best, math.hypot(ax + ex * t, ay + ey * t - y))
        return best

    lo, hi = 0.0, 3.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if dist(mid) < r + gap:
            lo = mid
        else:
            hi = mid
    return lo


def test_ball_rolls_along_octagonal_rails_without_falling_through_or_jittering():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    octagon_rails(env)
    y_rest = rest_height_on_rails()
    b = ball(env, (0.0, y_rest + 0.3, -25.0), name="wood", **WOOD)
    b.wake()
    run(env, 2.0)
    assert height(b) == pytest.approx(y_rest, abs=0.005)
    push(env, b, (0.0, 0.0, WOOD_FORCE))
    xs = []
    ys = []

    def record(e):
        p = b.core.pos_world_f_core_last_psi
        xs.append(p[0])
        ys.append(p[1])

    run(env, 3.0, record)
    assert b.core.pos_world_f_core_last_psi[2] > -25.0 + 10.0
    assert max(abs(x) for x in xs) < 0.01
    assert max(ys) - min(ys) <= 0.005
    assert min(ys) > y_rest - 0.005
    assert len(list(env.collision.contacts())) == 2
