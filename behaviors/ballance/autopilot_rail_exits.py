"""The autopilot off a single rail's side (issue 40 item 3; docs/levels.md
"Autopilot", "Off a rail's side").

The map drops from a node on a single rail's top to a lower floor beside
the rail as from any edge; but the ball on the rail is held on its line by
the rail steering, and the aim at a landing that lies mostly along the rail
keeps it on the facet: level 06's route leaves ``A_03_Rail_04`` (top 8.1,
at x 201) at z -662.4 for the platform 4.7 lower whose node lies 1.3 east
of the rail's line and 5.2 farther along it; the paper ball rolled past the
drop's node, was steered back to it, and stalled there on every try
(gave up). A player tips the ball off the rail's side toward the landing:
beyond the top facet's edge (0.14 off the line) it pivots off in under a
second (autopilot_rails). So here: while the ball rests on a single rail
and the route's next lower step lands beside the rail's line, the push is
straight off the rail toward the landing's side, its way along the rail
only as much as the landing lies ahead.
"""

from __future__ import annotations

import numpy as np

from .autopilot_rails import RailLines
from .values import BALL_RADIUS

EXIT_DOWN = BALL_RADIUS      # a step of the route lower than the ball's centre by more than this leaves the rail
EXIT_BESIDE = 1.0            # ... when its landing is this far beside the rail's line at least (RAIL_OFF: a ball
                             # that far off has fallen)
EXIT_AHEAD = 8.0             # ... looked for this far along the route
EXIT_SIDE_SPEED = 4.0        # the sideways speed wanted off the rail (twice the rail steering's most back onto it)
EXIT_ALONG = 1.0             # ... and along it this times the landing's distance ahead along the rail


def rail_exit(lines: RailLines, ball, points):
    """The horizontal velocity (x, 0, z) that tips the ball at ``ball`` off
    the single rail it rests on toward the first of the route's ``points``
    within EXIT_AHEAD that is EXIT_DOWN lower than the ball and EXIT_BESIDE
    beside the rail's line; None when the ball rests on no single rail or
    the route has no such landing."""
    ball = np.asarray(ball, float)
    line = lines.line(ball - (0.0, BALL_RADIUS, 0.0))
    if line is None:
        return None
    centre, u = line
    side = np.array([-u[1], u[0]])              # the offset from the line, to the left of its way (+) or right

    def beside_line(q) -> float:
        return float((np.asarray(q, float) - centre)[[0, 2]] @ side)

    if abs(beside_line(ball)) > EXIT_BESIDE:
        return None
    gone = 0.0
    for i, q in enumerate(points):
        if i:
            gone += float(np.linalg.norm(q - points[i - 1]))
        if gone > EXIT_AHEAD:
            break
        beside = beside_line(q)
        if q[1] < ball[1] - EXIT_DOWN and abs(beside) >= EXIT_BESIDE:
            ahead = float((np.asarray(q, float) - ball)[[0, 2]] @ u)
            want = side * np.sign(beside) * EXIT_SIDE_SPEED + u * ahead * EXIT_ALONG
            return np.array([want[0], 0.0, want[1]])
    return None
