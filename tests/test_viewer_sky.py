"""The sky's low-resolution target (viewer/sky.py) is drawn again only when
what it shows changes: a paused frame keeps it, a turned camera draws it anew."""

import numpy as np
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

from scenes.virtools import game_level
from viewer.camera import look_at
from viewer.session import Session
from virtools_levels import LevelBuilder, translation

FRONT, RIGHT = (220, 40, 40), (40, 200, 40)


def sky_level(tmp_path):
    """A level with only its start point far below, and Sky_L's Front and Right images."""
    sky = tmp_path / "Textures" / "Sky"
    sky.mkdir(parents=True)
    for face, colour in (("Front", FRONT), ("Right", RIGHT)):
        Image.fromarray(np.full((8, 8, 3), colour, np.uint8)).save(sky / f"Sky_L_{face}.bmp")
    b = LevelBuilder()
    b.group("PS_Levelstart", [b.entity("PS_FourFlames_01", None, translation(0, -500, 0))])
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    return game_level(str(tmp_path), 1)


def centre(img) -> np.ndarray:
    h, w = img.shape[:2]
    return img[h // 2 - 4:h // 2 + 4, w // 2 - 4:w // 2 + 4].reshape(-1, 3).astype(int).mean(axis=0)


def test_the_sky_target_is_kept_while_nothing_it_shows_changes(gl_window, tmp_path):  # noqa: F811
    import scenes
    from viewer.capture import Capture
    path = sky_level(tmp_path)
    looking = {"at": (0.0, 0.0, 100.0)}                       # +Z: the Front face
    session = Session(lambda: scenes.load(path))
    cap = Capture(session, (64, 48), scene_camera=lambda _s: look_at((0.0, 0.0, 0.0), looking["at"]))
    try:
        cap.run_until(0.0)
        session.toggle_pause()
        first = cap.image()
        drawn = cap.renderer.sky_pass.drawn
        again = cap.image()
        assert cap.renderer.sky_pass.drawn is drawn          # the same inputs: the target was not drawn again
        assert np.array_equal(first, again)
        assert np.allclose(centre(again), FRONT, atol=12)
        looking["at"] = (100.0, 0.0, 0.0)                     # +X: the Right face
        turned = cap.image()
        assert cap.renderer.sky_pass.drawn is not drawn
        assert np.allclose(centre(turned), RIGHT, atol=12)   # drawn anew, not the kept Front
    finally:
        cap.close()
