"""A drawbridge's run-up over a falling stone dropped into the way
(docs/levels.md "Autopilot"; autopilot ``level_map``).

Level 05's drawbridge P_Modul_25_01 stands at the west end of its gap on
the high way (y -67.6); the run-up behind it crosses the pit where
P_Modul_34_02's stone drops (its top 0.7 under the way). The run-up's start
was put on the floor under that pit (y -72.9, the lower way), its ball
then cut the pit's walls, no run-up was clear and the board stood in the
map (sector 4 lost its route). The board's run-up now runs over the
stones as dropped.

The written level: the falling stone course (tests/virtools_levels.py:
path A to z 19.5, the stone's gap to z 25.5 over a basin 5 down, the stone
dropped level with the paths), path B only to z 28.75, then the drawbridge
of tests/test_autopilot_drawbridges.py on its hinge at z 29 over a gap to
a ledge and floor C (z 38.8 to 70, the finish at z 60)."""

import pytest

from behaviors.ballance.autopilot import level_map, probe
from behaviors.ballance.level import level_behavior
from ivp.snapshot import build, flatten
from test_autopilot_drawbridges import bridge_prefab
from virtools_levels import (LevelBuilder, course_groups, falling_stone_prefab, heading_z, plate, played_level,
                             translation)

BRIDGE = "P_Modul_25_01.P_Modul_25_Bridge"
HINGE = (0.0, -0.22, 29.0)


def stone_and_bridge_level() -> bytes:
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-20, 0, -5), (2.5, 0, -5), (2.5, 0, 5), (-20, 0, 5)], floor_mat),
              plate(b, "A01_Floor_02", [(-2.5, 0, 5), (2.5, 0, 5), (2.5, 0, 19.5), (-2.5, 0, 19.5)], floor_mat),
              plate(b, "A01_Floor_03", [(-2.5, 0, 25.5), (2.5, 0, 25.5), (2.5, 0, 28.75), (-2.5, 0, 28.75)],
                    floor_mat),
              plate(b, "A01_Floor_04", [(-20, -5, 5), (20, -5, 5), (20, -5, 40), (-20, -5, 40)], floor_mat),
              plate(b, "A01_Ramp", [(-20, -5, 25), (-12, -5, 25), (-12, 0, 5), (-20, 0, 5)], floor_mat),
              plate(b, "A01_Floor_05", [(-2.5, -0.5, 38), (2.5, -0.5, 38), (2.5, -0.5, 38.8), (-2.5, -0.5, 38.8)],
                    floor_mat),
              plate(b, "A01_Floor_06", [(-2.5, 0, 38.8), (2.5, 0, 38.8), (2.5, 0, 70), (-2.5, 0, 70)], floor_mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 20), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    crossing = b.entity("P_Modul_34_01", None, translation(0, 0, 22.5))
    bridge = b.entity("P_Modul_25_01", None, translation(*HINGE))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 60))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("P_Modul_34", [crossing])
    b.group("P_Modul_25", [bridge])
    b.group("Sector_01", [start, crossing, bridge])
    return b.data()


def test_a_drawbridge_s_run_up_runs_over_a_falling_stone_dropped_before_it(tmp_path):
    """The board stands at path B's end (its hinge at z 29): its run-up
    (6, from a ball's radius behind its foot) starts over the stone's gap,
    on the stone's top as dropped (the ball's centre 2 over the paths), not
    on the basin's floor 5 under them (before: at y -3)."""
    prefabs = {"P_Modul_34": falling_stone_prefab().data(compressed=True), "P_Modul_25": bridge_prefab()}
    ctx = played_level(tmp_path, stone_and_bridge_level(), prefabs).ctx
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    ctx = build(table)
    _, blockers = level_map(ctx, level_behavior(ctx), poses, gates)
    (board,) = [b for b in blockers if b.body == BRIDGE]
    assert board.pushes
    start, u, _ = board.pushes[0]
    assert u == pytest.approx((0.0, 0.0, 1.0), abs=1e-3)
    assert 19.5 <= start[2] <= 28.75 and start[1] == pytest.approx(2.0, abs=0.1)
