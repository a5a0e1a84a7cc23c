"""``ivp run`` and ``ivp check``: outputs, the frame clock options, and errors."""

import csv
import json
import textwrap

import pytest

from viewer.cli import main

FRAME_MS = 1000.0 / 60.0

DROP = """\
    version: 1
    scene: {gravity: [0, -20, 0], time_factor: 2, length: 0.5}
    entities:
      - {name: floor, mesh: {box: [20, 1, 20]}, position: [0, -0.5, 0], physics: {fixed: true}}
      - {name: ball, mesh: {sphere: {radius: 1}}, position: [0, 3, 0], physics: {balls: [{radius: 1}]}}
    """


@pytest.fixture
def drop(tmp_path):
    p = tmp_path / "drop.yaml"
    p.write_text(textwrap.dedent(DROP))
    return str(p)


def test_check_lists_contents(drop, capsys):
    assert main(["check", drop]) == 0
    out = capsys.readouterr().out
    assert "OK" in out and "bodies 2 (1 movable, 1 fixed)" in out and "time factor 2" in out


def test_check_reports_located_errors(tmp_path, capsys):
    p = tmp_path / "bad.yaml"
    p.write_text("version: 1\nentities:\n  - {name: b, mesh: {box: [1, 1, 1]}, physics: {mas: 2}}\n")
    assert main(["check", str(p)]) == 1
    err = capsys.readouterr().err
    assert f"{p}:3:" in err and "did you mean 'mass'?" in err


def test_check_of_every_bundled_scene(capsys):
    assert main(["check", "sample_level", "ball_wood"]) == 0
    assert capsys.readouterr().out.count(": OK") == 2


def test_run_writes_trajectory_csv_and_summary(drop, tmp_path, capsys):
    traj, summ = tmp_path / "t.csv", tmp_path / "s.json"
    assert main(["run", drop, "--quiet", "--trajectory", str(traj), "--summary", str(summ)]) == 0
    rows = list(csv.DictReader(traj.open()))
    assert rows[0].keys() == {"frame", "time", "entity", "x", "y", "z", "qx", "qy", "qz", "qw", "awake"}
    assert len(rows) == 30 and {r["entity"] for r in rows} == {"ball"}     # 0.5 s at 60 frames/s
    summary = json.loads(summ.read_text())
    assert summary["frames"] == 30 and summary["finite"] and summary["bodies"] == 1
    assert "30 frames" in capsys.readouterr().out
    assert float(rows[-1]["y"]) < 3.0


def test_trajectory_as_json_lines(drop, tmp_path):
    traj = tmp_path / "t.jsonl"
    assert main(["run", drop, "--quiet", "--seconds", "0.1", "--trajectory", str(traj)]) == 0
    recs = [json.loads(line) for line in traj.read_text().splitlines()]
    assert len(recs) == 6 and recs[0]["entity"] == "ball" and recs[0]["awake"] == 1


def smoothed_sim_seconds(n: int, frame_ms: float, time_factor: float) -> float:
    """Glue-and-content 1: s_k = (frame + 3 s_(k-1)) / 4 from 0, so s_k =
    frame (1 - (3/4)^k) and the frames add up to frame (n - 3 (1 - (3/4)^n))."""
    return frame_ms * (n - 3.0 * (1.0 - 0.75 ** n)) * 0.001 * time_factor


@pytest.mark.parametrize("smoothing", [True, False])
def test_frame_clock_with_and_without_smoothing(drop, tmp_path, smoothing):
    summ = tmp_path / "s.json"
    args = ["run", drop, "--quiet", "--frame-ms", "20", "--seconds", "1", "--summary", str(summ)]
    assert main(args + ([] if smoothing else ["--no-smoothing"])) == 0
    simulated = json.loads(summ.read_text())["simulated_seconds"]
    expected = smoothed_sim_seconds(50, 20.0, 2.0) if smoothing else 50 * 20.0 * 0.001 * 2.0
    assert simulated == pytest.approx(expected, rel=1e-6)


def test_time_factor_option(drop, tmp_path):
    summ = tmp_path / "s.json"
    assert main(["run", drop, "--quiet", "--no-smoothing", "--time-factor", "0.5", "--seconds", "1",
                 "--summary", str(summ)]) == 0
    assert json.loads(summ.read_text())["simulated_seconds"] == pytest.approx(0.5, rel=1e-6)


def test_trace_per_frame(drop, tmp_path):
    trace = tmp_path / "trace.jsonl"
    assert main(["run", drop, "--quiet", "--trace", str(trace)]) == 0
    recs = [json.loads(line) for line in trace.read_text().splitlines()]
    assert len(recs) == 30
    first = recs[0]
    assert first.keys() == {"frame", "time", "psi", "seed", "sleep_countdown", "bodies", "events"}
    body = first["bodies"][0]
    assert body.keys() == {"name", "position", "quaternion", "speed", "rot_speed", "movement_state", "awake"}
    assert len(body["quaternion"]) == 4 and body["quaternion"][3] == pytest.approx(1.0)
    events = [e["event"] for r in recs for e in r["events"]]
    assert "revived" in events and "impact" in events and "contact created" in events


def test_trace_per_psi_has_one_record_per_psi_at_its_start(drop, tmp_path):
    trace = tmp_path / "trace.jsonl"
    assert main(["run", drop, "--quiet", "--trace", str(trace), "--per-psi", "--no-smoothing",
                 "--seconds", "0.25"]) == 0
    recs = [json.loads(line) for line in trace.read_text().splitlines()]
    # 15 frames of 1/60 s at time factor 2: 0.5 s simulated, PSIs at k/66 < 0.5: 33
    assert [r["psi"] for r in recs] == list(range(33))
    assert recs[1]["time"] == pytest.approx(1 / 66, rel=1e-6)
    # at the start of PSI 1 the ball has fallen one PSI: y = 3 - g dt^2 (spec 8)
    assert recs[1]["bodies"][0]["position"][1] == pytest.approx(3.0 - 20.0 / 66 ** 2, rel=1e-6)


def test_per_psi_needs_trace(drop):
    assert main(["run", drop, "--per-psi"]) == 1


def test_run_with_a_recording_feeds_keys_and_frame_times(tmp_path):
    from behaviors.recording import Recorder
    rec = tmp_path / "r.jsonl"
    with Recorder(rec) as r:
        for _ in range(20):
            r.add(25.0, ["Up"])
    summ = tmp_path / "s.json"
    assert main(["run", "ball_wood", "--quiet", "--input", str(rec), "--summary", str(summ)]) == 0
    s = json.loads(summ.read_text())
    assert s["frames"] == 20 and s["frame_seconds"] == pytest.approx(0.5)


def test_run_a_missing_scene_says_so(capsys):
    assert main(["run", "no_such_scene", "--quiet"]) == 1
    assert "no scene file" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--input", "--trajectory", "--summary"])
def test_a_file_that_cannot_be_opened_is_named_without_a_traceback(drop, tmp_path, option, capsys):
    path = tmp_path / "no_such_dir" / "file"
    assert main(["run", drop, "--quiet", option, str(path)]) == 1
    assert capsys.readouterr().err == f"ivp run: {path}: No such file or directory\n"


def test_run_needs_no_display_and_no_pyglet():
    """README's first command on a machine without a display: `ivp run` runs
    headless and never imports pyglet."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    code = ("import sys; from viewer.cli import main; "
            "rc = main(['run', 'ball_wood', '--quiet', '--seconds', '0.1']); "
            "assert 'pyglet' not in sys.modules, 'pyglet imported'; sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "6 frames" in done.stdout


def test_run_plays_the_scenes_demo_input_and_says_how_the_level_ended(tmp_path, capsys):
    # the sample level's demo recording holds Up for 480 frames of 1000/60 ms, then 660 without keys
    # (the level's 10 s end wait before the score count)
    summ = tmp_path / "s.json"
    assert main(["run", "--quiet", "--summary", str(summ)]) == 0
    s = json.loads(summ.read_text())
    assert s["frames"] == 1140 and s["frame_seconds"] == pytest.approx(19.0)
    assert "level 1: finished" in capsys.readouterr().out
    assert main(["run", "--quiet", "--no-input", "--seconds", "1"]) == 0
    assert "level 1: playing" in capsys.readouterr().out


def test_a_missing_demo_input_is_a_located_error(tmp_path, capsys):
    p = tmp_path / "demo.yaml"
    p.write_text("version: 1\nscene:\n  demo_input: nowhere.jsonl\n")
    assert main(["check", str(p)]) == 1
    err = capsys.readouterr().err
    assert f"{p}:3:" in err and "nowhere.jsonl" in err


# --- issue 13: what a new user hits first ------------------------------------------------

RAISING = """\
    from behaviors import Behavior, register


    @register({name!r})
    class Raiser(Behavior):
        def on_frame(self, dt):
            if self.ctx.time_manager.frame_count in (3, 5):
                raise RuntimeError("boom")
    """


def raising_scene(tmp_path, name: str):
    """The drop scene with a behaviour ``name`` of a local file that raises in frames 3 and 5
    (each test its own name: the registry is the process's)."""
    module = tmp_path / "raiser_behaviours.py"
    module.write_text(textwrap.dedent(RAISING).format(name=name))
    scene = tmp_path / "raising.yaml"
    scene.write_text(textwrap.dedent(DROP) + f"behaviours:\n  - {{type: {name}}}\n")
    return str(scene), str(module)


def test_behaviour_errors_are_one_line_each_with_a_count_and_strict_fails(tmp_path, capsys):
    scene, module = raising_scene(tmp_path, "test.cli_raiser")
    assert main(["run", scene, "--quiet", "--behaviors", module]) == 0
    err = capsys.readouterr().err.splitlines()
    # the first raise stops the behaviour (docs/behaviors.md): one error, said once
    assert err == ["error: frame 3: behaviour 'test.cli_raiser' on the scene, in on_frame: RuntimeError: boom",
                   "1 behaviour or block error(s); --strict makes them fail the run; "
                   "--traceback shows where they came from"]
    assert main(["run", scene, "--quiet", "--behaviors", module, "--strict"]) == 3


def test_a_behaviour_file_is_loaded_only_when_named(tmp_path, capsys):
    scene, module = raising_scene(tmp_path, "test.named_only")
    assert main(["check", scene]) == 1
    err = capsys.readouterr().err
    assert "unknown behaviour 'test.named_only'" in err and "--behaviors FILE.py" in err
    assert main(["check", scene, "--behaviors", module]) == 0
    assert main(["run", scene, "--behaviors", str(module) + ".missing.py"]) == 1
    assert "no such file" in capsys.readouterr().err


def test_a_negative_length_is_rejected(capsys):
    assert main(["run", "--seconds", "-1", "--quiet"]) == 1
    assert "--seconds" in capsys.readouterr().err


def test_a_recording_of_another_scene_or_with_a_misspelt_key_is_warned_by_line(tmp_path, capsys):
    from behaviors.recording import Recorder
    rec = tmp_path / "r.jsonl"
    with Recorder(rec, scene="rails") as r:
        r.add(20.0, ["Up"])
        r.add(20.0, ["up"])
        r.add(20.0, ["up", "Left"])
    assert main(["run", "sample_level", "--quiet", "--input", str(rec)]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning")]
    assert warnings == [f"warning: {rec}:1: the recording was made on scene 'rails', this is 'sample_level'",
                        f"warning: {rec}:3: key 'up' is read by no behaviour of the scene (did you mean 'Up'?)"]


def test_list_names_every_bundled_scene_with_its_description(capsys):
    import scenes
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == scenes.bundled_names()
    level = next(line for line in lines if line.startswith("sample_level "))
    assert level.split(None, 1)[1] == scenes.load("sample_level").settings["description"]


def test_a_misspelt_bundled_name_gets_a_did_you_mean(capsys):
    assert main(["run", "sample_levl", "--quiet"]) == 1
    assert "did you mean 'sample_level'?" in capsys.readouterr().err


def test_check_lists_all_the_problems_of_a_file(tmp_path, capsys):
    # issue 13, defect 9: a bad entity reference no longer hides an unknown
    # behaviour and a bad parameter, nor a bad include a bad joint target
    a = tmp_path / "a.yaml"
    a.write_text(textwrap.dedent("""\
        version: 1
        entities:
          - {name: ball, mesh: {sphere: {radius: 1}}, physics: {balls: [{radius: 1}]}}
          - {name: crate, mesh: {box: [1, 1, 1]}, physics: {mass: 1}}
        joints:
          - {type: hinge, object: bal, object2: crate}
        behaviours:
          - {type: ballance.leve}
          - {type: ballance.fan, entity: ball, params: {forse: 2}}
        """))
    b = tmp_path / "b.yaml"
    b.write_text(textwrap.dedent("""\
        version: 1
        includes:
          - {file: nowhere.yaml}
        entities:
          - {name: ball, mesh: {sphere: {radius: 1}}, physics: {balls: [{radius: 1}]}}
        joints:
          - {type: hinge, object: bal, object2: ball}
        """))
    assert main(["check", str(a), str(b)]) == 1
    err = capsys.readouterr().err
    assert f"{a}:6:27: object: no entity 'bal' (did you mean 'ball'?)" in err
    assert f"{a}:8:12: unknown behaviour 'ballance.leve'" in err
    assert f"{a}:9:56: behaviour 'ballance.fan' has no parameter 'forse' (did you mean 'force'?)" in err
    assert f"{b}:3:5: no scene file {tmp_path / 'nowhere.yaml'}" in err
    assert f"{b}:7:27: object: no entity 'bal' (did you mean 'ball'?)" in err


# --- issue 43: the length of a run, Ctrl-C, tracebacks -------------------------------------

def test_seconds_longer_than_the_recording_runs_the_asked_length_and_says_so(tmp_path, capsys):
    from behaviors.recording import Recorder
    rec = tmp_path / "r.jsonl"
    with Recorder(rec) as r:
        for _ in range(20):
            r.add(25.0, ["Up"])
    summ = tmp_path / "s.json"
    assert main(["run", "ball_wood", "--quiet", "--input", str(rec), "--seconds", "1", "--frame-ms", "20",
                 "--summary", str(summ)]) == 0
    s = json.loads(summ.read_text())
    # 20 recorded frames of 25 ms (0.5 s), then 0.5 s in frames of 20 ms: 25 more
    assert s["frames"] == 45 and s["frame_seconds"] == pytest.approx(1.0)
    assert "25 frames of 20 ms without keys follow" in capsys.readouterr().err


def test_the_frames_after_a_recording_hold_no_keys():
    from behaviors.recording import Recording
    from scenes.headless import FrameTimes
    frames = FrameTimes(0.1, 20.0, Recording([(30.0, ["Up"])] * 2))
    assert len(frames) == 4 and list(frames) == [(30.0, frozenset({"Up"}))] * 2 + [(20.0, frozenset())] * 2
    assert list(FrameTimes(0.05, 20.0)) == [(20.0, None)] * 3


@pytest.mark.parametrize("option", [["--seconds", "1e9"], ["--seconds", "100", "--frame-ms", "1e-6"]])
def test_a_run_too_long_is_refused_by_its_limit_before_loading(option, capsys, monkeypatch):
    import scenes.cli
    monkeypatch.setattr(scenes.cli, "load_scene", lambda *a: pytest.fail("loaded a scene"))
    assert main(["run", "--no-input", "--quiet", *option]) == 1
    err = capsys.readouterr().err
    assert "limit MAX_RUN_FRAMES" in err and "--seconds" in err and "Traceback" not in err


def interrupting(monkeypatch, at: int, how):
    """Make frame `at` of every context call `how()` before it runs (a Ctrl-C)."""
    from bbglue.context import CKContext
    original = CKContext.process_frame

    def process_frame(self, ms):
        if self.time_manager.frame_count == at:
            how()
        original(self, ms)
    monkeypatch.setattr(CKContext, "process_frame", process_frame)


def whole_csv_rows(path):
    text = path.read_text()
    assert text.endswith("\n")
    rows = list(csv.reader(text.splitlines()))
    assert all(len(r) == 11 for r in rows)
    return rows[1:]


@pytest.mark.parametrize("second", [False, True])
def test_ctrl_c_stops_the_run_with_the_summary_so_far_and_whole_files(drop, tmp_path, monkeypatch, capsys, second):
    import os
    import signal

    def ctrl_c():
        os.kill(os.getpid(), signal.SIGINT)     # the first Ctrl-C: the frame ends, then the run
        if second:
            raise KeyboardInterrupt             # a second one inside the frame: it is not counted

    interrupting(monkeypatch, 10, ctrl_c)
    traj, summ = tmp_path / "t.csv", tmp_path / "s.json"
    assert main(["run", drop, "--quiet", "--trajectory", str(traj), "--summary", str(summ)]) == 130
    frames = 10 if second else 11
    assert f"interrupted at frame {frames}" in capsys.readouterr().out
    s = json.loads(summ.read_text())
    assert s["frames"] == frames and s["interrupted"] == frames
    assert [int(r[0]) for r in whole_csv_rows(traj)] == list(range(frames))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_traceback_shows_where_a_behaviour_raised(tmp_path, capsys):
    scene, module = raising_scene(tmp_path, "test.cli_traceback")
    assert main(["run", scene, "--quiet", "--behaviors", module]) == 0
    assert "--traceback shows where" in capsys.readouterr().err
    assert main(["run", scene, "--quiet", "--behaviors", module, "--traceback"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "error: frame 3: behaviour 'test.cli_traceback' on the scene, in on_frame: RuntimeError: boom"
    assert err[1] == "Traceback (most recent call last):"
    assert any("raiser_behaviours.py" in line and "on_frame" in line for line in err)


def test_a_run_of_no_frames_writes_the_trajectorys_header(drop, tmp_path):
    traj = tmp_path / "t.csv"
    assert main(["run", drop, "--quiet", "--seconds", "0", "--trajectory", str(traj)]) == 0
    assert traj.read_bytes() == b"frame,time,entity,x,y,z,qx,qy,qz,qw,awake\r\n"      # CSV's line ends
