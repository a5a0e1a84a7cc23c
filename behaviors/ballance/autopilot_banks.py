"""Banks: a window in a trough's floor crossed along its banked side
(issue 40 item 3; docs/levels.md "Autopilot", "Banks").

Level 07's ``A01_Modul16`` (the same module is level 05's ``A03_Modul16``
and level 08's ``A02_Modul_16``) is a trough about 11 wide whose sides rise
at 40 to 70 degrees to walls 5.4 above its bottom; over 10 of its length
(x 292 to 302) its bottom is cut out between the sides' feet, 5.8 apart,
and the way along the level's north strip goes through it. Measured on
the engine: a ball pushed along the trough at full push from rest 26
before the window (about 24 units/s there) falls through it; pushed also
toward a side from where the sides begin (a diagonal: two keys), a paper
or a wood ball rides along that side's bank over the window and rolls on
beyond (wood at about 24 units/s, its centre 1.3 to 3.0 above the bottom,
2.1 off the trough's middle). The map cannot tell that from the geometry
(the banks are steeper than wood holds at rest; a ball's centre over a
bank node is in the wall behind it), so each window is found in the map
(``bank_runs``: two floor edges level with each other across a gap with
floor faces rising beside it all the way along one side) and measured
per kind and side on the world before the run (``bank_crossings``), a
link from the run-up's start to the window's far edge for the kinds that
cross (``add_banks``). The steering (``bank_keys``) pushes along the way
at full push, and from where the bank begins also toward it, as measured.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from bbglue.blocks import SetPhysicsForce

from .autopilot_curls import held_push, rest_point
from .autopilot_map import EDGE_FIND, REACH, WalkMap
from .balls import player_of
from .values import BALL_KINDS, BALL_RADIUS, KIND_NAMES

BANK_GAP = (REACH, 14.0)     # a window: two floor edges this far apart (level 07's: 10) ...
BANK_LEVEL = 0.5             # ... as high as one another within this, with no floor node within EDGE_FIND of
BANK_FLOOR = (2.0, 0.5)      # ... the way between this far below to this far above them ...
BANK_SIDE = (3.5, 1.5)       # ... and a bank beside it: a node this far off the way ...
BANK_RISE = 2.0              # ... and this much higher than the edges, each within the second, at every unit
                             # of the gap (level 07's: 2.8 to 3.8 off, 1.0 to 2.3 up)
BANK_RUN = 30.0              # the run-up: floor this far back from the near edge at most (a leap's, LEAP_RUN) ...
BANK_MIN_RUN = 10.0          # ... and at least this
BANK_FRAMES = 600            # the probe pushes for at most 10 s ...
BANK_FELL = 4.0              # ... or until the ball is this far below the edges
BANK_AT = 1.5                # a crossing: the ball's centre past the far edge, at most this below its rest there
BANK_COST = 10.0             # a bank ride's extra cost (a miss is a death)


def _floor_along(walk: WalkMap, start, u, steps, level: float) -> np.ndarray:
    """Per step along ``u`` from ``start`` (x, z): the floor under it within
    BANK_FLOOR of ``level`` (inf where none)."""
    q = np.asarray(start, float)[None, :] + np.outer(steps, u)
    y = walk._floor_under(walk.flat_tree, q, np.full(len(q), level - BANK_FLOOR[0]))
    return np.where(y <= level + BANK_FLOOR[1], y, np.inf)


def _banked(walk: WalkMap, start, u, side: float, steps, level: float) -> np.ndarray:
    """Per step along ``u`` from ``start`` (x, z): whether a node lies
    BANK_SIDE[0] off the way on ``side`` (+1: left) and BANK_RISE above
    ``level``, each within BANK_SIDE[1] (a cube)."""
    n = side * np.array([-u[1], u[0]])
    q = np.asarray(start, float)[None, :] + np.outer(steps, u) + n * BANK_SIDE[0]
    at = np.c_[q[:, 0], np.full(len(q), level + BANK_RISE), q[:, 1]]
    return np.isfinite(walk.tree.query(at, p=np.inf, distance_upper_bound=BANK_SIDE[1])[0])


def bank_runs(walk: WalkMap) -> list:
    """(run-up node, window's far edge node, unit way (x, 0, z), the bank's
    side (+1 left of the way), how far along the run-up the bank begins) of
    both sides of each window: two floor edges (not a rail pair's midpoints)
    BANK_GAP apart and BANK_LEVEL level, no floor between them
    (BANK_FLOOR), a bank (``_banked``) on both sides the whole way over
    the gap (a trough's), floor behind the near edge BANK_MIN_RUN to
    BANK_RUN back (the run-up's start: the node there) and beyond the far
    edge. One way per far edge (within 6) and octant: the one nearest the
    octant's axis, then the longest run-up; both sides of it."""
    p = walk.points
    edge = np.flatnonzero((walk.empty_sides > 0) & ~walk.span)
    if len(edge) < 2:
        return []
    pairs = cKDTree(p[edge][:, (0, 2)]).query_pairs(BANK_GAP[1], output_type="ndarray")
    a, b = np.r_[edge[pairs[:, 0]], edge[pairs[:, 1]]], np.r_[edge[pairs[:, 1]], edge[pairs[:, 0]]]
    out = p[b][:, (0, 2)] - p[a][:, (0, 2)]
    flat = np.linalg.norm(out, axis=1)
    ok = (flat > BANK_GAP[0]) & (np.abs(p[a, 1] - p[b, 1]) <= BANK_LEVEL)
    a, b, out, flat = a[ok], b[ok], out[ok], flat[ok]
    ts = np.linspace(0.0, 1.0, int(np.ceil(BANK_GAP[1])) + 1)[1:-1]
    for t in ts[np.argsort(np.abs(ts - 0.5))]:           # the middle first: most pairs have floor there
        q = p[a][:, (0, 2)] + out * t
        d, i = walk.flat_tree.query(q, k=8, distance_upper_bound=EDGE_FIND)
        y = p[np.minimum(i, len(p) - 1), 1] - p[a, 1][:, None]
        floor = np.isfinite(d) & (y >= -BANK_FLOOR[0]) & (y <= BANK_FLOOR[1])
        inside = (t * flat > EDGE_FIND) & (t * flat < flat - EDGE_FIND)
        gap = ~(inside & floor.any(axis=1))
        a, b, out, flat = a[gap], b[gap], out[gap], flat[gap]
    found = {}
    for i, j, o, f in zip(a, b, out, flat):
        u = o / f
        level = float(p[i, 1])
        inner = np.arange(1.0, f, 1.0)
        if not all(_banked(walk, p[i, (0, 2)], u, side, inner, level).all() for side in (1.0, -1.0)):
            continue
        back = np.arange(1.0, BANK_RUN + 0.5, 1.0)
        run = np.isfinite(_floor_along(walk, p[i, (0, 2)], -u, back, level))
        length = float(back[np.argmin(run)] - 1.0) if not run.all() else BANK_RUN
        if length < BANK_MIN_RUN or not np.isfinite(_floor_along(walk, p[j, (0, 2)], u, [1.0], level)).all():
            continue
        octant = round(float(np.arctan2(u[1], u[0])) / (np.pi / 4.0)) % 8
        axis = np.array([np.cos(octant * np.pi / 4.0), np.sin(octant * np.pi / 4.0)])
        key = (octant, tuple(np.round(p[j, (0, 2)] / 6.0)))
        if key in found and found[key][0] >= (float(u @ axis), length):
            continue
        found[key] = ((float(u @ axis), length), i, j, u, length)
    runs = []
    for _, i, j, u, length in found.values():
        start = int(walk.flat_tree.query(p[i, (0, 2)] - u * length)[1])
        for side in (1.0, -1.0):
            behind = _banked(walk, p[i, (0, 2)], -u, side, np.arange(0.0, length + 0.5, 1.0), float(p[i, 1]))
            press = length - float(np.argmin(behind) - 1 if not behind.all() else length)
            runs.append((start, int(j), np.array([u[0], 0.0, u[1]]), side, max(press, 0.0)))
    return runs


def bank_crossings(ctx, walk: WalkMap, runs, frames) -> list:
    """Each window's crossing per kind, measured on ``ctx`` itself (the
    caller builds the world again after; its level's first ball in play,
    its death boxes off): the ball put at rest at the run-up's start, its
    navigation force held along the way and, from where the bank begins,
    a second one toward it (a diagonal's two keys), for at most
    BANK_FRAMES, until it falls BANK_FELL below the edges or is past the
    far edge at most BANK_AT below its rest there: the runs (``bank_runs``)
    with the kinds that cross. ``frames(ctx, n)`` plays n frames without
    keys."""
    player, out = player_of(ctx), []
    for start, far, way, side, press in runs:
        origin, land = rest_point(walk, start), rest_point(walk, far)
        length = float((land - origin) @ way)
        lean = side * np.array([-way[2], 0.0, way[0]])
        kinds = []
        for kind in KIND_NAMES:
            forces = [held_push(ctx, player, kind, origin, way)]
            for _ in range(BANK_FRAMES):
                frames(ctx, 1)
                if player.ball is None:
                    break
                centre = np.asarray(player.ball.get_position(), float)
                along = float((centre - origin) @ way)
                if len(forces) == 1 and along >= press:
                    forces.append(SetPhysicsForce(player.ball, ctx, position=(0.0, 0.0, 0.0),
                                                  pos_referential=player.ball, direction=tuple(lean),
                                                  force_value=BALL_KINDS[kind].force))
                    forces[-1].create()
                if centre[1] < land[1] - BALL_RADIUS - BANK_FELL:
                    break
                if along >= length and centre[1] >= land[1] - BANK_AT:
                    kinds.append(kind)
                    break
            for f in forces:
                f.destroy_now(ctx)
            player.remove()
        if kinds:
            out.append((start, far, way, side, press, tuple(kinds)))
    return out


def add_banks(walk: WalkMap, crossings) -> None:
    """The measured crossings as links of ``walk``'s graph (the run-up's
    start to the far edge, at their distance and BANK_COST) for the kinds
    that cross, and as the steering's bank rides: ``walk.banks`` (run-up
    node, far edge node) -> (unit way, unit push toward the bank, how far
    along the way the push toward it begins)."""
    n, p = len(walk.points), walk.points
    walk.banks = {}
    for start, far, way, side, press, kinds in crossings:
        walk.banks[start, far] = (way, side * np.array([-way[2], 0.0, way[0]]), press)
        k = np.array([KIND_NAMES.index(kind) for kind in kinds])
        walk.add_links(k * n + start, k * n + far, np.full(len(k), np.linalg.norm(p[start] - p[far]) + BANK_COST))
