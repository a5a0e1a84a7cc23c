"""Drawing with OpenGL 3.3 core through pyglet: lit meshes, instanced per mesh, and lines.

World matrices are uploaded in VxMatrix memory order, which OpenGL reads as the
column-vector form of the same transform; the view matrix (camera.gl_view) holds
the only change of handedness, so vertices, normals and the light stay in
Virtools coordinates up to the projection. The Z flip reverses triangle winding:
a Virtools front face (clockwise as Direct3D sees it) is clockwise here too, so
single-sided materials cull with glFrontFace(GL_CW); the others are not culled
and the fragment shader lights the side facing the eye.
Call `display.configure` before importing this module.
"""

from __future__ import annotations

import ctypes
from dataclasses import replace

import numpy as np
from pyglet import gl
from pyglet.graphics.shader import Shader, ShaderProgram

from . import camera
from .drawlist import SKY, Group, MeshKeys, frustum_planes, indexed, shade_normals
from .gpu import Buffer, attribute, instanced_vao
from .lighting import MAX_LIGHTS, SUN, Lighting
from .sky import SkyPass, sky_ray
from .static import StaticLayer
from .textures import SKY_DISTORTION, LookBatch, MeshPrograms, SkyBox, TextureCache, has_uniform, set_surface

_HEADER = """#version 330 core
#define MAX_LIGHTS %d
#define N_DIRECTIONAL %d                    // the light counts are constants: llvmpipe runs loops of a
#define N_POINTS %d                         // uniform length several times slower per pixel
#define ALPHA_TEST %d                       // the program of alpha-tested parts (a discard slows all its pixels)
#define ENV_MAP %d                          // the program of environment-mapped parts (their texture reflected)
#define TEXTURED %d                         // the program of textured parts
#define TINTED %d                           // the program of tinted parts: their colour clamped per pixel
"""
_LIGHTS = """
uniform vec3 eye;
uniform vec3 to_light[MAX_LIGHTS];          // unit, towards each directional light
uniform vec3 directional_colour[MAX_LIGHTS];
uniform vec3 point_position[MAX_LIGHTS];
uniform vec3 point_colour[MAX_LIGHTS];
uniform float part_power;                   // the highlight's exponent (0: none)
vec3 n;
vec3 to_eye;
vec3 shine;
vec3 lit(vec3 l, vec3 colour) {             // diffuse; adds the highlight to shine
    float facing = dot(n, l);
    if (facing <= 0.0) return vec3(0.0);
    if (part_power > 0.0) shine += colour * pow(max(dot(reflect(-l, n), to_eye), 0.0), part_power);
    return colour * facing;
}
vec3 lights(vec3 at, vec3 normal) {         // the diffuse light at a point; the highlight in shine
    n = normalize(normal);
    to_eye = normalize(eye - at);
    if (dot(n, to_eye) < 0.0) n = -n;
    shine = vec3(0.0);
    vec3 light = vec3(0.0);
    for (int i = 0; i < N_DIRECTIONAL; ++i) light += lit(to_light[i], directional_colour[i]);
    for (int i = 0; i < N_POINTS; ++i) light += lit(normalize(point_position[i] - at), point_colour[i]);
    return light;
}
"""
# A part's pixel is (look == 1: its part_colour x the texel, its tint added and clamped; look == 0: the
# instance's colour) lit: unlit == 1, times prelit; else the ambient and emissive terms times it (shaded:
# times the texel only) plus it times the diffuse light plus part_specular times the highlight. Untinted,
# that is the texel times a colour plus a colour, both linear in what is lit per vertex: the vertex
# shader computes them and a pixel does one multiply-add (llvmpipe pays per varying and per operation of
# every pixel). TINTED keeps the per-pixel form (a clamp is not linear).
_UNIFORMS = """
uniform int look;                           // a part of a look (textures.py): its colour and texture,
uniform vec4 part_colour;                   // the instance's colour then holds the tint added to it
uniform int unlit;                          // a prelit part: its colour times prelit, no lighting
uniform vec3 prelit;
uniform vec3 ambient;
uniform vec3 part_ambient;                  // the part's lighting (scenes.virtools.looks.Shading): the ambient
uniform vec3 part_emissive;                 // light times part_ambient, plus part_emissive, plus the diffuse
uniform vec3 part_specular;                 // light; the highlight part_specular x light ^ part_power
uniform float shaded;                       // 1: the part's own Shading (the diffuse colour lights only the
                                            // diffuse light); 0: the viewer's (its colour lights all)
"""

_MESH_VS = _HEADER + """
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec4 model_row0;   // a VxMatrix's rows are the columns
layout(location = 3) in vec4 model_row1;   // of the same transform for GL
layout(location = 4) in vec4 model_row2;
layout(location = 5) in vec4 model_row3;
layout(location = 6) in vec4 colour;
layout(location = 7) in vec2 uv;
uniform mat4 view_proj;
out vec2 v_uv;
""" + _LIGHTS + _UNIFORMS + """
out vec4 v_scale;                           // lit per vertex, as Direct3D's fixed function (docs/viewer.md):
out vec3 v_add;                             // the pixel is texel x v_scale + v_add
#if TINTED
out vec3 v_tint;
out vec3 v_light;
#endif
#if ENV_MAP
uniform mat3 view_axes;                     // rows: the camera's right, up and backward axes
#endif
void main() {
    v_uv = uv;
    mat4 model = mat4(model_row0, model_row1, model_row2, model_row3);
    vec4 world = model * vec4(position, 1.0);
    gl_Position = view_proj * world;
    vec3 light = lights(world.xyz, mat3(model) * normal);
    vec4 base = look == 1 ? part_colour : colour;           // the pixel's colour over the texel
    if (unlit == 1) {
        v_scale = vec4(base.rgb * prelit, base.a);
        v_add = vec3(0.0);
    } else {
        v_scale = vec4(mix(base.rgb, vec3(1.0), shaded) * (ambient * part_ambient + part_emissive)
                       + base.rgb * light, base.a);
        v_add = part_specular * shine;
    }
#if TINTED
    v_tint = colour.rgb;
    v_light = light;
#endif
#if ENV_MAP
    vec3 r = view_axes * reflect(-to_eye, n);   // a sphere map, as Direct3D's texgen
    v_uv = vec2(0.5, 0.5) + vec2(r.x, -r.y) / (2.0 * sqrt(r.x * r.x + r.y * r.y + (r.z + 1.0) * (r.z + 1.0)));
#endif
}
"""

_MESH_FS = _HEADER + """
in vec2 v_uv;
in vec4 v_scale;
in vec3 v_add;
uniform vec2 uv_offset;                     // the texture's scroll (a sky layer's) now
#if ALPHA_TEST
uniform int alpha_func;                     // the alpha test (virtools-nmo.md 3.5): the pixel's alpha
uniform float alpha_ref;                    // x 255 compared with alpha_ref
#endif
uniform sampler2D image;
out vec4 frag;
#if ALPHA_TEST
bool alpha_passes(float alpha) {
    float a = floor(alpha * 255.0 + 0.5);
    if (alpha_func == 1) return false;
    if (alpha_func == 2) return a < alpha_ref;
    if (alpha_func == 3) return a == alpha_ref;
    if (alpha_func == 4) return a <= alpha_ref;
    if (alpha_func == 5) return a > alpha_ref;
    if (alpha_func == 6) return a != alpha_ref;
    if (alpha_func == 7) return a >= alpha_ref;
    return true;
}
#endif
#if TINTED
""" + _UNIFORMS + """
in vec3 v_tint;
in vec3 v_light;
#endif
void main() {
    vec4 texel = vec4(1.0);
#if TEXTURED && ENV_MAP
    texel = texture(image, v_uv);
#elif TEXTURED
    texel = texture(image, v_uv + uv_offset);
#endif
#if TINTED
    vec4 base = vec4(clamp(part_colour.rgb * texel.rgb + v_tint, 0.0, 1.0), v_scale.a * texel.a);
    vec3 under = mix(base.rgb, texel.rgb, shaded);  // what the ambient and emissive terms light
    frag = unlit == 1 ? vec4(base.rgb * prelit, base.a)
                      : vec4(under * (ambient * part_ambient + part_emissive) + base.rgb * v_light + v_add, base.a);
#else
    frag = texel * v_scale + vec4(v_add, 0.0);
#endif
#if ALPHA_TEST
    if (!alpha_passes(frag.a)) discard;
#endif
}
"""

_LINE_VS = """#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 colour;
uniform mat4 view_proj;
out vec4 v_colour;
void main() {
    v_colour = colour;
    gl_Position = view_proj * vec4(position, 1.0);
}
"""

_LINE_FS = """#version 330 core
in vec4 v_colour;
out vec4 frag;
void main() { frag = v_colour; }
"""


def _gl_matrix(m: np.ndarray) -> tuple:
    """A column-vector matrix as the 16 floats OpenGL reads column by column."""
    return tuple(float(x) for x in np.asarray(m, dtype=np.float64).T.ravel())


def _vec3_array(program, name: str, rows) -> None:
    """Set a `uniform vec3 name[MAX_LIGHTS]` of the program in use (unused rows zero)."""
    data = np.zeros((MAX_LIGHTS, 3), dtype=np.float32)
    if len(rows):
        data[:len(rows)] = rows
    location = gl.glGetUniformLocation(program.id, name.encode())
    gl.glUniform3fv(location, MAX_LIGHTS, data.ctypes.data_as(ctypes.POINTER(gl.GLfloat)))


class _MeshBatch:
    """One mesh on the GPU with its instance buffer: one draw call per frame."""

    def __init__(self, mesh):
        vertices, indices = indexed(shade_normals(mesh.vertices, mesh.faces,
                                                  where=f"mesh {getattr(mesh, 'name', '?')!r}"))
        self.index_count = len(indices)
        self.vao, self.indices, self.vertices, self.instances = instanced_vao(vertices, indices, ((0, 3), (1, 3)))

    def draw(self, instance_data: np.ndarray) -> None:
        self.instances.upload(instance_data)
        gl.glBindVertexArray(self.vao)
        gl.glDrawElementsInstanced(gl.GL_TRIANGLES, self.index_count, gl.GL_UNSIGNED_INT, None,
                                   len(instance_data))
        gl.glBindVertexArray(0)


class Renderer:
    """Draws groups of mesh instances and coloured line segments from a camera."""

    def __init__(self, sky=SKY, lens: camera.Lens = camera.BALLANCE_LENS, lighting: Lighting = SUN):
        self.sky = tuple(sky)
        self.lens = lens
        self.lighting = lighting
        self._mesh_programs = {}        # (directional, point lights) -> the mesh program for them
        self.line_program = ShaderProgram(Shader(_LINE_VS, "vertex"), Shader(_LINE_FS, "fragment"))
        self.mesh_keys = MeshKeys()
        self._batches: dict[str, _MeshBatch | LookBatch] = {}
        self.textures = TextureCache()
        self.static = StaticLayer(self.textures)     # the entities that stand still, per material
        self.sky_box = None             # textures.SkyBox: an imported level's sky, behind everything
        self.sky_pass = SkyPass()       # it is drawn at a lower resolution (sky.py)
        self.draw_calls = 0
        self._line_vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self._line_vao))
        gl.glBindVertexArray(self._line_vao)
        self._line_buffer = Buffer()
        self._line_buffer.upload(np.zeros((2, 7), dtype=np.float32))
        attribute(0, 3, 7, 0)
        attribute(1, 4, 7, 3)
        gl.glBindVertexArray(0)

    def mesh_program(self, alpha_test: bool = False, env_map: bool = False, textured: bool = False,
                     tinted: bool = False) -> ShaderProgram:
        """The mesh program for the lighting's numbers of lights (with the
        alpha test or without, environment-mapping or not, textured or not,
        tinted or not), compiled once each; every mesh is lit per vertex."""
        key = (len(self.lighting.directional), len(self.lighting.points), alpha_test, env_map, textured, tinted)
        p = self._mesh_programs.get(key)
        if p is None:
            defines = (MAX_LIGHTS, *key[:2], *(int(k) for k in key[2:]))
            p = self._mesh_programs[key] = ShaderProgram(Shader(_MESH_VS % defines, "vertex"),
                                                         Shader(_MESH_FS % defines, "fragment"))
        return p

    def batch(self, key: str, mesh, look=None) -> _MeshBatch | LookBatch:
        b = self._batches.get(key)
        if b is None:
            b = self._batches[key] = (_MeshBatch(mesh) if look is None else
                                      LookBatch(mesh, look, self.textures))
        return b

    def use_sky(self, images) -> None:
        """The sky prism with these five images (scenes.virtools.game.SKY_FACES order; None: none)."""
        if images is None:
            self.sky_box = None
        elif self.sky_box is None or self.sky_box.images != tuple(images):
            self.sky_box = SkyBox(images, self.textures)

    def draw(self, groups: dict[str, Group], camera_world, viewport: tuple[int, int],
             segments: np.ndarray | None = None, segment_colours: np.ndarray | None = None,
             effects=None) -> None:
        """Clear to the sky and draw the groups (their settled entities from the
        static layer), the ``effects`` (textures.Effects: flames, blob shadows),
        then the segments ((k, 2, 3) world points) on top of them."""
        width, height = viewport
        gl.glViewport(0, 0, width, height)
        gl.glClearColor(*self.sky, 1.0)
        far = effects.far if effects is not None else None
        lens = self.lens if far is None else replace(self.lens, far=float(far))    # the finish's, 2500
        view_proj = lens.perspective(width / height) @ camera.gl_view(camera_world)
        eye = tuple(float(x) for x in np.asarray(camera_world)[3, :3])
        axes = np.asarray(camera_world, dtype=np.float64)[:3, :3] * np.array([[1.0], [1.0], [-1.0]])

        def frame(p) -> None:                   # a program's uniforms for this frame, at its first use
            p["view_proj"] = _gl_matrix(view_proj)
            if has_uniform(p, "eye"):             # used by the lights' highlights only
                p["eye"] = eye
            if has_uniform(p, "view_axes"):
                p["view_axes"] = tuple(float(x) for x in axes.T.ravel())  # GL reads columns
            self._set_lights(p)

        groups = self.static.split(groups)
        planes = frustum_planes(view_proj)
        self.static.culled = 0
        clock = effects.clock if effects is not None else 0.0     # the behaviour clock: textures scroll on it
        sky_light = effects.sky_light if effects is not None else 1.0
        sheet = None
        if self.sky_box is not None:            # into its own target first (sky.py), spread after the opaque
            turn = np.array(camera_world, dtype=np.float64)
            turn[3, :3] = 0.0                   # the camera's rotation only
            sheet = self.static.sky_sheet()     # the cloud sheet in the same pass: its pixels shaded once
            sky_lens = lens.widened(SKY_DISTORTION, width / height)
            sky_view_proj = sky_lens.perspective(width / height) @ camera.gl_view(turn)
            ray = sky_ray(lens, sky_lens, width / height, camera_world)
            self.sky_pass.render(viewport, lambda: self.sky_box.draw(sky_view_proj, ray, sheet, camera_world,
                                                                     lens.far, clock, sky_light),
                                 (self.sky_box, sheet, self.sky, sky_view_proj.tobytes(),
                                  np.asarray(camera_world, dtype=np.float64).tobytes(), lens.far, clock, sky_light))
        gl.glClear(gl.GL_COLOR_BUFFER_BIT | gl.GL_DEPTH_BUFFER_BIT)
        gl.glEnable(gl.GL_DEPTH_TEST)
        gl.glDepthFunc(gl.GL_LESS)
        gl.glFrontFace(gl.GL_CW)
        gl.glCullFace(gl.GL_BACK)
        programs = MeshPrograms(self.mesh_program, frame)
        programs.reset()
        self.draw_calls = self.static.draw(programs, opaque=True, planes=planes, clock=clock)
        if self.sky_box is not None:            # behind everything: only where nothing opaque is
            programs.stop()
            self.sky_pass.spread(viewport)
        self.draw_calls += self.static.draw(programs, opaque=False, planes=planes, clock=clock,
                                            sky_drawn=sheet is not None, sky_light=sky_light)
        for key, group in groups.items():
            b = self.batch(key, group.mesh, group.look)
            if group.look is None:
                programs.pick(None)
                data = group.instance_data()
                opaque = bool((data[:, 19] == 1.0).all())      # blending alpha 1 gives the same pixels, slower
                if opaque:
                    gl.glDisable(gl.GL_BLEND)
                b.draw(data)
                if opaque:
                    gl.glEnable(gl.GL_BLEND)
                self.draw_calls += 1
            else:
                self.draw_calls += b.draw(group.instance_data(), programs, clock)
        programs.stop()
        if effects is not None:
            self.draw_calls += effects.draw(_gl_matrix(view_proj), camera_world)
        if segments is not None and len(segments):
            self._draw_segments(view_proj, segments, segment_colours)
        gl.glDisable(gl.GL_DEPTH_TEST)

    def _set_lights(self, p) -> None:
        lights = self.lighting
        p["ambient"] = tuple(lights.ambient)
        for name, rows in (("to_light", [d for d, _ in lights.directional]),
                           ("directional_colour", [c for _, c in lights.directional]),
                           ("point_position", [q for q, _ in lights.points]),
                           ("point_colour", [c for _, c in lights.points])):
            _vec3_array(p, name, rows)

    def _draw_segments(self, view_proj, segments, colours) -> None:
        k = len(segments)
        data = np.empty((k, 2, 7), dtype=np.float32)
        data[:, :, :3] = np.asarray(segments, dtype=np.float32).reshape(k, 2, 3)
        data[:, :, 3:] = np.asarray(colours, dtype=np.float32).reshape(k, 1, 4)
        self._line_buffer.upload(data.reshape(-1, 7))
        p = self.line_program
        p.use()
        p["view_proj"] = _gl_matrix(view_proj)
        gl.glDisable(gl.GL_DEPTH_TEST)          # overlays show through the bodies
        gl.glBindVertexArray(self._line_vao)
        gl.glDrawArrays(gl.GL_LINES, 0, 2 * k)
        gl.glBindVertexArray(0)
        p.stop()
        self.draw_calls += 1


def max_image_size() -> tuple[int, int]:
    """The largest (width, height) the current GL context renders into: its
    renderbuffer size and viewport dimensions, the smaller of each."""
    rb = gl.GLint()
    gl.glGetIntegerv(gl.GL_MAX_RENDERBUFFER_SIZE, ctypes.byref(rb))
    dims = (gl.GLint * 2)()
    gl.glGetIntegerv(gl.GL_MAX_VIEWPORT_DIMS, dims)
    return min(rb.value, dims[0]), min(rb.value, dims[1])


class Offscreen:
    """A framebuffer of a given size to render into and read back (screenshots, video).

    Drawing goes to a multisampled buffer that `read` resolves into a plain one.
    """

    def __init__(self, width: int, height: int, samples: int = 4):
        if width < 1 or height < 1:
            raise ValueError(f"render: image size must be positive, got {width}x{height}")
        max_w, max_h = max_image_size()
        if width > max_w or height > max_h:
            raise ValueError(f"an image of {width}x{height} is more than this GL draws, {max_w}x{max_h} "
                             "at most (GL_MAX_RENDERBUFFER_SIZE, GL_MAX_VIEWPORT_DIMS): ask for a smaller --size")
        self.width, self.height = int(width), int(height)
        self._draw = self._framebuffer(samples)
        self._resolve = self._framebuffer(0)

    def _framebuffer(self, samples: int):
        """Colour and depth renderbuffers; 0 samples is single-sampled."""
        fbo = gl.GLuint()
        gl.glGenFramebuffers(1, ctypes.byref(fbo))
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, fbo)
        for fmt, attachment in ((gl.GL_RGBA8, gl.GL_COLOR_ATTACHMENT0),
                                (gl.GL_DEPTH_COMPONENT24, gl.GL_DEPTH_ATTACHMENT)):
            rb = gl.GLuint()
            gl.glGenRenderbuffers(1, ctypes.byref(rb))
            gl.glBindRenderbuffer(gl.GL_RENDERBUFFER, rb)
            gl.glRenderbufferStorageMultisample(gl.GL_RENDERBUFFER, samples, fmt, self.width, self.height)
            gl.glFramebufferRenderbuffer(gl.GL_FRAMEBUFFER, attachment, gl.GL_RENDERBUFFER, rb)
        status = gl.glCheckFramebufferStatus(gl.GL_FRAMEBUFFER)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
        if status != gl.GL_FRAMEBUFFER_COMPLETE:
            raise RuntimeError(f"render: framebuffer incomplete (status 0x{status:x})")
        return fbo

    def bind(self) -> None:
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, self._draw)
        gl.glViewport(0, 0, self.width, self.height)

    def read(self) -> np.ndarray:
        """The image as (height, width, 3) uint8, top row first; unbinds."""
        w, h = self.width, self.height
        gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, self._draw)
        gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, self._resolve)
        gl.glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, gl.GL_COLOR_BUFFER_BIT, gl.GL_NEAREST)
        gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, self._resolve)
        pixels = np.empty((h, w, 4), dtype=np.uint8)
        gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
        gl.glReadPixels(0, 0, w, h, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, pixels.ctypes.data)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
        return np.ascontiguousarray(pixels[::-1, :, :3])
