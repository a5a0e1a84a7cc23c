"""ivp-contacts 4.7-4.8 and 8.2: the limits that end a jammed impact system.

The jam: a fixed box-shaped soup (one-triangle two-sided ledges) and a movable
box placed half inside it, its top and bottom faces exactly on the soup's top
and bottom planes (issue 15's fuzz seed 11582, the spring lift's platform under
a moved floor). Each impact on the top face pushes the box into the bottom
face's contact and back, so propagation never runs out of closing contact points."""

import numpy as np

from ivp import Environment, ObjectTemplate, build_surface
from ivp.collision import system as collision_system
from ivp.collision.constants import MAXIMUM_SYSTEM_PUSH_NUMBER
from ivp.collision.impact import ImpactSystem, impacts_this_psi, temporarily_unmovable
from test_collision_scenes import box

BOX_FACES = np.array([(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1),
                      (2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)])


def jammed_platform():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    V = np.array([(4.8 + x, y, z) for x in (-5.0, 5.0) for y in (-1.0, 0.0) for z in (-20.0, 20.0)], float)
    soup = build_surface("floor", concave_meshes=[(V, BOX_FACES)])
    env.create_polygon(soup, ObjectTemplate(name="floor", physical_unmoveable=True), (0.0, 0.0, 0.0))
    platform = box(env, (0.0, -0.5, 0.0), size=(8.0, 1.0, 8.0), mass=3.0, name="platform")
    platform.wake()
    return env, platform


def record_impact_systems(monkeypatch):
    """(loops run, triggering mindist alive afterwards) per do_impact."""
    runs = []
    loops = []
    run = ImpactSystem.run
    do_impact = collision_system.CollisionSystem.do_impact

    def recording_run(self, *args):
        over = run(self, *args)
        loops.append(self.loops)
        return over

    def recording_do_impact(self, md):
        n = len(loops)
        do_impact(self, md)
        if len(loops) > n:
            runs.append((loops[-1], md.alive))

    monkeypatch.setattr(ImpactSystem, "run", recording_run)
    monkeypatch.setattr(collision_system.CollisionSystem, "do_impact", recording_do_impact)
    return runs


def test_impact_system_past_5000_pushes_deletes_its_triggering_mindist(monkeypatch):
    # 8.2: the original (and Ballance's older build) deletes the mindist whose
    # event started a system that ran past MAXIMUM_SYSTEM_PUSH_NUMBER loops; the
    # later head only stops. Systems that end by themselves keep their mindist.
    runs = record_impact_systems(monkeypatch)
    env, platform = jammed_platform()
    for _ in range(3):
        env.simulate(env.delta_PSI_time)
    over = [alive for n, alive in runs if n > MAXIMUM_SYSTEM_PUSH_NUMBER]
    under = [alive for n, alive in runs if n <= MAXIMUM_SYSTEM_PUSH_NUMBER]
    assert over and not any(over)
    assert all(under)
    # no system loops past the limit (the 5001st impact ends it)
    assert max(n for n, _ in runs) == MAXIMUM_SYSTEM_PUSH_NUMBER + 1


def test_a_core_past_max_collisions_per_psi_is_temporarily_unmovable(monkeypatch):
    # 4.7: past max_collisions_per_psi impacts since the PSI start the anomaly
    # manager parks the core's velocities in its pending changes and the core
    # is unmovable for the rest of the PSI (no impact pushes or counts it);
    # 4.8: the system then skips its pairs with fixed bodies, so the loop ends there.
    runs = record_impact_systems(monkeypatch)
    env, platform = jammed_platform()
    env.anomaly_limits.max_collisions_per_psi = 300
    core = platform.core
    parked = []
    manager = env.anomaly_manager
    exceeded = manager.max_collisions_exceeded

    def recording(c):
        before = (c.speed, c.speed_change)
        exceeded(c)
        parked.append((before, c.speed, c.rot_speed, c.speed_change, c.impacts_since_last_psi, env.psi_count))

    monkeypatch.setattr(manager, "max_collisions_exceeded", recording)
    env.simulate(env.delta_PSI_time)
    assert parked, "the jam reaches the limit"
    (speed, change), v, w, pending, count, _ = parked[0]
    assert count == 301
    assert v == (0.0, 0.0, 0.0) and w == (0.0, 0.0, 0.0)
    assert np.allclose(pending, np.add(speed, change), rtol=1e-6, atol=1e-6)
    assert temporarily_unmovable(core)
    assert impacts_this_psi(core) == 301                # pushed no more in this PSI: 4.2's fixed core
    assert core.speed == (0.0, 0.0, 0.0) and core.rot_speed == (0.0, 0.0, 0.0)
    assert runs[0][0] < MAXIMUM_SYSTEM_PUSH_NUMBER      # the first system ended at the limit
    for _ in range(3):
        env.simulate(env.delta_PSI_time)
    psis = [p[-1] for p in parked]
    assert len(psis) == len(set(psis))                  # once per PSI: the PSI start clears it


def test_impact_counts_of_an_earlier_psi_read_as_zero():
    # 4.7 / 1.2 step a: the per-PSI impact counter is cleared at the PSI start
    env, platform = jammed_platform()
    core = platform.core
    core.impact_count_psi = env.psi_count - 1
    core.impacts_since_last_psi = 12
    assert impacts_this_psi(core) == 0
    core.impact_count_psi = env.psi_count
    assert impacts_this_psi(core) == 12
