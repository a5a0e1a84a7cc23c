"""The autopilot's hops onto a rail pair (issue 40 item 3; docs/levels.md
"Autopilot", "Hops").

A floor may end in a short gap before a rail pair that starts lower, in
line with it: level 06's channel ``A_03_Floor_01`` (8.0 high, 5 wide) ends
4.7 before the pair ``A_03_Rail_02``, whose tops start 4.8 high. That is no
link (longer than REACH) and no drop (3.2 down over 4.7 is shallower than a
link may climb): a ball rolling off the channel slowly falls into the gap,
one at a run's speed flies into the pair. A hop is that flight: from a
floor's edge straight off it, on the pair's middle line and within 15
degrees of its way, onto the midpoint HOP_IN past the pair's end, which
the kind's Flight reaches leaving the edge at HOP_SPEED with its centre
falling to between the rails (SPAN_DIP lower than on their tops). There
a ball leaving at the steering's jump speed comes down (level 06: 4.2 in
0.65 s, 7.1 across at 11 units/s, 2.4 inside the pair), and its landing
is a jump's (longer than DROP_REACH): the steering runs at JUMP_RUN to
the edge and holds the ball over the landing in the air.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from .autopilot_map import CLIMB, DROP_REACH, EDGE_PROBE, RAIL_END, RAIL_SIDE, SPAN_DIP, SPAN_END, WalkMap
from .values import KIND_NAMES

HOP_REACH = 10.0         # a hop's landing at most this far across from its edge
HOP_IN = 3.0             # ... this far past the pair's end (its first midpoint), along the pair
HOP_SPEED = 11.0         # the speed the ball leaves the edge at (the steering's at a jump: autopilot.JUMP_RUN)
HOP_ENDS = 2.5           # a midpoint with none of its pair's this far back toward the edge is the pair's end
HOP_COST = 10.0          # a hop's extra cost (a miss is a death)
TALL = (1.0, 2.0, 1.0)   # midpoints of one pair: heights counted twice (level 06's lower and upper pairs, 3.4 apart)


def _axes(walk: WalkMap, mids, tree) -> np.ndarray:
    """Per midpoint index in ``mids`` (nodes of ``walk``): the unit way (x, z)
    its pair runs, the main axis of the midpoints within 2 EDGE_PROBE in
    ``tree`` (every midpoint, heights TALL: not a pair 3.4 above)."""
    every = np.flatnonzero(walk.span)
    near = tree.query_ball_point(walk.points[mids] * TALL, 2.0 * EDGE_PROBE)
    axes = np.zeros((len(mids), 2))
    for i, m in enumerate(near):
        q = walk.points[every[m]][:, (0, 2)]
        d = q - q.mean(axis=0)
        axes[i] = np.linalg.eigh(d.T @ d)[1][:, -1]
    return axes


def rail_hops(walk: WalkMap):
    """(edge, landing, per kind whether it flies there) of the hops (the
    module's docstring): an edge node of a floor (not a rail's), over a gap
    to a rail pair's end lower than it, its landing more than DROP_REACH
    away (a jump's) and no lower than a link may fall (else a drop), with
    no lid over its way out and no face on its flight (the map's drop
    checks)."""
    p = walk.points
    none = (np.zeros(0, int), np.zeros(0, int), np.zeros((0, len(KIND_NAMES)), bool))
    mids = np.flatnonzero(walk.span)
    edge = np.flatnonzero((walk.empty_sides > 0) & ~walk.paired & ~walk.span & ~walk.rail)
    if len(mids) < 2 or not len(edge):
        return none
    mid_tree = cKDTree(p[mids][:, (0, 2)])
    tall = cKDTree(p[mids] * TALL)
    near = mid_tree.query_ball_point(p[edge][:, (0, 2)], HOP_REACH)
    counts = np.fromiter((len(x) for x in near), int, len(near))
    a = np.repeat(edge, counts)
    end = mids[np.fromiter((j for x in near for j in x), int, int(counts.sum()))]
    a, end = a[p[end, 1] < p[a, 1] - 0.15], end[p[end, 1] < p[a, 1] - 0.15]
    u = p[end] - p[a]
    u[:, 1] = 0.0
    u /= np.maximum(np.linalg.norm(u, axis=1), 1e-9)[:, None]
    d, _ = tall.query((p[end] - u * HOP_ENDS) * TALL, distance_upper_bound=0.8 * HOP_ENDS)
    a, end, u = a[~np.isfinite(d)], end[~np.isfinite(d)], u[~np.isfinite(d)][:, (0, 2)]    # the pair's end
    axes = _axes(walk, end, tall)
    along = (u * axes).sum(axis=1)
    side = np.abs((p[a, 0] - p[end, 0]) * axes[:, 1] - (p[a, 2] - p[end, 2]) * axes[:, 0])
    inward = walk._inward(np.unique(a))
    size = np.linalg.norm(inward, axis=1)
    ok = ((np.abs(along) >= RAIL_END) & (side <= RAIL_SIDE) & (size[a] > 0)
          & ((u * inward[a]).sum(axis=1) <= -SPAN_END * size[a]))
    a, end, way = a[ok], end[ok], axes[ok] * np.sign(along[ok])[:, None]      # into the pair
    d, i = tall.query((p[end] + np.c_[way[:, 0], np.zeros(len(way)), way[:, 1]] * HOP_IN) * TALL,
                      distance_upper_bound=HOP_ENDS)
    a, b = np.unique(np.c_[a[np.isfinite(d)], mids[i[np.isfinite(d)]]], axis=0).T.reshape(2, -1)
    flat = np.hypot(p[b, 0] - p[a, 0], p[b, 2] - p[a, 2])
    fall = p[a, 1] - p[b, 1]
    ok = (flat > DROP_REACH) & (flat <= HOP_REACH) & (fall > 0.15) & (fall <= CLIMB * flat + 0.15)   # no drop
    a, b, flat = a[ok], b[ok], flat[ok]
    angle = np.arctan2(p[b, 2] - p[a, 2], p[b, 0] - p[a, 0])
    ok = ~walk._lids(a, angle) & ~walk._struck(a, b)
    a, b, flat = a[ok], b[ok], flat[ok]
    fall = p[a, 1] - p[b, 1] + SPAN_DIP
    flies = np.stack([flat <= walk.flights[k].reach(fall, HOP_SPEED) for k in KIND_NAMES], axis=1)
    ok = flies.any(axis=1)
    return a[ok], b[ok], flies[ok]


def add_rail_hops(walk: WalkMap) -> None:
    """Add the hops (rail_hops) to the map's graph, per kind that flies
    there, each costing HOP_COST more than its length."""
    a, b, flies = rail_hops(walk)
    if not len(a):
        return
    n, length = len(walk.points), np.linalg.norm(walk.points[a] - walk.points[b], axis=1) + HOP_COST
    rows = np.concatenate([k * n + a[flies[:, k]] for k in range(len(KIND_NAMES))])
    cols = np.concatenate([k * n + b[flies[:, k]] for k in range(len(KIND_NAMES))])
    walk.add_links(rows, cols, np.concatenate([length[flies[:, k]] for k in range(len(KIND_NAMES))]))
