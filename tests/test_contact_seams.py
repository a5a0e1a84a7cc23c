"""Rolling over tessellated geometry (ivp-contacts 5.3, 9.2): a ball's contact
point breaks when its centre leaves its triangle; the ball falls for one PSI
and impacts the next triangle at 1 cm, then the normal solve lifts it back
towards 2 cm. So the gap stays between 0.01 and 0.02 and every seam costs one
deletion, one creation and one impact (this replaced an earlier design that
handed contacts over between triangles and rolled smoothly: IVP hops)."""

import math

import numpy as np

from ivp import Environment, ForceController, ObjectTemplate, build_surface
from test_collision_scenes import WOOD, ball, floor, height, run

WOOD_FORCE = 0.43        # Ball Navigation's force per PSI for the wood ball (glue-and-content 3)


def push(env, obj, force):
    env.sim_unit_manager.add_controller_to_core(ForceController(obj.core, (0.0, 0.0, 0.0), force), obj.core)
    obj.wake()


class Counter:
    def __init__(self):
        self.impacts = self.created = self.deleted = 0

    def event_post_collision(self, ev):
        self.impacts += 1

    def event_friction_created(self, ev):
        self.created += 1

    def event_friction_deleted(self, ev):
        self.deleted += 1


def test_wood_ball_hops_at_every_seam_of_a_20x20_floor():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, n=20, size=40.0)                     # 2 m cells, 800 triangles
    b = ball(env, (-15.0, 2.5, -12.0), name="wood", **WOOD)
    b.wake()
    run(env, 2.0)                                   # land and settle
    push(env, b, (WOOD_FORCE, 0.0, 0.3))            # diagonal: x, z and the cells' diagonals
    count = Counter()
    env.collision.add_listener_collision(count)
    env.collision.add_listener_contact(count)
    ys = []
    triangles = set()

    def record(e):
        ys.append(height(b))
        triangles.update(c.side1.piece_key for c in e.collision.contacts())

    run(env, 3.0, record)
    p = b.core.pos_world_f_core_last_psi
    assert p[0] > -15.0 + 20.0                      # crossed ten cells along x
    assert len(triangles) >= 20
    # one deletion, creation and impact per seam (the last may be mid-fall)
    assert count.impacts == count.created >= len(triangles) - 1
    assert abs(count.deleted - count.impacts) <= 1
    # the centre stays between the impact gap (0.01, one PSI's fall may
    # overshoot it by the root tolerance) and the rest gap 0.02
    assert 2.0 + 0.01 - 1e-4 <= min(ys) and max(ys) <= 2.0 + 0.02 + 1e-4


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


def test_ball_rolls_along_octagonal_rails_without_falling_through():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    octagon_rails(env)
    b = ball(env, (0.0, rest_height_on_rails() + 0.3, -25.0), name="wood", **WOOD)
    b.wake()
    run(env, 2.0)
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
    # every rail segment's seam drops the ball from its 2 cm gap to the 1 cm
    # impact gap (9.2); the centre stays where those gaps put it
    assert rest_height_on_rails(gap=0.01 - 1e-3) <= min(ys)
    assert max(ys) <= rest_height_on_rails(gap=0.02 + 1e-3)
    assert len(list(env.collision.contacts())) == 2
