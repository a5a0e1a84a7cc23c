"""Rotating arms that knock drawbridges down (docs/levels.md "Autopilot").

Level 03's sector 4 has two drawbridges (module 25, ``P_Modul_25_05`` and
``_04``) leaning back over the floor beyond their gaps, away from the way
the ball comes, each by one end of a rotating arm (module 17,
``P_Modul_17_01`` and ``_02``: a beam 23 long over a hinge at its middle,
sprung back to its place). A ball pushed into one half of an arm turns it
round its hinge, and the other half's end sweeps the board over across its
gap (measured: a stone ball pushed +X on the north corridor into ``_17_01``'s
north half turns it 85 degrees, and its south end lays ``_25_05`` flat).

The map finds the pushes: each arm's halves, pushed square to the beam
either way at ARM_AT of the half out from the hinge, from a clear run-up on
the map (``arm_runs``); each is measured on a copy of the world before the
run, every sector in, its bodies as authored (``arm_knocks``): the stone
ball (the strongest push: a run-up route arrives as it) put at rest at the
run-up's start, its navigation force held along the push, until a standing
drawbridge falls. Not the probe's settled world: woken and settled,
``_25_04`` falls across its gap by itself (its sine -1 to 0 in 2 s), which
it does not in play (it leans 18 degrees and stays: the play from the start
died 24 times in its gap), so no knock of it was found.
Such a push is one of that board's Blocker pushes. A Blocker that no push
of the ball reaches, its own or an arm's, stays in the way in the map
(``stand_unpushed``: the way over it is closed).
"""

from __future__ import annotations

import numpy as np

from .autopilot_curls import held_push
from .autopilot_map import WalkMap
from .balls import player_of
from .level import level_behavior
from .values import BALL_RADIUS

ARM_AT = (0.9, 0.7, 0.5)     # a push meets a half this part of its length out from the hinge (the first clear)
ARM_FRAMES = 300             # a push into an arm is measured for at most 5 s ...
ARM_FELL = 10.0              # ... or until the ball falls this far below its start
PUSHER = "stone"             # the kind a run-up route arrives as (the strongest push)


def arm_runs(arms, heights, start_of) -> list:
    """The candidate pushes into each arm: (the ball's centre at its
    run-up's start, the unit push), per half and
    side the first of ARM_AT with floor of ``heights`` under the ball
    touching the beam there and a clear run-up to it (``start_of(contact,
    u)``: (start, run) or None)."""
    out = []
    for arm in arms:
        m = np.asarray(arm.get_world_matrix().as_array(), float)
        lo, hi = (np.asarray(b, float) for b in arm.get_bounding_box(local=True))
        top = float(arm.get_bounding_box(local=False)[1][1])
        up = int(np.argmax(np.abs(m[:3, 1]) / np.linalg.norm(m[:3, :3], axis=1)))
        a, b = (i for i in range(3) if i != up)
        along, across = (a, b) if hi[a] - lo[a] >= hi[b] - lo[b] else (b, a)
        side = m[across, :3] * (1.0, 0.0, 1.0)
        width = 0.5 * (hi[across] - lo[across]) * float(np.linalg.norm(side))
        side = side / np.linalg.norm(side)
        for end in (lo[along], hi[along]):
            for u in (side, -side):
                for f in ARM_AT:
                    local = 0.5 * (lo + hi)
                    local[along] = f * end
                    contact = local @ m[:3, :3] + m[3, :3] - u * (width + BALL_RADIUS)
                    foot = float(heights.below([(contact[0], top, contact[2])])[0])
                    way = None if np.isnan(foot) else start_of(np.array([contact[0], foot + BALL_RADIUS,
                                                                         contact[2]]), u)
                    if way is not None:
                        out.append((way[0], u))
                        break
    return out


def arm_knocks(runs, boards, upright: float, build, table, frames) -> list:
    """Which drawbridge each run knocks down, measured on copies of the
    world ``table`` (``build(table)``): the stone ball put at rest
    at the run-up's start, its navigation force along the push for at most
    ARM_FRAMES, until one of ``boards`` (the standing drawbridges' names)
    is down (the sine of its way, module 25's X, below ``upright``) or the
    ball falls ARM_FELL: (board, start, u, how far the ball went along u
    until then) of the runs that knock one down. ``frames(ctx, n)`` plays
    n frames without keys."""
    out = []
    for start, u in runs:
        c = build(table)
        level_behavior(c).death_boxes = None
        player = player_of(c)
        held_push(c, player, PUSHER, start, u)
        for _ in range(ARM_FRAMES):
            frames(c, 1)
            if player.ball is None:
                break
            p = np.asarray(player.ball.get_position(), float)
            down = [b for b in boards
                    if abs(float(np.asarray(c.get(b).get_world_matrix().as_array(), float)[0, 1])) < upright]
            if down or p[1] < start[1] - ARM_FELL:
                out += [(b, start, u, float((p - start) @ u)) for b in down[:1]]
                break
    return out


def stand_unpushed(walk: WalkMap, blockers) -> list:
    """The Blockers with a push; one with none (a board or a gate no run-up
    of its own reaches and no arm knocks down) stays in the way in the map:
    no link of ``walk``'s graph into or out of its nodes, for any kind (it
    closed level 05 sector 4's way over ``P_Modul_25_01`` and level 07
    sector 3's over ``P_Modul_34_01`` and ``P_Modul_25_02``). Level 03's
    ``P_Modul_25_05`` stands with an arm's end in its run-up; the map had it
    down as the probe left it, and the stone ball died 24 times in its gap."""
    unpushed = [n for b in blockers if not b.pushes for n in b.nodes]
    if unpushed:
        walk.graph = walk.closed(unpushed)
    return [b for b in blockers if b.pushes]
