"""Rail pairs side by side (issue 40 item 3; docs/levels.md "Autopilot",
"Curls"): a switchback's rails lie 3.5 to 4 apart, each between two gaps
(level 03's ``A02_Rail_06``: rails at z -131, -134.5, -138.5 and -142, the
gaps joined by U-turns at alternate ends). A ball resting in one gap is
held by the rails on either side: it does not hop over one into the next,
nor climb onto one's top from beside it (autopilot_map
``WalkMap._over_rail``). Played from sector 2, the stone ball landing in
the middle gap was routed straight over the rail at z -138.5 into the pair
that goes on, and stuck against it.

Written here: three rails along Z at x -3.75, 0 and 3.75 (tops 0) from z
0 to 40 over nothing, the gaps A and B between them."""

import numpy as np

from behaviors.ballance.autopilot_map import WalkMap

from test_autopilot import rail


def test_no_link_goes_over_a_rail_from_one_gap_into_the_next():
    """Along the rails' middle stretch (z 5 to 35): no link from gap A's
    midpoints (x -1.875) to gap B's (x 1.875) or onto the middle rail's top
    (x 0); links along each gap stay."""
    rails = rail(-3.75, 0, 40, 0.0) + rail(0.0, 0, 40, 0.0) + rail(3.75, 0, 40, 0.0)
    walk = WalkMap(rails, rails=[True] * len(rails))
    p, n = walk.points, len(walk.points)
    g = walk.graph.tocoo()
    a, b = g.row % n, g.col % n
    middle = (p[a, 2] > 5.0) & (p[a, 2] < 35.0) & (p[b, 2] > 5.0) & (p[b, 2] < 35.0)
    gap_a = walk.span & (np.abs(p[:, 0] + 1.875) < 0.5)
    gap_b = walk.span & (np.abs(p[:, 0] - 1.875) < 0.5)
    rail_0 = walk.rail & ~walk.span & (np.abs(p[:, 0]) < 0.5)
    assert (middle & gap_a[a] & gap_a[b]).sum() >= 10 and (middle & gap_b[a] & gap_b[b]).sum() >= 10
    assert not (middle & gap_a[a] & (gap_b[b] | rail_0[b])).any()
    assert not (middle & gap_b[a] & (gap_a[b] | rail_0[b])).any()
