"""The plot panel (issue 43, viewer/plots.py): a plot's samples are the
quantities a headless run computes for the same frames, and F3 draws them."""

import math

import numpy as np
from test_viewer_support import ball_scene, gl_window  # noqa: F401

from scenes.headless import body_energy
from viewer.session import Session

FRAMES = 45


def headless_values():
    """Speed, height, energy of the ball and PSIs per frame of a plain run of
    the ball scene (no viewer): the same 1/60 s frames, no keys."""
    ctx = ball_scene()
    ball = ctx.get("ball")
    body = ctx.physics.body_of(ball)
    out = []
    for _ in range(FRAMES):
        ctx.process_frame(1 / 60 * 1000.0)
        env = ctx.physics.env
        out.append((math.sqrt(sum(v * v for v in body.core.speed)), float(ball.get_world_matrix().as_array()[3, 1]),
                    body_energy(env, body), float(ctx.physics.frame_psis)))
    return out


def test_the_plots_sample_what_a_headless_run_computes(gl_window, tmp_path):  # noqa: F811
    from pyglet.window import key

    from viewer import png
    from viewer.plots import QUANTITIES
    from viewer.window import ViewerWindow
    w = ViewerWindow(Session(ball_scene), width=640, height=480, visible=False)
    try:
        w.session.selected = w.session.ctx.get("ball")
        w.on_key_press(key.F3, 0)
        draws = []
        for _ in range(FRAMES):
            w.tick(1 / 60)
            w.on_draw()
            draws.append(w.draw_ms)
        names = [q[0] for q in QUANTITIES]
        s = w.plot_samples
        expected = headless_values()
        for i, name in enumerate(("speed", "height", "energy", "PSIs")):
            assert s.series(names.index(name)) == [e[i] for e in expected], name
        assert s.series(names.index("height"))[-1] < 10.0 - 1.0     # it fell (from 10, gravity 20 m/s^2)
        assert all(ms > 0.0 for ms in s.series(names.index("sim")))
        assert s.series(names.index("draw")) == [0.0] + draws[:-1]    # the drawing before each frame
        img = w.image()
        png.write(tmp_path / "plots.png", img)
        x, y, pw, ph = (int(v) for v in w.plots.rect())
        panel = img[img.shape[0] - (y + ph):img.shape[0] - y, x:x + pw].astype(int)
        speed_colour = np.array(QUANTITIES[names.index("speed")][2])
        near = np.abs(panel - speed_colour).sum(axis=2) < 60
        assert near.sum() > 50                  # the speed line and its label are drawn
        w.on_key_press(key.F3, 0)
        assert w.plots is None
    finally:
        w.close()


def test_the_series_start_afresh_on_another_selection_or_state():
    from viewer.plots import Samples
    s = Session(ball_scene)
    s.keep_history(30.0)
    samples = Samples()
    for _ in range(5):
        s.tick(1 / 60)
        samples.sample(s, 0.0)
    assert len(samples.rows) == 5 and samples.series(0) == [None] * 5      # nothing selected
    samples.sample(s, 0.0)                  # no frame ran since: no row
    assert len(samples.rows) == 5
    s.selected = s.ctx.get("ball")
    s.tick(1 / 60)
    samples.sample(s, 0.0)
    assert len(samples.rows) == 1 and samples.series(0)[0] > 0.0
    for _ in range(5):
        s.tick(1 / 60)
        samples.sample(s, 0.0)
    assert list(samples.frames) == [6, 7, 8, 9, 10, 11]
    s.scrub(-0.05)                          # 3 frames back: the later rows go
    samples.sample(s, 0.0)
    assert s.frames == 8 and list(samples.frames) == [6, 7, 8]
    s.restart()
    s.selected = s.ctx.get("ball")          # the same entity (CK id) in the new context
    samples.sample(s, 0.0)
    assert list(samples.frames) == [0]
