"""SetPhysicsForce and Physics Impulse (glue-and-content 2; ivp spec 7.2, 13.1)."""

import math

import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import PhysicsImpulse, SetPhysicsForce
from ivp import ForceController
from ivp.fp import f32

FRAME_MS = 1000.0 / 60.0


@pytest.fixture
def ctx():
    c = CKContext()
    c.physics.set_globals((0.0, 0.0, 0.0), 1.0)
    return c


def ball(ctx, name="ball", mass=2.0, **pins):
    e = ctx.create_entity(name, mesh=meshes.sphere(2.0), position=(0.0, 10.0, 0.0))
    blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=2.0, mass=mass, linear_speed_dampening=0.0,
                            rot_speed_dampening=0.0, **pins)
    return e


def forces_on(body):
    return [c for c in body.core.controllers_of_core if isinstance(c, ForceController)]


def test_force_pins_and_defaults():
    blk = SetPhysicsForce()
    assert blk.INPUTS == ("Create", "Destroy")
    assert blk.params == {"Position": (0.0, 0.0, 0.0), "Pos Referential": None,
                          "Direction": (0.0, 0.0, 1.0), "Direction Ref": None, "Force Value": 10.0}


def test_force_is_an_impulse_per_psi_without_dt(ctx):
    e = ball(ctx, mass=1.9)
    blk = blocks.set_force(ctx, e, force_value=0.43, pos_referential=e)
    body = ctx.physics.body_of(e)
    for _ in range(10):
        ctx.process_frame(FRAME_MS)
    n = ctx.physics.env.psi_count
    assert n > 5
    # every PSI: speed_change += F / m (f32), committed by gravity after damping (0 here)
    assert body.core.speed[2] == pytest.approx(n * f32(0.43) * f32(1.0 / 1.9), rel=1e-5)
    assert blk.handle is not None and len(forces_on(body)) == 1


def test_force_direction_is_captured_at_creation(ctx):
    e = ball(ctx)
    cam = ctx.create_entity("Cam_OrientRef")
    cam.rotate((0, 1, 0), math.pi / 2)                 # local +z is world +x
    blocks.set_force(ctx, e, direction_ref=cam, pos_referential=e, force_value=1.0)
    cam.rotate((0, 1, 0), -math.pi / 2)                # turning the camera afterwards changes nothing
    for _ in range(5):
        ctx.process_frame(FRAME_MS)
    v = ctx.physics.body_of(e).core.speed
    assert v[0] > 0.0 and abs(v[2]) < 1e-6 * v[0]


def test_force_direction_too_short_becomes_x(ctx):
    e = ball(ctx)
    blk = blocks.set_force(ctx, e, direction=(0.0, 0.005, 0.0), force_value=2.0)
    assert blk.handle.force == (2.0, 0.0, 0.0)            # |d|^2 <= 1e-4: (1, 0, 0)


def test_force_position_in_target_frame_is_used_as_core_coordinates(ctx):
    """Spec 7.2 quirk: with Pos Referential = target, the local position is not
    shifted by the mass centre."""
    e = ctx.create_entity("arm", mesh=meshes.box(4, 1, 1), position=(0.0, 0.0, 0.0))
    body = blocks.physicalize(ctx, e, automatic_calculate_mass_center=False,
                                   shift_mass_center=(1.0, 0.0, 0.0))
    quirk = blocks.set_force(ctx, e, position=(0.0, 0.0, 0.0), pos_referential=e, force_value=1.0)
    assert quirk.handle.point == (0.0, 0.0, 0.0)           # at the mass centre: no lever arm
    world = SetPhysicsForce(target=e, position=(0.0, 0.0, 0.0), force_value=1.0)
    world.create()
    # the entity origin seen from the core (mass centre at object (1, 0, 0)): (-1, 0, 0)
    assert world.handle.point == pytest.approx((-1.0, 0.0, 0.0))
    assert body is ctx.physics.body_of(e)


def test_unphysicalized_target_warns_once_and_is_retried(ctx):
    e = ctx.create_entity("late", mesh=meshes.sphere(2.0))
    blk = blocks.set_force(ctx, e)
    for _ in range(3):
        ctx.process_frame(FRAME_MS)
    assert ctx.console == ["You must Physicalize late !!!"]
    assert blk.handle is None
    blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=2.0)
    ctx.process_frame(FRAME_MS)
    assert blk.handle is not None and ctx.physics.commands == []
    assert ctx.console == ["You must Physicalize late !!!"]


def test_create_is_a_no_op_while_the_handle_is_set_and_destroy_removes(ctx):
    e = ball(ctx)
    blk = blocks.set_force(ctx, e)
    blk.create()
    body = ctx.physics.body_of(e)
    assert len(forces_on(body)) == 1
    assert blk.destroy() == ["Out2"]
    assert forces_on(body) == [] and blk.handle is None
    blk.create()
    assert len(forces_on(body)) == 1


def test_behaviour_reset_forgets_the_handle_without_deleting(ctx):
    e = ball(ctx)
    blk = blocks.set_force(ctx, e)
    blk.reset()
    assert blk.handle is None and len(forces_on(ctx.physics.body_of(e))) == 1


def test_impulse_pins_and_settings():
    blk = PhysicsImpulse()
    assert blk.params == {"Position": (0.0, 0.0, 0.0), "Referential": None, "Direction": (0.0, 0.0, 1.0),
                          "Direction Ref": None, "Impulse": 10.0}
    assert blk.settings == {"2 pos instead of dir ?": False, "Constant Force ?": False}
    assert PhysicsImpulse(two_pos_instead_of_dir=True, constant_force=True).settings == {
        "2 pos instead of dir ?": True, "Constant Force ?": True}


def test_impulse_lands_at_the_next_psi(ctx):
    e = ball(ctx, mass=2.0)
    ctx.process_frame(FRAME_MS)
    body = ctx.physics.body_of(e)
    blocks.impulse(ctx, e, position=(0.0, 10.0, 0.0), direction=(0.0, 0.0, 3.0), impulse=10.0)
    assert body.core.speed == (0.0, 0.0, 0.0) and body.core.speed_change == (0.0, 0.0, 5.0)
    n = ctx.physics.env.psi_count
    while ctx.physics.env.psi_count == n:      # frames without a PSI leave it pending
        ctx.process_frame(FRAME_MS)
        assert ctx.physics.env.psi_count > n or body.core.speed_change == (0.0, 0.0, 5.0)
    assert ctx.physics.env.psi_count == n + 1 and body.core.speed == (0.0, 0.0, 5.0)


def test_impulse_survives_a_revive(ctx):
    e = ball(ctx, mass=4.0, start_frozen=True)
    body = ctx.physics.body_of(e)
    blocks.impulse(ctx, e, position=(0.0, 10.0, 0.0), direction=(1.0, 0.0, 0.0), impulse=2.0)
    assert body.core.is_in_wakeup_vec                  # the impulse woke it (queued revive)
    ctx.process_frame(FRAME_MS)
    assert body.object_state == 1 and body.core.speed == (0.5, 0.0, 0.0)


def test_impulse_skips_fixed_and_unphysicalized_bodies(ctx):
    wall = ctx.create_entity("wall", mesh=meshes.box(1, 1, 1))
    body = blocks.physicalize(ctx, wall, fixed=True)
    blocks.impulse(ctx, wall)
    assert body.core.speed_change == (0.0, 0.0, 0.0)
    blocks.impulse(ctx, ctx.create_entity("ghost"))     # no body: skipped, no warning
    assert ctx.console == []


def test_constant_force_scales_by_the_simulation_dt(ctx):
    e = ball(ctx, mass=1.0)
    ctx.process_frame(20.0)
    dt = ctx.physics.sim_dt
    assert dt == 5.0 * 0.001                            # (20 + 0) / 4 ms
    blocks.impulse(ctx, e, position=(0.0, 10.0, 0.0), constant_force=True, impulse=10.0)
    assert ctx.physics.body_of(e).core.speed_change[2] == f32(f32(10.0) * dt)


def test_two_points_give_the_direction(ctx):
    e = ball(ctx, mass=1.0)
    blocks.impulse(ctx, e, position=(0.0, 10.0, 0.0), direction=(3.0, 14.0, 0.0),
                        two_pos_instead_of_dir=True, impulse=5.0)
    assert ctx.physics.body_of(e).core.speed_change == pytest.approx((3.0, 4.0, 0.0))


def test_impulse_in_the_target_frame_pushes_at_core_coordinates(ctx):
    e = ball(ctx, mass=1.0)
    body = ctx.physics.body_of(e)
    blocks.impulse(ctx, e, position=(0.0, 2.0, 0.0), referential=e, direction=(0.0, 0.0, 1.0), impulse=1.0)
    # torque p x I = (0,2,0) x (0,0,1) = (2,0,0); ball inertia 0.4 m r^2 = 1.6
    assert body.core.rot_speed_change == pytest.approx((2.0 / f32(1.6), 0.0, 0.0), rel=1e-6)


def test_referential_that_is_not_an_entity_names_block_and_pin(ctx):
    e = ball(ctx)
    with pytest.raises(TypeError, match="SetPhysicsForce on 'ball': pin 'Direction Ref': expected a 3D entity"):
        SetPhysicsForce(target=e, direction_ref="Cam_OrientRef")
