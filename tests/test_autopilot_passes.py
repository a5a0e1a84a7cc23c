"""The autopilot under a falling stone (behaviors/ballance/autopilot_passes.py).

A falling stone (module 34, tests/virtools_levels.falling_stone_prefab)
stands on its crate in a strip 5 wide, the crate filling it: the map counts
the stone dropped, which walls the strip, so the only way on is to push the
crate along the strip and follow it through (level 05's sector 4 is passed
so, three times)."""

import math

import pytest

import scenes
from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.level import FINISHED, level_behavior
from scenes.virtools import game_level
from test_autopilot import replayed
from virtools_levels import LevelBuilder, falling_stone_prefab, game_folder, plate, played_at_once, stone_course

STONE = "P_Modul_34_01.P_Modul_34_Schiebestein"
CRATE_AT = 30.0          # the crate's middle along the strip (z); the stone's bottom 4.05 above the strip


def crossing_level() -> LevelBuilder:
    """Born stone at the origin on a plate 10 x 10, a strip 5 wide along +Z
    from it to z 60 (floors at y 0), the falling stone at z 30 on its crate
    (the crate's bottom 0.05 above the strip), the finish at z 50."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-5, 0, -5), (5, 0, -5), (5, 0, 5), (-5, 0, 5)], floor_mat),
              plate(b, "A01_Floor_02", [(-2.5, 0, 5), (2.5, 0, 5), (2.5, 0, 60), (-2.5, 0, 60)], floor_mat)]
    module = b.entity("P_Modul_34_01", None, (1, 0, 0, 0, 1, 0, 0, 0, 1, 0.0, 5.0, CRATE_AT))
    stone_course(b, floors, stone, (0, 0, 50))
    b.group("P_Modul_34", [module])
    next(o for o in b.objects if o.name == "Sector_01").members.append(module)
    return b


@pytest.fixture
def crossing(tmp_path):
    game_folder(tmp_path, crossing_level().data(), {"P_Modul_34": falling_stone_prefab().data(compressed=True)})
    return tmp_path


def test_the_route_passes_under_the_stone_behind_its_crate(crossing):
    """The crate's pushes run along the strip (across it no floor is under
    a run-up): from z 19.5 (RUN_UP 6 and the ball's radius behind its
    south face) to z 37 north, and back from 40.5 south. The route from the
    start to the finish takes the northward pass, as stone; no other link
    crosses the dropped stone, which stands 5 high on the strip."""
    pilot = Pilot(played_at_once(scenes.load(game_level(str(crossing), 1))), 10.0)
    p = pilot.map.points
    ends = sorted((round(float(p[a, 2]), 1), round(float(p[b, 2]), 1)) for a, b in pilot.map.passes)
    assert ends == [(pytest.approx(19.5, abs=1.0), pytest.approx(37.0, abs=1.0)),
                    (pytest.approx(40.5, abs=1.0), pytest.approx(23.0, abs=1.0))]
    route = pilot.route(1)
    start = route.state((0.0, 2.0, 0.0), "stone")
    assert math.isfinite(route.cost[start])
    n = len(p)
    way = [s % n for s in route.ahead(start, math.inf)]
    steps = set(zip(way, way[1:]))
    (north,) = [ab for ab in pilot.map.passes if p[ab[1], 2] > p[ab[0], 2]]
    assert north in steps
    over = [(a, b) for a, b in steps if (p[a, 2] - CRATE_AT) * (p[b, 2] - CRATE_AT) < 0.0]
    assert over == [north]


def test_the_autopilot_pushes_the_crate_through_and_finishes(crossing):
    """Finished with arrow keys only; replayed, the stone lies on the strip
    behind the ball (its middle 2.5 above it, its place along the strip
    kept) and the ball went by its crossing at the strip's height."""
    pilot = Pilot(scenes.load(game_level(str(crossing), 1)), 60.0)
    outcome = pilot.run()
    assert outcome.finished, outcome.why
    route = crossing / "route.jsonl"
    pilot.save(str(route))
    scene, _, seen = replayed(crossing, route)
    assert level_behavior(scene.ctx).flow == FINISHED
    assert scene.ctx.get(STONE).get_position() == pytest.approx((0.0, 2.5, CRATE_AT), abs=0.3)
    under = [y for k, x, y, z in seen if abs(z - CRATE_AT) < 2.5]
    assert under and all(abs(y - 2.0) < 0.3 for y in under)
