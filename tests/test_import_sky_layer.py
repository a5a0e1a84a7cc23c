"""The sky layer (virtools-nmo.md 5.4 / 5.6; issue 42): the SkyLayer sheet the
file saves hidden is shown, as the game's script shows it, unlit in the grey
Levelinit prelights it with (200/255), its texture scrolling by Levelinit's
Skytranslation per second of the behaviour clock.
Level, Levelinit and texture written by the test."""

import struct

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

from bbglue import meshes
from scenes.virtools import import_level
from scenes.virtools import reader as r
from viewer.cli import main
from virtools_levels import LevelBuilder, heading_z, translation

SCROLL = (0.25, 0.0)            # a quarter of the texture a second along u: half of it in 2 s


def levelinit() -> bytes:
    b = LevelBuilder()
    light = b.add(r.Parameter, r.CK_PARAMETER_OUT, "Light", type_guid=(1, 2), kind=1,
                  value=struct.pack("<4f", 1.0, 1.0, 1.0, 1.0))
    scroll = b.add(r.Parameter, r.CK_PARAMETER_OUT, "Skytranslation", type_guid=(3, 4), kind=1,
                   value=struct.pack("<2f", *SCROLL))
    b.add(r.DataArray, r.CK_DATAARRAY, "AllLevel",
          columns=[("Levelfile", 3), ("StartBall", 3), ("StartResetpoint", 1), ("Sky", 3), ("Light", 5),
                   ("Skytranslation", 5), ("LevelBonus", 1), ("Music", 1)],
          rows=[["Level_01.nmo", "Ball_Wood", 0, "Sky_L", light, scroll, 100, 1]])
    return b.data(compressed=True)


@pytest.fixture
def game(tmp_path):
    """A 40 x 40 SkyLayer sheet 10 below the origin, saved hidden, its texture
    red where u is 0 to 0.5 and blue where 0.5 to 1 (its UVs are its local x
    and z, -0.5 to 0.5 scaled by 1: one repeat across it); the start far away."""
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    (tmp_path / "Textures").mkdir()
    image = np.zeros((8, 8, 3), np.uint8)
    image[:, :4, 0] = 230
    image[:, 4:, 2] = 230
    Image.fromarray(image, "RGB").save(tmp_path / "Textures" / "SkyLayer.bmp")
    (tmp_path / "3D Entities" / "Levelinit.nmo").write_bytes(levelinit())
    b = LevelBuilder()
    mat = b.material("SkyLayer", 0xFFFFFFFF, b.texture("SkyLayer", "SkyLayer.bmp"))
    sheet = b.mesh("SkyLayer_Mesh", meshes.tessellated_plane(1.0, 1.0), mat)
    b.entity("SkyLayer", sheet, translation(0, -10, 0, s=(40, 1, 40)), hidden=True)
    reset = b.box("PR_Resetpoint_01", (4, 1, 4), None, None, matrix=heading_z(0, 3.65, 500))
    b.group("PR_Resetpoints", [reset])
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    return tmp_path


def test_the_sky_layer_is_shown_and_scrolls_by_levelinit(game):
    imp = import_level(str(game / "3D Entities" / "Level" / "Level_01.NMO"))
    assert imp.report.settings.sky_scroll == SCROLL
    item = next(e for e in imp.document["entities"] if e["name"] == "SkyLayer")
    assert item.get("visible", True) is True
    assert [p.uv_scroll for p in imp.looks["SkyLayer"].parts] == [SCROLL]
    assert [p.prelit for p in imp.looks["SkyLayer"].parts] == [(200 / 255,) * 3]     # drawn unlit, prelit grey
    assert [(p.surface.blend, p.surface.z_write) for p in imp.looks["SkyLayer"].parts] == [((2, 2), False)]


def test_the_sky_layers_texture_moves_half_its_width_in_2_s(gl_window, game, tmp_path):  # noqa: F811
    """From 40 above, the sheet 50 away: the pixel over local x = 0.25 (u 0.25,
    red) shows u 0.75, blue, once the texture has moved 0.25 x 2 = 0.5."""
    def colour(at: str) -> str:
        out = tmp_path / f"at{at}.png"
        assert main(["render", "--game", str(game), "1", "--at", at, "--eye", "0", "40", "0.01", "--look", "0", "0",
                     "0", "-o", str(out), "--size", "240x240", "--headless"]) == 0
        img = np.asarray(Image.open(out).convert("RGB")).astype(int)
        scale = 120 / (50 * np.tan(np.radians(29)) * 3 / 4)      # pixels per unit at the sheet
        col = int(round(120 - 10.0 * scale))                      # world x = +10 (local 0.25), to the left
        return "rgb"[int(np.argmax(img[117:124, col - 3:col + 4].reshape(-1, 3).mean(axis=0)))]

    assert colour("0") == "r"
    assert colour("2") == "b"


def test_the_sky_pass_adds_the_settled_sheet_where_the_eye_sees_it(gl_window, game):  # noqa: F811
    """Drawn in the sky box's pass once it stands still (viewer/textures.py
    SkySheet): from 40 above, the sheet 50 below the eye and 40 wide, the
    pixel over world x = +10 (u 0.25, red 230) is the sky's green (0, 40, 0)
    plus 230 x 200/255 = 180 of red; the image's edge (27.7 off the middle
    at the sheet, fov 58) is beyond the sheet: the sky alone. Halfway through
    the finish's 3 s fade the sheet adds half its red."""
    from behaviors.ballance.level import level_behavior
    session, view, renderer, target, img = drawn_from_above(game, gl_window)
    assert renderer.sky_box is not None and renderer.static.sky_sheet() is not None
    assert renderer.sky_pass.size == (80, 80)      # shaded at a third of the view's side (viewer/sky.py)
    scale = 120 / (50 * np.tan(np.radians(29)) * 3 / 4)
    col = int(round(120 - 10.0 * scale))
    assert np.allclose(img[117:124, col - 3:col + 4].reshape(-1, 3), (180, 40, 0), atol=3)
    assert np.allclose(img[117:124, :2].reshape(-1, 3), (0, 40, 0), atol=3)
    level_behavior(session.ctx).finish_time = level_behavior(session.ctx).clock - 1.5    # 1.5 s of the 3 s fade
    target.bind()
    view.draw(renderer, (240, 240))
    img = target.read().astype(int)
    assert np.allclose(img[117:124, col - 3:col + 4].reshape(-1, 3), (90, 40, 0), atol=3)     # half the red


def drawn_from_above(game, gl_window):
    """The sky layer's level with Sky_L's five faces all (0, 40, 0), paused,
    drawn from 40 above looking down into 240 x 240 until the sky stands
    still: (session, view, renderer, target, the image as ints)."""
    import scenes
    from viewer.camera import look_at
    from viewer.gameplay import scene_look
    from viewer.renderer import Offscreen, Renderer
    from viewer.session import Session
    from viewer.static import SETTLE_FRAMES
    from viewer.window import View
    from scenes.virtools import game_level
    gl_window.switch_to()                   # the context the CLI's renders left
    (game / "Textures" / "Sky").mkdir()
    for face in ("Back", "Right", "Front", "Left", "Down"):
        Image.fromarray(np.full((4, 4, 3), (0, 40, 0), np.uint8), "RGB").save(game / "Textures" / "Sky" /
                                                                             f"Sky_L_{face}.bmp")
    session = Session(lambda: scenes.load(game_level(str(game), 1)))
    session.tick(1 / 60)
    session.toggle_pause()
    view = View(session, scene_camera=lambda _s: look_at((0, 40, 0.01), (0, 0, 0)))
    renderer = Renderer(*scene_look(session))
    target = Offscreen(240, 240, samples=0)
    for _ in range(SETTLE_FRAMES + 2):
        target.bind()
        view.draw(renderer, (240, 240))
    return session, view, renderer, target, target.read().astype(int)
