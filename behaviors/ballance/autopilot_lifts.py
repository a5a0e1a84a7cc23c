"""The autopilot's lifts out of a fan's column (issue 40 item 3; docs/levels.md
"Autopilot", "Lifts").

The paper ball rises in a fan's column until its lowest point is at most
the column's ``highest`` (autopilot_map's ``_column``), then leaves it
sideways to a landing. On its way out its centre is at ``highest`` plus
its radius, so a face over that way lower than the ball's top closes it:
level 06's low fan ``P_Modul_18_12`` (its column's top 2.6, the ball's
lowest point up to 3.88) stands 2.35 off a strip 1.7 wide (3.54 high)
under the single rail ``A_03_Rail_06`` (its underside 7.3): between the
strip and the rail there is 3.76 of room, less than the ball's 4, so the
ball hovering over the fan at 5.0 to 6.0 (its centre) cannot get onto the
strip, and the map's lift to it held the paper ball in the draught (24
tries, gave up after 152.55 s). The way is then the high fans beside the
low ones (``P_Modul_18_13``, its ball's lowest point up to 9.11), which
lift the ball over the rails.

Nor does the paper ball fall into a column from above its top: the
draught holds it there (``drops_held``). Level 06's upper pair of
``A_03_Rail_02`` ends 0.3 over fan ``P_Modul_18_09``'s column top, over
its axis; the map's route dropped from the pair's end to the fan's foot
and lifted from there, and the paper ball hovered at the pair's end, its
centre 9.2 to 11.0, on every try (gave up there).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix

from .values import BALL_RADIUS

WAY_STEP = 0.5           # the way out of a column is checked at points this far apart
CLEAR = BALL_RADIUS - 0.25    # a face this near the ball's centre on its way out closes it (as autopilot_map's
                              # _covered: the faces are sampled 1 apart) ...
ABOVE = 0.5                   # ... if it is more than this above the centre (not the landing's floor or edge)
HELD_BELOW = 0.5              # a node this little under a column's top (the ball's lowest point on it, 0.5 into
                              # the draught's box at most) holds a paper ball falling over the column


def clear_ways(solid, foot, highest: float, landings) -> np.ndarray:
    """Per landing point (a node, (n, 3)): is the straight way out of the
    column whose axis stands at ``foot``, the ball's centre at ``highest``
    plus BALL_RADIUS, from the axis to over the landing, free of faces
    (``solid``, a cKDTree of face points) within CLEAR of the centre and
    more than ABOVE above it?"""
    landings = np.asarray(landings, float).reshape(-1, 3)
    if not len(landings):
        return np.zeros(0, bool)
    y = float(highest) + BALL_RADIUS
    start = np.array([foot[0], y, foot[2]])
    ends = np.c_[landings[:, 0], np.full(len(landings), y), landings[:, 2]]
    steps = int(np.ceil(np.max(np.hypot(*(ends - start)[:, (0, 2)].T), initial=0.0) / WAY_STEP)) + 1
    clear = np.ones(len(landings), bool)
    for t in np.linspace(0.0, 1.0, steps + 1):
        q = start + (ends - start) * t
        d, i = solid.query(q, k=8, distance_upper_bound=CLEAR)
        above = solid.data[np.minimum(i, solid.n - 1), 1] - q[:, 1, None] > ABOVE
        clear &= ~(np.isfinite(d) & above).any(axis=1)
    return clear


def drops_held(graph, points, lifts, columns, paper: int):
    """``graph`` (states kind * n + node) without the paper ball's links into
    a lift's foot nodes (``lifts``: (foot nodes, top nodes) per column of
    ``columns``) from a node no lower than that column's top less
    HELD_BELOW: a paper ball over the column is held in its draught, not
    let down to its foot."""
    n = len(points)
    g = graph.tocoo()
    held = np.zeros(len(g.row), bool)
    into = (g.row // n == paper) & (g.col // n == paper)
    for (below, _), (_, top, _) in zip(lifts, columns):
        foot = np.zeros(n, bool)
        foot[below] = True
        held |= into & foot[g.col % n] & ~foot[g.row % n] & (points[g.row % n, 1] >= top[1] - HELD_BELOW)
    return coo_matrix((g.data[~held], (g.row[~held], g.col[~held])), shape=g.shape).tocsr()


def caught(columns, ball, landing, near: float) -> bool:
    """Is the ball at ``ball``, flying to ``landing``, in the draught of the
    column (of ``columns``: (foot, top, highest)) whose foot that landing
    is: both within ``near`` of its axis, the ball no higher than its
    lowest point can rise there (``highest`` plus BALL_RADIUS)? The flight
    is over: the draught holds the ball and lifts it, the route's lift
    takes it on. Level 06's paper ball, flown off a platform's edge into
    fan ``P_Modul_18_11``'s column (the route's landing its foot), was
    caught 13 above the foot and hovered there, still flying at the foot
    (400 frames of the probe, no landing)."""
    ball, landing = np.asarray(ball, float), np.asarray(landing, float)
    for foot, _, highest in columns:
        if (np.hypot(*(ball - foot)[[0, 2]]) <= near and np.hypot(*(landing - foot)[[0, 2]]) <= near
                and landing[1] < foot[1] + 2.0 * BALL_RADIUS and ball[1] <= highest + BALL_RADIUS):
            return True
    return False
