"""A rail pair's way at its end (issue 40 item 3; docs/levels.md "Autopilot"):
the map takes the way the rails run from the pair's midpoints, so a floor
straight ahead of the rails' end is ahead of them, not beside them
(autopilot_map ``WalkMap._rail_axes``).

Level 06's ``A_01_Rail_02`` (measured on the game's files) starts on a
floor and rises 0.54 per unit: at its first midpoint the rails' own nodes
within reach lie 3.75 across and less along (the heights counted twice),
and the map had taken the way across the rails for theirs, dropping the
link from the floor onto them."""

import math

import numpy as np

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import level_map
from behaviors.ballance.level import level_behavior
from scenes.virtools import game_level

from test_autopilot import cost_from
from virtools_levels import LevelBuilder, course_groups, game_folder, heading_z, played_at_once, translation

RISE = 0.6            # per unit (level 06's A_01_Rail_02: 0.54 on the whole)
LENGTH = 30.0
RADIUS = 0.35
LOW = -0.2            # the rails' tops at their end (level 06's: 0.4 below its floor's edge)


def rising_rails_level() -> LevelBuilder:
    """Floor A (x -6..6, z -25..0, top y 0) where the wood ball starts; a
    rail pair (octagonal tubes, x +-1.875) from its edge, their tops LOW
    there, rising RISE per unit along +Z for LENGTH, their high end in the
    air; the finish on floor A. A death cube under both."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    floors = [b.box("A01_Floor_01", (12, 1, 25), (0, -0.5, -12.5), floor_mat)]
    c, s = 1.0 / math.hypot(1.0, RISE), RISE / math.hypot(1.0, RISE)   # local Z turned up about X
    mesh = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(RADIUS, LENGTH), rail_mat)
    centre = np.array([0.0, LOW - RADIUS, 0.0]) + 0.5 * LENGTH * np.array([0.0, s, c])
    rails = [b.entity(f"A01_Rail_0{i}", mesh, (1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c, x, centre[1], centre[2]))
             for i, x in ((1, -1.875), (2, 1.875))]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 0), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, -20), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, -20))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, -10))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("Phys_FloorRails", rails)
    b.group("Sector_01", [start])
    return b


def test_the_map_links_a_floor_straight_ahead_of_a_rail_pairs_end_to_the_rails(tmp_path):
    """From floor A the wood ball (its push holds it on 0.75 per unit, more
    than RISE) rolls onto the rails and up them to a point 20 along; from
    there it rolls down them and off their end onto floor A."""
    game_folder(tmp_path, rising_rails_level().data(), {})
    ctx = played_at_once(scenes.load(game_level(str(tmp_path), 1))).ctx
    ctx.process_frame(1000.0 / 60.0)
    walk, _ = level_map(ctx, level_behavior(ctx))
    mids = walk.points[walk.span]
    assert len(mids) and np.all(np.abs(mids[:, 0]) < 0.5)           # the ball rests between the rails
    along = 20.0 / math.hypot(1.0, RISE)
    top = np.array([0.0, LOW + RISE * along, along])                  # the rails' tops 20 along them
    up = walk.route_to(top + (0.0, 2.0, 0.0), 3.0)
    assert math.isfinite(cost_from(walk, up, (0, 0, -15), "wood"))
    down = walk.route_to((0.0, 2.0, -15.0), 3.0)
    assert math.isfinite(cost_from(walk, down, top, "wood"))
