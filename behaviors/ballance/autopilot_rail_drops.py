"""Rail drops: a single rail that ends over another single rail in line far
below (issue 40 item 3; docs/levels.md "Autopilot", "Rail drops").

Level 12's ``A05_Rail_02`` runs on alone from its pair to its end at
(733.8, 34.3, 304.7); 283 lower ``A05_Rail_03`` starts 3.1 beyond in the
same line (a flat top facet 0.27 wide) and runs 120 on to the paper
transformer; the stone transformer before the single rail spans the whole
way, so the ball that falls is stone. Measured on the engine: a stone ball
rolled off the end with no keys lands 0.2 to 0.3 off the line and falls
off (its rebound of 3 carries it over the facet's edge); dropped straight
from rest it stays only from 733.62 to 733.65 across; steered in the fall
as on a rail (``autopilot_rails.rail_keys`` against the lower rail's line,
8 units/s along) it lands on the line and rides on, stone and wood alike
(stone from 8 units/s at z 361.7, wood at 412.9). The map's drops reach
MAX_DROP down and have no such fall, so each is found in the map
(``rail_drops``: a single rail's end with a single rail in line more than
MAX_DROP below starting within RAIL_DROP_START beyond) and measured per
kind on the world before the run (``rail_drop_landings``: the ball put at
rest RAIL_DROP_RUN back on the upper rail, steered with the keys as on a
rail, the lower rail's line once it is off the upper one), a link from
the end to the landing for the kinds that land and stay (``add_rail_drops``).
In play the steering is the single rails' own: the route's nodes ahead
are on the two rails' line, above it in the fall as well.
"""

from __future__ import annotations

import math

import numpy as np

from ivp.snapshot import build, flatten

from ..api import manager_of
from .autopilot_curls import held_push, rest_point
from .autopilot_map import MAX_DROP, REACH, WalkMap
from .autopilot_rails import (FRAME_S, RAIL_GAIN, RAIL_OFF, RAIL_SIDE_SPEED, RAIL_SPEED, RAIL_WEIGHT, _offset,
                              rail_keys)
from .balls import Transformers, player_of
from .navigation import BallNavigation
from .values import BALL_RADIUS, KIND_NAMES

RAIL_DROP_SIDE = 0.5     # the lower rail's nodes within this of the upper rail's line (level 12's: 0.1) ...
RAIL_DROP_START = 10.0   # ... the nearest at most this far beyond the end (level 12's: 3.1) ...
RAIL_DROP_REACH = 200.0  # ... its landings at most this far beyond (level 12's rail: 123)
RAIL_DROP_RUN = 8.0      # the probe's run-up on the upper rail (the ball put at rest this far back)
RAIL_DROP_FRAMES = 1200  # ... steered for at most 20 s (level 12's paper ball falls 283 in 11 s) ...
RAIL_DROP_STAY = 120     # ... a landing: on the lower rail this many frames after it first touched it
RAIL_DROP_AT = 0.5       # ... its centre this near its rest over the line (height)
RAIL_DROP_WAIT = 600     # the probe waits at most this many frames for the keys to move the ball


def rail_drops(walk: WalkMap, lines) -> list:
    """(end node, unit way (x, z), lower nodes) of each single rail's end
    (a node of ``walk._single_rails()`` with none of them ahead within
    REACH on its line, ``lines``' line through it) over a single rail in
    line (its nodes within RAIL_DROP_SIDE of the line, more than MAX_DROP
    lower, from within RAIL_DROP_START to RAIL_DROP_REACH ahead)."""
    single = np.flatnonzero(walk._single_rails())
    if len(single) < 2:
        return []
    p = walk.points
    out = []
    for s in single:
        line = lines.line(p[s])
        if line is None:
            continue
        for u in (line[1], -line[1]):
            d = p[single] - p[s]
            ahead = d[:, 0] * u[0] + d[:, 2] * u[1]
            off = np.abs(d[:, 0] * u[1] - d[:, 2] * u[0])
            if ((ahead > 0.0) & (ahead <= REACH) & (off <= RAIL_DROP_SIDE) & (np.abs(d[:, 1]) <= MAX_DROP)).any():
                continue                                  # not the rail's end that way
            below = (ahead > 0.0) & (ahead <= RAIL_DROP_REACH) & (off <= RAIL_DROP_SIDE) & (d[:, 1] < -MAX_DROP)
            if below.any() and ahead[below].min() <= RAIL_DROP_START:
                out.append((int(s), np.asarray(u, float), single[below]))
    return out


def rail_drop_landings(ctx, walk: WalkMap, lines, drops, pushes, acceleration, step) -> list:
    """Each rail drop's landing per kind, measured on copies of ``ctx`` (its
    level's first ball in play, its death boxes off; ``ctx`` is left as it
    was), each kind on a fresh copy (``_dropped``). ``pushes(ctx)``: the
    key sets' pushes; ``acceleration(kind, physics)``: the kind's F / m;
    ``step(ctx, keys)`` plays a frame. The keys move the
    ball once the navigation is on and no transformer is swapping the ball
    (a swap turns it off, and on again only at its end: a ball put in play
    meanwhile ends the swap, the navigation left off); ``ctx`` is played
    until then, at most RAIL_DROP_WAIT frames. (end node, landing node,
    kind) of those that land."""
    manager = manager_of(ctx, create=False)
    nav = manager.find(BallNavigation)[0]

    def ready() -> bool:
        return nav.on and all(t.swapping is None for t in manager.find(Transformers))

    for _ in range(RAIL_DROP_WAIT):
        if ready():
            break
        step(ctx, frozenset())
    if not ready():
        return []
    table, out = flatten(ctx), []
    for end, u, lower in drops:
        start = _run_up(walk, lines, end, u)
        low = lines.line(walk.points[lower[0]])
        if start is None or low is None:
            continue
        for kind in KIND_NAMES:
            at = _dropped(build(table), lines, kind, start, u, low, walk.points[lower], pushes, acceleration, step)
            if at is not None:
                out.append((end, int(lower[np.argmin(np.linalg.norm(walk.points[lower] - at, axis=1))]), kind))
    return out


def _dropped(ctx, lines, kind: str, start, u, low, lower, pushes, acceleration, step):
    """Where a ball of ``kind`` rolled off the upper rail lands on the lower
    one (``low``: its line; ``lower``: its nodes), on the world ``ctx``:
    put at rest at ``start``, each frame the keys ``rail_keys`` gives
    against the line of the rail under it, in the air the lower rail's (the
    push's F / m there, not ROLLING of it: the ball flies), at RAIL_SPEED
    along. Its centre where it first touched the lower rail when
    RAIL_DROP_STAY frames later it rests on that rail's line, or has ridden
    it past its last node; None when it does not."""
    player = player_of(ctx)
    held_push(ctx, player, kind, start, (u[0], 0.0, u[1])).destroy_now(ctx)
    top, last = float(lower[:, 1].max()), float((lower[:, (0, 2)] @ u).max())
    push = acceleration(kind, ctx.physics)
    touched = None
    for f in range(RAIL_DROP_FRAMES):
        if player.ball is None:
            return None
        c = np.asarray(player.ball.get_position(), float)
        if c[1] < top + BALL_RADIUS - RAIL_DROP_AT - 1.0:
            return None                                   # fell past the lower rail
        if touched is None and c[1] <= top + BALL_RADIUS + RAIL_DROP_AT:
            touched = (f, c)
        if touched is not None and float(c[[0, 2]] @ u) > last:
            return touched[1]                             # rode the lower rail to its end
        if touched is not None and f - touched[0] >= RAIL_DROP_STAY:
            return touched[1] if _on_line(c, low, top) else None
        under = lines.line(c - (0.0, BALL_RADIUS, 0.0))
        v = np.asarray(ctx.physics.body_of(player.ball).core.speed, float) * (1.0, 0.0, 1.0)
        step(ctx, rail_keys(under, c, v, pushes(ctx), push, RAIL_SPEED) if under is not None
             else air_keys(low, c, v, pushes(ctx), push))
    return None


def air_keys(line, ball, velocity, pushes, push: float) -> frozenset:
    """The keys in the fall onto a rail's ``line`` for a ball at ``ball``
    moving at ``velocity`` (horizontal): of ``pushes`` ((keys, unit push))
    and none, the one whose push (``push``, the kind's F / m: all of it, the
    ball flies) one frame on brings the sideways speed nearest -RAIL_GAIN
    times the offset (at most RAIL_SIDE_SPEED) and leaves the speed along
    as it is, the sideways error weighing RAIL_WEIGHT. (``rail_keys`` with
    ROLLING of the push and its speed along held the stone ball 0.2 off
    the line all the way down: it landed there and its rebound threw it
    off, level 12.)"""
    centre, u = line
    side = np.array([-u[1], u[0]])
    v = np.asarray(velocity, float)[[0, 2]]
    want = -max(-RAIL_SIDE_SPEED, min(RAIL_SIDE_SPEED, RAIL_GAIN * _offset(ball, line)))
    best, keys = math.inf, frozenset()
    for k, unit in [(frozenset(), np.zeros(3))] + list(pushes):
        dv = push * FRAME_S * np.asarray(unit, float)[[0, 2]]
        err = RAIL_WEIGHT * (float((v + dv) @ side) - want) ** 2 + float(dv @ u) ** 2
        if err < best:
            best, keys = err, k
    return keys


def falling_onto(walk: WalkMap, lines, ball):
    """The lower rail's line of the map's rail drop (``walk.rail_drops``:
    end node -> (unit way, lower rail's line)) a ball at ``ball`` is
    falling onto: past the end along its way, within RAIL_DROP_SIDE + a
    ball's radius of its line, between the end's height and the lower
    rail's rest, on no rail; else None."""
    c = np.asarray(ball, float)
    for end, (u, low) in walk.rail_drops.items():
        d = c - walk.points[end]
        if (float(d[[0, 2]] @ u) >= 0.0 and abs(_offset(c, low)) <= RAIL_DROP_SIDE + BALL_RADIUS
                and low[0][1] + BALL_RADIUS + RAIL_DROP_AT < c[1] < walk.points[end, 1] + BALL_RADIUS
                and lines.line(c - (0.0, BALL_RADIUS, 0.0)) is None):
            return low
    return None


def _run_up(walk: WalkMap, lines, end: int, u):
    """A ball's centre at rest on the upper rail RAIL_DROP_RUN back from
    its end along -u (on the rail's line, at the height of the node
    nearest there); None when no node is there."""
    back = walk.points[end] - np.array([u[0], 0.0, u[1]]) * RAIL_DROP_RUN
    d, i = walk.tree.query(back, distance_upper_bound=REACH)
    if not np.isfinite(d):
        return None
    line = lines.line(walk.points[i])
    if line is None:
        return None
    centre, w = line
    q = rest_point(walk, int(i))
    t = float((q[[0, 2]] - centre[[0, 2]]) @ w)
    return np.array([centre[0] + w[0] * t, q[1], centre[2] + w[1] * t])


def _on_line(ball, line, top: float) -> bool:
    """Does a ball with centre ``ball`` rest on the rail of ``line`` (within
    RAIL_OFF of it across, RAIL_DROP_AT of its rest height over ``top``)?"""
    centre, u = line
    d = np.asarray(ball, float)[[0, 2]] - centre[[0, 2]]
    return (abs(float(d[0] * -u[1] + d[1] * u[0])) <= RAIL_OFF
            and abs(float(ball[1]) - top - BALL_RADIUS) <= RAIL_DROP_AT)


def add_rail_drops(walk: WalkMap, lines, drops, landings) -> None:
    """The measured rail drops as links of ``walk``'s graph, each at the
    length from the end to its landing; ``walk.rail_drops``: end node ->
    (unit way, the lower rail's line) of those with a landing."""
    ends = {e for e, _, _ in landings}
    walk.rail_drops = {e: (u, lines.line(walk.points[lower[0]])) for e, u, lower in drops if e in ends}
    if not landings:
        return
    n, p = len(walk.points), walk.points
    end, land, kinds = (np.array(c) for c in zip(*[(e, land, KIND_NAMES.index(k)) for e, land, k in landings]))
    walk.add_links(kinds * n + end, kinds * n + land, np.linalg.norm(p[end] - p[land], axis=1))
