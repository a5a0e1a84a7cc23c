"""`ivp import` keeps a level's looks (virtools-nmo.md 3.4-3.6): the OBJ
sidecars carry the UVs and the faces' materials, one MTL file the diffuse
colours and the textures (game files by relative path, embedded pixels as
TGA files), and the YAML scene played is drawn as the level file is."""

import os

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401
from test_virtools_textures import game, textured_box  # noqa: F401

import scenes
from scenes.virtools import import_level, reader as r, write_scene
from viewer.cli import main
from virtools_levels import LevelBuilder

CHECKER = np.array([[[255, 0, 0, 255], [0, 255, 0, 128]], [[0, 0, 255, 255], [255, 255, 255, 0]]], np.uint8)


@pytest.fixture
def level(game):  # noqa: F811
    """The textured level of test_virtools_textures plus a floor whose texture
    is embedded in the file (3.6) and a two-material box (slots 1 and 2)."""
    path = game / "3D Entities" / "Level" / "Level_01.NMO"
    b = LevelBuilder()
    b.objects = list(r.read_file(str(path)).objects)
    tex = b.add(r.Texture, r.CK_TEXTURE, "Checker", files=[""], properties=0x00030000, pixels=CHECKER)
    textured_box(b, "Floor_embedded", 22, b.material("Checker", 0xFFFFFFFF, tex))
    box = b.box("Two_colours", (2, 2, 2), (0, 5, 20), b.material("Red", 0xFFFF0000))
    mesh = b.objects[b.objects[box].mesh]
    mesh.slots.append(b.material("Blue", 0xFF0000FF))
    mesh.face_slots[len(mesh.faces) // 2:] = 2
    path.write_bytes(b.data())
    return str(path)


def test_the_yaml_scene_has_the_levels_looks(level, tmp_path):
    imp = import_level(level)
    out = tmp_path / "out" / "level.yaml"
    os.makedirs(out.parent)
    written = write_scene(imp, str(out))
    meshes_dir = tmp_path / "out" / "Level_01.meshes"
    assert str(meshes_dir / "materials.mtl") in written and str(meshes_dir / "textures" / "Checker.tga") in written
    scene = scenes.load(str(out))
    assert set(scene.looks) == set(imp.looks)
    for name, a in imp.looks.items():
        b = scene.looks[name]
        assert b.uvs == pytest.approx(a.uvs, abs=1e-6), name
        assert [p.name for p in b.parts] == [p.name or "material" for p in a.parts], name   # a null slot's
        for pa, pb in zip(a.parts, b.parts):
            assert np.array_equal(pa.faces, pb.faces) and pb.colour == pytest.approx(pa.colour, abs=1e-6)
            if isinstance(pa.texture, str):
                assert os.path.samefile(pa.texture, pb.texture)
            else:
                assert (pa.texture is None) == (pb.texture is None)
    two = scene.looks["Two_colours"].parts
    assert [(p.name, p.colour) for p in two] == [("Red", (1.0, 0.0, 0.0, 1.0)), ("Blue", (0.0, 0.0, 1.0, 1.0))]
    assert [len(p.faces) for p in two] == [6, 6]
    embedded = scene.looks["Floor_embedded"].parts[0].texture
    assert np.array_equal(np.asarray(Image.open(embedded).convert("RGBA")), CHECKER)    # top row first
    assert scene.looks["Floor_2"].parts[0].texture is None               # its file is missing in the game too


def test_a_missing_texture_file_is_a_warning_and_the_colour(level, tmp_path, caplog):
    out = tmp_path / "out" / "level.yaml"
    os.makedirs(out.parent)
    write_scene(import_level(level), str(out))
    os.remove(tmp_path / "out" / "Level_01.meshes" / "textures" / "Checker.tga")
    scene = scenes.load(str(out))
    assert scene.looks["Floor_embedded"].parts[0].texture is None
    assert any("Checker.tga" in rec.getMessage() and "drawn in its colour" in rec.getMessage()
               for rec in caplog.records)


def test_a_bad_material_file_names_its_line(level, tmp_path):
    out = tmp_path / "out" / "level.yaml"
    os.makedirs(out.parent)
    write_scene(import_level(level), str(out))
    mtl = tmp_path / "out" / "Level_01.meshes" / "materials.mtl"
    mtl.write_text(mtl.read_text().replace("Kd 1 0 0", "Kd red 0 0", 1))
    with pytest.raises(ValueError, match=r"materials.mtl:\d+: Kd needs 3 numbers, got \['red', '0', '0'\]"):
        scenes.load(str(out))


def test_the_played_yaml_is_drawn_with_the_textures(gl_window, level, tmp_path):  # noqa: F811
    """The same view as test_virtools_textures' render, of the YAML scene: the
    left floor red near (the image's top), the middle one green (the TGA)."""
    out = tmp_path / "out" / "level.yaml"
    os.makedirs(out.parent)
    write_scene(import_level(level), str(out))
    shot = tmp_path / "shot.png"
    assert main(["render", str(out), "--eye", "0", "30", "-1", "--look", "0", "0", "0", "-o", str(shot),
                 "--size", "480x320", "--headless"]) == 0
    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    h, w = img.shape[:2]
    left_near = img[int(0.56 * h):int(0.64 * h), int(0.12 * w):int(0.28 * w)].reshape(-1, 3).mean(axis=0)
    middle = img[int(0.40 * h):int(0.60 * h), int(0.45 * w):int(0.55 * w)].reshape(-1, 3).mean(axis=0)
    assert np.argmax(left_near) == 0 and left_near[0] - left_near[2] > 60, left_near    # the BMP's red, lit
    assert np.argmax(middle) == 1 and middle[1] - middle[0] > 60, middle                # the TGA's green, lit
