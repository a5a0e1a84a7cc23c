"""The autopilot's curls (issue 40 item 3; docs/levels.md "Autopilot",
"Curls"; behaviors/ballance/autopilot_curls.py): a rail pair's end that
turns up past upright throws a fast ball back over its dip (level 03's
``A02_Rail_05`` onto ``A02_Rail_06``).

The written level: the start floor (x -6..6, z -10..5, top y 0) with a
stone pad (the ball is born stone), a rail pair (``octagonal_rail``, radius
0.35, 3.75 apart) falling DROP over RUN along +Z, a flat dip DIP long, a
curl of radius CURL turning up and back through CURL_TURN (the rails run
level for FLAT from the start floor first); over the dip,
LAND above it, a floor running off sideways to the finish; a death cube
under all. No floor leads up to that floor: only the curl's throw does."""

import math

import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.autopilot_curls import curl_runs
from behaviors.ballance.level import FINISHED, level_behavior
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, game_folder, plate, played_at_once, stone_course

RADIUS = 0.35
TOP = RADIUS * math.cos(math.pi / 8.0)      # a rail's axis this far below its top facet
SPAN = 3.75
PIECE = 2.0
DROP, RUN = 115.0, 180.0
DIP = 24.0
CURL, CURL_TURN = 5.0, math.radians(150.0)
LAND = 5.0
FLAT = 10.0                                 # the rails run level from the start floor this far first
DIP_END = 5.0 + FLAT + RUN + DIP            # z of the curl's foot


def pitched(angle: float, x: float, y: float, z: float):
    """A world matrix (3.3) turning local Z (a rail piece's way) from +Z up toward +Y by ``angle``."""
    c, s = math.cos(angle), math.sin(angle)
    return (1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c, x, y, z)


def curl_level() -> LevelBuilder:
    """The module's docstring's level: the rails' tops level with the start
    floor at z 5 and with the dip (y -DROP), the curl's axis a circle of
    radius CURL from the dip's end."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    slope = math.atan2(DROP, RUN)
    long = math.hypot(DROP, RUN) / round(math.hypot(DROP, RUN) / 10.0)
    down = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(RADIUS, long), rail_mat)
    piece = b.mesh("A01_Rail_Piece", meshes.octagonal_rail(RADIUS, PIECE), rail_mat)
    first = b.mesh("A01_Rail_Flat", meshes.octagonal_rail(RADIUS, FLAT), rail_mat)
    flat = b.mesh("A01_Rail_Dip", meshes.octagonal_rail(RADIUS, DIP), rail_mat)
    rails = []
    for x in (-SPAN / 2.0, SPAN / 2.0):
        rails.append(b.entity(f"A01_Rail_{len(rails) + 1:02d}", first, pitched(0.0, x, -TOP, 5.0 + FLAT / 2.0)))
        for i in range(round(math.hypot(DROP, RUN) / 10.0)):
            t = (i + 0.5) * long
            rails.append(b.entity(f"A01_Rail_{len(rails) + 1:02d}", down,
                                  pitched(-slope, x, -TOP - t * math.sin(slope), 5.0 + FLAT + t * math.cos(slope))))
        rails.append(b.entity(f"A01_Rail_{len(rails) + 1:02d}", flat,
                              pitched(0.0, x, -DROP - TOP, DIP_END - DIP / 2.0)))
        turns = int(math.ceil(CURL * CURL_TURN / PIECE))
        for i in range(turns):
            a = (i + 0.5) * CURL_TURN / turns
            rails.append(b.entity(f"A01_Rail_{len(rails) + 1:02d}", piece,
                                  pitched(a, x, -DROP - TOP + CURL - CURL * math.cos(a),
                                          DIP_END + CURL * math.sin(a))))
    floors = [plate(b, "A01_Floor_01", [(-6, 0, -10), (6, 0, -10), (6, 0, 5), (-6, 0, 5)], floor_mat),
              plate(b, "A01_Floor_02", [(-6, LAND - DROP, DIP_END - 20), (40, LAND - DROP, DIP_END - 20),
                                        (40, LAND - DROP, DIP_END - 2), (-6, LAND - DROP, DIP_END - 2)], floor_mat)]
    stone_course(b, floors, stone, (30.0, LAND - DROP, DIP_END - 11.0), DROP + 40.0)
    b.group("Phys_FloorRails", rails)
    return b


@pytest.fixture(scope="module")
def pilot(tmp_path_factory) -> Pilot:
    root = tmp_path_factory.mktemp("curl")
    game_folder(root, curl_level().data(), {})
    return Pilot(played_at_once(scenes.load(game_level(str(root), 1))), 60.0)


def test_the_map_finds_the_curl_below_its_run_up(pilot):
    """The dip's end is where its rails' tops (y -DROP; a piece joint sags
    0.4) start to rise: within 2 of the curl's foot (its circle of radius 5
    rises 0.42 over 2); the way +Z; the run-up's top level with the start
    floor (the rails run level from it), DROP above the dip, more than
    CURL_RISE."""
    walk = pilot.map
    runs = curl_runs(walk)
    assert runs
    for dip, way, start in runs:
        assert walk.points[dip, 1] == pytest.approx(-DROP, abs=0.5)
        assert DIP_END - 2.0 <= walk.points[dip, 2] <= DIP_END + 2.0
        assert way == pytest.approx((0.0, 0.0, 1.0), abs=0.01)
        assert walk.points[start, 1] == pytest.approx(0.0, abs=0.1)
        assert 5.0 <= walk.points[start, 2] <= 5.0 + FLAT


def test_the_stone_ball_thrown_back_over_the_dip_lands_on_the_floor_and_finishes(pilot):
    """Measured: the stone ball pushed down the rails goes round the curl
    and comes to rest on the floor over the dip (y LAND - DROP, between
    z DIP_END - 20 and DIP_END - 2), the map's only way there; the
    autopilot takes it and finishes with no rollback."""
    walk = pilot.map
    assert walk.curls
    for s, land in walk.curls:
        assert walk.points[land, 1] == pytest.approx(LAND - DROP, abs=0.1)
        assert DIP_END - 20.0 <= walk.points[land, 2] <= DIP_END - 2.0
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "stone")])
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
    assert pilot.rollbacks == 0
