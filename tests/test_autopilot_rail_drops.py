"""The autopilot's rail drops (issue 40 item 3; docs/levels.md "Autopilot",
"Rail drops"; behaviors/ballance/autopilot_rail_drops.py): a single rail
that ends over another single rail in line far below (level 12's
``A05_Rail_02`` over ``A05_Rail_03``, 283 lower).

The written level: floor A (x -6..6, z -25..0, top y 0) where the stone
ball starts at z -20; a single rail (``octagonal_rail``, radius 0.35, its
top level with floor A) from z 0 to UPPER_END; FALL lower (more than the
map's MAX_DROP) a single rail in the same line from LOWER_START to
LOWER_END; floor B level with its top beyond, the finish 15 into it; a
death cube under all."""

import math

import numpy as np
import pytest

import scenes
from behaviors.ballance.autopilot import FLOOR_GROUPS, Pilot, _members
from behaviors.ballance.autopilot_map import MAX_DROP, WalkMap
from behaviors.ballance.autopilot_rail_drops import rail_drops
from behaviors.ballance.floors import entity_triangles
from behaviors.ballance.level import FINISHED, level_behavior
from behaviors.ballance.values import KIND_NAMES
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, played_at_once, rail_kit, stone_course, translation

RADIUS = 0.35
TOP = RADIUS * math.cos(math.pi / 8.0)      # the axis this far below the top facet
FALL = 80.0
UPPER_END, LOWER_START, LOWER_END = 40.0, 43.0, 143.0


def drop_level() -> LevelBuilder:
    """The module docstring's level."""
    b = LevelBuilder()
    mat, _, stone, mesh = rail_kit(b, RADIUS)
    floors = [b.box("A01_Floor_01", (12, 1, 25), (0, -0.5, -12.5), mat),
              b.box("A01_Floor_02", (12, 1, 25), (0, -FALL - 0.5, LOWER_END + 12.5), mat)]
    rails = [b.entity(f"A01_Rail_{i + 1:02d}", mesh, translation(0, -TOP, 5.0 + 10.0 * i))
             for i in range(int(UPPER_END / 10.0))]
    rails += [b.entity(f"A01_Rail_{i + 11:02d}", mesh, translation(0, -FALL - TOP, LOWER_START + 5.0 + 10.0 * i))
              for i in range(int((LOWER_END - LOWER_START) / 10.0))]
    b.group("Phys_FloorRails", rails)
    course = stone_course(b, floors, stone, (0.0, -FALL, LOWER_END + 15.0), death=FALL + 40.0)
    return course


@pytest.fixture(scope="module")
def scene_pilot(tmp_path_factory):
    """The written level's scene (the ball born stone at z -20) and its Pilot (the map measured)."""
    root = tmp_path_factory.mktemp("rail_drop")
    game_folder(root, drop_level().data(), {})
    scene = played_at_once(scenes.load(game_level(str(root), 1)))
    return scene, Pilot(scene, 90.0)


def test_the_map_finds_the_rails_end_over_the_rail_below(scene_pilot):
    """One rail drop: the upper rail's end (its last node, within a node's
    spacing of UPPER_END) along +Z, over the lower rail's nodes, FALL lower."""
    _, pilot = scene_pilot
    drops = rail_drops(pilot.map, pilot.rails)
    assert len(drops) == 1
    end, way, lower = drops[0]
    p = pilot.map.points
    assert way == pytest.approx((0.0, 1.0), abs=0.02)
    assert p[end, 1] == pytest.approx(0.0, abs=0.1) and UPPER_END - 2.5 <= p[end, 2] <= UPPER_END
    assert np.all(np.abs(p[lower, 1] + FALL) < 0.2) and p[lower, 2].min() >= LOWER_START - 0.1


def test_the_stone_ball_steered_in_the_fall_lands_on_the_rail_below_and_finishes(scene_pilot):
    """Without the rule the map has no way from floor A (the fall is more
    than MAX_DROP); measured, the stone ball rolled off the upper rail's
    end and steered in the fall as on a rail lands on the lower rail and
    stays: a link from the end to its landing; the autopilot takes it and
    finishes the level."""
    scene, pilot = scene_pilot
    assert FALL > MAX_DROP
    tris = entity_triangles(_members(scene.ctx, FLOOR_GROUPS))
    rails = np.zeros(len(tris), bool)
    rails[len(entity_triangles(_members(scene.ctx, FLOOR_GROUPS[:1]))):] = True
    still = WalkMap(tris, rails=rails).route_to((0.0, -FALL, LOWER_END + 15.0), 3.0)
    assert still.cost[still.state((0.0, 2.0, -20.0), "stone")] == math.inf
    (end, _, lower), = rail_drops(pilot.map, pilot.rails)
    n, stone = len(pilot.map.points), KIND_NAMES.index("stone")
    assert pilot.map.graph[stone * n + end, stone * n + lower].nnz == 1
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, -20.0), "stone")])
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
