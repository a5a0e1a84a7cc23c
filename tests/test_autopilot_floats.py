"""Float boards in the autopilot's map (behaviors/ballance/autopilot_floats.py;
docs/levels.md "Autopilot", "Float boards"): a float board rights itself
against a ball no heavier at its end than its keel (board mass 1 x keel
0.593 under the hinge, against ball mass x 2.5, the end's reach): paper
(0.2) holds it level, wood (1.9) and stone (10) tip it over (level 07:
paper crosses its six boards, wood falls at the fourth, stone at the
first).

The written level: floor A (x -5..20.5, z -5..5) with the start at the
origin, one float board with the original prefab's layout, its hinge along
Z at x 23.5 (the board x 21..26, its top at floor height), floor B
(x 26.5..50) beyond it, the finish on B at (45, 0, 0)."""

import pytest

import scenes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.autopilot_floats import tipping_kinds
from behaviors.ballance.values import BALL_RADIUS
from scenes.virtools import game_level, reader as r
from test_float_boards import float_board_prefab
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, translation, wood_course

FINISH = (45.0, 0.0, 0.0)


def float_level() -> LevelBuilder:
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-5, 0, -5), (-5, 0, 5), (20.5, 0, 5), (20.5, 0, -5)], mat),
              plate(b, "A01_Floor_02", [(26.5, 0, -5), (26.5, 0, 5), (50, 0, 5), (50, 0, -5)], mat)]
    b = wood_course(b, floors, stone, FINISH, (0, -40, 0))
    board = b.entity("P_Modul_41_01", None, translation(23.5, 0, 0))
    b.group("P_Modul_41", [board])
    next(o for o in b.objects if isinstance(o, r.Group) and o.name == "Sector_01").members.append(board)
    return b


@pytest.fixture
def pilot(tmp_path):
    game_folder(tmp_path, float_level().data(), {"P_Modul_41": float_board_prefab()})
    return Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)


def test_wood_and_stone_tip_the_float_board_paper_does_not(pilot):
    """The board's keel (1 x 0.593) against each kind's weight at its end,
    2.5 from the hinge: only paper's (0.2 x 2.5 = 0.5) is lighter."""
    ctx = pilot.ctx
    board, hinge = ctx.get("P_Modul_41_01.P_Modul_41"), ctx.get("P_Modul_41_01.P_Modul_41_HingeFrame")
    core = ctx.physics.body_of(board).core
    assert tipping_kinds(board, core.mass, core.m_world_f_core_last_psi[1], hinge) == ("wood", "stone")


def test_the_map_crosses_the_float_board_as_paper_only(pilot):
    """From the start, the finish beyond the board has a route as paper and
    none as wood or stone (before: a way over the board for every kind)."""
    route = pilot.map.route_to(FINISH, 3.0)
    start = (0.0, BALL_RADIUS, 0.0)
    assert route.cost[route.state(start, "paper")] < 60.0
    for kind in ("wood", "stone"):
        assert route.cost[route.state(start, kind)] == float("inf")
