"""Long engine runs (issue 15, "Building blocks and the engine"): an absurd
simulate is refused naming the limit; a long one runs in slices (the same
PSIs as in one go), tells its progress, and stops at a slice's end on Ctrl-C
with the world consistent."""

import logging
import os
import signal

import pytest

from ivp import BallTemplate, Environment, ObjectTemplate, build_surface, limits, rng

FLOOR = [(x, y, z) for x in (-20, 20) for y in (-1, 0) for z in (-20, 20)]


def world():
    """Three balls dropped on a floor, from a fresh RNG seed (the sleep
    countdown draws from the process's one generator)."""
    rng.reset()
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor = ObjectTemplate(name="floor", physical_unmoveable=True)
    env.create_polygon(build_surface("floor", [FLOOR]), floor, (0.0, 0.0, 0.0))
    for i in range(3):
        b = env.create_ball(BallTemplate(name=f"ball{i}", radius=0.5), (2.0 * i, 1.0 + i, 0.0))
        b.wake()
    return env


def state(env):
    return env.psi_count, rng.get_seed(), [(o.core.pos_world_f_core_last_psi, o.core.speed, o.core.rot_speed) for o in env.objects]


def test_an_absurd_simulate_is_refused_naming_the_limit():
    env = world()
    before = state(env)
    with pytest.raises(ValueError, match=r"1e\+06 s ahead, above 3600 \(limit MAX_SIMULATE_TIME"):
        env.simulate(1e6)
    assert state(env) == before and env.current_time == 0.0


def test_a_long_simulate_runs_the_same_psis_as_one_go():
    sliced = world()
    sliced.simulate(5.0)                                  # five slices of SIMULATE_SLICE = 1 s
    after_slices = state(sliced)
    whole = world()
    whole.time_manager.simulate_until(whole, 5.0)         # the time manager in one go
    assert after_slices == state(whole)
    assert sliced.current_time == whole.current_time == 5.0


def test_ctrl_c_stops_at_the_end_of_its_slice_with_the_world_consistent():
    env = world()
    sent = []

    def interrupt_at_psi_100(e):
        if e.psi_count == 100 and not sent:               # inside PSI 101, at t = 100 / 66 = 1.52 s
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)

    env.add_listener_psi(interrupt_at_psi_100)
    before = signal.getsignal(signal.SIGINT)    # default_int_handler, or SIG_IGN in a job started in the background
    with pytest.raises(KeyboardInterrupt, match="stopped at t = 2 s"):
        env.simulate(10.0)
    assert signal.getsignal(signal.SIGINT) is before
    assert env.current_time == 2.0
    interrupted = state(env)
    reference = world()
    reference.time_manager.simulate_until(reference, 2.0)
    assert interrupted == state(reference)                # every PSI before t = 2, none after
    seed = rng.get_seed()
    reference.simulate(1.0)
    continued = state(reference)
    rng.set_seed(seed)
    env.simulate(1.0)                                     # the next PSI was still queued
    assert state(env) == continued and env.psi_count > interrupted[0] + 60


def test_a_long_simulate_logs_its_progress(caplog, monkeypatch):
    monkeypatch.setattr(limits, "PROGRESS_EVERY", 0.0)    # a line after every slice
    env = world()
    with caplog.at_level(logging.INFO, logger="ivp"):
        env.simulate(3.0)
    lines = [r.getMessage() for r in caplog.records if r.name == "ivp"]
    assert len(lines) == 3
    assert lines[0].startswith("environment: simulate 3 s: 1 s done (33 %)")
    assert lines[-1].startswith(f"environment: simulate 3 s: 3 s done (100 %), {env.psi_count} PSIs")
    assert env.psi_count in (198, 199)                    # T_k = k / 66 < 3 (k <= 197), give or take f32 rounding


def test_the_cycle_collector_is_paused_during_psis_and_back_on_after():
    import gc
    env = world()
    seen = []
    env.add_listener_psi(lambda e: seen.append(gc.isenabled()))
    assert gc.isenabled()
    env.simulate(0.1)
    assert seen and not any(seen)
    assert gc.isenabled()
    env.simulate(2.5)                                     # in slices
    assert not any(seen) and gc.isenabled()


def test_a_caller_who_turned_the_cycle_collector_off_keeps_it_off():
    import gc
    env = world()
    gc.disable()
    try:
        env.simulate(0.1)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_cycle_collector_is_back_on_after_a_psi_raises():
    import gc
    env = world()

    def boom(e):
        raise RuntimeError("listener")

    env.add_listener_psi(boom)
    with pytest.raises(RuntimeError):
        env.simulate(0.1)
    assert gc.isenabled()
