"""The autopilot's lifts out of a fan's column (issue 40 item 3; docs/levels.md
"Autopilot"): the paper ball leaves a column with its centre at most the
column's ``highest`` plus its radius; a face over its way lower than its
top closes the way (level 06's low fan ``P_Modul_18_12`` beside the strip
under ``A_03_Rail_06``: 3.76 of room between them, the ball is 4 tall); a
flight into a column's foot ends where the draught catches the ball."""

import math

import numpy as np

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.values import BALL_RADIUS
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, course_groups, game_folder, heading_z, played_at_once, translation

FAN = ((0.0, 1.14, 0.0), (0.0, 17.14, 0.0))    # a column's axis: its top 17.14, the ball's lowest point to 18.44
STRIP = 18.1                                     # 0.34 under that, as level 06's strip under fan 12's top
NEAR, WIDE = 2.35, 1.7                           # the strip's near edge off the axis, its width
ROOM = 3.76                                      # between the strip and the rail's underside (level 06: 7.3 - 3.54)
RADIUS = 0.35                                    # the rail's tube


def plate(x0, x1, z0, z1, y):
    """Two triangles: a floor from (x0, z0) to (x1, z1) at height y."""
    a, b, c, d = (x0, y, z0), (x1, y, z0), (x1, y, z1), (x0, y, z1)
    return [(a, b, c), (a, c, d)]


def rail_over_strip(x):
    """The triangles of an octagonal rail along Z over the strip's middle
    at ``x``, its underside ROOM above the strip."""
    m = meshes.octagonal_rail(RADIUS, 30.0)
    v = np.asarray(m.vertices, float) + (x, STRIP + ROOM + RADIUS, 0.0)
    return v[np.asarray(m.faces)].tolist()


def course(railed: bool):
    """The fan's floor (y 0) round the column; two strips 0.34 under the
    ball's highest lowest point, along Z, NEAR off the axis either side
    (x +2.35..+4.05 and -4.05..-2.35), a rail over the +x one when
    ``railed``."""
    tris = plate(-1.5, 1.5, -1.5, 1.5, 0.0) + plate(NEAR, NEAR + WIDE, -15, 15, STRIP) \
        + plate(-NEAR - WIDE, -NEAR, -15, 15, STRIP)
    if railed:
        tris += rail_over_strip(NEAR + WIDE / 2.0)
    return WalkMap(tris, fans=[FAN])


def test_the_room_under_the_rail_is_less_than_the_ball():
    """The hand numbers: the ball's centre on the strip under the rail is
    at most WIDE / 2 off the rail's axis and BALL_RADIUS above the strip,
    nearer the tube than the ball's radius plus the tube's."""
    gap = math.hypot(ROOM + RADIUS - BALL_RADIUS, WIDE / 2.0)
    assert ROOM < 2.0 * BALL_RADIUS and gap < BALL_RADIUS + RADIUS


def test_no_lift_onto_a_strip_under_a_rail():
    """Bare, both strips are the lift's landings; with the rail over the +x
    strip, no node of it is, the -x strip's still are, and the paper ball
    has no way from the fan's floor to the railed strip's far end."""
    for railed in (False, True):
        walk = course(railed)
        landings = walk.points[walk.lifts[0][1]]
        assert (landings[:, 0] < 0).any(), railed
        assert (landings[:, 0] > 0).any() != railed, railed
        route = walk.route_to((NEAR + WIDE / 2.0, STRIP + BALL_RADIUS, 12.0), 2.0)
        cost = route.cost[route.state((0.0, BALL_RADIUS, 0.0), "paper")]
        assert math.isfinite(cost) != railed, railed


def test_no_drop_into_a_columns_foot_from_over_its_top():
    """Floor A 0.4 over the column's top, ending over its axis (level 06's
    upper pair of A_03_Rail_02 over fan 09: 0.3), floor B 4 under the
    top beyond the column: the paper ball falling off A's end is held
    in the draught, so no paper link goes from A into the lift's foot; B's
    edge 4 under the top, as before, drops into it."""
    top = FAN[1][1]
    walk = WalkMap(plate(-1.5, 1.5, -1.5, 1.5, 0.0) + plate(-4, 4, -30, 0, top + 0.4)
                   + plate(-4, 4, 3.5, 30, top - 4.0), fans=[FAN])
    n, (below, _) = len(walk.points), walk.lifts[0]
    into = walk.graph[:n][:, below].tocoo()          # paper (kind 0) links into the foot nodes
    assert len(below) and into.nnz
    sources = walk.points[into.row, 1]
    assert (sources < top - 1.0).all() and (np.abs(sources - (top - 4.0)) < 0.1).any()


def caught_level():
    """Floor A (x -6..6, z -5..40, top y 12) where the ball starts on a
    paper pad, a fan at z 51 on floor B (x -3..3, z 48..54, top 0) in the
    pit beyond A's edge, 11 off the fan's axis and 5 under its column's top
    (17.14), floor C (z 59..89, top 16.8, from 8 off the axis) beyond the column with the finish:
    level 06's platform by fan ``P_Modul_18_11`` (10.2 off its axis, 2.6
    under its top) and the platform south of it."""
    b = LevelBuilder()
    floor_mat, stone = b.material("Floor", 0xFF8C8577), b.material("Stone", 0xFF808080)
    floors = [b.box("A01_Floor_01", (12, 1, 45), (0, 11.5, 17.5), floor_mat),
              b.box("A01_Floor_02", (6, 1, 6), (0, -0.5, 51), floor_mat),
              b.box("A01_Floor_03", (12, 1, 30), (0, 16.3, 74), floor_mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 40), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 12.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 15.65, 0))
    course_groups(b, floors, death, start, [reset], b.entity("PE_Balloon_01", None, translation(0, 16.8, 80)))
    pad = b.entity("P_Trafo_Paper_01", None, translation(0, 12, 0))
    fan = b.entity("P_Modul_18_01", None, translation(0, 0, 51))
    b.group("P_Trafo_Paper", [pad])
    b.group("P_Modul_18", [fan])
    b.group("Sector_01", [start, pad, fan])
    return b


def test_a_flight_into_a_columns_foot_ends_where_the_draught_catches_the_ball(tmp_path):
    """The route jumps off A's edge to the fan's foot, 11 across and 12
    down, and lifts from there onto C: the draught catches the flying
    ball above the foot, and the lift takes it on to C; the level is
    finished with no rollback (before: the ball, still flying at the
    foot, hovered in the column until stuck, and rolled back)."""
    game_folder(tmp_path, caught_level().data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    route, walk = pilot.route(1), pilot.map
    n, (below, _) = len(walk.points), walk.lifts[0]
    way = [s % n for s in route.ahead(route.state((0.0, 14.0, 0.0), "paper"), 1e9)]
    assert set(way) & set(below)                                     # by the fan's foot
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
