"""The viewer's frame loop and controls on a real CKContext, without a window."""

import numpy as np
import pytest
from test_viewer_support import ball_scene

from viewer import hud
from viewer.picking import pick
from viewer.session import STALL_MS, FrameClock, Session


def test_a_frame_advances_the_clock_by_the_smoothed_delta():
    # glue-and-content 1: smoothed = (20 + 3 * 0) / 4 = 5 ms, dt = 5 ms x time factor 1
    s = Session(ball_scene)
    s.tick(0.020)
    assert s.env.current_time == pytest.approx(0.005)


def test_stall_guard_discards_a_long_gap():
    # frame 1: 16 ms -> smoothed 4; a 5 s stall counts as the previous 16 ms:
    # smoothed (16 + 12) / 4 = 7 -> 11 ms of simulated time in all
    s = Session(ball_scene)
    s.tick(0.016)
    s.tick(5.0)
    assert s.env.current_time == pytest.approx(0.011)
    assert s.clock.stalls == 1


def test_frame_clock_passes_normal_frames_and_rejects_bad_ones():
    clock = FrameClock()
    assert clock.frame_ms(STALL_MS / 1000.0) == pytest.approx(STALL_MS)
    with pytest.raises(ValueError, match="frame clock"):
        clock.frame_ms(float("nan"))


def test_pause_stops_the_whole_frame_clock_and_resume_goes_on_from_there():
    # issue 13, defect 2: no frame runs while paused, so the time manager, the
    # behaviours (and their timers) and the physics all stand still
    seen = []

    def load():
        ctx = ball_scene()
        ctx.add_behavior(lambda c: seen.append(c.time_manager.absolute_time_ms), name="clock")
        return ctx

    s = Session(load)
    s.physics.time_factor = 2.0
    for _ in range(5):
        s.tick(1 / 60)
    ball = s.ctx.get("ball")
    tm = s.ctx.time_manager
    t, psis, frames, clock = s.env.current_time, s.env.psi_count, tm.frame_count, tm.absolute_time_ms
    y = ball.get_world_matrix().as_array()[3, 1]
    s.toggle_pause()
    for _ in range(10):
        s.tick(1 / 60)
    assert (tm.frame_count, tm.absolute_time_ms, len(seen)) == (frames, clock, 5)
    assert (s.env.current_time, s.env.psi_count) == (t, psis)
    assert ball.get_world_matrix().as_array()[3, 1] == y
    s.toggle_pause()
    assert s.physics.time_factor == 2.0
    s.tick(1 / 60)
    assert s.env.current_time > t and len(seen) == 6
    assert tm.absolute_time_ms == pytest.approx(clock + 1000 / 60)


def test_a_behaviour_timer_does_not_run_down_while_paused():
    # a countdown as Ballance's points counter: one point off every 0.5 s of frame time
    from behaviors.api import Behavior, manager_of

    class Countdown(Behavior):
        def on_start(self):
            self.points = 1000
            self.every(0.5, self.tick_down)

        def tick_down(self):
            self.points -= 1

    counters = []

    def load():
        ctx = ball_scene()
        counters.append(Countdown(ctx))
        manager_of(ctx).attach(counters[-1])
        return ctx

    s = Session(load)
    for _ in range(70):                 # 1.17 s: two points off (at about 0.5 and 1 s)
        s.tick(1 / 60)
    assert counters[0].points == 998
    s.toggle_pause()
    for _ in range(600):                # 10 s of wall time paused
        s.tick(1 / 60)
    assert counters[0].points == 998


def test_step_runs_exactly_one_psi_and_pauses():
    s = Session(ball_scene)
    for _ in range(3):
        s.tick(1 / 60)
    n = s.env.psi_count
    y = s.ctx.get("ball").get_world_matrix().as_array()[3, 1]
    s.step()
    assert s.paused and s.env.psi_count == n + 1
    assert s.ctx.get("ball").get_world_matrix().as_array()[3, 1] < y      # written back: it fell
    s.step()
    assert s.env.psi_count == n + 2


def test_slow_motion_and_fast_forward_halve_and_double_the_time_factor():
    s = Session(ball_scene)
    s.change_speed(-1)
    assert s.physics.time_factor == 0.5 and s.speed == 0.5
    s.toggle_pause()
    s.change_speed(+1)
    s.change_speed(+1)
    s.toggle_pause()
    assert s.physics.time_factor == 2.0
    for _ in range(10):
        s.change_speed(+1)
    assert s.speed == 8.0 and s.physics.time_factor == 8.0


def test_restart_loads_a_fresh_scene():
    s = Session(ball_scene)
    for _ in range(10):
        s.tick(1 / 60)
    old = s.ctx
    assert s.restart()
    assert s.ctx is not old and s.env.current_time == 0.0 and s.env.psi_count == 0


def test_a_restart_ends_a_scripted_input(tmp_path):
    from behaviors.recording import Recording
    s = Session(ball_scene)
    s.play(Recording([(25.0, ["Up"])] * 3))
    assert s.tick(1 / 60) == 25.0 and s.keys == {"Up"}
    s.restart()
    s.keys = frozenset()
    assert s.tick(0.02) == pytest.approx(20.0) and s.ctx.input_manager.keys_down == frozenset()


def test_a_failing_reload_keeps_the_running_scene(tmp_path):
    scene_file = tmp_path / "scene.yaml"
    scene_file.write_text("v1")
    broken = []

    def load():
        if broken:
            raise ValueError("scene.yaml:3: bad mass")
        return ball_scene()

    s = Session(load, watch=[scene_file])
    s.tick(1 / 60)
    ctx = s.ctx
    assert not s.reload_if_changed()
    broken.append(True)
    scene_file.write_text("v2 with an error")
    assert not s.reload_if_changed()
    assert s.ctx is ctx and "scene.yaml:3: bad mass" in s.error
    s.tick(1 / 60)                               # still running
    broken.clear()
    scene_file.write_text("v3 fixed")
    assert s.reload_if_changed()
    assert s.ctx is not ctx and s.error is None


def test_a_raising_behaviour_is_reported_and_the_frame_goes_on():
    def load():
        ctx = ball_scene()
        ctx.add_behavior(lambda c: 1 / 0, name="divide")
        return ctx

    s = Session(load)
    s.tick(1 / 60)
    assert s.env.current_time > 0.0
    lines = hud.status_lines(s, 60.0, 1.0)
    assert any("divide" in line and "ZeroDivisionError" in line for line in lines)


def test_status_lines_show_time_factor_psis_and_bodies():
    s = Session(ball_scene)
    s.tick(1 / 60)
    text = "\n".join(hud.status_lines(s, 59.0, 2.0))
    assert "time factor 1" in text and "bodies awake 1 / 1" in text and "59.0 fps" in text
    s.toggle_pause()
    assert "PAUSED" in "\n".join(hud.status_lines(s, 59.0, 2.0))


def test_selection_panel_shows_the_body_state():
    s = Session(ball_scene)
    for _ in range(30):
        s.tick(1 / 60)
    ball = s.ctx.get("ball")
    text = "\n".join(hud.selection_lines(s, ball))
    vy = s.body_of(ball).core.speed[1]
    assert vy < 0.0 and f"{vy:8.3f}" in text
    assert "state    moving" in text and "sim unit active #0: 1 core(s)" in text
    assert "friction 0.8  elasticity 0.2" in text
    assert "not physicalized" in "\n".join(hud.selection_lines(s, s.ctx.get("floor")))


def test_picking_finds_the_nearest_entity_along_the_ray():
    ctx = ball_scene()
    ball, floor = ctx.get("ball"), ctx.get("floor")
    centre = ball.get_world_matrix().as_array()[3, :3].astype(float)
    eye = centre + (0.0, 0.0, -30.0)
    hit = pick(ctx.entities, eye, np.array([0.0, 0.0, 1.0]))
    assert hit[0] is ball and np.allclose(hit[1], centre - (0.0, 0.0, 2.0), atol=0.05)
    hit = pick(ctx.entities, (0.0, 50.0, 0.0), np.array([0.0, -1.0, 0.0]))   # straight down: ball above floor
    assert hit[0] is ball
    hit = pick(ctx.entities, (15.0, 50.0, 0.0), np.array([0.0, -1.0, 0.0]))
    assert hit[0] is floor and hit[1][1] == pytest.approx(0.0)
    assert pick(ctx.entities, (0.0, 50.0, 0.0), np.array([0.0, 1.0, 0.0])) is None


def held_ball(frames: int):
    """The ball scene's ball held at its centre by the mouse spring, its target
    moved 5 to the right, after `frames` frames of 1/60 s."""
    s = Session(ball_scene)
    s.tick(1 / 60)
    ball = s.ctx.get("ball")
    centre = ball.get_world_matrix().as_array()[3, :3].astype(float)
    assert s.start_drag(ball, centre)
    s.drag.target = centre + (5.0, 0.0, 0.0)
    for _ in range(frames):
        s.tick(1 / 60)
    return s, ball, centre


def test_a_held_body_hangs_below_the_target_by_gravity_over_omega_squared():
    # a spring of angular frequency omega holding a point mass against gravity g
    # rests g / omega^2 below its target (g = 9.81, the context's default)
    from viewer.session import DRAG_OMEGA
    s, ball, start = held_ball(150)
    x, y, _ = ball.get_world_matrix().as_array()[3, :3]
    assert x == pytest.approx(start[0] + 5.0, abs=0.01)
    assert y == pytest.approx(start[1] - 9.81 / DRAG_OMEGA ** 2, abs=0.005)
    s.end_drag()
    for _ in range(10):
        s.tick(1 / 60)
    assert ball.get_world_matrix().as_array()[3, 1] < y - 0.1           # let go: it falls


def test_no_pull_while_paused():
    s, ball, _ = held_ball(3)
    s.toggle_pause()
    s.tick(1 / 60)
    s.toggle_pause()
    body = s.body_of(ball)
    assert body.core.speed_change == (0.0, 0.0, 0.0)         # nothing queued for the next PSI


def test_dragging_wakes_a_frozen_body_through_the_glue_and_fixed_bodies_stay():
    from bbglue import CKContext, meshes
    from bbglue.blocks import Physicalize
    from ivp import MT_NOT_SIM

    def load():
        ctx = CKContext()
        crate = ctx.create_entity("crate", meshes.box(2.0, 2.0, 2.0), position=(0.0, 5.0, 0.0))
        Physicalize(crate, mass=1.0, start_frozen=True).trigger()
        wall = ctx.create_entity("wall", meshes.box(2.0, 2.0, 2.0), position=(10.0, 5.0, 0.0))
        Physicalize(wall, fixed=True).trigger()
        return ctx

    s = Session(load)
    s.tick(1 / 60)
    crate = s.ctx.get("crate")
    body = s.body_of(crate)
    assert body.core.movement_state == MT_NOT_SIM
    assert not s.start_drag(s.ctx.get("wall"), (10.0, 6.0, 0.0))
    assert s.start_drag(crate, (1.0, 6.0, 0.0))              # a corner: it also turns
    s.drag.target = np.array([1.0, 9.0, 0.0])
    for _ in range(3):
        s.tick(1 / 60)
    assert body.core.movement_state != MT_NOT_SIM
    assert crate.get_world_matrix().as_array()[3, 1] > 5.0
    assert body.core.rot_speed != (0.0, 0.0, 0.0)


def test_a_recording_made_in_the_viewer_replays_exactly_with_ivp_run(tmp_path):
    # issue 13, defect 7: frame times of a real (uneven) clock, keys, a pause
    # in the middle (not recorded); `ivp run --input` gives the same state to the last bit
    import json

    import scenes
    from scenes.headless import body_pose
    from viewer.cli import main
    rec, traj = tmp_path / "run.jsonl", tmp_path / "replay.jsonl"
    s = Session(lambda: scenes.load("ball_wood"))
    s.start_recording(rec)
    for i in range(90):
        s.keys = frozenset({"Up"} if 20 <= i < 70 else ())
        if i == 40:
            s.toggle_pause()
        if i == 50:
            s.toggle_pause()
        s.tick((12.0 + i % 7) / 1000.0)
    s.stop_recording()
    assert s.message == f"recorded 80 frames to {rec}"
    body = s.body_of(s.ctx.get("Ball_Wood"))
    assert main(["run", "ball_wood", "--quiet", "--input", str(rec), "--trajectory", str(traj)]) == 0
    last = [json.loads(line) for line in traj.read_text().splitlines()][-1]
    p, q = body_pose(body, s.env.current_time)
    assert (last["frame"], last["time"]) == (79, s.env.current_time)
    assert [last[k] for k in ("x", "y", "z", "qx", "qy", "qz", "qw")] == [*p, *q]


def test_recording_starts_at_the_first_frame_and_ends_on_what_it_cannot_hold(tmp_path):
    from behaviors.recording import Recording
    s = Session(ball_scene)
    for _ in range(5):
        s.tick(1 / 60)
    old = s.ctx
    s.toggle_recording(tmp_path / "a.jsonl")            # F9 after frames have run: the scene restarts
    assert s.ctx is not old and s.frames == 0 and s.recorder is not None
    s.tick(1 / 60)
    s.step()
    assert s.recorder is None and s.message.endswith("(stopped: a single step is not a frame)")
    assert len(Recording.load(tmp_path / "a.jsonl")) == 1
    s.toggle_pause()
    s.start_recording(tmp_path / "b.jsonl")
    s.tick(1 / 60)
    s.change_speed(+1)
    assert s.recorder is None and "time factor" in s.message


def test_a_behaviour_error_is_logged_once_then_its_traceback(caplog):
    # issue 43, defect 6: the viewer's stderr (the "bbglue" log) had the frame twice
    # and a stray ": RuntimeError: boom" line after the traceback
    import logging

    from behaviors import Behavior, register
    from behaviors.api import manager_of

    @register("test.viewer_log_raiser")
    class Raiser(Behavior):
        def on_frame(self, dt):
            raise RuntimeError("boom")

    def load():
        ctx = ball_scene()
        manager_of(ctx).attach(Raiser(ctx))
        return ctx

    s = Session(load)
    with caplog.at_level(logging.WARNING, logger="bbglue"):
        s.tick(1 / 60)
    (record,) = caplog.records
    text = logging.Formatter().format(record).splitlines()
    assert text[0] == "frame 1: behaviour 'test.viewer_log_raiser' on the scene, in on_frame: RuntimeError: boom"
    assert text[1] == "Traceback (most recent call last):" and text[-1] == "RuntimeError: boom"
    assert [line for line in text if line.startswith(("frame", "RuntimeError", ":"))] == [text[0], text[-1]]
