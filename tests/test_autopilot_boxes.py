"""A stack of boxes pushed off a floor's end (behaviors/ballance/autopilot_boxes.py;
docs/levels.md "Autopilot", "Boxes"): level 06's sector 4 corridor turns
north at its end, where four boxes fill it; a stone ball steered along the
corridor at PUSH_SPEED shoves them off the end.

The written level: floor A (5 wide, x -2.5..2.5) from the start at the
origin to z 40, floor B from its east side at z 32..37 on east to x 30,
the finish on floor B at (20, 0, 34.5); two P_Box (5 x 5 x 5) stand on A's
end at z 29.5 and 34.5, a third on the first: the way onto B is through
the second; a stone ball rests before them at z 24, a stone transformer
on floor C, west off A at z 5..10. The ball is born wood. The code before
the rule finishes this level too (its route pushes the boxes as
obstacles: 21.33 s, no rollback; the rule's play: 22.35 s, 1 rollback,
the ball off floor B's north side after the turn): the test holds the
plan, the push the rule makes, and that taking it the level is finished
with the box on the way onto B fallen."""

import pytest

import scenes
from behaviors.ballance.autopilot import RUN_UP, Pilot
from behaviors.ballance.autopilot_boxes import BOX_HALF
from behaviors.ballance.values import BALL_RADIUS
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, translation, wood_course


def box_level() -> LevelBuilder:
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-2.5, 0, -5), (2.5, 0, -5), (2.5, 0, 40), (-2.5, 0, 40)], mat),
              plate(b, "A01_Floor_02", [(2.5, 0, 32), (30, 0, 32), (30, 0, 37), (2.5, 0, 37)], mat),
              plate(b, "A01_Floor_03", [(-30, 0, 5), (-2.5, 0, 5), (-2.5, 0, 10), (-30, 0, 10)], mat)]
    b = wood_course(b, floors, stone, (20, 0, 34.5), (0, -40, 0))
    pad = b.entity("P_Trafo_Stone_01", None, translation(-25, 0, 7.5))
    b.group("P_Trafo_Stone", [pad])
    boxes = [b.entity(f"P_Box_0{i}", None, translation(0, y, z))
             for i, (y, z) in enumerate(((2.5, 29.5), (2.5, 34.5), (7.5, 29.5)), 1)]
    b.group("P_Box", boxes)
    ball = b.entity("P_Ball_Stone_01", None, translation(0, 2, 24))
    b.group("P_Ball_Stone", [ball])
    b.group("Sector_01", boxes + [pad, ball])
    return b


def test_the_stone_ball_pushes_the_box_stack_off_the_corridors_end_and_finishes(tmp_path):
    """The two standing boxes are one stack, a Blocker pushed along +z (the
    only side with a run-up on the map and no floor beyond) from RUN_UP and
    a ball's radius behind the hindmost box's face; the autopilot pushes it
    along floor A, the box on the way onto B falls off its end and the level is finished
    (before: no Blocker; the route pushed the boxes as obstacles)."""
    game_folder(tmp_path, box_level().data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    (stack,) = [b for b in pilot.blockers if "P_Box" in b.body]
    (start, u, _), = stack.pushes
    assert tuple(u) == pytest.approx((0.0, 0.0, 1.0), abs=0.01)              # the box as settled
    assert (start[0], start[2]) == pytest.approx((0.0, 29.5 - BOX_HALF - BALL_RADIUS - RUN_UP), abs=0.05)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert pilot.ctx.get("P_Box_02").get_position()[1] < 0.0        # the box on the way onto B: off the end
