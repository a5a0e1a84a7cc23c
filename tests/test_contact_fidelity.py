"""The contact half against the engine's own traces (issue 17, ivp-contacts 9).

Each scenario is built from its setup data alone and run frame by frame
(reference_traces.py); tolerances come from the noise floor between the two
builds of the engine: max(3 x floor, 1e-4 m) for positions at PSI starts.
The runs use the traces' sleep countdown (the Valve build counts it down for
fast units too, ivp-contacts 8.1), so freeze times are comparable; Ballance's
rule is the environment's default and is checked separately below.
"""

import functools
import gzip
import json
import math

import pytest

import reference_traces as rt

BUILDS = ("sse", "x87")


@functools.lru_cache(maxsize=None)
def comparison(name):
    t = rt.load_scenario(rt.DEFAULT_TRACES, name)
    return rt.compare_scenario(t, rt.run_port(t["sse"]))


@pytest.mark.parametrize("name", ["drop_on_floor", "drop_on_grid_floor", "roll_push_flat"])
def test_positions_at_psi_starts_follow_both_builds_within_the_noise_floor(name):
    c = comparison(name)
    for build in BUILDS:
        assert c.errors[build]["psis"]["pos"] <= c.tolerance()


@pytest.mark.parametrize("name", ["drop_on_floor", "drop_on_grid_floor", "roll_push_flat"])
def test_impacts_and_contact_points_come_and_go_as_in_the_engine(name):
    c = comparison(name)
    port = c.events["port"]
    for build in BUILDS:
        ref = c.events[build]
        for kind in ("impact_post", "friction_created", "friction_deleted"):
            assert port.get(kind, {}).get("count", 0) == ref.get(kind, {}).get("count", 0), kind
        # at their own times inside the PSI (3.5: f32 offsets, 1e-8 roots)
        assert c.event_dt[build]["impact_post"] <= 1e-6


def test_frames_between_a_psi_and_the_impact_show_the_fall_not_the_bounce():
    # drop_on_floor at 1.01667 s: the impact comes at 1.021 s, so the frame
    # (an interpolated pose) still falls: y 2.0688, vy -13.49 in the engine
    c = comparison("drop_on_floor")
    for build in BUILDS:
        assert c.errors[build]["frames"]["pos"] <= c.tolerance()
        assert c.errors[build]["frames"]["speed"] <= 1e-4


def test_a_rolling_ball_rolls_at_v_over_w_equal_to_its_radius():
    # 5.3: the contact point is on the ball's surface, the friction lever is r = 2
    r = comparison("roll_push_flat").derived["port"]["rolling"]["ball"]
    assert r["n"] > 100
    assert r["median"] == pytest.approx(2.0, abs=1e-4)
    assert r["min"] >= 2.0 - 1e-4 and r["max"] <= 2.0 + 1e-4


def test_the_ball_rests_at_the_friction_distance():
    gap = comparison("drop_on_floor").derived["port"]["rest_gap"]["ball"]
    assert gap == pytest.approx(0.0200, abs=1e-4)


def test_the_first_bounce_is_the_engines():
    d = comparison("drop_on_floor").derived
    for build in BUILDS:
        assert d["port"]["first_apex"]["ball"] == pytest.approx(d[build]["first_apex"]["ball"], abs=1e-5)


def test_a_sliding_box_travels_as_far_and_stops_and_freezes_when_the_engines_does():
    c = comparison("box_slide")
    slide = c.derived["port"]["slide"]
    assert slide["distance"] == pytest.approx(5.0235, rel=0.005)
    for build in BUILDS:
        ref = c.derived[build]
        assert slide["stop_t"] == pytest.approx(ref["slide"]["stop_t"], abs=0.05)
        assert c.derived["port"]["frozen_at"] == pytest.approx(ref["frozen_at"], abs=1e-6)


def test_a_stack_of_three_settles_gains_no_energy_and_freezes_as_one():
    c = comparison("stack3")
    port = c.derived["port"]
    # the boxes start in free fall, so kinetic energy rises at first; the
    # mechanical energy (kinetic + potential) may rise only as much as the
    # engine's own (0.0127 / 0.0165 J: impacts' rescue pushes) plus 3 x the
    # difference of the two builds
    refs = [c.derived[b]["energy_gain"]["mechanical"] for b in BUILDS]
    assert port["energy_gain"]["mechanical"] <= max(refs) + 3 * abs(refs[0] - refs[1])
    assert port["settle_t"] is not None and port["settle_t"] <= 1.1     # the builds: 0.55, 1.03 s
    assert 0.5 <= port["frozen_at"] <= 1.4
    frozen = c.events["port"]["object_frozen"]
    assert frozen["count"] == 3 and len(set(frozen["times"])) == 1      # one unit (5.2)
    # no contact point churn: the engine creates 8 and deletes 1
    assert c.events["port"]["friction_created"]["count"] <= 2 * 8
    assert c.errors["sse"]["psis"]["pos"] <= c.tolerance()


def test_a_box_landing_flat_lands_on_one_corner_and_ends_off_centre_as_in_the_engine():
    """docs/ivp.md "A box landing flat" (issue 43, 18): stack3's lowest box, 5 m,
    released flat 0.05 m above the floor. IVP impacts at one point at a time: its
    first impact is at a corner of the face, and the box ends a few millimetres
    off centre, in both builds of the engine and in the port."""
    c = comparison("stack3")
    for build in BUILDS:
        path = rt.trace_path(rt.DEFAULT_TRACES, build, "stack3")
        with gzip.open(path, "rt") as fh:
            events = json.load(fh)["events"]
        first = next(e for e in events if e["type"] == "impact_post" and {e["a"], e["b"]} == {"box1", "floor"})
        x, _, z = first["contact_point_ws"]
        assert abs(x) == pytest.approx(2.5, abs=1e-3) and abs(z) == pytest.approx(2.5, abs=1e-3)
        # the port's first impact is the engine's: same time, same closing speed
        assert c.events["port"]["impact_post"]["times"][0] == pytest.approx(first["t"], abs=1e-9)
        assert c.events["port"]["impact_post"]["speeds"][0] == pytest.approx(
            math.hypot(*first["rel_speed"]), rel=1e-6)
    for run in [c.port] + [c.traces[b].run for b in BUILDS]:
        x, _, z = run.frames[-1].bodies["box1"].pos
        assert 0.001 < math.hypot(x, z) < 0.01


def test_ballances_countdown_freezes_a_resting_ball_later_by_whole_sleep_tests():
    # dynamics 6.3: the DLL skips the countdown while a unit is fast, so the
    # RNG draws shift and the freeze comes at another countdown tick
    t = rt.load_scenario(rt.DEFAULT_TRACES, "drop_on_floor")
    port = rt.derived_quantities(rt.run_port(t["sse"], valve_countdown=False), t["sse"].setup)
    assert port["frozen_at"] is not None
    assert port["frozen_at"] != pytest.approx(1.909, abs=1e-3)
    assert port["rest_gap"]["ball"] == pytest.approx(0.0200, abs=1e-4)
