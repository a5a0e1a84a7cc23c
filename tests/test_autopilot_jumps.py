"""The autopilot's jumps (issue 40 item 3; docs/levels.md "Autopilot"): how
far each kind flies off an edge is measured on the world (autopilot.flights),
and a gap that only the measured flight crosses is in the map and jumped.

Physics: a ball falling from rest with its push F (per PSI, horizontal)
held and its linear damping d on both axes moves as v' = a - d v per axis,
a = F / m across and g down: the two distances keep the ratio F / (m g)
whatever d is. Wood: 0.43 per PSI of 1/66 s on 1.9 under 20, 0.7468."""

import math

import numpy as np
import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import FLOOR_GROUPS, Pilot, _members, flights
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.floors import entity_triangles
from behaviors.ballance.level import FINISHED, level_behavior
from behaviors.ballance.values import BALL_KINDS
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, course_groups, game_folder, heading_z, played_at_once, translation

HIGH = 20.0          # floor A's top
GAP = 13.0           # between floor A's end and floor B's start: wood flies 0.7468 x 20 = 14.9 falling 20


def jump_level(gap: float = GAP) -> LevelBuilder:
    """Floor A (x -6..6, z -5..25, top y 20) where the wood ball starts, the
    void ``gap`` wide, floor B (32 long, top y 0; z 38..70 for GAP) with the
    finish 22 into it (z 60); a death cube under both."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [b.box("A01_Floor_01", (12, 1, 30), (0, HIGH - 0.5, 10), floor_mat),
              b.box("A01_Floor_02", (12, 1, 32), (0, -0.5, 25 + gap + 16), floor_mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 30), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, HIGH + 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, HIGH + 3.65, 0))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 25 + gap + 22))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("Sector_01", [start])
    return b


@pytest.fixture
def scene(tmp_path):
    game_folder(tmp_path, jump_level().data(), {})
    return played_at_once(scenes.load(game_level(str(tmp_path), 1)))


def test_each_kind_flies_its_push_over_its_weight_times_its_fall(scene):
    ctx = scene.ctx
    ctx.input_manager.set_keys(frozenset())
    ctx.process_frame(1000.0 / 60.0)
    level = level_behavior(ctx)
    measured = flights(ctx, level, entity_triangles(_members(ctx, FLOOR_GROUPS)))
    g = 20.0
    for kind, k in BALL_KINDS.items():
        ratio = k.force / ctx.physics.psi_length / (k.mass * g)
        for fall in (5.0, 20.0, 40.0):
            assert float(measured[kind].reach(fall)) == pytest.approx(ratio * fall, rel=0.03), (kind, fall)
    wood = measured["wood"]
    assert float(wood.reach(HIGH)) > GAP + 1.0                          # the test level's gap: crossed ...
    assert 8.0 * math.sqrt(2.0 * HIGH / g) < GAP                        # ... not by the ballistic default


def test_the_flights_wait_for_the_first_balls_birth_to_end(tmp_path):
    """Measured 3.9 s into the level with the game's birth (the first ball
    born at 1 s, played at 4 s: its birth's end respawns the ball in play,
    which was level 06's paper ball mid-flight), each kind still goes
    F / (m g) of its fall across."""
    game_folder(tmp_path, jump_level().data(), {})
    ctx = scenes.load(game_level(str(tmp_path), 1)).ctx
    ctx.input_manager.set_keys(frozenset())
    for _ in range(234):
        ctx.process_frame(1000.0 / 60.0)
    level = level_behavior(ctx)
    measured = flights(ctx, level, entity_triangles(_members(ctx, FLOOR_GROUPS)))
    for kind, k in BALL_KINDS.items():
        ratio = k.force / ctx.physics.psi_length / (k.mass * 20.0)
        assert float(measured[kind].reach(20.0)) == pytest.approx(ratio * 20.0, rel=0.03), kind


def test_the_autopilot_jumps_a_gap_only_the_measured_flight_crosses(scene):
    """The map of the measured flights links floor A's end to floor B (the
    ballistic default at 8 units/s does not: 11.3 < 13); the autopilot rolls
    off the edge with its push toward floor B and finishes."""
    tris = entity_triangles(_members(scene.ctx, FLOOR_GROUPS))
    default = WalkMap(tris).route_to((0.0, 2.0, 60.0), 3.0)
    assert default.cost[default.state((0.0, HIGH + 2.0, 0.0), "wood")] == math.inf
    pilot = Pilot(scene, 60.0)
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state((0.0, HIGH + 2.0, 0.0), "wood")])
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
    assert outcome.rollbacks == 0


def plate(x0, x1, z0, z1, y):
    """Two triangles of a level plate from (x0, z0) to (x1, z1) at height y."""
    a, b, c, d = (x0, y, z0), (x1, y, z0), (x1, y, z1), (x0, y, z1)
    return [(a, b, c), (a, c, d)]


def test_a_ball_flies_off_a_rail_pairs_end_as_far_as_off_a_floors_edge():
    """Level 06's sector 1: a rail pair climbs to its end 39 high and the
    next rail's top lies 18 ahead and 20.5 below. Written: rails (x +-1.875)
    at y HIGH from z 0 to 40 after a start plate, floor B (z 50..80, y 0)
    10 ahead of their end and HIGH below: farther than DROP_REACH (6), within
    the ballistic flight at JUMP_SPEED (8 x sqrt(2 x 20 / 20) = 11.3), as off
    a floor's edge; a floor 10 beside the rails' middle at the same depth is
    no drop (a ball leaves a rail pair off its end only)."""
    rails = plate(-2.225, -1.525, 0, 40, HIGH) + plate(1.525, 2.225, 0, 40, HIGH)
    floors = plate(-4, 4, -10, 0, HIGH) + plate(-6, 6, 50, 80, 0.0) + plate(12, 24, 10, 30, 0.0)
    walk = WalkMap(rails + floors, rails=[True] * len(rails) + [False] * len(floors))
    on_rails = (0.0, HIGH + 2.0, 20.0)
    ahead = walk.route_to((0.0, 2.0, 65.0), 3.0)
    assert math.isfinite(ahead.cost[ahead.state(on_rails, "wood")])
    path = [ahead.point(s) for s in ahead.ahead(ahead.state(on_rails, "wood"), 200.0)]
    leave = next(i for i, p in enumerate(path) if p[1] < HIGH)
    assert path[leave - 1][2] > 38.0 and abs(path[leave - 1][0]) < 1.0   # off the end, from between the rails
    beside = walk.route_to((18.0, 2.0, 20.0), 3.0)
    assert beside.cost[beside.state(on_rails, "wood")] == math.inf
