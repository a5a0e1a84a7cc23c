"""The autopilot on a single rail (issue 40 item 3; docs/levels.md
"Autopilot", "Single rails"; behaviors/ballance/autopilot_rails.py).

A rail's flat top facet is 2 x 0.35 x sin(22.5 deg) = 0.27 wide: a ball
whose centre leaves it pivots about its edge and is off the rail within a
second. The written levels: floor A (x -6..6, z -25..0, top y 0) where the
ball starts at z -20, a single rail (``octagonal_rail``, radius 0.35, its
top level with the floors) over the void, floor B at the rail's end with
the finish 15 into it; a death cube under all. The rail is straight (LONG
along +Z) or a quarter circle of radius BEND turning toward +X."""

import math

import numpy as np
import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.autopilot_rails import RailLines
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, course_groups, game_folder, heading_z, played_at_once, translation

RADIUS = 0.35
TOP = RADIUS * math.cos(math.pi / 8.0)      # the axis this far below the top facet
LONG = 60.0
PIECE = 2.5                                 # the curved rail's pieces, this long
BEND = 25.0
SPAN = 3.75                                 # a rail pair's rails this apart


def turned(angle: float, x: float, y: float, z: float):
    """A world matrix (3.3) turning local Z (a rail piece's way) from +Z toward +X by ``angle``."""
    c, s = math.cos(angle), math.sin(angle)
    return (c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c, x, y, z)


def rail_level(curved: bool, kind: str | None = None, pair: float = 0.0, edge: bool = False) -> LevelBuilder:
    """``edge``: the straight rail turned 22.5 degrees about its way, an
    edge on top between two faces 0.41 steep (level 12's A07_Rail_01: 0.42)."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    mesh = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(RADIUS, 10.0 if not curved else PIECE), rail_mat)
    if curved:
        count = int(round(BEND * math.pi / 2.0 / PIECE))
        step = math.pi / 2.0 / count
        rails = []
        for i in range(count):                   # the arc's centre at (BEND, z 0): from (0, 0) to (BEND, BEND)
            a = (i + 0.5) * step
            rails.append(b.entity(f"A01_Rail_{i + 1:02d}", mesh,
                                  turned(a, BEND - BEND * math.cos(a), -TOP, BEND * math.sin(a))))
        end = b.box("A01_Floor_02", (25, 1, 12), (BEND + 12.5, -0.5, BEND), floor_mat)
        finish = (BEND + 15.0, 0.0, BEND)
    else:
        c, s = math.cos(math.pi / 8.0), math.sin(math.pi / 8.0)
        rails = [b.entity(f"A01_Rail_{i + 1:02d}", mesh,
                          (c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0, 0.0, -RADIUS, 5.0 + 10.0 * i) if edge
                          else translation(0, -TOP, 5.0 + 10.0 * i)) for i in range(int(LONG / 10.0))]
        rails += [b.entity(f"A01_Rail_{i + 11:02d}", mesh, translation(SPAN, -TOP, 5.0 + 10.0 * i))
                  for i in range(int(pair / 10.0))]
        end = b.box("A01_Floor_02", (12, 1, 25), (0, -0.5, LONG + 12.5), floor_mat)
        finish = (0.0, 0.0, LONG + 15.0)
    floors = [b.box("A01_Floor_01", (12, 1, 25), (0, -0.5, -12.5), floor_mat), end]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 0), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, -20), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, -20))
    course_groups(b, floors, death, start, [reset], b.entity("PE_Balloon_01", None, translation(*finish)))
    b.group("Phys_FloorRails", rails)
    if kind is not None:
        pad = b.entity(f"P_Trafo_{kind}_01", None, translation(0, 0, -20))
        b.group(f"P_Trafo_{kind}", [pad])
    b.group("Sector_01", [start])
    return b


def pilot_on(tmp_path, curved: bool, seconds: float = 40.0, **level) -> Pilot:
    game_folder(tmp_path, rail_level(curved, **level).data(), {})
    return Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), seconds)


def test_the_rails_line_is_the_middle_of_its_top_facet(tmp_path):
    """On the straight rail: the line at x 0 (the middle of its top facet),
    along Z, from any point within reach; a point between two rails 3.75
    apart has none."""
    pilot = pilot_on(tmp_path, False)
    lines = pilot.rails
    centre, u = lines.line((0.4, 0.0, 30.3))
    assert abs(centre[0]) < 0.02 and abs(centre[2] - 30.3) < 0.01
    assert abs(centre[1]) < 0.01                                    # on the top facet
    assert abs(u[1]) > 0.999                                       # along Z, within 2.6 degrees
    assert lines.line((0.0, 0.0, -10.0)) is None                     # floor A: no rail
    tube = meshes.octagonal_rail(RADIUS, 10.0)
    one = tube.vertices[tube.faces] - (0.0, TOP, 0.0)
    assert abs(RailLines(one).line((1.0, 0.0, 0.0))[0][0]) < 0.02
    assert RailLines(np.concatenate([one - (1.875, 0, 0), one + (1.875, 0, 0)])).line((0.0, 0.0, 0.0)) is None


@pytest.mark.parametrize("curved, edge", [(False, False), (True, False), (False, True)],
                         ids=["straight", "curved", "edge on top"])
def test_the_stone_ball_rides_a_single_rail_to_the_floor_at_its_end(tmp_path, curved, edge):
    """Born stone (its push F / m 6.1, 4.3 rolling: the weakest), it rides
    the rail balanced on its line with no fall: without the rail's steering
    the route's aim points, anywhere on the 0.27-wide facet, and the
    steering's 0.6 units/s of slack took it off (13 and 6 rollbacks)."""
    outcome = pilot_on(tmp_path, curved, kind="Stone", edge=edge).run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()


def test_the_wood_ball_rides_one_rail_of_a_pair_on_to_where_it_goes_on_alone(tmp_path):
    """A rail pair (x 0 and SPAN, z 0..30) whose rail at x 0 goes on alone
    to floor B, as level 12's A02_Rail_03: the ball between the rails
    cannot climb onto one (autopilot_map ``_going_on``) and falls off the
    pair's end, so the route rides the rail at x 0 from floor A."""
    pilot = pilot_on(tmp_path, False, pair=30.0)
    route, walk = pilot.route(1), pilot.map
    way = [walk.points[s % len(walk.points)] for s in route.ahead(route.state((0.0, 2.0, -20.0), "wood"), 1e9)]
    on = [q for q in way if 0.0 < q[2] < LONG]
    assert on and all(abs(q[0]) < 0.5 for q in on)                  # on the rail's top all along
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
