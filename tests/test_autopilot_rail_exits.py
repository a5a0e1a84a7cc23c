"""The autopilot off a single rail's side (issue 40 item 3; docs/levels.md
"Autopilot", "Off a rail's side"; behaviors/ballance/autopilot_rail_exits.py).

The written level: floor A (x -6..6, z -25..0, top y 0) where the ball
starts at z -20 on a paper pad (level 06's is paper there), a single rail along +Z (``octagonal_rail``, radius 0.35,
its top level with floor A) from z 0 to 60 over the void, and floor B
beside its second half, 4.7 lower (level 06's platform under
``A_03_Rail_04``): x from 0.5 to 6.5, z 20 to 100, the finish on it at z
95, ahead along the rail's way. The only way to floor B is off the rail's
side."""

import math

import scenes
from behaviors.ballance.autopilot import Pilot
from scenes.virtools import game_level
from virtools_levels import LevelBuilder, course_groups, game_folder, heading_z, played_at_once, rail_kit, translation

RADIUS = 0.35
TOP = RADIUS * math.cos(math.pi / 8.0)      # the rail's axis this far below its top facet
LONG = 60.0
DOWN = 4.7                                  # floor B this far below the rail's top
BESIDE = 0.5                                # floor B's edge this far beside the rail's axis ...
WIDE = 6.0                                  # ... and it this wide, from z 20 to 100


def exit_level() -> LevelBuilder:
    b = LevelBuilder()
    floor_mat, _, stone, mesh = rail_kit(b, RADIUS)
    rails = [b.entity(f"A01_Rail_{i + 1:02d}", mesh, translation(0, -TOP, 5.0 + 10.0 * i))
             for i in range(int(LONG / 10.0))]
    floors = [b.box("A01_Floor_01", (12, 1, 25), (0, -0.5, -12.5), floor_mat),
              b.box("A01_Floor_02", (WIDE, 1, 80), (BESIDE + WIDE / 2.0, -DOWN - 0.5, 60.0), floor_mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 0), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, -20), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, -20))
    course_groups(b, floors, death, start, [reset], b.entity("PE_Balloon_01", None, translation(BESIDE + WIDE / 2.0, -DOWN, 95.0)))
    b.group("Phys_FloorRails", rails)
    pad = b.entity("P_Trafo_Paper_01", None, translation(0, 0, -20))
    b.group("P_Trafo_Paper", [pad])
    b.group("Sector_01", [start])
    return b


def test_the_ball_is_tipped_off_the_rails_side_onto_the_floor_below(tmp_path):
    """The route rides the rail and drops off its side onto floor B, 2.0
    beside the rail's line and 5.3 on; the steering tips the ball off
    toward floor B and it finishes with no rollback (before the rule: 3
    rollbacks, the ball steered back to the drop's node on the rail and
    let fall off either side)."""
    game_folder(tmp_path, exit_level().data(), {})
    pilot = Pilot(played_at_once(scenes.load(game_level(str(tmp_path), 1))), 40.0)
    route, walk = pilot.route(1), pilot.map
    n = len(walk.points)
    way = [walk.points[s % n] for s in route.ahead(route.state((0.0, 2.0, -20.0), "paper"), 1e9)]
    assert any(abs(q[0]) < 0.5 and q[2] > 5.0 for q in way)          # on the rail's top
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert outcome.rollbacks == 0, outcome.text()
