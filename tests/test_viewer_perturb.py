"""Perturbing bodies with the mouse (issue 43): Ctrl + right drag turns a body
with an angular spring and no net force, a pull or a twist acts in single
steps while paused (and the history replays it), and a camera that tracks
the selected body."""

import math

import numpy as np
import pytest
from test_viewer_support import ball_scene, gl_window  # noqa: F401

from bbglue import snapshot
from viewer.perturb import core_rotation, rotation, rotation_vector
from viewer.session import Session


def centre(s):
    return np.asarray(s.ctx.get("ball").get_world_matrix().as_array()[3, :3], dtype=np.float64)


def test_rotation_vector_inverts_rotation():
    for axis, angle in (((0.0, 1.0, 0.0), 0.7), ((0.6, 0.0, 0.8), 2.5), ((0.0, 0.0, 1.0), math.pi)):
        v = rotation_vector(rotation(np.array(axis), angle))
        assert np.linalg.norm(v) == pytest.approx(angle)
        assert abs(np.dot(v / angle, axis)) == pytest.approx(1.0)


def test_a_twist_turns_the_body_to_its_target_and_leaves_its_centre_alone():
    free = Session(ball_scene)
    s = Session(ball_scene)
    ball = s.ctx.get("ball")
    assert s.start_twist(ball)
    s.drag.turn((0.0, 1.0, 0.0), math.radians(90.0))
    target = s.drag.target.copy()
    for _ in range(120):                    # 2 s: omega 6 /s, critically damped, has settled
        s.tick(1 / 60)
        free.tick(1 / 60)
    core = s.body_of(ball).core
    left = math.degrees(np.linalg.norm(rotation_vector(target @ core_rotation(core).T)))
    assert left < 2.0                       # within 2 degrees of the 90 degree turn
    assert np.allclose(centre(s), centre(free), atol=1e-3)     # a couple: the fall goes on as without it


def test_a_pull_acts_in_single_steps_while_paused_and_the_history_replays_it():
    s = Session(ball_scene)
    s.keep_history(30.0)
    s.toggle_pause()
    assert s.start_drag(s.ctx.get("ball"), centre(s))
    s.drag.target = centre(s) + (3.0, 0.0, 0.0)
    start = snapshot.game_hash(s.ctx)
    for _ in range(20):
        s.step()
    assert s.paused and s.frames == 0
    assert centre(s)[0] > 1e-3              # pulled toward +X while paused
    pulled = snapshot.game_hash(s.ctx)
    s.end_drag()
    for _ in range(20):
        s.step_back()
    assert snapshot.game_hash(s.ctx) == start
    s.go_to(s.history.end)
    assert snapshot.game_hash(s.ctx) == pulled
    alone = Session(ball_scene)
    alone.toggle_pause()
    for _ in range(20):
        alone.step()
    assert centre(alone)[0] == 0.0          # without the pull it only falls


def test_ctrl_right_drag_turns_the_target_about_the_camera_axes(gl_window):  # noqa: F811
    from pyglet.window import key, mouse

    from viewer.window import TWIST_PER_PIXEL, ViewerWindow
    w = ViewerWindow(Session(ball_scene), width=320, height=240, visible=False)
    try:
        s = w.session
        assert s.start_twist(s.ctx.get("ball"))
        before = s.drag.target.copy()
        w.on_mouse_drag(100, 100, 50, 0, mouse.RIGHT, key.MOD_CTRL)
        turned = rotation_vector(s.drag.target @ before.T)
        up = w.scene_view.camera_world()[1, :3]
        assert np.allclose(turned, -50 * TWIST_PER_PIXEL * up / np.linalg.norm(up))
        w.on_mouse_release(100, 100, mouse.RIGHT, key.MOD_CTRL)
        assert s.drag is None
    finally:
        w.close()


def test_the_camera_tracks_the_selected_body(gl_window):  # noqa: F811
    from pyglet.window import key

    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(ball_scene), width=320, height=240, visible=False)
    try:
        s, v = w.session, w.scene_view
        s.selected = s.ctx.get("ball")
        w.on_key_press(key.T, 0)
        assert v.track
        for _ in range(30):
            w.tick(1 / 60)
        eye = v.camera_world()
        p = centre(s)
        assert p[1] < 10.0 - 0.5            # it fell
        assert np.allclose(eye[3, :3], p - v.orbit.distance * v.orbit.direction())
        assert np.allclose(eye[2, :3] / np.linalg.norm(eye[2, :3]), (p - eye[3, :3]) / v.orbit.distance)
    finally:
        w.close()
