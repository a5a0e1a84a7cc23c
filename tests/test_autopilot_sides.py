"""Two rails one above the other hold a ball pushed against them (issue 40
item 3; docs/levels.md "Autopilot"): level 06's way out of its first
trough is along ``A_01_Rail_03``'s two tubes (tops 8.4 and 12.6 at x 42.7)
over the void, the wood ball pushed east into them and north along them
(measured on the game's files: its centre 10.2 high, 1.0 west of them).

Written here: floor A (x -6..6, z -20..0, top y 0) where the wood ball
starts, floor B (z 30..50) with the finish, the void between, and along
floor A's east side two octagonal tubes (circumradius 0.35, their tops
0.32 over their centres) at x 5 from z -5 to 35, their centres 0.3 and 4.5
high. A ball of radius 2 touching both has its centre midway, 2.4 high,
d = sqrt(2.32^2 - 2.1^2) = 0.99 (the contacts 2 + 0.32 from
the tubes' centres) beside them; each contact's push on it
leans d / 2.1 = 0.47 of its upward part away from the tubes, so the ball
stays only if its own push toward them is that part of its weight at
least: wood's is 0.747 (0.43 per PSI of 1/66 s on 1.9 kg under 20), the
stone's 0.304."""

import math
from types import SimpleNamespace

import numpy as np

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot, climb
from behaviors.ballance.autopilot_map import WalkMap, side_rest
from scenes.virtools import game_level

from test_autopilot import cost_from, plate, rail
from virtools_levels import LevelBuilder, course_groups, game_folder, heading_z, played_at_once, translation

X = 5.0
LOW, HIGH = 0.3, 4.5         # the tubes' centres
RADIUS = 0.35
TOP = RADIUS * math.cos(math.pi / 8.0)     # an octagon with a flat face on top: its top over its centre
PHYSICS = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)


def test_the_map_goes_along_two_rails_one_above_the_other_for_a_push_that_holds_the_ball():
    """The tubes' tops as the map sees them (strips 0.7 wide, flagged rails):
    from floor A to floor B only beside them, for wood and paper, not stone;
    the route's nodes over the void lie where the ball's centre is, 2.4
    high, d beside the tubes."""
    tubes = rail(X, -5, 35, LOW + TOP) + rail(X, -5, 35, HIGH + TOP)
    floors = plate(-6, 6, -20, 0, 0.0) + plate(-6, 6, 30, 50, 0.0)
    walk = WalkMap(tubes + floors, climb={k: climb(k, PHYSICS) for k in ("paper", "wood", "stone")},
                   rails=[True] * len(tubes) + [False] * len(floors))
    route = walk.route_to((0.0, 2.0, 45.0), 3.0)
    assert math.isfinite(cost_from(walk, route, (0, 0, -15), "wood"))
    assert math.isfinite(cost_from(walk, route, (0, 0, -15), "paper"))
    assert cost_from(walk, route, (0, 0, -15), "stone") == math.inf
    state = route.state((0.0, 2.0, -15.0), "wood")
    over = np.array([route.point(s) for s in route.ahead(state, math.inf)])
    over = over[(over[:, 2] > 5.0) & (over[:, 2] < 25.0)]
    d = math.sqrt((2.0 + TOP) ** 2 - (0.5 * (HIGH - LOW)) ** 2)
    assert len(over) >= 5
    assert np.allclose(over[:, 1], 0.5 * (LOW + HIGH), atol=0.05)
    assert np.all(np.abs(np.abs(over[:, 0] - X) - d) <= RADIUS + 0.1), over     # the tops: strips 0.7 wide


def side_rails_level() -> LevelBuilder:
    """The module docstring's level, as a game file (wood ball; death cube under all)."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    floors = [b.box("A01_Floor_01", (12, 1, 20), (0, -0.5, -10), floor_mat),
              b.box("A01_Floor_02", (12, 1, 20), (0, -0.5, 40), floor_mat)]
    mesh = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(RADIUS, 40.0), rail_mat)
    rails = [b.entity(f"A01_Rail_0{i}", mesh, translation(X, y, 15)) for i, y in ((1, LOW), (2, HIGH))]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 15), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, -15), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, -15))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 45))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("Phys_FloorRails", rails)
    b.group("Sector_01", [start])
    return b


def test_the_autopilot_pushes_the_wood_ball_along_the_rails_over_the_void_to_the_finish(tmp_path):
    """The steering presses the ball toward the tubes while it is beside
    them: it crosses the void of 30 and finishes, no rollback, no life lost."""
    game_folder(tmp_path, side_rails_level().data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 40.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
    assert outcome.lives == 3


LEAN = 0.85                  # a leaning pair: the lower tube this far toward floor A (level 03's A03_Rail_02), ...
LEAN_HIGH = 3.93             # ... the tubes' centres 4.2 apart in height: a ball touching both has its centre
LEAN_LOW = LEAN_HIGH - 4.2   # 0.425 + d 4.2 / L = 1.245 across from the upper's and 2.1 - d 0.85 / L = 1.934 under
                             # it (L = hypot(0.85, 4.2) = 4.285, d = sqrt(2.3^2 - (L / 2)^2) = 0.836): about 2.0
                             # high, on the floor (the lower tube's top 0.05 high: level 03's lie on their floor)
FACET = 0.135                # half the width of a tube's top facet (level 12's hexagonal rail: 0.27 wide)


def balance_part(upper, lower, centre, rho):
    """The least push toward the tubes, as a part of the weight, that holds
    a ball at ``centre`` (across, up) against tubes centred at ``upper`` and
    ``lower``, rho from both: the two contact forces along their normals
    (each >= 0) with the push and the weight sum to nought; found by halving."""
    n1 = (np.asarray(centre) - upper) / rho
    n2 = (np.asarray(centre) - lower) / rho
    toward = -np.sign(n1[0] + n2[0])                 # the push's way across: toward the tubes

    def held(f):
        n = np.linalg.solve(np.c_[n1, n2], -np.array([toward * f, -1.0]))
        return n.min() >= 0.0

    lo, hi = 0.0, 5.0
    for _ in range(60):
        lo, hi = (lo, (lo + hi) / 2) if held((lo + hi) / 2) else ((lo + hi) / 2, hi)
    return hi


def test_a_ball_rests_against_a_leaning_pair_where_both_tubes_touch_it():
    """side_rest: the ball's centre 2.3 from both tubes' centres, on the
    side asked, and its push the part of its weight the contact forces
    need (halving on the force balance): upright d / half (the module
    docstring's 0.45 for 4.2 apart), leaning toward the ball less, away more."""
    for lean, gap in ((0.0, 4.2), (0.7, 3.83), (-0.7, 3.83), (LEAN, 4.2)):
        across, up, part = side_rest(lean, gap)
        centre = np.array([across, up])
        upper, lower = np.zeros(2), np.array([lean, -gap])
        assert math.isclose(np.linalg.norm(centre - upper), 2.3, abs_tol=1e-9)
        assert math.isclose(np.linalg.norm(centre - lower), 2.3, abs_tol=1e-9)
        assert across > max(lean, 0.0)
        assert math.isclose(part, balance_part(upper, lower, centre, 2.3), abs_tol=1e-6), (lean, gap)
    assert math.isclose(side_rest(0.0, 4.2)[2], math.sqrt(2.3 ** 2 - 2.1 ** 2) / 2.1, rel_tol=1e-12)
    assert climb_part("stone") < side_rest(0.7, 3.83)[2] < side_rest(0.0, 3.83)[2] < side_rest(-0.7, 3.83)[2]


def climb_part(kind):
    """A kind's push as a part of its weight (sin of its climb's angle)."""
    return math.sin(math.atan(climb(kind, PHYSICS)))


def test_the_map_goes_along_a_leaning_pair_beside_its_tubes():
    """Level 03's ``A03_Rail_02`` and ``A04_Rail_01``: the lower tube 0.7 to
    0.85 across from under the upper (an upright pair's nodes were 0.5 apart
    at most: no side nodes, no route on either sector). Written: the tubes'
    tops as facets 0.27 wide, the lower tube LEAN toward floor A. The route
    crosses the void beside the tubes, its nodes where a ball touches both
    (2.3 from both centres, their tops 0.3 over them), on floor A's side."""
    tubes = rail(X - LEAN, -5, 35, LEAN_LOW + TOP, FACET) + rail(X, -5, 35, LEAN_HIGH + TOP, FACET)
    floors = plate(-6, 6, -20, 0, 0.0) + plate(-6, 6, 30, 50, 0.0)
    walk = WalkMap(tubes + floors, climb={k: climb(k, PHYSICS) for k in ("paper", "wood", "stone")},
                   rails=[True] * len(tubes) + [False] * len(floors))
    route = walk.route_to((0.0, 2.0, 45.0), 3.0)
    assert math.isfinite(cost_from(walk, route, (0, 0, -15), "wood"))
    over = np.array([route.point(s) for s in route.ahead(route.state((0.0, 2.0, -15.0), "wood"), math.inf)])
    over = over[(over[:, 2] > 5.0) & (over[:, 2] < 25.0)]
    assert len(over) >= 5
    for x, y in ((X, LEAN_HIGH + TOP - 0.3), (X - LEAN, LEAN_LOW + TOP - 0.3)):
        assert np.all(np.abs(np.hypot(over[:, 0] - x, over[:, 1] - y) - 2.3) <= 0.1), over
    assert np.all(over[:, 0] < X - LEAN)


def test_a_rail_crossing_four_over_another_is_no_side_rail():
    """Level 01's ``A01_Rail_02`` runs straight 4 over a curving rail pair
    at (-100, 27, -167): read as a side rail, the pair's nodes under it
    were left out and sector 1 had no route. Written: a rail along Z 4.2
    over one along X + Z (45 degrees): no side node, and the lower rail's
    nodes under the crossing stay."""
    h = FACET / math.sqrt(2.0)
    a, b = np.array([-10.0, LOW + TOP, -10.0]), np.array([10.0, LOW + TOP, 10.0])
    off = np.array([h, 0.0, -h])
    diagonal = [(a - off, b - off, b + off), (a - off, b + off, a + off)]
    walk = WalkMap(rail(0.0, -10, 10, HIGH + TOP, FACET) + diagonal,
                   climb={k: climb(k, PHYSICS) for k in ("paper", "wood", "stone")}, rails=[True] * 4)
    assert not walk.side.any()
    lower = walk.points[np.abs(walk.points[:, 1] - (LOW + TOP)) < 0.05]
    assert np.min(np.hypot(lower[:, 0], lower[:, 2])) < 1.0
