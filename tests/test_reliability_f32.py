"""Values finite in f64 but beyond f32 (about 3.4e38), and a negative time
factor, are refused where they enter (issue 15, "Long runs"); the world
they were meant for steps on, finite."""

import math
import subprocess
import sys

import pytest

from bbglue.blocks import SetPhysicsGlobals
from bbglue.context import CKContext
from ivp import BallTemplate, Environment, limits

F32_MAX = 3.4028234663852886e38          # (2 - 2**-23) * 2**127


def world():
    env = Environment(gravity=(0.0, -9.81, 0.0), collision=False)
    b = env.create_ball(BallTemplate(name="keeper", mass=1.0, radius=1.0), (0.0, 0.0, 0.0))
    b.wake()
    env.simulate(0.1)
    return env, b


def body_state(b):
    c = b.core
    return (c.speed, c.rot_speed, c.speed_change, c.rot_speed_change, c.pos_world_f_core_last_psi)


@pytest.mark.parametrize("value", [3.5e38, 1e300])
def test_the_f32_rounding_is_checked_when_no_smaller_limit_applies(value):
    with pytest.raises(ValueError, match="beyond the f32 range"):
        limits.check("x", value)
    with pytest.raises(ValueError, match="beyond the f32 range"):
        limits.check("x", (0.0, -value, 0.0), size=3)


@pytest.mark.parametrize("value,match", [(None, "must be 3 numbers"), ((1.0, 2.0), "must be 3 numbers"),
                                         ((1.0, "x", 2.0), "must be numbers"), ("abc", "must be 3 numbers")])
def test_a_vector_of_the_wrong_kind_is_refused_by_the_check(value, match):
    with pytest.raises(ValueError, match=f"gravity .*{match}"):
        Environment(gravity=value)


def test_the_largest_f32_passes_the_check():
    limits.check("x", F32_MAX)
    limits.check("x", -F32_MAX)


@pytest.mark.parametrize("value", [3.5e38, 1e300])
@pytest.mark.parametrize("field,match", [
    ("mass", "mass.*MAX_MASS"), ("radius", "radius.*MAX_BALL_RADIUS"),
    ("speed_damp_factor", "speed damping.*MAX_DAMP"), ("rot_inertia", "rotation inertia.*MAX_ROT_INERTIA")])
def test_creation_beyond_f32_is_refused_naming_the_object(field, match, value):
    env, b = world()
    v = (value, value, value) if field == "rot_inertia" else value
    with pytest.raises(ValueError, match=f"'big'.*{match}"):
        env.create_ball(BallTemplate(name="big", **{field: v}), (0.0, 5.0, 0.0))
    assert len(env.objects) == 1


@pytest.mark.parametrize("push,match", [
    (lambda b: b.async_push_object_ws((0.0, 0.0, 0.0), (0.0, 1e300, 0.0)), "push impulse.*MAX_IMPULSE"),
    (lambda b: b.async_push_object_ws((1e300, 0.0, 0.0), (0.0, 1.0, 0.0)), "push point.*MAX_POSITION"),
    (lambda b: b.async_add_speed_object_ws((0.0, 1e300, 0.0)), "speed change.*MAX_SPEED_CHANGE"),
    (lambda b: b.async_add_rot_speed_object_cs((3.5e38, 0.0, 0.0)), "rotation speed change.*MAX_ROT_SPEED_CHANGE"),
])
def test_pushes_of_1e300_are_refused_and_nothing_is_applied(push, match):
    env, b = world()
    before = body_state(b)
    with pytest.raises(ValueError, match=f"'keeper'.*{match}"):
        push(b)
    assert body_state(b) == before
    env.simulate(0.1)
    assert all(math.isfinite(x) for x in b.core.speed + b.core.pos_world_f_core_last_psi)


def test_a_body_placed_beyond_the_position_limit_is_refused():
    env, _ = world()
    with pytest.raises(ValueError, match="'far'.*position.*MAX_POSITION"):
        env.create_ball(BallTemplate(name="far", radius=1.0), (0.0, 1e300, 0.0))


@pytest.mark.parametrize("factor,limit", [(-1.0, "MIN_TIME_FACTOR"), (1000.0, "MAX_TIME_FACTOR")])
def test_set_globals_refuses_a_time_factor_out_of_range(factor, limit):
    ctx = CKContext()
    with pytest.raises(ValueError, match=f"time factor.*{limit}"):
        ctx.physics.set_globals((0.0, -9.81, 0.0), factor)
    assert ctx.physics.time_factor == 1.0
    with pytest.raises(ValueError, match=f"pin 'Physic Time Factor'.*{limit}"):
        SetPhysicsGlobals(context=ctx, physic_time_factor=factor)
    ctx.process_frame(20.0)
    assert ctx.physics.time_factor == 1.0 and ctx.physics.env.current_time > 0.0


def test_a_scene_time_factor_over_the_limit_carries_the_scene_settings_place(tmp_path):
    import scenes
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nscene:\n  time_factor: 1000\n")
    with pytest.raises(scenes.SceneError) as e:
        scenes.load(str(path))
    (where, msg), = e.value.problems
    assert (where.line, where.column) == (3, 3) and "MAX_TIME_FACTOR" in msg


def test_ivp_run_refuses_a_negative_time_factor_naming_the_option():
    out = subprocess.run([sys.executable, "-m", "viewer.cli", "run", "stack", "--seconds", "0.1",
                          "--time-factor", "-1", "--quiet"], capture_output=True, text=True)
    assert out.returncode == 1 and "--time-factor -1 is below 0 (limit MIN_TIME_FACTOR" in out.stderr
