"""The mesh programs (viewer/renderer.py): a textured part's pixel is its
texel times a colour plus a colour, both lit per vertex, or, tinted (a
selected entity of a level), its colour plus the tint clamped per pixel
before the lighting. Expected pixels worked by hand from the lighting of
docs/viewer.md "Drawing" (Direct3D's fixed function); a 20 x 20 square
facing a camera 10 away, its centre read, drawn instanced and then from
the static layer."""

import numpy as np
import pytest
from test_viewer_support import gl_window  # noqa: F401

from scenes.virtools.looks import Look, LookPart, Shading
from viewer.drawlist import Group
from viewer.lighting import Lighting

TEXEL = 128                     # the texture's grey: 128 / 255 = 0.502
SQUARE = np.array([[-10, -10, 0], [10, -10, 0], [10, 10, 0], [-10, 10, 0]], np.float64)


class _Square:
    vertices = SQUARE
    faces = np.array([[0, 1, 2], [0, 2, 3]])
    name = "square"


def _look(**part) -> Look:
    image = np.full((2, 2, 4), TEXEL, np.uint8)
    image[..., 3] = 255
    return Look(uvs=np.array([[0, 1], [1, 1], [1, 0], [0, 0]], np.float64),
                parts=[LookPart(faces=np.array([0, 1]), colour=(0.5, 1.0, 1.0, 1.0), texture=image, **part)])


def _centres(look, tint, lighting=Lighting()) -> list:
    """The square's centre pixel (r, g, b) drawn instanced (first frame) and
    from the static layer (once settled), ``tint`` added to its colour."""
    from viewer.camera import look_at
    from viewer.renderer import Offscreen, Renderer
    from viewer.static import SETTLE_FRAMES
    renderer = Renderer(lighting=lighting)
    target = Offscreen(64, 48, samples=0)
    entity = object()
    out = []
    for frame in range(SETTLE_FRAMES + 2):
        group = Group(_Square(), [np.identity(4)], [tuple(tint) + (1.0,)], [entity], look)
        target.bind()
        renderer.draw({"square": group}, look_at((0.0, 0.0, -10.0), (0.0, 0.0, 0.0)), (64, 48))
        if frame in (0, SETTLE_FRAMES + 1):
            out.append(target.read()[24, 32].astype(int))
    assert renderer.static.placed, "the square settled into the static layer"
    return out


@pytest.mark.parametrize("tint, expected", [
    ((0.0, 0.0, 0.0), (64, 64, 128)),       # 0.502 x (0.5, 1, 1) x the prelit (1, 0.5, 1)
    ((0.75, 0.0, 0.0), (255, 64, 128)),     # red: 0.251 + 0.75 clamped to 1, times 1
])
def test_a_prelit_textured_part_is_its_colour_times_the_texel_plus_the_tint_clamped(gl_window, tint,  # noqa: F811
                                                                                       expected):
    for pixel in _centres(_look(prelit=(1.0, 0.5, 1.0)), tint):
        assert np.abs(pixel - expected).max() <= 1


@pytest.mark.parametrize("tint, expected", [
    # the texel x (ambient 0.5 x 1 + emissive 0.2) + the texel x the colour x the diffuse light 0.4 facing it:
    # red 0.502 x (0.7 + 0.5 x 0.4) = 0.452, green and blue 0.502 x (0.7 + 0.4) = 0.552
    ((0.0, 0.0, 0.0), (115, 141, 141)),
    # tinted red: the ambient and emissive light the texel (0.502 x 0.7), the diffuse light the colour
    # with its tint, 0.251 + 0.75 clamped to 1: 0.351 + 0.4 = 0.751
    ((0.75, 0.0, 0.0), (192, 141, 141)),
])
def test_a_shaded_textured_part_is_lit_as_its_material_says(gl_window, tint, expected):  # noqa: F811
    lighting = Lighting(ambient=(0.5, 0.5, 0.5), directional=(((0.0, 0.0, -1.0), (0.4, 0.4, 0.4)),))
    look = _look(shading=Shading(ambient=(1.0, 1.0, 1.0), emissive=(0.2, 0.2, 0.2)))
    for pixel in _centres(look, tint, lighting):
        assert np.abs(pixel - expected).max() <= 1
