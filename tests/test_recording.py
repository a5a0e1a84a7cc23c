"""Input recordings: the file format, and a replay that gives the same trajectory
to the last bit (issue 7, "Inputs")."""

import json

import pytest

from behaviors import Frame, LiveInput, Recorder, Recording, replay, run_frame
from behaviors.ballance import player_of
from ivp import rng
from test_ballance_world import ball_body, ballance_ctx

# Uneven frame times and a key script with presses, releases, a diagonal and a turn.
SCRIPT = [(16.0 + (i % 7) * 1.37 + (i % 3) * 0.001,
          {0: (), 5: ("Up",), 30: ("Up", "Right"), 50: ("LShift", "Left"), 52: ("LShift",),
           60: ("Down",), 80: ()}[max(k for k in (0, 5, 30, 50, 52, 60, 80) if k <= i)])
          for i in range(100)]


def state(ctx):
    """The ball's pose and velocities and the camera eye after a frame."""
    b = ball_body(ctx)
    return (player_of(ctx).ball.get_position(), tuple(b.core.speed), tuple(b.core.rot_speed),
            tuple(b.core.q_world_f_core_next_psi), ctx.get("Cam_Pos").get_position())


def trajectory(ctx, frames):
    out = []
    replay(ctx, frames, after_frame=lambda ctx, i: out.append(state(ctx)))
    return out


def test_a_recorded_run_replayed_gives_the_same_trajectory_to_the_last_bit(tmp_path):
    path = tmp_path / "run.jsonl"
    live = LiveInput()
    ctx = ballance_ctx(start=(0.0, 100.0, 0.0))
    first = []
    with Recorder(path, scene="test") as rec:
        for ms, keys in SCRIPT:
            live.keys = set(keys)
            run_frame(ctx, live.frame(ms), rec)
            first.append(state(ctx))
    rng.reset()
    loaded = Recording.load(path)
    assert loaded.meta == {"scene": "test"} and len(loaded) == len(SCRIPT)
    assert [f.ms for f in loaded] == [ms for ms, _ in SCRIPT]   # bit-exact frame times
    second = trajectory(ballance_ctx(start=(0.0, 100.0, 0.0)), loaded)
    assert second == first
    assert first[-1][0] != first[10][0]                         # something moved


def test_save_and_load_round_trip(tmp_path):
    rec = Recording([(1.0 / 3.0, ["Up"]), (16.5, [])], meta={"note": "x"})
    rec.save(tmp_path / "r.jsonl")
    back = Recording.load(tmp_path / "r.jsonl")
    assert back.frames == [Frame(1.0 / 3.0, frozenset({"Up"})), Frame(16.5, frozenset())]
    assert back.meta == {"note": "x"}


@pytest.mark.parametrize("lines, message", [
    ([], "empty file"),
    (['{"format": "other", "version": 1}'], "not an ivp-recording version 1 header"),
    (['{"format": "ivp-recording", "version": 1}', '{"ms": 16'], r":2: not JSON"),
    (['{"format": "ivp-recording", "version": 1}', '{"ms": -1, "keys": []}'], r":2: the frame time"),
    (['{"format": "ivp-recording", "version": 1}', '{"ms": 1, "keys": "Up"}'], r":2: keys must be a list"),
    (['{"format": "ivp-recording", "version": 1}', '{"ms": 1, "key": []}'], r":2: a frame is"),
    (['{"format": "ivp-recording", "version": 1}', '[1, 2]'], r":2: expected a JSON object"),
])
def test_malformed_recordings_name_the_file_and_line(tmp_path, lines, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=message):
        Recording.load(path)


def test_recorder_writes_sorted_keys_per_frame(tmp_path):
    path = tmp_path / "r.jsonl"
    with Recorder(path) as rec:
        rec.add(16.0, {"Up", "Left"})
        with pytest.raises(ValueError, match="frame time"):
            rec.add(float("nan"), ())
    lines = path.read_text().splitlines()
    assert json.loads(lines[1]) == {"ms": 16.0, "keys": ["Left", "Up"]}
    assert len(lines) == 2


def test_the_docs_recording_fits_the_sample_level_and_the_viewer_writes_such_a_header(tmp_path):
    # issue 43, defect 10: the docs' header named "sample_level.yaml", which was warned as another scene
    import re
    from pathlib import Path

    from scenes.cli import load_scene
    from scenes.headless import recording_warnings
    from viewer.session import Session

    docs = (Path(__file__).parents[1] / "docs" / "behaviors.md").read_text()
    section = docs[docs.index("## Input sources and recordings"):]
    text = re.search(r"```\n(.*?)```", section, re.S).group(1)
    doc_rec = tmp_path / "doc.jsonl"
    doc_rec.write_text(text)
    scene = load_scene("sample_level")
    assert recording_warnings(Recording.load(doc_rec), doc_rec, scene) == []
    named_by_file = tmp_path / "file.jsonl"
    Recording([(20.0, ["Up"])], {"scene": "sample_level.yaml"}).save(named_by_file)
    assert recording_warnings(Recording.load(named_by_file), named_by_file, scene) == []
    viewer_rec = tmp_path / "viewer.jsonl"
    s = Session(lambda: load_scene("sample_level"))
    s.start_recording(viewer_rec)
    s.tick(1 / 60)
    s.stop_recording()
    assert Recording.load(viewer_rec).meta.keys() == Recording.load(doc_rec).meta.keys() == {"scene", "seed"}
    assert recording_warnings(Recording.load(viewer_rec), viewer_rec, scene) == []
