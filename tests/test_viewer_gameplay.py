"""The viewer and Ballance's behaviours: owned keys, the camera rig, the HUD line."""

import numpy as np
from test_viewer_support import ball_scene, ballance_scene, gl_window  # noqa: F401

from bbglue import CKContext
from behaviors import Behavior, manager_of
from scenes.headless import declared_keys as game_keys
from viewer.gameplay import game_line, rig_camera
from viewer.session import Session


def test_the_navigation_and_camera_keys_belong_to_the_game():
    # glue-and-content 3: arrows push the ball, Left Shift turns, Space raises the camera
    assert game_keys(ballance_scene()) == {"Up", "Down", "Left", "Right", "LShift", "Space"}
    plain = ball_scene()
    assert game_keys(plain) == frozenset()
    from behaviors.api import manager_of
    assert manager_of(plain, create=False) is None             # looking added no behaviour manager


def test_the_rig_camera_sits_in_its_slot_and_looks_at_the_ball():
    ctx = ballance_scene()
    assert rig_camera(ctx) is None                  # before the first frame: no ball yet
    ctx.process_frame(16.0)
    m = rig_camera(ctx)
    ball = np.asarray(ctx.get("Ball_Wood").get_position())
    # the eye starts in its slot: 35 up and 22 behind (-Z at yaw 0) of the ball
    assert np.allclose(m[3, :3], ball + (0.0, 35.0, -22.0), atol=0.1)
    to_ball = (ball - m[3, :3]) / np.linalg.norm(ball - m[3, :3])
    assert np.allclose(m[2, :3], to_ball, atol=1e-3)        # looking along its Z at the ball
    assert rig_camera(ball_scene()) is None


def test_hud_line_has_level_score_and_lives():
    ctx = ballance_scene()
    ctx.process_frame(16.0)
    line = game_line(ctx)
    # glue-and-content 3: the score starts at 1000 with 3 spare lives
    assert "level 1" in line and "score 1000" in line and "lives 3" in line and "ball wood" in line
    assert game_line(ball_scene()) == ""


def test_hud_line_shows_floats_with_two_decimals():
    class Fading(Behavior):
        def hud_fields(self):
            return {"fade": 0.04612527465820193, "score": 1000, "final": None, "alpha": 1.0}

    ctx = CKContext()
    manager_of(ctx).attach(Fading(ctx, None))
    ctx.process_frame(16.0)
    assert game_line(ctx) == "fade 0.05   score 1000   alpha 1.00"


def test_a_key_press_in_the_window_rolls_the_ball(gl_window):  # noqa: F811
    from pyglet.window import key

    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(ballance_scene), width=320, height=240, visible=False)
    w.tick(1 / 60)
    body = w.session.body_of(w.session.ctx.get("Ball_Wood"))
    assert body.core.speed[2] == 0.0
    w.on_key_press(key.UP, 0)
    w.on_key_press(key.SPACE, 0)               # the game's: raises the camera, does not pause
    for _ in range(10):
        w.tick(1 / 60)
    assert not w.session.paused
    assert body.core.speed[2] > 0.1            # Up pushes along the camera's +Z
    assert np.allclose(w.scene_view.camera_world(), rig_camera(w.session.ctx))
    w.close()


def test_pause_key_stops_the_ballance_clock(gl_window):  # noqa: F811
    from pyglet.window import key

    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(ballance_scene), width=320, height=240, visible=False)
    w.tick(1 / 60)
    w.on_key_press(key.P, 0)
    t, frames = w.session.env.current_time, w.session.ctx.time_manager.frame_count
    for _ in range(5):
        w.tick(1 / 60)
    assert w.session.env.current_time == t and w.session.ctx.time_manager.frame_count == frames
    w.close()


class LoadedScene:
    """What scenes.load returns, as far as the viewer reads it."""

    def __init__(self, ctx, settings):
        self.ctx, self.settings, self.name, self.files = ctx, settings, "test scene", []


def test_the_file_camera_lens_and_background_are_used():
    camera = {"position": (0.0, 20.0, -30.0), "target": "ball", "fov_deg": 70.0, "near": 1.0, "far": 500.0}
    s = Session(lambda: LoadedScene(ball_scene(), {"camera": camera, "background": (0.1, 0.2, 0.3, 1.0)}))
    from viewer.gameplay import scene_camera, scene_look
    m = scene_camera(s)
    assert np.allclose(m[3, :3], (0.0, 20.0, -30.0))
    to_ball = np.array([0.0, 10.0, 0.0]) - m[3, :3]
    assert np.allclose(m[2, :3], to_ball / np.linalg.norm(to_ball))
    sky, lens, _ = scene_look(s)
    assert sky == (0.1, 0.2, 0.3) and (lens.fov_h_deg, lens.near, lens.far) == (70.0, 1.0, 500.0)
    plain = Session(ball_scene)
    assert scene_camera(plain) is None
    assert scene_look(plain)[1].fov_h_deg == 58.0      # glue-and-content 3
