"""The labels overlay (issue 43, viewer/labels.py): body names where the
camera sees the bodies, the selected body's mass and speed, clear of the HUD."""

import numpy as np
import pytest
from test_viewer_support import ball_scene, gl_window  # noqa: F401

from viewer import camera, labels
from viewer.session import Session

SIZE = (400, 300)
CELL = (7.0, 14.0)


def test_a_point_projects_where_the_lens_puts_it():
    # a camera at z -10 looking along +Z: Virtools' right = up x dir = +X, so
    # a point 1 to the right at depth 10 is 1 / (10 tan_x) of the half width right of the centre
    eye = camera.look_at((0.0, 0.0, -10.0), (0.0, 0.0, 0.0))
    lens = camera.BALLANCE_LENS
    tan_x, tan_y = lens.tan_half_fov(SIZE[0] / SIZE[1])
    pts, inside = labels.project([(0.0, 0.0, 0.0), (1.0, 2.0, 0.0), (0.0, 0.0, -20.0), (100.0, 0.0, 0.0)],
                                 eye, lens, SIZE)
    assert pts[0] == pytest.approx((200.0, 150.0))
    assert pts[1] == pytest.approx((200.0 + 200.0 * 0.1 / tan_x, 150.0 + 150.0 * 0.2 / tan_y))
    assert list(inside) == [True, True, False, False]          # behind the camera; off the image


def test_labels_stack_above_then_below_and_give_way_to_the_selected_and_the_hud():
    eye = camera.look_at((0.0, 0.0, -10.0), (0.0, 0.0, 0.0))
    lens = camera.BALLANCE_LENS
    at = np.zeros(3)
    near = np.array([0.0, 0.0, -1.0])                           # nearer the camera, same pixel
    items = [(at, 0.0, "far", False), (near, 0.0, "near", False), (at, 0.0, "sel\nmass 1 kg", True),
             (at, 0.0, "x", False)]
    placed = labels.place(items, eye, lens, SIZE, CELL)
    assert [p.text for p in placed] == ["sel\nmass 1 kg", "near"]   # the third at that pixel has no room
    sel, nearest = (p.rect for p in placed)
    assert sel == (166, 150 + labels.GAP, 9 * 7 + 6, 2 * 14 + 6)     # 69 wide: x 200 - 34.5, rounded
    assert nearest[1] + nearest[3] == 150 - labels.GAP          # below the point
    hud = (0, 160, 400, 140)                                    # the top of the image, from 10 above the point
    (only,) = labels.place([(at, 0.0, "far", False)], eye, lens, SIZE, CELL, blocked=[hud])
    assert only.rect == (186, 150 - labels.GAP - 20, 3 * 7 + 6, 14 + 6)     # below; 27 wide: x 186.5, rounded to even
    assert labels.place([(at, 0.0, "far", False)], eye, lens, SIZE, CELL, blocked=[(0, 0, 400, 300)]) == []


def test_a_label_clears_its_bodys_bounding_sphere():
    # a radius-1 ball 10 in front of the camera: its top is 150 tan_y pixels x 0.1 above the centre
    eye = camera.look_at((0.0, 0.0, -10.0), (0.0, 0.0, 0.0))
    tan_y = camera.BALLANCE_LENS.tan_half_fov(SIZE[0] / SIZE[1])[1]
    top = 150.0 + 150.0 * 0.1 / tan_y
    (above,) = labels.place([(np.zeros(3), 1.0, "ball", False)], eye, camera.BALLANCE_LENS, SIZE, CELL)
    assert above.rect[1] == round(top) + labels.GAP
    hud = (0, round(top), 400, 300)
    (below,) = labels.place([(np.zeros(3), 1.0, "ball", False)], eye, camera.BALLANCE_LENS, SIZE, CELL, [hud])
    assert below.rect[1] + below.rect[3] == round(300.0 - top) - labels.GAP


def test_the_window_labels_each_body_and_the_selected_ones_mass_and_speed(gl_window):  # noqa: F811
    from pyglet.window import key

    from bbglue import meshes
    from bbglue.blocks import Physicalize
    from viewer.renderer import Offscreen
    from viewer.window import ViewerWindow

    def load():
        ctx = ball_scene()
        other = ctx.create_entity("crate", meshes.box(1.0, 1.0, 1.0), position=(8.0, 10.0, 0.0))
        Physicalize(other, mass=3.0).trigger()
        return ctx

    w = ViewerWindow(Session(load), 640, 480, samples=0, visible=False)
    try:
        w.on_key_press(key._8, 0)
        assert w.scene_view.overlays["labels"]
        ball = w.session.ctx.get("ball")
        w.session.selected = ball
        for _ in range(20):
            w.tick(1 / 60)
        y0 = ball.get_world_matrix().as_array()[3, 1]
        w.tick(1 / 60)
        v = (ball.get_world_matrix().as_array()[3, 1] - y0) * 60.0       # falling: |v| from the move
        w.scene_view.use_scene_camera = False
        w.scene_view.orbit.frame((4.0, 16.0, 0.0), 15.0)      # the bodies below the panels
        target = Offscreen(640, 480)
        target.bind()
        w.on_draw()
        img = target.read()
        texts = [t.text for t in w.overlay.labels.texts if t.visible]
        assert sorted(t.split("\n")[0] for t in texts) == ["ball", "crate"]       # the floor has no body
        (sel,) = [t for t in texts if t.startswith("ball")]
        name, mass, speed = sel.split("\n")
        assert mass == "mass 1.9 kg"
        assert float(speed.split()[1]) == pytest.approx(abs(v), rel=0.05)
        rects = w.overlay.rects
        for r in rects["labels"]:
            assert not labels.overlaps(r, rects["status"]) and not labels.overlaps(r, rects["selection"])
        x, y, lw, lh = rects["labels"][0]                     # white-ish text on the dark backing
        patch = img[480 - (y + lh):480 - y, x:x + lw].reshape(-1, 3)
        assert (patch.min(axis=1) > 150).sum() > 20
    finally:
        w.close()
