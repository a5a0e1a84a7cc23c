"""A several-contact friction system's points updated (ivp-contacts 5.3, the
energy handle) and their tangential friction (5.6, the dynamic handle) in one
pass over the system each (friction.update_system, tangential_system, issue
11) give the bits of the handles' loops point by point."""

import math

from ivp import Environment, rng
from ivp.collision import friction
from test_collision_scenes import ball, box, floor
from test_lane import state


def _update_point_by_point(fs, now):
    """The energy handle's loop as ivp-contacts 5.3 and 5.8 state it."""
    for pair in fs.pairs.values():
        anti = 0.0
        for cp in pair.contacts:
            old = cp.last_gap_len
            cp.update(now)
            cp.last_gap_len = cp.gap
            anti += cp.now_friction_pressure * (old - cp.gap)
        if anti > 0.0:
            pair.integrated_anti_energy += anti


def _point_by_point(fs, dt):
    """The dynamic handle's loop as ivp-contacts 5.6 states it: the core pairs
    last to first (returned, for the easing that follows)."""
    pairs = list(reversed(list(fs.pairs.values())))
    for pair in pairs:
        L = sum(cp.now_friction_pressure * cp.real_friction_factor * cp.inv_virt_mass_no_dir
                for cp in pair.contacts) * dt * dt
        for cp in reversed(pair.contacts):
            gain = friction.tangential_friction(cp, L, dt)
            if gain > 0.0:
                pair.integrated_anti_energy += gain
    return pairs


def _heap():
    """Balls dropped in a pile on a tilted floor and boxes stacked and pushed
    sideways: several-contact systems of ball-ball, ball-floor, box-box and
    box-floor points, sliding (their springs clipped) and sticking."""
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, tilt=math.radians(8.0))
    for i in range(12):
        ball(env, (0.9 * (i % 4) - 1.4, 1.0 + 1.1 * (i // 4), 0.3 * (i % 3)), radius=0.5, name=f"b{i}")
    boxes = [box(env, (8.0, 0.6 + 1.02 * k, 0.0), name=f"x{k}") for k in range(4)]
    for o in env.objects:
        o.wake()
    return env, boxes


def _run(monkeypatch, one_pass: bool):
    if not one_pass:
        monkeypatch.setattr(friction, "update_system", _update_point_by_point)
        monkeypatch.setattr(friction, "tangential_system", _point_by_point)
    env, boxes = _heap()
    seen = []
    for k in range(260):
        if k == 120:
            boxes[1].core.speed = (3.0, 0.0, 1.0)
        env.simulate(env.delta_PSI_time)
        seen.append((state(env), [(p.integrated_anti_energy, p.next_ease_nr_psi) for fs in env.collision.systems
                                  for p in fs.pairs.values()],
                     [(cp.span_s, cp.needs_recheck, cp.gap, cp.n, cp.p, cp.t0, cp.t1, cp.r_cs, cp.rxn, cp.inv_vm,
                       cp.broken, cp.last_gap_len, cp.last_time) for cp in env.collision.contacts()]))
    monkeypatch.undo()
    return seen


def test_the_systems_pass_gives_the_point_by_point_bits(monkeypatch):
    one = _run(monkeypatch, True)
    each = _run(monkeypatch, False)
    assert max(len(s[1]) for s in one) >= 6            # several core pairs in one system
    assert any(s[2] != t[2] for s, t in zip(one, one[1:]))
    for k, (a, b) in enumerate(zip(one, each)):
        assert a == b, f"PSI {k}"
