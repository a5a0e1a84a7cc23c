"""Test data: Ballance-like level files written with scenes.virtools.writer
(virtools-nmo.md 6), never the game's own files.

``two_sector_level`` is a course along +Z with the floor's top at y = 0:
start at z 0, checkpoint 1 at z 30 (sector 2's reset point 3.3258 above it,
5.2), the finish balloon at z 45, a death cube under everything, one item of
every group kind of 5.1 beside the course (modules: the fan and the float
board; tests/test_import_modules.py has the others). The reset points are turned so
that their -X axis, the respawn heading (5.2), points along +Z.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bbglue import meshes
from behaviors.ballance.level import FINISHED, level_behavior
from scenes.virtools import reader as r
from scenes.virtools import writer

WHITE = 0xFFFFFFFF


def translation(x, y, z, s=(1.0, 1.0, 1.0)):
    """A world matrix (3.3): axes scaled by s, position (x, y, z)."""
    return (s[0], 0.0, 0.0, 0.0, s[1], 0.0, 0.0, 0.0, s[2], float(x), float(y), float(z))


def heading_z(x, y, z):
    """A world matrix (3.3) at (x, y, z) whose -X axis is world +Z: rows X = (0, 0, -1),
    Y = (0, 1, 0), Z = X x Y = (1, 0, 0) (determinant 1, a rotation)."""
    return (0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, float(x), float(y), float(z))


class LevelBuilder:
    """Objects in table order; each add returns the object's table position."""

    def __init__(self):
        self.objects = []

    def add(self, cls, class_id: int, name: str, **values) -> int:
        i = len(self.objects)
        self.objects.append(cls(i, 100 + 3 * i, class_id, name, **values))
        return i

    def texture(self, name: str, file: str) -> int:
        return self.add(r.Texture, r.CK_TEXTURE, name, files=[file], properties=0x00030000)

    def material(self, name: str, diffuse: int = WHITE, texture: int | None = None) -> int:
        return self.add(r.Material, r.CK_MATERIAL, name, diffuse=diffuse, texture=texture, modes=0x13212224,
                        flags=0x00080406)

    def mesh(self, name: str, m: meshes.Mesh, material: int | None) -> int:
        """A mesh from a bbglue mesh: slot 0 null and the material in slot 1 (7.8)."""
        v = len(m.vertices)
        uv = np.stack([m.vertices[:, 0], m.vertices[:, 2]], axis=1).astype(np.float32)
        return self.add(r.Mesh, r.CK_MESH, name, flags=writer.MESH_FLAGS, slots=[None, material],
                        vertices=m.vertices.copy(), normals=None, uvs=uv, faces=m.faces.copy(),
                        face_slots=np.full(len(m.faces), 1 if material is not None else 0, np.int32)) \
            if v else None

    def entity(self, name: str, mesh: int | None, matrix, hidden: bool = False, parent: int | None = None,
               class_id: int = r.CK_3DOBJECT) -> int:
        return self.add(r.Entity, class_id, name, hidden=hidden, mesh=mesh, meshes=[] if mesh is None else [mesh],
                        matrix=tuple(float(x) for x in matrix), parent=parent)

    def box(self, name: str, size, position, material: int | None, hidden: bool = False, scale=(1, 1, 1),
            matrix=None) -> int:
        """A box mesh's entity at ``position`` with its axes scaled (or at ``matrix``)."""
        m = self.mesh(name + "_Mesh", meshes.box(*size), material)
        return self.entity(name, m, matrix or translation(*position, s=scale), hidden)

    def group(self, name: str, members) -> int:
        return self.add(r.Group, r.CK_GROUP, name, members=list(members))

    def data(self, compressed: bool = False) -> bytes:
        return writer.write_bytes(self.objects, compressed)


def two_sector_level() -> LevelBuilder:
    b = LevelBuilder()
    tex = b.texture("Floor_Top_Flat", "Floor_Top_Flat.bmp")
    floor_mat = b.material("Floor_Top_Flat", 0xFF8C8577, tex)      # same name as its texture (1.9)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    floors = [b.box("A01_Floor_01", (12, 1, 60), (0, -0.5, 20), floor_mat)]
    rails = [b.box("A01_Rail_01", (0.7, 0.7, 20), (-20, 0.35, 0), rail_mat)]
    stopper = b.box("A01_Stopper", (1, 2, 5), (-30, 1, 0), rail_mat)
    inv = b.box("A01_Floor_inv_01", (12, 1, 10), (-40, -0.5, 0), None, hidden=True)
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 20), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    resets = [b.box("PR_Resetpoint_02", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.3258, 30)),  # before _01
              b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))]       # (7.5)
    checkpoint = b.box("PC_TwoFlames_01", (4, 0.2, 4), (0, 0.1, 30), stone)
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 45))
    props = {k: b.box(f"{k}_01", (1, 1, 1), (20 + 10 * i, 5, 0), None)
             for i, k in enumerate(("P_Box", "P_Ball_Wood", "P_Ball_Stone", "P_Ball_Paper"))}
    life = b.entity("P_Extra_Life_01", None, translation(-20, 2, 40))
    point = b.entity("P_Extra_Point_01", None, translation(-20, 2, 50))
    trafo = b.entity("P_Trafo_Stone_01", None, translation(-20, 0, 60))
    trafos = [b.entity(f"P_Trafo_{k}_01", None, translation(-40, 0, 60 + 20 * i)) for i, k in enumerate(("Paper",
                                                                                                      "Wood"))]
    dome = b.box("P_Dome_01", (1, 1, 1), (60, 0, 0), None)
    fan = b.box("P_Modul_18_01", (2, 0.4, 2), (-20, 0.2, 70), None)
    module = b.box("P_Modul_41_01", (2, 0.4, 2), (-20, 0.2, 80), None)
    tower = b.box("A01_Tower", (2, 10, 2), (10, 5, 10), stone)                    # decoration: no group
    b.group("Phys_Floors", floors + [inv])
    b.group("Phys_FloorRails", rails)
    b.group("Phys_FloorStopper", [stopper])
    b.group("DepthTestCubes", [death])
    b.group("PS_Levelstart", [start])
    b.group("PR_Resetpoints", resets)
    b.group("PC_Checkpoints", [checkpoint])
    b.group("PE_Levelende", [finish])
    for k, i in props.items():
        b.group(k, [i])
    b.group("P_Extra_Life", [life])
    b.group("P_Extra_Point", [point])
    b.group("P_Trafo_Stone", [trafo])
    b.group("P_Trafo_Paper", [trafos[0]])
    b.group("P_Trafo_Wood", [trafos[1]])
    b.group("P_Dome", [dome])
    b.group("P_Modul_18", [fan])
    b.group("P_Modul_41", [module])
    b.group("Sector_01", [props["P_Box"], props["P_Ball_Wood"], life, fan, trafos[0], dome])
    b.group("Sector_2", [props["P_Ball_Stone"], props["P_Ball_Paper"], point, trafo, module, trafos[1]])  # 7.11
    b.group("Shadow", floors)
    b.group("Sound_HitID_01", floors)
    b.group("Sound_RollID_01", floors)
    b.group("test", [tower])
    return b


def autopilot_level(far: bool = False, high: bool = False, ledge: bool = False) -> LevelBuilder:
    """A course along +Z for the autopilot (floor tops at y 0, the last at 12):
    floor A (z -5..25) where the wood ball starts, a rail pair (x +-1.875,
    z 25..55) over the void, floor B (z 55..85) with checkpoint 1 at z 60 (sector
    2's reset point above it), a paper transformer at z 70 and a fan at z 80
    (no mesh: its column stands on floor B), then floor C (z 82..112, top y 12)
    with the finish balloon at z 100: only a paper ball lifted by the fan gets
    there. ``far``: floor C 4 lower and 18 off the fan's axis (z 98..128,
    the finish at z 115), what paper flies to from the column's top (10 off
    its axis at most, and about 8 while it falls 8). ``high``: floor C's
    top at 16.8 (0.34 under the column's top, 17.14), from 6 off the fan's
    axis (z 86..116, the finish at z 105), and a ledge D beside the column
    (x 4..10, z 74..86, top 8): rising past it, the ball's nearest nodes
    are D's (``ledge``: D without ``high``). A death cube under everything."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    floors = [b.box("A01_Floor_01", (12, 1, 30), (0, -0.5, 10), floor_mat),
              b.box("A01_Floor_02", (12, 1, 30), (0, -0.5, 70), floor_mat),
              b.box("A01_Floor_03", (12, 1, 30), (0, 7.5, 113) if far else (0, 16.3, 101) if high else (0, 11.5, 97),
                    floor_mat)]
    if high or ledge:
        floors.append(b.box("A01_Floor_04", (6, 1, 12), (7, 7.5, 80), floor_mat))
    rail = b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(0.35, 30.0), rail_mat)
    rails = [b.entity(f"A01_Rail_0{i}", rail, translation(x, 0.58, 40)) for i, x in ((1, -1.875), (2, 1.875))]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 50), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    resets = [b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0)),
              b.box("PR_Resetpoint_02", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.3258, 60))]
    checkpoint = b.box("PC_TwoFlames_01", (4, 0.2, 4), (0, 0.1, 60), stone)
    pad = b.entity("P_Trafo_Paper_01", None, translation(0, 0, 70))
    fan = b.entity("P_Modul_18_01", None, translation(0, 0, 80))
    finish = b.entity("PE_Balloon_01", None, translation(0, 8, 115) if far else translation(0, 16.8, 105) if high
                      else translation(0, 12, 100))
    b.group("Phys_Floors", floors)
    b.group("Phys_FloorRails", rails)
    b.group("DepthTestCubes", [death])
    b.group("PS_Levelstart", [start])
    b.group("PR_Resetpoints", resets)
    b.group("PC_Checkpoints", [checkpoint])
    b.group("PE_Levelende", [finish])
    b.group("P_Trafo_Paper", [pad])
    b.group("P_Modul_18", [fan])
    b.group("Sector_01", [start])
    b.group("Sector_02", [pad, fan])
    return b


def plate(b: LevelBuilder, name: str, corners, mat: int) -> int:
    """A floor plate: the mesh of two triangles over four corners (given
    anticlockwise seen from above), placed at the origin."""
    m = b.mesh(name + "_Mesh", meshes.Mesh(name, corners, [(0, 2, 1), (0, 3, 2)]), mat)
    return b.entity(name, m, translation(0, 0, 0))


def rail_kit(b: LevelBuilder, radius: float):
    """The floor, rail and stone materials and a 10-long octagonal rail mesh of ``radius``."""
    floor_mat = b.material("Floor", 0xFF8C8577)
    rail_mat = b.material("Rail", 0xFFB5B9BF)
    stone = b.material("Stone", 0xFF808080)
    return floor_mat, rail_mat, stone, b.mesh("A01_Rail_Mesh", meshes.octagonal_rail(radius, 10.0), rail_mat)


def course_groups(b: LevelBuilder, floors: list, death: int, start: int, resets: list, finish: int) -> None:
    """The groups every course has, in the order the levels write them: its
    floors, the death cube, the start plate, the reset points, the finish."""
    b.group("Phys_Floors", floors)
    b.group("DepthTestCubes", [death])
    b.group("PS_Levelstart", [start])
    b.group("PR_Resetpoints", resets)
    b.group("PE_Levelende", [finish])


def wood_course(b: LevelBuilder, floors: list, stone: int, finish_at, death_at) -> LevelBuilder:
    """A one-sector course around written floors: a death cube at
    ``death_at``, the start plate and sector 1's reset point (facing +Z,
    3.65) at the origin (the ball is born wood), the finish balloon at
    ``finish_at``; with their groups."""
    death = b.box("DepthTestCube_01", (1, 1, 1), death_at, None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    finish = b.entity("PE_Balloon_01", None, translation(*finish_at))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("Sector_01", [start])
    return b


def stone_course(b: LevelBuilder, floors: list, stone: int, finish_at, death: float = 40.0) -> LevelBuilder:
    """A one-sector course around written floors: a death cube ``death`` under the
    origin, the start plate and sector 1's reset point (facing +Z, 5.2) at
    the origin with a stone transformer on it (the ball is born stone), the
    finish balloon at ``finish_at``; with their groups."""
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -death, 0), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    pad = b.entity("P_Trafo_Stone_01", None, translation(0, 0, 0))
    finish = b.entity("PE_Balloon_01", None, translation(*finish_at))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("P_Trafo_Stone", [pad])
    b.group("Sector_01", [start, pad])
    return b


def falling_stone_prefab() -> LevelBuilder:
    """P_Modul_34 as the original prefab names its parts (glue-and-content 3,
    "PH modules"): the stone (5 x 5 x 5) on a vertical slider (frames 5 above
    and 10 below the root) resting on the crate (5 x 4 x 5) under it."""
    b = LevelBuilder()
    b.entity("P_Modul_34_MF", None, translation(0, 0, 0), class_id=r.CK_3DENTITY)
    mat = b.material("Stone", 0xFF808080)
    b.box("P_Modul_34_Schiebestein", (5, 5, 5), (0, 1.55, 0), mat)
    b.box("P_Modul_34_Kiste", (5, 4, 5), (0, -2.95, 0), mat)
    for k, y in ((1, 5.0), (2, -10.0)):
        b.entity(f"P_Modul_34_Slider_Frame0{k}", None, translation(0, y, 0), class_id=r.CK_3DENTITY)
    return b


def falling_stone_level(basin: float = 5.0) -> LevelBuilder:
    """A course along +Z (floor tops at y 0; every floor an open plate, a
    ball of 4 passes under one 5 above) with a falling stone across it: the
    start area (x -20..2.5, z -5..5) and path A (x -2.5..2.5, to z 19.5), a
    gap z 19.5..25.5 where the stone (P_Modul_34 at z 22.5, falling_stone_prefab)
    stands 4 above the paths on its crate, path B (z 25.5..50) with the finish
    balloon at z 45. Under them a basin 5 down (x -20..20, z 5..40), a ramp
    from its floor (z 25) up to the start area (z 5) at x -20..-12, and a
    stone transformer on the start area at x -10. Only a ball that pushes
    the crate out from the basin drops the stone into the gap, its top then
    level with the paths (``basin``: how far down the basin's floor is; a
    deeper one leaves the dropped top that much less 5 below the paths).
    A death cube under everything."""
    b = LevelBuilder()
    floor_mat = b.material("Floor", 0xFF8C8577)
    stone = b.material("Stone", 0xFF808080)
    floors = [plate(b, "A01_Floor_01", [(-20, 0, -5), (2.5, 0, -5), (2.5, 0, 5), (-20, 0, 5)], floor_mat),
              plate(b, "A01_Floor_02", [(-2.5, 0, 5), (2.5, 0, 5), (2.5, 0, 19.5), (-2.5, 0, 19.5)], floor_mat),
              plate(b, "A01_Floor_03", [(-2.5, 0, 25.5), (2.5, 0, 25.5), (2.5, 0, 50), (-2.5, 0, 50)], floor_mat),
              plate(b, "A01_Floor_04", [(-20, -basin, 5), (20, -basin, 5), (20, -basin, 40), (-20, -basin, 40)],
                    floor_mat),
              plate(b, "A01_Ramp", [(-20, -basin, 25), (-12, -basin, 25), (-12, 0, 5), (-20, 0, 5)], floor_mat)]
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 20), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    pad = b.entity("P_Trafo_Stone_01", None, translation(-10, 0, 0))
    module = b.entity("P_Modul_34_01", None, translation(0, 0, 22.5))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 45))
    course_groups(b, floors, death, start, [reset], finish)
    b.group("P_Trafo_Stone", [pad])
    b.group("P_Modul_34", [module])
    b.group("Sector_01", [start, pad, module])
    return b


def game_folder(root, level: bytes, prefabs: dict) -> None:
    """An installed-looking game folder at ``root``: ``level`` as
    3D Entities/Level/Level_01.NMO and each of ``prefabs`` (name -> file
    bytes) as 3D Entities/PH/<name>.nmo."""
    entities = Path(root) / "3D Entities"
    (entities / "Level").mkdir(parents=True)
    (entities / "PH").mkdir()
    (entities / "Level" / "Level_01.NMO").write_bytes(level)
    for name, data in prefabs.items():
        (entities / "PH" / f"{name}.nmo").write_bytes(data)


def played_at_once(scene):
    """The scene's level with no birth: its ball played at the first frame (the
    game's 4 s birth left out of tests about something else). Returns it."""
    level = level_behavior(scene.ctx)
    level.start_delay = level.birth_delay = 0.0
    return scene


def played_level(root, level: bytes, prefabs: dict):
    """The scene of a game folder at ``root`` (game_folder) with its level
    played at once (played_at_once) and one frame without keys run."""
    import scenes
    from scenes.virtools import game_level
    game_folder(root, level, prefabs)
    scene = played_at_once(scenes.load(game_level(str(root), 1)))
    scene.ctx.input_manager.set_keys(frozenset())
    scene.ctx.process_frame(1000.0 / 60.0)
    return scene


def written_pilot(tmp_path_factory, name: str, level: LevelBuilder):
    """The scene of ``level`` written to a game folder of its own (played at
    once) and its Pilot with 60 s of play (the map measured)."""
    import scenes
    from behaviors.ballance.autopilot import Pilot
    from scenes.virtools import game_level
    root = tmp_path_factory.mktemp(name)
    game_folder(root, level.data(), {})
    scene = played_at_once(scenes.load(game_level(str(root), 1)))
    return scene, Pilot(scene, 60.0)


def finished_cleanly(pilot, start=(0.0, 2.0, 0.0), kind: str = "wood") -> None:
    """Asserts the pilot has a route from ``start`` as ``kind`` and plays its
    level to the finish with no rollback."""
    import math
    route = pilot.route(1)
    assert math.isfinite(route.cost[route.state(start, kind)])
    outcome = pilot.run()
    assert outcome.finished, outcome.text()
    assert level_behavior(pilot.ctx).flow == FINISHED
    assert outcome.rollbacks == 0, outcome.text()


def the_one_push(table, poses, gates, body: str):
    """The world of ``table`` mapped with the probe's ``poses`` and ``gates``:
    its route from the start (0, 2, 0) to the finish at (0, 2, 60) as wood
    is finite and its only Blocker is ``body`` with nodes; that Blocker's
    first push (the run-up's start, the unit push, the length)."""
    from behaviors.ballance.autopilot import level_map
    from ivp.snapshot import build
    ctx = build(table)                               # the world before the probe, the body standing
    walk, blockers = level_map(ctx, level_behavior(ctx), poses, gates)
    route = walk.route_to((0.0, 2.0, 60.0), 3.0)
    assert np.isfinite(route.cost[route.state((0.0, 2.0, 0.0), "wood")])
    (blocker,) = blockers
    assert blocker.body == body and blocker.nodes
    return blocker.pushes[0]


def module_course(b: LevelBuilder, floors: list, module: str, at) -> LevelBuilder:
    """The course round ``floors``: the start at the origin, the finish at
    z 60, and one placeholder ``<module>_01`` at ``at`` in sector 1."""
    stone = b.material("Stone", 0xFF808080)
    death = b.box("DepthTestCube_01", (1, 1, 1), (0, -40, 30), None, hidden=True, scale=(400, 20, 400))
    start = b.box("PS_FourFlames_01", (4, 0.2, 4), (0, 0.1, 0), stone)
    reset = b.box("PR_Resetpoint_01", (1, 0.2, 1), None, stone, matrix=heading_z(0, 3.65, 0))
    finish = b.entity("PE_Balloon_01", None, translation(0, 0, 60))
    placeholder = b.entity(module + "_01", None, translation(*at))
    course_groups(b, floors, death, start, [reset], finish)
    b.group(module, [placeholder])
    b.group("Sector_01", [start, placeholder])
    return b
