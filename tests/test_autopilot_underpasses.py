"""A rail pair passing under a rail across it (docs/levels.md "Autopilot"):
level 05's pair at z -205 runs east under the side rails of the gutter's
gap, the lower one's underside 2.95 above the pair's tops. A stone ball
pushed east along the pair rolls under it (measured: its centre 0.92 lower
than on a floor at the tops, SPAN_DIP), but the map measured the wall
points of that rail from a centre on the tops and walled the way: stone
had no way from sector 1's transformer to the gate P_Modul_01_01.

Hand numbers: between the rails the ball's centre is SPAN_DIP (1) above
their tops, 2 - 1 = 1 lower than on a floor there; a rail whose underside
is 3 above the tops is 2 from that centre, past WALL_SIDE_PROBE (1.5); one
1.5 above the tops is 0.5 above it, a wall (the ball's top is 2.9 above
the tops, level 05's measured centre 0.83 above them)."""

import math

import numpy as np

from bbglue import meshes
from behaviors.ballance.autopilot_map import SPAN_DIP, WALL_SIDE_PROBE, WalkMap
from behaviors.ballance.values import BALL_RADIUS

RADIUS = 0.35


def strip(x0, x1, z0, z1, y):
    a, b, c, d = (x0, y, z0), (x1, y, z0), (x1, y, z1), (x0, y, z1)
    return [(a, b, c), (a, c, d)]


def rail_across(underside: float, z: float) -> list:
    """A rail along X (x -10..10) at ``z``, a square tube 0.7 thick (its
    sides down to its underside, as level 05's facets reach 0.34 below the
    lower side rail's axis), its underside ``underside`` above y 0; in
    pieces 1 long, so its faces are sampled all along its underside."""
    m = meshes.box(1.0, 2.0 * RADIUS, 2.0 * RADIUS)
    out = []
    for x in np.arange(-9.5, 10.0):
        v = np.asarray(m.vertices, float) + (x, underside + RADIUS, z)
        out += v[np.asarray(m.faces)].tolist()
    return out


def underpass(underside: float) -> WalkMap:
    """A floor (z -20..-10, top y 0), a rail pair along Z from it (x
    +-1.875, tops at y 0) to a floor at z 40..50, and a rail across the
    pair at z 15, its underside ``underside`` above the pair's tops."""
    rails = strip(-2.225, -1.525, -10, 40, 0.0) + strip(1.525, 2.225, -10, 40, 0.0)
    across = rail_across(underside, 15.0)
    floors = strip(-3, 3, -20, -10, 0.0) + strip(-3, 3, 40, 50, 0.0)
    return WalkMap(rails + across + floors, rails=[True] * (len(rails) + len(across)) + [False] * len(floors))


def test_the_hand_numbers():
    centre = BALL_RADIUS - SPAN_DIP
    assert 3.0 - centre > WALL_SIDE_PROBE > 1.5 - centre


def test_a_rail_pair_goes_on_under_a_rail_the_ball_clears_not_under_one_it_meets():
    """Underside 3 above the tops (level 05's 2.95): the way along the pair
    to the far floor is open for wood and stone; 1.5 above: walled."""
    for underside, way in ((3.0, True), (1.5, False)):
        walk = underpass(underside)
        route = walk.route_to((0.0, 0.0, 45.0), 2.0)
        for kind in ("wood", "stone"):
            assert math.isfinite(route.cost[route.state((0.0, 2.0, -15.0), kind)]) == way, (underside, kind)
