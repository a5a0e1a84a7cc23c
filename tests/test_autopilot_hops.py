"""The autopilot's hops onto a rail pair (issue 40 item 3; docs/levels.md
"Autopilot"): level 06's channel ``A_03_Floor_01`` ends 4.7 before the rail
pair ``A_03_Rail_02``, whose tops start 3.2 lower. 4.7 is longer than a
link (REACH, 4.2) and 3.2 is shallower than a drop (0.7 x 4.7 + 0.15 =
3.44): the map had no way on.

Physics: the ball's centre, 2 above the floor, comes down between the rails
about 1 above their tops (SPAN_DIP), 4.2 below, in sqrt(2 x 4.2 / 20) =
0.648 s: at the steering's 11 units/s it is 7.1 past the edge, 2.4 inside
the pair; at 5 units/s, 3.2, short of the rails' end (it falls)."""

import math

import numpy as np

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import FLOOR_GROUPS, Pilot, _members
from behaviors.ballance.autopilot_hops import HOP_IN, HOP_SPEED, rail_hops
from behaviors.ballance.autopilot_map import CLIMB, REACH, Flight, WalkMap
from behaviors.ballance.floors import entity_triangles
from behaviors.ballance.level import FINISHED, level_behavior
from behaviors.ballance.values import BALL_RADIUS, KIND_NAMES
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, autopilot_level, game_folder, played_at_once, plate, translation, wood_course

GAP, FALL = 4.7, 3.2          # level 06's channel end to A_03_Rail_02's start
RAIL_TOP = 0.35 * math.sin(3.0 * math.pi / 8.0)     # an octagonal rail's flat top above its axis


def hop_level() -> LevelBuilder:
    """Floor A (x -6..6, z -5..30, top y 0) where the wood ball starts; a
    rail pair along Z (x +-1.875, 3.75 apart, octagonal tubes of radius
    0.35) from z 30 + GAP to 60 + GAP, their tops FALL lower; floor B level
    with their tops from their end to z 90, the finish at z 80; a death
    cube under all."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    end = 60.0 + GAP
    floors = [plate(b, "A01_Floor_01", [(-6, 0, -5), (6, 0, -5), (6, 0, 30), (-6, 0, 30)], mat),
              plate(b, "A01_Floor_02", [(-6, -FALL, end), (6, -FALL, end), (6, -FALL, 90), (-6, -FALL, 90)], mat)]
    rail = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(0.35, 30.0), rail_mat)
    rails = [b.entity(f"A01_Rail_0{i}", rail, translation(x, -FALL - RAIL_TOP, 45.0 + GAP))
             for i, x in ((1, -1.875), (2, 1.875))]
    b.group("Phys_FloorRails", rails)
    return wood_course(b, floors, stone, (0, -FALL, 80), (0, -40, 40))


def test_the_gap_is_no_link_and_no_drop():
    """The hand numbers the rule stands on: the gap is longer than a link
    and shallower than a drop; the landing HOP_IN inside the pair is within
    what the ball flies at HOP_SPEED falling 4.2 (7.1), the pair's end not
    reached at 5 units/s (3.2)."""
    assert GAP > REACH and FALL < CLIMB * GAP + 0.15
    t = math.sqrt(2.0 * (FALL + 1.0) / 20.0)
    assert GAP < HOP_SPEED * t < GAP + HOP_IN + 1.0 and 5.0 * t < GAP


def test_the_autopilot_hops_onto_the_rail_pair_and_finishes(tmp_path):
    """Written (hop_level): the map without hops has no way from floor A;
    the Pilot's map has a hop from floor A's end onto the pair's midline,
    HOP_IN (within a midpoint's spacing) past the rails' start, and the
    autopilot finishes the level as wood."""
    game_folder(tmp_path, hop_level().data(), {})
    scene = played_at_once(scenes.load(game_level(str(tmp_path), 1)))
    tris = entity_triangles(_members(scene.ctx, FLOOR_GROUPS))
    rails = np.zeros(len(tris), bool)
    rails[-2 * len(entity_triangles([scene.ctx.get("A01_Rail_01")])):] = True
    still = WalkMap(tris, rails=rails).route_to((0.0, -FALL, 80.0), 3.0)
    assert still.cost[still.state((0.0, 2.0, 0.0), "wood")] == math.inf
    pilot = Pilot(scene, 60.0)
    a, b, flies = rail_hops(pilot.map)
    assert len(a) >= 1
    landing = pilot.map.points[b]
    assert np.all(np.abs(landing[:, 0]) < 0.5) and np.all(np.abs(landing[:, 2] - (30.0 + GAP + HOP_IN)) < 1.5)
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "wood")])
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED


def pushed(push: float = 10.0) -> dict:
    """Each kind's Flight as undamped physics gives it, pushed at ``push``
    across: from rest it goes push / g of its fall across (0.5 here)."""
    t = np.arange(0.0, 5.0, 1.0 / 60.0)
    f = Flight(t, 0.5 * 20.0 * t * t, -20.0 * t, 0.5 * push * t * t, 20.0)
    return {"paper": f, "wood": f, "stone": f}


def strip(x0, x1, z0, z1, y):
    a, b, c, d = (x0, y, z0), (x1, y, z0), (x1, y, z1), (x0, y, z1)
    return [(a, b, c), (a, c, d)]


def test_off_a_rail_pairs_end_the_ball_lands_no_farther_aside_than_its_push_carries_it():
    """Rails along Z at x +-1.875 (tops at y 0) from a floor at z -20..-10
    to their end at z 30; a floor 6 lower from z 36 to 44, either on their
    line (x -2..2) or beside it (x 5..9, its near corner 40 degrees off the
    rails' way). The rails hold the ball on their line to their end; in
    its fall of 5 to 6 its push (0.5 of the fall here) carries it 2.5 to 3
    aside, not 5: the floor beside is no way (level 06's false drop off
    A_03_Rail_02's start, 5.2 beside, wood's push 4.5)."""
    rails = strip(-2.225, -1.525, -10, 30, 0.0) + strip(1.525, 2.225, -10, 30, 0.0)
    for x0, way in ((-2.0, True), (5.0, False)):
        floors = strip(-3, 3, -20, -10, 0.0) + strip(x0, x0 + 4.0, 36, 44, -6.0)
        walk = WalkMap(rails + floors, flights=pushed(), rails=[True] * len(rails) + [False] * len(floors))
        route = walk.route_to((x0 + 2.0, -4.0, 42.0), 1.5)
        assert math.isfinite(route.cost[route.state((0.0, 2.0, -15.0), "wood")]) == way, x0


def test_off_a_rail_pairs_end_onto_a_lower_pair_in_line_the_ball_lands_between_its_rails():
    """Rails along Z at x +-1.875 (tops at y 0) from a floor at z -20..-10
    to their end at z 30; a second pair on the same line, 5 lower, from z
    31 to 60 (level 03's pairs ending at x 1447.9 over one 5 lower). Barely
    pushed (0.1 of the fall here: 0.5 across in the fall of 5, less than
    the lower rails' 1.875 beside the line), the ball off the upper pair's
    end still comes down between the lower rails, on their middle line: a
    drop from an upper midpoint onto a lower rail's top is a stone link
    (level 03 had only those: sector 4 lost its route)."""
    rails = (strip(-2.225, -1.525, -10, 30, 0.0) + strip(1.525, 2.225, -10, 30, 0.0)
             + strip(-2.225, -1.525, 31, 60, -5.0) + strip(1.525, 2.225, 31, 60, -5.0))
    floors = strip(-3, 3, -20, -10, 0.0)
    walk = WalkMap(rails + floors, flights=pushed(2.0), rails=[True] * len(rails) + [False] * len(floors))
    p, n, stone = walk.points, len(walk.points), KIND_NAMES.index("stone")
    upper = np.flatnonzero(walk.span & (p[:, 1] > -1.0))
    lower = np.flatnonzero(walk.paired & (p[:, 1] < -4.0))
    assert len(upper) and len(lower)
    links = walk.graph[stone * n + upper][:, stone * n + lower]
    assert links.nnz > 0


def test_above_a_lifts_landing_the_paper_ball_flies_there_not_to_the_node_under_it(tmp_path):
    """The written course with floor C 18 off the fan's axis and ledge D
    beside the column (autopilot_level(far=True, ledge=True)): over the
    column's top the ball's nearest nodes are D's, whose route drops back to
    the fan's floor and up the lift again (level 06's fan 07, a rail's top
    6 under the hovering ball); above C's height in the column it flies to
    C, and the level is finished without a rollback."""
    game_folder(tmp_path, autopilot_level(far=True, ledge=True).data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 90.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()


def test_a_landing_in_a_fans_draught_is_not_flown_to(tmp_path):
    """A ball flown over a landing in a fan's column is held up in its
    draught, never landing (level 02's fan 18_06): the written course's fan
    at z 80 stands on floor B (top 0), its column up to 17.14; a ball on B
    over the fan's axis, or 2 off it (under LIFT_IN, 3), is in its draught;
    one on floor C (18 off the axis) or 4 off the axis on B is not."""
    game_folder(tmp_path, autopilot_level(far=True, ledge=True).data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 90.0)
    on_b = BALL_RADIUS                           # a ball's centre on floor B (top 0)
    assert pilot._in_draught(np.array([0.0, on_b, 80.0]))
    assert pilot._in_draught(np.array([2.0, on_b, 80.0]))
    assert not pilot._in_draught(np.array([4.0, on_b, 80.0]))
    assert not pilot._in_draught(np.array([0.0, 8.0 + BALL_RADIUS, 98.0]))
