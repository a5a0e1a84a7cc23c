"""The autopilot's climbs on momentum (issue 40 item 3; docs/levels.md
"Autopilot"): a face steeper than the stone ball's push holds it on (sin a
0.3036, 0.319 per unit) but no higher than MOMENTUM_RISE is in the map for
stone, and every steering rocks the ball up it from a valley (a face too
steep for its kind ahead; Steering.rock: anywhere the way ahead rises), as
level 02's wooden humps need.

The written level is a valley: its floor (z -6..6, top y 0) between two
faces rising 6 in four stretches of 1.5 (0.25, 0.5, 0.75 and 1.0 per
unit: its steep stretch, above the stone's 0.319, is 4.5 high) to floors 6
up, the finish on the far one; the ball is born on a stone transformer at
the valley's middle. The stone ball from rest there (0.92 per PSI of
1/66 s on 10 under 20, rolling: a = 60.7 / (10 x 7/5) = 4.3) meets the
face at about sqrt(2 x 4.3 x 6) = 7.2 units/s: kinetic energy for
7.2^2 x 7/5 / (2 x 20) = 1.8 of height, its push giving the rest on the
gentle stretches; on the steep ones it slows: it needs the swings."""

import math

import pytest

import scenes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.level import FINISHED
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, stone_course

RISE = 6.0
SLOPES = (0.25, 0.5, 0.75, 1.0)      # each face: four stretches of 1.5 up, steeper as they rise


def valley_level() -> LevelBuilder:
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)

    floors = [plate(b, "A01_Floor_02", [(-6, 0, -6), (6, 0, -6), (6, 0, 6), (-6, 0, 6)], floor_mat)]
    for side in (1, -1):                 # z grows away from the valley on both sides
        y, z = 0.0, 6.0
        for k, slope in enumerate(SLOPES):
            run = RISE / len(SLOPES) / slope
            corners = [(-6, y, side * z), (6, y, side * z), (6, y + run * slope, side * (z + run)),
                       (-6, y + run * slope, side * (z + run))]
            floors.append(plate(b, f"A01_Face_{side + 1}{k}", corners if side > 0 else corners[::-1], floor_mat))
            y, z = y + run * slope, z + run
        end = [(-6, RISE, side * z), (6, RISE, side * z), (6, RISE, side * (z + 30)), (-6, RISE, side * (z + 30))]
        floors.append(plate(b, f"A01_Floor_{side + 2}", end if side > 0 else end[::-1], floor_mat))
    return stone_course(b, floors, stone, (0, RISE, 35))


@pytest.fixture
def pilot(tmp_path):
    game_folder(tmp_path, valley_level().data(), {})
    return Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)


def test_the_face_is_a_way_up_for_stone_by_momentum(pilot):
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "stone")])
    face = [s for s in route.ahead(route.state((0.0, 2.0, 0.0), "stone"), 100.0)
            if 7.0 < route.point(s)[2] < 11.0]
    assert face and all(route.kind(s) == "stone" for s in face)


def test_every_steering_rocks_the_stone_ball_up_the_face_and_to_the_finish(pilot):
    assert not pilot.variant.rock        # the first steering: it rocks where the face is too steep for the kind
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
    assert pilot.level.flow == FINISHED
