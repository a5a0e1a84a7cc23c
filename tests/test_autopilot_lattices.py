"""The autopilot's lattices (issue 40 item 3; docs/levels.md "Autopilot",
"Lattices"; behaviors/ballance/autopilot_lattices.py): a rail pair that stops
at blocks in its way and goes on past them in line, lower (level 12's
``A04_Rail_02`` through ``A04_Floor_03``'s blocks, cubes stood on an edge).

The written level: floor A (x -6..6, z -5..10, top y 0) where the wood ball
starts; rail pair A along Z (x +-1.875, tops 0) from z 10 to 47; a cube of
side CUBE stood on an edge across the way (turned 45 degrees about X), its
top edge TIP above the rails' tops at z 50, its faces at 45 degrees; rail
pair B on the same line, FALL lower, from z 54 to 90; floor B level with
B's tops from z 90 to 110 with the finish at z 100; a death cube under all."""

import math

import numpy as np
import pytest

from bbglue import meshes
from behaviors.ballance.autopilot import FLOOR_GROUPS, _members
from behaviors.ballance.autopilot_lattices import LATTICE_IN, LATTICE_RUN, lattice_runs
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.floors import entity_triangles
from behaviors.ballance.values import KIND_NAMES
from virtools_levels import LevelBuilder, finished_cleanly, plate, translation, wood_course, written_pilot

RAIL_TOP = 0.35 * math.sin(3.0 * math.pi / 8.0)     # an octagonal rail's flat top above its axis
CUBE, TIP, FALL = 8.0, 3.3, 2.6                      # level 12's blocks: tips 4.3 over the rails, the rails 2.6 lower
A_END, B_START = 47.0, 54.0


def lattice_level() -> LevelBuilder:
    """The module docstring's level."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    c = math.cos(math.pi / 4.0)
    centre = TIP - CUBE * c                          # the cube's centre: its top edge TIP high
    cube = b.box("A01_Floor_03", (CUBE, CUBE, CUBE), None, mat,
                 matrix=(1.0, 0.0, 0.0, 0.0, c, -c, 0.0, c, c, 0.0, centre, 50.0))
    floors = [plate(b, "A01_Floor_01", [(-6, 0, -5), (6, 0, -5), (6, 0, 10), (-6, 0, 10)], mat),
              plate(b, "A01_Floor_02", [(-6, -FALL, 90), (6, -FALL, 90), (6, -FALL, 110), (-6, -FALL, 110)], mat),
              cube]
    a = b.mesh("A01_Rail_A", meshes.octagonal_rail(0.35, A_END - 10.0), rail_mat)
    bm = b.mesh("A01_Rail_B", meshes.octagonal_rail(0.35, 90.0 - B_START), rail_mat)
    rails = [b.entity(f"A01_Rail_0{i}", a, translation(x, -RAIL_TOP, (A_END + 10.0) / 2.0))
             for i, x in ((1, -1.875), (2, 1.875))]
    rails += [b.entity(f"A01_Rail_0{i}", bm, translation(x, -FALL - RAIL_TOP, (B_START + 90.0) / 2.0))
              for i, x in ((3, -1.875), (4, 1.875))]
    b.group("Phys_FloorRails", rails)
    return wood_course(b, floors, stone, (0, -FALL, 100), (0, -40, 50))


@pytest.fixture(scope="module")
def scene_pilot(tmp_path_factory):
    """The written level's scene and its Pilot (the map measured)."""
    return written_pilot(tmp_path_factory, "lattice", lattice_level())


def test_the_map_finds_the_blocked_gap(scene_pilot):
    """One lattice: the way +Z from pair A's last midpoint (z 46 to 47,
    midpoints 2 apart) to pair B's first (z 54 to 56), longer than a link,
    the cube's top edge above a ball's centre between the rails; its
    run-up's start on pair A, LATTICE_RUN (within a midpoint's spacing) back
    from A's end."""
    _, pilot = scene_pilot
    runs = lattice_runs(pilot.map)
    assert len(runs) == 1
    run, way, start = runs[0]
    p = pilot.map.points
    assert way == pytest.approx((0.0, 0.0, 1.0), abs=0.02)
    assert p[start, 1] == pytest.approx(-FALL, abs=0.1) and B_START <= p[start, 2] <= B_START + 2.0
    assert p[run, 1] == pytest.approx(0.0, abs=0.1)
    assert A_END - 2.0 - LATTICE_RUN - 2.0 <= p[run, 2] <= A_END - LATTICE_RUN


def test_the_wood_ball_pushed_over_the_cube_lands_on_pair_b_and_finishes(scene_pilot):
    """Without the lattice the map has no way from floor A (the cube's
    45-degree face rises above a ball's centre between the rails: no step
    onto it); measured, the wood ball pushed along pair A from rest at the
    run-up's start rolls over the cube and comes down between pair B's
    rails, LATTICE_IN or more past their start; the autopilot takes that
    link and finishes the level with no rollback."""
    scene, pilot = scene_pilot
    tris = entity_triangles(_members(scene.ctx, FLOOR_GROUPS))
    rails = np.zeros(len(tris), bool)
    rails[len(entity_triangles(_members(scene.ctx, FLOOR_GROUPS[:1]))):] = True
    still = WalkMap(tris, rails=rails).route_to((0.0, -FALL, 100.0), 3.0)
    assert still.cost[still.state((0.0, 2.0, 0.0), "wood")] == math.inf
    p, n = pilot.map.points, len(pilot.map.points)
    assert pilot.map.curls
    for s, land in pilot.map.curls:
        assert p[land, 1] == pytest.approx(-FALL, abs=0.3) and p[land, 2] >= B_START + LATTICE_IN - 1.0
        assert pilot.map.graph[KIND_NAMES.index("wood") * n + s, KIND_NAMES.index("wood") * n + land] > 0.0
    finished_cleanly(pilot)
