"""Physicalize / Unphysicalize (glue-and-content 2; ivp spec 1.3, 2.4, 10.4;
surfaces-and-contacts 1)."""

import math

import numpy as np
import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import Physicalize
from ivp.fp import f32

S2 = math.sqrt(0.5)


@pytest.fixture
def ctx():
    return CKContext()


def crate(ctx, name="crate", **kw):
    return ctx.create_entity(name, mesh=meshes.box(2.0, 2.0, 2.0, name="crate_mesh"), **kw)


def test_pins_and_defaults_are_the_spec_values_in_f32(ctx):
    blk = Physicalize(target=crate(ctx))
    assert blk.INPUTS == ("Physicalize", "Unphysicalize") and blk.OUTPUTS == ("Out1", "Out2")
    assert blk.params == {
        "Fixed": False, "Friction": f32(0.7), "Elasticity": f32(0.4), "Mass": 1.0,
        "Collision Group": "", "Start Frozen": False, "Enable Collision": True,
        "Automatic Calculate Mass Center": True, "Linear Speed Dampening": f32(0.1),
        "Rot Speed Dampening": f32(0.1), "Collision Surface": None, "convex 1": None,
    }
    assert blk.settings == {"Convex Count": 1, "Ball Count": 0, "Concave Count": 0,
                            "Shift Mass Center": (0.0, 0.0, 0.0)}
    assert blk.params["Friction"] == 0.699999988079071    # 0x3f333333, (f32)0.7, not 0.7


def test_settings_make_the_numbered_pins(ctx):
    blk = Physicalize(target=crate(ctx), convex_count=2, ball_count=1, concave_count=1)
    assert [n for n in blk.params if n[0].islower()] == [
        "convex 1", "convex 2", "ball position 1", "ball radius 1", "concave 1"]


def test_template_from_the_pins(ctx):
    e = crate(ctx, position=(1.0, 2.0, 3.0))
    blk = Physicalize(target=e, mass=3.0, friction=0.6, elasticity=1.0, collision_group="Modul29xyz",
                      linear_speed_dampening=1.0, rot_speed_dampening=3.0, fixed=False)
    assert blk.trigger("Physicalize") == ["Out1"]
    body = ctx.physics.body_of(e)
    c = body.core
    assert c.mass == 3.0 and c.speed_damp_factor == 1.0 and c.rot_speed_damp_factor == (3.0,) * 3
    assert body.nocoll_group == "Modul29x"                       # 8 characters kept
    assert body.client_data is e and body.name == "crate"
    assert c.pos_world_f_core_last_psi == (1.0, 2.0, 3.0)
    rec = ctx.physics.record_of(e)
    assert (rec.friction, rec.elasticity) == (f32(0.6), 1.0)
    # a cube of side 2: IVP's unit inertia sqrt(2) s^2 / 12 per axis, times the mass
    assert c.rot_inertia[0] == pytest.approx(3.0 * math.sqrt(2.0) * 4.0 / 12.0, rel=1e-6)


def test_physicalize_twice_changes_nothing(ctx):
    e = crate(ctx)
    first = blocks.physicalize(ctx, e, mass=2.0)
    blk = Physicalize(target=e, mass=9.0, fixed=True)
    assert blk.trigger("Physicalize") == ["Out1"]
    assert ctx.physics.body_of(e) is first and first.core.mass == 2.0
    assert len(ctx.physics.env.objects) == 1


def test_mass_below_1e_8_becomes_1(ctx):
    assert blocks.physicalize(ctx, crate(ctx), mass=0.0).core.mass == 1.0
    assert blocks.physicalize(ctx, crate(ctx, "neg"), mass=-5.0).core.mass == 1.0


def test_shift_mass_center_only_without_automatic_mass_center(ctx):
    auto = blocks.physicalize(ctx, crate(ctx, "a"), shift_mass_center=(1.0, 0.0, 0.0))
    assert auto.shift_core_f_object == (0.0, 0.0, 0.0)
    shifted = blocks.physicalize(ctx, crate(ctx, "b"), shift_mass_center=(1.0, 0.0, 0.0),
                                      automatic_calculate_mass_center=False)
    # the object origin seen from the core (the mass centre at object (1, 0, 0))
    assert shifted.shift_core_f_object == (-1.0, 0.0, 0.0)


def test_ball_when_no_surface_name_and_collision_off(ctx):
    body = blocks.physicalize(ctx, crate(ctx), collision_surface="")
    assert body.is_ball and not body.collision_enabled
    assert body.ball_radius == 1.0


def test_ball_count_uses_the_last_radius_and_ignores_positions(ctx):
    body = blocks.physicalize(ctx, crate(ctx), ball_count=2, ball_radius_1=1.5, ball_radius_2=2.0,
                                   ball_position_2=(5.0, 5.0, 5.0))
    assert body.is_ball and body.ball_radius == 2.0 and body.collision_enabled
    assert body.shift_core_f_object == (0.0, 0.0, 0.0)


def test_scale_is_baked_and_the_pose_comes_from_the_world_matrix(ctx):
    e = crate(ctx, position=(0.0, 5.0, 0.0), scale=(2.0, 1.0, 1.0))
    e.rotate((0, 1, 0), math.pi / 2)
    body = blocks.physicalize(ctx, e)
    v = body.surface.all_vertices()
    assert v[:, 0].min() == -2.0 and v[:, 0].max() == 2.0 and v[:, 1].max() == 1.0
    q = body.core.q_world_f_core_last_psi
    assert np.allclose(q, (0.0, S2, 0.0, S2), atol=1e-7)


def test_uniform_scale_gives_the_exact_rotation(ctx):
    e = crate(ctx, scale=(3.0, 3.0, 3.0))
    e.set_quaternion((0.0, 0.0, S2, S2))
    q = blocks.physicalize(ctx, e).core.q_world_f_core_last_psi
    assert np.allclose(q, (0.0, 0.0, S2, S2), atol=1e-7)


def test_surface_cache_by_name_the_first_scale_wins(ctx):
    a = blocks.physicalize(ctx, crate(ctx, "a"))
    b = blocks.physicalize(ctx, crate(ctx, "b", scale=(3.0, 3.0, 3.0)))
    assert b.surface is a.surface and b.surface.all_vertices()[:, 0].max() == 1.0
    ctx.physics.delete_collision_surfaces()
    c = blocks.physicalize(ctx, crate(ctx, "c", scale=(3.0, 3.0, 3.0)))
    assert c.surface is not a.surface and c.surface.all_vertices()[:, 0].max() == 3.0


def test_concave_floor_is_one_triangle_piece_per_face(ctx):
    floor = ctx.create_entity("floor", mesh=meshes.tessellated_plane(10, 10, 2, 2))
    body = blocks.physicalize(ctx, floor, fixed=True, convex_count=0, concave_count=1)
    assert body.is_fixed and sum(len(s.faces) for s in body.surface.soups) == 8


def test_not_start_frozen_wakes_at_the_next_psi(ctx):
    body = blocks.physicalize(ctx, crate(ctx))
    assert body.object_state == 8 and body.core.is_in_wakeup_vec     # a queued revive
    ctx.process_frame(16.0)
    assert body.object_state == 1


def test_start_frozen_stays_asleep(ctx):
    body = blocks.physicalize(ctx, crate(ctx), start_frozen=True)
    assert not body.core.is_in_wakeup_vec
    for _ in range(3):
        ctx.process_frame(16.0)
    assert body.object_state == 8


def test_unphysicalize_destroys_the_body_and_fires_out2(ctx):
    e = crate(ctx, position=(0.0, 9.0, 0.0))
    body = blocks.physicalize(ctx, e)
    assert Physicalize(target=e).trigger("Unphysicalize") == ["Out2"]
    assert ctx.physics.body_of(e) is None and body.deleted and ctx.physics.env.objects == []
    assert e.get_position() == (0.0, 9.0, 0.0)


def test_missing_mesh_names_block_pin_and_entity(ctx):
    e = ctx.create_entity("bare")
    with pytest.raises(ValueError, match="Physicalize on 'bare': pin 'convex 1': no mesh"):
        Physicalize(target=e, collision_surface="bare").trigger()
    assert not ctx.physics.is_physicalized(e)


def test_a_zero_scale_entity_names_block_and_entity_and_makes_no_body(ctx):
    e = crate(ctx)
    m = np.identity(4)
    m[1, 1] = 0.0
    e.set_world_matrix(m)
    with pytest.raises(ValueError, match="Physicalize on 'crate': the world matrix has a zero scale"):
        Physicalize(target=e).trigger()
    assert not ctx.physics.is_physicalized(e) and ctx.physics.env.objects == []


@pytest.mark.parametrize("kw, exc, msg", [
    ({"frition": 0.5}, TypeError, "unknown pin 'frition'.*did you mean 'friction'"),
    ({"friction": "high"}, TypeError, "Physicalize on 'crate': pin 'Friction': expected a number"),
    ({"mass": float("nan")}, ValueError, "pin 'Mass': expected a number, got nan .NaN"),
    ({"fixed": "yes"}, TypeError, "pin 'Fixed': expected TRUE/FALSE"),
    ({"convex_1": "crate.obj"}, TypeError, "pin 'convex 1': expected a bbglue.Mesh"),
    ({"convex_count": -1}, ValueError, "setting 'Convex Count' must be >= 0"),
])
def test_bad_pins_are_clear_errors(ctx, kw, exc, msg):
    with pytest.raises(exc, match=msg):
        Physicalize(target=crate(ctx), **kw)
