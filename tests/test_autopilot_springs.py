"""The autopilot and a spring lift (module 03: a platform on a spring, k 15,
on a vertical slider, held down by seven walls and a gate of mass 2 each
standing on its rim; glue-and-content 3). A ball rolls in through the
gate's arch and knocks the weights off; the spring then lifts the platform,
with a wood ball (1.9) on it, by (16 - 1.9) x 20 / 15 = 18.8 (docs/levels.md
"Autopilot", level 12's sector 5).

The written level, as level 12's lifts: floor A (x -10..10, z -5..10.5, top
y 0) where the wood ball starts; the lift's 20-wide platform from z 11 to
31, its top at rest (loaded: the spring stretched 19 x 20 / 15 = 25.33)
level with floor A; the gate's arch (5.2 wide, 5 high inside) toward floor
A, the walls round the rest of the rim; floor B (z 31.5..70) at y 19.1,
0.3 above the raised platform's top, with the finish at z 60."""

import math

import numpy as np
import pytest

import scenes
from bbglue import meshes
from behaviors.ballance.autopilot import Pilot, level_map, probe
from behaviors.ballance.autopilot_springs import spring_lifts, weights_on
from behaviors.ballance.level import FINISHED, level_behavior
from ivp.snapshot import build, flatten
from scenes.virtools import game_level, reader as r
from virtools_levels import (LevelBuilder, course_groups, game_folder, heading_z, plate, played_at_once,
                             translation)

LIFT_Z = 21.0
LOADED_TOP = 0.0
RAISED_TOP = LOADED_TOP + (16.0 - 1.9) * 20.0 / 15.0     # 18.8: wood on the platform, the weights off
FLOOR_B = RAISED_TOP + 0.3
STRETCH = 19.0 * 20.0 / 15.0                               # the spring at rest, loaded
LOW, HIGH = 3.0, 26.2                                      # the frames over the platform's middle (level 12's)
# the platform's middle as authored: at rest its low frame is STRETCH under the high one, its top LOADED_TOP
AUTHORED_Y = LOADED_TOP - 0.5 + STRETCH - (HIGH - LOW)
WALL = (5.5, 7.3, 0.88)


def _turned(angle: float, x: float, y: float, z: float):
    """A matrix turned ``angle`` about Y: its Z axis (a wall's thin side) outward along (sin, 0, cos)."""
    c, s = math.cos(angle), math.sin(angle)
    return (c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c, x, y, z)


def _boxes(name: str, boxes) -> meshes.Mesh:
    """One mesh of axis boxes, each (size, centre)."""
    vs, fs = [], []
    for size, centre in boxes:
        m = meshes.box(*size)
        fs.append(m.faces + sum(len(v) for v in vs))
        vs.append(m.vertices + np.asarray(centre, np.float32))
    return meshes.Mesh(name, np.concatenate(vs), np.concatenate(fs))


GATE_PIECES = (((1.0, 7.3, WALL[2]), (-3.1, 3.65, 0.0)), ((1.0, 7.3, WALL[2]), (3.1, 3.65, 0.0)),
               ((5.2, 2.3, WALL[2]), (0.0, 6.15, 0.0)))


def lift_prefab() -> bytes:
    """P_Modul_03 with its platform's middle at the root: the 20 x 1 x 20
    platform, the frames LOW and HIGH over it, the walls standing on its top
    8.5 out (the diagonals 6 and 6), the gate's arch toward -Z, the gate's
    three collision hulls (its posts and lintel)."""
    b = LevelBuilder()
    b.entity("P_Modul_03_MF", None, translation(0, 0, 0), class_id=r.CK_3DENTITY)
    wood = b.material("Wood", 0xFF996633)
    b.box("P_Modul_03_Floor", (20, 1, 20), (0, 0, 0), wood)
    b.entity("P_Modul_03_frame_low", None, translation(0, LOW, 0), class_id=r.CK_3DENTITY)
    b.entity("P_Modul_03_frame_high", None, translation(0, HIGH, 0), class_id=r.CK_3DENTITY)
    wall = b.mesh("P_Modul_03_Wall_Mesh", meshes.box(*WALL), wood)
    for k in range(1, 8):
        angle = math.pi - k * math.pi / 4.0          # wall 1 at (6, -6), round to wall 7 at (-6, -6)
        out = 8.5 if k % 2 == 0 else 6.0 * math.sqrt(2.0)
        b.entity(f"P_Modul_03_Wall0{k}", wall, _turned(angle, out * math.sin(angle), 0.5 + WALL[1] / 2.0 + 0.05,
                                                        out * math.cos(angle)))
    gate = b.mesh("P_Modul_03_Gate_Mesh", _boxes("gate", GATE_PIECES), wood)
    b.entity("P_Modul_03_Gate", gate, _turned(math.pi, 0.0, 0.55, -8.5))
    for k, piece in enumerate(GATE_PIECES, 1):
        b.mesh(f"P_Modul_03_Gate_Coll0{k}_Mesh", _boxes(f"gate {k}", (piece,)), None)
    return b.data(compressed=True)


def lift_level(floor_a: float = 0.0) -> LevelBuilder:
    """The level of the module's docstring, floor A's top at ``floor_a``."""
    b = LevelBuilder()
    floor_mat, stone = b.material("Floor", 0xFF8C8577), b.material("Stone", 0xFF808080)
    a = floor_a
    floors = [plate(b, "A01_Floor_01", [(-10, a, -5), (10, a, -5), (10, a, 10.5), (-10, a, 10.5)], floor_mat),
              plate(b, "A01_Floor_02", [(-10, FLOOR_B, 31.5), (10, FLOOR_B, 31.5), (10, FLOOR_B, 70),
                                        (-10, FLOOR_B, 70)], floor_mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 30), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, a + 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, a + 3.65, 0))
    finish = b.entity("PE_Balloon_01", None, translation(0, FLOOR_B, 60))
    placeholder = b.entity("P_Modul_03_01", None, translation(0, AUTHORED_Y, LIFT_Z))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("P_Modul_03", [placeholder])
    b.group("Sector_01", [start, placeholder])
    return b


def loaded(tmp_path, floor_a: float = 0.0):
    game_folder(tmp_path, lift_level(floor_a).data(), {"P_Modul_03": lift_prefab()})
    scene = played_at_once(scenes.load(game_level(str(tmp_path), 1)))
    scene.ctx.input_manager.set_keys(frozenset())
    scene.ctx.process_frame(1000.0 / 60.0)
    return scene


def test_the_map_rides_the_lift_up_once_its_weights_are_off(tmp_path):
    """At rest the platform's top is level with floor A and its eight
    weights stand on it; the map's route from the start to the finish as
    wood goes onto it and up to floor B, the platform raised by 18.8
    (paper's 21.1 is within a ball of it; stone's 8.0 a height of its own)."""
    ctx = loaded(tmp_path).ctx
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    ctx = build(table)
    (lift,) = spring_lifts(ctx, poses, 20.0)
    assert lift.middle[1] == pytest.approx(LOADED_TOP, abs=0.2)
    assert dict(lift.rises) == pytest.approx({"paper": (16.0 - 0.2) * 20.0 / 15.0, "wood": RAISED_TOP,
                                             "stone": (16.0 - 10.0) * 20.0 / 15.0})
    assert len(weights_on(ctx, lift)) == 8
    walk, _ = level_map(ctx, level_behavior(ctx), poses, gates)
    route = walk.route_to((0.0, FLOOR_B + 2.0, 60.0), 3.0)
    assert math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "wood")])
    assert not math.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "stone")])


def test_the_step_up_onto_a_loaded_platform_is_ridden_at_full_push(tmp_path):
    """Floor A 1.34 under the loaded top (level 12's lift 04 over lift 03
    raised: its gate came at 8.3 units/s, braked at the step and rolled
    back, 24 times): the route's link from floor A onto the platform is a
    ride (full push to its end), its links off the platform are none."""
    ctx = loaded(tmp_path, -1.15).ctx
    table = flatten(ctx)
    poses, gates = probe(ctx, level_behavior(ctx))
    ctx = build(table)
    walk, _ = level_map(ctx, level_behavior(ctx), poses, gates)
    route = walk.route_to((0.0, FLOOR_B + 2.0, 60.0), 3.0)
    n, state = len(walk.points), route.state((0.0, 0.9, 0.0), "wood")
    path = [state]
    while walk.points[path[-1] % n, 1] < -0.5:          # on floor A, up to the first node on the platform
        path.append(int(route.next[path[-1]]))
    a, b = path[-2] % n, path[-1] % n
    assert walk.points[a, 1] == pytest.approx(-1.15, abs=0.05) and walk.points[b, 1] > walk.points[a, 1] + 1.2
    assert (a, b) in walk.rides and (b, a) not in walk.rides


def test_the_autopilot_knocks_the_weights_off_and_rides_up(tmp_path):
    """The weights on the side the route leaves by go off first (wall 4,
    toward floor B, among the first two: wall 5 beside it may go with it):
    knocked off late, the platform risen, a wall falls onto the way out; at
    the end none lies on floor B."""
    pilot = Pilot(loaded(tmp_path), 90.0)
    lift = spring_lifts(pilot.ctx, {}, 20.0)[0]
    order = []

    def knocked(p):
        on = {w.name for w in weights_on(p.ctx, lift)}
        order.extend(name for name in lift.weights if name not in on and name not in order)

    pilot.on_frame = knocked
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
    assert weights_on(pilot.ctx, lift) == [] and len(order) == 8
    assert "P_Modul_03_01.P_Modul_03_Wall04" in order[:2]
    assert all(pilot.ctx.get(name).get_position()[1] < FLOOR_B - 1.0 for name in lift.weights)
