"""What the game hides stays hidden (docs/levels.md "What is hidden"): a
level written with scenes.virtools.writer, rendered from straight above with
`ivp render --game`, the PNG read back under each object."""

import numpy as np
import pytest
from PIL import Image
from test_viewer_support import gl_window  # noqa: F401

from scenes.virtools import game_level, import_level
from viewer.cli import main
from virtools_levels import LevelBuilder, heading_z, two_sector_level

GREEN, RED = 0xFF20C020, 0xFFE02020


@pytest.fixture
def game(tmp_path):
    """A green floor 40 x 40 with, 2 above it, a red reset point of sector 2
    at x = -8, a red decoration box of the same size at x = +8, and between
    them a red death cube the file leaves shown; sector 1 starts far away."""
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    b = LevelBuilder()
    green, red = b.material("Green", GREEN), b.material("Red", RED)
    floor = b.box("A01_Floor", (40, 1, 40), (0, -0.5, 0), green)
    resets = [b.box("PR_Resetpoint_01", (4, 1, 4), None, red, matrix=heading_z(0, 3.65, 200)),
              b.box("PR_Resetpoint_02", (4, 1, 4), None, red, matrix=heading_z(-8, 2, 0))]
    b.box("A01_Decoration", (4, 1, 4), (8, 2, 0), red)
    death = b.box("DepthTestCube_01", (4, 1, 4), (0, 2, 0), red)
    b.group("Phys_Floors", [floor])
    b.group("PR_Resetpoints", resets)
    b.group("DepthTestCubes", [death])
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    return tmp_path


def test_reset_points_and_death_cubes_are_imported_hidden(game):
    doc = import_level(game_level(str(game), 1)).document
    visible = {e["name"]: e.get("visible", True) for e in doc["entities"]}
    assert visible["PR_Resetpoint_02"] is False and visible["DepthTestCube_01"] is False
    assert visible["A01_Decoration"] is True and visible["A01_Floor"] is True


def test_the_flames_stand_ins_are_imported_hidden(tmp_path):
    """The start's and the checkpoints' placeholders: the game draws their
    prefabs' flames, not their untextured disc and cones."""
    level = tmp_path / "3D Entities" / "Level"
    level.mkdir(parents=True)
    (level / "Level_01.NMO").write_bytes(two_sector_level().data())
    doc = import_level(str(level / "Level_01.NMO")).document
    visible = {e["name"]: e.get("visible", True) for e in doc["entities"]}
    assert visible["PS_FourFlames_01"] is False and visible["PC_TwoFlames_01"] is False
    assert visible["A01_Floor_01"] is True


def test_a_hidden_reset_point_draws_nothing(gl_window, game, tmp_path):  # noqa: F811
    """Seen from 40 above the origin, the boxes' tops (y = 2) 38 away: the
    lens keeps 4:3's vertical extent, tan(29 deg) x 3/4 across half the
    square image's height, so 1 unit is 240 / (38 x 0.4157) = 15.2 pixels;
    world +X is the image's left (Virtools is left-handed, seen from above).
    The decoration's top is red at x = +8; where the reset point (x = -8) and
    the death cube (x = 0) stand, the floor shows green."""
    out = tmp_path / "shot.png"
    assert main(["render", "--game", str(game), "1", "--eye", "0", "40", "0.01", "--look", "0", "0", "0",
                 "-o", str(out), "--size", "480x480", "--headless"]) == 0
    img = np.asarray(Image.open(out).convert("RGB")).astype(int)
    scale = 240 / (38 * np.tan(np.radians(29)) * 3 / 4)

    def colour_at(x):
        """The dominant channel of the 9 x 9 pixels where world (x, 2, 0) projects."""
        col = int(round(240 - x * scale))
        return "rgb"[int(np.argmax(img[236:245, col - 4:col + 5].reshape(-1, 3).mean(axis=0)))]

    assert colour_at(8) == "r"                            # the decoration: the reading sees a red box
    assert colour_at(-8) == "g"                           # the reset point: nothing, the floor
    assert colour_at(0) == "g"                            # the death cube: nothing
