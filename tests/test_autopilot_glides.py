"""The autopilot's glides off a fan's hover (issue 40 item 3; docs/levels.md
"Glides"): level 12's paper fans on ``A05_Floor_03`` stand on their own
platforms, 10 to 21 apart with no floor between; the paper ball glides
from one fan's hover over the next platform, lower or higher."""

import math

import scenes
from behaviors.ballance.autopilot import Pilot
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, course_groups, game_folder, heading_z, played_at_once, translation

GAP = 21.0      # fan to fan (level 12's fans 05 to 06: 20.9, the lower platform 3.9 under the foot)
DOWN = 4.0      # each platform this much under the one before


def glide_level():
    """Floor A (x -6..6, z -40..-2.5, top 0) with a paper pad, fan 1 on its
    5x5 platform at z 0 (top 0), fan 2 on its platform GAP on (top -DOWN),
    the finish floor C from GAP + 18 on (top -2 DOWN); nothing between."""
    b = LevelBuilder()
    floor_mat, stone = b.material("Floor", 0xFF8C8577), b.material("Stone", 0xFF808080)
    floors = [b.box("A01_Floor_01", (12, 1, 37.5), (0, -0.5, -21.25), floor_mat),
              b.box("A01_Floor_02", (5, 1, 5), (0, -0.5, 0), floor_mat),
              b.box("A01_Floor_03", (5, 1, 5), (0, -DOWN - 0.5, GAP), floor_mat),
              b.box("A01_Floor_04", (12, 1, 30), (0, -2 * DOWN - 0.5, GAP + 33), floor_mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -60, 0), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, -30), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, -30))
    course_groups(b, floors, death, start, [reset],
                  b.entity("PE_Balloon_01", None, translation(0, -2 * DOWN, GAP + 30)))
    pad = b.entity("P_Trafo_Paper_01", None, translation(0, 0, -20))
    fans = [b.entity("P_Modul_18_01", None, translation(0, 0, 0)),
            b.entity("P_Modul_18_02", None, translation(0, -DOWN, GAP))]
    b.group("P_Trafo_Paper", [pad])
    b.group("P_Modul_18", fans)
    b.group("Sector_01", [start, pad, *fans])
    return b


def test_the_paper_ball_glides_from_fan_to_fan_to_the_finish(tmp_path):
    """The route goes from fan 1's foot by a glide to fan 2's platform and
    by another to C (before: no route, the map's lifts land only higher
    than a foot plus 2), and the level is finished."""
    game_folder(tmp_path, glide_level().data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 60.0)
    route, walk = pilot.route(1), pilot.map
    n = len(walk.points)
    start = route.state((0.0, 2.0, -10.0), "paper")
    assert math.isfinite(route.cost[start])
    way = [s % n for s in route.ahead(start, 1e9)]
    assert len([1 for a, b in zip(way, way[1:]) if (a, b) in walk.glides]) == 2
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
