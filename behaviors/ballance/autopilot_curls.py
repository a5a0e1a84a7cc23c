"""Curls: a rail pair's end that turns up past upright (issue 40 item 3;
docs/levels.md "Autopilot", "Curls").

Level 03's ``A02_Rail_05`` runs 115 down and 180 along into a dip, then its
rails curl up 11 and back over the dip (a half loop); the switchback rail
pair ``A02_Rail_06`` crosses 6.9 above the dip, and no floor leads up to
it. Measured on the engine (a stone ball put at rest between the rails at
the descent's top): rolling down unpushed it reaches the dip at 38 units/s,
climbs 9 into the curl and falls back; pushed down the rails at full push
it reaches the dip at 56 units/s, goes round the curl, is thrown up and
back over the dip and lands between ``A02_Rail_06``'s rails, 7 above it:
the level's way on. The map cannot tell that from the geometry (the loss
in the curl is the rails' friction under a load of many g), so the curls
are found in the map (``curl_runs``: a pair's last midpoint with rail faces
rising CURL_RISE above it just past it, and the straight stretch of
midpoints rising behind it) and each is measured on the world before the
run (``measure_curls``, per kind: the ball put at rest at the stretch's top
and pushed along it at full push, where it comes to rest above the dip),
a link from the stretch's top to that landing for the kinds that land
(``add_curls``). The steering pushes along the stretch at full push, as
measured, until the ball rests on its landing (``Pilot.curl``).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from bbglue.blocks import SetPhysicsForce

from .autopilot_map import RAIL_END, REACH, SPAN_MID, STEEPEST, WalkMap
from .values import BALL_KINDS, BALL_RADIUS, KIND_NAMES

CURL_AHEAD = 8.0         # rail faces this near a rail pair's end (along its way) ...
CURL_RISE = 6.0          # ... and this far above it make a curl (level 03's A02_Rail_05: 10 up, 5.5 along)
CURL_STEP = (0.5, REACH)  # a run-up's midpoints follow one another this far apart along its way (level 03's
                         # A02_Rail_05: 3.1 across the gap between its descent and its dip) ...
CURL_SIDE = 1.0          # ... this near its line ...
CURL_SAG = 0.3           # ... none lower than the one before by more than this (a dip's end: every midpoint
                         # ahead more than this higher) ...
CURL_RUN = 250.0         # ... at most this long (level 03's: 180) and at least CURL_LONG (not a curl's own
CURL_LONG = 20.0         # rise, 5.6 long on level 03, seen from its top as the run-up to the dip's other end)
CURL_FRAMES = 900        # the probe's ball is pushed along the run-up for at most 15 s ...
CURL_LAND = 2.0 * BALL_RADIUS   # ... a landing: the ball's node this much above the dip's (over a ball in the dip:
                         # not the curl's foot, where a ball rocking in the dip stays still 2.1 above it) ...
CURL_REST = 20           # ... its centre within CURL_STILL of one height for this many frames, over a node
                         # (within BALL_RADIUS of a ball resting on it: not the top of its throw)
CURL_STILL = 0.5
CURL_FELL = 10.0         # the probe stops once the ball is this far below the dip


def curl_runs(walk: WalkMap) -> list:
    """(dip node, unit way (x, 0, z) along the rails toward the curl, run-up
    node) of each curl: a rail pair's midpoint at the end of its dip (every
    midpoint CURL_STEP ahead within CURL_SIDE of its line is more than
    CURL_SAG higher) with rail faces more than CURL_RISE above it within
    CURL_AHEAD ahead, between its rails (``walk.posts``, a rail's faces
    that are not its top), and back along the straight stretch of
    midpoints rising from it (``back``) its top, at least CURL_RISE above
    the dip (the fall that takes a ball up the curl) and CURL_LONG back
    along the way; the way from there to the dip."""
    mids = np.flatnonzero(walk.span)
    if walk.posts is None or len(mids) < 2:
        return []
    axes = walk.rail_axes
    p = walk.points
    tree = cKDTree(p[mids][:, (0, 2)])
    faces = walk.posts.data
    best = {}

    def near(m, w, line):
        """The midpoints CURL_STEP[1] of m, how far each lies back along -w
        and how far off the line through ``line`` along w."""
        out = mids[tree.query_ball_point(p[m, (0, 2)], CURL_STEP[1])]
        d = p[out] - p[m]
        return out, d[:, 1], -(d[:, 0] * w[0] + d[:, 2] * w[2]), np.abs((p[out, 0] - line[0]) * w[2]
                                                                        - (p[out, 2] - line[2]) * w[0])

    def back(m, w):
        """(midpoint, how far back) of the one farthest back from m along
        -w (CURL_STEP) within CURL_SIDE of the line through m along w, not
        lower than m by more than CURL_SAG and no steeper than STEEPEST;
        where none is, the top of a step straight above m, its rails
        running the same way (level 03's A02_Rail_05 drops 7.7 at once
        halfway down; a rail pair crossing above runs across); None if none."""
        there, dy, gone, off = near(m, w, p[m])
        ok = (gone >= CURL_STEP[0]) & (off <= CURL_SIDE) & (dy >= -CURL_SAG) & (dy <= STEEPEST * gone + 0.5)
        if ok.any():
            return int(there[np.argmax(np.where(ok, gone, -np.inf))]), float(gone[ok].max())
        step = ((np.abs(gone) < CURL_STEP[0]) & (off <= CURL_SIDE) & (dy > BALL_RADIUS)
                & (np.abs(axes[there] @ w[[0, 2]]) >= RAIL_END))
        return (int(there[np.argmax(np.where(step, dy, -np.inf))]), 0.0) if step.any() else None

    for m in mids:
        for sign in (1.0, -1.0):
            w = sign * np.array([axes[m, 0], 0.0, axes[m, 1]])
            _, dy, gone, off = near(m, w, p[m])
            if ((-gone >= CURL_STEP[0]) & (off <= CURL_SIDE) & (dy <= CURL_SAG)).any():
                continue                                 # a midpoint ahead as low: not the dip's end
            d = faces - p[m]
            if not ((np.abs(d[:, 0] * w[0] + d[:, 2] * w[2]) <= CURL_AHEAD)
                    & (np.abs(d[:, 0] * w[2] - d[:, 2] * w[0]) <= SPAN_MID / 2.0 + 0.5) & (d[:, 1] >= CURL_RISE)).any():
                continue
            start, gone = m, 0.0
            while gone < CURL_RUN and (step := back(start, w)) is not None:
                start, gone = step[0], gone + step[1]
            way = (p[m] - p[start]) * (1.0, 0.0, 1.0)
            if p[start, 1] - p[m, 1] >= CURL_RISE and np.linalg.norm(way) >= CURL_LONG:
                key = (int(np.round(p[m, 0] / CURL_AHEAD)), int(np.round(p[m, 2] / CURL_AHEAD)), sign)
                if key not in best or p[start, 1] > p[best[key][2], 1]:    # one per dip's end and way
                    best[key] = (int(m), way / np.linalg.norm(way), start)
    return list(best.values())


def add_curls(walk: WalkMap, landings) -> None:
    """The measured curls as links of ``walk``'s graph: ``landings``, (run-up
    node, landing node, kind, unit way) for each kind that landed; their
    cost the run-up's length and the way back to the landing. ``walk.curls``:
    (run-up node, landing node) -> unit way of the push."""
    n, p = len(walk.points), walk.points
    walk.curls = {(s, land): way for s, land, _, way in landings}
    if not landings:
        return
    s, land, kinds = (np.array(c) for c in zip(*[(s, land, KIND_NAMES.index(k)) for s, land, k, _ in landings]))
    ends = np.array([float(np.linalg.norm(p[a] - p[b])) for a, b in zip(s, land)])
    walk.add_links(kinds * n + s, kinds * n + land, ends)


def rest_point(walk: WalkMap, node: int) -> np.ndarray:
    """A ball's centre resting on a node (between a rail pair's rails over a midpoint)."""
    return walk._centre(np.array([node]))[0]


def landing(walk: WalkMap, track, dip: int, way):
    """The node a probe's ball came to rest on, from its centres frame by
    frame (``track``): after it passed the dip along ``way``, the first
    CURL_REST frames in a row within CURL_STILL of one height, the ball then
    within BALL_RADIUS of its rest on a node (of its 8 nearest, the nearest
    to that rest, not a rail of a pair: the ball pushed on presses against
    one, between them) more than CURL_LAND above the dip's; None when there
    are none."""
    track = np.asarray(track)
    y = track[:, 1]
    past = np.flatnonzero((track - walk.points[dip]) @ way >= 0.0)
    for i in range(past[0] if len(past) else len(track), len(track) - CURL_REST):
        if np.ptp(y[i:i + CURL_REST]) <= CURL_STILL:
            centre = track[i + CURL_REST]
            _, nodes = walk.tree.query(centre - (0.0, BALL_RADIUS, 0.0), k=8)
            off = np.where(walk.paired[nodes], np.inf, np.linalg.norm(walk._centre(nodes) - centre, axis=1))
            node = int(nodes[np.argmin(off)])             # the one it rests on (a midpoint, not a rail of its pair)
            if walk.points[node, 1] > walk.points[dip, 1] + CURL_LAND and off.min() <= BALL_RADIUS:
                return node
    return None


def held_push(ctx, player, kind: str, at, way) -> SetPhysicsForce:
    """The player's ball of ``kind`` put at rest at ``at``, its navigation
    force (per PSI, as a key pushes it) held along ``way``: the force
    (destroy it when done)."""
    player.spawn(kind, tuple(at))
    force = SetPhysicsForce(player.ball, ctx, position=(0.0, 0.0, 0.0), pos_referential=player.ball,
                            direction=tuple(way), force_value=BALL_KINDS[kind].force)
    force.create()
    return force
