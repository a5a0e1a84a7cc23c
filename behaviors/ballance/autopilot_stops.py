"""Braking to rest at a push's run-up (issue 40; docs/levels.md
"Autopilot", "Stopping at a run-up").

A push (a Blocker's, autopilot.Pilot.push_task) starts only once the ball
stands at its run-up (AT_RUN_UP across, RUN_UP_SPEED slow), and the route
there ends at the run-up: nothing after its end is a bend, so the steering
came in at full speed and slowed only within the goal's nodes, where a
heavy ball's push cannot stop it. Level 06's sector 4, measured: the stone
ball, steered from ``P_Trafo_Stone_01`` north over the wave track to the box
push's run-up (392.9, 8.3, -714.8; the corridor 5 wide, its north edge at
z -712), came onto the corridor at 6.6 units/s heading north-east, still
pushed north 3 from the run-up, braked from 1.4 from it, rolled over the
corridor's north edge at z -711 and fell (frame 1030 of the probe). So on
a route to a run-up the speed is at most the one from which the kind's
braking push stops the ball over the path left to the run-up.
"""

from __future__ import annotations

import math

import numpy as np


def stop_speed(route, state: int, brake: float, reach: float) -> float:
    """The speed at most from which braking at ``brake`` stops the ball at
    the end of ``route`` (sqrt(2 brake left), ``left`` the path from
    ``state`` to it); inf when the end lies farther than ``reach``."""
    path = route.ahead(state, reach)
    if route.next[path[-1]] >= 0:
        return math.inf
    points = np.array([route.point(s) for s in path])
    left = float(np.linalg.norm(np.diff(points[:, (0, 2)], axis=0), axis=1).sum())
    return math.sqrt(2.0 * brake * left)
