"""How high the steep ground is that a kind climbs on its speed
(autopilot_map.WalkMap._steep_height): from the node, only down and only up
along links between nodes steeper than the kind's push holds it on. A hump
1.6 high rising 0.75 per unit past the foot of a descent 6 deep rising 0.6
per unit (both steeper than stone's 0.32), a washboard of ridges 0.45 high
rising 0.9 per unit between them, is at most 2.05 of steep ground to climb
above the ridges' crests, within stone's MOMENTUM_RISE of 5.3, though the
descent's, the ridges' and the hump's steep nodes are linked: one stretch
6 high (so level 05's stone pad was an island for the stone ball)."""

import numpy as np
import pytest

from behaviors.ballance.autopilot_map import REACH, WalkMap

DEEP, HUMP, RIDGE, STONE = 6.0, 1.6, 0.45, 0.3186


def _quad(a, b, c, d):
    return [(a, b, c), (a, c, d)]


def _course() -> np.ndarray:
    """Along +Z, 12 wide: flat at y 0 to z 6, the descent to -DEEP at z 16,
    six ridges 1 long to z 22, the hump up HUMP at 0.75 per unit, flat on it to 30."""
    low, top, up = -DEEP, -DEEP + HUMP, HUMP / 0.75
    rows = [(0.0, 0.0, 6.0, 0.0), (6.0, 0.0, 16.0, low)]
    for k in range(6):
        z = 16.0 + k
        rows += [(z, low, z + 0.5, low + RIDGE), (z + 0.5, low + RIDGE, z + 1.0, low)]
    rows += [(22.0, low, 22.0 + up, top), (22.0 + up, top, 30.0, top)]
    tris = []
    for z0, y0, z1, y1 in rows:
        tris += _quad((-6, y0, z0), (6, y0, z0), (6, y1, z1), (-6, y1, z1))
    return np.array(tris, float)


def test_a_hump_past_a_descent_is_its_own_height_of_steep_ground():
    walk = WalkMap(_course(), climb={"paper": 1.2, "wood": 1.12, "stone": STONE})
    pairs = walk.tree.query_pairs(REACH, output_type="ndarray")
    a, b = np.r_[pairs[:, 0], pairs[:, 1]], np.r_[pairs[:, 1], pairs[:, 0]]
    height = walk._steep_height(a, b, STONE)
    p = walk.points
    hump = (p[:, 2] > 22.0) & (p[:, 2] < 22.0 + HUMP / 0.75) & (p[:, 1] > -DEEP + RIDGE + 0.05)
    descent = (p[:, 2] > 6.2) & (p[:, 2] < 15.8)
    assert hump.any() and descent.any()
    assert np.all(height[hump] <= HUMP + RIDGE + 0.05) and np.all(height[hump] >= HUMP - RIDGE - 0.05)
    assert height[descent] == pytest.approx(DEEP, abs=0.05)
