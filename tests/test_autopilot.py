"""The autopilot (issue 40 item 3): ``ivp run --autopilot`` plays a level with
a player's keys, finds its way from the level's geometry and groups, and its
``--record`` is a normal recording that replays to the same end."""

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pytest

import scenes
from bbglue import meshes
from ivp import rng
from behaviors import levels
from behaviors.ballance import player_of
from behaviors.ballance.autopilot import climb
from behaviors.ballance.autopilot_map import WalkMap
from behaviors.ballance.level import FINISHED, level_behavior
from behaviors.ballance.level_meaning import MEANING, start_at_sector
from behaviors.ballance.values import NAV_DIRECTIONS
from behaviors.recording import Recording, replay
from scenes.virtools import game_level
from viewer.cli import main
from virtools_levels import autopilot_level


def plate(x0, x1, z0, z1, y):
    """Two triangles: a floor from (x0, z0) to (x1, z1) at height y."""
    a, b, c, d = (x0, y, z0), (x1, y, z0), (x1, y, z1), (x0, y, z1)
    return [(a, b, c), (a, c, d)]


def rail(x, z0, z1, y, r=0.35):
    """A rail's top face along Z (a strip 2 r wide)."""
    return plate(x - r, x + r, z0, z1, y)


def nodes_near(walk, point, radius):
    return np.flatnonzero(np.linalg.norm(walk.points - np.asarray(point), axis=1) <= radius)


def cost_from(walk, route, point, kind):
    return route.cost[route.state(np.asarray(point) + (0.0, 2.0, 0.0), kind)]


def test_a_rail_pair_carries_the_route_between_its_rails():
    """Two rails 3.75 apart over nothing: the ball rests across them, so the
    midpoints (x 0) are nodes, and a goal past the rails is reached along them."""
    walk = WalkMap(plate(-6, 6, -10, 0, 0.0) + rail(-1.875, 0, 30, 0.0) + rail(1.875, 0, 30, 0.0)
                   + plate(-6, 6, 30, 40, 0.0))
    between = walk.points[(np.abs(walk.points[:, 0]) < 0.5) & (walk.points[:, 2] > 2) & (walk.points[:, 2] < 28)]
    assert len(between) >= 10                          # a node at least every 3 units along the 26
    route = walk.route_to((0.0, 2.0, 35.0), 3.0)
    assert math.isfinite(cost_from(walk, route, (0, 0, -5), "wood"))
    path = [route.point(s) for s in route.ahead(route.state((0, 2, -5), "wood"), 60.0)]
    over_void = [p for p in path if 2 < p[2] < 28]
    assert over_void and all(abs(p[0]) < 1.0 for p in over_void)      # between the rails, not on one


def test_a_drop_leads_down_and_not_back_up():
    """A floor 8 above another, side by side: off its edge the ball falls onto
    the low one; the low one has no way up (8 in 1 unit is a wall)."""
    walk = WalkMap(plate(0, 10, 0, 10, 8.0) + plate(0, 10, 11, 30, 0.0))
    down = walk.route_to((5.0, 2.0, 25.0), 3.0)
    assert math.isfinite(cost_from(walk, down, (5, 8, 5), "wood"))
    up = walk.route_to((5.0, 10.0, 5.0), 3.0)
    assert cost_from(walk, up, (5, 0, 25), "wood") == math.inf


def test_a_fan_lifts_only_paper_and_a_pad_makes_paper():
    """A fan on the low floor under the edge of a floor 12 higher: its lift
    links them for the paper ball only; a paper pad on the low floor gives the
    wood ball a way up, through the pad."""
    tris = plate(-6, 6, 0, 30, 0.0) + plate(-6, 6, 27, 50, 12.0)
    fan = ((0.0, 1.14, 25.0), (0.0, 17.14, 25.0))
    goal = (0.0, 14.0, 45.0)
    walk = WalkMap(tris, fans=[fan])
    route = walk.route_to(goal, 3.0)
    assert math.isfinite(cost_from(walk, route, (0, 0, 5), "paper"))
    assert cost_from(walk, route, (0, 0, 5), "wood") == math.inf
    walk = WalkMap(tris, fans=[fan], pads=[((0.0, 0.0, 15.0), "paper")])
    route = walk.route_to(goal, 3.0)
    assert math.isfinite(cost_from(walk, route, (0, 0, 5), "wood"))
    path = route.ahead(route.state((0, 2, 5), "wood"), 200.0)
    kinds = [route.kind(s) for s in path]
    assert kinds[0] == "wood" and kinds[-1] == "paper"
    turned = next(i for i, k in enumerate(kinds) if k == "paper")
    assert np.linalg.norm(route.point(path[turned]) - (0.0, 2.0, 15.0)) <= 4.3       # at the pad


def test_a_fan_lifts_paper_onto_a_floor_a_little_above_its_column_not_higher():
    """Level 06's single rails lie 0.2 above its fans' columns (top 7.8, the
    rails 8.0): the paper ball's centre rises 3.34 above the top (the fans
    probe), its lowest point 1.34, so a floor 1.0 above the top beside the
    column is reached by the lift and one 2.0 above it is not."""
    fan = ((0.0, 1.14, 25.0), (0.0, 17.14, 25.0))
    for over, way in ((1.0, True), (2.0, False)):
        tris = plate(-6, 6, 0, 30, 0.0) + plate(-6, 6, 31, 50, 17.14 + over)
        walk = WalkMap(tris, fans=[fan])
        route = walk.route_to((0.0, 19.14 + over, 45.0), 3.0)
        assert math.isfinite(cost_from(walk, route, (0, 0, 5), "paper")) == way, over


def test_the_plug_in_names_its_autopilot_and_a_missing_one_is_said():
    assert levels.autopilot_of(MEANING).__name__ == "drive"
    with pytest.raises(ValueError, match="has no autopilot"):
        levels.autopilot_of(dataclasses.replace(MEANING, autopilot=""))
    with pytest.raises(ValueError, match="autopilot 'behaviors.ballance:nothing' does not load"):
        levels.autopilot_of(dataclasses.replace(MEANING, autopilot="behaviors.ballance:nothing"))
    assert levels.start_sector_of(MEANING) is start_at_sector
    with pytest.raises(ValueError, match="has no start sector"):
        levels.start_sector_of(dataclasses.replace(MEANING, start_sector=""))


def test_record_goes_with_the_autopilot(capsys):
    assert main(["run", "sample_level", "--record", "route.jsonl", "--quiet"]) == 1
    assert "--record goes with --autopilot" in capsys.readouterr().err


def replayed(game, route, sector=None):
    """Level 1 of the game folder ``game`` replayed from the recorded route
    with the recording's seed (as `ivp run --input [--sector K]` does): (scene,
    recording, the (kind, x, y, z) of the ball in play at each frame)."""
    recording = Recording.load(route)
    scene = scenes.load(game_level(str(game), 1))
    if sector is not None:
        start_at_sector(scene, sector)
    rng.set_seed(recording.meta["seed"])
    seen = []

    def track(ctx, i):
        player = player_of(ctx)
        if player.entity_in_play is not None:
            seen.append((player.kind, *player.entity_in_play.get_position()))

    replay(scene.ctx, recording, track)
    return scene, recording, seen


def test_the_autopilot_finishes_a_written_level_and_its_route_replays(tmp_path, capsys):
    """The written course (tests/virtools_levels.autopilot_level): rails over
    the void, a checkpoint, a paper transformer, a fan up to a floor 12
    higher, the finish there. The autopilot finishes it with arrow keys only,
    at 60 frames per second; its recording, replayed on the level loaded
    afresh, ends the same: finished, the same final score, and on the way the
    wood ball crossed between the rails, became paper and rose above floor C."""
    folder = tmp_path / "3D Entities" / "Level"
    folder.mkdir(parents=True)
    (folder / "Level_01.NMO").write_bytes(autopilot_level().data())
    route = tmp_path / "route.jsonl"
    assert main(["run", "--game", str(tmp_path), "1", "--autopilot", "--record", str(route), "--quiet"]) == 0
    said = capsys.readouterr().out.splitlines()[0]
    assert said.startswith("level 1: finished, score ")
    score = int(said.split("score ")[1].split(",")[0])

    scene, recording, seen = replayed(tmp_path, route)
    assert all(f.ms == 1000.0 / 60.0 for f in recording)
    assert set().union(*(f.keys for f in recording)) <= set(NAV_DIRECTIONS)
    level = level_behavior(scene.ctx)
    assert level.flow == FINISHED and level.final == score
    assert level.sector == 2
    kinds = [k for k, *_ in seen]
    assert kinds[0] == "wood" and kinds[-1] == "paper"
    on_rails = [x for k, x, y, z in seen if 26.0 < z < 54.0]
    assert on_rails and max(abs(x) for x in on_rails) < 1.875          # between the rails' axes
    assert max(y for k, x, y, z in seen) > 12.0 + 2.0                   # above floor C's top, a ball's radius


def test_sector_2_starts_at_its_reset_point_and_the_autopilot_finishes_from_there(tmp_path, capsys):
    """``--sector 2`` on the written course: the level's first ball (wood) is
    born at sector 2's reset point (0, 3.3258, 60) above floor B, never on
    floor A or the rails (z < 55); the autopilot finishes from there, and its
    route replays with ``--input ... --sector 2`` to the same end."""
    folder = tmp_path / "3D Entities" / "Level"
    folder.mkdir(parents=True)
    (folder / "Level_01.NMO").write_bytes(autopilot_level().data())
    route = tmp_path / "route.jsonl"
    run = ["run", "--game", str(tmp_path), "1", "--quiet"]
    assert main(run + ["--autopilot", "--sector", "2", "--record", str(route)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("level 1: finished, score ")
    assert out[-1].endswith(f"--input {route} --sector 2)")
    score = int(out[0].split("score ")[1].split(",")[0])

    scene, recording, seen = replayed(tmp_path, route, sector=2)
    level = level_behavior(scene.ctx)
    assert level.flow == FINISHED and level.final == score
    kind, x, y, z = seen[0]
    assert kind == "wood" and abs(x) < 0.01 and abs(z - 60.0) < 0.01 and 0.0 < y < 3.3258 + 0.01
    assert min(z for *_, z in seen) > 55.0

    assert main(run + ["--input", str(route), "--sector", "2"]) == 0
    said = capsys.readouterr().out
    assert "level 1: finished" in said and f"final score {score}\n" in said


def test_a_sector_the_level_has_not_is_said(tmp_path, capsys):
    folder = tmp_path / "3D Entities" / "Level"
    folder.mkdir(parents=True)
    (folder / "Level_01.NMO").write_bytes(autopilot_level().data())
    for k in ("0", "3"):
        assert main(["run", "--game", str(tmp_path), "1", "--autopilot", "--sector", k, "--quiet"]) == 1
        assert f"'Level_01.NMO' has sectors 1 to 2, not {k}" in capsys.readouterr().err


def test_the_route_goes_round_a_prop_where_the_floor_leaves_room():
    """A box on the straight way along a floor 20 wide: the route passes more
    than OBSTACLE_RADIUS from it; on a floor 6 wide, with no room, through it."""
    box = (0.0, 0.5, 20.0)
    for width, round_it in ((20.0, True), (6.0, False)):
        walk = WalkMap(plate(-width / 2, width / 2, 0, 40, 0.0))
        route = walk.route_to((0.0, 2.0, 38.0), 2.0, obstacles=[box])
        path = [route.point(s) for s in route.ahead(route.state((0, 2, 2), "wood"), 100.0)]
        closest = min(math.hypot(p[0] - box[0], p[2] - box[2]) for p in path)
        assert (closest > 4.0) == round_it


def test_a_wall_between_two_parts_of_a_floor_is_no_way_through():
    """A floor with a wall across it (its top 3.45 up, 1 thick): with a door
    at x 4..10 the route passes through the door; without one there is none."""
    floor = plate(-10, 10, 0, 40, 0.0)
    for door, reached in ((True, True), (False, False)):
        walk = WalkMap(floor + plate(-10, 4 if door else 10, 19.5, 20.5, 3.45))
        route = walk.route_to((0.0, 2.0, 35.0), 2.0)
        start = route.state((0, 2, 5), "wood")
        assert math.isfinite(route.cost[start]) == reached
        if door:
            path = [route.point(s) for s in route.ahead(start, 100.0)]
            crossing = [p for p in path if 18.5 < p[2] < 21.5]
            assert crossing and all(p[0] > 4.0 for p in crossing)


def test_a_ball_between_rails_leaves_them_at_their_end_only():
    """A rail pair from z 0 to 30, 10 above a floor that starts 1.8 beside
    them (x 4 to 30, z 8 to 60) and runs under their line past their end
    (x -4 to 4, z 34 to 60): to a goal on that floor beside the rails'
    middle, the route stays between the rails to their end and drops there
    (the rails hold the ball: no way off sideways; off their end no push
    carries it aside, WalkMap's default flight has none)."""
    walk = WalkMap(plate(-2, 2, -10, 0, 10.0) + rail(-1.875, 0, 30, 10.0) + rail(1.875, 0, 30, 10.0)
                   + plate(4, 30, 8, 60, 0.0) + plate(-4, 4, 34, 60, 0.0))
    route = walk.route_to((15.0, 2.0, 15.0), 2.0)
    path = [route.point(s) for s in route.ahead(route.state((0, 12, -5), "wood"), 200.0)]
    high = [p for p in path if p[1] > 6.0]
    assert all(abs(p[0]) < 1.0 for p in high if p[2] > 1.0)
    assert max(p[2] for p in high) > 28.0


def test_a_ramp_too_steep_for_the_stone_balls_push_is_no_way_up_for_it():
    """A ramp rising 0.5 per unit: the stone ball's push (0.92 per PSI of
    1/66 s on 10 kg under gravity 20: 0.3036 of its weight), horizontal,
    holds it on slopes up to tan a = 0.3036, the wood ball's (0.43 on 1.9
    kg) up to 0.747 (F cos a = m g sin a): the top is a way for wood, not
    for stone; the way down is for both."""
    physics = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)
    assert climb("stone", physics) == pytest.approx(0.92 * 66.0 / 10.0 / 20.0, abs=1e-9)
    assert climb("wood", physics) == pytest.approx(0.43 * 66.0 / 1.9 / 20.0, abs=1e-9)
    ramp = [((-6, 0, 10), (6, 0, 10), (6, 10, 30)), ((-6, 0, 10), (6, 10, 30), (-6, 10, 30))]
    tris = plate(-6, 6, 0, 10, 0.0) + ramp + plate(-6, 6, 30, 40, 10.0)
    walk = WalkMap(tris, climb={k: climb(k, physics) for k in ("paper", "wood", "stone")})
    up = walk.route_to((0.0, 12.0, 36.0), 2.0)
    assert math.isfinite(cost_from(walk, up, (0, 0, 3), "wood"))
    assert cost_from(walk, up, (0, 0, 3), "stone") == math.inf
    down = walk.route_to((0.0, 2.0, 3.0), 2.0)
    assert math.isfinite(cost_from(walk, down, (0, 10, 36), "stone"))


def box_triangles(size, centre):
    """The 12 triangles of a box (bbglue.meshes.box) at ``centre``."""
    m = meshes.box(*size)
    return (np.asarray(m.vertices, float) + centre)[np.asarray(m.faces)]


def test_a_wall_taller_than_the_ball_is_no_way_through_either():
    """A wall 6 high (its top out of the ball's way: its sides stop it) across
    the floor, with and without a door at x 4..10."""
    floor = plate(-10, 10, 0, 40, 0.0)
    for door, reached in ((True, True), (False, False)):
        wall = box_triangles((14.0 if door else 20.0, 6.0, 1.0), (-3.0 if door else 0.0, 3.0, 20.0))
        walk = WalkMap(np.concatenate([np.asarray(floor, float), wall]))
        route = walk.route_to((0.0, 2.0, 35.0), 2.0)
        assert math.isfinite(route.cost[route.state((0, 2, 5), "wood")]) == reached


def test_a_level_whose_behaviour_failed_is_said_with_its_error(monkeypatch):
    # the first run of a fresh install once stopped the level behaviour in its
    # first frame (a kernel compiling past the watchdog): the autopilot then
    # said the level had no ballance.level behaviour, hiding why
    from behaviors.ballance.autopilot import Pilot
    from behaviors.ballance.level import Level

    def broken(self, dt):
        raise RuntimeError("boom")

    monkeypatch.setattr(Level, "on_frame", broken)
    with pytest.raises(ValueError, match=r"ballance.level behaviour failed in on_frame at frame \d+: "
                                         r"RuntimeError: boom"):
        Pilot(scenes.load("sample_level"))


def test_a_floor_beside_a_lower_one_is_a_step_not_a_slope():
    """Two flat floors, the far one 1.5 higher and 2 beyond the near one's
    edge (level 01's path beside the lane round its basin): within CLIMB
    (0.7 per unit, plus 0.15) and STEEP's 2.2, but both floors are flat: a
    step the ball cannot roll up. A ramp rising 1.5 over 6 in the gap is a way."""
    low, high = plate(-10, 0, 0, 10, 0.0), plate(2, 12, 0, 10, 1.5)
    for ramp, reached in (([], False), ([((0, 0, 0), (8, 1.5, 0), (8, 1.5, 10)), ((0, 0, 0), (8, 1.5, 10), (0, 0, 10))],
                                         True)):
        walk = WalkMap(low + ([] if ramp else high) + ramp + (plate(8, 12, 0, 10, 1.5) if ramp else []))
        route = walk.route_to((10.0, 3.5, 5.0), 1.5)
        assert math.isfinite(cost_from(walk, route, (-5, 0, 5), "wood")) == reached


def test_a_short_face_steeper_than_the_push_holds_is_taken_with_speed():
    """A ramp rising 0.45 per unit, steeper than the stone ball's push holds
    it on (0.319): 4.5 high (level 01's way out of its basin) the stone
    ball takes it with speed (rolling at 6.3 units/s at its foot it keeps
    going: (sin a - 0.3036) g 5/7 over its 10.9 of length); 9 high, not."""
    physics = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)
    for high, reached in ((4.5, True), (9.0, False)):
        run = high / 0.45
        ramp = [((-6, 0, 10), (6, 0, 10), (6, high, 10 + run)), ((-6, 0, 10), (6, high, 10 + run), (-6, high, 10 + run))]
        tris = plate(-6, 6, 0, 10, 0.0) + ramp + plate(-6, 6, 10 + run, 20 + run, high)
        walk = WalkMap(tris, climb={k: climb(k, physics) for k in ("paper", "wood", "stone")})
        up = walk.route_to((0.0, high + 2.0, 15.0 + run), 2.0)
        assert math.isfinite(cost_from(walk, up, (0, 0, 3), "stone")) == reached


def test_a_ball_jumps_a_gap_it_flies_over_while_falling():
    """A floor ending 8 above another that starts 7 beyond its edge (level
    02's banked road): leaving the edge at JUMP_SPEED (8) the ball falls 8
    in sqrt(2 * 8 / 20) = 0.894 s and flies 7.16: a way down; 12 beyond, none."""
    for gap, reached in ((7.0, True), (12.0, False)):
        walk = WalkMap(plate(-6, 6, 0, 20, 8.0) + plate(-6, 6, 20 + gap, 40 + gap, 0.0))
        route = walk.route_to((0.0, 2.0, 35.0 + gap), 3.0)
        assert math.isfinite(cost_from(walk, route, (0, 8, 5), "wood")) == reached


def test_a_long_ramp_of_small_faces_is_no_rush_for_stone():
    """The 4.5-high ramp of the test above, and one 9 high at the same 0.45
    per unit cut into faces of 1.5 rise each: speed takes the stone ball up
    a steep stretch only as high as MOMENTUM_RISE (5) in all."""
    physics = SimpleNamespace(gravity=(0.0, -20.0, 0.0), psi_length=1.0 / 66.0)
    faces = []
    for k in range(6):
        z0, z1 = 10 + k * 1.5 / 0.45, 10 + (k + 1) * 1.5 / 0.45
        faces += [((-6, 1.5 * k, z0), (6, 1.5 * k, z0), (6, 1.5 * (k + 1), z1)),
                  ((-6, 1.5 * k, z0), (6, 1.5 * (k + 1), z1), (-6, 1.5 * (k + 1), z1))]
    top = 10 + 9.0 / 0.45
    walk = WalkMap(plate(-6, 6, 0, 10, 0.0) + faces + plate(-6, 6, top, top + 10, 9.0),
                   climb={k: climb(k, physics) for k in ("paper", "wood", "stone")})
    up = walk.route_to((0.0, 11.0, top + 5), 2.0)
    assert math.isfinite(cost_from(walk, up, (0, 0, 3), "wood"))
    assert cost_from(walk, up, (0, 0, 3), "stone") == math.inf


def test_off_a_rail_pairs_end_the_ball_drops_ahead_not_back_beside_the_rails():
    """Rails 10 high ending at z 30 (level 01's A01_Rail_07): a floor below
    beside their last 10 units (x 3..15, z 20..29) is no way down from their
    end (the rails hold the ball; off the end it falls ahead); a floor ahead
    of the end (z 31..40) is."""
    rails = plate(-2, 2, -10, 0, 10.0) + rail(-1.875, 0, 30, 10.0) + rail(1.875, 0, 30, 10.0)
    for floor, goal, reached in ((plate(3, 15, 20, 29, 0.0), (9.0, 2.0, 25.0), False),
                                 (plate(-6, 6, 31, 40, 0.0), (0.0, 2.0, 36.0), True)):
        walk = WalkMap(rails + floor)
        route = walk.route_to(goal, 2.0)
        assert math.isfinite(cost_from(walk, route, (0, 10, -5), "wood")) == reached


def test_a_death_rolls_back_to_a_world_from_before_the_ball_left_the_floor(monkeypatch):
    """Level 12's sector 1 (docs/levels.md): the ball left the rail at frame
    800 and died at 1050; worlds were kept every 120 frames. A rollback to
    840 or 960 has it falling already: the world kept at 720, a second
    (BACKUP_FRAMES) before it left the floor, is the one to try from."""
    from behaviors.ballance import autopilot
    monkeypatch.setattr(autopilot, "player_of", lambda ctx: SimpleNamespace(kind="wood"))
    pilot = autopilot.Pilot.__new__(autopilot.Pilot)
    restored = []
    pilot.__dict__.update(
        ctx=SimpleNamespace(entities=[]), log=None, level=SimpleNamespace(sector=1), tries={}, sector_tries={},
        pushing=None, keys=[frozenset()] * 1050, best=(1, 50.0, 1000), restored_at=0, grounded_at=800,
        kept=[(f, None, 0, 1) for f in (242, 360, 480, 600, 720, 840, 960)], rollbacks=0, stalls=[], places=[], routes={},
        variant=autopilot.VARIANTS[0], restore=restored.append)
    ball = SimpleNamespace(get_position=lambda: (256.5, -48.1, 96.1))
    assert pilot._fail("died", ball) == ""
    assert [pilot.kept[i][0] for i in restored] == [720]


@pytest.mark.parametrize("last, progress, back", [((959.6, -31.5, -290.8), 2404, 2160),
                                                  ((949.6, -31.5, -290.3), 2401, 2160)],
                         ids=["near the place", "no progress"])
def test_a_stuck_rollback_goes_back_to_a_world_from_before_the_ball_came_to_the_place(monkeypatch, last, progress,
                                                                                      back):
    """Level 12's sector 4 (docs/levels.md): the paper ball stuck at the same
    place on every try, for each began from the world it had last gone back
    to, where the ball sat there already (its route's cost had still fallen
    after it came). Worlds kept at 2040 and 2160 have it 20 and 10 from the
    place, the one at 2400 (gone back to last) 0.5: the rollback goes to
    2160, the last with the ball more than STUCK_AWAY (4) from it. A ball
    stuck moving about (10 from the place at 2400) with no progress from
    the world gone back to last (the first frame after it counts) goes
    back before that world too."""
    from behaviors.ballance import autopilot
    monkeypatch.setattr(autopilot, "player_of", lambda ctx: SimpleNamespace(kind="paper"))
    pilot = autopilot.Pilot.__new__(autopilot.Pilot)
    restored = []
    place = (959.6, -31.5, -290.3)
    pilot.__dict__.update(
        ctx=SimpleNamespace(entities=[]), log=None, level=SimpleNamespace(sector=4), tries={4: 1},
        sector_tries={4: 1}, pushing=None, keys=[frozenset()] * 2884, best=(4, 500.0, progress), restored_at=2400,
        grounded_at=2884, kept=[(f, None, 0, 4) for f in (2040, 2160, 2400)], rollbacks=1, stalls=[], places=[], routes={},
        kept_at={2040: (939.6, -31.5, -290.3), 2160: (949.6, -31.5, -290.3), 2400: last},
        current_route=None, variant=autopilot.VARIANTS[1], restore=restored.append, _cost=lambda ball, kind: 500.0)
    ball = SimpleNamespace(get_position=lambda: place)
    assert pilot._fail("stuck", ball) == ""
    assert [pilot.kept[i][0] for i in restored] == [back]
