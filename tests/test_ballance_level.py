"""Level flow, score and transformers (glue-and-content 3, "Triggers")."""

import math

import pytest

from behaviors import gameplay_state, manager_of, registry
from behaviors.ballance import Level, camera_of, player_of
from behaviors.ballance.values import final_score
from test_ballance_world import FRAME_MS, ball_body, ballance_ctx, run


def course(**level_params):
    """Gravity off; the ball starts at the origin and Up pushes it along +Z past:
    an extra life (z 10), checkpoint 1 (z 20, reset point 2 facing +X), an extra
    point (z 30) and a death box (z 40..50)."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0), level=False)
    e = ctx.create_entity
    rp1, rp2 = e("RP1"), e("RP2", position=(0.0, 0.0, 20.0))
    rp2.set_orientation((1.0, 0.0, 0.0))
    ctx.create_group("PR_Resetpoints", [rp1, rp2])
    ctx.create_group("PC_Checkpoints", [e("CP1", position=(0.0, 0.0, 20.0))])
    ctx.create_group("P_Extra_Life", [e("EL1", position=(0.0, 0.0, 10.0))])
    ctx.create_group("P_Extra_Point", [e("EP1", position=(0.0, 0.0, 30.0))])
    ctx.create_group("DepthTestCubes", [e("DB1", position=(0.0, 0.0, 45.0), scale=(10.0, 10.0, 10.0))])
    level = registry.create(ctx, "ballance.level", params={"respawn_delay": 0.0, **level_params})
    return ctx, level


def run_until(ctx, cond, keys=("Up",), limit=600):
    """Frames until ``cond()``; returns the ball's z that the triggers of the last
    frame saw (the write-back of the frame before) and the one before that."""
    zs = [None, None]
    for i in range(limit):
        b = player_of(ctx).ball
        zs = [zs[1], b.get_position()[2] if b is not None else None]
        run(ctx, keys=set(keys))
        if cond():
            return zs
    raise AssertionError("condition never met")


def test_checkpoint_advances_the_reset_point_and_death_respawns_there_with_a_life_fewer():
    ctx, level = course()
    run_until(ctx, lambda: level.lives == 4)                   # the extra life at z 10: 3 + 1
    assert not ctx.get("EL1").is_visible()
    before, seen = run_until(ctx, lambda: level.sector == 2)   # checkpoint 1 (6.5 sphere)
    assert before < 20.0 - 6.5 <= seen
    run_until(ctx, lambda: level.flow == "dead")               # the death box
    assert level.lives == 3 and player_of(ctx).ball is None
    run(ctx, keys={"Up"})                                      # respawn (delay 0: next frame)
    assert level.flow == "playing" and player_of(ctx).kind == "wood"
    p = player_of(ctx).ball.get_position()
    assert p == pytest.approx((0.0, 0.0, 20.0), abs=0.05)      # reset point 2
    assert camera_of(ctx).yaw == pytest.approx(90.0)           # snapped to its orientation
    assert ball_body(ctx).core.speed == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    run(ctx, 30, keys={"Up"})                                  # nav back on: Up is +X now
    p2 = player_of(ctx).ball.get_position()
    assert p2[0] > p[0] + 1.0 and p2[2] == pytest.approx(p[2], abs=1e-6)
    assert manager_of(ctx).errors == []


def test_extra_point_gives_100_then_six_20s():
    ctx, level = course(satellite_interval=0.05)
    run(ctx)
    level.points = 5000                                        # no point loss in view
    lost = []
    level.every(0.5, lambda: lost.append(1))
    run_until(ctx, lambda: not ctx.get("EP1").is_visible())
    got = level.points - 5000 + len(lost)
    assert got == 100
    run(ctx, 20, keys={"Up"})                                  # 333 ms > 6 x 50 ms
    assert level.points - 5000 + len(lost) == 100 + 6 * 20


def test_score_loses_one_point_every_half_second():
    ctx, level = course()
    run(ctx, 1)                                                # started at t0 = one frame
    run(ctx, 119)                                              # t = 2 s, 1.983 s after t0
    t = 120 * FRAME_MS - FRAME_MS
    assert level.points == 1000 - math.floor(t / 500.0)        # 3 points lost
    assert gameplay_state(ctx)["score"] == level.points


def test_game_over_when_no_spare_life_is_left():
    ctx, level = course()
    run(ctx)
    level.lives = 0
    level.die()
    run(ctx, 3, keys={"Up"})
    assert level.flow == "game over" and player_of(ctx).ball is None
    assert gameplay_state(ctx)["state"] == "game over"


def test_finish_gives_the_final_score():
    ctx, level = course(level=3)
    ctx.create_entity("PE_Levelende", position=(0.0, 0.0, 15.0))
    manager_of(ctx).stop(level)
    level = registry.create(ctx, "ballance.level", params={"level": 3, "respawn_delay": 0.0})
    before, seen = run_until(ctx, lambda: level.flow == "finished")
    assert before < 15.0 - 1.0 <= seen                         # the finish sphere has radius 1
    assert level.final == 100 * 3 + level.points + 200 * level.lives
    assert final_score(3, level.points, level.lives) == level.final
    points = level.points
    run(ctx, 60)
    assert level.points == points                              # the score is frozen
    v = ball_body(ctx).core.speed[2]
    run(ctx, 5, keys={"Up"})                                   # navigation is off
    assert ball_body(ctx).core.speed[2] <= v


def test_level_needs_a_start():
    ctx = ballance_ctx(level=False)
    ctx.destroy_entity(ctx.get("PS_Levelstart"))
    with pytest.raises(ValueError, match=r"here:1:1: .*no start"):
        registry.create(ctx, "ballance.level", where="here:1:1")


# --- transformers -----------------------------------------------------------------------------


def transformer_course(pad_kind):
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0))
    pad = ctx.create_entity("Pad", position=(0.0, -1.0, 15.0))
    ctx.create_group(f"P_Trafo_{pad_kind.capitalize()}", [pad])
    registry.create(ctx, "ballance.transformers", params={"float_time": 0.2})
    return ctx


def test_transformer_swaps_wood_for_paper_with_zero_velocity():
    ctx = transformer_course("paper")
    player = player_of(ctx)
    before, seen = run_until(ctx, lambda: player.held)
    assert math.dist((0.0, 0.0, before), (0.0, -1.0, 15.0)) > 4.3 >= math.dist((0.0, 0.0, seen), (0.0, -1.0, 15.0))
    assert not ctx.physics.is_physicalized(ctx.get("Ball_Wood"))
    run_until(ctx, lambda: player.kind == "paper", keys=("Up",), limit=30)
    ball = player.ball
    assert ball is ctx.get("Ball_Paper") and ball.is_visible() and not ctx.get("Ball_Wood").is_visible()
    assert ball.get_position() == pytest.approx((0.0, 2.0, 15.0), abs=1e-6)   # 3 above the pad
    core = ball_body(ctx).core
    assert core.speed == (0.0, 0.0, 0.0) and core.rot_speed == (0.0, 0.0, 0.0)
    assert core.mass == pytest.approx(0.2, rel=1e-6)
    run(ctx, 5, keys={"Up"})                                   # paper force now
    assert player_of(ctx).kind == "paper" and ball_body(ctx).core.speed[2] > 0.0


def test_a_pad_of_the_balls_own_kind_does_nothing():
    ctx = transformer_course("wood")
    run(ctx, 120, keys={"Up"})
    player = player_of(ctx)
    assert player.kind == "wood" and not player.held
    assert player.ball.get_position()[2] > 20.0


def test_level_reset_restores_the_pickups():
    ctx, level = course()
    run_until(ctx, lambda: level.lives == 4)
    manager_of(ctx).reset()
    run(ctx)
    assert isinstance(level, Level) and level.lives == 3 and ctx.get("EL1").is_visible()
