"""How steep a face a ball's push holds it on (behaviors/ballance/autopilot.py
``climb``; docs/levels.md "Autopilot", "Holds"): the navigation force is
horizontal (glue-and-content "Ball navigation": a key's direction in the
camera's orientation frame, at the ball's centre), so a ball pushed up a
face rising tan a per unit is held there while F cos a >= m g sin a, up to
tan a = F / (m g): wood 0.43 x 66 / (1.9 x 20) = 0.747, not the 1.126 a
push along the face would hold (F = m g sin a). Level 06's wave track
needs it: a wood ball born on P_Trafo_Wood_07's pad, on a rise 0.9 steep,
rolls back into the trough, so that pad is a trap for wood.

The written level: floor A (x -14..14, z -10..0) at y 0; from its edge two
ramps 20 long, x -14..-4 rising 0.6 per unit and x 4..14 rising 0.9, each
onto a top floor of its own (z 20..30)."""

import math

import numpy as np
import pytest

import scenes
from behaviors.ballance.autopilot import climb, level_map
from behaviors.ballance.autopilot_curls import held_push
from behaviors.ballance.balls import player_of
from behaviors.ballance.level import level_behavior
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, wood_course

GENTLE, STEEP = 0.6, 0.9
RAMPS = {GENTLE: (-14.0, -4.0), STEEP: (4.0, 14.0)}


def ramps_level() -> LevelBuilder:
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-14, 0, -10), (14, 0, -10), (14, 0, 0), (-14, 0, 0)], mat)]
    for i, (rise, (x0, x1)) in enumerate(RAMPS.items()):
        top = 20.0 * rise
        floors.append(plate(b, f"A01_Floor_1{i}", [(x0, 0, 0), (x1, 0, 0), (x1, top, 20), (x0, top, 20)], mat))
        floors.append(plate(b, f"A01_Floor_2{i}", [(x0, top, 20), (x1, top, 20), (x1, top, 30), (x0, top, 30)],
                            mat))
    return wood_course(b, floors, stone, (9, 2 + 20.0 * STEEP, 25), (0, -40, 0))


def loaded(tmp_path):
    game_folder(tmp_path, ramps_level().data(), {})
    ctx = played_at_once(scenes.load(game_level(str(tmp_path), 1))).ctx
    ctx.input_manager.set_keys(frozenset())
    ctx.process_frame(1000.0 / 60.0)
    return ctx


def test_the_wood_balls_push_holds_it_on_tan_a_up_to_its_share_of_its_weight():
    """climb: F / (m g), the tangent of the steepest face held (0.747 for
    wood, 0.3036 for stone, 1.07 for paper), between the two ramps' for wood."""
    from types import SimpleNamespace
    physics = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)
    assert climb("wood", physics) == pytest.approx(0.43 * 66.0 / (1.9 * 20.0))
    assert climb("paper", physics) == pytest.approx(0.065 * 66.0 / (0.2 * 20.0))
    assert GENTLE < climb("wood", physics) < STEEP


def test_a_wood_ball_pushed_up_a_face_0_9_steep_rolls_back_and_up_one_0_6_steep_climbs(tmp_path):
    """On the engine: a wood ball put at rest 5 up each ramp (its centre
    BALL_RADIUS off the face), its navigation force held up the ramp for
    3 s: up the 0.6 ramp it climbs on (more than 5 farther), on the 0.9
    ramp it rolls back down (F cos a < m g sin a there)."""
    ctx = loaded(tmp_path)
    player = player_of(ctx)
    gone = {}
    for rise, (x0, x1) in RAMPS.items():
        normal = np.array([0.0, 1.0, -rise]) / math.hypot(1.0, rise)
        at = np.array([(x0 + x1) / 2.0, 5.0 * rise, 5.0]) + 2.0 * normal
        force = held_push(ctx, player, "wood", at, (0.0, 0.0, 1.0))
        for _ in range(180):
            ctx.process_frame(1000.0 / 60.0)
        gone[rise] = player.ball.get_position()[2] - at[2]
        force.destroy_now(ctx)
        player.remove()
    assert gone[GENTLE] > 5.0
    assert gone[STEEP] < 0.0


def test_the_map_has_no_way_up_a_face_steeper_than_the_wood_ball_is_held_on(tmp_path):
    """The 0.9 ramp, 18 high (more than the 7.5 a ball's speed takes it up
    a face it is not held on), is a way up for paper (held up to 1.07), not
    for wood (before: held up to 1.126, a way); the 0.6 ramp is for both."""
    ctx = loaded(tmp_path)
    walk, _ = level_map(ctx, level_behavior(ctx))
    for rise, (x0, x1) in RAMPS.items():
        route = walk.route_to(((x0 + x1) / 2.0, 20.0 * rise + 2.0, 25.0), 3.0)
        start = {k: route.state((0.0, 2.0, -5.0), k) for k in ("paper", "wood")}
        assert math.isfinite(route.cost[start["paper"]])
        assert math.isfinite(route.cost[start["wood"]]) == (rise == GENTLE)
