"""A face standing in a rail pair's gap (issue 40 item 3; docs/levels.md
"Autopilot"): a ball resting across two rails 3.75 apart has its centre
SPAN_DIP (1.0) less BALL_RADIUS (2) above their tops; it rolls up an edge it
meets below its centre, not a face rising above it (autopilot_map
``WalkMap._faced_step``).

Level 12's ``A04_Floor_03`` (measured on the game's files) puts humps into
``A04_Rail_02``'s gap, rising 1.2 per unit to 3.2 above the rails' tops;
the map stepped from the midpoints onto their feet, 0.4 above the rails'
tops, and the paper ball stuck against them on every try.

Written here: floor A (x -10..0, z -6..6, top 0) where the ball starts,
two rails (tops 0, z -1.875 and 1.875) from x 0 to 30 over nothing, floor
B (x 30..40) with the goal; in the rails' gap from x 14 to 18 a face
rising across it from z -1 to 1.5, its foot 0.4 above the rails' tops."""

import math

import numpy as np

from behaviors.ballance.autopilot_map import WalkMap

from test_autopilot import cost_from, plate, rail

FOOT = 0.4         # the face's foot over the rails' tops (a step the ball rolls up, alone)
RISE = 1.2         # per unit across the gap, from z -1 to 1.5: up to FOOT + 3 = 3.4, 2.4 above the ball's centre
WIDE = 2.5


def ridge(top):
    """Two triangles in the gap from x 14 to 18: a face rising across it
    from its foot (height FOOT, z -1) to ``top`` at z 1.5 (level 12's humps
    rise across the rails' way)."""
    a, b, c, d = (14.0, FOOT, -1.0), (18.0, FOOT, -1.0), (18.0, top, WIDE - 1.0), (14.0, top, WIDE - 1.0)
    return [(a, b, c), (a, c, d)]


def course(top):
    """The module docstring's course with the face's top at ``top``: per
    kind, the cost from floor A to the goal on floor B, and the route's
    points (the ball's centres) from floor A."""
    rails = rail(-1.875, 0, 30, 0.0) + rail(1.875, 0, 30, 0.0)
    rails = [tuple((x, y, z) for z, y, x in t) for t in rails]        # along X
    walk = WalkMap(plate(-10, 0, -6, 6, 0.0) + plate(30, 40, -6, 6, 0.0) + rails + ridge(top),
                   climb={"paper": 1.2, "wood": 1.12, "stone": 0.32},
                   rails=[False] * 4 + [True] * len(rails) + [False] * 2)
    route = walk.route_to((35.0, 2.0, 0.0), 3.0)
    out = {}
    for kind in ("paper", "wood", "stone"):
        state = route.state((-5.0, 2.0, 0.0), kind)
        out[kind] = (route.cost[state], np.array([route.point(s) for s in route.ahead(state, math.inf)]))
    return out


def on_face(points):
    """Which of the ball's centres rest on the face between the rails (over
    it, 2 above it: more than 2.3 over the rails' tops)."""
    return (points[:, 0] >= 14.0) & (points[:, 0] <= 18.0) & (np.abs(points[:, 2]) < 1.875) & (points[:, 1] > 2.3)


def test_a_low_step_in_a_rail_pairs_gap_is_rolled_over():
    """The face flat, FOOT high (below the ball's centre, 1.0): every kind
    rolls over it between the rails."""
    for cost, points in course(FOOT).values():
        assert math.isfinite(cost)
        assert on_face(points).any()


def test_a_face_rising_above_the_balls_centre_in_a_rail_pairs_gap_is_a_wall():
    """The face rising RISE per unit across the gap, WIDE wide: it stands above
    the ball's centre within the ball's radius of its foot, so no ball
    between the rails steps onto it (the route, if any, rides a rail's top
    past it: a ball there just clears it)."""
    for cost, points in course(FOOT + WIDE * RISE).values():
        assert not on_face(points).any(), points
