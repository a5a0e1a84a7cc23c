"""The autopilot's map and the transformer pads (docs/levels.md "Autopilot";
autopilot_map ``WalkMap._pads``): the new ball is born at rest 3 above its
pad (glue-and-content 3), so a pad on a floor steeper than the new kind's
push holds it on is a trap, no way for the other kinds.

The stone ball's push, 0.92 per PSI of 1/66 s on 10 kg under gravity 20,
0.3036 of its weight and horizontal, holds it on slopes up to 0.3036 rise
per unit (the wood ball's up to 0.747): a strip 4 wide, tilted across its
way 0.5 per unit, is a trap under a stone pad; tilted 0.25, not."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from behaviors.ballance.autopilot import climb
from behaviors.ballance.autopilot_map import WalkMap

PHYSICS = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)
PAD = (0.0, 0.0, 20.0)
GOAL = (0.0, 2.0, 36.0)


def tilted_strip(tilt: float):
    """A strip x -2..2, z 0..40, its height tilt * x: level along its way."""
    a, b, c, d = (-2, -2 * tilt, 0), (2, 2 * tilt, 0), (2, 2 * tilt, 40), (-2, -2 * tilt, 40)
    return [(a, b, c), (a, c, d)]


def stone_pad_map(tilt: float) -> WalkMap:
    return WalkMap(tilted_strip(tilt), pads=[(PAD, "stone")],
                   climb={k: climb(k, PHYSICS) for k in ("paper", "wood", "stone")})


def route_kinds(walk, kind):
    """The kinds along the route from the strip's start to GOAL as ``kind``, or None without one."""
    route = walk.route_to(GOAL, 3.0)
    start = route.state((0.0, 2.0, 3.0), kind)
    if not math.isfinite(route.cost[start]):
        return None
    return [route.kind(s) for s in route.ahead(start, 100.0)]


def test_a_stone_pad_on_a_floor_stone_holds_on_turns_the_wood_ball():
    """Tilted 0.25 (under stone's 0.3036): the pad covers the strip's width,
    so the wood ball's way is through it, and it goes on as stone."""
    assert climb("stone", PHYSICS) == pytest.approx(0.3036, abs=1e-3)
    kinds = route_kinds(stone_pad_map(0.25), "wood")
    assert kinds is not None and kinds[0] == "wood" and kinds[-1] == "stone"


def test_a_stone_pad_on_a_floor_steeper_than_stone_holds_on_is_no_way_for_wood():
    """Tilted 0.5 (level 12's half cylinder under its stone pads): the stone
    ball born there rolls off, so the wood ball has no way past the pad; a
    stone ball passes it (no swap), and a pad's nodes as far are a way."""
    walk = stone_pad_map(0.5)
    assert route_kinds(walk, "wood") is None
    assert route_kinds(walk, "stone") == ["stone"] * len(route_kinds(walk, "stone"))
    trapped = np.flatnonzero(walk.trap_kind >= 0)
    assert len(trapped) and (walk.pad_kind < 0).all()
    assert np.abs(walk.points[trapped, 2] - PAD[2]).max() <= 4.3
