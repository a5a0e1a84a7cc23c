"""Bad input at the collision side: degenerate meshes, NaN geometry, bad materials."""

import numpy as np
import pytest

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface
from ivp.collision import Material
from test_collision_scenes import ball, floor, run


def test_degenerate_triangles_are_dropped_with_a_warning_naming_the_mesh():
    V = np.array([(0, 0, 0), (1, 0, 0), (0, 0, 1), (2, 0, 0), (3, 0, 0)], dtype=float)
    F = np.array([(0, 2, 1), (1, 3, 4), (0, 0, 2)])         # the last two are degenerate
    with pytest.warns(UserWarning, match="'ramp'.*dropped 2 degenerate"):
        surf = build_surface("ramp", concave_meshes=[(V, F)])
    env = Environment(gravity=(0.0, -20.0, 0.0))
    env.create_polygon(surf, ObjectTemplate(name="ramp", physical_unmoveable=True), (0.0, 0.0, 0.0))
    b = ball(env, (0.2, 0.3, 0.2), radius=0.25)
    b.wake()
    run(env, 0.5)
    assert b.core.pos_world_f_core_last_psi[1] == pytest.approx(0.27, abs=0.01)   # rests on the kept face


def test_a_mesh_with_no_usable_face_is_an_error():
    V = np.array([(0, 0, 0), (1, 0, 0), (2, 0, 0)], dtype=float)
    with pytest.raises(ValueError, match="'line'.*no usable"):
        build_surface("line", concave_meshes=[(V, np.array([(0, 1, 2)]))])


def test_nan_geometry_is_rejected_at_creation():
    V = np.array([(0, 0, 0), (1, np.nan, 0), (0, 0, 1)])
    with pytest.raises(ValueError, match="'bad'.*NaN"):
        build_surface("bad", concave_meshes=[(V, np.array([(0, 1, 2)]))])
    with pytest.raises(ValueError, match="'bad'.*NaN"):
        build_surface("bad", convex_point_sets=[[(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, float("inf"))]])


@pytest.mark.parametrize("f,e", [(-0.1, 0.3), (float("nan"), 0.3), (0.5, -1.0), (0.5, float("inf")), ("0.5", 0.3)])
def test_material_rejects_negative_nan_and_non_numbers(f, e):
    with pytest.raises(ValueError, match="Material"):
        Material(f, e)


def test_a_body_with_a_wrong_material_type_is_refused_and_the_world_loses_nothing():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    good = ball(env, (0.0, 2.02, 0.0), name="good")
    good.wake()
    run(env, 0.5)
    n_objects = len(env.objects)
    with pytest.raises(TypeError, match="'bad'.*Material"):
        env.create_ball(BallTemplate(name="bad", radius=1.0, material=(0.5, 0.5)), (5.0, 5.0, 0.0))
    assert len(env.objects) == n_objects
    run(env, 0.5)
    assert len(list(env.collision.contacts())) == 1


def test_material_none_means_physicalize_defaults():
    env = Environment()
    a = ball(env, (0.0, 0.0, 0.0), material=None)
    from ivp.collision.material import material_of, pair_friction_elasticity
    m = material_of(a)
    assert (m.friction, m.elasticity) == (0.7, 0.4)
    b = ball(env, (5.0, 0.0, 0.0), material=Material(0.5, 0.1))
    assert pair_friction_elasticity(a, b) == pytest.approx((0.35, 0.04))
