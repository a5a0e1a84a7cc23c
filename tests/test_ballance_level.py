"""Level flow, score and sectors: Ballance's rules as the original plays them
(issue 12's table, docs/behaviors.md "Rules"); one test per row."""

import math

import pytest

from bbglue import blocks
from behaviors import hooks, manager_of, registry
from behaviors.ballance import box_of, boxes_intersect, camera_of, player_of, set_paused
from behaviors.ballance.boxes import KeptBoxes
from test_ballance_world import FRAME_MS, ball_body, ballance_ctx, run

QUICK = {"hide_delay": 0.0, "rebirth_delay": 0.0, "start_delay": 0.0, "birth_delay": 0.0}


def course(**level_params):
    """Gravity off; the ball starts at the origin heading +Z and Up pushes it
    past: an extra life (z 10, sector 1), checkpoint 1 (its sphere's centre at
    z 20 on the path), reset point 2 (z 20, heading +X), an extra point (z 30,
    sector 2) and a death box (z 40..50)."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0), level=False)
    e = ctx.create_entity
    rp2 = e("PR_Resetpoint_02", position=(0.0, 0.0, 20.0))
    rp2.set_orientation((0.0, 0.0, -1.0))                      # X = up x Z = -X: heading (-X) = +X
    e("PC_TwoFlames_01", position=(0.0, -1.495, 20.0))
    ctx.create_group("P_Extra_Life", [e("EL1", position=(0.0, 0.0, 10.0))])
    ctx.create_group("P_Extra_Point", [e("EP1", position=(0.0, 0.0, 30.0))])
    ctx.create_group("Sector_01", [ctx.get("EL1")])
    ctx.create_group("Sector_02", [ctx.get("EP1")])
    ctx.create_group("DepthTestCubes", [e("DB1", position=(0.0, 0.0, 45.0), scale=(10.0, 10.0, 10.0))])
    level = registry.create(ctx, "ballance.level", params={**QUICK, **level_params})
    return ctx, level


def run_until(ctx, cond, keys=("Up",), limit=600):
    """Frames until ``cond()``; returns the ball's z that the triggers of the last
    frame saw (the write-back of the frame before) and the one before that."""
    zs = [None, None]
    for _ in range(limit):
        b = player_of(ctx).ball
        zs = [zs[1], b.get_position()[2] if b is not None else None]
        run(ctx, keys=set(keys))
        if cond():
            return zs
    raise AssertionError("condition never met")


# --- death test: the ball's box against each death cube ----------------------------------------


def test_death_is_the_balls_oriented_box_touching_a_death_cube():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    cube = ctx.create_entity("DB", position=(0.0, 0.0, 0.0), scale=(10.0, 10.0, 10.0))   # faces at +-5
    ball = ctx.get("Ball_Wood")                                                          # box +-2
    ball.set_position((6.9, 0.0, 0.0))
    assert boxes_intersect(box_of(ball), box_of(cube))          # centre 1.9 outside, box inside
    ball.set_position((7.1, 0.0, 0.0))
    assert not boxes_intersect(box_of(ball), box_of(cube))
    ball.rotate((0.0, 1.0, 0.0), math.radians(45.0))            # the box's corner: 2 sqrt 2 = 2.83
    ball.set_position((7.7, 0.0, 0.0))
    assert boxes_intersect(box_of(ball), box_of(cube))
    ball.set_position((7.9, 0.0, 0.0))
    assert not boxes_intersect(box_of(ball), box_of(cube))


def test_a_kept_box_is_made_again_when_its_entity_moves():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    parent = ctx.create_entity("holder")
    cube = ctx.create_entity("DB", position=(0.0, 0.0, 0.0), scale=(10.0, 10.0, 10.0), parent=parent)
    kept = KeptBoxes()
    first = kept.box(cube)
    assert kept.box(cube) is first and first.centre == (0.0, 0.0, 0.0) and first.half == (5.0, 5.0, 5.0)
    parent.set_position((0.0, 0.0, 30.0))                      # the cube moves with its parent
    assert kept.box(cube).centre == (0.0, 0.0, 30.0)
    cube.set_scale((2.0, 2.0, 2.0))
    assert kept.box(cube).half == (1.0, 1.0, 1.0)


def test_the_level_kills_the_ball_when_its_box_reaches_the_cube():
    ctx, level = course(extra_lives=None, extra_points=None)
    before, seen = run_until(ctx, lambda: level.flow == "dead")
    assert before < 40.0 - 2.0 <= seen                          # the cube's face at 40, the box's half 2


# --- spawn and camera frame -----------------------------------------------------------------------


def test_sector_1_starts_at_its_reset_point_turned_as_it_is():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 3.65, 0.0), level=False)
    ctx.create_entity("PS_Levelstart", position=(0.0, 0.0, 0.0))           # the flames, 3.65 lower
    rp = ctx.get("PR_Resetpoint_01")
    rp.set_orientation((0.0, 0.0, 1.0))
    rp.rotate((0.0, 1.0, 0.0), math.radians(30.0))             # Z 30 degrees toward +X
    registry.create(ctx, "ballance.level", params=QUICK)
    run(ctx)
    ball = player_of(ctx).ball
    assert ball.get_position() == pytest.approx((0.0, 3.65, 0.0), abs=1e-6)
    for a, b in zip(ball.get_orientation(), rp.get_orientation()):
        assert a == pytest.approx(b, abs=1e-6)
    # -X of a reset point turned 30 degrees: (-cos 30, 0, sin 30), a yaw of 30 - 90
    assert camera_of(ctx).yaw == pytest.approx(-60.0)


def test_the_rig_starts_with_its_z_along_world_minus_x_and_the_eye_at_22_35_0():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0), heading=(-1.0, 0.0, 0.0))
    assert ctx.get("PR_Resetpoint_01").get_orientation()[0] == pytest.approx((0.0, 0.0, 1.0))   # identity
    run(ctx, 600)
    assert ctx.get("Cam_OrientRef").get_orientation()[0] == pytest.approx((-1.0, 0.0, 0.0), abs=1e-9)
    assert ctx.get("Cam_Pos").get_position() == pytest.approx((22.0, 35.0, 0.0), abs=1e-3)
    run(ctx, 30, keys={"Up"})
    p = player_of(ctx).ball.get_position()
    assert p[0] < -1.0 and p[2] == pytest.approx(0.0, abs=1e-6)   # Up pushes along -X


def test_a_rig_without_a_level_looks_along_minus_x():
    ctx = ballance_ctx(level=False)
    assert camera_of(ctx).yaw == -90.0
    assert ctx.get("Cam_OrientRef").get_orientation()[0] == pytest.approx((-1.0, 0.0, 0.0), abs=1e-12)


# --- the death sequence and pause ------------------------------------------------------------------


def test_the_first_ball_is_born_1_s_in_and_played_at_4_s():
    """The level's start runs New Ball 1 s in: the ball at the reset point,
    hidden and out of the physics while the 3 s birth runs; shown and played
    at 4 s (Gameplay's New Ball, Three.js' notes). Frame 1 starts the clock."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False, start=(3.0, 4.0, 5.0))
    level = registry.create(ctx, "ballance.level")
    run(ctx, 60)                                                # 0.983 s
    player = player_of(ctx)
    assert level.flow == "starting" and player.entity_in_play is None and level.birth_age() is None
    run(ctx, 2)                                                 # 1.017 s
    e = player.entity_in_play
    assert e is not None and not e.is_visible() and player.ball is None and not ctx.physics.is_physicalized(e)
    assert e.get_position() == (3.0, 4.0, 5.0) and 0.0 <= level.birth_age() < 2.0 / 60.0
    assert [em.kind for em in level.emitters()] == ["birth"]
    run(ctx, 178)                                               # 3.983 s
    assert level.flow == "starting" and player.ball is None and level.points == 1000
    run(ctx, 4)                                                 # 4.050 s (each delay ends on a frame)
    assert level.flow == "playing" and player.ball is e and e.is_visible() and ctx.physics.is_physicalized(e)
    assert level.birth_age() is None


def test_death_pulses_white_for_2_s_and_gives_a_new_ball_at_1_s_played_at_4_s():
    """The pulse rises from the death to 1 at 1 s (the ball off there, New
    Ball's hidden birth begins) and falls to 0 at 2 s (Deactivate Ball's 2 s
    pulse, the swap at its peak); the new ball is played 3 s after its birth."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), level=False)
    level = registry.create(ctx, "ballance.level", params={"start_delay": 0.0})
    run(ctx, 182)                                               # the first ball's birth: 3 s
    assert level.flow == "playing"
    level.die()                                                 # at clock t0
    points = level.points
    ball = player_of(ctx).entity_in_play
    run(ctx, 59)                                                # 0.983 s
    t = 59 * FRAME_MS / 1000.0
    assert ball.is_visible() and level.fade == pytest.approx(1.0 - abs(t - 1.0), abs=1e-6)
    assert level.birth_age() is None
    run(ctx, 2)                                                 # 1.017 s
    assert not ball.is_visible() and player_of(ctx).ball is None and level.birth_age() is not None
    run(ctx, 58)                                                # 1.983 s: near the end of the pulse
    t = 119 * FRAME_MS / 1000.0
    assert level.fade == pytest.approx(1.0 - abs(t - 1.0), abs=1e-6)
    run(ctx, 118)                                               # 3.950 s
    assert level.flow == "dead" and player_of(ctx).ball is None and level.points == points and level.fade is None
    run(ctx, 6)                                                 # 4.050 s (each delay ends on a frame)
    assert level.flow == "playing" and player_of(ctx).ball is not None and level.fade is None
    assert level.points == points                               # no point lost from death to rebirth
    assert level.lives == 2


def test_points_stop_while_paused():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0))
    level = manager_of(ctx).find("ballance.level")[0]
    run(ctx, 62)                                                # 1.017 s after the start: 2 points lost
    assert level.points == 998
    set_paused(ctx, True)
    run(ctx, 120)
    assert level.points == 998
    set_paused(ctx, False)
    ctx.physics.time_factor = 0.0                               # the viewer's pause
    run(ctx, 120)
    assert level.points == 998
    ctx.physics.time_factor = 2.0
    run(ctx, 60)
    assert level.points == 996


def test_game_over_when_no_spare_life_is_left():
    ctx, level = course()
    run(ctx)
    level.lives = 0
    level.die()
    run(ctx, 3, keys={"Up"})
    assert level.flow == "game over" and player_of(ctx).ball is None
    assert hooks.hud_fields(ctx)["state"] == "game over"


# --- sectors and checkpoints -----------------------------------------------------------------------


def test_checkpoint_1_triggers_within_6_5_of_a_point_1_495_above_its_origin():
    ctx, level = course()
    before, seen = run_until(ctx, lambda: level.sector == 2)
    assert before < 20.0 - 6.5 <= seen


def test_only_the_next_checkpoint_counts_and_the_names_give_the_order():
    ctx, level = course()
    ctx.create_entity("PC_TwoFlames_02", position=(0.0, -1.495, 12.0))  # on the way, before 01
    ctx.create_entity("PR_Resetpoint_03", position=(0.0, 0.0, 0.0))
    run(ctx)
    run_until(ctx, lambda: player_of(ctx).ball.get_position()[2] > 12.0)
    assert level.sector == 1                                    # 02 passed while in sector 1: nothing
    before, seen = run_until(ctx, lambda: level.sector == 2)    # 01 ends sector 1
    assert before < 20.0 - 6.5 <= seen


def test_a_checkpoint_deactivates_the_old_sector_and_activates_the_next():
    """The original's Activate / Deactivate Sector: only the current sector's
    bodies are in the world; its props are shown, the others' hidden."""
    ctx, level = course()
    boxes = []
    for name, z, sector in (("Box1", 5.0, "Sector_01"), ("Box2", 25.0, "Sector_02")):
        box = ctx.create_entity(name, position=(8.0, 0.0, z))
        blocks.physicalize(ctx, box, ball_count=1, convex_count=0)
        ctx.get(sector).add(box)
        boxes.append(box)
    ctx.create_group("P_Box", boxes)
    box1, box2 = boxes
    from bbglue.blocks import PhysicsImpulse
    run(ctx)
    assert not ctx.physics.is_physicalized(box2) and not box2.is_visible()        # sector 2: out of the world
    PhysicsImpulse(box1, ctx, direction=(1.0, 0.0, 0.0), impulse=10.0).trigger()
    run(ctx, 10, keys={"Up"})
    assert box1.get_position()[0] > 8.5 and box2.get_position() == (8.0, 0.0, 25.0)   # box 1 drifts, box 2 waits
    assert not level.is_active(ctx.get("EP1")) and level.is_active(ctx.get("EL1"))
    run_until(ctx, lambda: level.sector == 2)
    mm = ctx.message_manager
    run(ctx, keys={"Up"})                                       # the messages arrive next frame
    seen = [(m.name, m.data.get("sector")) for n in ("Sector Deactivate", "Sector Reset", "Sector Activate")
            for m in mm.received(n)]
    assert ("Sector Deactivate", 1) in seen and ("Sector Reset", 2) in seen and ("Sector Activate", 2) in seen
    assert not ctx.physics.is_physicalized(box1) and not box1.is_visible()
    assert ctx.physics.is_physicalized(box2) and box2.is_visible()
    assert box2.get_position() == pytest.approx((8.0, 0.0, 25.0), abs=1e-9)   # no gravity: at rest where authored
    assert level.is_active(ctx.get("EP1")) and not level.is_active(ctx.get("EL1"))


def test_the_finish_is_live_only_in_the_last_sector():
    ctx, level = course()
    ctx.create_entity("PE_Levelende", position=(0.0, 0.0, 15.0))    # before checkpoint 1: sector 1 of 2
    manager_of(ctx).stop(level)
    level = registry.create(ctx, "ballance.level", params={"level": 3, **QUICK})
    run_until(ctx, lambda: level.sector == 2)
    assert level.flow == "playing"                              # passed through it


# --- extra life, extra point ---------------------------------------------------------------------


def test_extra_life_gives_a_life_317_ms_after_the_pickup_and_returns_when_its_sector_restarts():
    ctx, level = course()
    before, seen = run_until(ctx, lambda: not ctx.get("EL1").is_visible())
    assert before < 10.0 - 4.5 <= seen
    assert level.lives == 3
    run(ctx, 19, keys={"Up"})                                   # 316.7 ms
    assert level.lives == 3
    run(ctx, 1, keys={"Up"})                                    # 333.3 ms
    assert level.lives == 4
    level.die()
    run(ctx, 2)
    assert ctx.get("EL1").is_visible() and "EL1" not in [e.name for e in level.collected]
    assert level.lives == 3


def test_an_extra_life_of_another_sector_is_not_live():
    ctx, level = course()
    ctx.get("Sector_01").remove(ctx.get("EL1"))
    ctx.get("Sector_02").add(ctx.get("EL1"))
    ctx.get("EL1").set_position((0.0, 0.0, 5.0))               # passed in sector 1, out of reach in 2
    run_until(ctx, lambda: level.sector == 2)
    run(ctx, 10, keys={"Up"})
    assert ctx.get("EL1").is_visible() and level.lives == 3


def extra_point_at_the_start(**params):
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0), level=False)
    ctx.create_group("P_Extra_Point", [ctx.create_entity("EP", position=(0.0, 0.0, 0.0))])
    level = registry.create(ctx, "ballance.level", params={"point_period": 3600.0, "satellite_ring": 12.1,
                                                             **QUICK, **params})
    run(ctx, 2)
    return ctx, level


def test_extra_point_gives_100_then_six_20s_that_count_when_they_reach_the_ball():
    ctx, level = extra_point_at_the_start()
    assert level.points == 1100 and len(level.satellites) == 6
    # 12.1 away at 20 per second = 1/3 per frame; they arrive within 2 of the ball's centre
    run(ctx, 30)                                                # 12.1 - 30/3 = 2.1 > 2
    assert level.points == 1100
    run(ctx, 1)
    assert level.points == 1100 + 6 * 20 and level.satellites == []


def test_a_checkpoint_drops_the_satellites_in_flight():
    ctx, level = extra_point_at_the_start()
    ctx.create_entity("PC_TwoFlames_01", position=(0.0, -1.495, 0.0))
    ctx.create_entity("PR_Resetpoint_02")
    level.on_start()                                            # the new checkpoint
    run(ctx, 40)
    assert level.sector == 2 and level.points == 1100


# --- fallen props ---------------------------------------------------------------------------------


def test_a_prop_200_below_the_lowest_death_cube_is_unphysicalized_and_hidden():
    ctx = ballance_ctx(start=(0.0, 0.0, 0.0), level=False)
    ctx.create_group("DepthTestCubes", [ctx.create_entity("DB", position=(0.0, -30.0, 500.0),
                                                          scale=(10.0, 20.0, 10.0))])    # bottom at -40
    prop = ctx.create_entity("Prop", position=(0.0, -220.0, 0.0))
    blocks.physicalize(ctx, prop, ball_count=1, convex_count=0)
    ctx.create_group("P_Box", [prop])
    registry.create(ctx, "ballance.level", params=QUICK)
    ys = []
    for _ in range(300):
        ys.append(prop.get_position()[1])
        run(ctx)
        if not ctx.physics.is_physicalized(prop):
            break
    assert not ctx.physics.is_physicalized(prop) and not prop.is_visible()
    assert ys[-1] < -40.0 - 200.0 <= ys[-2]


# --- the level's end ------------------------------------------------------------------------------


def test_level_end_freezes_the_eye_and_counts_the_score_10_s_later():
    ctx, level = course()
    ctx.create_entity("PE_Levelende", position=(0.0, 0.0, 25.0))
    ctx.get("PR_Resetpoint_02").set_orientation((1.0, 0.0, 0.0))     # heading +Z again
    manager_of(ctx).stop(level)
    level = registry.create(ctx, "ballance.level", params={"level": 3, **QUICK})
    run_until(ctx, lambda: level.flow == "finished")
    run(ctx)
    eye = ctx.get("Cam_Pos").get_position()
    points, lives = level.points, level.lives
    run(ctx, 599)                                               # 9.98 s
    assert ctx.get("Cam_Pos").get_position() == eye             # the slot froze
    assert level.final is None and level.points == points
    run(ctx, 2)                                                 # 10.02 s
    assert level.final == 100 * 3 + points + 200 * lives
    assert hooks.hud_fields(ctx)["final"] == level.final


def test_score_loses_one_point_every_half_second():
    ctx, level = course()
    run(ctx, 1)                                                 # started at t0 = one frame
    run(ctx, 119)                                               # t = 2 s, 1.983 s after t0
    t = 120 * FRAME_MS - FRAME_MS
    assert level.points == 1000 - math.floor(t / 500.0)         # 3 points lost
    assert hooks.hud_fields(ctx)["score"] == level.points


def test_level_needs_a_reset_point_1():
    ctx = ballance_ctx(level=False)
    ctx.destroy_entity(ctx.get("PR_Resetpoint_01"))
    with pytest.raises(ValueError, match=r"here:1:1: .*no start: no reset point 'PR_Resetpoint_01'"):
        registry.create(ctx, "ballance.level", where="here:1:1")


def test_level_reset_restores_the_pickups():
    ctx, level = course()
    run_until(ctx, lambda: not ctx.get("EL1").is_visible())
    manager_of(ctx).reset()
    run(ctx)
    assert level.lives == 3 and ctx.get("EL1").is_visible()
    assert ball_body(ctx) is not None
