"""The balls as the game draws them (issue 42; scenes/virtools/balls.py): with
the game folder's Balls.nmo the player rig's balls and pieces take its meshes
and textures, each mesh with its entity's rotation baked in; without it, or
for what it lacks, the rig's own shapes stay. Level and balls files written
by the tests."""

import pytest

import scenes
from behaviors.ballance import player_of
from virtools_levels import LevelBuilder, translation, two_sector_level

# A quarter turn about Y (rows X, Y, Z of the 3.3 matrix): local x goes to world -z, local z to world +x.
QUARTER_Y = (0.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0)


def balls_file() -> bytes:
    """Ball_Wood a 3 x 3 x 3 box with the texture Ball_Wood.bmp; the group
    Ball_Wood_Pieces of 16 bars 1 x 0.5 x 0.25, the first turned a quarter
    about Y and placed 5 away (the position is left out); no stone ball."""
    b = LevelBuilder()
    wood = b.material("Ball_Wood", 0xFFFFFFFF, b.texture("Ball_Wood", "Ball_Wood.bmp"))
    b.box("Ball_Wood", (3, 3, 3), (0, 0, 0), wood)
    pieces = [b.box(f"Ball_Wood_piece{k:02d}", (1, 0.5, 0.25), None, wood,
                    matrix=(QUARTER_Y if k == 1 else translation(0, 0, 0)[:9]) + (5.0, 0.0, 0.0))
              for k in range(1, 17)]
    b.group("Ball_Wood_Pieces", pieces)
    return b.data(compressed=True)


@pytest.fixture
def game(tmp_path):
    level = tmp_path / "3D Entities" / "Level"
    level.mkdir(parents=True)
    (level / "Level_01.NMO").write_bytes(two_sector_level().data())
    (tmp_path / "Textures").mkdir()
    (tmp_path / "Textures" / "Ball_Wood.bmp").write_bytes(b"")        # found by name; not read here
    return tmp_path


def test_the_rig_takes_the_balls_files_shapes(game):
    (game / "3D Entities" / "Balls.nmo").write_bytes(balls_file())
    scene = scenes.load(str(game / "3D Entities" / "Level" / "Level_01.NMO"))
    wood = scene.entity("Ball_Wood")
    assert wood.mesh.name == "Balls.Ball_Wood_Mesh"
    assert wood.mesh.bounding_box() == ((-1.5, -1.5, -1.5), (1.5, 1.5, 1.5))
    assert scene.looks["Ball_Wood"].parts[0].texture == str(game / "Textures" / "Ball_Wood.bmp")
    first, second = scene.ctx.get("Ball_Wood_Pieces").entities[:2]
    # Turned a quarter about Y: the bar's x extent (0.5) becomes its z extent, its z (0.125) its x.
    assert sum(first.mesh.bounding_box(), ()) == pytest.approx((-0.125, -0.25, -0.5, 0.125, 0.25, 0.5))
    assert sum(second.mesh.bounding_box(), ()) == pytest.approx((-0.5, -0.25, -0.125, 0.5, 0.25, 0.125))
    assert first.name in scene.looks
    stone = scene.entity("Ball_Stone")
    assert not stone.mesh.name.startswith("Balls.") and "Ball_Stone" not in scene.looks
    assert any("no meshes for Ball_Paper, Ball_Stone, Ball_Paper_Pieces, Ball_Stone_Pieces" in why
               for what, why in scene.level.skipped if what == "the balls' shapes")


def test_without_balls_nmo_the_rig_keeps_its_shapes(game):
    scene = scenes.load(str(game / "3D Entities" / "Level" / "Level_01.NMO"))
    assert not scene.entity("Ball_Wood").mesh.name.startswith("Balls.")
    assert ("the balls' shapes", f"no 3D Entities/Balls.nmo (in {game}): the rig's own shapes") in scene.level.skipped


def test_a_paper_ball_of_the_game_rolls_on_its_own_hull(game):
    """The paper ball's hull is its mesh's (glue-and-content 3): a 3 x 3 x 3
    box from the balls file rests on the floor (top at y = 0) with its
    centre 1.5 above it."""
    b = LevelBuilder()
    b.box("Ball_Paper", (3, 3, 3), (0, 0, 0), b.material("Paper", 0xFFFFFFFF))
    (game / "3D Entities" / "Balls.nmo").write_bytes(b.data())
    scene = scenes.load(str(game / "3D Entities" / "Level" / "Level_01.NMO"))
    scene.ctx.process_frame(1000 / 60)
    player_of(scene.ctx).spawn("paper", (0.0, 3.0, 5.0))
    for _ in range(240):
        scene.ctx.process_frame(1000 / 60)
    assert scene.entity("Ball_Paper").get_position()[1] == pytest.approx(1.5, abs=0.05)
