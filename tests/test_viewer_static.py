"""Entities that stand still are drawn from the static layer (viewer/static.py):
one draw call per material, the same pixels as drawn instanced; one that moves
or hides leaves it. A level written with scenes.virtools.writer, drawn
offscreen under headless EGL from above."""

import numpy as np
import pytest
from test_viewer_support import gl_window  # noqa: F401

import scenes
from scenes.virtools import game_level
from viewer.camera import look_at
from viewer.session import Session
from virtools_levels import LevelBuilder, played_at_once

RED, BLUE = 0xFFE02020, 0xFF2020E0


@pytest.fixture
def capture(gl_window, tmp_path):  # noqa: F811
    """Three floors of different sizes (three meshes) along X, red, blue, red;
    seen from 30 above, paused so nothing moves by itself."""
    from viewer.capture import Capture          # after gl_window has configured pyglet
    (tmp_path / "3D Entities" / "Level").mkdir(parents=True)
    b = LevelBuilder()
    red, blue = b.material("Red", RED), b.material("Blue", BLUE)
    floors = [b.box(f"Floor_{i}", (10 - i * 0.5, 1, 10), (x, -0.5, 0), m)
              for i, (x, m) in enumerate(zip((-11, 0, 11), (red, blue, red)))]
    b.group("Phys_Floors", floors)
    b.group("PS_Levelstart", [b.box("PS_FourFlames_01", (1, 0.2, 1), (0, 0.1, -40), None)])   # hidden (a stand-in)
    b.box("A01_Plate", (1, 0.2, 1), (0, 0.1, -40), None)         # a decoration in the default material
    (tmp_path / "3D Entities" / "Level" / "Level_01.NMO").write_bytes(b.data())
    cap = Capture(Session(lambda: played_at_once(scenes.load(game_level(str(tmp_path), 1)))), size=(160, 120),
                  scene_camera=lambda _: look_at((0.0, 30.0, -1.0), (0.0, 0.0, 0.0)))
    cap.run_until(0.0)
    cap.session.toggle_pause()
    yield cap
    cap.close()


def _blue(img) -> np.ndarray:
    r, g, b = (img[..., i].astype(int) for i in range(3))
    return (b - r > 80) & (b - g > 80)


def test_settled_entities_draw_the_same_pixels_in_one_call_per_material(capture):
    from viewer.static import SETTLE_FRAMES
    first = capture.image()
    # one instanced call per mesh: the three floors, the plate, the player's ball
    assert capture.renderer.draw_calls == 5
    for _ in range(SETTLE_FRAMES + 1):
        settled = capture.image()
    # one per material in sight: red and blue; the plate's default material and the plain-coloured
    # ball (the ball fell at the start, z = -40, behind the camera) are left out, outside the view
    assert capture.renderer.draw_calls == 2
    assert capture.renderer.static.culled == 2
    assert np.abs(settled.astype(int) - first.astype(int)).max() <= 1
    assert _blue(settled).mean() > 0.05                 # the floors are in sight


def test_a_settled_entity_that_moves_or_hides_leaves_the_static_layer(capture):
    from viewer.static import SETTLE_FRAMES
    for _ in range(SETTLE_FRAMES + 1):
        settled = capture.image()
    assert _blue(settled).mean() > 0.05
    capture.session.ctx.get("Floor_1").set_position((0.0, -0.5, 300.0))     # the blue one, out of sight
    moved = capture.image()
    assert not _blue(moved).any()
    assert capture.renderer.draw_calls == 2             # red; blue's bucket is empty; Floor_1 alone
    capture.session.ctx.get("Floor_0").hide()
    hidden = capture.image()
    assert capture.renderer.draw_calls == 2             # Floor_2 still in the red bucket
    def red(img):
        r, g, b = (img[..., i].astype(int) for i in range(3))
        return (r - g > 80) & (r - b > 80)

    # seen from -Z, +X is the image's right: Floor_0 (x = -11) the left third, Floor_2 the right one
    assert red(moved[:, :40]).mean() > 0.2 and red(moved[:, 120:]).mean() > 0.2
    assert not red(hidden[:, :40]).any() and red(hidden[:, 120:]).mean() > 0.2


def test_the_frustum_leaves_out_what_lies_outside_the_view():
    """Ballance's lens (58 degrees across at 4:3, near 3, far 1200) from the
    origin looking along +Z: 100 ahead the view is 100 tan 29 = 55.43 wide to
    each side and 55.43 x 3/4 = 41.57 high; a sphere is left out when it lies
    wholly beyond a side ((55.43 - 57) cos 29 = -1.37 beyond for radius 1),
    behind the eye, before the near plane or past the far one."""
    from viewer.camera import BALLANCE_LENS, gl_view, look_at
    from viewer.drawlist import frustum_planes, spheres_in_frustum
    planes = frustum_planes(BALLANCE_LENS.perspective(4.0 / 3.0) @ gl_view(look_at((0, 0, 0), (0, 0, 1))))
    cases = {((0, 0, 100), 1): True, ((0, 0, -100), 1): False, ((54, 0, 100), 1): True,
             ((57, 0, 100), 1): False, ((-57, 0, 100), 2): True, ((0, 40, 100), 1): True,
             ((0, 45, 100), 1): False, ((0, 0, 1250), 10): False, ((0, 0, 1195), 10): True,
             ((0, 0, 1.0), 1): False, ((0, 0, 1.0), 3): True}
    got = spheres_in_frustum(planes, np.array([c for c, _ in cases]), np.array([r for _, r in cases]))
    assert got.tolist() == list(cases.values())
