"""The sky's low-resolution target (viewer/sky.py) is drawn again only when
what it shows changes: a paused frame keeps it, a turned camera draws it anew."""

import math

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

from scenes.virtools import game_level
from viewer.camera import look_at
from viewer.session import Session
from test_import_sky_layer import drawn_from_above, game as sheet_game  # noqa: F401  (the sky layer's level, a fixture)
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


# --- the game's sky prism (issue 42: TT Sky of Gameplay.nmo, radius 100, distortion 0.15) ---------------

FACES = {"Back": (40, 40, 220), "Right": (40, 200, 40), "Front": (220, 40, 40), "Left": (220, 220, 40),
         "Down": (128, 128, 128)}
WALL = 100.0 * math.sqrt(0.5)          # corners at 100 from the eye at 45, 135, ... degrees: walls 70.71 away


def prism_game(tmp_path):
    """A level with only its start far below, and Sky_L's five images, one colour each."""
    sky = tmp_path / "Textures" / "Sky"
    sky.mkdir(parents=True)
    for face, colour in FACES.items():
        Image.fromarray(np.full((8, 8, 3), colour, np.uint8)).save(sky / f"Sky_L_{face}.bmp")
    b = LevelBuilder()
    b.group("PS_Levelstart", [b.entity("PS_FourFlames_01", None, translation(0, -500, 0))])
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    return tmp_path


def render(game, look, size=(64, 48)) -> np.ndarray:
    from viewer.cli import main
    out = game / "sky.png"
    assert main(["render", "--game", str(game), "1", "--eye", "0", "0", "0", "--look", *map(str, look),
                 "-o", str(out), "--size", f"{size[0]}x{size[1]}", "--headless"]) == 0
    return np.asarray(Image.open(out).convert("RGB")).astype(int)


def test_the_prism_has_four_walls_square_to_the_axes_and_a_floor():
    """Back at -Z, Right +X, Front +Z, Left -X, each 70.71 from the eye and
    141.42 high (the corners' chord), centred on it; the floor (Down) at
    -70.71, its corner at -X -Z at UV (0, 1) (u = x / 100 x 0.7071 + 0.5,
    v = -z / 100 x 0.7071 + 0.5); no top."""
    from viewer.textures import sky_indices, sky_prism
    vertices, faces = sky_prism()
    indices = sky_indices()
    assert len(faces) == 5 and sum(n for _, n in faces) == len(indices) == 4 * 6 + 4 * 3
    for (first, count), (axis, sign) in zip(faces, ((2, -1), (0, 1), (2, 1), (0, -1), (1, -1))):
        v = vertices[indices[first:first + count]].astype(float)
        assert v[:, axis] == pytest.approx(np.full(count, sign * WALL), abs=1e-4)
        assert np.abs(v[:, :3]).max() == pytest.approx(WALL, abs=1e-4)
        if axis != 1:                                       # a wall: the whole image, corner to corner
            assert {tuple(uv) for uv in v[:, 3:]} == {(0, 0), (0, 1), (1, 0), (1, 1)}
    corner = next(row for row in vertices[indices[24:]] if row[0] < 0 and row[2] < 0)
    assert tuple(corner[3:]) == pytest.approx((0.0, 1.0), abs=1e-6)
    assert vertices[:, 1].max() == pytest.approx(WALL, abs=1e-4)      # the walls' tops: nothing above them


def test_the_sky_lens_is_widened_by_the_distortion():
    """58 degrees across at 4:3 become 58 + (180 - 58) x 0.15 = 76.3."""
    from viewer.camera import BALLANCE_LENS
    from viewer.textures import SKY_DISTORTION
    sky = BALLANCE_LENS.widened(SKY_DISTORTION, 4 / 3)
    assert math.degrees(2 * math.atan(sky.tan_half_fov(4 / 3)[0])) == pytest.approx(76.3, abs=1e-5)
    with pytest.raises(ValueError, match="distortion"):
        BALLANCE_LENS.widened(1.5, 4 / 3)


@pytest.mark.parametrize("look, face", [((0, 0, -100), "Back"), ((100, 0, 0), "Right"), ((0, 0, 100), "Front"),
                                        ((-100, 0, 0), "Left"), ((0.01, -100, 0), "Down"), ((0.01, 100, 0), None)])
def test_each_of_the_five_faces_lies_around_the_eye_and_there_is_no_top(gl_window, tmp_path, look,  # noqa: F811
                                                                        face):
    """Straight up there is no face: the whole view is the clear colour (the
    scene's default background, 0.55 0.7 0.85: 140 178 217)."""
    img = render(prism_game(tmp_path), look)
    if face is None:
        assert (img == (140, 178, 217)).all()
    else:
        assert img[20:28, 28:36].reshape(-1, 3).mean(axis=0) == pytest.approx(FACES[face], abs=3)


def test_the_sky_is_drawn_through_the_widened_lens(gl_window, tmp_path):  # noqa: F811
    """Looking 30 degrees right of +Z, level, Front meets Right 15 degrees
    right of the middle: at x = tan 15 / tan(76.3 / 2) of the half width
    through the sky's lens (column 160.9 of 240), not tan 15 / tan 29
    (column 178.0) through the view's; within one pixel of the sky's target
    (a third of the view's side: 3 columns)."""
    img = render(prism_game(tmp_path), (50.0, 0.0, 86.6025), (240, 180))
    row = img[86:94].mean(axis=0)
    to_front = np.abs(row - FACES["Front"]).sum(axis=1)
    to_right = np.abs(row - FACES["Right"]).sum(axis=1)
    seam = int(np.argmax(to_right < to_front))
    expected = (math.tan(math.radians(15)) / math.tan(math.radians(58 + 122 * 0.15) / 2) + 1) / 2 * 240
    assert (to_right < to_front)[seam:].all() and abs(seam + 0.5 - expected) <= 3


def test_the_cloud_sheet_lies_along_the_views_rays_not_the_skys(gl_window, sheet_game):  # noqa: F811
    """The sky layer of test_import_sky_layer (40 x 40, 10 below the origin,
    u = 0.5 - x / 40: red where x > 0, blue where x < 0, prelit 200/255) seen
    from 40 above looking down in 240 x 240 (tan 29 x 3/4 = 0.4157 each way):
    the columns at 0.79 of the half width meet it 0.79 x 0.4157 x 50 = 16.4
    from the middle, inside it, so the sky's green (0, 40, 0) plus 230 x
    200/255 = 180 of red (left) or blue (right); through the sky's wider lens
    (tan 32.7 = 0.6424 at aspect 1) those rays would be 25.4 out, beyond it."""
    img = drawn_from_above(sheet_game, gl_window)[-1]
    for col, colour in ((120 - 95, (180, 40, 0)), (120 + 95, (0, 40, 180))):
        assert img[117:124, col - 2:col + 3].reshape(-1, 3).mean(axis=0) == pytest.approx(colour, abs=4)
    assert img[117:124, :2].reshape(-1, 3).mean(axis=0) == pytest.approx((0, 40, 0), abs=3)   # beyond it
