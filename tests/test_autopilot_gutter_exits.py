"""Leaving a gutter the kind climbs only along its line
(behaviors/ballance/autopilot_gutters.py, ``gutter_climb``): a written
gutter as tests/test_autopilot_gutters.py's (faces 0.375 steep, more than
the 0.32 a stone ball's push holds it on; its line 0.25), with a strip
beside it level with its top, the finish back on that strip. The map's
route leaves the gutter sideways, over its east face, 4 before its top;
the stone ball steered along the route stuck against that face 3 times
(at z 39.6 to 41.1) before it finished (level 05's west gutter: 24 tries,
gave up). Pushed along the line to the top plate, it turns onto the strip
there and finishes at its first try."""

import scenes
from behaviors.ballance.autopilot import Pilot
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, stone_course

HIGH = 8.0
FOOT = 12.0              # the gutter starts this far along +Z from the start
ALONG = 0.25             # its middle line rises this per unit
ACROSS = 0.28            # its faces rise this per unit across, to 0.84 at its rims 3 out
TOP = FOOT + HIGH / ALONG


def exit_level() -> LevelBuilder:
    """Born stone at the origin on a strip 6 wide (x -3..3) along +Z; from
    z FOOT the gutter up to HIGH at z TOP; a plate 10 long on top from x -3
    to 9; the strip x 3..9 at HIGH beside the gutter from z FOOT + 4 to
    the plate, the finish on it 20 back from the top."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    rim = 3.0 * ACROSS
    floors = [plate(b, "A01_Floor_01", [(-3, 0, -6), (3, 0, -6), (3, 0, FOOT), (-3, 0, FOOT)], floor_mat),
              plate(b, "A01_Floor_02", [(-3, HIGH, TOP), (9, HIGH, TOP), (9, HIGH, TOP + 10), (-3, HIGH, TOP + 10)],
                    floor_mat),
              plate(b, "A01_Floor_03", [(3, HIGH, FOOT + 4), (9, HIGH, FOOT + 4), (9, HIGH, TOP), (3, HIGH, TOP)],
                    floor_mat),
              plate(b, "A01_Gutter_01", [(-3, rim, FOOT), (0, 0, FOOT), (0, HIGH, TOP), (-3, HIGH + rim, TOP)],
                    floor_mat),
              plate(b, "A01_Gutter_02", [(0, 0, FOOT), (3, rim, FOOT), (3, HIGH + rim, TOP), (0, HIGH, TOP)],
                    floor_mat)]
    return stone_course(b, floors, stone, (6, HIGH, TOP - 20))


def test_the_stone_ball_climbs_the_gutter_to_its_top_and_finishes_beside_it(tmp_path):
    game_folder(tmp_path, exit_level().data(), {})
    outcome = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 40.0).run()
    assert outcome.finished, outcome.why
    assert outcome.rollbacks == 0
