"""The autopilot and the spring lifts (module 03; docs/levels.md "Autopilot").

A lift's platform hangs on a spring (length 0, constant k) on a vertical
slider, held down by its weights, the seven walls and the gate (mass 2
each) standing on its rim (glue-and-content 3): a ball rolls in through
the gate's arch, knocks each weight off the rim, and the spring lifts the
platform with the ball on it by (weights - ball's mass) g / k (level 12's
four in sector 5: a wood ball rises 18.8, the next lift's platform stands
0.3 above the raised one; a stone ball, 8.0). The map has each lift's
platform raised as well (``raised_platforms``) and a link up to it for the
kinds it lifts (``add_spring_lifts``); on the platform the pilot pushes the
weights off one by one, then holds the ball at the middle while it rises
(``clear_lift``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .floors import entity_triangles
from .level_meaning import MODULES
from .values import BALL_KINDS, BALL_RADIUS, KIND_NAMES

SPRING_LIFT = "P_Modul_03"
LIFT_MIN = 3.0         # a platform raised less than this lifts the ball nowhere (a step it rolls up)
LIFT_IN = 3.0          # the map's link goes from the loaded platform's nodes this near its middle ...
ENTRY_STEP = 1.5       # a ball rolls onto a loaded platform over a step of up to this (level 12's lift 01: its
                       # top 1.22 over the floor before its gate; a wood ball pushed at it rolled on)
STEP_RIDE = 0.5 * BALL_RADIUS   # an entry rising more than this is ridden at full push (the step meets the
                       # ball 60 degrees from its top, the impact taking 5h / 7R = 36% of a rolling ball's speed)
LIFT_COST = 30.0       # ... to the raised one's, at this cost (knocking 8 weights off, the rise)
CLEAR_SPEED = 4.0      # the ball rolls at a weight this fast (knocked off the rim, the weight falls; the ball,
                       # 4.4 from the edge then, stops: at full push it followed the wall off, measured)
HOLD = 1.5             # while the platform rises, the ball is held at its middle (LIFT_HOLD of a fan)
RISEN = 0.05           # the platform is up once it rises slower than this (units per simulated second)


@dataclass(frozen=True)
class SpringLift:
    """A spring lift as the autopilot sees it: its platform and weights (names:
    a restored world has new entities), its platform's top's middle loaded
    (at rest, as probed) and the height each kind is lifted."""

    platform: str
    weights: tuple
    middle: tuple
    across: tuple                # (x, z) lowest and highest of its platform, loaded
    rest: float                  # the platform's position's height, loaded
    rises: tuple                 # (kind, rise) of the kinds it lifts more than LIFT_MIN


def _weights(ctx, platform) -> tuple:
    """The names of the weights of ``platform``'s lift: its module's parts
    with a mass other than the platform (the walls and the gate)."""
    placeholder = platform.name.partition(".")[0]
    module = MODULES[SPRING_LIFT]
    suffixes = [p.suffix for p in module.parts if p.role != "platform" and (p.physics or {}).get("mass")]
    return tuple(f"{placeholder}.{SPRING_LIFT}{s}" for s in suffixes if f"{placeholder}.{SPRING_LIFT}{s}" in ctx)


def spring_lifts(ctx, poses: dict, gravity: float) -> list:
    """The level's spring lifts, their platforms loaded as ``poses`` has them
    (probe: at rest with their weights on): a ball of kind m on it is lifted
    (weights' mass - m) g / k once the weights are off (k: the spring's
    constant of the module table)."""
    module = MODULES[SPRING_LIFT]
    suffix = next(p.suffix for p in module.parts if p.role == "platform")
    k = next(j.pins["constant"] for j in module.joints if j.type == "spring")
    mass = {p.suffix: (p.physics or {}).get("mass", 0.0) for p in module.parts}
    out = []
    for platform in (e for e in ctx.entities if e.name.partition(".")[2] == SPRING_LIFT + suffix):
        pose = poses.get(platform.name)
        tris = entity_triangles([platform], {platform.name: pose} if pose is not None else None)
        weights = _weights(ctx, platform)
        if not len(tris) or not weights:
            continue
        load = sum(mass[w.partition(".")[2][len(SPRING_LIFT):]] for w in weights)
        flat = tris.reshape(-1, 3)
        middle = (flat.min(axis=0) + flat.max(axis=0)) * 0.5
        middle[1] = flat[:, 1].max()
        rises = tuple((kind, (load - b.mass) * gravity / k) for kind, b in BALL_KINDS.items()
                      if (load - b.mass) * gravity / k > LIFT_MIN)
        rest = float(pose[3, 1]) if pose is not None else float(platform.get_position()[1])
        across = tuple(flat[:, (0, 2)].min(axis=0)) + tuple(flat[:, (0, 2)].max(axis=0))
        out.append(SpringLift(platform.name, weights, tuple(middle), across, rest, rises))
    return out


def raised_platforms(ctx, lifts: list, poses: dict) -> np.ndarray:
    """The triangles of each lift's platform raised for each kind it lifts,
    the heaviest first; one within 2 BALL_RADIUS of a height already placed
    is not placed again (no ball fits between: level 12's paper and wood
    raise the platform 2.3 apart)."""
    out = [np.zeros((0, 3, 3))]
    for lift in lifts:
        platform = ctx.get(lift.platform)
        pose = poses.get(lift.platform)
        tris = entity_triangles([platform], {lift.platform: pose} if pose is not None else None)
        placed = []
        for _, rise in sorted(lift.rises, key=lambda r: r[1]):
            if all(abs(rise - q) >= 2.0 * BALL_RADIUS for q in placed):
                placed.append(rise)
                out.append(tris + (0.0, rise, 0.0))
    return np.concatenate(out)


def way_out(walk, route, lift: SpringLift, state: int) -> np.ndarray:
    """The horizontal unit way from ``lift``'s middle to where ``route``
    leaves its raised platform, from ``state`` (a raised node's)."""
    x0, z0, x1, z1 = lift.across
    n = len(walk.points)
    for s in route.ahead(state, 4.0 * (x1 - x0 + z1 - z0)):
        q = walk.points[s % n]
        if not (x0 <= q[0] <= x1 and z0 <= q[2] <= z1):
            break
    way = np.array([q[0] - lift.middle[0], 0.0, q[2] - lift.middle[2]])
    return way / (float(np.linalg.norm(way)) or 1.0)


def _middle_nodes(walk, middle, height: float) -> np.ndarray:
    """The map's nodes within LIFT_IN of a platform's middle across, on its top at ``height``."""
    p = walk.points
    near = (np.hypot(p[:, 0] - middle[0], p[:, 2] - middle[2]) <= LIFT_IN) & (np.abs(p[:, 1] - height) <= 0.5)
    return np.flatnonzero(near)


def _entries(walk, lift: SpringLift) -> tuple:
    """(from, to) of the links on and off a lift's loaded platform: between
    its top's nodes and the nodes beside it within the map's REACH, at most
    ENTRY_STEP apart in height, not through a wall (the map's own links
    climb 0.15 between flat floors: the spring gives under the ball's weight,
    and the gate's arch is the way in)."""
    from .autopilot_map import REACH
    p = walk.points
    x0, z0, x1, z1 = lift.across
    top = np.flatnonzero((p[:, 0] >= x0) & (p[:, 0] <= x1) & (p[:, 2] >= z0) & (p[:, 2] <= z1)
                         & (np.abs(p[:, 1] - lift.middle[1]) <= 0.5))
    pairs = [(i, j) for i, near in zip(top, walk.tree.query_ball_point(p[top], REACH)) for j in near
             if j not in set(top) and abs(p[j, 1] - p[i, 1]) <= ENTRY_STEP]
    if not pairs:
        return np.zeros(0, int), np.zeros(0, int)
    a, b = np.array(pairs).T
    a, b = np.r_[a, b], np.r_[b, a]
    ok = ~walk._walled(a, b) & ~walk._through_sides(a, b)
    return a[ok], b[ok]


def step_rides(walk, a, b) -> frozenset:
    """The entries ``a`` -> ``b`` rising more than STEP_RIDE, as the map's
    rides (full push to the end, never braking). Level 12's lift 04 stands
    1.33 over lift 03 raised (the others 0.33 over the one before): the
    steering came at its gate at 8.3 units/s, braked at the step and rolled
    back, 24 times; a wood ball held at full push from rest 2.4 before the
    step rolled onto the platform (measured on the engine). A lower step
    is not ridden: the ball ridden onto the written lift's (0.19) at full
    push ran on into the far walls and stuck on the platform half risen
    (24 rollbacks; none steered)."""
    up = walk.points[b, 1] - walk.points[a, 1] > STEP_RIDE
    return frozenset(zip(a[up].tolist(), b[up].tolist()))


def add_spring_lifts(walk, lifts: list) -> None:
    """Links on and off each lift's loaded platform (_entries), those up a
    step ridden (step_rides), and from its middle's nodes up to the raised
    platform's nearest its kind's rise (within 2 BALL_RADIUS), for each
    kind it lifts; ``walk.spring_tops``: raised node -> its lift."""
    n = len(walk.points)
    rows, cols, costs = [], [], []
    walk.spring_tops, walk.springs = {}, []
    for lift in lifts:
        a, b = _entries(walk, lift)
        walk.rides = walk.rides | step_rides(walk, a, b)
        for k in range(len(KIND_NAMES)):
            rows.append(k * n + a)
            cols.append(k * n + b)
            costs.append(np.linalg.norm(walk.points[a] - walk.points[b], axis=1))
        below = _middle_nodes(walk, lift.middle, lift.middle[1])
        if len(below):
            walk.springs.append((lift, int(below[0])))
        for kind, rise in lift.rises:
            tops = [h for h in {round(r, 6) for _, r in lift.rises} if abs(h - rise) < 2.0 * BALL_RADIUS]
            above = np.unique(np.concatenate([_middle_nodes(walk, lift.middle, lift.middle[1] + h)
                                              for h in tops] or [np.zeros(0, int)]))
            if not len(below) or not len(above):
                continue
            k = KIND_NAMES.index(kind)
            rows.append(k * n + np.repeat(below, len(above)))
            cols.append(k * n + np.tile(above, len(below)))
            costs.append(np.full(len(below) * len(above), LIFT_COST))
            walk.spring_tops.update({int(i): lift for i in above})
    if rows:
        rows, cols, costs = np.concatenate(rows), np.concatenate(cols), np.concatenate(costs)
        new = np.asarray(walk.graph[rows, cols]).ravel() == 0.0       # the map's own links stay as they are
        walk.add_links(rows[new], cols[new], costs[new])


def _over(ctx, lift: SpringLift, q, below: float, above: float) -> bool:
    """Is ``q`` over the lift's platform's top (in its frame), from ``below``
    under it to ``above`` over it?"""
    platform = ctx.get(lift.platform)
    lo, hi = (np.asarray(c, float) for c in platform.get_bounding_box(local=True))
    q = np.asarray(platform.inverse_transform(q), float)
    return bool(lo[0] <= q[0] <= hi[0] and lo[2] <= q[2] <= hi[2] and hi[1] - below <= q[1] <= hi[1] + above)


def on_platform(ctx, lift: SpringLift, p) -> bool:
    """Is the ball's centre ``p`` on the lift's platform (less than a ball's
    diameter over its top)?"""
    return _over(ctx, lift, p, 0.0, 2.0 * BALL_RADIUS)


def weights_on(ctx, lift: SpringLift) -> list:
    """The weights still on the lift's platform: their middle over its top
    and no lower than its top less a ball's radius."""
    return [ctx.get(name) for name in lift.weights if ctx.physics.is_physicalized(ctx.get(name))
            and _over(ctx, lift, ctx.get(name).get_position(), BALL_RADIUS, math.inf)]


def _aim(ctx, weight, middle) -> np.ndarray:
    """Where the ball rolls to knock ``weight`` off: the middle of its mesh's
    points lower than a ball over the platform within a ball's radius of
    the one nearest the middle across (a wall's inner face; of the gate's
    arch a post, not the opening the ball came in by)."""
    points = entity_triangles([weight]).reshape(-1, 3)
    low = points[points[:, 1] <= points[:, 1].min() + 2.0 * BALL_RADIUS]
    across = np.hypot(low[:, 0] - middle[0], low[:, 2] - middle[2])
    nearest = low[int(np.argmin(across))]
    return low[np.hypot(low[:, 0] - nearest[0], low[:, 2] - nearest[2]) <= BALL_RADIUS].mean(axis=0)


def clear_lift(ctx, lift: SpringLift, p, rising: float, rise: float, out):
    """The horizontal velocity the ball on ``lift``'s platform wants. With
    weights on it: at CLEAR_SPEED out from the middle toward the weight
    whose aim (_aim) lies farthest along ``out`` (the way the route leaves
    the raised platform: a weight knocked off there late, the platform
    already risen, lies across the way out), back at the middle first
    while the ball is more than a ball's radius off that line (in the
    gate's arch, steered at the nearest post, it rolled from post to post:
    measured on the written level); against the weight it pushes on until
    the weight is off. With none left: held at the middle (HOLD times the
    offset) while it rises; None once it has risen half its ``rise`` and
    rises no more (``rising``: its vertical speed): the route goes on from
    the raised platform."""
    platform = ctx.get(lift.platform)
    middle = np.asarray(platform.get_position(), float)
    off = np.array([p[0] - middle[0], 0.0, p[2] - middle[2]])
    left = weights_on(ctx, lift)
    if not left:
        if middle[1] - lift.rest > 0.5 * rise and rising < RISEN:
            return None
        return -off * HOLD
    ways = [np.array([a[0] - middle[0], 0.0, a[2] - middle[2]]) for a in (_aim(ctx, w, middle) for w in left)]
    way = max(ways, key=lambda w: float(w @ out) / (float(np.linalg.norm(w)) or 1.0))
    u = way / (float(np.linalg.norm(way)) or 1.0)
    if float(np.linalg.norm(off - u * float(off @ u))) > BALL_RADIUS:
        return -off * HOLD
    return u * CLEAR_SPEED
