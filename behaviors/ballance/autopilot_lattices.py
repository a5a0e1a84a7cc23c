"""Lattices: a rail pair that stops at blocks in its way and goes on past
them in line (issue 40 item 3; docs/levels.md "Autopilot", "Lattices").

Level 12's ``A04_Rail_02`` stops for 20 at each of three lattices of blocks
(``A04_Floor_03``: cubes stood on an edge, every face at 45 degrees, their
tips up to 4.6 above the rails' tops) and goes on beyond them in line, 2.6
lower. Measured on the engine: a wood or a paper ball put at rest between
the rails 21 before the blocks at x 934 and pushed along the rails' line at
full push rolls over the blocks and comes down between the rails beyond
(x 914), riding on; a stone ball stops against the first block. The map
cannot tell that from the geometry (the blocks' tops are faces at 45
degrees, its route climbed one where the paper ball stuck 24 times), so
each such gap is found in the map (``lattice_runs``: a pair's last
midpoint, faces above the ball's centre on its line ahead, and another
pair's first midpoint within LATTICE_GAP beyond, in line) and measured per
kind on the world before the run (``lattice_crossings``: the ball put at
rest at the run-up's start and pushed along the line at full push, where
it comes down on the pair beyond), a link from the run-up's start to that
landing for the kinds that cross (``add_lattices``). The steering takes it
as a curl's throw: full push along the way until the ball is on its
landing (``Pilot.curl``).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from .autopilot_curls import held_push, rest_point
from .autopilot_map import RAIL_END, REACH, SPAN_DIP, SPAN_MID, WalkMap
from .balls import player_of
from .values import BALL_RADIUS, KIND_NAMES

LATTICE_GAP = (REACH, 30.0)   # the pair beyond starts this far past the end (level 12's: 20; nearer, a link)
LATTICE_SIDE = 1.0       # ... within this of the end's line (level 12's: 0.6), its rails within 15 degrees ...
LATTICE_FALL = 5.0       # ... and at most this lower or LATTICE_RISE higher (level 12's: 2.6 lower)
LATTICE_RISE = 0.5
LATTICE_RUN = 20.0       # the run-up: this far back along the pair from its end (level 12's probe: 21)
LATTICE_IN = 4.0         # a landing: a midpoint of the pair beyond at least this past its start ...
LATTICE_AT = 1.5         # ... the ball's centre within BALL_RADIUS across and this in height of its rest there
LATTICE_FRAMES = 600     # the probe pushes for at most 10 s ...
LATTICE_FELL = 10.0      # ... or until the ball is this far below the lower pair


def _way(walk: WalkMap, mids, tree, m, axis) -> np.ndarray:
    """The unit way (x, 0, z) of the rail pair at midpoint m along ``axis``:
    the mean of its midpoints' axes within LATTICE_RUN (as high within 1),
    turned along ``axis`` (at a pair's end one midpoint's axis is off: level
    12's last before the blocks 9 degrees)."""
    near = mids[tree.query_ball_point(walk.points[m, (0, 2)], LATTICE_RUN)]
    a = walk.rail_axes[near[np.abs(walk.points[near, 1] - walk.points[m, 1]) <= 1.0]]
    a = (a * np.sign(a @ axis)[:, None]).sum(axis=0)
    return np.array([a[0], 0.0, a[1]]) / float(np.hypot(a[0], a[1]))


def _ahead(walk: WalkMap, mids, tree, m, w):
    """The midpoints within LATTICE_GAP[1] of m: how far each lies ahead along
    w and off the line through m along w, and its height over m's."""
    near = mids[tree.query_ball_point(walk.points[m, (0, 2)], LATTICE_GAP[1] + BALL_RADIUS)]
    d = walk.points[near] - walk.points[m]
    return near, d[:, 0] * w[0] + d[:, 2] * w[2], np.abs(d[:, 0] * w[2] - d[:, 2] * w[0]), d[:, 1]


def _pair_mids(walk: WalkMap) -> np.ndarray:
    """The midpoints between two rails (not two floors' edges: a lattice's
    blocks make such midpoints on and between them): a rail's node within
    SPAN_MID / 2 + 0.5 either side, as high within 0.5."""
    mids, tops = np.flatnonzero(walk.span), np.flatnonzero(walk.rail)
    if len(mids) == 0 or len(tops) == 0:
        return mids
    p = walk.points
    near = cKDTree(p[tops]).query_ball_point(p[mids], SPAN_MID / 2.0 + 0.5)
    keep = np.zeros(len(mids), bool)
    for i, (m, there) in enumerate(zip(mids, near)):
        d = p[tops[there]] - p[m]
        d = d[np.abs(d[:, 1]) <= 0.5][:, (0, 2)]
        d = d[np.linalg.norm(d, axis=1) >= SPAN_MID / 2.0 - 0.5]
        u = d / np.linalg.norm(d, axis=1)[:, None] if len(d) else d
        keep[i] = len(u) > 1 and float((u @ u.T).min()) < -0.8
    return mids[keep]


def lattice_runs(walk: WalkMap) -> list:
    """(run-up node, unit way (x, 0, z), the pair beyond's first midpoint)
    of each lattice: a rail pair's last midpoint (``_pair_mids``) along a way (none ahead
    within REACH on its line) with faces (``walk.solid``) higher than a
    ball's centre resting there within SPAN_MID / 2 of its line before the
    pair beyond (blocks in the way, not a gap a ball falls into or rolls
    over), that pair's first midpoint LATTICE_GAP ahead on the line (within
    LATTICE_SIDE), its rails within 15 degrees of the way, LATTICE_FALL
    lower to LATTICE_RISE higher; the run-up's start the midpoint on the
    line LATTICE_RUN back (the farthest back within it)."""
    mids = _pair_mids(walk)
    if len(mids) < 2:
        return []
    p, axes = walk.points, walk.rail_axes
    tree = cKDTree(p[mids][:, (0, 2)])
    out = {}
    for m in mids:
        for sign in (1.0, -1.0):
            w = _way(walk, mids, tree, m, sign * axes[m])
            near, along, off, dy = _ahead(walk, mids, tree, m, w)
            line = off <= LATTICE_SIDE
            if (line & (along > 0.0) & (along <= REACH)).any():
                continue                                  # not the pair's end
            far = (line & (along >= LATTICE_GAP[0]) & (dy >= -LATTICE_FALL) & (dy <= LATTICE_RISE)
                   & (np.abs(axes[near] @ w[[0, 2]]) >= RAIL_END))
            if not far.any():
                continue
            start = int(near[np.argmin(np.where(far, along, np.inf))])
            gap = float(np.min(along[far]))
            centre = p[m, 1] + BALL_RADIUS - SPAN_DIP
            d = walk.solid.data - p[m]
            ahead = d[:, 0] * w[0] + d[:, 2] * w[2]
            if not ((ahead > 0.0) & (ahead < gap) & (np.abs(d[:, 0] * w[2] - d[:, 2] * w[0]) <= SPAN_MID / 2.0)
                    & (walk.solid.data[:, 1] > centre)).any():
                continue                                  # nothing in the way: the map's own links
            back = line & (along < 0.0) & (along >= -LATTICE_RUN) & (np.abs(dy) <= LATTICE_RISE + 0.5)
            run = int(near[np.argmin(np.where(back, along, np.inf))]) if back.any() else int(m)
            out.setdefault((start, sign), (run, w, start))
    return list(out.values())


def lattice_crossings(ctx, walk: WalkMap, runs, frames) -> list:
    """Each lattice's landing per kind, measured on ``ctx`` itself (the caller
    builds the world again after; its level's first ball in play, its death
    boxes off): the ball put at rest at the run-up's start, its navigation
    force (per PSI, as a key pushes it) held along the way for at most
    LATTICE_FRAMES, until it falls LATTICE_FELL below the pair beyond or is
    on a landing (``_landed``): (run-up node, landing node, kind, way) of
    those that land. ``frames(ctx, n)`` plays n frames without keys."""
    player, out, mids = player_of(ctx), [], _pair_mids(walk)
    for run, way, start in runs:
        beyond = _beyond(walk, mids, start, way)
        for kind in KIND_NAMES:
            force = held_push(ctx, player, kind, rest_point(walk, run), way)
            for _ in range(LATTICE_FRAMES):
                frames(ctx, 1)
                if player.ball is None:
                    break
                centre = np.asarray(player.ball.get_position(), float)
                if centre[1] < walk.points[start, 1] - LATTICE_FELL:
                    break
                if (node := _landed(walk, centre, beyond)) is not None:
                    out.append((run, node, kind, way))
                    break
            force.destroy_now(ctx)
            player.remove()
    return out


def _beyond(walk: WalkMap, mids, start: int, way) -> np.ndarray:
    """The landings of a lattice whose pair beyond starts at ``start``: the
    pairs' midpoints (``mids``) LATTICE_IN to LATTICE_IN + LATTICE_RUN past
    it along ``way``, within LATTICE_SIDE of the line."""
    d = walk.points[mids] - walk.points[start]
    past = d[:, 0] * way[0] + d[:, 2] * way[2]
    off = np.abs(d[:, 0] * way[2] - d[:, 2] * way[0])
    return mids[(past >= LATTICE_IN) & (past <= LATTICE_IN + LATTICE_RUN) & (off <= LATTICE_SIDE)]


def _landed(walk: WalkMap, centre, beyond):
    """The node of ``beyond`` (_beyond) a ball with ``centre`` is on: its
    centre within BALL_RADIUS across and LATTICE_AT in height of its rest
    over it (the nearest); None when there is none."""
    d = walk._centre(beyond) - centre
    across = np.hypot(d[:, 0], d[:, 2])
    ok = (across <= BALL_RADIUS) & (np.abs(d[:, 1]) <= LATTICE_AT)
    return int(beyond[np.argmin(np.where(ok, across, np.inf))]) if ok.any() else None


def add_lattices(walk: WalkMap, landings) -> None:
    """The measured lattices as links of ``walk``'s graph, each at the length
    from its run-up's start to its landing, and as the steering's curls
    ((run-up node, landing node) -> unit way: a throw at full push)."""
    n, p = len(walk.points), walk.points
    walk.curls.update({(s, land): way for s, land, _, way in landings})
    if not landings:
        return
    s, land, kinds = (np.array(c) for c in zip(*[(s, land, KIND_NAMES.index(k)) for s, land, k, _ in landings]))
    walk.add_links(kinds * n + s, kinds * n + land, np.linalg.norm(p[s] - p[land], axis=1))
