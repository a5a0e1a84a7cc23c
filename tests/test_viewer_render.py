"""The renderer under headless EGL: pixels where the projection says, PNGs, 1000 balls."""

import math

import numpy as np
import pytest
from test_viewer_support import (GREY, RED, StandInEntity, StandInMesh, floor_and_ball, gl_window,  # noqa: F401
                                 red_mask, uv_sphere)

from viewer import camera, png
from viewer.drawlist import gather

W, H = 400, 300


def render(entities, cam, gl_window, segments=None, colours=None, size=(W, H)):  # noqa: F811
    from viewer.renderer import Offscreen, Renderer
    r = Renderer()
    target = Offscreen(*size)
    target.bind()
    r.draw(gather(entities, r.mesh_keys), cam, size, segments, colours)
    return r, target.read()


def expected_pixel(eye_z, point, w=W, h=H):
    """Pinhole projection of a camera at (0, 0, eye_z) looking along +Z, by hand.

    Horizontal half-field 29 degrees; the vertical one is tan(29) * 3/4 at 4:3.
    """
    x, y, z = point
    depth = z - eye_z
    t = math.tan(math.radians(29.0))
    return (w / 2 + (x / depth) / t * (w / 2), h / 2 - (y / depth) / (t * 0.75) * (h / 2))


def centroid(mask):
    ys, xs = np.nonzero(mask)
    return xs.mean() + 0.5, ys.mean() + 0.5


def test_ball_appears_at_the_pixel_its_world_position_projects_to(gl_window):  # noqa: F811
    ball_at = (9.0, 4.0, 15.0)
    entities = floor_and_ball(ball_at)
    _, img = render(entities, camera.look_at((0.0, 0.0, -60.0), (0.0, 0.0, 0.0)), gl_window)
    reds = red_mask(img)
    assert reds.sum() > 50
    ex, ey = expected_pixel(-60.0, ball_at)
    cx, cy = centroid(reds)
    assert abs(cx - ex) < 1.5 and abs(cy - ey) < 1.5
    # +X is on the right and +Y up: the ball is in the upper right quadrant
    assert ex > W / 2 and ey < H / 2


def test_frame_is_not_blank_sky_above_floor_below(gl_window):  # noqa: F811
    _, img = render(floor_and_ball((0.0, 2.0, 0.0)), camera.look_at((0.0, 20.0, -60.0), (0.0, 0.0, 0.0)),
                    gl_window)
    from viewer.renderer import SKY
    sky = np.round(np.array(SKY) * 255)
    assert np.allclose(img[2, 2], sky, atol=1)                   # top-left corner: sky
    assert not np.allclose(img[H - 3, W // 2], sky, atol=20)      # bottom centre: floor
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 50        # shading, not flat fill


def test_tilted_camera_centres_its_target(gl_window):  # noqa: F811
    entities = floor_and_ball((20.0, 2.0, 30.0))
    _, img = render(entities, camera.look_at((-25.0, 45.0, -35.0), (20.0, 2.0, 30.0)), gl_window)
    cx, cy = centroid(red_mask(img))
    assert abs(cx - W / 2) < 1.5 and abs(cy - H / 2) < 1.5


def test_a_thousand_balls_are_one_draw_call(gl_window):  # noqa: F811
    mesh = uv_sphere(1.0, n=8)
    balls = [StandInEntity(f"b{i}", StandInMesh(f"b{i}", mesh), (3.0 * (i % 10 - 4.5), 3.0 * (i // 100),
                                                                  3.0 * (i // 10 % 10)), RED)
             for i in range(1000)]
    r, img = render(balls, camera.look_at((0.0, 40.0, -50.0), (0.0, 10.0, 15.0)), gl_window)
    assert r.draw_calls == 1
    assert red_mask(img[::4, ::4]).mean() > 0.2


def test_line_segments_are_drawn_in_world_space(gl_window):  # noqa: F811
    # A vertical green segment at x = 10 on the plane z = 0, seen from z = -60.
    seg = np.array([[[10.0, -5.0, 0.0], [10.0, 5.0, 0.0]]])
    _, img = render([], camera.look_at((0.0, 0.0, -60.0), (0.0, 0.0, 0.0)), gl_window,
                    seg, np.array([[0.0, 1.0, 0.0, 1.0]]))
    ex, ey = expected_pixel(-60.0, (10.0, 0.0, 0.0))
    column = img[int(ey), int(ex) - 2:int(ex) + 3]
    assert any(g > 200 and r < 80 for r, g, _ in column)


def test_png_file_decodes_to_the_same_pixels(gl_window, tmp_path):  # noqa: F811
    _, img = render(floor_and_ball((0.0, 2.0, 0.0)), camera.look_at((0.0, 20.0, -60.0), (0.0, 0.0, 0.0)),
                    gl_window, size=(160, 120))
    path = png.write(tmp_path / "shot.png", img)
    from pyglet.image.codecs.png import PNGImageDecoder       # pyglet's own pure-Python PNG reader
    with open(path, "rb") as fh:
        decoded = PNGImageDecoder().decode(str(path), fh)
    raw = np.frombuffer(decoded.get_image_data().get_data("RGB", 160 * 3), np.uint8).reshape(120, 160, 3)
    assert np.array_equal(raw[::-1], img)                     # pyglet's rows run bottom-up


def test_png_rejects_a_non_rgb_image():
    with pytest.raises(ValueError, match="png"):
        png.encode(np.zeros((4, 4), np.uint8))


def test_offscreen_rejects_an_empty_size(gl_window):  # noqa: F811
    from viewer.renderer import Offscreen
    with pytest.raises(ValueError, match="size"):
        Offscreen(0, 10)


def test_the_deaths_white_fade_covers_the_view(gl_window):  # noqa: F811
    """The behaviours' fade (the gameplay's "fade", 0.5 here) blends the whole
    view with white: the sky's clear colour c becomes c / 2 + 255 / 2."""
    from viewer.renderer import Offscreen, Renderer
    from viewer.textures import Effects
    r = Renderer()
    effects = Effects()
    effects.fade = 0.5
    target = Offscreen(64, 48)
    target.bind()
    r.draw({}, camera.look_at((0.0, 0.0, -10.0), (0.0, 0.0, 0.0)), (64, 48), effects=effects)
    sky = np.array(r.sky) * 255.0
    assert target.read().reshape(-1, 3).astype(float) == pytest.approx(np.tile(sky / 2 + 127.5, (64 * 48, 1)), abs=2)
