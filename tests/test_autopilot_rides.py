"""The autopilot's map rides a wave train and takes a rail pair from the
floor beside it (issue 40 item 3; docs/levels.md "Autopilot"), as level
02's sector 4 needs: its stone ball, stopped in a valley between the wooden
humps (7.8 high, up to 0.83 per unit), cannot rock out of it; the level's
way is sideways onto the rail pair beside the humps, level with the valley,
round to the humps' high end, then over them on the speed of each fall.

The written wave: y = 4 + 4 cos(2 pi z / 30) (a crest at z 0, 30, 60, 90,
a valley 8 below at 15, 45, 75), slope 0.84 at most; it is steeper than
the stone ball's push holds it on (0.3036 per unit, tan a = 0.92 x 66 / (10
x 20)) where |sin(2 pi z / 30)| > 0.3036 / 0.84 = 0.36: a stretch 4 x 2 x
cos(21.2 deg) = 7.5 high on each face, more than the 5.3 the stone's rocking
takes it up (autopilot_map.MOMENTUM_RISE)."""

import math
from types import SimpleNamespace

import numpy as np

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot, climb
from behaviors.ballance.balls import player_of
from behaviors.ballance.autopilot_map import RAIL_OUT, REACH, RIDE_RISE, WalkMap
from behaviors.ballance.level import FINISHED
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, autopilot_level, game_folder, played_at_once, stone_course, translation
from virtools_levels import plate as virtools_plate

PHYSICS = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)
CLIMBS = {k: climb(k, PHYSICS) for k in ("paper", "wood", "stone")}


def plate(x0, x1, z0, z1, y0, y1=None):
    """Two triangles from (x0, z0) to (x1, z1), at y0 along z0 and y1 (default y0) along z1."""
    y1 = y0 if y1 is None else y1
    a, b, c, d = (x0, y0, z0), (x1, y0, z0), (x1, y1, z1), (x0, y1, z1)
    return [(a, b, c), (a, c, d)]


def wave(z0, z1, step=1.5):
    """The wave's strips from z0 to z1, 12 wide."""
    h = lambda z: 4.0 + 4.0 * math.cos(2.0 * math.pi * z / 30.0)
    zs = np.arange(z0, z1 + 1e-9, step)
    return [t for a, b in zip(zs, zs[1:]) for t in plate(-6, 6, a, b, h(a), h(b))]


def cost(walk, route, floor_point, kind):
    return route.cost[route.state(np.asarray(floor_point, float) + (0.0, 2.0, 0.0), kind)]


def test_the_stone_ball_rides_the_humps_from_a_top_but_not_out_of_a_valley():
    walk = WalkMap(plate(-6, 6, -20, 0, 8.0) + wave(0, 90) + plate(-6, 6, 90, 110, 8.0), climb=CLIMBS)
    route = walk.route_to((0.0, 10.0, 105.0), 3.0)
    assert cost(walk, route, (0, 0, 45), "stone") == math.inf        # 7.4 of steep face, 5.3 by rocking
    assert math.isfinite(cost(walk, route, (0, 0, 45), "wood"))      # 0.84 steep, its push 0.75: rocked up 3.6
    assert math.isfinite(cost(walk, route, (0, 8, -10), "stone"))
    n = len(walk.points)
    path = route.ahead(route.state((0.0, 10.0, -10.0), "stone"), 500.0)
    rides = [(walk.points[s % n], walk.points[t % n]) for s, t in zip(path, path[1:])
             if (s % n, t % n) in walk.rides]
    assert len(rides) >= 3                                            # over the valleys at 15, 45 and 75
    for a, b in rides:
        assert np.hypot(*(b - a)[[0, 2]]) > REACH and abs(b[1] - a[1]) <= RIDE_RISE
        assert min(a[1], b[1]) >= 7.0 - 0.01                           # from a top to a top (RIDE_TOP 1)


def test_a_ball_rolls_onto_a_rail_pair_from_a_floor_level_with_it_but_only_wood_off_it_sideways():
    """Rails at x +-1.875 (tops at y 0) from z 0 to 40 between two end floors;
    a side floor (x -14..-3, tops at y 0, z 10..30) beside them, joined to
    nothing else: from it the ball rolls over the near rail into the pair and
    on to the far end; from the pair the stone ball (its push holds it on
    0.30 per unit) never gets onto the side floor, the wood ball (0.75, at
    least RAIL_OUT) climbs out over the near rail."""
    rails = plate(-2.225, -1.525, 0, 40, 0.0) + plate(1.525, 2.225, 0, 40, 0.0)
    ends = plate(-2, 2, -10, 0, 0.0) + plate(-2, 2, 40, 50, 0.0)
    side = plate(-14, -3, 10, 30, 0.0)
    tris = rails + ends + side
    walk = WalkMap(tris, climb=CLIMBS, rails=[True] * len(rails) + [False] * (len(ends) + len(side)))
    far = walk.route_to((0.0, 2.0, 45.0), 3.0)
    assert math.isfinite(cost(walk, far, (-8, 0, 20), "wood"))
    beside = walk.route_to((-8.0, 2.0, 20.0), 3.0)
    assert cost(walk, beside, (0, 0, -5), "stone") == math.inf
    assert math.isfinite(cost(walk, beside, (0, 0, -5), "wood"))


def rail_across_level():
    """A written level like level 05's at (572, -37.7, -292): floor A (x -20
    to 5, z -15 to 15, top y 0) with the start at the origin, a gap 9.4
    wide, floor B (x 14.4 to 40) with the finish at x 30; across the gap a
    rail pair along Z (x 7.825 and 11.575, 3.75 apart, octagonal tubes of
    radius 0.35 whose flat tops, 0.35 sin(67.5 deg) = 0.3234 above their
    axis, are at y 0, level with both floors)."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    floors = [virtools_plate(b, "A01_Floor_01", [(-20, 0, -15), (5, 0, -15), (5, 0, 15), (-20, 0, 15)], floor_mat),
              virtools_plate(b, "A01_Floor_02", [(14.4, 0, -15), (40, 0, -15), (40, 0, 15), (14.4, 0, 15)],
                             floor_mat)]
    rail = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(0.35, 30.0), rail_mat)
    rails = [b.entity(f"A01_Rail_0{i}", rail, translation(x, -0.35 * math.sin(3.0 * math.pi / 8.0), 0))
             for i, x in ((1, 7.825), (2, 11.575))]
    b.group("Phys_FloorRails", rails)
    return stone_course(b, floors, stone, (30, 2, 0))


def test_off_a_rail_pair_across_the_way_a_wood_ball_rolls_onto_the_floor_beyond_a_stone_ball_not(tmp_path):
    """On the written level (rail_across_level) the only way from floor A
    to floor B is onto the rail pair sideways and off it sideways: a way for
    the wood ball (its push holds it on 0.75 per unit, at least RAIL_OUT:
    it climbs the near rail's flank, about 1 up, out of the gap between the
    rails) through the rails' midpoints, none for the stone ball (0.30)."""
    game_folder(tmp_path, rail_across_level().data(), {})
    walk = Pilot(scenes.load(game_level(str(tmp_path), 1)), 0.0).map
    assert walk.climb["wood"] >= RAIL_OUT > walk.climb["stone"]
    route = walk.route_to((30.0, 2.0, 0.0), 3.0)
    assert cost(walk, route, (-10, 0, 10), "stone") == math.inf      # (the stone pad is at the origin)
    assert math.isfinite(cost(walk, route, (-10, 0, 10), "wood"))
    path = [route.point(s) for s in route.ahead(route.state((-10.0, 2.0, 10.0), "wood"), 200.0)]
    crossing = [p for p in path if 5.5 < p[0] < 14.0]
    assert crossing and all(abs(p[0] - 9.7) < 1.0 for p in crossing)     # between the rails, not on one


def test_a_ball_resting_between_rails_is_not_flying(tmp_path):
    """The written rail pair across the gap (rail_across_level): a ball
    between the rails (centre 9.7 across) rests on them 1.875 beside its
    centre, its centre sqrt(2.35^2 - 1.875^2) - 0.3234 = 1.09 above their
    tops, over no floor: not airborne (level 05's A03_Rail_01, where a ball
    held to be flying was steered back to a landing it had passed). Past
    the rails' ends over the gap, or 3.5 above floor A, it flies."""
    game_folder(tmp_path, rail_across_level().data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 0.0)
    ball = player_of(pilot.ctx).ball

    def airborne(*p):
        ball.set_position(p)
        return pilot._airborne(ball)

    on_rails = math.sqrt(2.35 ** 2 - 1.875 ** 2) - 0.35 * math.sin(3.0 * math.pi / 8.0)
    assert not airborne(9.7, on_rails, 0.0)
    assert not airborne(9.7, on_rails, 14.0)
    assert airborne(9.7, on_rails, 20.0)                  # the rails end at z 15: the gap under it
    assert airborne(9.7, on_rails + 1.5, 0.0)             # 1.5 above its rest: its underside 1.5 off the rails
    assert not airborne(-10.0, 2.0, 0.0)
    assert airborne(-10.0, 5.5, 0.0)


def test_no_midpoint_between_a_rail_and_a_floors_edge():
    """A rail 3 from a floor's edge (a ball rests across 2.5 to 4.4): a
    midpoint between them without the rails told apart, none with."""
    rail = plate(2.65, 3.35, 0, 20, 0.0)
    floor = plate(-10, 0, 0, 20, 0.0)
    between = lambda w: int(np.sum((w.points[:, 0] > 1.0) & (w.points[:, 0] < 2.0)))
    assert between(WalkMap(rail + floor)) > 0
    assert between(WalkMap(rail + floor, rails=[True, True, False, False])) == 0


def wave_level():
    """A written level: the start plate (tops at y 0, z -10..10), the wave 8
    deep from it (y = -4 + 4 cos(2 pi (z - 10) / 30), crests at z 10, 40,
    70, 100), the end plate (z 100..130) with the finish at z 120; the ball
    born stone (stone_course)."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [virtools_plate(b, "A01_Floor_01", [(-6, 0, -10), (6, 0, -10), (6, 0, 10), (-6, 0, 10)], floor_mat),
              virtools_plate(b, "A01_Floor_02", [(-6, 0, 100), (6, 0, 100), (6, 0, 130), (-6, 0, 130)], floor_mat)]
    h = lambda z: -4.0 + 4.0 * math.cos(2.0 * math.pi * (z - 10.0) / 30.0)
    zs = np.arange(10.0, 100.0 + 1e-9, 1.5)
    for k, (a, c) in enumerate(zip(zs, zs[1:])):
        corners = [(-6, h(a), a), (6, h(a), a), (6, h(c), c), (-6, h(c), c)]
        floors.append(virtools_plate(b, f"A01_Wave_{k:02d}", corners, floor_mat))
    return stone_course(b, floors, stone, (0, 0, 120))


def test_the_autopilot_rides_a_stone_ball_over_the_wave_to_the_finish(tmp_path):
    game_folder(tmp_path, wave_level().data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
    assert pilot.level.flow == FINISHED


def test_the_lift_to_a_floor_beyond_the_aims_reach_carries_the_paper_ball_there(tmp_path):
    """The written course with floor C 18 off the fan's axis
    (autopilot_level(far=True)): the route lifts the paper ball to it, a
    step longer than any steering's aim (at most 12); at the column's top the
    ball is steered out toward floor C, not back at the fan's foot under it
    (level 02's fan 08, its terrace 22 off: the ball hovered there)."""
    game_folder(tmp_path, autopilot_level(far=True).data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 90.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.text()


def test_a_rail_pair_under_a_lid_is_a_way_under_a_lower_one_not():
    """Level 06's tube under its tower: a rail pair with another 3.8 above
    it (the ball between the lower rails rests with its centre 1.0 above
    their tops, SPAN_DIP lower than on a floor: its top at 3.0, under the
    lid) is a way from the floor before it to the floor after it; with the
    lid 2.8 above it (lower than the ball's top) it is not."""
    def walk(lid):
        rails = plate(-2.225, -1.525, 0, 40, 0.0) + plate(1.525, 2.225, 0, 40, 0.0)
        lids = plate(-2.225, -1.525, 5, 35, lid) + plate(1.525, 2.225, 5, 35, lid)
        ends = plate(-3, 3, -10, 0, 0.0) + plate(-3, 3, 40, 50, 0.0)
        return WalkMap(rails + lids + ends, climb=CLIMBS, rails=[True] * len(rails + lids) + [False] * len(ends))
    for lid, way in ((3.8, True), (2.8, False)):
        w = walk(lid)
        route = w.route_to((0.0, 2.0, 45.0), 3.0)
        assert math.isfinite(cost(w, route, (0, 0, -5), "wood")) == way, lid


def test_the_paper_ball_is_held_on_the_fans_axis_until_above_its_landing(tmp_path):
    """The written course with floor C 0.34 under the column's top, 6 off its
    axis, and ledge D beside the column (autopilot_level(high=True)): rising
    past D the ball's nearest nodes are D's, whose way runs off the column;
    held on the axis (level 05's fan 01 under its hood: pushed off it while
    rising, the ball fell beside the column) it is more than 3 off the axis
    (the column is 2 wide, the ball's radius 2) on no frame of the lift
    before its lowest point is above floor C (the ball's edge short of
    floor C), and the level is finished without a rollback."""
    game_folder(tmp_path, autopilot_level(high=True).data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    offs = []

    def track(p):
        ball = player_of(p.ctx).ball
        x, y, z = ball.get_position() if ball is not None else (0.0, 0.0, 0.0)
        if 2.0 < y - 2.0 < 16.8 and 75.0 < z < 84.0:
            offs.append(math.hypot(x, z - 80.0))
    pilot.on_frame = track
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
    assert offs and max(offs) <= 3.0, max(offs)


def test_a_hood_over_a_fans_column_ends_its_lift_under_it():
    """A fan's column (top 17.14) beside a floor at 12 with a hood over the
    axis (a face seen from below, 6 wide): the paper ball rises until its top
    touches the hood, its lowest point 2 x BALL_RADIUS under it; a hood at 17
    leaves it 13, above the floor (a way), one at 15.5 leaves it 11.5, under
    the floor (none: level 05's fan 01 under ``A03_Modul16``)."""
    fan = ((0.0, 1.14, 25.0), (0.0, 17.14, 25.0))
    for hood, way in ((17.0, True), (15.5, False)):
        tris = plate(-6, 6, 0, 30, 0.0) + plate(-6, 6, 31, 50, 12.0) + plate(3, -3, 22, 28, hood)
        walk = WalkMap(tris, fans=[fan], climb=CLIMBS)
        route = walk.route_to((0.0, 14.0, 45.0), 3.0)
        assert math.isfinite(cost(walk, route, (0, 0, 5), "paper")) == way, hood


def test_the_paper_ball_goes_round_a_fans_column_standing_in_its_way():
    """A corridor 20 wide at y 0 with a fan's column rising through a 2 x 2
    hole in its middle (foot -10, top 6; or the fan in the hole, foot 1.14,
    top 17.14, the ball's body overlapping it from the floor): the fan would lift a paper ball whose
    centre comes within 1 (the column's half width) + 2 (its radius) of the
    axis, and the steering strays 1.5 (FAN_MARGIN), so the paper ball's route
    along the corridor keeps 4.5 off it, beside the column (level 06's sector
    2: lifted off the floor 3.5 beside fan 18_05's axis)."""
    tris = (plate(-10, -1, 0, 50, 0.0) + plate(1, 10, 0, 50, 0.0)
            + plate(-1, 1, 0, 24, 0.0) + plate(-1, 1, 26, 50, 0.0))
    for foot, top in ((-10.0, 6.0), (1.14, 17.14)):
        walk = WalkMap(tris, fans=[((0.0, foot, 25.0), (0.0, top, 25.0))], climb=CLIMBS)
        route = walk.route_to((0.0, 2.0, 45.0), 3.0)
        path = [route.point(s) for s in route.ahead(route.state((0, 2, 5), "paper"), 100.0)]
        assert path[-1][2] > 42.0, foot                              # it gets there
        assert min(math.hypot(x, z - 25.0) for x, _, z in path) >= 4.5, foot
