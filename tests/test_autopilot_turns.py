"""The autopilot's braking before a turn (issue 40 item 3; docs/levels.md
"Autopilot"): a heavy ball coming in fast does not turn where the route
does, so the steering slows it to what its push brakes on the way there
(level 02's sector 4: the stone ball entering the valley between the
wooden humps rolled on into a dead-end rail pair).

The written level is an L of 6-wide strips: the stone ball is born on a
stone transformer at the foot of the first strip (z 0 to 44), which turns
a right angle into the second (x 0 to 50), the finish at its end. The
stone ball's push gives it a = 60.7 / (10 x 7/5) = 4.3 units/s^2 rolling
(0.92 per PSI of 1/66 s on 10): from the steering's 9 units/s it needs
9^2 / (2 x 4.3) = 9.4 to stop, from the fastest steering's 20 (slowed to
14 in its bends) 23, more than the 3 between the route's corner and the
edge beyond it (its centre over the edge falls; the void below is
death)."""

import pytest

import scenes
from behaviors.ballance.autopilot import VARIANTS, Pilot
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, stone_course

LONG = 44.0          # the first strip's length, along +z
WIDE = 6.0


def turn_level() -> LevelBuilder:
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)

    def strip(name, x0, x1, z0, z1):
        return plate(b, name, [(x0, 0, z0), (x1, 0, z0), (x1, 0, z1), (x0, 0, z1)], floor_mat)

    h = WIDE / 2
    floors = [strip("A01_Floor_01", -h, h, -h, LONG - WIDE - h),
              strip("A01_Floor_02", -h, 50.0, LONG - WIDE - h, LONG - h)]
    return stone_course(b, floors, stone, (45.0, 0, LONG - WIDE))


@pytest.fixture
def pilot(tmp_path):
    game_folder(tmp_path, turn_level().data(), {})
    return Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 40.0)


@pytest.mark.parametrize("steering", [VARIANTS[0], max(VARIANTS, key=lambda v: v.speed * (1.0 - v.bend))],
                         ids=["first", "fastest"])
def test_the_stone_ball_brakes_for_the_corner_and_finishes_without_a_fall(pilot, steering):
    pilot.variant = steering
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
    assert outcome.lives == 3
