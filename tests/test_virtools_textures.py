"""An imported level drawn with its materials and textures (virtools-nmo.md
3.4-3.6, 4: v = 0 is the image's top), on a game folder the test writes:
`ivp render --game` under headless EGL, the PNG read back."""

import logging

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

from scenes.virtools import game_level, import_level
from viewer.cli import main
from virtools_levels import LevelBuilder

RED, BLUE, GREEN, GOLD = (220, 30, 30), (30, 30, 220), (30, 200, 30), 0xFFE0C020


def textured_box(b: LevelBuilder, name: str, x: float, material: int) -> int:
    """A 10 x 1 x 10 floor at (x, -0.5, 0) whose top maps the whole image once:
    u = (x + 5) / 10 left to right, v = (z + 5) / 10, so z = -5 (near the
    camera below) samples the image's top row."""
    e = b.box(name, (10, 1, 10), (x, -0.5, 0), material)
    mesh = b.objects[b.objects[e].mesh]
    v = mesh.vertices
    mesh.uvs = np.stack([(v[:, 0] + 5) / 10, (v[:, 2] + 5) / 10], axis=1).astype(np.float32)
    return e


@pytest.fixture
def game(tmp_path):
    """Textures/ holds a BMP whose top half is red and bottom half blue, and a
    green TGA; the third floor's texture file is missing (its material is gold)."""
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    (tmp_path / "textures").mkdir()
    halves = np.zeros((8, 8, 3), np.uint8)
    halves[:4], halves[4:] = RED, BLUE
    Image.fromarray(halves).save(tmp_path / "textures" / "Floor_Halves.BMP")
    Image.fromarray(np.full((4, 4, 3), GREEN, np.uint8)).save(tmp_path / "textures" / "green.tga")
    b = LevelBuilder()
    mats = [b.material(n, c, b.texture(n, f)) for n, c, f in (("Halves", 0xFFFFFFFF, "floor_halves.bmp"),
                                                             ("Green", 0xFFFFFFFF, "Green.TGA"),
                                                             ("Gone", GOLD, "missing.bmp"))]
    floors = [textured_box(b, f"Floor_{i}", x, m) for i, (x, m) in enumerate(zip((-11, 0, 11), mats))]
    b.group("Phys_Floors", floors)
    b.group("PS_Levelstart", [b.box("PS_FourFlames_01", (1, 0.2, 1), (0, 0.1, -40), None)])
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    return tmp_path


def test_a_missing_texture_is_one_warning_and_the_material_colour(game):
    imp = import_level(game_level(str(game), 1))
    missing = [w for w in imp.report.warnings if "missing.bmp" in w]
    assert len(missing) == 1 and "its faces are drawn in the material colour" in missing[0]
    gone = imp.looks["Floor_2"].parts[0]
    assert gone.texture is None and gone.colour == pytest.approx((0xE0 / 255, 0xC0 / 255, 0x20 / 255, 1.0))
    assert imp.looks["Floor_0"].parts[0].texture == str(game / "textures" / "Floor_Halves.BMP")


def test_the_viewer_draws_the_textures_and_colours(gl_window, game, tmp_path, capsys):  # noqa: F811
    """Seen from above and in front: the left floor red near (the image's top
    at v = 0), blue far; the middle one green (the TGA); the right one gold."""
    out = tmp_path / "shot.png"
    assert main(["render", "--game", str(game), "1", "--eye", "0", "30", "-1", "--look", "0", "0", "0",
                 "-o", str(out), "--size", "480x320", "--headless"]) == 0
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    h, w = img.shape[:2]

    def dominant(px):
        return "rgb"[int(np.argmax(px))] if np.ptp(px) > 60 else "grey"

    def floor_pixels(col_lo, col_hi, row_lo, row_hi):
        return img[int(row_lo * h):int(row_hi * h), int(col_lo * w):int(col_hi * w)].reshape(-1, 3)

    left_near = floor_pixels(0.12, 0.28, 0.56, 0.64)     # the near (bottom of the image) half of Floor_0
    left_far = floor_pixels(0.12, 0.28, 0.34, 0.42)
    middle = floor_pixels(0.45, 0.55, 0.40, 0.60)
    right = floor_pixels(0.75, 0.88, 0.40, 0.60)
    assert {dominant(p) for p in left_near} == {"r"}
    assert {dominant(p) for p in left_far} == {"b"}
    assert {dominant(p) for p in middle} == {"g"}
    r, g, b = right.mean(axis=0)
    assert r > g > b and r - b > 80                       # gold: (224, 192, 32) lit


def test_an_unreadable_image_is_warned_about_once(gl_window, tmp_path, caplog):  # noqa: F811
    from viewer.textures import TextureCache
    bad = tmp_path / "bad.bmp"
    bad.write_bytes(b"not an image")
    cache = TextureCache()
    with caplog.at_level(logging.WARNING, logger="viewer.textures"):
        assert cache.get(str(bad)) is None and cache.get(str(bad)) is None
    assert len([r for r in caplog.records if "bad.bmp" in r.getMessage()]) == 1
