"""The autopilot and a T-board (module 37: a board on a hinge at its foot,
its mass 7.5 up it; level 12's stands at a platform's end and, pushed
over, lies across the gap of the rail pair beyond): the probe pushes it
over, the map has it down, and the autopilot pushes it over from the floor
behind it and rolls across it (docs/levels.md "Autopilot").

The written level: floor A (x -6..6, z -5..20, top y 0) where the wood ball
starts, a gap of 14, floor B (z 34..70, top y 0) with the finish at z 60,
its edge a ledge 1 lower (z 34..34.8). The board (14 long, 1 thick, 8
wide) stands upright on its hinge at (0, -0.5, 20.5), the end of floor A:
turned 90 degrees about the hinge toward +Z it lies from z 20.5 to 34.5,
its middle at (0, -0.5, 27.5), its end on the ledge, its top level with
both floors (the map links no step of 0.5 up or 1 down)."""

import math

import numpy as np
import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot, level_map, probe
from behaviors.ballance.level import FINISHED, level_behavior
from ivp.snapshot import build, flatten
from scenes.virtools import game_level, reader as r
from virtools_levels import (LevelBuilder, game_folder, module_course, played_at_once, plate, the_one_push,
                             translation)

BOARD = "P_Modul_37_01.P_Modul_37_Bridge"
HINGE_Y, HINGE_Z = -0.5, 20.5
LENGTH = 14.0
# the board's frame: X down the board (its mass 7.5 along -X is up it), Y its push way (world +Z), Z = X x Y
UPRIGHT = (0.0, -1.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0)


def board_prefab(lean: float = 0.0) -> bytes:
    """P_Modul_37 with its hinge at the root: the board from the hinge up
    (``lean`` radians back, toward -Z), the hinge frame's Z (the hinge's
    axis, spec 12.4) along world -X."""
    c, s = math.cos(lean), math.sin(lean)
    frame = (0.0, -c, s, 0.0, s, c) + UPRIGHT[6:]
    b = LevelBuilder()
    b.entity("P_Modul_37_MF", None, translation(0.0, 0.0, 0.0), class_id=r.CK_3DENTITY)
    mat = b.material("Wood", 0xFF996633)
    m = meshes.box(LENGTH, 1.0, 8.0)
    m.vertices = m.vertices - np.asarray((LENGTH / 2.0, 0.0, 0.0), np.float32)
    b.entity("P_Modul_37_Bridge", b.mesh("P_Modul_37_Bridge_Mesh", m, mat), frame + (0.0, 0.0, 0.0))
    b.entity("P_Modul_37_HingeFrame", None, frame + (0.0, 0.0, 0.0), class_id=r.CK_3DENTITY)
    return b.data(compressed=True)


def board_level(a_from: float = -5.0, bar: bool = False) -> LevelBuilder:
    """The level of the module's docstring, floor A from z ``a_from`` (and a
    start plate z -5..5 where that is beyond it); ``bar``: a bar 3 wide, 3
    high and 0.7 deep on floor A across the board's middle line, 5 before
    its foot (level 12's before P_Modul_37_01)."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    floors = [plate(b, "A01_Floor_01", [(-6, 0, a_from), (6, 0, a_from), (6, 0, 20), (-6, 0, 20)], floor_mat),
              plate(b, "A01_Floor_02", [(-6, -1, 34), (6, -1, 34), (6, -1, 34.8), (-6, -1, 34.8)], floor_mat),
              plate(b, "A01_Floor_03", [(-6, 0, 34.8), (6, 0, 34.8), (6, 0, 70), (-6, 0, 70)], floor_mat)]
    if bar:
        floors.append(b.box("A01_Floor_05", (3, 3, 0.7), (0, 1.5, HINGE_Z - 5.0), floor_mat))
    if a_from > 5.0:
        floors.append(plate(b, "A01_Floor_04", [(-6, 0, -5), (6, 0, -5), (6, 0, 5), (-6, 0, 5)], floor_mat))
    return module_course(b, floors, "P_Modul_37", (0, HINGE_Y, HINGE_Z))


@pytest.fixture
def scene(tmp_path):
    game_folder(tmp_path, board_level().data(), {"P_Modul_37": board_prefab()})
    scene = played_at_once(scenes.load(game_level(str(tmp_path), 1)))
    scene.ctx.input_manager.set_keys(frozenset())
    scene.ctx.process_frame(1000.0 / 60.0)
    return scene


def test_the_probe_pushes_the_board_over_across_the_gap_and_the_map_crosses_it(scene):
    ctx = scene.ctx
    level = level_behavior(ctx)
    standing = np.asarray(ctx.get(BOARD).transform((-LENGTH / 2.0, 0.0, 0.0)), float)
    assert standing == pytest.approx((0.0, HINGE_Y + LENGTH / 2.0, HINGE_Z), abs=1e-4)
    table = flatten(ctx)
    poses, gates = probe(ctx, level)
    down = poses[BOARD]
    middle = np.asarray((-LENGTH / 2.0, 0.0, 0.0)) @ down[:3, :3] + down[3, :3]
    assert middle == pytest.approx((0.0, HINGE_Y, HINGE_Z + LENGTH / 2.0), abs=0.5)    # lying across the gap
    start, u, _ = the_one_push(table, poses, gates, BOARD)
    assert u == pytest.approx((0.0, 0.0, 1.0), abs=1e-6)            # toward the gap ...
    assert start[2] < HINGE_Z - 2.0 and start[1] == pytest.approx(2.0, abs=0.1)   # ... from floor A


def test_a_bar_on_the_boards_line_moves_the_run_up_past_it(tmp_path):
    """The run-up along the board's middle line (x 0, 6 long, ending with
    the ball against the board's foot at z 20 to 21) runs into the bar (z
    15.15 to 15.85): its start moves on past it to where the ball's centre
    is clear of it by its radius less 0.1 (z 17.75, within one 0.5 step),
    leaving a run-up under 1; from there the autopilot pushes the board
    over and finishes."""
    game_folder(tmp_path, board_level(bar=True).data(), {"P_Modul_37": board_prefab()})
    scene = played_at_once(scenes.load(game_level(str(tmp_path), 1)))
    ctx = scene.ctx
    ctx.input_manager.set_keys(frozenset())
    ctx.process_frame(1000.0 / 60.0)
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    ctx = build(table)
    _, (board,) = level_map(ctx, level_behavior(ctx), poses, gates)
    start, _, length = board.pushes[0]
    assert start[0] == pytest.approx(0.0, abs=0.1)
    assert HINGE_Z - 5.0 + 0.35 + 1.9 <= start[2] <= HINGE_Z - 5.0 + 0.35 + 1.9 + 0.5
    assert 2.0 <= length < 2.0 + 1.0                # the run-up left, and a radius on
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    middle = pilot.ctx.get(BOARD).transform((-LENGTH / 2.0, 0.0, 0.0))
    assert middle == pytest.approx((0.0, HINGE_Y, HINGE_Z + LENGTH / 2.0), abs=0.5)    # it went over the board


def test_without_the_board_down_there_is_no_way(scene):
    ctx = scene.ctx
    walk, blockers = level_map(ctx, level_behavior(ctx))
    route = walk.route_to((0.0, 2.0, 60.0), 3.0)
    assert route.cost[route.state((0.0, 2.0, 0.0), "wood")] == math.inf and blockers == []


def test_the_autopilot_pushes_the_board_over_and_rolls_across(scene):
    """Played: 15.2 s of play, no rollback (load about 7 on 2 cores, 1.3 s wall)."""
    pilot = Pilot(scene, 60.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
    middle = pilot.ctx.get(BOARD).transform((-LENGTH / 2.0, 0.0, 0.0))
    assert middle == pytest.approx((0.0, HINGE_Y, HINGE_Z + LENGTH / 2.0), abs=0.5)    # it went over the board


def test_a_board_with_no_floor_for_a_run_up_behind_it_stays_standing_in_the_map(tmp_path):
    """Floor A only 3 long (z 17..20, the start on a plate z -5..5): the
    run-up's start, 6 + 2 behind the board's foot (z 20), is over the void;
    the probe pushes the board over, but the map keeps it standing (no node
    on it lying) and pushes nothing."""
    game_folder(tmp_path, board_level(17.0).data(), {"P_Modul_37": board_prefab()})
    ctx = played_at_once(scenes.load(game_level(str(tmp_path), 1))).ctx
    ctx.input_manager.set_keys(frozenset())
    ctx.process_frame(1000.0 / 60.0)
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    down = poses[BOARD]
    assert np.asarray((-LENGTH / 2.0, 0.0, 0.0)) @ down[:3, :3] + down[3, :3] == pytest.approx(
        (0.0, HINGE_Y, HINGE_Z + LENGTH / 2.0), abs=0.5)
    ctx = build(table)
    walk, blockers = level_map(ctx, level_behavior(ctx), poses, gates)
    assert blockers == []
    d, _ = walk.tree.query((0.0, 0.0, HINGE_Z + LENGTH / 2.0))
    assert d > 1.0


def test_the_nodes_on_the_board_down_are_its_way(scene):
    """The Blocker's nodes include those where a ball rests on the board
    down (its centre BALL_RADIUS over the board's top), not only those
    whose ball overlaps it: level 03's board lies flat in a trench across
    a corridor, its top level with the floor, and the route over it
    touched none of its nodes, so the ball was never sent to push it and
    fell into the trench 60 times (level 12's sector 3 the same: its route
    over the board's crossbar across a rail pair's gap). Here: the route's nodes over the gap's
    middle (z 23..32, on the board's top, y 0) are all the Blocker's."""
    ctx = scene.ctx
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    ctx = build(table)
    walk, (board,) = level_map(ctx, level_behavior(ctx), poses, gates)
    route = walk.route_to((0.0, 2.0, 60.0), 3.0)
    n = len(walk.points)
    way = [s % n for s in route.ahead(route.state((0.0, 2.0, 0.0), "wood"), math.inf)]
    over = [i for i in way if 23.0 < walk.points[i, 2] < 32.0]
    assert over and np.allclose(walk.points[over, 1], 0.0, atol=0.1)
    assert set(over) <= board.nodes
