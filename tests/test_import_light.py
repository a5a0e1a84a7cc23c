"""The level's light and the materials' lighting (issue 42; docs/levels.md
"How it looks against the game"): the directional light along the Z axis of
Gameplay.nmo's Light_Ingame in the level's colour with the game's ambient;
each material lit as Direct3D's fixed function lights it (emissive,
ambient, specular and power, virtools-nmo.md 3.5); the rails' texture as a
sphere map. Game folders written by the tests; renders under headless EGL."""

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

import scenes
from scenes.virtools import import_level
from scenes.virtools import reader as r
from viewer.cli import main
from virtools_levels import LevelBuilder, translation


def level(game, diffuse=0xFF000000, emissive=0xFF000000, texture=None):
    """Level_01 of ``game``: the start far below, a 4-wide box at the origin
    of a material with these colours (ambient and specular black, power 0)
    and the texture file ``texture`` named Rail_Environment."""
    b = LevelBuilder()
    b.group("PS_Levelstart", [b.entity("PS_FourFlames_01", None, translation(0, -500, 0))])
    tex = b.texture("Rail_Environment", texture) if texture else None
    mat = b.material("Rail", diffuse=diffuse, texture=tex)
    m = b.objects[mat]
    m.emissive, m.ambient, m.specular, m.power = emissive, 0xFF000000, 0xFF000000, 0.0
    b.box("Box", (4.0, 4.0, 4.0), (0.0, 0.0, 0.0), mat)
    d = game / "3D Entities" / "Level"
    d.mkdir(parents=True, exist_ok=True)
    (d / "Level_01.NMO").write_bytes(b.data())
    return str(d / "Level_01.NMO")


def test_the_light_shines_along_light_ingames_z_axis(tmp_path):
    """Its Z axis (0, -3, 4) is the direction (0, -0.6, 0.8); the ambient is #0F0F0F."""
    path = level(tmp_path)
    g = LevelBuilder()
    z = (0.0, -3.0, 4.0)
    g.entity("Light_Ingame", None, (1.0, 0.0, 0.0, 0.0, 0.8, 0.6) + z + (5.0, 15.0, 3.6), class_id=39)
    (tmp_path / "3D Entities" / "Gameplay.nmo").write_bytes(g.data())
    lights = import_level(path).document["scene"]["lights"]
    assert lights[0]["direction"] == pytest.approx([0.0, -0.6, 0.8])
    assert lights[1] == {"type": "ambient", "color": [15 / 255] * 3}


def test_without_gameplay_nmo_the_light_is_stated(tmp_path):
    imp = import_level(level(tmp_path))
    assert imp.document["scene"]["lights"][0]["direction"] == [0.3, -1.0, 0.5]
    assert ("the light Light_Ingame", "no 3D Entities/Gameplay.nmo: a stated light") in imp.report.skipped


def test_the_materials_lighting_is_read(tmp_path):
    scene = scenes.load(level(tmp_path, emissive=0xFF804020))
    shading = scene.looks["Box"].parts[0].shading
    assert shading.emissive == pytest.approx((128 / 255, 64 / 255, 32 / 255))
    assert (shading.ambient, shading.power, shading.env_map) == ((0.0, 0.0, 0.0), 0.0, False)


def render(path, tmp_path, eye):
    out = tmp_path / "shot.png"
    assert main(["render", path, "--eye", *map(str, eye), "--look", "0", "0", "0", "-o", str(out),
                 "--size", "64x48", "--headless"]) == 0
    return np.asarray(Image.open(out).convert("RGB")).astype(int)


def test_an_emissive_material_shows_its_emissive_colour_in_the_shade(gl_window, tmp_path):  # noqa: F811
    """Diffuse black, emissive (128, 0, 0), seen on the face the light does
    not reach (-Y, the light shining down): Direct3D's colour is the
    emissive alone, (128, 0, 0), not the emissive times the diffuse (black)."""
    img = render(level(tmp_path, emissive=0xFF800000), tmp_path, (0.0, -30.0, 0.01))
    assert img[22:26, 30:34].reshape(-1, 3).mean(axis=0) == pytest.approx((128, 0, 0), abs=2)


def test_the_rails_texture_is_a_sphere_map(gl_window, tmp_path):  # noqa: F811
    """A 3x3 image, green at its centre, red around it, on Rail_Environment:
    the box's face seen straight on reflects the eye's ray back, which a
    sphere map samples at the image's centre: green (emissive white, so the
    texel is the colour; the four pixels round the image's middle look half
    a pixel off it, their reflections a little more: red within 6 of 255)."""
    tex = np.full((3, 3, 3), (255, 0, 0), np.uint8)
    tex[1, 1] = (0, 255, 0)
    (tmp_path / "Textures").mkdir()
    Image.fromarray(tex).save(tmp_path / "Textures" / "Rail_Environment.bmp")
    path = level(tmp_path, emissive=0xFFFFFFFF, texture="Rail_Environment.bmp")
    assert scenes.load(path).looks["Box"].parts[0].shading.env_map
    img = render(path, tmp_path, (0.0, 0.0, -30.0))
    assert img[23:25, 31:33].reshape(-1, 3).mean(axis=0) == pytest.approx((0, 255, 0), abs=6)
