"""Spec 11: PSI times and which PSIs a frame target runs."""

import struct

from ivp import Environment

F32_PSI = struct.unpack("<f", struct.pack("<f", 1.0 / 66.0))[0]   # (f64)(f32)(1/66)


def psi_times(n):
    """T_0 = 0, T_{k+1} = T_k + (f64)(f32)(1/66), accumulated (spec 11.3)."""
    t = [0.0]
    for _ in range(n - 1):
        t.append(t[-1] + F32_PSI)
    return t


class Recorder:
    def __init__(self):
        self.times = []

    def __call__(self, env):
        self.times.append(env.current_time)


def test_psi_times_accumulate_the_f32_period():
    assert F32_PSI == 0.015151515603065491           # the effective period spec 11.3 states
    env = Environment()
    rec = Recorder()
    env.add_listener_psi(rec)
    env.simulate_until(2.0)
    expected = [t for t in psi_times(200) if t < 2.0]
    assert rec.times == expected                  # bit-exact accumulation
    assert env.current_time == 2.0
    assert env.time_of_last_psi == expected[-1]


def test_frame_targets_run_every_psi_strictly_before_them():
    env = Environment()
    rec = Recorder()
    env.add_listener_psi(rec)
    T = psi_times(400)
    target = 0.0
    for frame in range(120):
        before = len(rec.times)
        target = target + 1.0 / 60.0
        env.simulate(1.0 / 60.0)
        ran = rec.times[before:]
        assert ran == [t for t in T if (rec.times[before - 1] if before else -1.0) < t < target]
    # 2 s of 60 Hz frames: T_0 .. T_131 (T_132 = 2.00000006 > 2)
    assert len(rec.times) == 132


def test_first_psi_runs_at_time_zero_on_the_first_positive_step():
    env = Environment()
    rec = Recorder()
    env.add_listener_psi(rec)
    env.simulate(0.0)
    assert rec.times == []
    env.simulate(1e-9)
    assert rec.times == [0.0]


def test_psi_exactly_at_target_waits():
    # Spec 11.2: the loop runs only while (target - base) > next, strictly.
    env = Environment()
    rec = Recorder()
    env.add_listener_psi(rec)
    env.simulate_until(F32_PSI)           # T_1 == target: it waits
    assert rec.times == [0.0]
    env.simulate_until(F32_PSI + 1e-12)
    assert rec.times == [0.0, F32_PSI]


def test_current_time_is_the_frame_target_after_simulate():
    env = Environment()
    env.simulate(0.1)
    assert env.current_time == 0.1
    # 0.1 / (1/66) = 6.6: PSIs T_0 .. T_6
    assert env.psi_count == 7
