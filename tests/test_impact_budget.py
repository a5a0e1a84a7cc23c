"""Issue 41 item 1: jammed impact systems end within the original's budget
(ivp-contacts 4.7, 4.8, 8.2): at most MAXIMUM_SYSTEM_PUSH_NUMBER loops a
system (the 5001st ends it and its triggering mindist goes), at most
max_collisions_per_psi impacts a core and PSI (the next one makes it
temporarily unmovable, and the solver pushes it no more). The scenes are
our own fuzz output (tests/data/impact_jams, ../shared/repro/scenes), laid
over a copy of the bundled scenes as the repro README says: six overlapping
prisms made physical (fan_column__fz7235), the player's ball pieces with
friction 0 in a heap (ph34_falling_stone__fz18363) and the stone pieces with
mass 0.1, friction 0 and no damping in a heap (fuzz seed 12104, over 60 s of
CPU alone for 2 s of frames)."""

import math
import os
import shutil

import pytest

import scenes
from ivp.collision.constants import MAXIMUM_SYSTEM_PUSH_NUMBER
from ivp.collision.impact import impacts_this_psi
from ivp.time_manager import PsiEvent
from scenes.headless import run
from test_impact_limits import record_impact_systems

JAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "impact_jams")


def jam_scene(tmp_path, name):
    folder = tmp_path / "scenes"
    shutil.copytree(scenes.BUNDLED_DIR, folder)
    shutil.copytree(JAMS, folder, dirs_exist_ok=True)
    return scenes.load(str(folder / name))


def record_core_impacts(monkeypatch):
    """The most impacts one core took in each PSI's interval (4.7's counter),
    read as the next PSI starts."""
    most = []
    psi = PsiEvent.simulate_time_event

    def reading(event, tm, env):
        most.append(max((impacts_this_psi(o.core) for o in env.objects), default=0))
        psi(event, tm, env)

    monkeypatch.setattr(PsiEvent, "simulate_time_event", reading)
    return most


@pytest.mark.parametrize("name, seconds, limit_reached", [
    ("fan_column__fz7235.yaml", 0.2, False), ("modules/ph34_falling_stone__fz18363.yaml", 0.04, True),
    ("modules/ph34_falling_stone__fz12104.yaml", 0.04, False)])
def test_a_jammed_scene_keeps_the_budgets_of_a_system_and_a_core(tmp_path, monkeypatch, name, seconds,
                                                                  limit_reached):
    runs = record_impact_systems(monkeypatch)
    most = record_core_impacts(monkeypatch)
    scene = jam_scene(tmp_path, name)
    summary = run(scene, seconds=seconds)
    # 4.7: a core past max_collisions_per_psi (70000) is pushed no more in that PSI
    limit = scene.ctx.physics.env.anomaly_limits.max_collisions_per_psi
    assert limit == 70000
    assert max(most) <= limit + 1
    assert (max(most) == limit + 1) == limit_reached        # the heap of 16 pieces reaches it in its first PSIs
    assert summary.finite and summary.errors == 0
    over = [alive for n, alive in runs if n > MAXIMUM_SYSTEM_PUSH_NUMBER]
    assert over, "the scene jams: some system reaches the limit"
    assert not any(over)                                    # 8.2: its triggering mindist is deleted
    assert max(n for n, _ in runs) == MAXIMUM_SYSTEM_PUSH_NUMBER + 1
    for obj in scene.ctx.physics.env.objects:
        assert all(math.isfinite(x) for x in obj.core.speed + obj.core.rot_speed)
