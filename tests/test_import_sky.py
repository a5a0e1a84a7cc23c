"""An imported level's sky box (virtools-nmo.md 5.6, 5.7): the five images
Textures/Sky/<Sky>_<Back|Right|Front|Left|Down>.bmp of the level's Sky
(Levelinit's, or the default Sky_L) drawn around the camera, on a game folder
the test writes; `ivp render` under headless EGL, the PNG read back."""

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

from scenes.virtools import game_level, import_level
from viewer.cli import main
from virtools_levels import LevelBuilder, translation

FACES = {"Front": (220, 40, 40), "Back": (40, 40, 220), "Right": (40, 200, 40), "Left": (220, 220, 40),
         "Down": (128, 128, 128)}


@pytest.fixture
def game(tmp_path):
    """A level with only its start, and Sky_L's images but its Back (any case)."""
    sky = tmp_path / "TEXTURES" / "sky"
    sky.mkdir(parents=True)
    for face, colour in FACES.items():
        if face != "Back":
            Image.fromarray(np.full((8, 8, 3), colour, np.uint8)).save(sky / f"sky_l_{face.lower()}.BMP")
    b = LevelBuilder()
    b.group("PS_Levelstart", [b.entity("PS_FourFlames_01", None, translation(0, -500, 0))])
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    return tmp_path


def test_the_sky_images_are_found_and_a_missing_one_is_a_warning(game):
    imp = import_level(game_level(str(game), 1))
    assert [p is not None for p in imp.sky_box] == [False, True, True, True, True]      # Back, Right, ...
    assert imp.sky_box[2].endswith("sky_l_front.BMP")
    assert "sky Sky_L: no Sky_L_Back.bmp: those faces show the plain sky" in imp.report.warnings


def test_without_a_game_folder_there_is_no_sky_box(tmp_path):
    path = tmp_path / "Level_01.NMO"
    b = LevelBuilder()
    b.group("PS_Levelstart", [b.entity("PS_FourFlames_01", None, translation(0, 0, 0))])
    path.write_bytes(b.data())
    imp = import_level(str(path))
    assert imp.sky_box is None and ("sky Sky_L", "no images (no game folder): the viewer's plain sky") \
        in imp.report.skipped


@pytest.mark.parametrize("look, face", [((0, 0, 100), "Front"), ((100, 0, 0), "Right"), ((-100, 0, 0), "Left"),
                                        ((0.01, -100, 0), "Down"), ((0, 0, -100), None)])
def test_each_face_lies_where_the_camera_looks(gl_window, game, tmp_path, look, face):  # noqa: F811
    """Front is +Z, Right +X, Left -X, Down -Y (the game's prism, textures.sky_prism);
    the missing Back shows the plain sky (light blue)."""
    out = tmp_path / "sky.png"
    assert main(["render", "--game", str(game), "1", "--eye", "0", "0", "0", "--look", *map(str, look),
                 "-o", str(out), "--size", "64x48", "--headless"]) == 0
    centre = np.asarray(Image.open(out).convert("RGB")).astype(int)[20:28, 28:36].reshape(-1, 3).mean(axis=0)
    if face is None:
        assert centre[2] > centre[0] and np.abs(centre - np.array(list(FACES.values()))).max(axis=1).min() > 30
    else:
        assert centre == pytest.approx(FACES[face], abs=3)


def test_no_seam_where_two_faces_meet(gl_window, game, tmp_path):  # noqa: F811
    """A face's image is sampled up to its edges, not repeated: the Front
    image with a white top row, seen along its bottom edge (where it meets
    Down), shows no white there (repeated, its bottom texels would blend
    with the top row into a light line)."""
    front = np.full((8, 8, 3), FACES["Front"], np.uint8)
    front[0] = 255
    Image.fromarray(front).save(game / "TEXTURES" / "sky" / "sky_l_front.BMP")
    out = tmp_path / "seam.png"
    assert main(["render", "--game", str(game), "1", "--eye", "0", "0", "0", "--look", "0", "-100", "100",
                 "-o", str(out), "--size", "160x120", "--headless"]) == 0
    column = np.asarray(Image.open(out).convert("RGB")).astype(int)[:, 70:90].reshape(-1, 3)
    assert column[:, 1].max() <= max(FACES["Front"][1], FACES["Down"][1]) + 3      # no white's green
