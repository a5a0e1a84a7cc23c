"""The viewer's history (issue 43, viewer/history.py): scrubbing back and
forward ends on the very state of a run that never scrubbed, resuming from the
past branches deterministically, a step back undoes one PSI step, and the ring
of snapshots stays within its bounds. The window is driven under headless EGL
by its key handler, as a user's keys reach it."""

import gc
import os
import tracemalloc

import pytest
from test_viewer_support import ball_scene, gl_window  # noqa: F401

import scenes
from bbglue import snapshot
from behaviors.recording import Recording, run_frame
from ivp import rng
from ivp.snapshot import flatten
from scenes import headless
from viewer import history
from viewer.history import Action, History
from viewer.session import Session

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "scenes", "bundled", "sample_level_demo.jsonl")
FRAMES = 240                # 4 s of the demo input (its keys roll the ball)
BACK = 120                  # 2 s at 60 frames per second


@pytest.fixture
def window(gl_window):  # noqa: F811
    from viewer.window import ViewerWindow
    made = []

    def make(load):
        w = ViewerWindow(Session(load), width=320, height=240, visible=False)
        made.append(w)
        return w
    yield make
    for w in made:
        w.close()


def press(w, symbol):
    w.on_key_press(symbol, 0)


def reference_hashes(frames, after) -> dict:
    """Frame index -> the game hash after it, for the indices in `after`, of
    a plain run (no viewer, no history)."""
    rng.reset()
    ctx = scenes.load("sample_level").ctx
    out = {}
    for i, f in enumerate(frames):
        if isinstance(f, float):
            ctx.input_manager.set_keys(frozenset())
            ctx.process_frame(f)
        else:
            run_frame(ctx, f)
        if i in after:
            out[i] = snapshot.game_hash(ctx)
    return out


def demo_then_back(window):
    """A window on the sample level that has played FRAMES frames of the demo
    input, the game hash then, and [ pressed four times: 2 s back."""
    from pyglet.window import key
    w = window(lambda: scenes.load("sample_level"))
    w.session.play(Recording.load(DEMO))
    for _ in range(FRAMES):
        w.tick(1 / 60)
    live = snapshot.game_hash(w.session.ctx)
    for _ in range(4):
        press(w, key.BRACKETLEFT)
    return w, live


def test_scrub_back_two_seconds_and_forward_again_ends_bit_identical(window):
    from pyglet.window import key
    w, live = demo_then_back(window)
    s = w.session
    assert s.paused and s.history.cursor == FRAMES - BACK
    assert s.history.seconds_back() == pytest.approx(2.0, abs=1e-9)
    assert s.frames == FRAMES - BACK
    back = snapshot.game_hash(s.ctx)
    for _ in range(4):                              # ] four times: to the latest state again
        press(w, key.BRACKETRIGHT)
    assert s.history.cursor == s.history.end == FRAMES
    forward = snapshot.game_hash(s.ctx)
    ref = reference_hashes(list(Recording.load(DEMO))[:FRAMES], {FRAMES - BACK - 1, FRAMES - 1})
    assert back == ref[FRAMES - BACK - 1]           # the state the run had 2 s before its end
    assert forward == live == ref[FRAMES - 1]


def test_resume_after_scrubbing_back_branches_deterministically(window):
    from pyglet.window import key
    w, _ = demo_then_back(window)
    s = w.session
    press(w, key.P)                                 # resume here: the later 2 s are dropped
    hashes = []
    for _ in range(30):                             # no scripted input any more: no keys held
        w.tick(1 / 60)
        hashes.append(snapshot.game_hash(s.ctx))
    assert s.history.end == s.history.cursor == FRAMES - BACK + 30
    press(w, key.BRACKETRIGHT)                      # nothing after the end
    assert s.history.cursor == s.history.end and not s.paused
    resumed = range(FRAMES - BACK, FRAMES - BACK + 30)
    ref = reference_hashes(list(Recording.load(DEMO))[:FRAMES - BACK] + [1 / 60 * 1000.0] * 30, set(resumed))
    assert hashes == [ref[i] for i in resumed]


def test_step_back_undoes_one_psi_step_then_whole_frames(window):
    from pyglet.window import key
    w = window(ball_scene)
    s = w.session
    after_frame = []
    for _ in range(30):
        w.tick(1 / 60)
        after_frame.append((snapshot.game_hash(s.ctx), s.env.psi_count))
    after_step = []
    for _ in range(3):
        press(w, key.PERIOD)
        after_step.append((snapshot.game_hash(s.ctx), s.env.psi_count))
    assert [p for _, p in after_step] == [after_frame[-1][1] + k for k in (1, 2, 3)]
    press(w, key.COMMA)                             # one PSI back
    assert (snapshot.game_hash(s.ctx), s.env.psi_count) == after_step[1]
    press(w, key.COMMA)
    press(w, key.COMMA)
    assert (snapshot.game_hash(s.ctx), s.env.psi_count) == after_frame[-1]
    press(w, key.COMMA)                             # then a frame back
    assert (snapshot.game_hash(s.ctx), s.env.psi_count) == after_frame[-2]
    press(w, key.PERIOD)                            # in the past: forward along the history
    press(w, key.PERIOD)
    assert (snapshot.game_hash(s.ctx), s.env.psi_count) == after_step[0]
    press(w, key.END)
    assert (snapshot.game_hash(s.ctx), s.env.psi_count) == after_step[2]


def test_a_mouse_pull_is_replayed_on_the_restored_body():
    s = Session(ball_scene)
    s.keep_history(30.0)
    ball = s.ctx.get("ball")
    for _ in range(5):
        s.tick(1 / 60)
    assert s.start_drag(ball, ball.get_world_matrix().as_array()[3, :3])
    s.drag.target = s.drag.target + (3.0, 4.0, 0.0)
    for _ in range(40):
        s.tick(1 / 60)
    s.end_drag()
    for _ in range(10):
        s.tick(1 / 60)
    pulled = snapshot.game_hash(s.ctx)
    x = s.ctx.get("ball").get_world_matrix().as_array()[3, 0]
    assert x > 0.5                                  # the pull moved it toward +X
    s.selected = s.ctx.get("ball")
    s.go_to(2)
    assert s.selected is s.ctx.get("ball")          # the selection follows the restored entity
    s.go_to(s.history.end)
    assert snapshot.game_hash(s.ctx) == pulled


def test_the_ring_reaches_back_its_seconds_and_no_further(monkeypatch):
    monkeypatch.setattr(history, "SNAPSHOT_SHARE", float("inf"))     # a snapshot every SNAPSHOT_EVERY steps
    ctx = ball_scene()
    h = History(ctx, seconds=1.0)
    for i in range(300):                            # 5 s of 60 Hz frames
        a = Action(1000.0 / 60.0)
        a.run(ctx)
        h.record(ctx, a, 0.0)
        reach = h.mark(h.end).t_ms - h.snapshots[0].mark.t_ms
        if i >= 60 + history.SNAPSHOT_EVERY:        # reaches back 1 s, and less than two intervals more
            assert 1000.0 <= reach < 1000.0 + 2 * history.SNAPSHOT_EVERY * 1000.0 / 60.0
    assert h.start > 0 and len(h.actions) == h.end - h.start <= 70
    other = ball_scene()
    tiny = History(other, seconds=100.0, max_bytes=1.0)
    for _ in range(25):
        a = Action(1000.0 / 60.0)
        a.run(other)
        tiny.record(other, a, 0.0)
    assert [s.position for s in tiny.snapshots] == [20]     # over the budget: only the newest kept
    with pytest.raises(ValueError, match="portable"):
        flatten(ctx, portable=True, share=(object,))


def test_a_saved_state_resumes_as_the_run_would_have_continued(window, tmp_path, monkeypatch):
    # F6 writes the whole state; `ivp play|run --snapshot FILE` resume it
    from pyglet.window import key

    from scenes.cli import load_scene
    monkeypatch.chdir(tmp_path)
    demo = list(Recording.load(DEMO))
    w = window(lambda: scenes.load("sample_level"))
    w.session.play(demo)
    for _ in range(90):
        w.tick(1 / 60)
    press(w, key.F6)
    path = tmp_path / "viewer-001.snapshot"
    assert path.exists() and "ivp play --snapshot viewer-001.snapshot" in w.session.message
    for _ in range(60):
        w.tick(1 / 60)
    continued = snapshot.game_hash(w.session.ctx)
    rng.reset()                                     # the file brings its own seed
    scene = load_scene("sample_level", snapshot=str(path))
    assert scene.ctx.time_manager.frame_count == 90
    for f in demo[90:150]:
        run_frame(scene.ctx, f)
    assert snapshot.game_hash(scene.ctx) == continued
    from viewer.cli import main                     # play and render resume it through the same session
    assert main(["render", "sample_level", "--snapshot", str(path), "-o", "shot.png", "--size", "64x48",
                 "--headless"]) == 0 and (tmp_path / "shot.png").exists()


def test_ivp_run_resumes_a_snapshot_and_refuses_what_is_none(tmp_path, capsys):
    import json

    from scenes.cli import load_scene
    from viewer.cli import main
    s = Session(lambda: scenes.load("sample_level"))
    for _ in range(20):
        s.tick(1 / 60)
    path = str(tmp_path / "state.snapshot")
    assert s.save_state(path)
    summary = tmp_path / "s.json"
    assert main(["run", "sample_level", "--snapshot", path, "--seconds", "0.5", "--quiet",
                 "--summary", str(summary)]) == 0
    got = json.loads(summary.read_text())
    scene = load_scene("sample_level", snapshot=path)
    for _ in range(30):                             # no demo input from a snapshot: 30 frames without keys
        scene.ctx.process_frame(1000.0 / 60.0)
    assert got["frames"] == 30
    assert got["simulated_seconds"] == scene.ctx.physics.env.current_time
    assert got["psis"] == scene.ctx.physics.env.psi_count - s.env.psi_count
    capsys.readouterr()
    bad = tmp_path / "bad.snapshot"
    bad.write_text("{}")
    assert main(["run", "sample_level", "--snapshot", str(bad)]) == 1
    assert f"--snapshot {bad}: not an ivp-ballance-snapshot file" in capsys.readouterr().err
    assert main(["run", "sample_level", "--snapshot", path, "--input", DEMO]) == 1
    assert "does not go with --snapshot" in capsys.readouterr().err


def test_without_history_the_keys_do_nothing_and_bad_seconds_are_refused(gl_window, capsys):  # noqa: F811
    from pyglet.window import key

    from viewer.cli import main
    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(ball_scene), width=320, height=240, visible=False, history_s=0.0)
    try:
        for _ in range(10):
            w.tick(1 / 60)
        t = w.session.env.current_time
        for k in (key.BRACKETLEFT, key.COMMA, key.END):
            press(w, k)
        assert w.session.history is None and w.session.env.current_time == t and not w.session.paused
    finally:
        w.close()
    with pytest.raises(SystemExit):
        main(["play", "--history", "-1"])
    assert "--history: expected seconds from 0 to 3600, got '-1'" in capsys.readouterr().err


def test_any_position_is_the_state_the_run_had_there(monkeypatch):
    # snapshots every SNAPSHOT_EVERY steps: going forward past one builds it,
    # going forward with none between replays from the state shown
    monkeypatch.setattr(history, "SNAPSHOT_SHARE", float("inf"))
    s = Session(ball_scene)
    s.keep_history(30.0)
    seen = [snapshot.game_hash(s.ctx)]
    for _ in range(50):
        s.tick(1 / 60)
        seen.append(snapshot.game_hash(s.ctx))
    assert [x.position for x in s.history.snapshots] == [0, 10, 20, 30, 40, 50]
    for position in (3, 47, 25, 27, 0, 50):
        s.go_to(position)
        assert s.history.cursor == position and s.frames == position
        assert snapshot.game_hash(s.ctx) == seen[position], position


def test_a_selection_made_later_than_the_state_shown_is_dropped():
    def load():
        ctx = ball_scene()

        def make_late(c):
            if c.time_manager.frame_count == 5:
                c.create_entity("late", position=(0.0, 1.0, 0.0))
        ctx.add_behavior(make_late, name="late")
        return ctx

    s = Session(load)
    s.keep_history(30.0)
    for _ in range(10):
        s.tick(1 / 60)
    s.selected = s.ctx.get("late")
    s.go_to(8)
    assert s.selected is s.ctx.get("late")
    s.go_to(2)
    assert s.selected is None and "late" not in s.ctx


COUNTER = """\
    from behaviors import Behavior, register


    @register("test.snapshot_counter")
    class Counter(Behavior):
        def on_frame(self, dt):
            self.frames_seen = getattr(self, "frames_seen", 0) + 1
    """


def test_a_snapshot_of_a_scene_with_a_behaviour_file_resumes_with_it(tmp_path, capsys):
    # the file's module (ivp_behaviors_<stem>) is one the snapshot may name
    import textwrap

    from test_scene_cli import DROP

    from behaviors.api import manager_of
    from scenes.cli import load_scene
    from viewer.cli import main
    module = tmp_path / "counter.py"
    module.write_text(textwrap.dedent(COUNTER))
    scene = tmp_path / "counting.yaml"
    scene.write_text(textwrap.dedent(DROP) + "behaviours:\n  - {type: test.snapshot_counter}\n")
    s = Session(lambda: load_scene(str(scene), [str(module)]))
    for _ in range(12):
        s.tick(1 / 60)
    path = str(tmp_path / "counting.snapshot")
    assert s.save_state(path)
    resumed = load_scene(str(scene), [str(module)], snapshot=path)
    counters = [b for b in manager_of(resumed.ctx).behaviors if type(b).__name__ == "Counter"]
    assert [b.frames_seen for b in counters] == [12]
    assert main(["run", str(scene), "--behaviors", str(module), "--snapshot", path, "--quiet"]) == 0
    assert "error" not in capsys.readouterr().err


def test_a_state_a_file_cannot_hold_is_not_saved_and_the_hud_says_why(tmp_path):
    def load():
        ctx = ball_scene()
        ctx.add_behavior(lambda c: None, name="inline")
        return ctx

    s = Session(load)
    path = tmp_path / "no.snapshot"
    assert not s.save_state(str(path))
    assert not path.exists()
    assert s.message.startswith("no snapshot written: snapshot: context") and "lambda" in s.message


def core_states(ctx) -> list:
    """Every movable body's core after its last PSI: pose, speed, angular speed."""
    out = []
    for e in ctx.entities:
        body = ctx.physics.body_of(e)
        if body is not None and not body.core.physical_unmoveable:
            c = body.core
            out.append((e.name, repr(c.m_world_f_core_last_psi), tuple(c.speed), tuple(c.rot_speed)))
    return out


def hud_lines(s) -> list:
    from viewer import hud
    return hud.status_lines(s)


def test_step_back_one_psi_inside_a_frame_is_the_runs_state_there_and_forward_ends_bit_identical(window):
    # issue 43: at time factor 2 a frame of 1/60 s holds 2 or 3 PSIs of 1/66 s;
    # a step back shows the state after all but the last of them
    from pyglet.window import key
    w = window(lambda: scenes.load("sample_level"))
    s = w.session
    s.play(Recording.load(DEMO))
    frames = 90
    for _ in range(frames):
        w.tick(1 / 60)
    live, psis = snapshot.game_hash(s.ctx), s.env.psi_count
    k = s.history.psis_of(frames - 1)
    assert k >= 2 and s.physics.time_factor == 2.0
    press(w, key.COMMA)                             # one PSI back: inside the last frame
    assert (s.history.cursor, s.history.inner) == (frames - 1, k - 1)
    assert s.env.psi_count == psis - 1
    inside = core_states(s.ctx)
    assert any("inside a frame: after" in li for li in hud_lines(s))
    press(w, key.PERIOD)                            # and forward one: the frame's end
    assert (s.history.cursor, s.history.inner) == (frames, 0)
    assert (snapshot.game_hash(s.ctx), s.env.psi_count) == (live, psis)

    # a plain run of the same frames, the cores read at the start of each PSI
    # (the state its previous PSI left) by a PSI listener
    rng.reset()
    ctx = scenes.load("sample_level").ctx
    seen = {}
    ctx.physics.env.psi_listeners.append(lambda env: seen.setdefault(env.psi_count, core_states(ctx)))
    for f in list(Recording.load(DEMO))[:frames]:
        run_frame(ctx, f)
    assert ctx.physics.env.psi_count == psis
    assert inside == seen[psis - 1]                 # the state after PSI number psis - 1


def test_psi_steps_back_walk_every_psi_and_resuming_inside_a_frame_finishes_it_first():
    s = Session(lambda: scenes.load("sample_level"))
    s.keep_history(30.0)
    hashes = {}
    for _ in range(20):
        s.tick(1 / 60)
        hashes[s.env.psi_count] = snapshot.game_hash(s.ctx)
    top = s.env.psi_count
    counts = []
    for _ in range(12):
        s.step_back()
        counts.append(s.env.psi_count)
    assert counts == list(range(top - 1, top - 13, -1))          # each press one PSI earlier
    if s.history.inner == 0:
        s.step_back()
    h = s.history
    assert h.inner > 0
    at, end_of_frame = h.cursor, h.mark(h.cursor + 1).psis
    s.toggle_pause()                                # resume: the frame ends first, then runs on
    assert not s.paused and (h.cursor, h.inner) == (at + 1, 0)
    assert s.env.psi_count == end_of_frame and snapshot.game_hash(s.ctx) == hashes[end_of_frame]
    s.tick(1 / 60)                                  # a branch from the frame's end
    assert h.cursor == h.end == at + 2


def test_the_inside_of_a_frame_is_not_saved_as_a_state(tmp_path):
    s = Session(lambda: scenes.load("sample_level"))
    s.keep_history(30.0)
    for _ in range(5):
        s.tick(1 / 60)
    while s.history.inner == 0:                     # back PSI by PSI to the inside of a frame
        s.step_back()
    path = tmp_path / "inside.snapshot"
    assert not s.save_state(path) and not path.exists()
    assert "inside a frame" in s.message
    s.step()                                        # forward PSI by PSI to the frame's end
    while s.history.inner:
        s.step()
    assert s.save_state(path) and path.exists()


def test_the_size_estimate_of_a_snapshot_is_near_the_memory_it_holds():
    # the ring's bound (MAX_BYTES) is only as good as the estimate: the memory a
    # table takes (tracemalloc around flatten), lists and dicts of atoms held in
    # one record each included (each item a reference to the world's own atom),
    # within a tenth of the estimate
    scene = scenes.load("sample_level")
    headless.run(scene, 0.5)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        table = flatten(scene.ctx)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert any(r[0] == "L" for r in table) and any(r[0] == "D" for r in table)
    assert 0.9 * held < history.estimated_bytes(table) < 1.1 * held
