"""Meshes drawn with their materials: per-part colours and textures
(scenes.virtools.looks; virtools-nmo.md 3.4-3.6, docs/levels.md).

Images are decoded with Pillow (BMP and TGA, the formats Ballance's
``Textures/`` folder holds; pyglet reads no TGA) and uploaded top row first,
so v = 0 samples the image's top as Virtools' UVs expect (4). An image that
cannot be read leaves its faces in the material colour, with one warning.
Call `display.configure` before importing this module.
"""

from __future__ import annotations

import ctypes
import logging
import math
import weakref

import numpy as np
from pyglet import gl

from scenes.virtools.game import TEXTURES_DIR, find_ci

from .drawlist import indexed, shade_normals
from .gpu import Buffer, attribute, instanced_vao
from .lighting import SPECULAR

log = logging.getLogger(__name__)
MAX_TEXTURE_SIDE = 4096         # a larger image is refused (Ballance's are 512 at most)


def read_image(texture) -> np.ndarray:
    """(h, w, 4) RGBA uint8, top row first, from embedded pixels or an image file."""
    if isinstance(texture, np.ndarray):
        return texture
    from PIL import Image
    with Image.open(texture) as im:
        if max(im.size) > MAX_TEXTURE_SIDE:
            raise ValueError(f"{im.size[0]} x {im.size[1]} pixels: larger than {MAX_TEXTURE_SIDE} a side")
        return np.asarray(im.convert("RGBA"), dtype=np.uint8)


class TextureCache:
    """GL textures by source (a path or an embedded array), made once; a source
    that fails is warned about once and gives None."""

    def __init__(self):
        self._made = {}
        self._opaque = set()        # the GL names of the textures whose every pixel has alpha 255

    def opaque(self, tex) -> bool:
        """Whether a texture `get` made has no transparent pixel."""
        return tex.value in self._opaque

    def get(self, texture, colour_key: int | None = None, clamped: bool = False):
        """The GL texture of an image; with ``colour_key`` (0xRRGGBB) its
        pixels of that colour transparent (alpha 0; virtools-nmo.md 3.6);
        ``clamped``: sampled up to its edges, not repeated (a sky face, whose
        edge would else blend with the opposite one: a seam)."""
        if texture is None:
            return None
        key = (texture if isinstance(texture, str) else id(texture), colour_key, clamped)
        if key not in self._made:
            try:
                pixels = read_image(texture)
                if colour_key is not None:
                    pixels = keyed(pixels, colour_key)
                self._made[key] = _upload(pixels, gl.GL_CLAMP_TO_EDGE if clamped else gl.GL_REPEAT)
                if pixels[..., 3].min() == 255:
                    self._opaque.add(self._made[key].value)
            except (OSError, ValueError) as exc:
                log.warning("texture %s: %s: drawn in the material colour", texture if isinstance(texture, str)
                            else "embedded", exc)
                self._made[key] = None
        return self._made[key]


def keyed(pixels: np.ndarray, colour_key: int) -> np.ndarray:
    """A copy whose pixels of RGB ``colour_key`` (0xRRGGBB) have alpha 0."""
    out = pixels.copy()
    rgb = ((colour_key >> 16) & 255, (colour_key >> 8) & 255, colour_key & 255)
    out[(out[..., :3] == rgb).all(axis=-1), 3] = 0
    return out


# --- a material's surface (scenes.virtools.looks.Surface; virtools-nmo.md 3.5) --------------------

BLEND_FACTORS = {1: gl.GL_ZERO, 2: gl.GL_ONE, 3: gl.GL_SRC_COLOR, 4: gl.GL_ONE_MINUS_SRC_COLOR, 5: gl.GL_SRC_ALPHA,
                 6: gl.GL_ONE_MINUS_SRC_ALPHA, 7: gl.GL_DST_ALPHA, 8: gl.GL_ONE_MINUS_DST_ALPHA, 9: gl.GL_DST_COLOR,
                 10: gl.GL_ONE_MINUS_DST_COLOR, 11: gl.GL_SRC_ALPHA_SATURATE}
DEFAULT_BLEND = (5, 6)          # source alpha, one minus source alpha: a part without a Surface, and plain meshes


def surface_texture(part, textures: TextureCache):
    """The GL texture of a look's part, colour-keyed as its surface says."""
    key = part.surface.colour_key if part.surface is not None else None
    return textures.get(part.texture, key)


def scrolled(scroll, clock: float) -> tuple:
    """The texture offset of a scroll (u, v per second) at ``clock`` seconds, within one repeat."""
    return tuple(float((c * clock) % 1.0) for c in scroll)


_UNIFORMS = weakref.WeakKeyDictionary()       # program -> its uniforms' names


def has_uniform(program, name: str) -> bool:
    """Whether ``program`` has the uniform ``name`` (pyglet's ``uniforms``
    copies its whole table at each read: 1 ms a frame on level 02)."""
    names = _UNIFORMS.get(program)
    if names is None:
        names = _UNIFORMS[program] = frozenset(program.uniforms)
    return name in names


def set_part(program, scroll, prelit, clock: float, shading=None) -> None:
    """A part's texture offset, its texture scrolling by ``scroll`` (u, v)
    per second, at ``clock`` seconds (kept within one repeat), and its
    lighting: None lit, else the colour of a prelit part (no lighting); lit
    by its ``shading`` (scenes.virtools.looks.Shading), None the viewer's
    own (the ambient light whole, and a highlight of SPECULAR, power 32)."""
    if has_uniform(program, "uv_offset"):         # an environment map's program has none
        program["uv_offset"] = scrolled(scroll, clock)
    program["unlit"] = int(prelit is not None)
    if prelit is not None:
        program["prelit"] = tuple(float(c) for c in prelit)
    own = {"shaded": 1.0, "part_ambient": shading.ambient, "part_emissive": shading.emissive,
           "part_specular": shading.specular, "part_power": float(shading.power)} if shading is not None else \
        {"shaded": 0.0, "part_ambient": (1.0, 1.0, 1.0), "part_emissive": (0.0, 0.0, 0.0),
         "part_specular": (SPECULAR,) * 3, "part_power": 32.0}
    for name, value in own.items():
        if has_uniform(program, name):            # without lights there is no highlight
            program[name] = value


class MeshPrograms:
    """A frame's mesh programs (renderer.py) by (alpha test, environment
    map, textured, tinted), made by ``make(alpha_test, env_map, textured,
    tinted)`` and given the frame's uniforms by ``frame(program)`` at their
    first use: a part uses the one its Surface, Shading, texture and tint
    need (a discard, a texture lookup or code behind a uniform slows every
    pixel a program draws, in llvmpipe). Every mesh is lit per vertex, as
    Direct3D's fixed function."""

    def __init__(self, make, frame):
        self.make, self.frame = make, frame
        self.ready = {}
        self.current = None

    def pick(self, surface, shading=None, textured: bool = False, tinted: bool = False):
        """The program for a part's Surface and Shading, with a texture or
        without, tinted (its colour clamped per pixel) or not, in use, its
        alpha test set."""
        tested = surface is not None and surface.alpha_test is not None
        key = (tested, shading is not None and shading.env_map, textured, tinted)
        p = self.ready.get(key)
        if p is None:
            p = self.ready[key] = self.make(*key)
            p.use()
            self.frame(p)
            self._plain(p)
            self.current = p
        if p is not self.current:
            p.use()
            self.current = p
        if tested:
            p["alpha_func"], p["alpha_ref"] = int(surface.alpha_test[0]), float(surface.alpha_test[1])
        return p

    @staticmethod
    def _plain(p) -> None:
        p["look"] = 0
        set_part(p, (0.0, 0.0), None, 0.0)

    def reset(self) -> None:
        """The programs back to plain meshes (no look, no scroll, the
        viewer's lighting), the plain one in use, the default surface."""
        for p in self.ready.values():
            p.use()
            self._plain(p)
        self.current = None
        self.pick(None)
        set_surface(None)

    def stop(self) -> None:
        if self.current is not None:
            self.current.stop()
            self.current = None


def set_surface(surface) -> None:
    """The GL state of a part's Surface (None: the viewer's default, blended
    by alpha, both sides, depth written); the alpha test is the program's
    (MeshPrograms.pick). Back faces are culled as the renderer's glFrontFace
    sets them."""
    blend = DEFAULT_BLEND if surface is None else surface.blend
    if blend is None:
        gl.glDisable(gl.GL_BLEND)
    else:
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(BLEND_FACTORS.get(blend[0], gl.GL_ONE), BLEND_FACTORS.get(blend[1], gl.GL_ZERO))
    if surface is None or surface.two_sided:
        gl.glDisable(gl.GL_CULL_FACE)
    else:
        gl.glEnable(gl.GL_CULL_FACE)
    gl.glDepthMask(gl.GL_TRUE if surface is None or surface.z_write else gl.GL_FALSE)


def _upload(pixels: np.ndarray, wrap=gl.GL_REPEAT) -> gl.GLuint:
    """A texture filtered linearly without mipmaps, as the game's materials
    ask (virtools-nmo.md 3.5: min and mag filter 2, linear, on every
    material of the levels, prefabs and balls but one; 3.6: the textures
    are saved without mipmaps). It is also llvmpipe's cheaper path."""
    h, w = pixels.shape[:2]
    tex = gl.GLuint()
    gl.glGenTextures(1, ctypes.byref(tex))
    gl.glBindTexture(gl.GL_TEXTURE_2D, tex)
    data = np.ascontiguousarray(pixels, dtype=np.uint8)
    gl.glPixelStorei(gl.GL_UNPACK_ALIGNMENT, 1)
    gl.glTexImage2D(gl.GL_TEXTURE_2D, 0, gl.GL_RGBA8, w, h, 0, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, data.ctypes.data)
    for name, value in ((gl.GL_TEXTURE_WRAP_S, wrap), (gl.GL_TEXTURE_WRAP_T, wrap),
                        (gl.GL_TEXTURE_MIN_FILTER, gl.GL_LINEAR),
                        (gl.GL_TEXTURE_MAG_FILTER, gl.GL_LINEAR)):
        gl.glTexParameteri(gl.GL_TEXTURE_2D, name, value)
    gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
    return tex


def unit_colour(colour) -> bool:
    """Whether a part's colour has every channel in 0..1: its product with a
    texel needs no clamp (MeshPrograms' untinted programs)."""
    return all(0.0 <= float(c) <= 1.0 for c in colour)


def look_corners(mesh, look) -> tuple[np.ndarray, list]:
    """The mesh's corners with normals and UVs ((3 m, 8): x y z nx ny nz u v),
    faces ordered by part; each part's (first corner, corner count)."""
    order = np.concatenate([p.faces for p in look.parts]) if look.parts else np.zeros(0, np.int64)
    faces = np.asarray(mesh.faces)[order]
    corners = shade_normals(mesh.vertices, faces, where=f"mesh {getattr(mesh, 'name', '?')!r}")
    out = np.empty((len(corners), 8), dtype=np.float32)
    out[:, :6] = corners
    out[:, 6:] = np.asarray(look.uvs, dtype=np.float32)[faces.reshape(-1)]
    ranges, at = [], 0
    for p in look.parts:
        ranges.append((at, 3 * len(p.faces)))
        at += 3 * len(p.faces)
    return out, ranges


class LookBatch:
    """A mesh with its look on the GPU: one instanced draw per part."""

    def __init__(self, mesh, look, textures: TextureCache):
        corners, self.ranges = look_corners(mesh, look)
        vertices, indices = indexed(corners)
        self.parts = [(p.colour, surface_texture(p, textures), p.surface, p.uv_scroll, p.prelit, p.shading)
                      for p in look.parts]
        self.vao, self.indices, self.vertices, self.instances = instanced_vao(vertices, indices,
                                                                              ((0, 3), (1, 3), (7, 2)))

    def draw(self, instance_data: np.ndarray, programs: MeshPrograms, clock: float = 0.0) -> int:
        """Each part in its colour, texture (scrolled to ``clock``) and surface; the draw calls made."""
        self.instances.upload(instance_data)
        gl.glBindVertexArray(self.vao)
        tint = bool(np.any(instance_data[:, 16:19]))
        for (first, count), (colour, tex, surface, scroll, prelit, shading) in zip(self.ranges, self.parts):
            program = programs.pick(surface, shading, tex is not None, tint or not unit_colour(colour))
            program["look"] = 1
            set_surface(surface)
            set_part(program, scroll, prelit, clock, shading)
            program["part_colour"] = tuple(float(c) for c in colour)
            if tex is not None:
                gl.glActiveTexture(gl.GL_TEXTURE0)
                gl.glBindTexture(gl.GL_TEXTURE_2D, tex)
            gl.glDrawElementsInstanced(gl.GL_TRIANGLES, count, gl.GL_UNSIGNED_INT, ctypes.c_void_p(4 * first),
                                       len(instance_data))
        programs.reset()
        gl.glBindVertexArray(0)
        return len(self.parts)


# --- the sky (an imported level's sky, virtools-nmo.md 5.6, 5.7: the game's prism) ------------------

# The game's sky (issue 42; the TT Sky behaviour of Gameplay.nmo, facts in the Ballance.Three.js notes):
# a prism of SKY_SIDES walls around the eye, its corners at SKY_RADIUS from the eye at the angles
# 5 pi / 4 + i 2 pi / SKY_SIDES in x, z (walls square to the axes: Back at -Z, then Right, Front, Left),
# each wall the corners' chord high, centred on the eye; a floor (Down), no top. Gameplay's radius and
# distortion (f32 0x3E199999); the walls' and floor's UVs as the behaviour builds them. The images'
# edges meet so (Sky_A/C/E/L: adjacent edges 0.5 of 255 apart on average, 3-8 mirrored).
SKY_RADIUS = 100.0
SKY_DISTORTION = 0.14999999105930328
SKY_SIDES = 4


def sky_prism() -> tuple[np.ndarray, list[tuple[int, int]]]:
    """(k, 5) float32 vertices (x y z u v, v = 0 at the image's top) and, in
    SKY_FACES order, each face's (first index, index count) into
    ``sky_indices()``: the walls' quads, then the floor's fan."""
    r, n = SKY_RADIUS, SKY_SIDES
    half = 0.5 * math.hypot(r - r * math.cos(2 * math.pi / n), -r * math.sin(2 * math.pi / n))   # the chord
    angles = [5 * math.pi / 4 + i * 2 * math.pi / n for i in range(n + 1)]
    corner = [(r * math.cos(a), r * math.sin(a)) for a in angles]
    rows = []
    for i in range(n):                          # this corner's and the next one's bottom, then their tops
        (x0, z0), (x1, z1) = corner[i], corner[i + 1]
        rows += [(x0, -half, z0, 1, 1), (x1, -half, z1, 0, 1), (x1, half, z1, 0, 0), (x0, half, z0, 1, 0)]
    cap = math.sqrt(0.5) / r                    # u = x / r * 0.70710 + 0.5, v = -z / r * 0.70710 + 0.5
    for i in range(n):                          # the floor: (corner, centre, next corner) per sector
        for x, z in (corner[i], (0.0, 0.0), corner[i + 1]):
            rows.append((x, -half, z, x * cap + 0.5, -z * cap + 0.5))
    faces = [(6 * i, 6) for i in range(n)] + [(6 * n, 3 * n)]
    return np.asarray(rows, dtype=np.float32), faces


def sky_indices() -> np.ndarray:
    """The prism's triangles: each wall's [2, 0, 1] and [2, 3, 0], the floor's fan."""
    walls = (np.arange(SKY_SIDES)[:, None] * 4 + np.array([2, 0, 1, 2, 3, 0])).reshape(-1)
    return np.concatenate([walls, 4 * SKY_SIDES + np.arange(3 * SKY_SIDES)]).astype(np.uint32)


_SKY_VS = """#version 330 core
#define SHEET %d                            // the program of a sky with a sky layer (SkySheet), added where
layout(location = 0) in vec3 position;      // the view's ray meets it (even unused, its code slows llvmpipe)
layout(location = 7) in vec2 uv;
uniform mat4 view_proj;                     // the camera's rotation only, the sky's widened lens
out vec2 v_uv;
#if SHEET
uniform mat3 ray;                           // a sky point's direction -> the view's ray through its pixel
uniform vec3 eye;
uniform vec3 forward;                       // the camera's, for the far plane
uniform float sheet_y;
out vec4 v_sheet;                           // the ray's point on the sheet (x, z) and its depth, over d.y
#endif
void main() {
    v_uv = uv;
#if SHEET
    vec3 d = ray * position;                // linear in the position: exact across a face
    float rise = sheet_y - eye.y;
    v_sheet = vec4(eye.x * d.y + rise * d.x, eye.z * d.y + rise * d.z, d.y, rise * dot(d, forward));
#endif
    gl_Position = (view_proj * vec4(position, 1.0)).xyww;   // on the far plane
}
"""
_SKY_FS = """#version 330 core
#define SHEET %d
in vec2 v_uv;
uniform sampler2D image;
out vec4 frag;
#if SHEET
in vec4 v_sheet;
uniform sampler2D sheet_image;
uniform float far;
uniform vec4 sheet_bounds;                  // x min, z min, x max, z max
uniform vec3 sheet_u;                       // u = dot(sheet_u, (x, z, 1)) + the scroll, v alike
uniform vec3 sheet_v;
uniform vec2 uv_offset;
uniform vec4 sheet_colour;                  // the part's colour
uniform vec3 sheet_tint;                    // added to it
uniform vec3 sheet_light;                   // its prelit colour
#endif
void main() {
    vec3 colour = texture(image, v_uv).rgb;
#if SHEET
    {
        vec3 q = vec3(v_sheet.xy / v_sheet.z, 1.0);     // where the ray meets the sheet's plane
        float depth = v_sheet.w / v_sheet.z;             // along the view, negative behind the eye
        vec3 cloud = sheet_colour.rgb * texture(sheet_image, vec2(dot(sheet_u, q), dot(sheet_v, q)) + uv_offset).rgb;
        if (depth > 0.0 && depth <= far && all(greaterThanEqual(q.xy, sheet_bounds.xy))
            && all(lessThanEqual(q.xy, sheet_bounds.zw)))
            colour += clamp(cloud + sheet_tint, 0.0, 1.0) * sheet_light;
    }
#endif
    frag = vec4(min(colour, 1.0), 1.0);
}
"""


class SkyBox:
    """The sky prism's five images around the eye (`sky_prism`), drawn through
    the sky's widened lens (camera.Lens.widened by SKY_DISTORTION), behind
    everything (the game draws it first, without depth); a face whose image
    is missing or unreadable shows the clear colour."""

    def __init__(self, images, textures: TextureCache):
        from pyglet.graphics.shader import Shader, ShaderProgram
        self.images = tuple(images)
        self.programs = [ShaderProgram(Shader(_SKY_VS % k, "vertex"), Shader(_SKY_FS % k, "fragment"))
                         for k in (0, 1)]
        self.faces = [textures.get(img, clamped=True) for img in self.images]
        vertices, self.ranges = sky_prism()
        self.vao, self.index_buffer, self.vertex_buffer, _ = instanced_vao(vertices, sky_indices(), ((0, 3), (7, 2)))

    def draw(self, view_proj, ray, sheet=None, camera_world=None, far: float = 0.0, clock: float = 0.0,
             light: float = 1.0) -> None:
        """The sky through ``view_proj`` (the camera's turn, the sky's lens),
        and ``sheet`` (a SkySheet, or None) added to it along the view's rays
        (``ray``, 3x3: a sky point's direction to the view's ray through the
        same pixel) from ``camera_world`` with the lens' ``far`` plane,
        scrolled to ``clock``, its brightness times ``light``."""
        gl.glDepthFunc(gl.GL_LEQUAL)            # the far plane's depth is the cleared depth
        gl.glDepthMask(gl.GL_FALSE)
        gl.glDisable(gl.GL_CULL_FACE)
        p = self.programs[sheet is not None]
        p.use()
        p["view_proj"] = tuple(float(x) for x in np.asarray(view_proj, dtype=np.float64).T.ravel())
        if sheet is not None:                   # (the program without it has no rays)
            p["ray"] = tuple(float(x) for x in np.asarray(ray, dtype=np.float64).T.ravel())
            sheet.set(p, camera_world, far, clock, light)
        gl.glBindVertexArray(self.vao)
        gl.glActiveTexture(gl.GL_TEXTURE0)
        for (first, count), tex in zip(self.ranges, self.faces):
            if tex is not None:
                gl.glBindTexture(gl.GL_TEXTURE_2D, tex)
                gl.glDrawElements(gl.GL_TRIANGLES, count, gl.GL_UNSIGNED_INT, ctypes.c_void_p(4 * first))
        gl.glBindVertexArray(0)
        p.stop()
        gl.glDepthMask(gl.GL_TRUE)
        gl.glDepthFunc(gl.GL_LESS)


class SkySheet:
    """A sky layer (a Surface with ``sky``) that is one flat, level,
    axis-aligned rectangle whose UVs are linear in x and z: the sky prism's
    pass adds it where the eye's ray meets it, as drawing it would (its
    blend adds, it writes no depth and lies below everything, so it shows
    only where the sky does), without shading the screen a second time."""

    def __init__(self, world: np.ndarray, uvs: np.ndarray, colour, tint, texture, scroll, prelit):
        self.y = float(world[0, 1])
        lo, hi = world[:, [0, 2]].min(axis=0), world[:, [0, 2]].max(axis=0)
        self.bounds = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        rows = np.column_stack([world[:, 0], world[:, 2], np.ones(len(world))])
        fit = np.linalg.lstsq(rows, uvs, rcond=None)[0]      # (3, 2): u and v from (x, z, 1)
        self.u, self.v = fit[:, 0], fit[:, 1]
        self.colour, self.tint, self.texture, self.scroll = colour, tint, texture, scroll
        self.prelit = (1.0, 1.0, 1.0) if prelit is None else prelit

    @classmethod
    def of(cls, world: np.ndarray, uvs: np.ndarray, indices: np.ndarray, **look):
        """The SkySheet of these triangles (``indices`` into the (k, 3) world
        corners with their (k, 2) UVs), or None if they do not cover a level
        rectangle (their areas add up to its area) with UVs linear in x and z."""
        world, uvs = np.asarray(world, dtype=np.float64), np.asarray(uvs, dtype=np.float64)
        xz = world[:, [0, 2]]
        size = xz.max(axis=0) - xz.min(axis=0)
        a, b, c = (xz[np.asarray(indices).reshape(-1, 3)[:, k]] for k in range(3))
        area = 0.5 * np.abs((b - a)[:, 0] * (c - a)[:, 1] - (b - a)[:, 1] * (c - a)[:, 0]).sum()
        if (look["texture"] is None or np.ptp(world[:, 1]) > 1e-3 or size.min() <= 0.0
                or not np.isclose(area, size.prod(), rtol=1e-4)):
            return None
        sheet = cls(world, uvs, **look)
        fitted = np.column_stack([xz, np.ones(len(xz))]) @ np.stack([sheet.u, sheet.v], axis=1)
        return sheet if np.allclose(fitted, uvs, atol=1e-4) else None

    def set(self, program, camera_world, far: float, clock: float, light: float = 1.0) -> None:
        """The sheet's uniforms, its prelit colour times ``light``."""
        m = np.asarray(camera_world, dtype=np.float64)
        program["eye"], program["forward"] = tuple(map(float, m[3, :3])), tuple(map(float, m[2, :3]))
        program["far"], program["sheet_y"], program["sheet_bounds"] = float(far), self.y, self.bounds
        program["sheet_u"], program["sheet_v"] = tuple(map(float, self.u)), tuple(map(float, self.v))
        program["uv_offset"] = scrolled(self.scroll, clock)
        program["sheet_colour"] = tuple(float(c) for c in self.colour)
        program["sheet_tint"] = tuple(map(float, self.tint[:3]))
        program["sheet_light"] = tuple(float(c) * light for c in self.prelit)
        program["sheet_image"] = 1
        gl.glActiveTexture(gl.GL_TEXTURE1)
        gl.glBindTexture(gl.GL_TEXTURE_2D, self.texture)


# --- effects: flames and blob shadows (viewer/particles.py) -----------------------------------------

_SPRITE_VS = """#version 330 core
layout(location = 0) in vec3 position;
layout(location = 6) in vec4 colour;
layout(location = 7) in vec2 uv;
uniform mat4 view_proj;
out vec2 v_uv;
out vec4 v_colour;
void main() { v_uv = uv; v_colour = colour; gl_Position = view_proj * vec4(position, 1.0); }
"""
_SPRITE_FS = """#version 330 core
in vec2 v_uv;
in vec4 v_colour;
uniform sampler2D image;
out vec4 frag;
void main() { frag = v_colour * texture(image, v_uv); }
"""
FLAME_IMAGE = "Particle_Flames.bmp"     # the game's flame sprite: no alpha, added to what is behind
BIRTH_IMAGES = tuple(f"Ball_LightningSphere{k}.bmp" for k in (1, 2, 3))    # the birth sphere's, in turn
SHADOW_IMAGE = "HardShadow.bmp"         # the game's shadow: dark on white, so alpha = 1 - brightness


def soft_disc(shadow: bool, size: int = 64) -> np.ndarray:
    """The sprite when the game's image is not there ((size, size, 4) uint8):
    a flame an orange disc fading from its centre to its rim; a shadow black,
    0.8 opaque at its centre fading to nothing at 0.85 of its radius (as the
    game's HardShadow.bmp)."""
    y, x = np.mgrid[0:size, 0:size]
    r = np.hypot(x - (size - 1) / 2.0, y - (size - 1) / 2.0) / (size / 2.0)
    out = np.empty((size, size, 4), np.uint8)
    out[..., :3] = (0, 0, 0) if shadow else (255, 150, 60)
    alpha = 0.8 * np.clip(1.0 - r / 0.85, 0.0, 1.0) if shadow else np.clip(1.0 - r, 0.0, 1.0) ** 1.5
    out[..., 3] = (alpha * 255).astype(np.uint8)
    return out


def sprite_image(path: str | None, shadow: bool) -> np.ndarray:
    """The game's sprite at ``path`` as RGBA (a flame as it is, its black
    pixels marked transparent, which adds nothing as the game blends it,
    so its quads cover only the rest; a shadow black, its alpha the
    darkness), or `soft_disc` without one."""
    if path is None:
        return soft_disc(shadow)
    try:
        rgb = read_image(path)[..., :3].astype(np.float64)
    except (OSError, ValueError) as exc:
        log.warning("sprite %s: %s: a soft disc instead", path, exc)
        return soft_disc(shadow)
    brightness = rgb.mean(axis=-1)
    out = np.empty(rgb.shape[:2] + (4,), np.uint8)
    out[..., :3] = 0 if shadow else rgb
    out[..., 3] = np.clip(255.0 - brightness, 0, 255) if shadow else np.where(brightness > 0, 255, 0)
    return out


class SpriteBatch:
    """Quads ((n, 4, 9): x y z u v r g b a per corner, viewer.particles) drawn
    in one call with a texture and a blend, depth tested but not written."""

    def __init__(self):
        from pyglet.graphics.shader import Shader, ShaderProgram
        self.program = ShaderProgram(Shader(_SPRITE_VS, "vertex"), Shader(_SPRITE_FS, "fragment"))
        self.vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self.vao))
        gl.glBindVertexArray(self.vao)
        self.vertices, self.indices = Buffer(), Buffer()
        self.vertices.upload(np.zeros((4, 9), np.float32))
        gl.glBindBuffer(gl.GL_ELEMENT_ARRAY_BUFFER, self.indices.id)
        for location, size, at in ((0, 3, 0), (7, 2, 3), (6, 4, 5)):
            attribute(location, size, 9, at)
        gl.glBindVertexArray(0)

    def draw(self, quads: np.ndarray, texture, view_proj: tuple, blend: tuple) -> int:
        """The quads with ``texture`` and the GL blend factors ``blend``; the draw calls made."""
        if not len(quads) or texture is None:
            return 0
        n = len(quads)
        tris = (np.arange(n, dtype=np.uint32)[:, None] * 4 + np.array([0, 1, 2, 0, 2, 3], np.uint32)).ravel()
        gl.glBindVertexArray(self.vao)
        self.vertices.upload(quads.reshape(-1, 9))
        self.indices.upload(tris, gl.GL_DYNAMIC_DRAW, gl.GL_ELEMENT_ARRAY_BUFFER)
        self.program.use()
        self.program["view_proj"] = view_proj
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(*blend)
        gl.glDepthMask(gl.GL_FALSE)
        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(gl.GL_TEXTURE_2D, texture)
        gl.glDrawElements(gl.GL_TRIANGLES, len(tris), gl.GL_UNSIGNED_INT, None)
        gl.glDepthMask(gl.GL_TRUE)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        self.program.stop()
        gl.glBindVertexArray(0)
        return 1


class Effects:
    """The behaviours' flames and blob shadows (``behaviors.hooks``;
    viewer/particles.py), drawn after the scene: the shadows darkening what
    they lie on (lifted a little, so they win the depth test), then the
    flames added to what is behind them. The sprites are the game's images
    from its Textures folder when the scene comes from the game folder."""

    SHADOW_LIFT = 0.03          # metres above the surface the shadow lies on

    def __init__(self):
        from .particles import Flames
        self.flames = Flames()
        self.clock = 0.0                        # the behaviour clock, seconds (scrolling textures go by it)
        self.shadows = np.zeros((0, 4))         # x y z radius
        self.spheres = {}                       # the receivers' bounding spheres (picking.pick)
        self.textures = TextureCache()
        self.images = None                      # (flame, shadow) RGBA arrays, once the game folder is known
        self.batch = None
        self.fade = None
        self.sky_light = 1.0
        self.far = None                         # the camera's far plane as the rules set it (None: the lens')
        self.white = np.full((1, 1, 4), 255, np.uint8)  # the fade's texture
        self.births = []                        # (position, age s) of each new ball's birth
        self.birth_images = []                  # the game's lightning sphere images (none: no birth drawn)
        self.drawn = 0                          # frames drawn: the birth sphere's image changes each

    def update(self, session) -> None:
        """This frame's emitters, shadows and sequence fields of the session's behaviours."""
        from behaviors import hooks
        from behaviors.api import manager_of
        from scenes.virtools.game import game_folder

        from .particles import shadow_spot
        ctx = session.ctx
        if self.images is None:
            path = getattr(session.scene, "path", None)
            game = game_folder(path) if path else None
            folder = find_ci(game, TEXTURES_DIR) if game else None
            self.images = tuple(sprite_image(find_ci(folder, name) if folder else None, shadow)
                                for name, shadow in ((FLAME_IMAGE, False), (SHADOW_IMAGE, True)))
            self.flames.looks = dict(getattr(session.scene, "particles", None) or {})
            found = [find_ci(folder, name) for name in BIRTH_IMAGES] if folder else []
            self.birth_images = [f for f in found if f is not None]
        m = manager_of(ctx, create=False)
        self.clock = m.time_ms * 0.001 if m is not None else 0.0
        fields = hooks.hud_fields(ctx)
        self.fade = fields.get("fade")                  # the death's white pulse (0-1), or None
        sky = fields.get("sky")                         # the sky layer's brightness (the finish fades it)
        self.sky_light = 1.0 if sky is None else float(sky)
        self.far = fields.get("far")                    # the finish's far plane (2500), None before it
        emitters = hooks.emitters(ctx)
        self.flames.update(self.clock, emitters)
        age = fields.get("birth")                       # a new ball's birth: its age, at the birth emitters
        self.births = [(e.position, float(age)) for e in emitters if e.kind == "birth"] if age is not None else []
        spots = [(shadow_spot(s, self.spheres), s.radius) for s in hooks.blob_shadows(ctx)]
        self.shadows = np.array([tuple(p) + (r,) for p, r in spots if p is not None], np.float64).reshape(-1, 4)

    def draw(self, view_proj: tuple, camera_world) -> int:
        """The shadows, the flames, a new ball's birth sphere and the death's
        white fade; the draw calls made."""
        from .particles import FULL, billboards, birth_sphere, flat_quads, sprite_crop
        if self.batch is None:
            self.batch = SpriteBatch()
        images = self.images or ()
        flame_tex, shadow_tex = (self.textures.get(img) for img in images) if images else (None, None)
        flame_crop, shadow_crop = (sprite_crop(img[..., 3]) for img in images) if images else (FULL, FULL)
        spots = self.shadows
        lifted = spots[:, :3] + (0.0, self.SHADOW_LIFT, 0.0)
        calls = self.batch.draw(flat_quads(lifted, spots[:, 3], np.ones((len(spots), 4)), shadow_crop), shadow_tex,
                                view_proj, (gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA))
        for blend, (centres, sizes, colours) in self.flames.sprites().items():
            calls += self.batch.draw(billboards(centres, sizes, colours, camera_world, flame_crop), flame_tex, view_proj,
                                     tuple(BLEND_FACTORS.get(f, gl.GL_ONE) for f in blend))
        self.drawn += 1
        for position, age in self.births:
            if self.birth_images:
                image = self.birth_images[self.drawn % len(self.birth_images)]
                calls += self.batch.draw(birth_sphere(position, age), self.textures.get(image), view_proj,
                                         (gl.GL_ONE, gl.GL_ONE))
        if self.fade:                           # over everything: the whole view white by the fade's opacity
            quad = np.zeros((1, 4, 9), np.float32)
            quad[0, :, :2] = ((-1, -1), (1, -1), (1, 1), (-1, 1))
            quad[0, :, 5:] = (1.0, 1.0, 1.0, float(self.fade))
            gl.glDisable(gl.GL_DEPTH_TEST)
            calls += self.batch.draw(quad, self.textures.get(self.white), tuple(float(x) for x in np.eye(4).ravel()),
                                     (gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA))
            gl.glEnable(gl.GL_DEPTH_TEST)
        return calls
