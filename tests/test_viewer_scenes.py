"""The viewer on the bundled scenes: the default level (scenes.DEFAULT_SCENE) and
the 1000-ball stress scene, drawn under headless EGL; `ivp play`, `ivp render`
and the scenes layer's subcommands on the `ivp` command line."""

import math

import numpy as np
import pytest
from test_viewer_cli import read_png
from test_viewer_support import gl_window  # noqa: F401

import scenes
from viewer.camera import look_at
from viewer.cli import main
from viewer.session import Session

W, H = 320, 240
LEVEL = scenes.DEFAULT_SCENE


def project(cam, point, w=W, h=H):
    """The pixel (x right, y down) of a world point seen by a camera whose matrix
    rows are its right, up and viewing axes and its position (VxMatrix), through
    the lens of glue-and-content 3: 58 degrees across at 4:3."""
    rel = np.asarray(point, dtype=np.float64) - cam[3, :3]
    x, y, z = rel @ cam[0, :3], rel @ cam[1, :3], rel @ cam[2, :3]
    t = math.tan(math.radians(29.0))
    return w / 2 + x / z / t * w / 2, h / 2 - y / z / (t * 0.75) * h / 2


def brown_mask(img) -> np.ndarray:
    """Pixels of the wood colour #9a6a3a (154, 106, 58) in any light; the level's
    grey floors (#8c8577) and the sky are not."""
    r, g, b = (img[..., i].astype(int) for i in range(3))
    return (r > 40) & (r > g) & (g > b) & (r > 1.6 * b)


@pytest.fixture
def capture(gl_window):  # noqa: F811
    from viewer.capture import Capture
    made = []

    def make(name, size=(W, H)):
        made.append(Capture(Session(lambda: scenes.load(name)), size=size))
        return made[-1]
    yield make
    for c in made:
        c.close()


def test_the_default_level_draws_the_ball_where_its_position_projects(capture):
    cap = capture(LEVEL)
    cap.run_until(0.5)
    img = cap.image()
    ctx = cap.session.ctx
    from behaviors.ballance import camera_of
    cam = np.asarray(camera_of(ctx).eye_entity.get_world_matrix().as_array(), dtype=np.float64)
    assert np.allclose(cap.view.camera_world(), cam)            # the Ballance rig's eye
    assert np.allclose(cam[:3, :3] @ cam[:3, :3].T, np.identity(3), atol=1e-5)
    ball = ctx.get("Ball_Wood").get_world_matrix().as_array()[3, :3]
    # the rig looks at the ball; seen from beside the start ramp (the bridge's
    # planks, also brown, behind the eye) it is off the centre
    side = look_at((20.0, 18.0, 15.0), (-4.0, 2.0, -30.0))
    cap.view.scene_camera = lambda session: side
    for cam_of_image, image in ((cam, img), (side, cap.image())):
        ex, ey = project(cam_of_image, ball)
        ys, xs = np.nonzero(brown_mask(image))
        assert len(xs) > 100
        assert abs(xs.mean() + 0.5 - ex) < 1.5 and abs(ys.mean() + 0.5 - ey) < 1.5
    assert ex - W / 2 > 20
    # not blank: the scene's sky, the floors and shading
    sky = np.round(np.array(scenes.load(LEVEL).settings["background"][:3]) * 255)
    is_sky = np.all(np.abs(img.astype(int) - sky) <= 1, axis=2)
    assert 0.05 < is_sky.mean() < 0.95
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 100


def test_the_default_level_is_lit_by_its_own_lights(capture):
    cap = capture(LEVEL)
    cap.image()
    lights = cap.renderer.lighting
    d = np.array([0.3, -1.0, 0.5])                              # sample_level.yaml
    assert lights.ambient == pytest.approx((0.35, 0.35, 0.4))
    assert len(lights.directional) == 1 and not lights.points
    assert np.allclose(lights.directional[0][0], -d / np.linalg.norm(d))


def wood_ball_after(up: bool, frames: int = 30, press_at: int = 10):
    """The default level in a hidden window, Up pressed after `press_at` frames
    when `up`; the wood ball's core and the PSIs run since the press."""
    from pyglet.window import key

    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(lambda: scenes.load(LEVEL)), width=W, height=H, visible=False)
    try:
        for _ in range(press_at):
            w.tick(1 / 60)
        psis = w.session.env.psi_count
        if up:
            w.on_key_press(key.UP, 0)
        for _ in range(frames - press_at):
            w.tick(1 / 60)
        assert not w.session.paused
        core = w.session.body_of(w.session.ctx.get("Ball_Wood")).core
        return core, w.session.env.psi_count - psis
    finally:
        w.close()


def test_up_in_the_window_reaches_the_navigation_and_rolls_the_ball_faster(gl_window):  # noqa: F811
    # glue-and-content 3: Up pushes the wood ball (mass 1.9) by 0.43 per PSI along
    # the camera's +Z. The start ramp falls 6 over 16 along +Z, so the ball rolls
    # down it by itself; the push adds along the slope 0.43 cos(atan(6/16)) per PSI,
    # divided by 1.4 m for a rolling ball (I = 2/5 m r^2) and less with damping,
    # and never more than 0.43 / 1.9 per PSI (sliding, undamped)
    free, _ = wood_ball_after(up=False)
    pushed, psis = wood_ball_after(up=True)
    slope = np.array([0.0, -6.0, 16.0]) / math.hypot(6.0, 16.0)
    gain = (np.asarray(pushed.speed) - np.asarray(free.speed)) @ slope
    rolling = psis * 0.43 * (16.0 / math.hypot(6.0, 16.0)) / (1.4 * 1.9)
    assert 0.5 * rolling < gain < psis * 0.43 / 1.9
    assert abs(pushed.speed[0]) < 1e-6                           # straight ahead


def test_pause_stops_the_default_levels_simulation_clock(gl_window):  # noqa: F811
    from pyglet.window import key

    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(lambda: scenes.load(LEVEL)), width=W, height=H, visible=False)
    ball = w.session.ctx.get("Ball_Wood")
    for _ in range(10):
        w.tick(1 / 60)
    w.on_key_press(key.P, 0)                  # Space belongs to the level's camera: P pauses
    t, psis = w.session.env.current_time, w.session.env.psi_count
    pose = ball.get_world_matrix().as_array().copy()
    for _ in range(10):
        w.tick(1 / 60)
    assert (w.session.env.current_time, w.session.env.psi_count) == (t, psis)
    assert np.array_equal(ball.get_world_matrix().as_array(), pose)
    w.on_key_press(key.P, 0)
    w.tick(1 / 60)
    assert w.session.env.current_time > t
    w.close()


def test_ivp_render_draws_the_1000_ball_stress_scene_by_its_bundled_name(gl_window, tmp_path,  # noqa: F811
                                                                          capsys):
    out = tmp_path / "stress.png"
    assert main(["render", "stress/floor_1000", "-o", str(out), "--size", f"{W}x{H}", "--headless"]) == 0
    img = read_png(out)
    settings = scenes.load("stress/floor_1000").settings["camera"]
    cam = look_at(settings["position"], settings["target"])
    # balls of the grid's first and last rows (stress/floor_1000.yaml: x -58.5 .. 58.5
    # in steps of 3, z -36 .. 36, y 1.5), three columns in from the sides (the near
    # corners are at the image's edges)
    for x in (-52.5, 52.5):
        for z in (-36.0, 36.0):
            px, py = project(cam, (x, 1.5, z))
            patch = img[int(py) - 1:int(py) + 2, int(px) - 1:int(px) + 2]
            assert brown_mask(patch).any(), (x, z)
    px, py = project(cam, (0.0, 0.0, -45.0))                   # floor between the grid and its edge
    assert not brown_mask(img[int(py) - 1:int(py) + 2, int(px) - 1:int(px) + 2]).any()
    assert brown_mask(img).mean() > 0.1


def test_the_stress_scene_is_two_draw_calls(capture):
    cap = capture("stress/floor_1000", size=(64, 48))
    cap.image()
    assert cap.renderer.draw_calls == 2                         # the floor, and 1000 instanced balls


def test_ivp_render_takes_a_scene_file_path(gl_window, tmp_path):  # noqa: F811
    from scenes.document import bundled_path
    out = tmp_path / "ball.png"
    assert main(["render", bundled_path("ball_wood"), "-o", str(out), "--size", "64x48", "--headless"]) == 0
    assert len(np.unique(read_png(out).reshape(-1, 3), axis=0)) > 10


def test_ivp_play_without_a_scene_opens_the_default_level(gl_window, monkeypatch):  # noqa: F811
    import pyglet

    from viewer import display, window
    opened = []

    class Recorded(window.ViewerWindow):
        def __init__(self, session, *args, **kwargs):
            super().__init__(session, *args, visible=False, **kwargs)
            opened.append(self)

    monkeypatch.setattr(display, "has_display", lambda: True)
    monkeypatch.setattr(display, "configure", lambda headless=None: True)    # EGL is already loaded
    monkeypatch.setattr(window, "ViewerWindow", Recorded)
    monkeypatch.setattr(pyglet.app, "run", lambda *args, **kwargs: None)
    assert main(["play", "--size", "160x120", "--samples", "0", "--paused"]) == 0
    (w,) = opened
    assert w.session.scene.path == scenes.load(LEVEL).path and w.session.title == "Sample level"
    assert w.session.paused
    w.close()


def test_ivp_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    for command in ("play", "render", "run", "check"):
        assert f"    {command} " in text


def test_ivp_check_comes_from_the_scenes_layer(capsys):
    assert main(["check", "ball_wood"]) == 0
    assert "OK, scene" in capsys.readouterr().out


def test_a_render_at_time_0_shows_the_first_frame_with_one_player_ball(capture):
    # before its first frame the player rig's three balls sit together at the
    # origin; the first frame's behaviours keep the wood ball only (ball_wood.yaml)
    cap = capture("ball_wood", size=(64, 48))
    cap.run_until(0.0)
    assert cap.session.frames == 1
    shown = [e.name for e in cap.session.ctx.entities if e.name.startswith("Ball_") and e.visible]
    assert shown == ["Ball_Wood"]
