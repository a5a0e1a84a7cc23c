"""A board knocked over on a run-up's speed (behaviors/ballance/autopilot_knocks.py;
docs/levels.md "Autopilot", "Knocks"): level 05's T-board P_Modul_37_01
stands leaning back, no stone ball reaches it, and a wood ball knocks it
over from 28 before it (12.3 units/s), not from 5 (6.7 units/s).

The written level: test_autopilot_boards' course moved back so the board's
hinge is at z AT, 8 before the wood ball's start (floor A from z -35 to
AT - 0.5, a gap of 14, floor B on to z 70, the finish at z 60), its board
leaning LEAN back onto a stopper behind its top (Phys_FloorStopper: the
ball passes through it, bodies rest on it). Measured on the engine (the
hinge at z 20.5): a wood ball pushed from rest 8.5 before the hinge (the
board's run-up: 6, and its radius, before its foot) does not knock it
over; from 35.5 before it does; stone does from both. The level has no
stone transformer: only the long run-up's wood gets across."""

import math

import pytest

import scenes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.autopilot_knocks import KNOCK_RUN
from scenes.virtools import game_level
from test_autopilot_boards import BOARD, HINGE_Y, LENGTH, board_prefab
from virtools_levels import LevelBuilder, game_folder, module_course, played_at_once, plate

LEAN = math.radians(20.0)
AT = 8.0


def knock_level() -> LevelBuilder:
    """The module's level: floor A z -35..AT - 0.5, the ledge and floor B,
    the stopper (8 wide, 2.5 high, 0.7 deep) behind the leaning board's top."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    stop = b.box("A01_Stopper_01", (8, 2.5, 0.7), (0, 12.5, AT - LENGTH * math.sin(LEAN) - 0.85), mat)
    b.group("Phys_FloorStopper", [stop])
    a, ledge = AT - 0.5, AT + 13.5
    floors = [plate(b, "A01_Floor_01", [(-6, 0, -35), (6, 0, -35), (6, 0, a), (-6, 0, a)], mat),
              plate(b, "A01_Floor_02", [(-6, -1, ledge), (6, -1, ledge), (6, -1, ledge + 0.8), (-6, -1, ledge + 0.8)],
                    mat),
              plate(b, "A01_Floor_03", [(-6, 0, ledge + 0.8), (6, 0, ledge + 0.8), (6, 0, 70), (-6, 0, 70)], mat)]
    return module_course(b, floors, "P_Modul_37", (0, HINGE_Y, AT))


def test_wood_knocks_the_leaning_board_over_from_the_long_run_up_and_finishes(tmp_path):
    """The board's Blocker has a second push from a run-up KNOCK_RUN behind
    the first (floor A runs on), measured for wood (not paper); the
    autopilot takes it as wood, the board lies across the gap and the level
    is finished (before: given up, the ball stuck against the board)."""
    game_folder(tmp_path, knock_level().data(), {"P_Modul_37": board_prefab(LEAN)})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    (board,) = pilot.blockers
    assert len(board.pushes) == 2 and board.kinds[1] == ("wood", "stone")
    (first, u, _), (start, way, _) = board.pushes
    assert tuple(way) == tuple(u) and first[2] - start[2] == pytest.approx(KNOCK_RUN, abs=0.5)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    middle = pilot.ctx.get(BOARD).transform((-LENGTH / 2.0, 0.0, 0.0))
    assert middle == pytest.approx((0.0, HINGE_Y, AT + LENGTH / 2.0), abs=0.5)    # it went over the board
