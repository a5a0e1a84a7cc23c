"""The autopilot's bank rides (issue 40 item 3; docs/levels.md "Autopilot",
"Banks"; behaviors/ballance/autopilot_banks.py): a window in a trough's
floor crossed along its banked side (level 07's ``A01_Modul16``).

The written level: floor A (x -6..6, z -5..T0, top y 0) where the wood ball
starts; a trough along Z from z T0 to T1 with level 07's module's profile
across X (its bottom at y 0, its sides rising through (2.87, 1.05), (3.87,
2.25), (4.41, 3.72) to walls 5.3 high), its bottom cut out between the
sides' feet (|x| < 2.87) from z W0 to W1; floor B beyond (z T1..T1 + 25)
with the finish 15 into it; a death cube under all."""

import math

import numpy as np
import pytest

from behaviors.ballance.autopilot import FLOOR_GROUPS, _members
from behaviors.ballance.autopilot_banks import BANK_MIN_RUN, bank_runs
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.floors import entity_triangles
from virtools_levels import LevelBuilder, finished_cleanly, plate, wood_course, written_pilot

T0, W0, W1, T1 = 30.0, 40.0, 50.0, 58.0
SIDE = [(0.0, 0.0), (1.54, 0.27), (2.87, 1.05), (3.87, 2.25), (4.41, 3.72), (4.41, 5.28), (6.4, 5.3)]
FOOT = 2.87                     # the sides' feet: the window cuts the bottom between them


def _strip(b: LevelBuilder, name: str, p, q, z0: float, z1: float, mat: int) -> int:
    """A plate along Z from z0 to z1 between profile points p and q (x, y),
    its face toward the trough's middle line above the bottom."""
    corners = [(p[0], p[1], z0), (q[0], q[1], z0), (q[0], q[1], z1), (p[0], p[1], z1)]
    c = np.asarray(corners, float)
    n = np.cross(c[2] - c[0], c[1] - c[0])
    middle = np.array([0.0, 3.0, 0.0]) - c.mean(axis=0)
    if float(n @ middle) < 0.0:
        corners = corners[::-1]
    return plate(b, name, corners, mat)


def bank_level() -> LevelBuilder:
    """The module docstring's level."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-6, 0, -5), (6, 0, -5), (6, 0, T0), (-6, 0, T0)], mat),
              plate(b, "A01_Floor_02", [(-6, 0, T1), (6, 0, T1), (6, 0, T1 + 25), (-6, 0, T1 + 25)], mat)]
    profile = [(-x, y) for x, y in SIDE[:0:-1]] + SIDE
    for k, (p, q) in enumerate(zip(profile, profile[1:])):
        if max(abs(p[0]), abs(q[0])) <= FOOT:
            spans = ((T0, W0), (W1, T1))
        else:
            spans = ((T0, T1),)
        for m, (z0, z1) in enumerate(spans):
            floors.append(_strip(b, f"A01_Modul16_{k:02d}{m}", p, q, z0, z1, mat))
    return wood_course(b, floors, stone, (0, 0, T1 + 15.0), (0, -40, 40))


@pytest.fixture(scope="module")
def scene_pilot(tmp_path_factory):
    """The written level's scene and its Pilot (the map measured)."""
    return written_pilot(tmp_path_factory, "bank", bank_level())


def test_the_map_finds_the_window_with_its_banks(scene_pilot):
    """The window's way +Z: from floor A (at least BANK_MIN_RUN before the
    window) to its far edge at z W1, on the trough's middle line; its
    banks on both sides, one run per side."""
    _, pilot = scene_pilot
    p = pilot.map.points
    ahead = [r for r in bank_runs(pilot.map) if r[2][2] > 0.9]
    assert sorted(r[3] for r in ahead) == [-1.0, 1.0]
    for start, far, way, side, press in ahead:
        assert p[far, 2] == pytest.approx(W1, abs=1.0) and abs(p[far, 0]) <= 1.5
        assert p[start, 2] <= W0 - BANK_MIN_RUN and abs(p[start, 0]) <= 1.5
        assert p[start, 2] + press <= T0 + 1.0          # the push toward the bank begins where the trough does


def test_the_wood_ball_rides_a_bank_over_the_window_and_finishes(scene_pilot):
    """Without the banks the map has no way from floor A (the window is 5.7
    wide: no floor a ball rests on); measured, the wood ball pushed along
    the trough and toward a side rides that side's bank over the window;
    the autopilot takes that link and finishes the level with no
    rollback."""
    scene, pilot = scene_pilot
    still = WalkMap(entity_triangles(_members(scene.ctx, FLOOR_GROUPS))).route_to((0.0, 0.0, T1 + 15.0), 3.0)
    assert still.cost[still.state((0.0, 2.0, 0.0), "wood")] == math.inf
    p = pilot.map.points
    assert any(p[far, 2] == pytest.approx(W1, abs=1.0) for _, far in pilot.map.banks)
    finished_cleanly(pilot)
