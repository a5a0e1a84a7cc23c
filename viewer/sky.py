"""The sky drawn at a lower resolution (docs/viewer.md "Drawing"): the sky
prism (textures.SkyBox, through the game's widened lens) and its cloud
sheet (along the view's own rays, `sky_ray`) go into a target of SCALE times the view's size,
which is then spread over the view's sky pixels (those at the far plane:
where nothing opaque was drawn), linearly filtered. The sky's images and
the clouds are soft, so a quarter of the pixels show them alike, and in
software GL the sky's per-pixel work (the sheet's ray and samples) is what
a frame of an original level spends most on.
Call `display.configure` before importing this module.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

from pyglet import gl
from pyglet.graphics.shader import Shader, ShaderProgram

SCALE = 1 / 3                    # the sky's target against the view, each side

_SPREAD_VS = """#version 330 core
void main() {                               // one triangle over the whole view, on the far plane
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    gl_Position = vec4(p, 1.0, 1.0);
}
"""
_SPREAD_FS = """#version 330 core
uniform sampler2D sky;
uniform vec2 view_size;
out vec4 frag;
void main() { frag = texture(sky, gl_FragCoord.xy / view_size); }
"""


def sky_ray(lens, sky_lens, aspect: float, camera_world) -> np.ndarray:
    """(3, 3), column vectors: a direction from the eye through the sky drawn
    with ``sky_lens`` to the ray from the eye through the same pixel seen with
    ``lens`` (both camera.Lens at ``aspect``, on the camera ``camera_world``):
    its components across the view scaled by the ratio of the lenses'
    tangents, the one along it kept. Linear, so it is interpolated exactly
    across the sky's faces."""
    k = lens.tan_half_fov(aspect)[0] / sky_lens.tan_half_fov(aspect)[0]
    forward = np.asarray(camera_world, dtype=np.float64)[2, :3]
    forward = forward / np.linalg.norm(forward)
    return k * np.identity(3) + (1.0 - k) * np.outer(forward, forward)


def target_size(view: tuple[int, int]) -> tuple[int, int]:
    """The sky target's (width, height) for a view of ``view`` pixels."""
    return tuple(max(1, math.ceil(v * SCALE)) for v in view)


class SkyPass:
    """A colour texture of `target_size` to draw the sky into, and the pass
    that spreads it over the view."""

    def __init__(self):
        self.program = ShaderProgram(Shader(_SPREAD_VS, "vertex"), Shader(_SPREAD_FS, "fragment"))
        self.vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self.vao))
        self.fbo, self.texture, self.size = gl.GLuint(), gl.GLuint(), None
        self.drawn = None                 # what the target holds: the `inputs` of the last render
        gl.glGenFramebuffers(1, ctypes.byref(self.fbo))
        gl.glGenTextures(1, ctypes.byref(self.texture))

    def _fit(self, size: tuple[int, int]) -> None:
        if size == self.size:
            return
        gl.glBindTexture(gl.GL_TEXTURE_2D, self.texture)
        gl.glTexImage2D(gl.GL_TEXTURE_2D, 0, gl.GL_RGBA8, size[0], size[1], 0, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, None)
        for name, value in ((gl.GL_TEXTURE_MIN_FILTER, gl.GL_LINEAR), (gl.GL_TEXTURE_MAG_FILTER, gl.GL_LINEAR),
                            (gl.GL_TEXTURE_WRAP_S, gl.GL_CLAMP_TO_EDGE), (gl.GL_TEXTURE_WRAP_T, gl.GL_CLAMP_TO_EDGE)):
            gl.glTexParameteri(gl.GL_TEXTURE_2D, name, value)
        gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self.fbo)
        gl.glFramebufferTexture2D(gl.GL_FRAMEBUFFER, gl.GL_COLOR_ATTACHMENT0, gl.GL_TEXTURE_2D, self.texture, 0)
        status = gl.glCheckFramebufferStatus(gl.GL_FRAMEBUFFER)
        if status != gl.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"the sky's target of {size[0]}x{size[1]}: framebuffer incomplete (0x{status:x})")
        self.size = size

    def render(self, view: tuple[int, int], draw_sky, inputs: tuple) -> None:
        """``draw_sky()`` into the target of a view of ``view`` pixels,
        cleared to the clear colour set now (where a face has no image);
        then the framebuffer bound before is bound again. Called before the
        view's framebuffer is cleared: llvmpipe stores a framebuffer whole
        when another is bound and loads it again to go on drawing into it.
        The target is kept when ``inputs`` (all that ``draw_sky`` and the
        clear colour depend on, compared with ==) are those of its last
        render: paused, or with the camera and the clock still, the sky
        is the same."""
        inputs = (view, *inputs)
        if inputs == self.drawn:
            return
        self.drawn = inputs
        bound = gl.GLint()
        gl.glGetIntegerv(gl.GL_DRAW_FRAMEBUFFER_BINDING, ctypes.byref(bound))
        self._fit(target_size(view))
        gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, self.fbo)
        gl.glViewport(0, 0, *self.size)
        gl.glDisable(gl.GL_DEPTH_TEST)          # every pixel of the target is sky
        gl.glClear(gl.GL_COLOR_BUFFER_BIT)
        draw_sky()
        gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, bound.value)
        gl.glViewport(0, 0, *view)

    def spread(self, view: tuple[int, int]) -> None:
        """The target over the sky pixels (depth at the far plane) of the
        view of ``view`` pixels in the framebuffer bound now."""
        gl.glEnable(gl.GL_DEPTH_TEST)
        gl.glDepthFunc(gl.GL_LEQUAL)            # the far plane's depth is the cleared depth
        gl.glDepthMask(gl.GL_FALSE)
        gl.glDisable(gl.GL_BLEND)
        p = self.program
        p.use()
        p["view_size"] = (float(view[0]), float(view[1]))
        p["sky"] = 0
        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(gl.GL_TEXTURE_2D, self.texture)
        gl.glBindVertexArray(self.vao)
        gl.glDrawArrays(gl.GL_TRIANGLES, 0, 3)
        gl.glBindVertexArray(0)
        p.stop()
        gl.glDepthMask(gl.GL_TRUE)
        gl.glDepthFunc(gl.GL_LESS)
