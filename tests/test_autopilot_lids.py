"""A drop's way out of its edge (issue 40 item 3; docs/levels.md "Autopilot"):
a face over it lower than the ball's top closes it, the ball's own rails
below its centre do not (autopilot_map ``WalkMap._lids``); with no route
from a sector's start the autopilot says where the map ends.

Level 06's sector 1 (measured on the game's files): the trough's floor
ends at a lip 8.56 high with a floor 3.5 below beyond it, and a rail tube
runs along the lip with its underside at 12.04, 3.5 over it; the ball, 4
across, stops against it (the autopilot played there, 60 rollbacks)."""

import math

import numpy as np

import scenes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.autopilot_map import WalkMap
from scenes.virtools import game_level

from test_autopilot import cost_from, plate
from test_autopilot_jumps import jump_level
from virtools_levels import game_folder, played_at_once


def bar(x0, x1, y0, y1, z0, z1):
    """The 12 triangles of a box from (x0, y0, z0) to (x1, y1, z1)."""
    c = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    quads = ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3))
    return [tri for a, b, d, e in quads for tri in ((c[a], c[b], c[d]), (c[a], c[d], c[e]))]


def test_a_bar_over_the_lip_lower_than_the_balls_top_closes_the_drop():
    """A floor 8 high (z 0..10), a floor 3.5 below beyond its edge (z 10.5..30),
    a bar across the edge (x -8..8, 0.5 thick and deep): its underside 3.5 over
    the lip, the ball (its centre 2 over the floor, its top 4) does not pass
    under it, the drop is closed; 4.5 over the lip it passes."""
    floors = plate(-6, 6, 0, 10, 8.0) + plate(-6, 6, 10.5, 30, 4.5)
    for under, reached in ((3.5, False), (4.5, True)):
        y = 8.0 + under
        walk = WalkMap(floors + bar(-8, 8, y, y + 0.5, 9.75, 10.25))
        route = walk.route_to((0.0, 6.5, 25.0), 3.0)
        assert math.isfinite(cost_from(walk, route, (0, 8, 4), "wood")) == reached, under


def test_the_balls_own_rails_below_its_centre_are_no_lid():
    """Rails 10 high (boxes 0.7 wide and deep, their tops at 10, 3.75 apart)
    ending at z 30 over a floor 6 below (z 31..40): the ball between them,
    its centre 1 over their tops, drops off their end; the rails beside and
    below it close nothing."""
    rails = bar(-2.225, -1.525, 9.3, 10.0, 0, 30) + bar(1.525, 2.225, 9.3, 10.0, 0, 30)
    walk = WalkMap(plate(-2, 2, -10, 0, 10.0) + rails + plate(-6, 6, 31, 40, 4.0),
                   rails=[False] * 2 + [True] * len(rails) + [False] * 2)
    route = walk.route_to((0.0, 6.0, 36.0), 2.0)
    assert math.isfinite(cost_from(walk, route, (0, 10, -5), "wood"))
    mids = walk.points[walk.span]
    assert len(mids) and np.all(np.abs(mids[:, 0]) < 0.5)          # the ball rests between the rails


def test_a_way_out_over_a_floor_running_on_level_with_the_edge_is_no_drop():
    """Floor A 8 high (z 0..10), a strip 1 wide at its height beyond its
    edge (x 2.5..3.5, from z 10): straight off the edge over the strip the
    ball rolls on over it, no drop, when the strip runs on 12 (more than
    REACH, 4.2; level 05's drops over a rail level with their edge: the
    ball rolled onto the rail); 2 long, the way leaves it within REACH and
    stays open; off the edge beside it (x -3) over the void, open."""
    for length, closed in ((12.0, True), (2.0, False)):
        walk = WalkMap(plate(-6, 6, 0, 10, 8.0) + plate(2.5, 3.5, 10, 10 + length, 8.0))
        beside = walk.tree.query((3.0, 8.0, 9.5))[1]
        void = walk.tree.query((-3.0, 8.0, 9.5))[1]
        assert walk.empty_sides[void] > 0
        lids = walk._lids(np.array([beside, void]), np.full(2, math.pi / 2.0))
        assert lids.tolist() == [closed, False], length


def test_with_no_route_from_a_sectors_start_the_autopilot_says_where_the_map_ends(tmp_path):
    """The written jump level with a gap of 40: no kind flies it falling 20
    (wood 0.75 x 20 across from rest, paper 1.07 x 20, plus at most 8 units/s
    for the 1.4 s of the fall: 33 at most), so the map has no route from the
    start; the autopilot says so at the first frame of play, where the map's
    reach ends (floor A's end, z 25), with no try."""
    game_folder(tmp_path, jump_level(40.0).data(), {})
    outcome = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 30.0).run()
    assert not outcome.finished
    assert "no route to the goal" in outcome.why, outcome.text()
    end = [float(v) for v in outcome.why.split("reach ends at (")[1].split(")")[0].split(", ")]
    assert 23.0 <= end[2] <= 25.5 and 20.5 <= end[1] <= 22.5     # a ball over floor A's end (a box 19 to 20)
    assert outcome.rollbacks == 0 and outcome.frames < 60
