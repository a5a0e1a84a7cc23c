"""A level from the user's game folder: `--game PATH N` and the module
placeholders built from their PH prefabs (virtools-nmo.md 5.2, 5.5, 5.7;
glue-and-content 3), on files the tests write."""

import math

import pytest

import scenes
from behaviors.recording import Frame, Recording, replay
from scenes.virtools import game_level, import_level, reader as r
from viewer.cli import main
from virtools_levels import LevelBuilder, heading_z, translation, two_sector_level

PLACE = (10.0, 0.0, 100.0)      # the P_Modul_41 placeholder, turned by heading_z: X = -Z, Y = Y, Z = X (world)


def module_level() -> LevelBuilder:
    """The two-sector level (it has a P_Modul_41 and a P_Modul_18 of its own)
    with, in sector 1, a P_Modul_41 placeholder turned about Y at PLACE, a
    P_Modul_29 placeholder and a P_Modul_19 one."""
    b = two_sector_level()
    m41 = b.box("P_Modul_41_07", (2, 0.4, 2), None, None, matrix=heading_z(*PLACE))
    m29 = b.box("P_Modul_29_01", (2, 0.4, 2), (60, 0, 0), None)
    m19 = b.box("P_Modul_19_01", (2, 0.4, 2), (80, 0, 0), None)
    b.group("P_Modul_41", [m41])
    b.group("P_Modul_29", [m29])
    b.group("P_Modul_19", [m19])
    sector = next(o for o in b.objects if o.name == "Sector_01")
    sector.members += [m41, m29, m19]
    return b


def prefab(kind: str, body: bool = True) -> bytes:
    """A prefab as 5.5 has it: a root frame <kind>_MF away from the origin, a
    board 8 long along its X whose near end is 1 above the root, the hinge
    frame there, and a fixed stand; the board and the frame named by this
    project's convention (_Body, _Hinge), not as the original's."""
    b = LevelBuilder()
    b.entity(f"{kind}_MF", None, translation(5, 0, 0), class_id=r.CK_3DENTITY)
    if body:
        b.box(f"{kind}_Body", (8, 0.4, 2), (5 + 4, 1, 0), b.material("Board", 0xFF336699))
    b.entity(f"{kind}_Hinge", None, translation(5, 1, 0), class_id=r.CK_3DENTITY)
    b.box(f"{kind}_Stand", (1, 1, 1), (5, 0.5, 0), None)
    return b.data(compressed=True)


@pytest.fixture
def game(tmp_path):
    """A game folder in the case an install may have (5.7): the level and two prefabs."""
    level_dir = tmp_path / "3D entities" / "level"
    level_dir.mkdir(parents=True)
    (level_dir / "level_03.nmo").write_bytes(module_level().data())
    ph = tmp_path / "3D entities" / "ph"
    ph.mkdir()
    (ph / "P_Modul_41.NMO").write_bytes(prefab("P_Modul_41"))
    (ph / "P_Modul_29.nmo").write_bytes(prefab("P_Modul_29"))
    (ph / "P_Modul_19.nmo").write_bytes(prefab("P_Modul_19", body=False))
    return tmp_path


def test_a_level_number_finds_its_file_in_any_case(game):
    assert game_level(str(game), 3) == str(game / "3D entities" / "level" / "level_03.nmo")


def test_missing_folders_and_levels_name_what_was_looked_for(game, tmp_path):
    with pytest.raises(r.VirtoolsError, match=r"no level 4: there is no Level_04.NMO \(any case\) in .*level; "
                                              r"it has level_03.nmo"):
        game_level(str(game), 4)
    with pytest.raises(r.VirtoolsError, match=r"no '3D Entities/Level' folder in it .*3D Entities/Level/Level_01.NMO"):
        game_level(str(game / "3D entities"), 1)
    with pytest.raises(r.VirtoolsError, match="nowhere: no such folder"):
        game_level(str(tmp_path / "nowhere"), 1)


def test_commands_take_a_game_folder_and_a_level_number(game, capsys):
    assert main(["run", "--game", str(game), "3", "--seconds", "4.2", "--quiet", "--no-input"]) == 0   # played at 4 s
    assert "level 3: playing" in capsys.readouterr().out
    assert main(["run", "--game", str(game), "12", "--quiet"]) == 1
    assert "no level 12: there is no Level_12.NMO" in capsys.readouterr().err
    assert main(["render", "--game", str(game), "first", "-o", "x.png"]) == 1
    assert "expected a level number 1 to 99 after it, got 'first'" in capsys.readouterr().err


def test_a_module_is_built_from_its_prefab_at_the_placeholders_matrix(game):
    """5.2: part . root^-1 . placeholder. The board's offset from the root is
    (4, 1, 0); the placeholder's X row is world -Z, so the board lands at
    PLACE + (0, 1, -4), turned as the placeholder; the hinge at PLACE + (0, 1, 0)."""
    imp = import_level(game_level(str(game), 3))
    ents = {d["name"]: d for d in imp.document["entities"]}
    board, hinge = ents["P_Modul_41_07.P_Modul_41_Body"], ents["P_Modul_41_07.P_Modul_41_Hinge"]
    assert board["position"] == pytest.approx([10.0, 1.0, 96.0])
    assert hinge["position"] == pytest.approx([10.0, 1.0, 100.0])
    h = math.sqrt(0.5)                       # heading_z is 90 degrees about Y: (x, y, z, w) = (0, +-h, 0, h)
    assert [abs(x) for x in board["rotation"]["quaternion"]] == pytest.approx([0.0, h, 0.0, h], abs=1e-6)
    assert board["physics"] == {"mass": 1, "automatic_calculate_mass_center": False,   # glue-and-content 3: 41
                                "shift_mass_center": [0, 0, 0]}   # starts awake; its own mesh collides; the
    # prefab file weighs it at its frame (tests/test_float_boards.py)
    assert "Sector_01" in board["groups"] and "Sector_01" in ents["P_Modul_41_07.P_Modul_41_Stand"]["groups"]
    assert "physics" not in ents["P_Modul_41_07.P_Modul_41_Stand"]            # drawn, no collision
    assert "mesh" not in ents["P_Modul_41_07"]                              # the placeholder is an editing aid
    assert {"type": "hinge", "name": "P_Modul_41_07.hinge", "object": board["name"],
            "joint_referential": hinge["name"]} in imp.document["joints"]
    assert imp.looks[board["name"]].parts[0].colour == pytest.approx((0.2, 0.4, 0.6, 1.0))


def test_the_hinged_board_swings_about_its_hinge(game):
    """The board (mass 1, awake) hangs from a hinge along world X at its near
    end: gravity swings it down through the bottom, where its centre is right
    under the axis (y = 1 - 4), and its centre stays 4 from the axis."""
    scene = scenes.load(game_level(str(game), 3))
    board = scene.entity("P_Modul_41_07.P_Modul_41_Body")
    assert scene.ctx.physics.is_physicalized(board)
    seen = []
    replay(scene.ctx, Recording([Frame(1000.0 / 60.0, frozenset())] * 60),
           lambda ctx, i: seen.append(board.get_position()))
    assert min(y for _, y, _ in seen) == pytest.approx(1.0 - 4.0, abs=0.05)
    assert max(abs(math.hypot(y - 1.0, z - 100.0) - 4.0) for _, y, z in seen) < 0.01
    assert max(abs(x - 10.0) for x, _, _ in seen) < 1e-3               # in the plane across the axis


def test_check_lists_what_each_module_became_and_why(game, tmp_path, capsys):
    assert main(["check", game_level(str(game), 3)]) == 0
    out = capsys.readouterr().out
    assert "module P_Modul_41_07: built from P_Modul_41.nmo, 3 parts, 1 body, 1 joint" in out
    assert "    body = 'P_Modul_41_Body' (this project's name; the original's 'P_Modul_41' is not there)" in out
    assert ("module P_Modul_29_01: built from P_Modul_29.nmo, 3 parts drawn; 19 of the 19 parts it needs are not "
            "there (plank 1: no 3D object with a mesh named 'P_Modul_29_Platte01', ...): drawn without physics") in out
    assert ("module P_Modul_19_01: built from P_Modul_19.nmo, 2 parts drawn; body: no 3D object with a mesh named "
            "'P_Modul_19_Flaps' or 'P_Modul_19_Body': drawn without physics") in out
    assert "skipped 1 P_Modul_18 placeholders: no 3D Entities/PH/P_Modul_18.nmo (any case) in " in out
    assert "the fan works, drawn as its placeholder" in out


def test_without_a_game_folder_the_placeholders_stay(tmp_path):
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(module_level().data())
    imp = import_level(str(path))
    ents = {d["name"]: d for d in imp.document["entities"]}
    assert "mesh" in ents["P_Modul_41_07"] and "joints" not in imp.document
    assert ("2 P_Modul_41 placeholders", "no game folder is known, so no 3D Entities/PH/P_Modul_41.nmo (--game, "
            "or a level inside the game folder): shown as their placeholders, without physics") \
        in imp.report.skipped
