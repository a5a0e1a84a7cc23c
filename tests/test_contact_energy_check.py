"""The energy check of the multi-contact normal solve (ivp-contacts 5.5): the
impulses are pending pushes, committed only if the system's kinetic energy
(pending changes included) rises by no more than the sum over its movable
cores of m 9.81 0.1; otherwise every pending change of its cores is dropped."""

import pytest

from ivp import Environment
from ivp.collision import Material, friction_passes
from ivp.state.layout import GAP
from test_collision_scenes import box, floor, run


def resting_box():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, material=Material(0.7, 0.3))
    b = box(env, (3.0, 0.52, 3.0), material=Material(0.7, 0.3))
    b.wake()
    run(env, 0.3)
    assert len(list(env.collision.contacts())) >= 2
    return env, b


def after_the_normal_solve(env, b, monkeypatch):
    """One PSI: the box's vertical speed at its start, and (vertical speed,
    pending change) right after the static controller (before integration
    and any impact of the PSI's interval)."""
    v0 = []
    v1 = []
    env.add_listener_psi(lambda e: v0.append(b.core.speed[1]))
    col = env.collision
    real = col.after_static

    def note(fs):
        v1.append((b.core.speed[1], b.core.speed_change))
        real(fs)

    monkeypatch.setattr(col, "after_static", note)
    run(env, env.delta_PSI_time)
    return v0, v1[0]


def test_impulses_that_would_add_more_than_the_allowance_are_dropped(monkeypatch):
    env, b = resting_box()
    # every contact 1000 m deep, so the solve asks for 1000 m/s apart (the
    # push-out rate 1/s times 1000 m): kinetic energy far above 1 kg 9.81 0.1 = 0.981 J
    real = friction_passes.normal_pass_k

    def deep(S, P, K, order, slots, *rest):
        P[slots, GAP] = -1000.0
        return real(S, P, K, order, slots, *rest)

    monkeypatch.setattr(friction_passes, "normal_pass_k", deep)
    v0, v1 = after_the_normal_solve(env, b, monkeypatch)
    # the PSI's gravity (committed at 1000) stays, the normal impulses went
    assert v1[0] == pytest.approx(v0[0] - 20.0 / 66.0, abs=1e-3)
    assert v1[1] == (0.0, 0.0, 0.0)
    assert all(c.normal_force > 0.0 for c in env.collision.contacts())      # N values stay as set


def test_the_solved_impulses_are_committed_and_hold_the_box(monkeypatch):
    env, b = resting_box()
    v0, v1 = after_the_normal_solve(env, b, monkeypatch)
    assert v1[1] == (0.0, 0.0, 0.0)
    # gravity's -0.30 m/s cancelled, the gaps lifted towards 0.02 at 1/s (5.5)
    assert abs(v1[0] - v0[0]) < 0.02
    assert sum(c.normal_force for c in env.collision.contacts()) == pytest.approx(20.0, rel=0.1)


def test_a_stack_that_loses_its_support_falls_together():
    # Ten boxes resting 2 cm apart, each contact still holding last PSI's share
    # of the weight above it, start to fall freely (the floor is gone): no
    # contact may then separate faster than its rest-gap target (0.02 - gap) / s.
    n = 10
    env = Environment(gravity=(0.0, -20.0, 0.0))
    boxes = [box(env, (0.0, 0.52 + 1.02 * i, 0.0), name=f"box{i}", material=Material(0.7, 0.3))
             for i in range(n)]
    boxes[0].wake()                              # pulls the resting partners in (5.2)
    run(env, env.delta_PSI_time)
    interfaces = {}
    for c in env.collision.contacts():
        interfaces.setdefault(min(boxes.index(c.obj0), boxes.index(c.obj1)), []).append(c)
    assert sorted(interfaces) == list(range(n - 1))
    for k, contacts in interfaces.items():
        for c in contacts:
            c.now_friction_pressure = (n - 1 - k) * 1.0 * 20.0 / len(contacts)
    run(env, env.delta_PSI_time)
    target = max(0.02 - c.gap for c in env.collision.contacts())
    v = [b.core.speed[1] for b in boxes]
    assert max(v[k + 1] - v[k] for k in range(n - 1)) <= max(target, 0.0) + 1e-3
