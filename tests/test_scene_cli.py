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
