"""Room to stop after a drop, in the autopilot's map (issue 40; docs/levels.md
"Autopilot", "Landings").

A ball dropping off an edge lands with the speed across that took it over
the gap, and on a sloping floor with the part of its fall's speed the floor
turns along it: it rolls on that way until its push brakes it. Level 03's
sector 1 dropped 25 off the ramp east of the start, 17.7 across, onto the
strip ``A01_Floor`` running north 10 wide below it: the stone ball came
down at 13.5 units/s across (its fall's 26.4 turned 5 more along the strip's
slope), rolled 11.6 east braking and fell off the strip's far side, 24
times with every steering. A drop lands only where the floor runs on along
that way far enough for the kind's push to stop the ball there.
"""

from __future__ import annotations

import math

import numpy as np

from .values import BALL_KINDS, BALL_RADIUS, ROLLING

RUN_STEP = 0.025     # the roll on from a landing is followed this many seconds a step ...
RUN_FIND = 1.5       # ... on the node nearest the ball's floor point, this near at most ...
RUN_TIME = 5.0       # ... for at most this many seconds (a floor that long is room enough) ...
STOPPED = 0.5        # ... until it is this slow
EDGE_ROLL = BALL_RADIUS * math.sqrt(1.0 - (10.0 / 17.0) ** 2)   # a rolling ball rounds an edge's corner
# till it leaves it at cos = 10/17 from the top, its centre this far (1.6) past the corner: it flies the rest


def landing_velocity(walk, a, b, kind: str) -> np.ndarray:
    """Per drop from node ``a`` to node ``b`` (arrays) as ``kind``: the ball's
    velocity across (x, z) just after it lands. In the air its damping k
    slows it alike on both axes, so a ball leaving at s goes s C across, C
    = -vy / g of the vertical speed it lands with, and lands at s (1 - k C)
    (autopilot_map.Flight.reach); its push held goes its Flight's reach
    from rest, P, and lands at g C P / fall. The ball goes across with the
    push's part first (P at most) and the rest at the speed s it leaves
    with. It flies from EDGE_ROLL past ``a`` (it rolls round the corner
    first: level 06's wood drop 2.5 off a bridge 2.8 across onto a strip
    crosswise is flown 1.2, not 2.8, and lands at 5.3 units/s, not 8.5,
    stopping before the strip's far edge). Then the part of its velocity
    into the landing floor (its face falling along ``walk.downhill``) is
    lost: the floor turns some of the fall along itself."""
    flight, k = walk.flights[kind], BALL_KINDS[kind].linear_damping
    start, end = walk._centre(a), walk._centre(b)
    fall = np.maximum(start[:, 1] - end[:, 1], 1e-9)
    down = -np.interp(fall, flight.fall, flight.vy)
    carry = np.maximum(down / walk.gravity, 1e-3)
    way = (end - start)[:, (0, 2)]
    gap = np.linalg.norm(way, axis=1)
    across = np.maximum(gap - EDGE_ROLL, 0.0)
    pushed = np.minimum(np.interp(fall, flight.fall, flight.flat), across)
    speed = ((across - pushed) / carry * np.maximum(1.0 - k * carry, 0.0)
             + walk.gravity * carry * pushed / fall)
    v = way / np.maximum(gap, 1e-9)[:, None] * speed[:, None]
    d = walk.downhill[b]
    into = (down - (v * d).sum(axis=1)) / (1.0 + (d * d).sum(axis=1))
    return v + into[:, None] * d


def overruns(walk, a, b, kind: str) -> np.ndarray:
    """Per drop from ``a`` to ``b`` as ``kind``: does the ball roll off its
    landing's floor before it stops? From the landing at its velocity
    (landing_velocity) it rolls on the map's nodes, RUN_STEP of time a step:
    5/7 of g sin(slope) down the face of the node under it (the nearest
    within RUN_FIND of its floor point; a trough's sides turn it back), 5/7
    of its push (F / m) braking it. It is held where it slows to STOPPED
    within RUN_TIME; it overruns where no node is under it, unless the face
    it left falls along its way more steeply than its push holds it on (the
    floor's own way down, off its lower end: level 03's steep trough at x
    1000, dropped down in hops). A landing between a rail pair's rails or
    on a rail is held (the rails lead the ball along)."""
    v = landing_velocity(walk, a, b, kind)
    push, hold = walk.holds[kind] * walk.gravity, walk.climb.get(kind, math.inf)
    q = walk.points[b].copy()
    off = np.zeros(len(b), bool)
    live = np.flatnonzero(~walk.rail[b] & ~walk.span[b])
    last = b.copy()
    for _ in range(int(RUN_TIME / RUN_STEP)):
        live = live[np.linalg.norm(v[live], axis=1) > STOPPED]
        if not len(live):
            break
        q[live, 0] += RUN_STEP * v[live, 0]
        q[live, 2] += RUN_STEP * v[live, 1]
        d, i = walk.tree.query(q[live], distance_upper_bound=RUN_FIND)
        found = np.isfinite(d)
        gone = live[~found]
        way = v[gone] / np.linalg.norm(v[gone], axis=1)[:, None]
        off[gone] = (walk.downhill[last[gone]] * way).sum(axis=1) <= hold
        live, i = live[found], i[found]
        last[live] = i
        q[live, 1] = walk.points[i, 1]
        down = walk.downhill[i]
        sine = 1.0 / np.sqrt(1.0 + 1.0 / np.maximum((down * down).sum(axis=1), 1e-12))
        fall = down / np.maximum(np.linalg.norm(down, axis=1), 1e-9)[:, None] * sine[:, None] * walk.gravity
        speed = np.linalg.norm(v[live], axis=1)[:, None]
        v[live] += RUN_STEP * ROLLING * (fall - push * v[live] / speed)
    return off
