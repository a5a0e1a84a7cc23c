"""The interactive window: keys reach the behaviours, controls, HUD, help, screenshots.

Most tests drive a hidden window under headless EGL by dispatching pyglet events;
one runs a real window under its own Xvfb in a subprocess.
"""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_viewer_support import ball_scene, gl_window  # noqa: F401

from viewer.session import Session


@pytest.fixture
def window(gl_window):  # noqa: F811
    from viewer.window import ViewerWindow
    windows = []

    def make(load=ball_scene, **kwargs):
        w = ViewerWindow(Session(load), width=320, height=240, visible=False, **kwargs)
        windows.append(w)
        return w
    yield make
    for w in windows:
        w.close()


def press(w, symbol, modifiers=0):
    w.on_key_press(symbol, modifiers)        # the handler pyglet's event loop calls


def release(w, symbol, modifiers=0):
    w.on_key_release(symbol, modifiers)


def test_a_held_key_reaches_the_behaviours(window):
    from pyglet.window import key
    seen = []

    def load():
        ctx = ball_scene()
        ctx.add_behavior(lambda c: seen.append(sorted(c.input_manager.keys_down)), name="watch keys")
        return ctx

    w = window(load)
    press(w, key.UP)
    press(w, key.LSHIFT)
    w.tick(1 / 60)
    release(w, key.UP)
    w.tick(1 / 60)
    assert seen == [["LShift", "Up"], ["LShift"]]


def test_space_pauses_unless_the_gameplay_owns_it(window):
    from pyglet.window import key
    w = window()
    press(w, key.SPACE)
    assert w.session.paused
    press(w, key.SPACE)
    assert not w.session.paused
    g = window(load_owning_space_and_right)
    press(g, key.SPACE)
    assert not g.session.paused
    g.tick(1 / 60)
    assert g.session.keys == {"Space"}       # held for the game
    press(g, key.P)
    assert g.session.paused
    n = g.session.env.psi_count
    press(g, key.RIGHT)                       # the game's: no step
    assert g.session.env.psi_count == n
    press(g, key.PERIOD)
    assert g.session.env.psi_count == n + 1


def load_owning_space_and_right():
    """The ball scene with a behaviour whose keys are Space and Right."""
    from behaviors.api import Behavior, manager_of
    from behaviors.params import Param

    class Jump(Behavior):
        jump_key = Param(str, "Space")
        dash_key = Param(str, "Right")

    ctx = ball_scene()
    manager_of(ctx).attach(Jump(ctx))
    return ctx


def test_help_lists_every_control_the_game_leaves_free():
    from viewer.window import CONTROLS, help_lines
    text = "\n".join(help_lines({"Space"}))
    for c in CONTROLS:
        assert c.label in text
    assert "Space /" not in text and "P  pause" in text.replace(" / ", "/")
    assert "gameplay owns: Space" in text


def test_overlay_and_camera_keys_toggle(window):
    from pyglet.window import key
    w = window()
    press(w, key._3)
    press(w, key._2)
    assert w.scene_view.overlays["spheres"] and w.scene_view.overlays["sleeping"]
    press(w, key._3)
    assert not w.scene_view.overlays["spheres"]
    press(w, key.F1)
    assert w.show_help
    press(w, key.C)
    assert not w.scene_view.use_scene_camera


def test_drawn_frame_has_the_scene_and_the_hud(window):
    w = window()
    w.scene_view.orbit.frame((0.0, 10.0, 0.0), 15.0)      # the ball starts at (0, 10, 0)
    w.tick(1 / 60)
    from viewer.renderer import Offscreen
    target = Offscreen(320, 240)
    target.bind()
    w.on_draw()
    img = target.read()
    # HUD text: near-white pixels on the dark backing in the top-left corner
    corner = img[:60, :200].reshape(-1, 3)
    assert (corner.min(axis=1) > 200).sum() > 50
    # the red ball near the image centre
    r, g, b = (img[100:140, 140:180, i].astype(int) for i in range(3))
    assert ((r > 2 * g) & (r > 2 * b) & (r > 30)).sum() > 50


def test_click_selects_and_ctrl_drag_pulls_the_body_while_the_mouse_drags(window):
    from pyglet.window import key, mouse
    w = window()
    w.scene_view.orbit.frame((0.0, 10.0, 0.0), 15.0)
    w.scene_view.use_scene_camera = False
    w.on_mouse_press(160, 120, mouse.LEFT, 0)
    ball = w.session.ctx.get("ball")
    assert w.session.selected is ball
    body = w.session.body_of(ball)
    w.tick(1 / 60)
    x0 = ball.get_world_matrix().as_array()[3, 0]
    w.on_mouse_press(160, 120, mouse.LEFT, key.MOD_CTRL)
    w.on_mouse_drag(200, 120, 40, 0, mouse.LEFT, key.MOD_CTRL)
    target = w.session.drag.target
    # the target is under the mouse, at the depth of the grabbed point: 40 px right of the centre
    cam = w.scene_view.camera_world()
    grabbed = w.session.drag.point()
    assert (target - cam[3, :3]) @ cam[2, :3] == pytest.approx((grabbed - cam[3, :3]) @ cam[2, :3])
    assert (target - grabbed) @ cam[0, :3] > 1.0
    for _ in range(5):
        w.tick(1 / 60)
    assert body.core.speed[0] > 1.0                       # pulled to the right (+X on screen), each frame
    assert ball.get_world_matrix().as_array()[3, 0] > x0
    segments, _ = w.scene_view.lines()
    assert len(segments) == 4                            # the spring and a cross at its target
    w.on_mouse_release(200, 120, mouse.LEFT, key.MOD_CTRL)
    assert w.session.drag is None


SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from viewer import display
    display.configure(headless=False)
    import pyglet
    from test_viewer_support import ball_scene
    from viewer.session import Session
    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(ball_scene), width=400, height=300)
    frames = []
    def done(dt):
        w.tick(1 / 60)
        w.on_draw()
        frames.append(1)
        if len(frames) == 5:
            print("shot", w.screenshot(), w.session.env.current_time > 0.0)
            pyglet.app.exit()
    pyglet.clock.schedule_interval(done, 0.02)
    pyglet.app.run()
""")


def test_a_real_window_opens_and_draws_under_xvfb(tmp_path):
    tests = os.path.dirname(os.path.abspath(__file__))
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    xvfb_run = shutil.which("xvfb-run")
    assert xvfb_run, "xvfb-run is installed by .ci/run"
    out = subprocess.run([xvfb_run, "-a", "-s", "-screen 0 1024x768x24", sys.executable, "-c",
                          SCRIPT.format(tests=tests)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "shot viewer-001.png True" in out.stdout
    from pyglet.image.codecs.png import PNGImageDecoder
    path = tmp_path / "viewer-001.png"
    with open(path, "rb") as fh:
        image = PNGImageDecoder().decode(str(path), fh)
    raw = np.frombuffer(image.get_image_data().get_data("RGB", image.width * 3), np.uint8)
    assert image.width == 400 and len(np.unique(raw.reshape(-1, 3), axis=0)) > 20
