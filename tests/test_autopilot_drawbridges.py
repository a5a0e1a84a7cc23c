"""The autopilot and a drawbridge (module 25, the spec's "push board": a
board on a hinge at its foot, its mass 2.5 up it and 0.2 to its back):
authored upright it leans back onto the floor a ball comes from and rests
there (level 12's three, level 04's one); the ball pushes it over, and it
lies across the gap beyond (docs/levels.md "Autopilot"). The probe pushes
each standing one over, the map has it down, and the autopilot pushes it
over from the floor behind it and rolls across it.

The written level: floor A (x -6..6, z -5..20.25, top y 0) where the wood
ball starts, a gap, a ledge 0.5 lower (z 29.5..30.3) and floor B (z
30.3..70, top y 0) with the finish at z 60. The board (9.5 long, 0.5
thick, 5 wide, its top face 0.22 from its hinge line) stands on its hinge
at (0, -0.22, 20.5); its back face, 0.03 past floor A's end, leans onto
that edge 7 degrees back. Turned over toward +Z it lies from z 20.5 to 30,
its top level with both floors, its end on the ledge."""

import math

import numpy as np
import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot, level_map, probe
from behaviors.ballance.level import FINISHED, level_behavior
from ivp.snapshot import build, flatten
from scenes.virtools import game_level, reader as r
from virtools_levels import (LevelBuilder, module_course, played_at_once, played_level, plate, the_one_push,
                             translation)

BRIDGE = "P_Modul_25_01.P_Modul_25_Bridge"
HINGE_Y, HINGE_Z = -0.22, 20.5
LENGTH = 9.5
# the board's frame: X down the board, Y its back (world -Z: its mass's side), Z = X x Y (the hinge's axis)
UPRIGHT = (0.0, -1.0, 0.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0)
MIDDLE = (-LENGTH / 2.0, -0.03, 0.0)     # the middle of its mesh box, in its frame


def bridge_prefab(lying: bool = False, frame=UPRIGHT) -> bytes:
    """P_Modul_25 with its hinge at the root: the board from the hinge up
    (or, ``lying``, toward +Z), the hinge frame's Z along world +X (or the
    board and its hinge frame at ``frame``)."""
    frame = (0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0) if lying else frame
    b = LevelBuilder()
    b.entity("P_Modul_25_MF", None, translation(0.0, 0.0, 0.0), class_id=r.CK_3DENTITY)
    mat = b.material("Wood", 0xFF996633)
    m = meshes.box(LENGTH, 0.5, 5.0)
    m.vertices = m.vertices + np.asarray(MIDDLE, np.float32)
    b.entity("P_Modul_25_Bridge", b.mesh("P_Modul_25_Bridge_Mesh", m, mat), frame + (0.0, 0.0, 0.0))
    b.entity("P_Modul_25_HingeFrame", None, frame + (0.0, 0.0, 0.0), class_id=r.CK_3DENTITY)
    return b.data(compressed=True)


def bridge_level(rise: float = 0.0) -> LevelBuilder:
    """The level of the module's docstring; with ``rise``, floor A is that
    much lower up to z 13 and rises on a ramp to z 14.6 (level 12's
    P_Modul_25_03: its run-up's floor rises 0.58 onto its hinge's plate)."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    low = [plate(b, "A01_Floor_04", [(-6, -rise, -5), (6, -rise, -5), (6, -rise, 13), (-6, -rise, 13)], floor_mat),
           plate(b, "A01_Floor_05", [(-6, -rise, 13), (6, -rise, 13), (6, 0, 14.6), (-6, 0, 14.6)], floor_mat)]
    floors = low if rise else []
    floors += [plate(b, "A01_Floor_01", [(-6, 0, 14.6 if rise else -5), (6, 0, 14.6 if rise else -5),
                                         (6, 0, 20.25), (-6, 0, 20.25)], floor_mat),
              plate(b, "A01_Floor_02", [(-6, -0.5, 29.5), (6, -0.5, 29.5), (6, -0.5, 30.3), (-6, -0.5, 30.3)],
                    floor_mat),
              plate(b, "A01_Floor_03", [(-6, 0, 30.3), (6, 0, 30.3), (6, 0, 70), (-6, 0, 70)], floor_mat)]
    return module_course(b, floors, "P_Modul_25", (0, HINGE_Y, HINGE_Z))


def loaded(tmp_path, lying: bool = False, rise: float = 0.0):
    return played_level(tmp_path, bridge_level(rise).data(), {"P_Modul_25": bridge_prefab(lying)})


def middle(m) -> np.ndarray:
    return np.asarray(MIDDLE) @ m[:3, :3] + m[3, :3]


def test_the_probe_pushes_the_standing_bridge_over_and_the_map_crosses_it(tmp_path):
    """Upright, the board's middle is 4.75 over its hinge; the probe's
    settle leaves it leaning back on floor A's edge (its top over floor
    A), the push lays it across the gap (its middle at z 25.25, its top
    level with the floors), and the map's route from the start to the
    finish crosses it, pushing it first from floor A."""
    ctx = loaded(tmp_path).ctx
    level = level_behavior(ctx)
    standing = middle(np.asarray(ctx.get(BRIDGE).get_world_matrix().as_array(), float))
    assert standing == pytest.approx((0.0, HINGE_Y + LENGTH / 2.0, HINGE_Z + 0.03), abs=1e-3)
    table = flatten(ctx)
    poses, gates = probe(ctx, level)
    down = middle(poses[BRIDGE])
    assert down == pytest.approx((0.0, HINGE_Y - 0.03, HINGE_Z + LENGTH / 2.0), abs=0.3)   # across the gap
    start, u, _ = the_one_push(table, poses, gates, BRIDGE)
    assert u == pytest.approx((0.0, 0.0, 1.0), abs=1e-3)            # toward the gap ...
    assert start[2] < HINGE_Z - 2.0 and start[1] == pytest.approx(2.0, abs=0.1)   # ... from floor A


def test_without_the_bridge_down_there_is_no_way(tmp_path):
    ctx = loaded(tmp_path).ctx
    walk, blockers = level_map(ctx, level_behavior(ctx))
    route = walk.route_to((0.0, 2.0, 60.0), 3.0)
    assert route.cost[route.state((0.0, 2.0, 0.0), "wood")] == math.inf and blockers == []


def test_a_lying_bridge_is_not_pushed(tmp_path):
    """Authored lying across the gap (level 02's): the probe leaves it
    where it rests, the map crosses it, and there is nothing to push."""
    ctx = loaded(tmp_path, lying=True).ctx
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    assert middle(poses[BRIDGE]) == pytest.approx((0.0, HINGE_Y - 0.03, HINGE_Z + LENGTH / 2.0), abs=0.3)
    ctx = build(table)
    walk, blockers = level_map(ctx, level_behavior(ctx), poses, gates)
    route = walk.route_to((0.0, 2.0, 60.0), 3.0)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "wood")]) and blockers == []


def test_the_autopilot_pushes_the_bridge_over_and_rolls_across(tmp_path):
    pilot = Pilot(loaded(tmp_path), 60.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
    down = middle(np.asarray(pilot.ctx.get(BRIDGE).get_world_matrix().as_array(), float))
    assert down == pytest.approx((0.0, HINGE_Y - 0.03, HINGE_Z + LENGTH / 2.0), abs=0.3)


def test_a_run_up_rising_onto_the_bridge_s_floor_is_clear(tmp_path):
    """Floor A 0.4 lower behind a ramp (14 degrees): the run-up starts on
    the low part and rolls up the ramp into the board. Its ball follows the
    floor (held level, its centre 1.6 over the upper floor's face: no push
    planned), and the autopilot pushes the board over from there and rolls
    across."""
    ctx = loaded(tmp_path, rise=0.4).ctx
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    start, u, run = the_one_push(table, poses, gates, BRIDGE)
    assert u == pytest.approx((0.0, 0.0, 1.0), abs=1e-3)
    assert start[2] < 13.0 and start[1] == pytest.approx(1.6, abs=0.1)   # on the low floor, the whole run-up
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    down = middle(np.asarray(pilot.ctx.get(BRIDGE).get_world_matrix().as_array(), float))
    assert down == pytest.approx((0.0, HINGE_Y - 0.03, HINGE_Z + LENGTH / 2.0), abs=0.3)
