"""A box resting on a box whose yaw differs (ivp-contacts 3.3, 3.5, 5).

Two boxes of the same size, one turned about y against the other by anything
but 0 or 90 degrees: every corner of each sticks out past the other's top or
bottom face, so when they come closer than 0 no vertex is inside the other
hull; only the bottom face's edges and the top face's edges cross. The
closest-feature search must then measure the crossed edge pair (3.5's KK
value is the signed distance of the two edge lines), negative, so the gap
goes through coll_dist and 0 continuously and the event search finds the
corner's impact: a box that tips after its first (one-edge) impact lands on
its other edges and rests at the rest gap (between coll_dist 0.010 and
friction_dist 0.020 above the lower box), instead of falling through it.
"""

import math

import pytest

from ivp import Environment
from ivp.collision.constants import COLL_DIST, FRICTION_DIST, REAL_COLL_DIST
from ivp.collision.features import piece_piece_closest
from test_collision_scenes import box, floor, run

SIZE = 5.0


def yaw(deg):
    a = math.radians(deg)
    return (0.0, math.sin(a / 2), 0.0, math.cos(a / 2))


def _piece(env, obj):
    shape = next(s for s in env.collision.fixed + env.collision.movable if s.obj is obj)
    return shape.pieces[0].transformed(obj.core.m_world_f_core_last_psi)


@pytest.mark.parametrize("deg", [6.0, 30.0, 45.0])
def test_crossed_edges_measure_a_signed_distance(deg):
    # the top box's bottom face 1 cm above, then 1 cm into the lower box's top
    # face: the distance is +-0.01 (the faces are parallel), the pair an edge pair
    env = Environment(gravity=(0.0, -9.81, 0.0))
    low = box(env, (0.0, 0.0, 0.0), size=(SIZE,) * 3, fixed=True, name="low")
    for dy in (0.01, -0.01, -0.05):
        top = box(env, (0.0, SIZE + dy, 0.0), size=(SIZE,) * 3, fixed=True, name="top", quaternion=yaw(deg))
        fa, fb, d = piece_piece_closest(_piece(env, low), _piece(env, top), None)
        assert fa[0] == "K" and fb[0] == "K"
        assert d == pytest.approx(dy, abs=1e-9)


@pytest.mark.parametrize("deg", [6.0, 30.0, 45.0])
def test_box_dropped_on_a_yawed_fixed_box_rests_on_top(deg):
    env = Environment(gravity=(0.0, -9.81, 0.0))
    box(env, (0.0, 0.0, 0.0), size=(SIZE,) * 3, fixed=True, name="low")
    top = box(env, (0.0, SIZE + 0.5, 0.0), size=(SIZE,) * 3, name="top", quaternion=yaw(deg))
    top.wake()
    lowest = []
    run(env, 1.5, every=lambda e: lowest.append(top.core.pos_world_f_core_last_psi[1]))
    h = top.core.pos_world_f_core_last_psi[1]
    assert SIZE + COLL_DIST - REAL_COLL_DIST <= h <= SIZE + FRICTION_DIST
    assert min(lowest) > SIZE                       # never inside it
    x, _, z = top.core.pos_world_f_core_last_psi
    assert math.hypot(x, z) < 0.05                  # landed flat, did not tip off


@pytest.mark.parametrize("deg", [6.0, 30.0, 45.0])
def test_two_dynamic_boxes_on_a_floor_stack(deg):
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env)
    low = box(env, (0.0, SIZE / 2 + 0.015, 0.0), size=(SIZE,) * 3, name="low")
    top = box(env, (0.0, 1.5 * SIZE + 0.5, 0.0), size=(SIZE,) * 3, name="top", quaternion=yaw(deg))
    low.wake()
    top.wake()
    run(env, 1.5)
    d = top.core.pos_world_f_core_last_psi[1] - low.core.pos_world_f_core_last_psi[1]
    assert SIZE + COLL_DIST - REAL_COLL_DIST <= d <= SIZE + FRICTION_DIST


def test_bars_crossed_through_each_other_overlap():
    # two bars at right angles, the upper one's bottom edges 1 cm below the
    # lower one's top edges: they overlap only where those edges cross
    env = Environment(gravity=(0.0, -9.81, 0.0))
    bar_x = box(env, (0.0, 0.0, 0.0), size=(2.0, 0.1, 0.1), fixed=True, name="x")
    bar_z = box(env, (0.0, 0.09, 0.0), size=(0.1, 0.1, 2.0), fixed=True, name="z")
    fa, fb, d = piece_piece_closest(_piece(env, bar_x), _piece(env, bar_z), None)
    assert fa[0] == "K" and fb[0] == "K"
    assert d == pytest.approx(-0.01, abs=1e-6)


@pytest.mark.parametrize("deg", [6.0, 30.0])
def test_physicalized_crates_stack_on_a_yawed_crate(deg):
    # the level case through the glue: a fixed 5 m crate, a dynamic one on it,
    # a dynamic one turned by deg dropped from 0.5 above that, 90 frames
    from bbglue import CKContext, meshes
    from bbglue.blocks import Physicalize
    ctx = CKContext()
    ents = []
    for i, (y, fixed, q) in enumerate(((0.0, True, None), (SIZE + 0.015, False, None),
                                       (2 * SIZE + 0.515, False, yaw(deg)))):
        e = ctx.create_entity(f"crate{i}", mesh=meshes.box(SIZE, SIZE, SIZE, name=f"crate_mesh{i}"),
                              position=(0.0, y, 0.0), quaternion=q)
        assert Physicalize(target=e, fixed=fixed).trigger("Physicalize") == ["Out1"]
        ents.append(e)
    lowest = math.inf
    for _ in range(90):
        ctx.process_frame(1000.0 / 60.0)
        lowest = min(lowest, ents[2].get_position()[1] - ents[1].get_position()[1])
    d = ents[2].get_position()[1] - ents[1].get_position()[1]
    assert SIZE + COLL_DIST - REAL_COLL_DIST <= d <= SIZE + FRICTION_DIST
    assert lowest > SIZE
