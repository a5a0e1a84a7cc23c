"""Boards knocked over on a run-up's speed (issue 40 item 3; docs/levels.md
"Autopilot", "Knocks").

A standing board's push (module 37, the T-board; module 25 standing) is
planned from a short run-up as the strongest kind (``_board_plan``). Level
05's T-board ``P_Modul_37_01`` stands at the end of the cross's east arm
(x 303), and no stone ball reaches that arm (the gutter's gap before it is
crossed beside the side rails, which need 0.41 of a ball's weight pushed
against them; stone's push is 0.30 of its weight). Measured on the engine:
a wood ball pushed from rest 5 before the board hits it at 6.7 units/s
and stops against it, from 13 before at about 10 units/s the same; from
the arm's far end, 28 before, it hits it at 12.3 units/s and knocks it
over across the pit (its middle from (304.3, -19.4) to (309.0, -23.3), as
a stone ball's push leaves it). So a board gets a second push: from a
run-up as long as the floor behind the first one's start runs clear, at
most KNOCK_RUN, at full push, for the kinds that knock it over measured on
the world before the run (``knock_kinds``: each kind put at rest at the
run-up's start, its navigation force held along the push, until the
board has fallen (``Blocker.done``) or KNOCK_FRAMES).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ivp.snapshot import build

from .autopilot_curls import held_push
from .autopilot_map import WalkMap
from .balls import player_of, wake
from .floors import FloorHeights
from .level import PLAYING, level_behavior
from .values import BALL_KINDS, BALL_RADIUS

KNOCK_RUN = 30.0         # a board's long run-up goes back at most this far (a leap's run-up, LEAP_RUN)
KNOCK_STEP = 0.5         # ... looked at this often
KNOCK_FALL = 2.0         # ... over floor none of it more than this below or above the start's
KNOCK_CLEAR = 0.1        # ... its ball's centre this much inside its radius of a face (the floor under it)
KNOCK_AT = 1.5           # ... its start this near a node of the map
KNOCK_FRAMES = 360       # the probe pushes for at most 6 s
KNOCK_WAIT = 600         # ... once the level's first ball is in play (at most 10 s)


def long_run_up(walk: WalkMap, ground: FloorHeights, start, u):
    """The start of the longest run-up toward a board along ``u`` that ends
    at ``start`` (a push's), going back KNOCK_STEP at a time while the
    floor is under the ball's centre within KNOCK_FALL of the start's, no
    face within its radius less KNOCK_CLEAR, a node of the map under it:
    (its start, how much longer than the push's it is), or None when it is
    not KNOCK_STEP longer."""
    back = np.arange(KNOCK_STEP, KNOCK_RUN + KNOCK_STEP / 2.0, KNOCK_STEP)
    way = np.asarray(start, float) - np.outer(back, u)
    floor = ground.below(way + (0.0, BALL_RADIUS, 0.0))
    base = float(start[1]) - BALL_RADIUS
    centres = np.c_[way[:, 0], floor + BALL_RADIUS, way[:, 2]]
    ok = np.isfinite(floor) & (np.abs(floor - base) <= KNOCK_FALL)
    ok[ok] = walk.solid.query_ball_point(centres[ok], BALL_RADIUS - KNOCK_CLEAR, return_length=True) == 0
    ok[ok] = walk.tree.query(centres[ok] - (0.0, BALL_RADIUS, 0.0))[0] <= KNOCK_AT
    good = int(np.argmin(ok)) if not ok.all() else len(ok)
    return (centres[good - 1], float(back[good - 1])) if good else None


def knock_kinds(table, blocker, start, u, frames) -> tuple:
    """The kinds that knock ``blocker``'s board over from rest at ``start``
    pushed along ``u`` at full push, each measured on the world built from
    ``table`` (its level's first ball played first, death boxes off, the
    board's sector in play and the board awake). ``frames(ctx, n)`` plays n
    frames without keys."""
    out = []
    for kind in BALL_KINDS:
        ctx = build(table)
        level = level_behavior(ctx)
        for _ in range(KNOCK_WAIT):
            if level.flow == PLAYING:
                break
            frames(ctx, 1)
        level.death_boxes = None
        board = ctx.get(blocker.body)
        level.reset_sector(level.sector_of.get(board, level.sector))
        wake(ctx, board)
        player = player_of(ctx)
        held_push(ctx, player, kind, start, u)
        for _ in range(KNOCK_FRAMES):
            frames(ctx, 1)
            if blocker.done(ctx):
                out.append(kind)
                break
            if player.ball is None:
                break
    return tuple(out)


def push_kinds(blocker, push: int) -> tuple:
    """The kinds a Blocker's push is measured for (``add_knocks``), or ()
    when it is not (the strongest kind does it, at the push's speed)."""
    return blocker.kinds[push] if push < len(blocker.kinds) else ()


def add_knocks(table, walk: WalkMap, ground: FloorHeights, blockers, boards, frames) -> list:
    """The Blockers with each board's (a body named with one of ``boards``)
    long run-up (``long_run_up`` behind its first push) as a further push,
    for the kinds that knock it over from there (``knock_kinds`` on the
    world built from ``table``); the others as they are."""
    out = []
    for b in blockers:
        start, u, length = b.pushes[0]
        run = long_run_up(walk, ground, start, u) if any(m in b.body for m in boards) else None
        kinds = knock_kinds(table, b, run[0], u, frames) if run is not None else ()
        if kinds:
            b = replace(b, pushes=b.pushes + ((run[0], u, length + run[1]),),
                        kinds=((),) * len(b.pushes) + (kinds,))
        out.append(b)
    return out
