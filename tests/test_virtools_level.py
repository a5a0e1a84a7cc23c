"""Ballance levels as scenes (virtools-nmo.md 5, glue-and-content 3), on level
files the tests write (tests/virtools_levels.py)."""

import os
import struct

import numpy as np
import pytest

import scenes
from behaviors.hooks import hud_fields
from behaviors.ballance import player_of
from behaviors.ballance.camera import heading_of
from behaviors.recording import Frame, Recording, replay
from scenes.virtools import import_level, reader as r, write_scene
from viewer.cli import main
from virtools_levels import LevelBuilder, heading_z, translation, two_sector_level

FRAME_MS = 1000.0 / 60.0


@pytest.fixture
def level_file(tmp_path):
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(two_sector_level().data())
    return str(path)


def test_physics_groups_get_the_levelinit_physics(level_file):
    """5.1 / glue-and-content 3: fixed concave meshes, 0.7 / 0.3, groups Floor,
    Floor and Ball; a hidden member still collides (7.9); decoration has none."""
    plan = scenes.load(level_file).plan
    for name, group in (("A01_Floor_01", "Floor"), ("A01_Rail_01", "Floor"), ("A01_Stopper", "Ball"),
                        ("A01_Floor_inv_01", "Floor")):
        p = plan.entity(name).physics
        assert p["fixed"] and p["friction"] == 0.7 and p["elasticity"] == 0.3 and p["collision_group"] == group
        assert p["concave"] == [plan.entity(name).mesh] and p["convex"] == []
    assert not plan.entity("A01_Floor_inv_01").visible
    assert plan.entity("A01_Tower").physics is None and plan.entity("A01_Tower").mesh is not None
    assert not plan.entity("DepthTestCube_01").visible and plan.entity("DepthTestCube_01").physics is None


def test_prop_placeholders_become_the_props(level_file):
    """5.2: the placeholder's mesh is dropped for the prop's (P_Box 5 x 5 x 5,
    mass 1; wood ball r 2, mass 2; stone mass 10; paper 0.2)."""
    scene = scenes.load(level_file)
    box = scene.plan.entity("P_Box_01")
    assert box.mesh.kind == "box" and box.mesh.value == (5.0, 5.0, 5.0) and box.physics["mass"] == 1.0
    assert scene.plan.entity("P_Ball_Wood_01").physics["balls"] == [((0.0, 0.0, 0.0), 2.0)]
    assert scene.plan.entity("P_Ball_Wood_01").physics["mass"] == 2.0
    assert scene.plan.entity("P_Ball_Stone_01").physics["mass"] == 10.0
    assert scene.plan.entity("P_Ball_Paper_01").physics["mass"] == 0.2
    assert scene.body("P_Box_01") is not None
    dome = scene.plan.entity("P_Dome_01").physics                   # fixed convex, 0.2 / 0.8
    assert dome["fixed"] and (dome["friction"], dome["elasticity"]) == (0.2, 0.8)


def test_level_flow_gets_its_groups_in_name_order(level_file):
    scene = scenes.load(level_file)
    resets = scene.ctx.get_group("PR_Resetpoints").entities
    assert [e.name for e in resets] == ["PR_Resetpoint_01", "PR_Resetpoint_02"]     # 7.5, not stored order
    level = next(b for b in scene.plan.behaviours if b.type == "ballance.level").values["params"]
    assert level["start_kind"] == "wood" and level["level"] == 1 and level["death_boxes"] == "DepthTestCubes"
    assert (level["reset_points"], level["checkpoints"], level["sector_groups"]) == \
        ("PR_Resetpoint_{:02d}", "PC_TwoFlames_{:02d}", "Sector_{:02d}")                # found by name (5.2)
    assert heading_of(scene.entity("PR_Resetpoint_01")) == pytest.approx(0.0, abs=1e-9)  # -X along +Z: yaw 0
    assert scene.ctx.get(level["finish"]).get_position() == pytest.approx((0.0, 2.0, 45.0))
    assert "Sector_02" in scene.ctx and "Sector_2" not in scene.ctx                 # 7.11
    types = sorted(b.type for b in scene.plan.behaviours)
    assert types.count("ballance.fan") == 1 and types.count("ballance.transformers") == 1
    assert {g for g in ("P_Trafo_Paper", "P_Trafo_Wood", "P_Trafo_Stone", "Sound_RollID_01") if g in scene.ctx} \
        == {"P_Trafo_Paper", "P_Trafo_Wood", "P_Trafo_Stone", "Sound_RollID_01"}


def test_the_report_lists_what_was_found_and_skipped(level_file):
    text = scenes.load(level_file).level.text()
    assert "sectors 2: Sector_01, Sector_02" in text
    assert "group Phys_Floors: 2 members, 24 triangles" in text                       # two boxes of 12
    assert "triangles 204, in Phys_* groups 48" in text                               # 17 boxes; 4 in Phys_*
    assert "reset point PR_Resetpoint_02 at (0, 3.326, 30)" in text
    assert "unknown group test" in text
    assert "skipped 1 P_Modul_41 placeholders" in text


def test_a_world_matrix_becomes_the_same_pose(tmp_path):
    """3.3 / 4: world = [x y z 1] . M with rows the scaled axes: here X -> -Z x2,
    Y -> Y x3, Z -> X x0.5, at (4, 5, 6)."""
    b = LevelBuilder()
    from bbglue import meshes
    m = b.mesh("m", meshes.box(1, 1, 1), None)
    e = b.entity("Turned", m, (0, 0, -2, 0, 3, 0, 0.5, 0, 0, 4, 5, 6))
    sheared = b.entity("Sheared", m, (1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0))
    b.entity("PR_Resetpoint_01", None, translation(0, 0, 0))
    b.group("PR_Resetpoints", [len(b.objects) - 1])
    b.group("Phys_Floors", [e, sheared])
    path = tmp_path / "pose.nmo"
    path.write_bytes(b.data())
    scene = scenes.load(str(path))
    turned = scene.entity("Turned")
    assert turned.transform((1.0, 0.0, 0.0)) == pytest.approx((4.0, 5.0, 4.0))
    assert turned.transform((0.0, 1.0, 0.0)) == pytest.approx((4.0, 8.0, 6.0))
    assert turned.transform((0.0, 0.0, 1.0)) == pytest.approx((4.5, 5.0, 6.0))
    lo, hi = scene.entity("Sheared").get_bounding_box(local=True)                    # baked: x + y
    assert lo == pytest.approx((-1.0, -0.5, -0.5)) and hi == pytest.approx((1.0, 0.5, 0.5))


def levelinit(start_ball="Ball_Stone", grey=0.5) -> bytes:
    """5.6: an AllLevel table with Level_01's row and its light parameter."""
    b = LevelBuilder()
    light = b.add(r.Parameter, r.CK_PARAMETER_OUT, "Light", type_guid=(1, 2), kind=1,
                  value=struct.pack("<4f", grey, grey, grey, 1.0))
    b.add(r.DataArray, r.CK_DATAARRAY, "AllLevel",
          columns=[("Levelfile", 3), ("StartBall", 3), ("StartResetpoint", 1), ("Sky", 3), ("Light", 5),
                   ("LevelBonus", 1), ("Music", 1)],
          rows=[["Level_01.nmo", start_ball, 0, "Sky_K", light, 900, 3]])
    return b.data(compressed=True)


def test_levelinit_settings_are_read_from_the_game_folder(tmp_path):
    level_dir = tmp_path / "3d entities" / "Level"                     # 5.7: any case
    level_dir.mkdir(parents=True)
    (tmp_path / "3d entities" / "LevelInit.NMO").write_bytes(levelinit())
    path = level_dir / "Level_01.NMO"
    path.write_bytes(two_sector_level().data())
    imp = import_level(str(path))
    s = imp.report.settings
    assert (s.start_ball, s.sky, s.bonus, s.music, s.light) == ("Ball_Stone", "Sky_K", 900, 3, (0.5,) * 3 + (1.0,))
    level = next(b for b in imp.document["behaviours"] if b["type"] == "ballance.level")
    assert level["params"]["start_kind"] == "stone"
    assert imp.document["scene"]["lights"][0]["color"] == [0.5, 0.5, 0.5]


def test_without_levelinit_the_defaults_are_level_01s_row(level_file):
    s = import_level(level_file).report.settings
    assert (s.start_ball, s.sky, s.light, s.bonus) == ("Ball_Wood", "Sky_L", (1.0, 1.0, 1.0, 1.0), 100)


def test_a_two_sector_level_plays_through_on_recorded_input(level_file):
    """The first ball's birth (played 4 s in), Up to checkpoint 1 (z 30), Right
    off the floor's side into the death cube, a respawn at reset point 2 with a
    life fewer (played 4 s after the death), then Up to the finish and the
    score count 10 s later (glue-and-content 3)."""
    scene = scenes.load(level_file)
    keys = [set()] * 250 + [{"Up"}] * 90 + [{"Right"}] * 120 + [{"Up"}] * 460 + [set()] * 660
    seen = []

    def after(ctx, i):
        st = hud_fields(ctx)
        ball = player_of(ctx).ball
        event = (st["state"], st["sector"], st["lives"])
        if not seen or seen[-1][0] != event:
            seen.append((event, ball.get_position() if ball is not None else None))

    replay(scene.ctx, Recording([Frame(FRAME_MS, frozenset(k)) for k in keys]), after)
    events = [e for e, _ in seen]
    assert events == [("starting", 1, 3), ("playing", 1, 3), ("playing", 2, 3), ("dead", 2, 2), ("playing", 2, 2),
                      ("finished", 2, 2)]
    respawn = seen[4][1]
    assert respawn[0] == pytest.approx(0.0, abs=1e-6) and respawn[2] == pytest.approx(30.0, abs=1e-6)
    assert 2.0 < respawn[1] <= 3.3258 + 1e-4                      # dropped from PR_Resetpoint_02 onto the floor
    assert hud_fields(scene.ctx)["final"] == 100 * 1 + hud_fields(scene.ctx)["score"] + 200 * 2


def test_import_writes_a_yaml_scene_that_loads_the_same(level_file, tmp_path):
    out = tmp_path / "out" / "level.yaml"
    os.makedirs(out.parent)
    written = write_scene(import_level(level_file), str(out))
    assert all(os.path.isfile(p) for p in written) and len(written) == 14        # 12 meshes with triangles, the MTL
    a, b = scenes.load(level_file).plan, scenes.load(str(out)).plan
    assert [e.name for e in a.entities] == [e.name for e in b.entities]
    for ea, eb in zip(a.entities, b.entities):
        assert (ea.position, ea.rotation, ea.scale, ea.groups, ea.visible, ea.color) == \
            (eb.position, eb.rotation, eb.scale, eb.groups, eb.visible, eb.color)
        assert (ea.physics is None) == (eb.physics is None)
    scene = scenes.load(str(out))
    floor = scene.entity("A01_Floor_01").mesh
    assert floor.bounding_box() == ((-6.0, -0.5, -30.0), (6.0, 0.5, 30.0))


def test_commands_read_level_files(level_file, tmp_path, capsys):
    assert main(["check", level_file]) == 0
    out = capsys.readouterr().out
    assert "sectors 2" in out and "group PC_Checkpoints: 1 members" in out
    assert main(["run", level_file, "--seconds", "4.5", "--quiet", "--no-input"]) == 0      # played at 4 s
    assert "level 1: playing" in capsys.readouterr().out
    assert main(["import", level_file, "-o", str(tmp_path / "l.yaml")]) == 0
    assert os.path.isfile(tmp_path / "Level_01.meshes" / "Level_01_A01_Floor_01_Mesh.obj")


def test_a_corrupt_level_is_one_clear_error(level_file, capsys):
    data = open(level_file, "rb").read()
    with open(level_file, "wb") as fh:
        fh.write(data[:len(data) // 2])
    with pytest.raises(r.VirtoolsError, match="Level_01.NMO: header: at byte offset 28: the file is truncated"):
        scenes.load(level_file)
    assert main(["check", level_file]) == 1
    assert "the file is truncated" in capsys.readouterr().err


def test_a_level_without_a_start_is_refused(tmp_path):
    b = LevelBuilder()
    b.entity("A01_Floor", None, translation(0, 0, 0))
    path = tmp_path / "Level_02.nmo"
    path.write_bytes(b.data())
    with pytest.raises(r.VirtoolsError, match=r"no PR_Resetpoint_01 \(in PR_Resetpoints\) and no PS_Levelstart"):
        scenes.load(str(path))


def test_without_a_reset_point_sector_1_starts_above_the_start(tmp_path):
    """5.2: PR_Resetpoint_01 stands 3.65 above PS_FourFlames_01."""
    b = LevelBuilder()
    b.group("PS_Levelstart", [b.entity("PS_FourFlames_01", None, heading_z(1, 2, 3))])
    path = tmp_path / "Level_02.nmo"
    path.write_bytes(b.data())
    scene = scenes.load(str(path))
    rp = scene.entity("PR_Resetpoint_01")
    assert rp.get_position() == pytest.approx((1.0, 5.65, 3.0))
    assert heading_of(rp) == pytest.approx(0.0, abs=1e-9)
    assert "no PR_Resetpoint_01: sector 1 starts 3.65 above PS_FourFlames_01" in scene.level.text()


def test_reset_points_and_checkpoints_get_the_names_the_level_finds(tmp_path):
    """7.5 / 7.11: the number in the name is the sector's; PR_Resetpoint_2 is
    sector 2's reset point; PR_Resetpoint_04 after a gap is not used."""
    b = LevelBuilder()
    resets = [b.entity(n, None, translation(0, 3, 10 * i))
              for i, n in enumerate(("PR_Resetpoint_01", "PR_Resetpoint_2", "PR_Resetpoint_04"))]
    b.group("PR_Resetpoints", resets)
    b.group("PC_Checkpoints", [b.entity("PC_TwoFlames_1a", None, translation(0, 0, 8))])
    path = tmp_path / "Level_03.nmo"
    path.write_bytes(b.data())
    scene = scenes.load(str(path))
    assert scene.entity("PR_Resetpoint_02").get_position() == pytest.approx((0.0, 3.0, 10.0))
    assert scene.entity("PC_TwoFlames_01").get_position() == pytest.approx((0.0, 0.0, 8.0))
    text = scene.level.text()
    assert "'PR_Resetpoint_2' (CK3dObject) in PR_Resetpoints is imported as 'PR_Resetpoint_02'" in text
    assert "reset points stop at 2: there is no 'PR_Resetpoint_03'" in text


def test_degenerate_triangles_are_dropped_with_their_materials(tmp_path):
    """A floor whose third triangle has three collinear corners (0,0,0),
    (1,0,0), (2,0,0): zero area, no normal. The original plays such levels;
    the import drops that face and its material slot in step (the look's
    faces index the faces kept), with one warning naming the mesh; a mesh
    only drawn (the flames' frames) loses its degenerate face silently."""
    b = LevelBuilder()
    grass, rock = b.material("Grass", 0xFF00FF00), b.material("Rock", 0xFF808080)
    v = np.array([[0, 0, 0], [10, 0, 0], [10, 0, 10], [0, 0, 10], [1, 0, 0], [2, 0, 0], [0, 0, 20]], np.float32)
    faces = np.array([[0, 2, 1], [0, 3, 2], [0, 4, 5], [3, 2, 6]], np.int32)
    m = b.add(r.Mesh, r.CK_MESH, "A01_Floor_Mesh", flags=0x0003C00A, slots=[grass, rock], vertices=v,
              normals=None, uvs=np.zeros((7, 2), np.float32), faces=faces,
              face_slots=np.array([0, 0, 1, 1], np.int32))
    floor = b.entity("A01_Floor", m, translation(0, 0, 0))
    b.group("Phys_Floors", [floor])
    flame = b.add(r.Mesh, r.CK_MESH, "PC_TwoFlames_Mesh", flags=0x0003C00A, slots=[grass], vertices=v,
                  normals=None, uvs=np.zeros((7, 2), np.float32), faces=faces[[2, 3]],
                  face_slots=np.array([0, 0], np.int32))
    b.entity("PC_TwoFlames_01", flame, translation(0, 5, 0))     # drawn only: its face dropped silently
    b.group("PR_Resetpoints", [b.entity("PR_Resetpoint_01", None, translation(5, 3, 5))])
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(b.data())
    scene = scenes.load(str(path))
    kept = scene.entity("A01_Floor").mesh.faces
    assert kept.tolist() == faces[[0, 1, 3]].tolist()
    look = scene.looks["A01_Floor"]
    assert [(p.name, p.faces.tolist()) for p in look.parts] == [("Grass", [0, 1]), ("Rock", [2])]
    assert scene.ctx.physics.is_physicalized(scene.entity("A01_Floor"))
    assert scene.entity("PC_TwoFlames_01").mesh.faces.tolist() == faces[[3]].tolist()
    warnings = [w for w in scene.level.warnings if "degenerate" in w]
    assert len(warnings) == 1 and "mesh 'A01_Floor_Mesh': 1 degenerate triangle of 4 dropped" in warnings[0]


def test_a_module_placeholder_that_is_also_a_floor_is_its_module_only(tmp_path):
    """5.2: the game replaces a module placeholder by its prefab (its mesh is
    an editing aid), so a fan placeholder that is also in Phys_Floors (as
    Level_03's P_Modul_18_04) collides as nothing: the level loads, the fan
    works, and the report says what was dropped."""
    b = two_sector_level()
    fan = next(o.index for o in b.objects if o.name == "P_Modul_18_01")
    next(o for o in b.objects if o.name == "Phys_Floors").members.append(fan)
    level = tmp_path / "3D Entities" / "Level"
    level.mkdir(parents=True)
    (level / "Level_01.NMO").write_bytes(b.data())
    ph = tmp_path / "3D Entities" / "PH"
    ph.mkdir()
    p = LevelBuilder()
    p.entity("P_Modul_18_MF", None, translation(0, 0, 0), class_id=r.CK_3DENTITY)
    p.box("P_Modul_18_Rotor", (3, 1, 1), (0, 0.5, 0), p.material("Metal"))
    (ph / "P_Modul_18.nmo").write_bytes(p.data())
    scene = scenes.load(str(level / "Level_01.NMO"))
    placeholder = scene.plan.entity("P_Modul_18_01")
    assert placeholder.mesh is None and placeholder.physics is None and "Phys_Floors" not in placeholder.groups
    assert "P_Modul_18_01" not in [e.name for e in scene.ctx.get_group("Phys_Floors").entities]
    assert scene.plan.entity("P_Modul_18_01.P_Modul_18_Rotor").mesh is not None
    assert [b.values["entity"] for b in scene.plan.behaviours if b.type == "ballance.fan"] == ["P_Modul_18_01"]
    assert "skipped object #" in scene.level.text() and \
        "'P_Modul_18_01' (CK3dObject) in Phys_Floors: a P_Modul_18 placeholder, replaced by its prefab: " \
        "no collision" in scene.level.text()
