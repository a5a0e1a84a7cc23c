"""Room to stop after a drop (issue 40 item 3; docs/levels.md "Autopilot",
"Landings"; behaviors/ballance/autopilot_landings.py).

Level 03's sector 1 (the game's files): the route dropped 25 off a ramp
17.7 across onto a strip 10 wide running crosswise below it; the stone ball
came down at 13.5 units/s across the strip and rolled off its far side, 24
times with every steering."""

import math

import numpy as np

from behaviors.ballance.autopilot_landings import EDGE_ROLL, landing_velocity
from behaviors.ballance.autopilot_map import Flight, WalkMap
from behaviors.ballance.values import BALL_KINDS

from test_autopilot import cost_from, plate

G = 20.0


def damped_flight(kind: str, g: float = G) -> Flight:
    """The kind's fall from rest with its push held across, damped by its
    linear damping k on both axes (dv/dt = -k v + force): vy = -(g / k)(1 -
    e^(-k t)), the fall (g / k)(t - (1 - e^(-k t)) / k), across the same
    with the push F / m for g."""
    k = BALL_KINDS[kind].linear_damping
    push = PUSH[kind] * g
    t = np.arange(0.0, 6.0, 1.0 / 120.0)
    gone = (t - (1.0 - np.exp(-k * t)) / k) / k
    return Flight(t, g * gone, -(g / k) * (1.0 - np.exp(-k * t)), push * gone, g)


PUSH = {"paper": 1.0, "wood": 0.75, "stone": 0.30}       # F / (m g), docs/levels.md ("How far a kind flies")
CLIMB = dict(PUSH)           # a horizontal push holds the ball on tan a = F / (m g) (autopilot.climb)


def course(width: float):
    """Platform A 25 high (x -20..0, z -5..5), its only way down a drop east
    over a gap of 16 onto strip B at 0 (x 16..16+width) running north to
    the goal at z 55."""
    floors = plate(-20, 0, -5, 5, 25.0) + plate(16, 16 + width, -5, 60, 0.0)
    walk = WalkMap(floors, climb=CLIMB, gravity=G, flights={k: damped_flight(k) for k in PUSH})
    return walk, walk.route_to((16 + width / 2.0, 2.0, 55.0), 3.0)


def test_the_landing_speed_across_is_the_damped_flight_s_plus_what_the_floor_turns():
    """Stone off A's edge (its centre 27) onto B 16 east (its centre 2): the
    flight's push takes it 0.3 of its fall (7.5) across, the rest, 8.5 less
    the EDGE_ROLL (1.6) it rolls round the corner first, at the speed s it
    leaves with, which goes C = -vy / g as far: it lands at
    s (1 - k C) + push C (k 0.3, push 6). The same onto a face falling 0.25
    east keeps the part of its fall's speed along the face: vy d / (1 + d^2)
    more east."""
    k, g = 0.3, G
    t = np.arange(0.0, 6.0, 1.0 / 1200.0)
    fall = (g / k) * (t - (1.0 - np.exp(-k * t)) / k)
    vy = float(np.interp(25.0, fall, (g / k) * (1.0 - np.exp(-k * t))))
    c = vy / g
    walk, _ = course(10.0)
    a = np.argmin(np.linalg.norm(walk.points - (0.0, 25.0, 0.0), axis=1))
    b = np.argmin(np.linalg.norm(walk.points - (16.0, 0.0, 0.0), axis=1))
    across = float(np.hypot(*(walk.points[b] - walk.points[a])[[0, 2]])) - EDGE_ROLL
    want = (across - 7.5) / c * (1.0 - k * c) + 6.0 * c
    v = landing_velocity(walk, np.array([a]), np.array([b]), "stone")[0]
    assert abs(float(np.hypot(*v)) - want) < 0.05 * want
    walk.downhill[b] = (0.25, 0.0)
    v2 = landing_velocity(walk, np.array([a]), np.array([b]), "stone")[0]
    turned = (vy - 0.25 * float(np.hypot(*v))) * 0.25 / (1.0 + 0.25 ** 2)
    assert abs(float(np.hypot(*v2)) - float(np.hypot(*v)) - turned) < 0.05 * turned


def test_a_drop_landing_across_a_strip_too_narrow_to_stop_on_is_no_way():
    """Stone lands on B at about 12 units/s east (the test above); its push
    (5/7 of 6 rolling) stops it in 12.1^2 / 8.6 = 17: B 10 wide is no way
    for it, 30 wide is. Wood (push 15, its flight's own push takes it 18.7
    across) lands at about 12.5 and stops in 12.5^2 / 21.4 = 7.3: B 10 wide
    is a way for it."""
    narrow, route = course(10.0)
    assert not math.isfinite(cost_from(narrow, route, (-10, 25, 0), "stone"))
    assert math.isfinite(cost_from(narrow, route, (-10, 25, 0), "wood"))
    wide, route = course(30.0)
    assert math.isfinite(cost_from(wide, route, (-10, 25, 0), "stone"))


def test_a_short_drop_onto_a_narrow_strip_is_a_way():
    """Level 06's sector 1: off a bridge 2.5 down onto a strip below it
    running crosswise. Platform A 2.5 high ends at x 0; strip B (x 2.5..5)
    runs north to the goal. The stone ball rounds A's corner for 1.6 of the
    3 across and flies the rest: it lands at about 4.4 units/s (7.3 were it
    to fly all 3) and stops in 4.4^2 / 8.6 = 2.3, on the strip."""
    floors = plate(-20, 0, -5, 5, 2.5) + plate(2.5, 5, -5, 60, 0.0)
    walk = WalkMap(floors, climb=CLIMB, gravity=G, flights={k: damped_flight(k) for k in PUSH})
    route = walk.route_to((3.75, 2.0, 55.0), 3.0)
    assert math.isfinite(cost_from(walk, route, (-10, 2.5, 0), "stone"))
