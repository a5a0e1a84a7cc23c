"""A ride over another kind's transformer pad is no ride for it
(behaviors/ballance/autopilot_ride_pads.py; docs/levels.md "Autopilot",
"Rides over pads"): the pad turns the ball mid-ride and the new ball is born
at rest, its speed gone (level 06's paper ball, riding the wave track over
``P_Trafo_Wood_07`` on a rise, was turned to wood there and rolled back into
the trough, 24 times).

The written wave (as tests/test_autopilot_rides.py's, 24 wide): y = 4 + 4
cos(2 pi z / 30), crests at z 0, 30, 60, 90, valleys at 15, 45, 75, steeper
than the stone ball's push holds it on over 7.5 of each face (more than the
5.3 its rocking takes it up): it crosses each valley only on a ride. A wood
pad lies on the middle of the rise out of the valley at 45 (z 52)."""

import math

import numpy as np
from types import SimpleNamespace

from behaviors.ballance.autopilot import climb
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.values import TRANSFORMER_RADIUS

PHYSICS = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)
CLIMBS = {k: climb(k, PHYSICS) for k in ("paper", "wood", "stone")}


def height(z):
    return 4.0 + 4.0 * math.cos(2.0 * math.pi * z / 30.0)


PAD = (0.0, height(52.0), 52.0)


def plate(x0, x1, z0, z1, y0, y1=None):
    """Two triangles from (x0, z0) to (x1, z1), at y0 along z0 and y1 (default y0) along z1."""
    y1 = y0 if y1 is None else y1
    a, b, c, d = (x0, y0, z0), (x1, y0, z0), (x1, y1, z1), (x0, y1, z1)
    return [(a, b, c), (a, c, d)]


def wave_map(pads) -> WalkMap:
    zs = np.arange(0.0, 90.0 + 1e-9, 1.5)
    wave = [t for a, b in zip(zs, zs[1:]) for t in plate(-12, 12, a, b, height(a), height(b))]
    return WalkMap(plate(-12, 12, -20, 0, 8.0) + wave + plate(-12, 12, 90, 110, 8.0), pads=pads, climb=CLIMBS)


def stone_rides(walk):
    """The rides on the stone ball's route from the start plate to the far
    plate (None without a route), and the route's kinds."""
    route = walk.route_to((0.0, 10.0, 105.0), 3.0)
    start = route.state((0.0, 10.0, -10.0), "stone")
    if not math.isfinite(route.cost[start]):
        return None, None
    n, path = len(walk.points), route.ahead(start, 500.0)
    rides = [(walk.points[s % n], walk.points[t % n]) for s, t in zip(path, path[1:]) if (s % n, t % n) in walk.rides]
    return rides, {route.kind(s) for s in path}


def off_pad(a, b) -> float:
    """How far (across) the straight way from a to b passes the pad."""
    a, b, c = (np.asarray(q, float)[[0, 2]] for q in (a, b, PAD))
    t = np.clip(float((c - a) @ (b - a)) / float((b - a) @ (b - a)), 0.0, 1.0)
    return float(np.linalg.norm(a + t * (b - a) - c))


def test_without_the_pad_the_stone_ball_rides_down_the_middle():
    rides, kinds = stone_rides(wave_map(()))
    assert rides and kinds == {"stone"}
    assert min(off_pad(a, b) for a, b in rides) < TRANSFORMER_RADIUS      # the pad's place is on its way


def test_the_stone_balls_rides_pass_the_wood_pad_out_of_its_reach():
    """With the pad, the stone ball still crosses the three valleys on rides
    and stays stone, every ride passing the pad farther than its trigger
    radius (before: over it, the map kept the ball stone through it)."""
    rides, kinds = stone_rides(wave_map([(PAD, "wood")]))
    assert rides is not None and kinds == {"stone"}
    assert len(rides) >= 3
    assert min(off_pad(a, b) for a, b in rides) > TRANSFORMER_RADIUS
