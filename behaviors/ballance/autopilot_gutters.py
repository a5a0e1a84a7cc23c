"""Gutters in the autopilot's map (issue 40; docs/levels.md "Autopilot").

A ball in a V-shaped gutter rests on both its faces and rolls along the
line where they meet: the slope its push must hold it on is that line's,
not its faces'. Level 05's sector 4 climbs twice in such gutters, 5 wide:
faces 0.37 and 0.38 per unit steep (stone's push holds it on 0.32), their
line rising 0.25 (normals (-0.237, 0.936, -+0.262) and (+-0.262, 0.935,
-0.239)); measured, a stone ball pushed from rest 5 before the foot of each
rolls up to its top, rising 0.22 per unit along it (the map had it stay at
their foot). On a plain face 0.4 steep it does not: it
stops 4.6 up one from 8 units/s at its foot (written, tests/test_autopilot_gutters.py).
"""

from __future__ import annotations

import numpy as np

from .values import BALL_RADIUS

GUTTER_ACROSS = BALL_RADIUS  # a gutter's other face: a node this near across ...
GUTTER_DEPTH = 1.0           # ... and this near in height
GUTTER_RISE = 0.5            # a route leaving a gutter this much higher climbs it along its line


def downhill(triangles: np.ndarray) -> np.ndarray:
    """Per upward triangle (n, 3, 3): its downhill way across (x, z), as long
    as its rise per unit."""
    n = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    return n[:, (0, 2)] / n[:, 1:2]


def gutter_slopes(points: np.ndarray, way: np.ndarray, flat_tree, steeper: float) -> tuple:
    """Per node (``points``, the ``way`` downhill of each one's face; nodes
    across in ``flat_tree``): the rise per unit of the line a gutter's
    faces meet on, where the node's face is steeper than ``steeper`` and a
    node within GUTTER_ACROSS across and GUTTER_DEPTH in height lies on a
    face that falls toward it as its own falls toward that node, else inf;
    and the unit way (x, z) that line rises along, else 0."""
    out = np.full(len(points), np.inf)
    lines = np.zeros((len(points), 2))
    steep = np.flatnonzero(np.hypot(way[:, 0], way[:, 1]) > steeper)
    if not len(steep):
        return out, lines
    normal = np.c_[way[:, 0], np.ones(len(way)), way[:, 1]]
    for i, near in zip(steep, flat_tree.query_ball_point(points[steep][:, (0, 2)], GUTTER_ACROSS)):
        j = np.asarray(near, int)
        gap = points[j][:, (0, 2)] - points[i, (0, 2)]
        j = j[(np.abs(points[j, 1] - points[i, 1]) <= GUTTER_DEPTH) & (gap @ way[i] > 0.0)
              & (np.einsum("ij,ij->i", -gap, way[j]) > 0.0)]
        if not len(j):
            continue
        line = np.cross(normal[i], normal[j])
        across = np.hypot(line[:, 0], line[:, 2])
        ok = np.flatnonzero(across > 1e-9)
        if len(ok):
            k = ok[np.argmin(np.abs(line[ok, 1]) / across[ok])]
            out[i] = abs(line[k, 1]) / across[k]
            lines[i] = line[k, (0, 2)] / across[k] * (1.0 if line[k, 1] >= 0.0 else -1.0)
    return out, lines


def gutter_under(walk, p, holds: float):
    """The unit way (x, 0, z) up the line of the gutter under the ball at
    ``p``: its nearest node within GUTTER_ACROSS across and GUTTER_DEPTH of
    the ball's bottom on a gutter's face steeper than the kind ``holds`` on,
    the line no steeper; else None."""
    near = np.asarray(walk.flat_tree.query_ball_point((p[0], p[2]), GUTTER_ACROSS), int)
    near = near[(walk.gutter[near] <= holds) & (walk.slope[near] > holds)
                & (np.abs(walk.points[near, 1] - (p[1] - BALL_RADIUS)) <= GUTTER_DEPTH)]
    if not len(near):
        return None
    j = near[np.argmin(np.hypot(*(walk.points[near][:, (0, 2)] - (p[0], p[2])).T))]
    return np.array([walk.gutter_way[j, 0], 0.0, walk.gutter_way[j, 1]])


def gutter_climb(walk, nodes, ahead, p, holds: float):
    """The way up the gutter under the ball at ``p`` (gutter_under) when
    the first of the route's ``nodes`` ahead (at ``ahead``) lies on a face
    steeper than the kind ``holds`` on and the route leaves such faces more
    than GUTTER_RISE above the ball; else None. The autopilot then pushes
    along the line until no such gutter is under the ball, past its top
    where the faces flatten: level 05's route leaves its west gutter
    sideways 1.7 below its top, over the east face (0.375 steep) and a
    0.35 step onto the strip beside; aimed there, the stone ball stalled
    against the face, rolled back, and the rocking push sent it down the
    gutter and off its foot (24 tries). Pushed up the line from rest in
    the crease it reaches the pocket at the top, and from there the strip."""
    if walk.slope[nodes[0]] <= holds:
        return None
    out = next((q for q, i in zip(ahead, nodes) if walk.slope[i] <= holds), None)
    if out is None or out[1] <= p[1] + GUTTER_RISE:
        return None
    return gutter_under(walk, p, holds)
