"""Float boards (module 41; issue 40, docs/levels.md "Autopilot", "Float
boards"): which kinds the map sends over them.

A float board hangs on a hinge over its mass centre (the prefab
P_Modul_41.nmo: mass 1, the mass centre 0.593 under the hinge, a keel),
so it rights itself against a ball no heavier at its end than the keel:
ball mass x the end's reach from the hinge < board mass x the keel's depth.
Paper (0.2 x 2.5 = 0.5 against 0.593) holds it level; wood (1.9 x 2.5) and
stone tip it over. Measured on level 07's six boards (P_Modul_41_01 to
_05, _09), each kind pushed east at full push from rest at x 45: paper
crosses all six; wood tips board 1 to 36 degrees, is thrown up off it,
flips board 2 past 90 degrees and falls at board 4 (x 73.7); stone falls
at board 1. So the board's nodes are no way for the kinds that tip it.
"""

from __future__ import annotations

import numpy as np

from .floors import entity_triangles
from .values import BALL_KINDS


def tipping_kinds(body, mass: float, centre, hinge) -> tuple:
    """The kinds whose weight at the board's farthest end from its hinge
    (the frame ``hinge``, its axis the frame's Z: Set Physics Hinge) turns
    it more than its keel rights it (the board's ``mass`` at ``centre``)."""
    m = np.asarray(hinge.get_world_matrix().as_array(), float)
    axis, at = m[2, :3] / np.linalg.norm(m[2, :3]), m[3, :3]

    def across(p):
        """The offsets of points ``p`` from the hinge's axis, square to it."""
        off = np.asarray(p, float) - at
        return off - np.outer(off @ axis, axis)

    end = float(np.hypot(*across(entity_triangles([body]).reshape(-1, 3))[:, (0, 2)].T).max())   # its lever
    keel = float(np.linalg.norm(across(centre)))      # the keel's, tipped level

    return tuple(k for k, kind in BALL_KINDS.items() if kind.mass * end > mass * keel)
