"""The fidelity harness (issue 17): loading reference traces, building their
scenarios, the comparison arithmetic, and the dynamics-only scenarios, which
already agree with the engine.

The traces are tests/data/reference_traces (trimmed copies, see its README).
Each scenario is run by the port once per session (``comparison``).
"""

import functools
import gzip
import json
import math
import sys
from pathlib import Path

import pytest

import reference_traces as rt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import fidelity  # noqa: E402

SCENARIOS = ["box_slide", "drop_on_floor", "drop_on_grid_floor", "free_fall_wood", "push_ball",
             "roll_push_flat", "spin_box", "spring_pair_nocoll", "stack3"]
DYNAMICS_ONLY = ["free_fall_wood", "spin_box", "push_ball", "spring_pair_nocoll"]
# The values of derived_after_creation the port must reproduce (mass, inertia,
# radius, damping, frames, state). max_surface_deviation is left out here: the
# fidelity report lists where it differs (flat floors, see creation_differences).
CREATION_FIELDS = ["core_mass", "core_inv_mass", "core_rot_inertia", "core_inv_rot_inertia",
                   "rot_inertias_are_equal", "upper_limit_radius", "core_speed_damp_factor",
                   "core_rot_speed_damp_factor", "extra_radius", "m_core_f_object_rot_rows",
                   "m_core_f_object_shift", "movement_state_at_creation_end"]


@functools.lru_cache(maxsize=None)
def traces(name):
    return rt.load_scenario(rt.DEFAULT_TRACES, name)


@functools.lru_cache(maxsize=None)
def comparison(name):
    t = traces(name)
    return rt.compare_scenario(t, rt.run_port(t["sse"]))


# --- the stored traces -----------------------------------------------------------------------

def test_the_test_data_holds_every_scenario_of_both_builds():
    assert rt.scenarios_in(rt.DEFAULT_TRACES) == SCENARIOS


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_loaded_trace_has_every_frame_and_psi_of_its_run(name):
    for build, t in traces(name).items():
        env = t.setup["environment"]
        run = t.run
        assert t.scenario == name and run.source == rt.BUILDS[build]
        assert [f.index for f in run.frames] == list(range(env["n_frames"] + 1))
        assert [p.index for p in run.psis] == list(range(len(run.psis)))
        # PSIs at k/66 (f32 offsets) up to the last frame's time: 1 + floor(duration * 66)
        assert len(run.psis) == 1 + math.floor(env["duration"] * 66 - 1e-9)
        assert run.frames[-1].t == pytest.approx(env["duration"], abs=1e-9)
        assert {e.type for e in run.events} <= set(rt.EVENT_TYPES)


def test_the_loader_reads_the_readme_headline_values():
    # ../shared/reference-traces/README.md: free_fall_wood vy(1 s) = -13.243111610412598;
    # push_ball x 17.97, v 13.89 at 2 s; spin_box rot speed at 3 s (0.819, -6.833, -0.196).
    ball = traces("free_fall_wood")["sse"].run.frames[60].bodies["ball"]
    assert ball.speed[1] == -13.243111610412598
    push = traces("push_ball")["sse"].run.frames[120].bodies["ball"]
    assert push.pos[0] == pytest.approx(17.97, abs=0.005) and push.speed[0] == pytest.approx(13.89, abs=0.005)
    spin = traces("spin_box")["sse"].run.frames[180].bodies["box"]
    assert spin.rot_speed == pytest.approx((0.819, -6.833, -0.196), abs=5e-4)


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_built_scenario_has_the_engines_creation_values(name):
    t = traces(name)["sse"]
    sc = rt.build_scenario(t)
    assert set(sc.bodies) == {b["name"] for b in t.setup["bodies"]}
    assert {o.name for o in sc.movable} == set(t.run.frames[0].bodies)
    diffs = [d for d in rt.creation_differences(t, sc) if d[1] in CREATION_FIELDS]
    assert diffs == []
    checked = {k for b in t.setup["bodies"] for k in b["derived_after_creation"]}
    assert set(CREATION_FIELDS) <= checked


# --- the port where it already agrees -------------------------------------------------------------

@pytest.mark.parametrize("build", sorted(rt.BUILDS))
@pytest.mark.parametrize("name", DYNAMICS_ONLY)
def test_dynamics_only_scenarios_agree_at_psi_starts_within_the_noise_floor(name, build):
    c = comparison(name)
    err = c.errors[build]["psis"]
    assert err["compared"] == len(c.traces[build].run.psis)
    assert err["pos"] <= max(3.0 * c.floor["psis"]["pos"], 1e-4)


# --- a hand-made trace -------------------------------------------------------------------------------

def _params(fixed=False):
    return {"mass_passed": 2.0, "friction_passed": 0.5, "elasticity_passed": 0.5, "linear_damping_passed": 0.0,
            "rot_damping_passed_xyz": 0.0, "fixed": fixed, "start_frozen": False, "collision_enabled": True,
            "rot_inertia_is_factor": True, "rot_inertia_factor": [1, 1, 1], "nocoll_group": ""}


def _body(name, t, pos, speed=(0, 0, 0), w=(0, 0, 0), state=1):
    return {"body": name, "pos": list(pos), "speed": list(speed), "rot_speed_cs": list(w), "movement_state": state,
            "quat_xyzw": [0, 0, 0, 1], "rot_rows": [1, 0, 0, 0, 1, 0, 0, 0, 1], "simulated": True}


def tiny_trace(ys=(10.0, 9.0, 8.5), speeds=(0.0, -1.0, -2.0), events=()):
    """A ball of mass 2, radius 1 above a fixed triangle at y = 0, no gravity,
    two frames and three PSI starts 1/66 apart."""
    ball = {"name": "ball", "shape": "ball", "radius_passed": 1.0, "position_passed": [0, 10, 0],
            "quat_xyzw_passed": [0, 0, 0, 1], "params": _params(),
            "derived_after_creation": {"core_mass": 2.0, "core_rot_inertia": [0.8, 0.8, 0.8]}}
    tri = {"name": "floor", "shape": {"type": "concave_triangle_soup_one_ledge_per_face",
                                      "triangles_object_space": [[[-5, 0, -5], [5, 0, -5], [0, 0, 5]]]},
           "position_passed": [0, 0, 0], "quat_xyzw_passed": [0, 0, 0, 1], "params": _params(fixed=True),
           "derived_after_creation": {"core_mass": 2.0, "core_rot_inertia": [1, 1, 1]}}
    setup = {"scenario": "tiny", "bodies": [tri, ball],
             "environment": {"gravity": [0, 0, 0], "delta_PSI_time_set": 1 / 66, "frame_dt": 1 / 60,
                             "n_frames": 1, "duration": 1 / 60}}
    psis = [{"psi": i, "t": i / 66, "next_movement_check_before": 9,
             "bodies": [_body("ball", i / 66, (0, y, 0), (0, v, 0))]} for i, (y, v) in enumerate(zip(ys, speeds))]
    frames = [{"frame": i, "t": i / 60, "rand_seed": 1, "bodies": [_body("ball", i / 60, (0, ys[i], 0))]}
              for i in range(2)]
    return {"meta": {}, "setup": setup, "frames": frames, "psis": psis, "events": list(events)}


def write(tmp_path, data, name="tiny.json.gz") -> Path:
    p = tmp_path / name
    with gzip.open(p, "wt") as f:
        json.dump(data, f)
    return p


def test_an_impact_speed_is_the_relative_speed_along_the_normal(tmp_path):
    ev = {"type": "impact_post", "t": 0.02, "psi_count": 2, "a": "ball", "b": "floor",
          "surf_normal": [0.0, -0.6, 0.8], "contact_point_ws": [0, 0, 0], "rel_speed": [5.0, 1.0, 2.0]}
    t = rt.load_trace(write(tmp_path, tiny_trace(events=[ev])))
    (e,) = t.run.events
    assert (e.type, e.t, e.psi, e.bodies) == ("impact_post", 0.02, 2, ("ball", "floor"))
    assert e.speed == pytest.approx(abs(-0.6 + 1.6))


def test_sample_errors_are_the_largest_distances_per_quantity():
    def s(i, pos, v, w, state=1):
        return rt.Sample(i, i * 0.5, {"b": rt.BodyState(pos, v, w, state)})
    o = (0, 0, 0)
    a = [s(0, o, o, o), s(1, (3, 4, 0), (1, 0, 0), (0, 0, 2)), s(2, o, o, o)]
    b = [s(0, o, o, o), s(1, o, (0, 2, 0), o, state=8)]
    e = rt.sample_errors(a, b, pos_limit=1.0)
    assert e["pos"] == 5.0 and e["worst_t"] == 0.5 and e["first_over_t"] == 0.5
    assert e["speed"] == pytest.approx(math.sqrt(5.0)) and e["rot_speed"] == 2.0
    assert e["state_mismatches"] == 1 and e["compared"] == 2          # PSI 2 only in a


def test_events_summarise_counts_times_and_the_final_freeze():
    def ev(kind, t, body):
        return rt.Event(kind, t, 0, (body,))
    run = rt.Run("x", "hand", [], [], [ev("object_revived", 0.0, "a"), ev("object_revived", 0.0, "b"),
                                       ev("object_frozen", 1.0, "a"), ev("object_frozen", 1.5, "b"),
                                       ev("object_revived", 2.0, "b"), ev("object_frozen", 2.5, "b")])
    s = rt.event_summary(run)
    assert s["object_frozen"] == {"count": 3, "times": [1.0, 1.5, 2.5]}
    assert s["frozen_at"] == 2.5
    run.events.append(ev("object_revived", 3.0, "a"))
    assert rt.event_summary(run)["frozen_at"] is None               # a is awake at the end
    other = rt.event_summary(rt.Run("y", "hand", [], [], [ev("object_frozen", 1.25, "a")]))
    assert rt.event_time_errors(s, other)["object_frozen"] == 0.25


def test_energy_gain_counts_kinetic_rotation_and_gravity_energy(tmp_path):
    # m = 2, I = 0.8: KE = v^2 + 0.4 w^2. PSI speeds 0, -1, -2: KE 0, 1, 4 (largest gain 3).
    t = rt.load_trace(write(tmp_path, tiny_trace()))
    facts = rt.body_facts(t.setup)
    g = rt.energy_gain(t.run.psis, facts, (0.0, -10.0, 0.0))
    assert g["kinetic"] == pytest.approx(3.0) and g["kinetic_t"] == pytest.approx(2 / 66)
    # PE = m g y: 200, 180, 170 -> E = 200, 181, 174: never gained
    assert g["mechanical"] == 0.0 and g["mechanical_t"] is None
    spin = rt.Sample(0, 0.0, {"ball": rt.BodyState((0, 0, 0), (0, 0, 0), (1, 2, 2), 1)})
    assert rt.kinetic_energy(spin, facts) == pytest.approx(0.4 * 9)


def test_settle_time_is_when_every_speed_stays_below_the_limit():
    def s(t, *vs):
        return rt.Sample(0, t, {str(i): rt.BodyState((0, 0, 0), (v, 0, 0), (0, 0, 0), 1) for i, v in enumerate(vs)})
    samples = [s(0, 1, 0), s(1, 0.01, 0), s(2, 0.01, 0.5), s(3, 0.01, 0.03), s(4, 0, 0)]
    assert rt.stays_below(samples, 0.04) == 3
    assert rt.stays_below(samples, 0.04, {"0"}) == 1
    assert rt.stays_below(samples + [s(5, 0.05, 0)], 0.04) is None


def test_rolling_ratio_counts_psis_with_a_contact_after_the_landing_slip():
    psis = [rt.Sample(i, i / 66, {"ball": rt.BodyState((0, 2, 0), (2.0 * (i + 1), 0, 0), (0, 0, i + 1.0), 1)})
            for i in range(10)]
    events = [rt.Event("friction_created", 0.01, 1, ("ball", "floor")),
              rt.Event("impact_post", 0.01, 1, ("ball", "floor"), 1.0),
              rt.Event("friction_deleted", 0.1, 8, ("ball", "floor"))]
    psis[3].bodies["ball"].speed = (9.0, 0, 0)       # slipping, but inside the settle window
    r = rt.rolling_ratios(rt.Run("x", "hand", [], psis, events), {"ball": (1.0, (1, 1, 1), 2.0)})
    # PSIs 1 + 5 = 6 and 7 (contact deleted before PSI 8)
    assert r == {"ball": [2.0, 2.0]}


def test_point_triangle_distance_inside_beside_and_past_a_corner():
    tri = rt.np.array([[[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 0.0, 4.0]]])
    assert rt.point_triangle_distance((1, 2, 1), tri) == pytest.approx(2.0)         # above the face
    assert rt.point_triangle_distance((2, 3, -4), tri) == pytest.approx(5.0)        # beside the edge z = 0
    assert rt.point_triangle_distance((-1, 0, -1), tri) == pytest.approx(math.sqrt(2))   # past a corner


def test_derived_quantities_of_a_hand_made_run(tmp_path):
    t = rt.load_trace(write(tmp_path, tiny_trace(ys=(3.0, 3.2, 3.5, 3.0), speeds=(0.0,) * 4)))
    t.run.events.append(rt.Event("impact_post", 0.0, 0, ("ball", "floor"), 1.0))
    d = rt.derived_quantities(t.run, t.setup)
    assert d["first_apex"] == {"ball": 3.5}                  # PSI heights after the impact: 3.2, 3.5, 3.0
    # the last frame's centre is 3.2 above the fixed triangle at y = 0; radius 1
    assert d["rest_gap"] == {"ball": pytest.approx(2.2)}
    assert d["settle_t"] == 0.0 and "slide" not in d


def test_tolerance_is_three_noise_floors_or_0_1_mm(tmp_path):
    a = rt.load_trace(write(tmp_path, tiny_trace(ys=(10.0, 9.0, 8.5)), "a.json.gz"))
    b = rt.load_trace(write(tmp_path, tiny_trace(ys=(10.0, 9.001, 8.5)), "b.json.gz"))
    port = rt.load_trace(write(tmp_path, tiny_trace(ys=(10.0, 9.0, 8.51)), "p.json.gz")).run
    c = rt.compare_scenario({"sse": a, "x87": b}, port)
    assert c.floor["psis"]["pos"] == pytest.approx(1e-3)
    assert c.tolerance() == pytest.approx(3e-3)
    assert c.errors["sse"]["psis"]["pos"] == pytest.approx(0.01)
    assert c.errors["x87"]["psis"]["pos"] == pytest.approx(0.01)
    c1 = rt.compare_scenario({"sse": a, "x87": a}, port)
    assert c1.tolerance() == 1e-4


def test_a_hand_made_setup_builds_and_runs(tmp_path):
    # a ball of mass 2, radius 1: inertia 2/5 m r^2 = 0.8 (f32); no gravity, at rest: stays
    t = rt.load_trace(write(tmp_path, tiny_trace()))
    sc = rt.build_scenario(t)
    assert sc.bodies["ball"].core.rot_inertia == pytest.approx((0.8,) * 3, rel=1e-7)
    run = rt.run_port(t)
    assert [f.index for f in run.frames] == [0, 1] and len(run.psis) == 2
    assert run.frames[1].bodies["ball"].pos == (0.0, 10.0, 0.0)


def test_trimming_keeps_what_the_harness_reads(tmp_path):
    data = tiny_trace(events=[{"type": "object_revived", "t": 0, "psi_count": 0, "after_frame": 0, "body": "ball"}])
    trimmed = rt.trim_trace(data)
    assert "quat_xyzw" not in trimmed["psis"][0]["bodies"][0] and "rand_seed" not in trimmed["frames"][0]
    assert "after_frame" not in trimmed["events"][0]
    full = rt.load_trace(write(tmp_path, data, "full.json.gz")).run
    small = rt.load_trace(write(tmp_path, trimmed, "small.json.gz")).run
    assert (small.frames, small.psis, small.events) == (full.frames, full.psis, full.events)


# --- bad input -------------------------------------------------------------------------------------------

def test_a_file_that_is_not_gzip_json_is_an_error_naming_it(tmp_path):
    p = tmp_path / "bad.json.gz"
    p.write_bytes(b"not gzip")
    with pytest.raises(rt.TraceError, match="bad.json.gz: cannot read"):
        rt.load_trace(p)
    with gzip.open(p, "wb") as f:
        f.write(b"{")
    with pytest.raises(rt.TraceError, match="bad.json.gz: not JSON"):
        rt.load_trace(p)


def test_a_trace_larger_than_the_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(rt, "MAX_TRACE_BYTES", 100)
    with pytest.raises(rt.TraceError, match="MAX_TRACE_BYTES"):
        rt.load_trace(write(tmp_path, tiny_trace()))


def test_missing_fields_and_unknown_setup_entries_are_named(tmp_path):
    data = tiny_trace()
    del data["psis"][1]["bodies"][0]["speed"]
    with pytest.raises(rt.TraceError, match=r"psis\[1\]\.bodies\[0\]: missing 'speed'"):
        rt.load_trace(write(tmp_path, data))
    data = tiny_trace()
    data["setup"]["hinge"] = {}
    with pytest.raises(rt.TraceError, match="'hinge'.*not understood"):
        rt.build_scenario(rt.load_trace(write(tmp_path, data)))
    data = tiny_trace()
    data["setup"]["bodies"][1]["params"]["mass_passed"] = -1.0
    with pytest.raises(rt.TraceError, match=r"bodies\[1\].*'ball'.*mass"):
        rt.build_scenario(rt.load_trace(write(tmp_path, data)))


# --- the report ---------------------------------------------------------------------------------------------

def test_the_report_prints_a_table_and_the_worst_scenario(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert fidelity.main(["free_fall_wood", "push_ball", "--build", "sse", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "== free_fall_wood:" in text and "== push_ball:" in text
    assert text.strip().splitlines()[-1].startswith("worst scenario: ")
    numbers = json.loads(out.read_text())
    assert [n["scenario"] for n in numbers] == ["free_fall_wood", "push_ball"]
    assert numbers[0]["tolerance"] == 1e-4


def test_the_report_names_a_scenario_without_traces(capsys):
    assert fidelity.main(["no_such_scenario"]) == 2
    assert "no_such_scenario" in capsys.readouterr().err


def test_the_report_goes_on_past_a_port_failure_and_names_it(capsys, monkeypatch):
    real = rt.run_port

    def failing(trace, progress=None, valve_countdown=True):
        if trace.scenario == "push_ball":
            raise RuntimeError("a NaN entered a core")
        return real(trace, progress, valve_countdown)

    monkeypatch.setattr(rt, "run_port", failing)
    assert fidelity.main(["push_ball", "free_fall_wood"]) == 1
    text = capsys.readouterr().out
    assert "== push_ball: the port failed: RuntimeError: a NaN entered a core ==" in text
    assert "== free_fall_wood:" in text
    last = text.strip().splitlines()[-1]
    assert last == "worst scenario: push_ball (the port failed: RuntimeError: a NaN entered a core)"
