"""A drop's flight beyond its edge, and a hole the ball falls through
(issue 40 item 3; docs/levels.md "Autopilot"; autopilot_map
``WalkMap._struck`` and ``WalkMap._in_hole``).

Level 06's sector 2 (the game's files): the route dropped diagonally off a
ledge of the upper wooden floor under that floor's own end, and the ball
stuck against the rail arched over the end (60 rollbacks); the way the
level means is down through the round hole, 2.5 in radius, over fan 05,
as wood, which the map filled with midpoints of the hole's chords."""

import math

import numpy as np

from behaviors.ballance.autopilot_map import WalkMap

from test_autopilot import cost_from, plate
from test_autopilot_lids import bar


def test_a_drop_whose_flight_passes_through_a_bar_is_no_way():
    """Floor A 10 high (z 0..10), floor B at 0 from z 16: a ball leaving A's
    edge (its centre 12) falls 10 onto B 6 to 8 across (the ballistic reach
    of a fall of 10 at 8 units/s: 8). A bar across the gap (z 14.5..15.5)
    7 to 8 high lies on every such flight (its centre about 8 there): no
    way to B; 2 to 3 high, under the flights, the drop stays."""
    floors = plate(-6, 6, 0, 10, 10.0) + plate(-6, 6, 16, 40, 0.0)
    for y, reached in ((None, True), (7.0, False), (2.0, True)):
        walk = WalkMap(floors + ([] if y is None else bar(-8, 8, y, y + 1.0, 14.5, 15.5)))
        route = walk.route_to((0.0, 2.0, 30.0), 3.0)
        assert math.isfinite(cost_from(walk, route, (0, 10, 4), "wood")) == reached, y


def octagon_ring(radius, outer, y):
    """An octagonal floor at height y, from ``radius`` to ``outer`` round the Y axis (a hole in it)."""
    a = (np.arange(9) + 0.5) * (math.pi / 4.0)
    inner = [(radius * math.cos(t), y, radius * math.sin(t)) for t in a]
    out = [(outer * math.cos(t), y, outer * math.sin(t)) for t in a]
    return [tri for k in range(8) for tri in ((inner[k], out[k], out[k + 1]), (inner[k], out[k + 1], inner[k + 1]))]


def test_a_hole_wider_than_the_ball_is_a_way_down_and_a_narrower_one_is_not():
    """A floor 10 high with an octagonal hole over a floor at 0 (x, z -3..3)
    reached only through it: 2.5 in radius (level 06's over fan 05), the
    ball (radius 2) falls through, a way down; 1.8, it rests over the hole,
    no way. The hole's chords 2.5 to 4.4 long are no rail pair's gap."""
    for radius, reached in ((2.5, True), (1.8, False)):
        walk = WalkMap(octagon_ring(radius, 12.0, 10.0) + plate(-3, 3, -3, 3, 0.0))
        route = walk.route_to((0.0, 2.0, 0.0), 1.5)
        assert math.isfinite(cost_from(walk, route, (7, 10, 0), "wood")) == reached, radius
