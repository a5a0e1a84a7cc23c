"""Ballance test worlds, and the player balls' table (glue-and-content 3).

``ballance_ctx`` builds a small level in code: the three player balls, the
physics globals Ballance sets (gravity (0, -20, 0), time factor 2), and the
player, camera and navigation behaviours. The other test_ballance* files use it.
"""

import math

import pytest

from bbglue import meshes
from bbglue.blocks import SetPhysicsGlobals
from bbglue.context import CKContext
from behaviors import manager_of, registry
from behaviors.ballance import player_of
from behaviors.ballance.values import BALL_KINDS

FRAME_MS = 1000.0 / 60.0
PSI_DT = 1.0 / 66.0


def ballance_ctx(gravity=(0.0, -20.0, 0.0), start=(0.0, 10.0, 0.0), kind="wood", level=True, heading=(0.0, 0.0, 1.0),
                 **level_params):
    """A context with the balls, the camera rig, navigation and (optionally) a
    level whose first reset point is at ``start``, its -X axis along
    ``heading`` (the camera's heading there: +Z unless told)."""
    ctx = CKContext()
    ctx.create_entity("Ball_Paper", mesh=meshes.sphere(2.0, 8, name="Ball_Paper_Mesh"), position=start)
    ctx.create_entity("Ball_Wood", mesh=meshes.sphere(2.0, 8, name="Ball_Wood_Mesh"), position=start)
    ctx.create_entity("Ball_Stone", mesh=meshes.sphere(2.0, 8, name="Ball_Stone_Mesh"), position=start)
    rp = ctx.create_entity("PR_Resetpoint_01", position=start)
    up = (0.0, 1.0, 0.0)
    rp.set_orientation((up[1] * heading[2], 0.0, -up[1] * heading[0]))    # Z = up x heading, so -X = heading
    SetPhysicsGlobals(None, ctx, gravity=gravity, physic_time_factor=2.0).trigger()
    registry.create(ctx, "ballance.player", params={"start_kind": kind})
    registry.create(ctx, "ballance.camera")
    registry.create(ctx, "ballance.navigation")
    if level:
        registry.create(ctx, "ballance.level", params={"hide_delay": 0.0, "rebirth_delay": 0.0, "start_delay": 0.0,
                                                       "birth_delay": 0.0, **level_params})
    return ctx


def run(ctx, n=1, keys=(), ms=FRAME_MS):
    for _ in range(n):
        ctx.input_manager.set_keys(keys)
        ctx.process_frame(ms)


def ball_body(ctx):
    return ctx.physics.body_of(player_of(ctx).ball)


def test_player_balls_are_physicalized_with_their_table_row():
    for kind, row in BALL_KINDS.items():
        ctx = ballance_ctx(kind=kind, gravity=(0.0, 0.0, 0.0))
        run(ctx)
        player = player_of(ctx)
        assert player.kind == kind and player.ball is ctx.get(f"Ball_{kind.capitalize()}")
        body = ball_body(ctx)
        core = body.core
        assert core.mass == pytest.approx(row.mass, rel=1e-6)
        assert core.speed_damp_factor == pytest.approx(row.linear_damping, rel=1e-6)
        assert core.rot_speed_damp_factor[0] == pytest.approx(row.rot_damping, rel=1e-6)
        rec = ctx.physics.record_of(player.ball)
        assert (rec.friction, rec.elasticity) == pytest.approx((row.friction, row.elasticity), rel=1e-6)
        assert body.is_ball == (kind != "paper")
        others = [e for k, e in player.balls.items() if k != kind]
        assert all(not e.is_visible() and not ctx.physics.is_physicalized(e) for e in others)


def test_wood_ball_free_fall_matches_the_closed_form():
    """Glue-and-content 3: 132 PSIs of free fall give vy = -18.594 for wood:
    v_n = -g dt (1 - k^n) / (1 - k), k = 1 - 0.9 dt (ivp spec 7.1, 7.3)."""
    def closed_form(n):
        k = 1.0 - 0.9 * PSI_DT
        return -20.0 * PSI_DT * (1.0 - k ** n) / (1.0 - k)

    assert closed_form(132) == pytest.approx(-18.594, abs=1e-3)
    ctx = ballance_ctx()
    run(ctx)
    first = ctx.physics.env.psi_count - ctx.physics.frame_psis
    run(ctx, 60)
    n = ctx.physics.env.psi_count - first
    assert 110 < n < 140
    assert ball_body(ctx).core.speed[1] == pytest.approx(closed_form(n), rel=1e-4)


def test_the_level_starts_with_a_ball_at_the_start():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(3.0, 4.0, 5.0))
    run(ctx)
    from behaviors import hooks
    s = hooks.hud_fields(ctx)
    assert s == {"level": 1, "state": "playing", "score": 1000, "lives": 3, "sector": 1, "ball": "wood",
                 "final": None, "fade": None, "sky": None, "birth": None, "far": None}   # born, played this frame
    assert player_of(ctx).ball.get_position() == (3.0, 4.0, 5.0)
    assert math.isclose(ctx.get("Cam_Target").get_position()[2], 5.0)
    assert manager_of(ctx).errors == []


def test_no_hud_fields_without_a_level():
    from behaviors import hooks
    ctx = ballance_ctx(level=False)
    run(ctx)
    assert hooks.hud_fields(ctx) == {}
