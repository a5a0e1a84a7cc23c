"""Scene lights (docs/scenes.md, "Scene settings"): ambient, directional and point
lights in Virtools world coordinates, drawn under headless EGL."""

import math

import numpy as np
import pytest
from test_viewer_render import W, expected_pixel
from test_viewer_support import RED, StandInEntity, StandInMesh, gl_window, red_mask, uv_sphere  # noqa: F401

from viewer import camera
from viewer.drawlist import gather
from viewer.lighting import MAX_LIGHTS, SUN, Lighting, scene_lighting

EYE_Z = -60.0


def light(kind, **values):
    """A light record as the scene loader fills it (its schema defaults)."""
    record = {"type": kind, "direction": (0.3, -1.0, 0.5), "position": (0.0, 0.0, 0.0),
              "color": (1.0, 1.0, 1.0, 1.0), "intensity": 1.0}
    record.update(values)
    return record


def red_ball_image(lighting):
    """A red ball of radius 2 at the origin, seen from (0, 0, -60) along +Z."""
    from viewer.renderer import Offscreen, Renderer
    r = Renderer(lighting=lighting)
    target = Offscreen(W, 300)
    target.bind()
    ball = StandInEntity("ball", StandInMesh("ball", uv_sphere(2.0, n=24)), (0.0, 0.0, 0.0), RED)
    r.draw(gather([ball], r.mesh_keys), camera.look_at((0.0, 0.0, EYE_Z), (0.0, 0.0, 0.0)), (W, 300))
    return target.read()


def pixel_of(point):
    x, y = expected_pixel(EYE_Z, point)
    return int(y), int(x)


# Points of the sphere (radius 2) by their normals: 45 degrees left and right of
# the eye, where a light from that side is brightest (and varies least), and 60
# degrees from the eye on the far sides.
LEFT_45 = (-math.sqrt(2.0), 0.0, -math.sqrt(2.0))
RIGHT_45 = (math.sqrt(2.0), 0.0, -math.sqrt(2.0))
LEFT_FAR = (-math.sqrt(3.0), 0.0, -1.0)
RIGHT_FAR = (math.sqrt(3.0), 0.0, -1.0)


def test_ambient_light_alone_shades_evenly_by_its_colour(gl_window):  # noqa: F811
    img = red_ball_image(scene_lighting([light("ambient", color=(0.4, 0.4, 0.4, 1.0))]))
    mask = red_mask(img)
    assert mask.sum() > 200
    inner = img[mask][:, 0]
    # red (1, 0, 0) x ambient 0.4 = 102 / 255 everywhere: no diffuse, no highlight
    assert np.median(inner) == pytest.approx(102, abs=1) and inner.max() <= 103
    assert img[mask][:, 1:].max() == 0


def test_a_directional_light_lights_the_side_it_comes_from(gl_window):  # noqa: F811
    # travelling along (1, 0, 1), it comes from the left of the eye: the normal
    # (-1, 0, -1) / sqrt 2 faces it (0.8 x 255 = 204); the far right side is unlit
    img = red_ball_image(scene_lighting([light("directional", direction=(2.0, 0.0, 2.0), intensity=0.8)]))
    assert img[pixel_of(LEFT_45)][0] == pytest.approx(204, abs=3)
    assert img[pixel_of(RIGHT_FAR)].max() <= 2


def test_intensity_scales_the_colour_and_ambient_lights_add_up(gl_window):  # noqa: F811
    img = red_ball_image(scene_lighting([light("directional", direction=(1.0, 0.0, 1.0), intensity=0.5),
                                         light("ambient", color=(0.1, 0.1, 0.1, 1.0)),
                                         light("ambient", color=(0.2, 0.2, 0.2, 1.0), intensity=0.5)]))
    # 0.5 + 0.1 + 0.2 x 0.5 = 0.7 where the light falls straight; the ambient 0.2 alone on the far right
    assert img[pixel_of(LEFT_45)][0] == pytest.approx(0.7 * 255, abs=3)
    assert img[pixel_of(RIGHT_FAR)][0] == pytest.approx(0.2 * 255, abs=1)


def test_a_point_light_lights_the_side_facing_its_position(gl_window):  # noqa: F811
    # at (20, 0, -20), the sphere point nearest to it (normal towards it) gets it fully
    img = red_ball_image(scene_lighting([light("point", position=(20.0, 0.0, -20.0), intensity=0.8)]))
    assert img[pixel_of(RIGHT_45)][0] == pytest.approx(204, abs=3)
    assert img[pixel_of(LEFT_FAR)].max() <= 2


def test_scene_records_become_unit_vectors_towards_the_lights():
    lit = scene_lighting([light("directional", direction=(0.0, -2.0, 0.0), color=(1.0, 0.5, 0.0, 1.0),
                                intensity=2.0),
                          light("point", position=(1.0, 2.0, 3.0)),
                          light("ambient", color=(0.2, 0.2, 0.3, 1.0)),
                          light("ambient", color=(0.1, 0.0, 0.0, 1.0), intensity=0.5)])
    assert lit.directional == (((-0.0, 1.0, -0.0), (2.0, 1.0, 0.0)),)
    assert lit.points == (((1.0, 2.0, 3.0), (1.0, 1.0, 1.0)),)
    assert lit.ambient == pytest.approx((0.25, 0.2, 0.3))
    assert scene_lighting([]) is SUN and scene_lighting(None) is SUN


def test_bad_lights_are_value_errors_naming_the_light():
    with pytest.raises(ValueError, match="scene light 2: the direction .* has no length"):
        scene_lighting([light("ambient"), light("directional", direction=(0.0, 0.0, 0.0))])
    with pytest.raises(ValueError, match=f"at most {MAX_LIGHTS}"):
        Lighting(points=(((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)),) * (MAX_LIGHTS + 1))
