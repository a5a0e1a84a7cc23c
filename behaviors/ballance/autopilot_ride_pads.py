"""A ride over a transformer's pad (issue 40; docs/levels.md "Autopilot",
"Rides over pads").

A ride (autopilot_map ``WalkMap._rides``) takes the ball straight from a
face's top over a valley on the speed of its fall. Where its way passes a
pad of another kind, the pad turns the ball mid-ride and the new ball is
born at rest (glue-and-content 3): the speed the ride needs is gone, and a
pad on the rise may even be a trap. Level 06's wave track
(``A_04_Wood_01``): the paper ball's ride from the crest at (382.7, 7.7,
-758.2) to the next at (390.0, 7.6, -783.9) passes 1.8 from the wood pad
``P_Trafo_Wood_07`` on the rise (its face 0.95 steep, more than the wood
ball is held on, 0.75): the paper ball was turned to wood there and the
wood ball rolled back into the trough, 24 times (gave up after 24.32 s).
So a ride whose way passes within a ball's radius of a pad's nodes (those
within the transformer's radius of it, under the ride's line at its
heights) of another kind is no ride for that kind.
"""

from __future__ import annotations

import numpy as np

from .values import BALL_RADIUS, KIND_NAMES

PAD_FIND = BALL_RADIUS   # a pad's node this near a ride's way (across) is under it: a pad's nodes reach the
                         # transformer's radius out from it, and the ball strays this far off the line (the
                         # paper ball's ride 0.6 farther out than the nodes passed the pad at 4.3 from it)
PAD_BELOW = 15.0         # ... at the ride's heights: no lower than its lower end less this (autopilot_map.RIDE_DIP)
CHUNK = 2048             # rides measured at once


def ride_kinds(walk, ride_a, ride_b) -> np.ndarray:
    """Per ride (links ``ride_a`` -> ``ride_b``) and kind (KIND_NAMES'
    order): whether the kind may take it, no pad of another kind (turning
    or trap, ``walk.pad_kind``, ``walk.trap_kind``) under its way but the
    one at its end."""
    p = walk.points
    pad = np.maximum(walk.pad_kind, walk.trap_kind)
    nodes = np.flatnonzero(pad >= 0)
    crossed = np.zeros((len(ride_a), len(KIND_NAMES)), bool)
    for lo in range(0, len(ride_a) if len(nodes) else 0, CHUNK):
        a, b = p[ride_a[lo:lo + CHUNK]], p[ride_b[lo:lo + CHUNK]]
        way = (b - a)[:, (0, 2)]
        off = p[nodes][None, :, (0, 2)] - a[:, None, (0, 2)]
        t = np.clip((off @ way[:, :, None])[..., 0] / np.maximum((way * way).sum(axis=1), 1e-12)[:, None], 0.0, 1.0)
        across = np.linalg.norm(off - t[..., None] * way[:, None, :], axis=2)
        y = p[nodes, 1][None, :]
        under = ((across <= PAD_FIND) & (y <= np.maximum(a[:, 1], b[:, 1])[:, None] + 0.5)
                 & (y >= np.minimum(a[:, 1], b[:, 1])[:, None] - PAD_BELOW))
        for k in range(len(KIND_NAMES)):
            crossed[lo:lo + CHUNK, k] = (under & (pad[nodes] == k)[None, :]).any(axis=1)
    end = pad[ride_b] >= 0                       # onto a pad at its end: turned there, at the top (the map's
    crossed[np.flatnonzero(end), pad[ride_b[end]]] = False       # ride_kind), its speed spent
    others = crossed.sum(axis=1, keepdims=True) - crossed        # pads of the other kinds under it
    return others == 0
