"""Bad input: a clear ValueError naming the object; the world goes on unchanged."""

import math

import pytest

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface

NAN = math.nan


def world():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    b = env.create_ball(BallTemplate(name="keeper", mass=1.0, radius=2.0), (0.0, 0.0, 0.0))
    b.wake()
    env.simulate(0.1)
    return env, b


def state(env, b):
    return (len(env.objects), env.psi_count, env.current_time, b.core.speed, b.core.speed_change,
            b.core.rot_speed_change, len(env.sim_unit_manager.active), len(env.sim_unit_manager.frozen))


CUBE = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]


@pytest.mark.parametrize("make,match", [
    (lambda env: env.create_ball(BallTemplate(name="nanpos", radius=1.0), (NAN, 0, 0)), "nanpos.*position"),
    (lambda env: env.create_ball(BallTemplate(name="infpos", radius=1.0), (0, math.inf, 0)), "infpos"),
    (lambda env: env.create_ball(BallTemplate(name="zeromass", mass=0.0, radius=1.0), (0, 0, 0)), "zeromass.*mass"),
    (lambda env: env.create_ball(BallTemplate(name="negmass", mass=-2.0, radius=1.0), (0, 0, 0)), "negmass.*mass"),
    (lambda env: env.create_ball(BallTemplate(name="nanmass", mass=NAN, radius=1.0), (0, 0, 0)), "nanmass"),
    (lambda env: env.create_ball(BallTemplate(name="norad", radius=0.0), (0, 0, 0)), "norad.*radius"),
    (lambda env: env.create_ball(BallTemplate(name="zeroq", radius=1.0), (0, 0, 0), (0, 0, 0, 0)), "zeroq.*quaternion"),
    (lambda env: env.create_ball(BallTemplate(name="nandamp", radius=1.0, speed_damp_factor=NAN), (0, 0, 0)), "nandamp.*damping"),
    (lambda env: env.create_polygon(build_surface("cube", [CUBE]), ObjectTemplate(name="badshift", mass_center_override=(NAN, 0, 0)), (0, 0, 0)), "badshift"),
])
def test_bad_creation_is_refused_and_the_world_is_unchanged(make, match):
    env, b = world()
    before = state(env, b)
    with pytest.raises(ValueError, match=match):
        make(env)
    assert state(env, b) == before
    env.simulate(0.1)
    assert len(env.objects) == 1


@pytest.mark.parametrize("push,match", [
    (lambda b: b.async_push_object_ws((NAN, 0, 0), (1, 0, 0)), "keeper.*NaN"),
    (lambda b: b.async_push_object_ws((0, 0, 0), (1, math.inf, 0)), "keeper"),
    (lambda b: b.async_add_speed_object_ws((NAN, 0, 0)), "keeper.*speed"),
    (lambda b: b.async_add_rot_speed_object_cs((0, 0, NAN)), "keeper.*rotation"),
])
def test_bad_pushes_are_refused_and_nothing_is_applied(push, match):
    env, b = world()
    before = state(env, b)
    with pytest.raises(ValueError, match=match):
        push(b)
    assert state(env, b) == before
    env.simulate(0.1)
    assert all(math.isfinite(v) for v in b.core.speed)


@pytest.mark.parametrize("points,match", [
    ([(0, 0, 0), (1, 0, 0), (2, 0, 0)], "hull.*collinear"),
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0.5, 0.5, 0)], "hull.*coplanar"),
    ([(0, 0, 0), (1, 1, 1)], "hull"),
    ([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, NAN)], "hull.*NaN"),
])
def test_degenerate_hull_is_a_value_error_naming_the_surface(points, match):
    with pytest.raises(ValueError, match=match):
        build_surface("hull", [points])


def test_bad_simulate_and_gravity_arguments():
    env, b = world()
    before = state(env, b)
    with pytest.raises(ValueError, match="simulate"):
        env.simulate(NAN)
    with pytest.raises(ValueError, match="simulate"):
        env.simulate(-1.0)
    with pytest.raises(ValueError, match="gravity"):
        env.set_gravity((0, NAN, 0))
    assert state(env, b) == before
    assert env.gravity == (0.0, -20.0, 0.0)


def test_deleted_object_refuses_pushes():
    env, b = world()
    env.delete_object(b)
    with pytest.raises(ValueError, match="keeper.*deleted"):
        b.wake()
    env.simulate(0.1)
