"""Spec 2 and surfaces-and-contacts 1: object creation, mass properties, surfaces."""

import math
import struct

import pytest

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface
from ivp.fp import CALC_CALC_EPS, f32


def box_points(sx, sy, sz, c=(0.0, 0.0, 0.0)):
    return [(c[0] + x * sx / 2, c[1] + y * sy / 2, c[2] + z * sz / 2)
            for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]


def test_box_2x1x05_unit_inertia_uses_the_sqrt_combination():
    s = build_surface("box", [box_points(2.0, 1.0, 0.5)])
    a, b, c = 1.0 / 3.0, 0.25 / 3.0, 0.0625 / 3.0          # <x^2>, <y^2>, <z^2>
    expected = (math.sqrt(b * b + c * c), math.sqrt(a * a + c * c), math.sqrt(a * a + b * b))
    assert s.unit_rot_inertia == pytest.approx(expected, rel=1e-9)
    assert s.unit_rot_inertia == pytest.approx((0.0859, 0.3340, 0.3436), abs=5e-5)
    assert s.mass_center == pytest.approx((0, 0, 0), abs=1e-9)
    assert s.radius == pytest.approx(math.sqrt(1 + 0.25 + 0.0625))


def test_cube_unit_inertia_and_off_origin_mass_centre():
    s = build_surface("cube", [box_points(3.0, 3.0, 3.0, c=(4.0, -1.0, 2.0))])
    assert s.unit_rot_inertia == pytest.approx((math.sqrt(2) * 9 / 12,) * 3, rel=1e-9)
    assert s.mass_center == pytest.approx((4.0, -1.0, 2.0), abs=1e-6)


def test_radius_deviation_is_quantised_by_r_over_250():
    s = build_surface("box", [box_points(2.0, 1.0, 0.5)])
    R = math.sqrt(1.3125)
    dev = math.sqrt(1.0 + 0.25)          # a z-face vertex from the z axis
    assert s.radius_dev_factor == int(1 + dev / (R / 250))
    r, rd = s.get_radius_and_radius_dev_to_given_center((0.0, 3.0, 4.0))
    assert r == pytest.approx(R + 5.0)
    assert rd == pytest.approx(s.radius_dev_factor * R / 250 + 5.0)


def test_flat_surface_falls_back_to_the_bounding_box():
    floor = build_surface("floor", [], [([(0, 0, 0), (4, 0, 0), (0, 0, 2), (4, 0, 2)], [(0, 1, 2), (1, 3, 2)])])
    assert floor.is_flat
    assert floor.mass_center == pytest.approx((2.0, 0.0, 1.0))
    r = math.sqrt(16 + 4) / 2
    assert floor.radius == pytest.approx(r)
    assert floor.unit_rot_inertia == pytest.approx((r * r / 2,) * 3)
    tri = build_surface("tri", [[(0, 0, 0), (1, 0, 0), (0, 1, 0)]])    # 3 points: flat two-sided
    assert tri.is_flat and not tri.convex and len(tri.soups) == 1


def test_concave_bowl_is_flat_without_warnings():
    # Every face is a two-sided piece whose front and back follow each other,
    # so the signed volume cancels face by face and an open bowl takes the
    # bounding-box fallback instead of an f32-noise "volume".
    import warnings

    r, rings, sectors = 30.0, 12, 32
    verts = [(0.0, -r, 0.0)]
    for i in range(1, rings + 1):
        phi = math.pi / 2 * i / rings
        for k in range(sectors):
            a = 2 * math.pi * k / sectors
            verts.append((r * math.sin(phi) * math.cos(a), -r * math.cos(phi), r * math.sin(phi) * math.sin(a)))
    faces = [(0, 1 + (k + 1) % sectors, 1 + k) for k in range(sectors)]
    for i in range(rings - 1):
        for k in range(sectors):
            a, b = 1 + i * sectors + k, 1 + i * sectors + (k + 1) % sectors
            faces += [(a, b, b + sectors), (a, b + sectors, a + sectors)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bowl = build_surface("bowl", [], [(verts, faces)])
    assert bowl.is_flat
    assert bowl.mass_center == pytest.approx((0.0, -15.0, 0.0), abs=1e-5)
    half_diag = math.sqrt(60.0 ** 2 + 30.0 ** 2 + 60.0 ** 2) / 2
    assert bowl.unit_rot_inertia == pytest.approx((half_diag ** 2 / 2,) * 3, rel=1e-6)


def test_ball_inertia_is_0_4_m_r2_and_rot_inertias_equal():
    env = Environment()
    b = env.create_ball(BallTemplate(name="wood", mass=1.9, radius=2.0), (0, 0, 0))
    I = f32(f32(2.0 * 2.0 * f32(0.4)) * 1.0 * 1.9)
    assert b.core.rot_inertia == (I, I, I)
    assert b.core.rot_inertias_are_equal
    assert b.core.upper_limit_radius == 2.0
    assert b.core.mass == f32(1.9)
    assert b.core.inv_mass == f32(1.0 / f32(1.9))


def test_template_defaults_are_the_spec_defaults():
    t = ObjectTemplate()
    assert t.mass == 1.0 and t.rot_inertia == (1.0, 1.0, 1.0) and t.rot_inertia_is_factor
    assert struct.pack(">f", t.auto_check_rot_inertia).hex() == "3cf5c28f"
    assert struct.pack(">d", t.speed_damp_factor).hex() == "3f847ae140000000"
    assert t.nocoll_group == "" and t.mass_center_override is None and not t.physical_unmoveable


def test_mass_below_1e_8_becomes_1():
    env = Environment()
    b = env.create_ball(BallTemplate(name="tiny", mass=1e-9, radius=1.0), (0, 0, 0))
    assert b.core.mass == 1.0


def test_auto_check_rot_inertia_raises_small_axes_to_0_03_length():
    env = Environment()
    s = build_surface("box", [box_points(1.0, 1.0, 1.0)])
    obj = env.create_polygon(s, ObjectTemplate(name="p", rot_inertia_is_factor=False,
                                               rot_inertia=(1.0, 100.0, 100.0)), (0, 0, 0))
    m = f32(math.sqrt(1 + 2 * 100 ** 2)) * f32(0.03)
    assert obj.core.rot_inertia == (f32(m), 100.0, 100.0)


def test_calc_calc_inverse_spread_quirk():
    # Spec 2.6: the spread of the inverse inertias is compared with |I|^2 * 0.01.
    env = Environment()
    s = build_surface("box", [box_points(2.0, 1.0, 0.5)])
    light = env.create_polygon(s, ObjectTemplate(name="light", mass=1.0), (0, 0, 0))
    heavy = env.create_polygon(s, ObjectTemplate(name="heavy", mass=100.0), (0, 0, 0))
    assert not light.core.rot_inertias_are_equal
    # I = (8.59, 33.4, 34.4): clearly unequal, yet 1/I spreads only ~0.015 < 23.7
    assert heavy.core.rot_inertias_are_equal
    # the threshold is the spec's bit pattern (2.6), 0.010000000298023226: not (f64)0.01f
    # as the spec's text calls it, which is 0x3f847ae140000000 (the default damping, 1.3)
    assert struct.pack(">d", CALC_CALC_EPS).hex() == "3f847ae151eb8520"


def test_shift_moves_the_core_and_keeps_the_object_pose():
    env = Environment()
    s = build_surface("box", [box_points(2.0, 2.0, 2.0)])
    q = (0.0, math.sin(0.5), 0.0, math.cos(0.5))            # 1 rad about y
    obj = env.create_polygon(s, ObjectTemplate(name="shifted", mass_center_override=(1.0, 0.0, 0.0)),
                             (5.0, 0.0, 0.0), q)
    c = obj.core.pos_world_f_core_last_psi
    assert c == pytest.approx((5.0 + math.cos(1.0), 0.0, -math.sin(1.0)), abs=1e-12)
    assert obj.shift_core_f_object == (-1.0, 0.0, 0.0) and not obj.shift_is_zero
    R, vv = obj.get_m_world_f_object_AT(env.current_time)
    assert vv == pytest.approx((5.0, 0.0, 0.0), abs=1e-12)


def test_polygon_upper_limit_radius_includes_the_shift():
    env = Environment()
    s = build_surface("box", [box_points(2.0, 2.0, 2.0)])
    obj = env.create_polygon(s, ObjectTemplate(name="p", mass_center_override=(0.0, 3.0, 4.0)), (0, 0, 0))
    assert obj.core.upper_limit_radius == f32(math.sqrt(3.0) + 5.0)
    assert obj.core.inv_object_diameter == f32(0.5 / f32(math.sqrt(3.0) + 5.0))


def test_new_object_is_frozen_and_fixed_is_static():
    env = Environment()
    b = env.create_ball(BallTemplate(name="b", radius=1.0), (0, 0, 0))
    f = env.create_ball(BallTemplate(name="f", radius=1.0, physical_unmoveable=True), (0, 0, 0))
    assert b.object_state == 8 and b.core.movement_state == 8
    assert f.object_state == 0x10
    f.wake()
    env.simulate(0.5)
    assert f.core.movement_state == 8 and f.core.time_of_last_psi == 0.0
