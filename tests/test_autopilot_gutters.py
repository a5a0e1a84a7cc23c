"""The autopilot in a V-shaped gutter (behaviors/ballance/autopilot_gutters.py):
a stone ball's push holds it on 0.32 per unit (F = 0.30 of its weight);
a written gutter's faces rise 0.375 per unit (0.25 along it, 0.28 across to
its middle), its middle line 0.25: the ball rests in it on both faces and
rolls up along that line. A plain face 0.4 steep is no way up for it: the
autopilot's stone ball, at 8 units/s at its foot, stopped 4.6 up it."""

import math

import pytest

import scenes
from behaviors.ballance.autopilot import Pilot
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, stone_course

HIGH = 8.0
FOOT = 12.0              # the way up starts this far along +Z from the start
ALONG = 0.25             # the gutter's middle line rises this per unit
ACROSS = 0.28            # its faces rise this per unit across, to 0.84 at its rims 3 out


def ramp_level(gutter: bool) -> LevelBuilder:
    """Born stone at the origin on a strip 6 wide (x -3..3) along +Z, from
    z FOOT a way up HIGH (a gutter rising ALONG, or a plain face rising
    0.4), a plate 30 long on top with the finish in its middle."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    rim = 3.0 * ACROSS
    top = FOOT + HIGH / (ALONG if gutter else 0.4)
    floors = [plate(b, "A01_Floor_01", [(-3, 0, -6), (3, 0, -6), (3, 0, FOOT), (-3, 0, FOOT)], floor_mat),
              plate(b, "A01_Floor_02", [(-3, HIGH, top), (3, HIGH, top), (3, HIGH, top + 30), (-3, HIGH, top + 30)],
                    floor_mat)]
    if gutter:
        floors += [plate(b, "A01_Gutter_01", [(-3, rim, FOOT), (0, 0, FOOT), (0, HIGH, top), (-3, HIGH + rim, top)],
                         floor_mat),
                   plate(b, "A01_Gutter_02", [(0, 0, FOOT), (3, rim, FOOT), (3, HIGH + rim, top), (0, HIGH, top)],
                         floor_mat)]
    else:
        floors.append(plate(b, "A01_Ramp", [(-3, 0, FOOT), (3, 0, FOOT), (3, HIGH, top), (-3, HIGH, top)], floor_mat))
    return stone_course(b, floors, stone, (0, HIGH, top + 15))


def _pilot(root, gutter: bool, seconds: float = 10.0) -> Pilot:
    game_folder(root, ramp_level(gutter).data(), {})
    return Pilot(played_at_once(scenes.load(game_level(str(root), 1))), seconds)


@pytest.mark.parametrize("gutter", [True, False])
def test_a_gutter_is_a_way_up_for_stone_a_plain_face_as_steep_is_not(tmp_path, gutter):
    """The gutter's faces are 0.375 steep, more than stone's 0.32, and its
    way up 8 high, more than the 5.3 its speed takes it up a face it does
    not hold on: no way up before the map knew gutters."""
    pilot = _pilot(tmp_path, gutter)
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "stone")]) == gutter


def test_the_stone_ball_rolls_up_the_gutter_and_finishes(tmp_path):
    outcome = _pilot(tmp_path, True, 60.0).run()
    assert outcome.finished, outcome.why
    assert outcome.rollbacks == 0
