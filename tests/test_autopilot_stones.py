"""The autopilot and the falling stone (module 34; glue-and-content 3, "PH
modules": push the crate out and the stone drops): on a level the test
writes (tests/virtools_levels.falling_stone_level), the map counts the
stone dropped into its gap, and the autopilot turns the ball to stone,
pushes the crate out from the basin and rolls over the stone to the finish."""

import math

import numpy as np
import pytest

import scenes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.level import FINISHED, level_behavior
from scenes.virtools import game_level
from viewer.cli import main
from test_autopilot import replayed
from virtools_levels import falling_stone_level, falling_stone_prefab, game_folder

STONE = "P_Modul_34_01.P_Modul_34_Schiebestein"


@pytest.fixture
def game(tmp_path):
    game_folder(tmp_path, falling_stone_level().data(), {"P_Modul_34": falling_stone_prefab().data(compressed=True)})
    return tmp_path


def test_the_map_counts_the_stone_dropped_and_finds_the_crates_pushes(game):
    """The stone's bottom waits at 1.55 - 2.5 = -0.95; the floor under the
    crate is the basin's, -5: it drops 4.05, its top then at 0, the paths'
    height, and the route to the finish crosses it. The crate (5 wide, its
    centre at (0, 22.5)) is pushed from a run-up 6 beyond a ball's radius
    from each of its four sides, all on the basin's floor."""
    pilot = Pilot(scenes.load(game_level(str(game), 1)), 10.0)
    (stone,) = pilot.blockers
    assert stone.travel == pytest.approx(4.05, abs=0.02)      # the first frame settles it a little
    top = pilot.map.points[sorted(stone.nodes)]
    assert len(top) and np.allclose(top[:, 1], 0.0, atol=0.02)
    assert np.all(np.abs(top[:, 2] - 22.5) <= 2.52) and np.all(np.abs(top[:, 0]) <= 2.52)
    starts = sorted((round(float(p[0]), 1), round(float(p[2]), 1)) for p, _, _ in stone.pushes)
    assert starts == [(-10.5, 22.5), (0.0, 12.0), (0.0, 33.0), (10.5, 22.5)]
    assert all(p[1] == pytest.approx(-5.0 + 2.0) for p, _, _ in stone.pushes)
    route = pilot.route(1)
    way = {s % len(pilot.map.points) for s in route.ahead(route.state((0.0, 2.0, 0.0), "wood"), math.inf)}
    assert way & stone.nodes


def test_a_stone_dropped_short_of_the_paths_is_a_step_onto_them(tmp_path):
    """The basin 5.7 down: the stone's bottom at -0.95 drops 4.75 onto it,
    its top then 0.7 below the paths (level 05's P_Modul_34_02 stops so far
    below the way it fills). A ball rolls over that step (SUNK_STEP): the
    route from the start to the finish crosses the stone's top; a step up of
    0.7 between two floors is no link otherwise, and path B has no other way
    in (the basin's walls 5.7 high)."""
    game_folder(tmp_path, falling_stone_level(basin=5.7).data(),
                {"P_Modul_34": falling_stone_prefab().data(compressed=True)})
    pilot = Pilot(scenes.load(game_level(str(tmp_path), 1)), 10.0)
    (stone,) = pilot.blockers
    assert stone.travel == pytest.approx(4.75, abs=0.02)
    top = pilot.map.points[sorted(stone.nodes)]
    assert len(top) and np.allclose(top[:, 1], -0.7, atol=0.02)
    route = pilot.route(1)
    start = route.state((0.0, 2.0, 0.0), "wood")
    assert math.isfinite(route.cost[start])
    way = {s % len(pilot.map.points) for s in route.ahead(start, math.inf)}
    assert way & stone.nodes


def test_the_autopilot_drops_the_stone_and_finishes(game, capsys):
    """Finished with arrow keys only; the replayed route turns the ball to
    stone, drops the stone into its gap (its centre 2.5 above the basin's
    floor) and crosses it on path height."""
    route = game / "route.jsonl"
    assert main(["run", "--game", str(game), "1", "--autopilot", "--record", str(route), "--quiet",
                 "--seconds", "120"]) == 0
    said = capsys.readouterr().out.splitlines()[0]
    assert said.startswith("level 1: finished, score ")
    scene, _, seen = replayed(game, route)
    assert level_behavior(scene.ctx).flow == FINISHED
    assert scene.ctx.get(STONE).get_position()[1] == pytest.approx(-5.0 + 2.5, abs=0.1)
    assert {k for k, *_ in seen} == {"wood", "stone"}
    over_gap = [y for k, x, y, z in seen if 20.0 < z < 25.0 and abs(x) < 2.5 and y > 0.0]
    assert over_gap and all(abs(y - 2.0) < 0.3 for y in over_gap)       # rolling on the stone's top
