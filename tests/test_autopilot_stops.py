"""Braking to rest at a push's run-up (behaviors/ballance/autopilot_stops.py;
docs/levels.md "Autopilot", "Stopping at a run-up"): level 06's stone ball
came onto the 5-wide corridor of the box push at 6.6 units/s, pushed on
until 1.4 from the run-up, and rolled off the corridor's far edge.

The written way: a strip 5 wide along +z, the route's end (the run-up)
at z 30. The stone ball's braking push (TURN_BRAKE x F / m, F / m = 0.92 x
66 / 10 = 6.07 units/s^2 with the PSI impulse, spec 7.2) stops it from v
in v^2 / (2 b): the cap is the speed from which that distance is the path
left, and none farther off than the reach."""

import math
from types import SimpleNamespace

import pytest

from behaviors.ballance.autopilot import BRAKE_DISTANCE, TURN_BRAKE, climb, push_acceleration
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.autopilot_stops import stop_speed

PHYSICS = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)


def strip():
    a, b, c, d = (-2.5, 0.0, 0.0), (2.5, 0.0, 0.0), (2.5, 0.0, 40.0), (-2.5, 0.0, 40.0)
    return [(a, b, c), (a, c, d)]


def test_on_a_route_to_a_run_up_the_stone_ball_is_slowed_to_stop_there():
    walk = WalkMap(strip(), climb={k: climb(k, PHYSICS) for k in ("paper", "wood", "stone")})
    route = walk.route_to((0.0, 2.0, 30.0), 1.5)
    brake = TURN_BRAKE * push_acceleration("stone", PHYSICS)
    assert brake == pytest.approx(0.5 * 0.92 * 66.0 / 10.0, rel=0.02)
    near = route.state((0.0, 2.0, 22.0), "stone")                 # 8 before the run-up, 6.5 to 8 of path left
    cap = stop_speed(route, near, brake, BRAKE_DISTANCE)
    assert math.sqrt(2.0 * brake * 6.5) - 0.01 <= cap <= math.sqrt(2.0 * brake * 8.0) + 0.01
    assert cap < 9.0                                               # below the steering's speed: it brakes
    far = route.state((0.0, 2.0, 5.0), "stone")                    # 25 before it: no cap yet
    assert stop_speed(route, far, brake, BRAKE_DISTANCE) == math.inf
