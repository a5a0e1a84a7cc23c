"""Issue 41 item 1: jammed impact systems end within the original's budget
(ivp-contacts 4.7, 4.8, 8.2): at most MAXIMUM_SYSTEM_PUSH_NUMBER loops a
system (the 5001st ends it and its triggering mindist goes). The scenes are
our own fuzz output (tests/data/impact_jams, ../shared/repro/scenes), laid
over a copy of the bundled scenes as the repro README says: six overlapping
prisms made physical (fan_column__fz7235) and the player's ball pieces with
friction 0 in a heap (ph34_falling_stone__fz18363)."""

import math
import os
import shutil

import pytest

import scenes
from ivp.collision.constants import MAXIMUM_SYSTEM_PUSH_NUMBER
from scenes.headless import run
from test_impact_limits import record_impact_systems

JAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "impact_jams")


def jam_scene(tmp_path, name):
    folder = tmp_path / "scenes"
    shutil.copytree(scenes.BUNDLED_DIR, folder)
    shutil.copytree(JAMS, folder, dirs_exist_ok=True)
    return scenes.load(str(folder / name))


@pytest.mark.parametrize("name, seconds", [("fan_column__fz7235.yaml", 0.2),
                                           ("modules/ph34_falling_stone__fz18363.yaml", 0.04)])
def test_a_jammed_scene_ends_each_system_at_the_push_limit(tmp_path, monkeypatch, name, seconds):
    runs = record_impact_systems(monkeypatch)
    scene = jam_scene(tmp_path, name)
    summary = run(scene, seconds=seconds)
    assert summary.finite and summary.errors == 0
    over = [alive for n, alive in runs if n > MAXIMUM_SYSTEM_PUSH_NUMBER]
    assert over, "the scene jams: some system reaches the limit"
    assert not any(over)                                    # 8.2: its triggering mindist is deleted
    assert max(n for n, _ in runs) == MAXIMUM_SYSTEM_PUSH_NUMBER + 1
    for obj in scene.ctx.physics.env.objects:
        assert all(math.isfinite(x) for x in obj.core.speed + obj.core.rot_speed)
