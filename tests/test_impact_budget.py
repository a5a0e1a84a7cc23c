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
from ivp import Environment
from ivp.collision import system as collision_system
from ivp.collision.constants import MAXIMUM_SYSTEM_PUSH_NUMBER
from ivp.collision.impact import impacts_this_psi
from ivp.time_manager import PsiEvent
from scenes.headless import run
from test_collision_scenes import box
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


def record_impact_times(monkeypatch):
    """(PSI count, the mindist, its event time) per do_impact."""
    times = []
    do_impact = collision_system.CollisionSystem.do_impact

    def recording(self, md):
        times.append((self.environment.psi_count, id(md), self.environment.current_time))
        do_impact(self, md)

    monkeypatch.setattr(collision_system.CollisionSystem, "do_impact", recording)
    return times


@pytest.mark.parametrize("name, seconds, limit_reached", [
    ("fan_column__fz7235.yaml", 0.2, False), ("modules/ph34_falling_stone__fz18363.yaml", 0.04, True),
    ("modules/ph34_falling_stone__fz12104.yaml", 0.04, False)])
def test_a_jammed_scene_keeps_the_budgets_of_a_system_and_a_core(tmp_path, monkeypatch, name, seconds,
                                                                  limit_reached):
    runs = record_impact_systems(monkeypatch)
    most = record_core_impacts(monkeypatch)
    times = record_impact_times(monkeypatch)
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
    # 3.5: after an impact a pair's "now" event is delayed (BIG_DELAY: at least 1e-6 s
    # on), so no pair starts two systems at one instant
    assert len(set(times)) == len(times)
    for obj in scene.ctx.physics.env.objects:
        assert all(math.isfinite(x) for x in obj.core.speed + obj.core.rot_speed)


def test_finishing_an_impact_measures_the_exact_pairs_only(monkeypatch):
    # ivp-contacts 4.9: the pushed cores' exact pairs are measured again at t and
    # searched; a pair on the invalid list (3.3 INTRUSION: a box inside a fixed cage)
    # is not, it waits for its retry at the next PSI (1.2 d). Two boxes in the cage,
    # 5 mm apart: their pair is exact, each one's pair with the cage intruded.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    box(env, (0.0, 0.0, 0.0), size=(4.0, 4.0, 4.0), fixed=True, name="cage")
    a = box(env, (-0.6, 0.0, 0.0), size=(1.0, 1.0, 1.0), name="a")
    b = box(env, (0.405, 0.0, 0.0), size=(1.0, 1.0, 1.0), name="b")
    a.wake()
    b.wake()
    env.simulate(env.delta_PSI_time)
    pairs = {frozenset((md.a.obj.name, md.b.obj.name)): md for md in env.collision.mindists()}
    assert pairs[frozenset(("cage", "a"))].intrusion and not pairs[frozenset(("a", "b"))].intrusion
    measured = []
    recalc_all = collision_system.recalc_all
    monkeypatch.setattr(collision_system, "recalc_all", lambda mds, t: (measured.extend(mds), recalc_all(mds, t))[1])
    env.collision.update_events_of_cores([a.core])
    assert measured == [pairs[frozenset(("a", "b"))]]
