"""A falling stone's crossing passed under (issue 40; docs/levels.md "Autopilot").

A falling stone (module 34) stands on its crate where two ways cross, one
above the other: the crate fills the lower way, its top the upper way, the
stone stands 5 high on it. The map counts the stone dropped (its top a way
across the upper way) and leaves the crate out; the lower way through the
crossing is then walled by the dropped stone. Yet a ball that pushes the
crate along the lower way follows it through: measured on level 05's
sector 4, a stone ball from rest at the start of a crate's run-up, pushed
along, reaches the crate in 1.1 s, shifts it and is past the crossing when
the stone lands behind it (``P_Modul_34_01`` north: the stone down from
-75.8 to -79.9 while the ball goes from z -60 to -55, 5 to 8 past the
crate's middle; ``_02`` south and ``_03`` west the same). That is the only
way on there: the lower way goes on beyond each crossing.

So each push of a crate (the Blocker's: from its run-up's start, the ball
at rest, RUN_UP behind the crate, to as far beyond it as the crate is
long, the ball's radius more) is a link of the map for the kind with the
strongest push (a wood ball does not shift a crate under its stone), from
the node under the run-up's start to the node under its end: ``pass_links``.
The pilot takes such a link as the push itself (``pass_push``). A pass is
taken once: the stone lands behind the ball, on the lower way.
"""

from __future__ import annotations

import math

import numpy as np

from .values import BALL_KINDS, BALL_RADIUS, KIND_NAMES

AT_END = 1.5             # a pass's ends: the nodes this near (across) the run-up's start and the push's end


def pass_links(walk, stones) -> dict:
    """Adds to ``walk.graph`` a link through each crossing of ``stones``
    (Blockers of falling stones, with their pushes) as the kind with the
    strongest push, from the node under a push's run-up start to the node
    under its end, costing the push's length; returns (from, to) -> (the
    stone's body, the push's index)."""
    n = len(walk.points)
    k = KIND_NAMES.index(max(BALL_KINDS, key=lambda kind: BALL_KINDS[kind].force))
    out, costs = {}, []
    for stone in stones:
        for i, (start, u, length) in enumerate(stone.pushes):
            ends = [walk.tree.query(q - (0.0, BALL_RADIUS, 0.0), distance_upper_bound=AT_END)
                    for q in (start, start + np.asarray(u) * length)]
            if all(np.isfinite(d) for d, _ in ends) and (ends[0][1], ends[1][1]) not in out:
                out[int(ends[0][1]), int(ends[1][1])] = (stone.body, i)
                costs.append(length)
    if out:
        a, b = np.array(list(out)).T
        walk.add_links(k * n + a, k * n + b, costs)
    return out


def pass_push(passes: dict, body: str, way: list):
    """The index of the push of the stone ``body`` whose pass is on ``way``
    (the route's nodes in order), or None."""
    return next((passes[a, b][1] for a, b in zip(way, way[1:]) if passes.get((a, b), (None,))[0] == body), None)


def met(passes: dict, blocker, first: dict) -> float:
    """Where the route first meets ``blocker``: the least index in ``first``
    (node -> its first index on the route) of its nodes and its passes'
    starts; inf when it does not."""
    starts = [a for (a, _), (body, _) in passes.items() if body == blocker.body]
    return min((first[s] for s in (*blocker.nodes, *starts) if s in first), default=math.inf)
