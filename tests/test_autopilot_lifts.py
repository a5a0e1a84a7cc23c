"""The autopilot's lifts out of a fan's column (issue 40 item 3; docs/levels.md
"Autopilot"): the paper ball leaves a column with its centre at most the
column's ``highest`` plus its radius; a face over its way lower than its
top closes the way (level 06's low fan ``P_Modul_18_12`` beside the strip
under ``A_03_Rail_06``: 3.76 of room between them, the ball is 4 tall)."""

import math

import numpy as np

from bbglue import meshes
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.values import BALL_RADIUS

FAN = ((0.0, 1.14, 0.0), (0.0, 17.14, 0.0))    # a column's axis: its top 17.14, the ball's lowest point to 18.44
STRIP = 18.1                                     # 0.34 under that, as level 06's strip under fan 12's top
NEAR, WIDE = 2.35, 1.7                           # the strip's near edge off the axis, its width
ROOM = 3.76                                      # between the strip and the rail's underside (level 06: 7.3 - 3.54)
RADIUS = 0.35                                    # the rail's tube


def plate(x0, x1, z0, z1, y):
    """Two triangles: a floor from (x0, z0) to (x1, z1) at height y."""
    a, b, c, d = (x0, y, z0), (x1, y, z0), (x1, y, z1), (x0, y, z1)
    return [(a, b, c), (a, c, d)]


def rail_over_strip(x):
    """The triangles of an octagonal rail along Z over the strip's middle
    at ``x``, its underside ROOM above the strip."""
    m = meshes.octagonal_rail(RADIUS, 30.0)
    v = np.asarray(m.vertices, float) + (x, STRIP + ROOM + RADIUS, 0.0)
    return v[np.asarray(m.faces)].tolist()


def course(railed: bool):
    """The fan's floor (y 0) round the column; two strips 0.34 under the
    ball's highest lowest point, along Z, NEAR off the axis either side
    (x +2.35..+4.05 and -4.05..-2.35), a rail over the +x one when
    ``railed``."""
    tris = plate(-1.5, 1.5, -1.5, 1.5, 0.0) + plate(NEAR, NEAR + WIDE, -15, 15, STRIP) \
        + plate(-NEAR - WIDE, -NEAR, -15, 15, STRIP)
    if railed:
        tris += rail_over_strip(NEAR + WIDE / 2.0)
    return WalkMap(tris, fans=[FAN])


def test_the_room_under_the_rail_is_less_than_the_ball():
    """The hand numbers: the ball's centre on the strip under the rail is
    at most WIDE / 2 off the rail's axis and BALL_RADIUS above the strip,
    nearer the tube than the ball's radius plus the tube's."""
    gap = math.hypot(ROOM + RADIUS - BALL_RADIUS, WIDE / 2.0)
    assert ROOM < 2.0 * BALL_RADIUS and gap < BALL_RADIUS + RADIUS


def test_no_lift_onto_a_strip_under_a_rail():
    """Bare, both strips are the lift's landings; with the rail over the +x
    strip, no node of it is, the -x strip's still are, and the paper ball
    has no way from the fan's floor to the railed strip's far end."""
    for railed in (False, True):
        walk = course(railed)
        landings = walk.points[walk.lifts[0][1]]
        assert (landings[:, 0] < 0).any(), railed
        assert (landings[:, 0] > 0).any() != railed, railed
        route = walk.route_to((NEAR + WIDE / 2.0, STRIP + BALL_RADIUS, 12.0), 2.0)
        cost = route.cost[route.state((0.0, BALL_RADIUS, 0.0), "paper")]
        assert math.isfinite(cost) != railed, railed


def test_no_drop_into_a_columns_foot_from_over_its_top():
    """Floor A 0.4 over the column's top, ending over its axis (level 06's
    upper pair of A_03_Rail_02 over fan 09: 0.3), floor B 4 under the
    top beyond the column: the paper ball falling off A's end is held
    in the draught, so no paper link goes from A into the lift's foot; B's
    edge 4 under the top, as before, drops into it."""
    top = FAN[1][1]
    walk = WalkMap(plate(-1.5, 1.5, -1.5, 1.5, 0.0) + plate(-4, 4, -30, 0, top + 0.4)
                   + plate(-4, 4, 3.5, 30, top - 4.0), fans=[FAN])
    n, (below, _) = len(walk.points), walk.lifts[0]
    into = walk.graph[:n][:, below].tocoo()          # paper (kind 0) links into the foot nodes
    assert len(below) and into.nnz
    sources = walk.points[into.row, 1]
    assert (sources < top - 1.0).all() and (np.abs(sources - (top - 4.0)) < 0.1).any()
