"""Bad calls into the building blocks and the engine (issue 15, "Building blocks
and the engine"): each is a ValueError naming the value and the limit of
ivp.limits (docs/ivp.md and docs/ck-api.md, "Limits"), raised before anything
changes; the world keeps stepping with its other bodies and controllers."""

import itertools
import math

import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import Physicalize, SetPhysicsGlobals
from behaviors import Behavior, manager_of, register, registry
from behaviors.api import FAILED
from ivp import BallTemplate, Environment, ObjectTemplate, build_surface, limits
from test_bad_input import world

CUBE = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]


# --- from a behaviour ------------------------------------------------------------------

def glue_world():
    """A falling ball 'keeper' with a force on it, and a box 'victim' with no body."""
    ctx = CKContext()
    keeper = ctx.create_entity("keeper", position=(0.0, 10.0, 0.0))
    blocks.physicalize(ctx, keeper, ball_count=1, ball_radius_1=1.0)
    blocks.set_force(ctx, keeper, force_value=0.5, direction=(1.0, 0.0, 0.0))
    ctx.create_entity("victim", mesh=meshes.box(1.0, 1.0, 1.0, name="victim_mesh"), position=(5.0, 0.0, 0.0))
    ctx.process_frame(20.0)
    return ctx


def glue_state(ctx):
    mgr = ctx.physics
    body = mgr.body_of(ctx.get("keeper"))
    return (mgr.env, len(mgr.env.objects), sorted(mgr.registry), len(body.core.controllers_of_core),
            mgr.env.gravity, mgr.gravity, mgr.psi_length, mgr.env.delta_PSI_time)


@register("test.bad_call")
class BadCall(Behavior):
    """Makes one bad call (the class attribute ``call``) in on_start."""

    call = None

    def on_start(self):
        BadCall.call(self.ctx, self.entity)


BAD_BLOCK_CALLS = [
    (lambda ctx, e: blocks.physicalize(ctx, e, mass=1e30), r"'victim'.*pin 'Mass' 1e\+30 .*MAX_MASS"),
    (lambda ctx, e: blocks.physicalize(ctx, e, mass=1e300), r"'victim'.*pin 'Mass'.*f32"),
    (lambda ctx, e: blocks.physicalize(ctx, e, linear_speed_dampening=1e30),
     r"'victim'.*pin 'Linear Speed Dampening'.*MAX_DAMP"),
    (lambda ctx, e: blocks.physicalize(ctx, e, rot_speed_dampening=-1.0),
     r"'victim'.*pin 'Rot Speed Dampening'.*MIN_DAMP"),
    (lambda ctx, e: blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=1e30),
     r"'victim'.*pin 'ball radius 1'.*MAX_BALL_RADIUS"),
    (lambda ctx, e: blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=1e-30),
     r"'victim'.*pin 'ball radius 1'.*MIN_BALL_RADIUS"),
    (lambda ctx, e: blocks.physicalize(ctx, e, convex_count=10 ** 9),
     r"'victim'.*setting 'Convex Count'.*MAX_SURFACE_PIECES"),
    (lambda ctx, e: blocks.physicalize(ctx, e, automatic_calculate_mass_center=False,
                                       shift_mass_center=(1e30, 0.0, 0.0)),
     r"'victim'.*setting 'Shift Mass Center'.*MAX_SHIFT"),
    (lambda ctx, e: blocks.set_force(ctx, ctx.get("keeper"), force_value=1e30),
     r"'keeper'.*pin 'Force Value'.*MAX_IMPULSE"),
    (lambda ctx, e: blocks.impulse(ctx, ctx.get("keeper"), impulse=1e30), r"'keeper'.*pin 'Impulse'.*MAX_IMPULSE"),
    (lambda ctx, e: SetPhysicsGlobals(context=ctx, gravity=(0.0, -1e30, 0.0)).trigger("Set Values"),
     r"pin 'Gravity'.*MAX_GRAVITY"),
    (lambda ctx, e: ctx.physics.set_globals((0.0, -1e30, 0.0), 1.0), r"gravity.*MAX_GRAVITY"),
    (lambda ctx, e: ctx.physics.set_psi_length(1e-300), r"PSI length 1e-300 .*MIN_PSI_LENGTH"),
    (lambda ctx, e: ctx.physics.set_psi_length(10.0), r"PSI length 10 .*MAX_PSI_LENGTH"),
]


@pytest.mark.parametrize("call,match", BAD_BLOCK_CALLS)
def test_a_bad_call_from_a_behaviour_is_refused_and_the_world_goes_on(call, match):
    ctx = glue_world()
    before = glue_state(ctx)
    y0 = ctx.get("keeper").get_position()[1]
    BadCall.call = staticmethod(call)
    bad = registry.create(ctx, "test.bad_call", "victim")
    for _ in range(5):
        ctx.process_frame(20.0)
    assert bad.state == FAILED
    err = manager_of(ctx).errors[0]
    assert isinstance(err.error, ValueError) and err.hook == "on_start"
    assert pytest.raises(ValueError, call, ctx, ctx.get("victim")).match(match)    # the message, directly
    assert glue_state(ctx) == before                       # no body, controller, global or world lost
    assert not ctx.physics.is_physicalized(ctx.get("victim"))
    assert ctx.get("keeper").get_position()[1] < y0        # still falling: the world steps


@pytest.mark.parametrize("mass", [0.0, -1.0, 1e-30])
def test_a_mass_below_1e_8_becomes_1_and_the_user_is_told(mass):
    ctx = glue_world()
    body = blocks.physicalize(ctx, ctx.get("victim"), mass=mass)
    assert body.core.mass == 1.0                           # glue-and-content 2: mass < 1e-8 -> 1
    told = [line for line in ctx.console if "'victim'" in line and "'Mass'" in line]
    assert len(told) == 1 and "mass 1" in told[0]


def test_a_negative_force_pushes_along_minus_direction():
    """Force Value -1 along +z: an impulse of -1 N s per PSI on a 1 kg ball
    (spec 7.2), so with no gravity it moves toward -z, and only along z."""
    ctx = CKContext()
    SetPhysicsGlobals(context=ctx, gravity=(0.0, 0.0, 0.0)).trigger("Set Values")
    e = ctx.create_entity("pushed")
    blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=1.0, mass=1.0)
    blocks.set_force(ctx, e, force_value=-1.0, direction=(0.0, 0.0, 1.0))
    for _ in range(10):
        ctx.process_frame(20.0)
    x, y, z = e.get_position()
    assert z < -0.1 and abs(x) < 1e-9 and abs(y) < 1e-9


def test_the_last_allowed_values_are_accepted():
    ctx = glue_world()
    blk = Physicalize(ctx.get("victim"), ctx, mass=limits.MAX_MASS, linear_speed_dampening=limits.MAX_DAMP,
                      convex_count=3, rot_speed_dampening=0.0)
    assert blk.params["Mass"] == limits.MAX_MASS and blk.settings["Convex Count"] == 3


# --- directly on the engine ----------------------------------------------------------------

engine_world = world          # test_bad_input's world: a keeper ball falling for 0.1 s


def engine_state(env, b):
    return (len(env.objects), env.psi_count, env.current_time, env.gravity, env.delta_PSI_time,
            b.core.speed, b.core.speed_change, b.core.rot_speed_change,
            len(b.core.controllers_of_core), len(env.sim_unit_manager.active))


def ball(env, **kw):
    return env.create_ball(BallTemplate(name="bad", **kw), (5.0, 0.0, 0.0))


def cube(env, **kw):
    return env.create_polygon(build_surface("cube", [CUBE]), ObjectTemplate(name="bad", **kw), (5.0, 0.0, 0.0))


BAD_ENGINE_CALLS = [
    (lambda env, b: ball(env, radius=1e-30), r"'bad'.*radius 1e-30 .*MIN_BALL_RADIUS"),
    (lambda env, b: ball(env, radius=2.0 ** 64), r"'bad'.*radius .*MAX_BALL_RADIUS"),
    (lambda env, b: ball(env, radius=math.inf), r"'bad'.*radius inf is not finite"),
    (lambda env, b: ball(env, radius=math.nan), r"'bad'.*radius nan is not finite"),
    (lambda env, b: ball(env, radius=1.0, extra_radius=-1.0), r"'bad'.*extra radius -1 .*MIN_EXTRA_RADIUS"),
    (lambda env, b: ball(env, radius=1.0, mass=1e300), r"'bad'.*mass 1e\+300 .*MAX_MASS"),
    (lambda env, b: ball(env, radius=1.0, rot_inertia=(1e300, 1.0, 1.0)), r"'bad'.*rotation inertia.*MAX_ROT_INERTIA"),
    (lambda env, b: ball(env, radius=1.0, speed_damp_factor=1e30), r"'bad'.*speed damping.*MAX_DAMP"),
    (lambda env, b: cube(env, mass_center_override=(0.0, 1e30, 0.0)), r"'bad'.*mass centre.*MAX_SHIFT"),
    (lambda env, b: build_surface("many", itertools.repeat(CUBE, 10 ** 9)),
     r"'many'.*pieces 1025 .*MAX_SURFACE_PIECES"),
    (lambda env, b: env.simulate(1e6), r"1e\+06 s ahead.*MAX_SIMULATE_TIME"),
    (lambda env, b: env.simulate_until(env.current_time + 3601.0), r"MAX_SIMULATE_TIME"),
    (lambda env, b: env.set_gravity((0.0, 1e30, 0.0)), r"gravity.*MAX_GRAVITY"),
    (lambda env, b: b.async_push_object_ws((0.0, 0.0, 0.0), (0.0, 1e300, 0.0)), r"'keeper'.*impulse.*MAX_IMPULSE"),
    (lambda env, b: Environment(delta_psi_time=1e-300), r"PSI length 1e-300 .*MIN_PSI_LENGTH"),
    (lambda env, b: Environment(delta_psi_time=2.0), r"PSI length 2 .*MAX_PSI_LENGTH"),
    (lambda env, b: Environment(gravity=(1e30, 0.0, 0.0)), r"gravity.*MAX_GRAVITY"),
]


@pytest.mark.parametrize("call,match", BAD_ENGINE_CALLS)
def test_a_bad_engine_call_is_refused_before_anything_changes(call, match):
    env, b = engine_world()
    before = engine_state(env, b)
    with pytest.raises(ValueError, match=match):
        call(env, b)
    assert engine_state(env, b) == before
    y0 = b.get_m_world_f_object_AT(env.current_time)[1][1]
    env.simulate(0.1)
    assert env.psi_count > before[1]
    assert b.get_m_world_f_object_AT(env.current_time)[1][1] < y0     # gravity still pulls it


def test_the_engine_accepts_its_limits():
    env = Environment(delta_psi_time=limits.MIN_PSI_LENGTH, collision=False)
    small = env.create_ball(BallTemplate(name="small", radius=limits.MIN_BALL_RADIUS, mass=limits.MAX_MASS), (0, 0, 0))
    big = env.create_ball(BallTemplate(name="big", radius=limits.MAX_BALL_RADIUS, extra_radius=limits.MAX_EXTRA_RADIUS),
                          (0, 0, 0))
    small.wake()
    big.wake()
    env.simulate(0.01005)
    assert env.psi_count == 101                            # T_k = k * 1e-4 < 0.01005 for k = 0..100 (spec 11.2)
    for body in (small, big):
        assert all(math.isfinite(c) for c in body.core.rot_inertia)
    Environment(delta_psi_time=limits.MAX_PSI_LENGTH, gravity=(0.0, -limits.MAX_GRAVITY, 0.0))
