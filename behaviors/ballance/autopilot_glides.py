"""Glides off a fan's hover (issue 40 item 3; docs/levels.md "Autopilot",
"Glides").

Level 12's sector 5 goes on, after the rail drop onto ``A05_Rail_03``,
over eleven paper fans on ``A05_Floor_03``, each on its own 5x5 platform
with no floor between them, 10 to 21 apart and from 11.5 below to 12.5
above one another. The paper ball hovers about 20.4 above a fan's
platform (its column's ``highest``, autopilot_map's ``_column``); with its
push held from there it glides on, about 1.75 along per unit of fall
(19.7 while falling 11.3), over the next platform, whose fan's draught
catches it. The map's lift lands only on nodes higher than the fan's
foot plus 2 (fan 06's platform is 3.9 under fan 05's foot, 20.9 away),
so the map ended at fan 05 and the pilot only treated a step up as a lift.

A glide is a link from a column's foot nodes to a node no higher than
that foot plus 2 (the lift's lowest landing), farther from the axis
than the column's edge and within the column's edge plus the paper
ball's measured Flight (autopilot.flights: from rest, its push held)
for the fall from the hover to it, whose straight way out at the hover
is clear (autopilot_lifts.clear_ways). In play (``glide_ahead``) the
pilot holds the ball in the column up to its ``highest``, then flies it
to the landing.
"""

from __future__ import annotations

import numpy as np

from .autopilot_lifts import clear_ways
from .autopilot_map import FAN_CLEAR, FAN_COST, WalkMap
from .values import BALL_RADIUS, KIND_NAMES

GLIDE_FLOOR = 2.0        # a glide lands no higher than the foot plus this (higher: the lift's landings)


def add_glides(walk: WalkMap) -> None:
    """Adds the paper ball's glides (the module's docstring) to ``walk``'s
    graph, each at FAN_COST plus its length; ``walk.glides`` maps (foot
    node, landing node) to the column's (axis foot, highest)."""
    p, n = walk.points, len(walk.points)
    paper = KIND_NAMES.index("paper")
    rows, cols, costs = [], [], []
    for (foot, _, highest), (below, _) in zip(walk.columns, walk.lifts):
        if not len(below):
            continue
        flat = np.hypot(p[:, 0] - foot[0], p[:, 2] - foot[2])
        fall = highest - p[:, 1]
        reach = FAN_CLEAR + walk.flights["paper"].reach(fall)
        near = np.flatnonzero((flat > FAN_CLEAR) & (flat <= reach) & (fall > 0.0) & (p[:, 1] <= foot[1] + GLIDE_FLOOR))
        landings = near[clear_ways(walk.solid, foot, highest, p[near])]
        for a in below:
            for b in landings:
                walk.glides[int(a), int(b)] = (foot, float(highest))
                rows.append(paper * n + a)
                cols.append(paper * n + b)
                costs.append(FAN_COST + float(np.linalg.norm(p[a] - p[b])))
    if rows:
        walk.add_links(rows, cols, costs)


def glide_ahead(walk: WalkMap, path, ball, near: float):
    """(axis foot, highest, landing point) of the first glide on ``path``
    (graph states) whose column's axis is within ``near`` of the ball at
    ``ball`` (horizontally); else None."""
    glides, n = walk.glides, len(walk.points)
    for s, t in zip(path, path[1:]):
        glide = glides.get((s % n, t % n))
        if glide is not None and np.hypot(*(np.asarray(ball, float) - glide[0])[[0, 2]]) <= near:
            return glide[0], glide[1], walk.points[t % n] + (0.0, BALL_RADIUS, 0.0)
    return None
