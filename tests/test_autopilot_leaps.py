"""The autopilot's leaps (issue 40 item 3; docs/levels.md "Autopilot"): a
gap a ball crosses only on the speed of a run-up (level 05's last sector: its
ramp ends 15 before the finish's floor, 3.2 lower, in a kicker 1.5 high).

Physics: pushed with a horizontal acceleration a from rest, a ball in the air
has gone a t^2 / 2 across at speed a t; rolling it gets 5/7 of the push, so
after a run-up L it rolls at 5/7 sqrt(2 a L) (Flight.run_speed, undamped).
Leaving an edge at v it falls h in sqrt(2 h / g) while going v t + a t^2 / 2
across; leaving up a kicker of slope k it first rises for v sin / g."""

import math

import numpy as np
import pytest

import scenes
from behaviors.ballance.autopilot import FLOOR_GROUPS, Pilot, _members
from behaviors.ballance.autopilot_map import LEAP_RUN, Flight, WalkMap
from behaviors.ballance.floors import entity_triangles
from behaviors.ballance.level import FINISHED, level_behavior
from scenes.virtools import game_level
from virtools_levels import (LevelBuilder, course_groups, game_folder, heading_z, played_at_once, plate,
                            translation)

G = 20.0
PUSH = 10.0           # the written flights' horizontal acceleration


def pushed() -> dict:
    """Each kind's Flight as undamped physics gives it, pushed at PUSH."""
    t = np.arange(0.0, 5.0, 1.0 / 60.0)
    f = Flight(t, 0.5 * G * t * t, -G * t, 0.5 * PUSH * t * t, G)
    return {"paper": f, "wood": f, "stone": f}


def strip(x0, x1, z0, z1, y0, y1=None):
    """Two triangles of a strip from (x0, z0) to (x1, z1), y0 at z0 rising to y1 at z1."""
    y1 = y0 if y1 is None else y1
    a, b, c, d = (x0, y0, z0), (x1, y0, z0), (x1, y1, z1), (x0, y1, z1)
    return [(a, b, c), (a, c, d)]


def test_the_run_speed_is_five_sevenths_of_the_pushed_flights():
    """5/7 sqrt(2 x 10 x 30) = 17.50 after LEAP_RUN (30); the ballistic
    default, pushed by nothing, has none."""
    assert LEAP_RUN == 30.0
    assert pushed()["wood"].run_speed(30.0) == pytest.approx(5.0 / 7.0 * math.sqrt(2.0 * PUSH * 30.0), rel=0.02)
    assert Flight.ballistic(G).run_speed(30.0) == 0.0


def test_a_leap_crosses_a_gap_only_the_run_up_speed_flies():
    """A run-up 40 long at y 0 (z 0..40), a gap 10.5 to a floor 3 lower: at
    17.50 the ball falls 3 in 0.548 s and goes 17.50 x 0.548 + 10 x 0.548^2
    / 2 = 11.08 across; at rest (no run-up speed) 1.5: no drop (3 < 0.7 x
    10.5), no link (10.5 > REACH). A gap of 11.7 is too far."""
    for gap, crossed in ((10.5, True), (11.7, False)):
        tris = strip(-6, 6, 0, 40, 0.0) + strip(-6, 6, 40 + gap, 70 + gap, -3.0)
        walk = WalkMap(tris, gravity=G, flights=pushed())
        route = walk.route_to((0.0, -1.0, 60.0 + gap), 3.0)
        assert math.isfinite(route.cost[route.state((0.0, 2.0, 2.0), "wood")]) == crossed, gap
        still = WalkMap(tris, gravity=G)
        route = still.route_to((0.0, -1.0, 60.0 + gap), 3.0)
        assert route.cost[route.state((0.0, 2.0, 2.0), "wood")] == math.inf


def test_a_leap_lands_where_the_floor_runs_on():
    """The gap of 10.5 onto a strip 8 deep along the way (then the void): a
    ball at 17 units/s does not stop on it; no leap (LEAP_LAND, 15)."""
    tris = strip(-6, 6, 0, 40, 0.0) + strip(-6, 6, 50.5, 58.5, -3.0)
    walk = WalkMap(tris, gravity=G, flights=pushed())
    route = walk.route_to((0.0, -1.0, 54.5), 3.0)
    assert route.cost[route.state((0.0, 2.0, 2.0), "wood")] == math.inf


def test_a_kicker_at_the_edge_launches_the_ball_farther():
    """The same run-up ending in a kicker 2 long rising 0.27 per unit (0.54):
    the ball leaves at sqrt(17.50^2 - 2 x 20 x 0.54) = 16.87, rises for
    16.87 sin(15.1 deg) / 20 = 0.220 s (3.58 across), then falls 3.48 (0.590
    s: 16.29 x 0.590 + 10 x 0.590^2 / 2 = 11.36): 14.9 in all, over a gap of
    13 from the kicker's top that the flat edge (11.08) does not cross."""
    gap = 13.0
    ends = {"flat": strip(-6, 6, 0, 42, 0.0), "kicker": strip(-6, 6, 0, 40, 0.0) + strip(-6, 6, 40, 42, 0.0, 0.54)}
    for name, run in ends.items():
        top = run[-1][2][1]
        walk = WalkMap(run + strip(-6, 6, 42 + gap, 72 + gap, top - 3.0), gravity=G, flights=pushed())
        route = walk.route_to((0.0, top - 1.0, 62.0 + gap), 3.0)
        assert math.isfinite(route.cost[route.state((0.0, 2.0, 2.0), "wood")]) == (name == "kicker"), name


def leap_level() -> LevelBuilder:
    """Floor A (x -6..6, z -5..45, top y 0) where the wood ball starts, a
    gap of 9, floor B (z 54..90, top y -3) with the finish at z 80; a death
    cube under both."""
    b = LevelBuilder()
    mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-6, 0, -5), (6, 0, -5), (6, 0, 45), (-6, 0, 45)], mat),
              plate(b, "A01_Floor_02", [(-6, -3, 54), (6, -3, 54), (6, -3, 90), (-6, -3, 90)], mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 40), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    finish = b.entity("PE_Balloon_01", None, translation(0, -3, 80))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("Sector_01", [start])
    return b


def test_the_autopilot_leaps_the_gap_on_its_run_up(tmp_path):
    """Written: the wood ball's measured flight at its run-up's speed crosses
    9 falling 3 (its run speed about 20: wood's push 0.75 g, damped); the
    map without a run-up has no way; the autopilot runs at it and finishes."""
    game_folder(tmp_path, leap_level().data(), {})
    scene = played_at_once(scenes.load(game_level(str(tmp_path), 1)))
    tris = entity_triangles(_members(scene.ctx, FLOOR_GROUPS))
    still = WalkMap(tris).route_to((0.0, -1.0, 80.0), 3.0)
    assert still.cost[still.state((0.0, 2.0, 0.0), "wood")] == math.inf
    pilot = Pilot(scene, 60.0)
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "wood")])
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
