"""Spec 10: the RNG, the sleep countdown, freeze, wake and revive."""

import struct

import pytest

from ivp import MT_MOVING, MT_NOT_SIM, BallTemplate, Environment, ObjectListener, rng

F32_PSI = struct.unpack("<f", struct.pack("<f", 1.0 / 66.0))[0]
FREEZE_CHECK_TIME = struct.unpack("<f", struct.pack("<f", 0.3))[0]   # (f32)0.3, 0x3e99999a (spec 1.6)


def lcg_values(n):
    """The LCG by hand: seed *= 75 (mod 2^32), value = (seed & 0xffff) / 65536."""
    seed, out = 1, []
    for _ in range(n):
        seed = (seed * 75) % 2 ** 32
        out.append((seed & 0xFFFF) / 65536.0)
    return out


def reloads(n):
    """Countdown reloads 15 - trunc(r * -5): 15..19."""
    return [15 + int(r * 5.0) for r in lcg_values(n)]


def test_rng_sequence_from_seed_one():
    assert [rng.rng() for _ in range(6)] == lcg_values(6)
    assert lcg_values(3) == [75 / 65536, 5625 / 65536, 28659 / 65536]


def test_rng_is_shared_by_all_environments():
    # Spec 10.1: one process-global seed; a second world advances it too.
    a = Environment()
    b = Environment()
    for _ in range(10):
        a.sleep_countdown()
    seed_after_a = rng.get_seed()
    assert seed_after_a == 75
    for _ in range(10):
        b.sleep_countdown()
    assert rng.get_seed() == 75 * 75


def test_sleep_countdown_first_after_10_then_15_to_19():
    env = Environment()
    fired = [i for i in range(400) if env.sleep_countdown()]
    r = reloads(40)
    expected = [9]                                   # the 10th decrement
    for j in range(39):
        expected.append(expected[-1] + r[j])
    assert fired == [e for e in expected if e < 400]
    assert all(15 <= x <= 19 for x in r) and len(set(r)) > 1


def resting_ball(env, name="ball", pos=(0.0, 0.0, 0.0)):
    return env.create_ball(BallTemplate(name=name, mass=1.0, radius=2.0, speed_damp_factor=0.0,
                                        rot_speed_damp_factor=(0.0,) * 3), pos)


class Events(ObjectListener):
    def __init__(self):
        self.log = []

    def event_object_revived(self, obj):
        self.log.append(("revived", obj.name, obj.environment.psi_count))

    def event_object_frozen(self, obj):
        self.log.append(("frozen", obj.name, obj.environment.psi_count))


def freeze_psi_index():
    """Tests run at PSI 9, then every reload; the first restarts the windows
    (zero-filled references), later ones see calm; freeze when t - t_ref > 0.3."""
    tests = [9]
    for r in reloads(10):
        tests.append(tests[-1] + r)
    first = tests[0]
    for k in tests[1:]:
        if (k - first) * F32_PSI > FREEZE_CHECK_TIME:
            return k
    raise AssertionError


def test_resting_body_freezes_at_first_sleep_test_after_0_3_s_calm():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    ev = Events()
    env.add_listener_object(ev)
    ball = resting_ball(env, pos=(3.0, 1.0, -2.0))
    ball.wake()
    env.simulate(2.0)
    k = freeze_psi_index()
    assert k == 9 + 15 + 15                       # PSI 39 with the seed-1 sequence
    assert ev.log == [("revived", "ball", 0), ("frozen", "ball", k)]
    assert ball.object_state == MT_NOT_SIM
    assert ball.core.movement_state == MT_NOT_SIM
    assert ball.core.sim_unit_of_core in env.sim_unit_manager.frozen


def test_freeze_keeps_pose_of_previous_psi_quirk():
    # Spec 6.3 note: a unit frozen in PSI k is integrated with zeroed
    # velocities, so its position stays at the one of PSI k-1 instead of the
    # extrapolated pose of PSI k (a sub-millimetre jump the original keeps).
    env = Environment(gravity=(0.0, 0.0, 0.0))
    ball = resting_ball(env)
    seen = {}

    def at_psi_start(e):
        c = ball.core
        seen[e.psi_count] = (c.pos_world_f_core_last_psi[0], c.delta_world_f_core_psis[0])

    env.add_listener_psi(at_psi_start)
    ball.wake()
    ball.async_add_speed_object_ws((2e-5, 0.0, 0.0))
    env.simulate(2.0)
    k = freeze_psi_index()
    assert ball.object_state == MT_NOT_SIM
    x_prev, v_prev = seen[k]                     # pose of PSI k-1, velocity to PSI k
    assert v_prev > 0.0
    x = ball.core.pos_world_f_core_last_psi[0]
    assert x == x_prev
    assert x != x_prev + v_prev * F32_PSI


def test_wake_of_frozen_body_takes_effect_at_next_psi_and_keeps_pushes():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    ball = env.create_ball(BallTemplate(name="b", mass=2.0, radius=2.0, speed_damp_factor=0.5,
                                        rot_speed_damp_factor=(0.0,) * 3), (0.0, 0.0, 0.0))
    ball.wake()
    env.simulate(2.0)
    assert ball.object_state == MT_NOT_SIM
    psis = env.psi_count
    ball.async_push_object_ws((0.0, 0.0, 0.0), (4.0, 0.0, 0.0))     # wakes (queued) + 2 m/s pending
    assert ball.object_state == MT_NOT_SIM                          # not before the next PSI
    assert ball.core.speed_change == (2.0, 0.0, 0.0)
    env.simulate(0.001)
    assert env.psi_count == psis + 1
    assert ball.object_state == MT_MOVING
    # revive zeroes speed, the commit lands the push, gravity's damping follows
    assert ball.core.speed[0] == pytest.approx(2.0 * (1.0 - 0.5 / 66.0), rel=1e-6)


def test_wake_of_awake_body_only_restarts_the_timers():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    ball = resting_ball(env)
    ball.wake()
    env.simulate(0.3)
    refs = (list(ball.core.pos_calm_ref), list(ball.core.q_calm_ref))
    ball.wake()
    assert ball.core.time_calm_ref == [env.current_time, env.current_time]
    assert (list(ball.core.pos_calm_ref), list(ball.core.q_calm_ref)) == refs
    assert env.core_revive_list == []
