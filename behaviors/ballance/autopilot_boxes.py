"""Box stacks pushed off a floor's end (issue 40 item 3; docs/levels.md
"Autopilot", "Boxes").

Level 06's sector 4 corridor (5 wide) turns north at its east end, and
four boxes (``P_Box_04``-``_07``, 5 x 5 x 5, mass 1, in two layers) fill it
there, the stone ball ``P_Ball_Stone_01`` resting in a dent before them; a
stone transformer waits at the end of a branch to the south. Measured on
the engine (a stone ball steered along the corridor's line at PUSH_SPEED,
the Blocker's push) from 11 or 19 before the stone ball, it shoves the
stone ball and all four boxes off the corridor's end (from 27: the east
column falls, the west one is left on the edge); a wood ball slides off
the stone ball's side; a stone ball held at full force drops at most the
east column and falls off the corridor's side. So two or more
boxes standing side by side, another on them, on a floor that ends beside
them (no way round) are a Blocker: its nodes are the map's nodes its bottom boxes cover
(a ball's radius round each), its push runs along one of the boxes'
horizontal axes from a RUN_UP behind the hindmost box, toward a floor's
end (no floor a box past the foremost box), as the strongest kind at
PUSH_SPEED, until the hindmost box has gone past every node the stack
covered by half a box.
"""

from __future__ import annotations

import numpy as np

from .autopilot_map import WalkMap
from .floors import FloorHeights
from .values import BALL_RADIUS

BOX = "P_Box"
BOX_HALF = 2.5      # a P_Box is 5 x 5 x 5 (glue-and-content: loose props)
BOX_ON = 2.0        # a box stands on the floor: its bottom at most this above the floor under it
BOX_NODE = 1.0      # ... a node it covers this near its bottom's height
BOX_GAP = 2.0 * BALL_RADIUS   # boxes less than a ball's width apart (face to face) are one stack
BOX_DROP = 1.0      # no floor this near below a box's bottom beyond the stack: the push drops it there


def _on(top, box) -> bool:
    """Whether box ``top`` rests on ``box``: within a box's width across,
    half a box or more higher."""
    t, b = np.asarray(top.get_position(), float), np.asarray(box.get_position(), float)
    return bool(np.hypot(*(t - b)[[0, 2]]) < 2.0 * BOX_HALF and t[1] >= b[1] + BOX_HALF)


def _standing(ground: FloorHeights, boxes) -> list:
    """The boxes on a floor, not on another box: the bottom at most BOX_ON
    above the floor under it (level 06's are authored 0.6 and 1.1 above
    it and settle once their sector plays)."""
    out = []
    for b in boxes:
        c = np.asarray(b.get_position(), float)
        floor = float(ground.below([c])[0])
        if (np.isfinite(floor) and -BOX_NODE <= c[1] - BOX_HALF - floor <= BOX_ON
                and not any(_on(b, o) for o in boxes if o is not b)):
            out.append(b)
    return out


def box_stacks(ground: FloorHeights, boxes) -> list:
    """The standing boxes grouped into stacks: boxes closer than BOX_GAP face
    to face (centres within a box and a gap) are one stack; only stacks of
    two or more with a box resting on one of them (two layers, as level
    06's) are kept: a box alone or a single layer stays an obstacle the
    route pushes or goes round (level 01's ``P_Box_06`` alone on a narrow
    way, level 02's ``P_Box_01``-``_03`` one beside another at heights 43
    to 49: both levels were finished so, and get no box Blocker)."""
    stacks = []
    for b in _standing(ground, boxes):
        c = np.asarray(b.get_position(), float)
        near = [s for s in stacks if any(np.hypot(*(c - np.asarray(o.get_position(), float))[[0, 2]])
                                         < 2.0 * BOX_HALF + BOX_GAP for o in s)]
        for s in near:
            stacks.remove(s)
        stacks.append([b] + [o for s in near for o in s])
    return [s for s in stacks if len(s) > 1 and any(_on(t, b) for b in s for t in boxes)]


def _covered(walk: WalkMap, ground: FloorHeights, stack) -> np.ndarray:
    """The map's nodes a ball cannot take while the stack stands: within a
    ball's radius of a bottom box's footprint, near the floor under it."""
    out = set()
    for b in stack:
        m = np.asarray(b.get_world_matrix().as_array(), float)
        local = (walk.points - m[3, :3]) @ np.linalg.inv(m[:3, :3])
        bottom = float(ground.below([m[3, :3]])[0])
        inside = ((np.abs(local[:, 0]) <= BOX_HALF + BALL_RADIUS) & (np.abs(local[:, 2]) <= BOX_HALF + BALL_RADIUS)
                  & (np.abs(walk.points[:, 1] - bottom) <= BOX_NODE))
        out.update(np.flatnonzero(inside).tolist())
    return np.array(sorted(out), int)


def _fills_way(ground: FloorHeights, box, u) -> bool:
    """Whether the floor under ``box`` ends within a ball's width of its
    sides across ``u``: no way round it (level 06's stack fills its 5-wide
    corridor; level 01's single boxes stand on wide floors, where the ball
    goes round them and they are obstacles only)."""
    c = np.asarray(box.get_position(), float)
    floor = float(ground.below([c])[0])
    side = np.array([-u[2], 0.0, u[0]]) * (BOX_HALF + 2.0 * BALL_RADIUS)
    beside = ground.below([c + side, c - side])
    return not np.any(np.abs(beside - floor) <= BOX_NODE)


def stack_blocker(walk: WalkMap, ground: FloorHeights, stack, run_up: float, at_run_up: float, blocker):
    """A stack of boxes as a ``blocker`` (the Blocker class), or None: its
    nodes (_covered), its push along the first horizontal axis of its boxes
    with a map node at the run-up's start (``run_up`` behind the hindmost
    box, a ball's radius off its face, within ``at_run_up``), the floor
    ending beside the hindmost box (_fills_way) and no floor within
    BOX_DROP under a box's bottom a box and a half beyond the foremost's
    centre; done once the hindmost box has gone half a box past every node
    the stack covered."""
    nodes = _covered(walk, ground, stack)
    if not len(nodes):
        return None
    centres = np.array([b.get_position() for b in stack], float)
    m = np.asarray(stack[0].get_world_matrix().as_array(), float)
    for axis in (0, 2):
        d = m[axis, :3].copy()
        d[1] = 0.0
        if np.linalg.norm(d) < 1e-9:
            continue
        for sign in (1.0, -1.0):
            u = sign * d / np.linalg.norm(d)
            along = centres @ u
            hind, fore = centres[int(np.argmin(along))], centres[int(np.argmax(along))]
            if not _fills_way(ground, stack[int(np.argmin(along))], u):
                continue
            start = hind - u * (BOX_HALF + BALL_RADIUS + run_up)
            floor = float(ground.below([start + (0.0, BALL_RADIUS, 0.0)])[0])
            beyond = fore + u * 3.0 * BOX_HALF
            below = float(ground.below([beyond - (0.0, BOX_HALF, 0.0)])[0])
            if (not np.isfinite(floor) or not walk.tree.query_ball_point((start[0], floor, start[2]), at_run_up)
                    or np.isfinite(below) and below >= beyond[1] - BOX_HALF - BOX_DROP):
                continue
            need = float((walk.points[nodes] @ u).max() - hind @ u) + BOX_HALF
            start = np.array([start[0], floor + BALL_RADIUS, start[2]])
            return blocker(stack[int(np.argmin(along))].name, tuple(hind), tuple(u), need, need,
                           frozenset(nodes.tolist()), ((start, u, run_up + need),))
    return None
