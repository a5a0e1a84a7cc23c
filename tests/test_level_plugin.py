"""What a level file means is the game plug-in's (issue 40 item 4; DESIGN "The
game is a plug-in"): scenes.virtools reads Virtools files for any game, and
Ballance's group meanings and module table come through the entry point
``ivp.levels`` (behaviors.levels)."""

import dataclasses
import os
import subprocess
import sys
import tomllib

import pytest

from behaviors import levels
from behaviors.ballance.level_meaning import MEANING
from scenes import virtools
from scenes.virtools import import_level
from virtools_levels import LevelBuilder, heading_z

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ballances_level_meaning_is_its_entry_point():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        declared = tomllib.load(fh)["project"]["entry-points"]["ivp.levels"]
    assert declared == {"ballance": "behaviors.ballance.level_meaning:MEANING"}
    assert levels.level_meaning() is MEANING
    assert MEANING.physics_groups == ("Phys_Floors", "Phys_FloorRails", "Phys_FloorStopper")   # 5.1
    assert sorted(MEANING.modules) == ["PE_Balloon"] + [f"P_Modul_{k:02d}" for k in (1, 3, 8, 17, 19, 25, 26, 29,
                                                                                   30, 34, 37, 41)]
    assert MEANING.balloon in MEANING.modules               # glue-and-content 3 "Finish balloon"


def test_the_virtools_reader_and_importer_import_no_game_code():
    code = ("import sys\n"
            "import scenes.virtools, scenes.virtools.level, scenes.virtools.modules\n"
            "print(sorted(m for m in sys.modules if m.startswith('behaviors.ballance')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_a_level_plug_in_a_level_file_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(levels, "plugin_entry_points", lambda group: {})
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(LevelBuilder().data())
    with pytest.raises(ValueError, match="exactly one plug-in in the entry-point group 'ivp.levels'.*installed: none"):
        import_level(str(path))


def test_another_games_names_load_through_its_own_meaning(tmp_path):
    """A game whose floors are the group 'Solid' (its preset in its own scene
    file) and whose spawn points are 'Spawn_NN' in 'Spawns': the same reader,
    another meaning."""
    (tmp_path / "solid.yaml").write_text("version: 1\ngroup_presets:\n"
                                         "  Solid: {physics: {fixed: true, concave: [self]}}\n")
    meaning = dataclasses.replace(MEANING, physics_groups=("Solid",), reset_points="Spawns",
                                  reset_point_name="Spawn_{:02d}", includes=MEANING.includes + ("solid.yaml",))
    b = LevelBuilder()
    floor = b.box("Ground", (20, 1, 20), (0, -0.5, 0), None)
    b.group("Solid", [floor])
    b.group("Spawns", [b.entity("Spawn_01", None, heading_z(0, 3, 0))])
    b.group("Phys_Floors", [b.box("Other", (2, 1, 2), (30, 0, 0), None)])     # no meaning in this game
    path = tmp_path / "Level_01.NMO"
    path.write_bytes(b.data())
    imp = import_level(str(path), meaning=meaning)
    assert "Phys_Floors" in imp.report.unknown_groups
    level = next(d for d in imp.document["behaviours"] if d["type"] == "ballance.level")
    assert level["params"]["reset_points"] == "Spawn_{:02d}"
    docs = {d["name"]: d for d in imp.document["entities"]}
    assert docs["Ground"]["groups"] == ["Solid"] and docs["Spawn_01"]["groups"] == ["Spawns"]
    assert ("reset point", "Spawn_01", (0.0, 3.0, 0.0)) in imp.report.places
    scene = virtools.load(str(path), meaning=meaning)
    assert scene.ctx.physics.is_physicalized(scene.entity("Ground"))
