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
from bbglue import meshes
from behaviors.ballance.autopilot import VARIANTS, Pilot
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, heading_z, played_at_once, translation

LONG = 44.0          # the first strip's length, along +z
WIDE = 6.0


def turn_level() -> LevelBuilder:
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)

    def plate(name, x0, x1, z0, z1):
        corners = [(x0, 0, z0), (x1, 0, z0), (x1, 0, z1), (x0, 0, z1)]
        m = b.mesh(name + "_Mesh", meshes.Mesh(name, corners, [(0, 2, 1), (0, 3, 2)]), floor_mat)
        return b.entity(name, m, translation(0, 0, 0))

    h = WIDE / 2
    floors = [plate("A01_Floor_01", -h, h, -h, LONG - WIDE - h), plate("A01_Floor_02", -h, 50.0, LONG - WIDE - h,
                                                                       LONG - h)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 0), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    pad = b.entity("P_Trafo_Stone_01", None, translation(0, 0, 0))
    finish = b.entity("PE_Balloon_01", None, translation(45.0, 0, LONG - WIDE))
    b.group("Phys_Floors", floors)
    b.group("DepthTestCubes", [death])
    b.group("PS_Levelstart", [start])
    b.group("PR_Resetpoints", [reset])
    b.group("PE_Levelende", [finish])
    b.group("P_Trafo_Stone", [pad])
    b.group("Sector_01", [start, pad])
    return b


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
