"""The autopilot and a rotating arm (module 17) that knocks a drawbridge
(module 25) down (docs/levels.md "Autopilot"; level 03's sector 4): the
board leans back over the floor beyond its gap, away from the ball, and no
run-up of the ball reaches it; the ball pushes one half of the arm round
its hinge, and the other half's end lays the board across the gap.

The written level, along +Z: floor A (x -6..6, z -5..20.2, top y 0) where
the wood ball starts, a ledge 0.5 lower (z 20.2..21), the gap, floor B
(x -12..6, z 30.25..70) with the finish at z 60. The board (9.5 long, 0.5
thick, 5 wide) stands on its hinge at (0, -0.22, 30), leaning onto B's
edge (its mass's side), and falls across the gap onto the ledge. The arm
(a beam 23.3 long, 1.46 wide, 3.3 tall, its bottom 0.8 over the floors)
lies along X over its hinge at (12.13, 2.45, 32): its west end (x 0.5)
stands by the board on B, its east half over floor C (x 14..26, z -5..45),
which floor D (x 6..14, z -5..5) joins to A. C and B are 8 apart: the
ball reaches B only over the board. A stone pad at (0, 0, 10): a run-up's
route arrives as stone, the strongest push."""

import math

import numpy as np
import pytest

from bbglue import meshes
from behaviors.ballance.autopilot import Pilot, level_map, probe
from behaviors.ballance.autopilot_arms import stand_unpushed
from behaviors.ballance.level import FINISHED, level_behavior
from ivp.snapshot import build, flatten
from scenes.virtools import reader as r
from test_autopilot_drawbridges import BRIDGE, LENGTH, bridge_prefab, middle
from virtools_levels import LevelBuilder, course_groups, heading_z, plate, played_level, translation

HINGE = (0.0, -0.22, 30.0)
# the board's frame upright: X down the board, Y its back (world +Z: its mass's side, B's), Z = X x Y
FACING_AWAY = (0.0, -1.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0)
ARM_HINGE = (12.13, 2.45, 32.0)


def arm_prefab() -> bytes:
    """P_Modul_17 as the game's prefab has it: the beam (its mesh 1.46 x 3.3
    x 23.26 along its frame's Z, the frame's X world -Z, Y up) at the root,
    its hinge frame (X world -Z, Y world -X, Z up) 0.75 under it."""
    b = LevelBuilder()
    b.entity("P_Modul_17_MF", None, translation(0.0, 0.0, 0.0), class_id=r.CK_3DENTITY)
    mat = b.material("Wood", 0xFF996633)
    m = meshes.box(1.46, 3.3, 23.26)
    b.entity("P_Modul_17_Dreharme", b.mesh("P_Modul_17_Dreharme_Mesh", m, mat),
             (0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    b.entity("P_Modul_17_HingeFrame", None, (0.0, 0.0, -1.0, -1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -0.75, 0.0),
             class_id=r.CK_3DENTITY)
    return b.data(compressed=True)


def arm_level() -> bytes:
    """The level of the module's docstring."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    floors = [plate(b, "A01_Floor_01", [(-6, 0, -5), (6, 0, -5), (6, 0, 20.2), (-6, 0, 20.2)], mat),
              plate(b, "A01_Floor_02", [(-6, -0.5, 20.2), (6, -0.5, 20.2), (6, -0.5, 21), (-6, -0.5, 21)], mat),
              plate(b, "A01_Floor_03", [(-12, 0, 30.25), (6, 0, 30.25), (6, 0, 70), (-12, 0, 70)], mat),
              plate(b, "A01_Floor_04", [(14, 0, -5), (26, 0, -5), (26, 0, 45), (14, 0, 45)], mat),
              plate(b, "A01_Floor_05", [(6, 0, -5), (14, 0, -5), (14, 0, 5), (6, 0, 5)], mat)]
    stone = b.material("Stone", 0xFF808080)
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 30), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 60))
    bridge = b.entity("P_Modul_25_01", None, translation(*HINGE))
    arm = b.entity("P_Modul_17_01", None, translation(*ARM_HINGE))
    pad = b.entity("P_Trafo_Stone_01", None, translation(0, 0, 10))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("P_Trafo_Stone", [pad])
    b.group("P_Modul_25", [bridge])
    b.group("P_Modul_17", [arm])
    b.group("Sector_01", [start, bridge, arm])
    return b.data()


def loaded(tmp_path):
    return played_level(tmp_path, arm_level(), {"P_Modul_25": bridge_prefab(frame=FACING_AWAY),
                                                 "P_Modul_17": arm_prefab()})


def test_the_bridge_stands_against_the_ball_and_the_probe_lays_it_across(tmp_path):
    """The settle leaves the board leaning onto B (its middle past its
    hinge toward B); pushed from B it falls across the gap onto the ledge."""
    ctx = loaded(tmp_path).ctx
    poses, _ = probe(ctx, level_behavior(ctx))
    assert middle(poses[BRIDGE]) == pytest.approx((0.0, HINGE[1] - 0.03, HINGE[2] - LENGTH / 2.0), abs=0.3)


def test_the_autopilot_knocks_the_bridge_down_with_the_arm_and_crosses(tmp_path):
    """The map's way to B is over the board; the push reaching it is the
    arm's east half pushed +Z from C (the west half pushed -Z from B knocks
    it down too, out of reach): the board is a Blocker with a push from C,
    and the autopilot finishes with no rollback, the board lying across the
    gap (before: the map had the board down as the probe left it, no
    Blocker, and the ball rolled into the gap)."""
    pilot = Pilot(loaded(tmp_path), 60.0)
    (board,) = pilot.blockers
    assert board.body == BRIDGE
    assert (True, 1.0) in [(bool(s[0] > 14.0), float(u[2])) for s, u, _ in board.pushes]
    outcome = pilot.run()
    assert outcome.finished and outcome.rollbacks == 0, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
    down = middle(np.asarray(pilot.ctx.get(BRIDGE).get_world_matrix().as_array(), float))
    assert down == pytest.approx((0.0, HINGE[1] - 0.03, HINGE[2] - LENGTH / 2.0), abs=0.3)


def test_a_board_no_push_reaches_stands_in_the_map(tmp_path):
    """Without the arm's pushes the board stays standing in the map: no way
    from A to the finish (before: the map crossed it as the probe left it)."""
    ctx = loaded(tmp_path).ctx
    level = level_behavior(ctx)
    table = flatten(ctx)
    poses, gates = probe(ctx, level)
    ctx = build(table)
    walk, blockers = level_map(ctx, level_behavior(ctx), poses, gates)
    assert [b.pushes for b in blockers] == [()]
    assert stand_unpushed(walk, blockers) == []
    route = walk.route_to((0.0, 2.0, 60.0), 3.0)
    assert route.cost[route.state((0.0, 2.0, 0.0), "wood")] == math.inf
