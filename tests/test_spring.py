"""Spec 12.1-12.3: anchors and the spring actuator.

Expected values come from the harmonic oscillator, from the per-PSI update of
12.3 written out by hand, or from the anchor definitions of 12.1 and 2.5.
Bodies have collision off, so no contacts interfere.
"""

import math
import warnings

import pytest

from ivp import (BallTemplate, Environment, ObjectTemplate, SpringTemplate, build_surface,
                 create_spring)
from ivp.fp import f32

DT = 1.0 / 66.0


def ball(env, name, pos, mass=1.0, fixed=False):
    return env.create_ball(BallTemplate(name=name, mass=mass, radius=0.5, physical_unmoveable=fixed,
                                        speed_damp_factor=0.0, rot_speed_damp_factor=(0.0,) * 3,
                                        collision_enabled=False), pos)


def track_x(env, obj):
    """Record (time, x of the core) at every PSI, before the controllers."""
    rec = []
    env.add_listener_psi(lambda e: rec.append((e.current_time, obj.core.pos_world_f_core_last_psi[0])))
    return rec


def crossings(rec, level):
    """Times where x crosses level, linearly interpolated."""
    out = []
    for (t0, a), (t1, b) in zip(rec, rec[1:]):
        a -= level
        b -= level
        if (a > 0.0 >= b) or (a < 0.0 <= b):
            out.append(t0 + (t1 - t0) * a / (a - b))
    return out


def period(rec, level):
    c = crossings(rec, level)
    return 2.0 * (c[-1] - c[0]) / (len(c) - 1)


def spring_to_wall(mass=2.0, k=8.0, damp_lin=0.0, damp_rel=0.0, start=3.0):
    """A ball on a spring of rest length 2 to a fixed ball at the origin, along x."""
    env = Environment(gravity=(0.0, 0.0, 0.0))
    wall = ball(env, "wall", (0.0, 0.0, 0.0), fixed=True)
    m = ball(env, "mass", (start, 0.0, 0.0), mass=mass)
    s = create_spring(env, SpringTemplate(wall, (0.0, 0.0, 0.0), m, (start, 0.0, 0.0), length=2.0,
                                          constant=k, damp_lin=damp_lin, damp_rel=damp_rel))
    m.wake()
    return env, wall, m, s


def test_undamped_spring_period_is_2pi_sqrt_m_over_k():
    env, _, m, _ = spring_to_wall(mass=2.0, k=8.0)
    rec = track_x(env, m)
    env.simulate(7.0)
    expected = 2.0 * math.pi * math.sqrt(2.0 / 8.0)
    assert abs(period(rec, 2.0) / expected - 1.0) < 0.01
    # no damping: the amplitude (1 m) is kept
    assert abs(max(x for _, x in rec) - 3.0) < 0.01
    assert abs(min(x for _, x in rec) - 1.0) < 0.01


def test_linear_dampening_decays_the_amplitude_like_exp_minus_c_t_over_2m():
    env, _, m, _ = spring_to_wall(mass=2.0, k=8.0, damp_lin=0.4)
    rec = []
    env.add_listener_psi(lambda e: rec.append(
        (e.current_time, m.core.pos_world_f_core_last_psi[0] - 2.0, m.core.movement_state)))
    env.simulate(3.25)                         # one damped period, before the sleep test
    assert {s for _, _, s in rec} == {1}       # ever finds the ball slow (+0.1 damping, 7.3)
    xs = [x for _, x, _ in rec]
    extremes = [(rec[i][0], abs(xs[i])) for i in range(1, len(xs) - 1)
                if (xs[i - 1] - xs[i]) * (xs[i + 1] - xs[i]) > 0.0]
    assert len(extremes) == 2
    # x'' = -(k/m) x - (c/m) x': the envelope is exp(-c t / 2m), starting at 1 m
    for t, amp in extremes:
        assert abs(amp / math.exp(-0.4 * t / 4.0) - 1.0) < 0.01
    assert extremes[1][1] < 0.75


@pytest.mark.parametrize("damp_lin,damp_rel,decays", [(0.0, 0.5, True), (0.5, 0.0, False)])
def test_global_dampening_damps_the_full_relative_velocity(damp_lin, damp_rel, decays):
    # A ball at rest length moving across the spring: only Global Dampening sees
    # that velocity. The 12.3 impulse is -c_rel dt u, so v_n = v_0 (1 - c dt / m)^n.
    env, _, m, _ = spring_to_wall(mass=1.0, k=0.01, damp_lin=damp_lin, damp_rel=damp_rel, start=2.0)
    m.async_add_speed_object_ws((0.0, 0.0, 0.5))
    env.simulate(30 * DT - 1e-6)               # 30 PSIs: the kick lands in the first
    vz = m.core.speed[2]
    expected = 0.5 * (1.0 - 0.5 * DT) ** 30 if decays else 0.5
    assert abs(vz - expected) < 1e-3


def test_spring_pushes_plus_on_object2_minus_on_target():
    # Spec 12.3 by hand for the first PSI: both bodies at rest, stretched by 1.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    a = ball(env, "target", (0.0, 0.0, 0.0), mass=1.0)
    b = ball(env, "object2", (0.0, 3.0, 0.0), mass=2.0)
    create_spring(env, SpringTemplate(a, (0.0, 0.0, 0.0), b, (0.0, 3.0, 0.0), length=2.0, constant=5.0))
    a.wake()
    env.simulate(1e-6)                          # one PSI
    # d = p0 - p1 = (0, -1, 0); I = d (len - L) k dt = (0, -5 dt, 0)
    imp = f32(-5.0 * DT)
    assert b.core.speed[1] == pytest.approx(f32(imp / 2.0), rel=1e-6)
    assert a.core.speed[1] == pytest.approx(-imp, rel=1e-6)
    assert a.core.sim_unit_of_core is b.core.sim_unit_of_core


def test_spring_no_slack_mode():
    # Spec 12.3 quirk: it pushes and pulls; a compressed spring pushes apart.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    wall = ball(env, "wall", (0.0, 0.0, 0.0), fixed=True)
    m = ball(env, "m", (1.0, 0.0, 0.0))
    create_spring(env, SpringTemplate(wall, (0.0, 0.0, 0.0), m, (1.0, 0.0, 0.0), length=2.0, constant=3.0))
    m.wake()
    env.simulate(1e-6)
    assert m.core.speed[0] == pytest.approx(3.0 * DT, rel=1e-6)     # pushed out by (L - len) k dt / m


def test_spring_with_coincident_anchors_applies_nothing():
    # Spec 12.3: len < 1e-10f returns before any push, even with a rest length.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    a = ball(env, "a", (0.0, 0.0, 0.0))
    b = ball(env, "b", (0.0, 0.0, 0.0))
    create_spring(env, SpringTemplate(a, (0.0, 0.0, 0.0), b, (0.0, 0.0, 0.0), length=1.0, constant=50.0))
    a.wake()
    env.simulate(0.1)
    assert a.core.speed == (0.0, 0.0, 0.0) and b.core.speed == (0.0, 0.0, 0.0)


def test_relative_values_scale_by_the_reduced_mass():
    # k, c scaled by mu = m0 m1 / (m0 + m1): the relative motion has omega^2 = k.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    a = ball(env, "a", (0.0, 0.0, 0.0), mass=1.0)
    b = ball(env, "b", (3.0, 0.0, 0.0), mass=3.0)
    s = create_spring(env, SpringTemplate(a, (0.0, 0.0, 0.0), b, (3.0, 0.0, 0.0), length=2.0, constant=4.0,
                                          damp_lin=0.0, damp_rel=0.0, relative=True))
    assert s.constant == f32(4.0 * 0.75)
    a.wake()
    rec = []
    env.add_listener_psi(lambda e: rec.append(
        (e.current_time, b.core.pos_world_f_core_last_psi[0] - a.core.pos_world_f_core_last_psi[0])))
    env.simulate(4.0)
    assert abs(period(rec, 2.0) / (2.0 * math.pi / 2.0) - 1.0) < 0.01


def test_break_length_fires_listeners_and_removes_the_spring():
    env, wall, m, s = spring_to_wall(mass=1.0, k=1.0, start=2.0)
    env.simulate(0.1)
    s2 = create_spring(env, SpringTemplate(wall, (0.0, 0.0, 0.0), m, m.core.pos_world_f_core_last_psi,
                                           length=2.0, constant=1.0, break_length=2.5))
    broken = []
    s2.add_break_listener(broken.append)
    m.async_add_speed_object_ws((5.0, 0.0, 0.0))
    env.simulate(0.2)
    assert broken == [s2] and s2.deleted
    assert s2 not in m.core.controllers_of_core and s in m.core.controllers_of_core
    assert all(a.owner is s for a in m.anchors)


def test_a_break_listener_that_raises_is_a_warning_and_the_psi_completes():
    env, wall, m, _ = spring_to_wall(mass=1.0, k=1.0, start=2.0)
    s2 = create_spring(env, SpringTemplate(wall, (0.0, 0.0, 0.0), m, (2.0, 0.0, 0.0), length=2.0,
                                           constant=1.0, break_length=2.1))

    def bad(_):
        raise RuntimeError("listener bug")

    s2.add_break_listener(bad)
    m.async_add_speed_object_ws((5.0, 0.0, 0.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.simulate(0.2)
    assert any("listener bug" in str(w.message) for w in caught)
    assert s2.deleted and env.psi_count == 14 and env.state == 5


def test_anchor_positions_in_object_and_core_space_follow_the_mass_centre():
    # Spec 12.1: p_object = M_world_f_object^-1 p_ws, p_core = m_core_f_object p_object;
    # spec 2.5 re-expresses p_core when the mass centre moves.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    cube = build_surface("cube", [[(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]])
    q = (0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5))              # 90 deg about z
    box = env.create_polygon(cube, ObjectTemplate(name="box", mass_center_override=(0.5, 0.0, 0.0),
                                                  collision_enabled=False),
                             (1.0, 2.0, 3.0), q)
    wall = ball(env, "wall", (0.0, 0.0, 0.0), fixed=True)
    s = create_spring(env, SpringTemplate(wall, (0.0, 0.0, 0.0), box, (1.0, 4.0, 3.0)))
    a = s.anchors[1]
    assert a in box.anchors and a.owner is s
    # world offset (0, 2, 0) is object +x after the 90 deg turn
    assert a.object_pos == pytest.approx((2.0, 0.0, 0.0), abs=1e-6)
    assert a.core_pos == pytest.approx((1.5, 0.0, 0.0), abs=1e-6)
    box.set_new_m_object_f_core(((1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (-0.25, 0.0, 0.0)))
    assert a.core_pos == pytest.approx((2.25, 0.0, 0.0), abs=1e-6)
    s.delete()
    assert box.anchors == [] and wall.anchors == []
