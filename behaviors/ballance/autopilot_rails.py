"""The autopilot on a single rail (issue 40 item 3; docs/levels.md
"Autopilot", "Single rails").

A Ballance rail is a tube with a flat top facet 0.27 wide (level 12's
``A02_Rail_03``, a hexagon; the octagon of ``bbglue.meshes.octagonal_rail``)
or an edge on top (``A07_Rail_01``): a ball whose centre is over a facet
rests on it, one beyond its edge pivots about the edge and falls off in
well under a second (measured on the engine: from 0.2 off the axis, 0.5
off after 0.5 s, off the rail after 0.9 s, wood and stone alike). A player rides a single rail with short taps of Left and
Right against the first sideways roll, Up held lightly. So does the
steering here: each frame it takes the rail's line from the rail's own top
faces under the ball (``RailLines``; not from the route's nodes, which lie
anywhere on the facet) and holds the key set whose push, one frame on,
brings the ball's sideways speed nearest ``-RAIL_GAIN`` times its offset
from the line (weighted ``RAIL_WEIGHT`` over the speed along it, kept
moderate): the ball is led back over the facet and its sideways roll is
stopped before it reaches the edge. Onto a rail it is steered the same way
against the line ahead, slowing along it while far off the line, so it
enters aligned.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import cKDTree

from .autopilot_map import sample_triangles, upward_triangles
from .values import BALL_RADIUS, ROLLING

RAIL_FLAT = 0.5          # a rail's top: its faces no steeper than this (A02_Rail_03's flat facet; A07_Rail_01's
                         # two faces 0.42 steep about its top edge; not the flanks: 1)
RAIL_SAMPLE = 0.5        # the rails' faces sampled this apart along them ...
RAIL_COVER = 0.3         # ... a point of a top facet with one this higher in its RAIL_SAMPLE column is a
                         # tube's underside (either winding is up)
RAIL_NEAR = 2.5          # the top points this near the ball (horizontally) give the rail's way ...
RAIL_WINDOW = 1.0        # ... and those this near it along that way its line (their middle) ...
RAIL_WIDE = 0.5          # ... a single rail's when none is farther than this from it (a pair's: 1.9)
RAIL_ABOVE = 0.4         # the ball rests on a rail whose top is this near the ball's lowest point ...
RAIL_OFF = 1.0           # ... and at most this off its line (beyond, it has fallen)
RAIL_AHEAD = 8.0         # a rail's node this far ahead on the route: onto it, aligned ...
RAIL_RUN = 3             # ... the first of this many on the route in a row (a route's step over a rail pair's
                         # edge node, where the midpoints do not join up, is no ride on that rail)
RAIL_GAIN = 2.5          # the sideways speed wanted: this times the offset from the line, toward it ...
RAIL_SIDE_SPEED = 2.0    # ... at most this
RAIL_ALIGN = 1.0         # along the rail slower while farther off its line than this
RAIL_SPEED = 8.0         # along a rail at most this (units/s) ...
RAIL_GRIP = 0.5          # ... and on a bend no faster than its centripetal pull takes this part of the push
RAIL_BEND = 5.0          # a bend's curvature from route points this far apart
RAIL_WEIGHT = 25.0       # the sideways speed's error weighs this much more than the speed along
FRAME_S = 1.0 / 60.0     # a frame


class RailLines:
    """The top facets of a level's rails, sampled (``Phys_FloorRails``'
    triangles in world axes): of the faces that are no wall, the highest
    in their column no steeper than RAIL_FLAT; its line is their middle."""

    def __init__(self, triangles):
        t = np.asarray(triangles, float).reshape(-1, 3, 3)
        up, slope, _ = upward_triangles(t)
        points, owner = sample_triangles(t[up], RAIL_SAMPLE)
        _, cell = np.unique(np.floor(points[:, (0, 2)] / RAIL_SAMPLE).astype(np.int64), axis=0,
                            return_inverse=True)
        highest = np.full(int(cell.max()) + 1 if len(cell) else 0, -np.inf)
        np.maximum.at(highest, cell.ravel(), points[:, 1])
        top = (points[:, 1] >= highest[cell.ravel()] - RAIL_COVER) & (slope[owner] <= RAIL_FLAT)
        self.points = points[top]
        self.tree = cKDTree(self.points[:, (0, 2)]) if len(self.points) else None

    def line(self, q):
        """(the point of the single rail's top line nearest ``q`` in plan,
        its unit way in X and Z) for a rail top near ``q`` (within
        RAIL_NEAR across and about level: RAIL_ABOVE, more on a slope), or
        None (no rail there, or two: a pair, a crossing)."""
        if self.tree is None:
            return None
        q = np.asarray(q, float)
        near = self.points[self.tree.query_ball_point(q[[0, 2]], RAIL_NEAR)]
        if len(near) < 3:
            return None
        flat = near[:, (0, 2)] - q[[0, 2]]
        near = near[np.abs(near[:, 1] - q[1]) <= RAIL_ABOVE + np.hypot(flat[:, 0], flat[:, 1])]
        if len(near) < 3:
            return None
        u = _main_axis(near[:, (0, 2)])
        along = (near[:, (0, 2)] - q[[0, 2]]) @ u
        window = near[np.abs(along) <= RAIL_WINDOW]
        if len(window) < 3:
            return None
        u = _main_axis(window[:, (0, 2)])
        centre = window.mean(axis=0)
        side = np.array([-u[1], u[0]])
        if float(np.abs((window[:, (0, 2)] - centre[[0, 2]]) @ side).max()) > RAIL_WIDE:
            return None
        centre[[0, 2]] += u * float((q[[0, 2]] - centre[[0, 2]]) @ u)
        return centre, u


def _main_axis(xz: np.ndarray) -> np.ndarray:
    d = xz - xz.mean(axis=0)
    return np.linalg.eigh(d.T @ d)[1][:, -1]


def rail_ahead(lines: RailLines, single: np.ndarray, points, ball):
    """The rail the ball rides or rolls onto (a single rail, or one rail of
    a pair ridden on its top): (its line's point, its unit way along the
    route) at the ball when it rests on one, else at the first of RAIL_RUN
    of the route's ``points`` in a row that are on a rail (ball centres
    over the route's nodes, ``single``: which are on a rail's top) within
    RAIL_AHEAD; None when there is none (or no single line there: a
    crossing)."""
    gone, at = 0.0, None
    for i, q in enumerate(points):
        if i:
            gone += float(np.linalg.norm(q - points[i - 1]))
        if gone > RAIL_AHEAD:
            break
        if all(single[i:i + RAIL_RUN]):
            at = i
            break
    if at is None:
        return None
    foot = np.asarray(ball, float) - (0.0, BALL_RADIUS, 0.0)
    on = lines.line(foot)
    if on is not None and abs(_offset(ball, on)) <= RAIL_OFF:
        line = on
    else:
        line = lines.line(points[at] - (0.0, BALL_RADIUS, 0.0))
        if line is None:
            return None
    centre, u = line
    way = points[-1] - points[at] if len(points) > at + 1 else points[at] - np.asarray(ball, float)
    if float(way[[0, 2]] @ u) < 0.0:
        u = -u
    return centre, u


def _offset(ball, line) -> float:
    """The ball's offset from the line, to the left of its way (+) or right."""
    centre, u = line
    d = np.asarray(ball, float)[[0, 2]] - centre[[0, 2]]
    return float(d[0] * -u[1] + d[1] * u[0])


def bend_speed(points, push: float) -> float:
    """The speed at most on the route ``points`` ahead whose bend (the
    turn over two steps RAIL_BEND apart) needs no more than RAIL_GRIP of
    the kind's rolling push (``push``) as centripetal pull."""
    first = next((i for i, q in enumerate(points) if np.linalg.norm((q - points[0])[[0, 2]]) >= RAIL_BEND), None)
    if first is None:
        return math.inf
    second = next((i for i in range(first, len(points))
                   if np.linalg.norm((points[i] - points[first])[[0, 2]]) >= RAIL_BEND), None)
    if second is None:
        return math.inf
    a, b = (points[first] - points[0])[[0, 2]], (points[second] - points[first])[[0, 2]]
    cross = abs(float(a[0] * b[1] - a[1] * b[0])) / (np.linalg.norm(a) * np.linalg.norm(b))
    chord = float(np.linalg.norm((points[second] - points[0])[[0, 2]]))
    curvature = 2.0 * cross / chord
    return math.sqrt(RAIL_GRIP * push / curvature) if curvature > 1e-9 else math.inf


def rail_keys(line, ball, velocity, pushes, push: float, speed: float) -> frozenset:
    """The keys on or onto a single rail's ``line`` (rail_ahead) for a ball
    at ``ball`` moving at ``velocity`` (horizontal): of ``pushes`` ((keys,
    unit push) of the key sets) and none, the one whose push (``push``, the
    kind's F / m, ROLLING of it) one frame on brings the sideways speed
    nearest -RAIL_GAIN times the offset and the speed along nearest
    ``speed`` (RAIL_SPEED at most, slower off the line), the sideways error
    weighing RAIL_WEIGHT."""
    centre, u = line
    side = np.array([-u[1], u[0]])
    off = _offset(ball, line)
    v = np.asarray(velocity, float)[[0, 2]]
    want_side = -max(-RAIL_SIDE_SPEED, min(RAIL_SIDE_SPEED, RAIL_GAIN * off))
    want_along = min(speed, RAIL_SPEED) * max(0.2, 1.0 - abs(off) / RAIL_ALIGN)
    dv = ROLLING * push * FRAME_S
    best, keys = math.inf, frozenset()
    for k, unit in [(frozenset(), np.zeros(3))] + list(pushes):
        after = v + dv * np.asarray(unit, float)[[0, 2]]
        err = RAIL_WEIGHT * (float(after @ side) - want_side) ** 2 + (float(after @ u) - want_along) ** 2
        if err < best:
            best, keys = err, k
    return keys
