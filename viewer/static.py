"""Entities that stand still drawn from world-space vertex buffers, one draw
call per material, built once (docs/viewer.md "Drawing").

An entity whose world matrix and colour have not changed for ``SETTLE_FRAMES``
drawn frames joins the static layer: its triangles, moved to world space and
tinted, go into the buffer of each of its materials (a look's part: colour and
texture; plain-coloured meshes share one). An entity that moves, changes
colour or is hidden leaves the layer (the buffers it was in are rebuilt from
cached pieces) and is drawn instanced again until it has settled anew. So a
level's hundreds of entities cost as many draw calls as it has materials, and
nothing of them is uploaded while they stand still. A bucket's triangles are
kept in squares of CELL metres (by each member's centre); the squares whose
bounding sphere lies outside the view are left out of its one draw call
(glMultiDrawElements over the others).
Call `display.configure` before importing this module.
"""

from __future__ import annotations

import ctypes

import numpy as np
from pyglet import gl

from .drawlist import Group, indexed, shade_normals, spheres_in_frustum
from .gpu import Buffer, attribute
from .textures import SkySheet, look_corners, set_part, set_surface, surface_texture, unit_colour

SETTLE_FRAMES = 30
CELL = 64.0                             # metres: a bucket's members are culled in squares of this side (XZ)
_PLAIN = ("plain", None, None, None, (0.0, 0.0), None, None)     # bucket keys: (kind, part colour, GL texture,
#                                                                   Surface, texture scroll, prelit colour, Shading)


def _pieces(mesh, look, textures) -> list:
    """The mesh's indexed triangles split by material: [(bucket key, part colour,
    GL texture, Surface, texture scroll, prelit colour, Shading, vertices (k, 8):
    x y z nx ny nz u v, indices (m,) uint32)]."""
    if look is None:
        corners = shade_normals(mesh.vertices, mesh.faces, where=f"mesh {getattr(mesh, 'name', '?')!r}")
        rows = np.zeros((len(corners), 8), dtype=np.float32)
        rows[:, :6] = corners
        vertices, indices = indexed(rows)
        return [(_PLAIN, None, None, None, (0.0, 0.0), None, None, vertices, indices)]
    corners, ranges = look_corners(mesh, look)
    out = []
    for (first, count), part in zip(ranges, look.parts):
        if not count:
            continue
        vertices, indices = indexed(corners[first:first + count])
        tex = surface_texture(part, textures)
        colour = tuple(float(c) for c in part.colour)
        scroll = tuple(part.uv_scroll)
        prelit = None if part.prelit is None else tuple(part.prelit)
        out.append((("look", colour, None if tex is None else tex.value, part.surface, scroll, prelit, part.shading),
                    colour, tex, part.surface, scroll, prelit, part.shading, vertices, indices))
    return out


class _Bucket:
    """One material's triangles of the static entities, in one vertex array."""

    def __init__(self, colour, texture, opaque_texture: bool, surface=None, scroll=(0.0, 0.0), prelit=None,
                 shading=None):
        self.colour, self.texture, self.surface, self.scroll, self.prelit = colour, texture, surface, scroll, prelit
        self.shading = shading
        self.opaque_texture = opaque_texture
        self.tinted = False              # a look's part with a tint (or a colour beyond 0..1): clamped per pixel
        self.opaque = False              # drawn before the sky: not blended (a surface without alpha
        #                                  blending), or alpha 1 everywhere (the viewer's default)
        self.members: dict = {}          # entity -> (vertices (k, 8) mesh frame, indices, matrix, tint)
        self.dirty = True
        self.count = 0
        self.cells = []                  # [square, first index, index count], with their spheres:
        self.centres = np.zeros((0, 3))
        self.radii = np.zeros(0)
        self.vao = gl.GLuint()
        gl.glGenVertexArrays(1, ctypes.byref(self.vao))
        gl.glBindVertexArray(self.vao)
        self.vertices, self.indices = Buffer(), Buffer()
        self.vertices.upload(np.zeros((1, 12), dtype=np.float32))
        gl.glBindBuffer(gl.GL_ELEMENT_ARRAY_BUFFER, self.indices.id)
        for location, size, at in ((0, 3, 0), (1, 3, 3), (7, 2, 6), (6, 4, 8)):
            attribute(location, size, 12, at)
        gl.glBindVertexArray(0)

    def rebuild(self) -> None:
        """The members' triangles in world space (as the instanced shader moves
        them) into the buffers, square by square (CELL), with each square's
        index range and bounding sphere."""
        placed = []
        for vertices, indices, matrix, tint in self.members.values():
            m = np.asarray(matrix, dtype=np.float64).reshape(4, 4)
            r = np.empty((len(vertices), 12), dtype=np.float32)
            r[:, :3] = vertices[:, :3] @ m[:3, :3] + m[3, :3]
            r[:, 3:6] = vertices[:, 3:6] @ m[:3, :3]
            r[:, 6:8] = vertices[:, 6:8]
            r[:, 8:] = tint
            lo, hi = r[:, :3].min(axis=0), r[:, :3].max(axis=0)
            cell = tuple(np.floor((lo + hi)[[0, 2]] * 0.5 / CELL).astype(int)) if len(r) else (0, 0)
            placed.append((cell, r, indices, lo, hi))
        placed.sort(key=lambda p: p[0])
        rows, tris, at, first, self.cells, spheres = [], [], 0, 0, [], []
        for cell, r, indices, lo, hi in placed:
            if not self.cells or self.cells[-1][0] != cell:
                self.cells.append([cell, first, 0])
                spheres.append([lo, hi])
            self.cells[-1][2] += len(indices)
            first += len(indices)
            spheres[-1] = [np.minimum(spheres[-1][0], lo), np.maximum(spheres[-1][1], hi)]
            rows.append(r)
            tris.append(indices + at)
            at += len(r)
        self.centres = np.array([(lo + hi) * 0.5 for lo, hi in spheres]).reshape(-1, 3)
        self.radii = np.array([np.linalg.norm(hi - lo) * 0.5 for lo, hi in spheres])
        self.count = sum(len(t) for t in tris)
        tints_opaque = all(float(tint[3]) == 1.0 for *_, tint in self.members.values())
        self.tinted = self.colour is not None and (not unit_colour(self.colour) or any(
            np.any(tint[:3]) for *_, tint in self.members.values()))
        if self.surface is not None:
            self.opaque = self.surface.blend is None
        else:
            self.opaque = tints_opaque if self.colour is None else \
                self.colour[3] == 1.0 and (self.texture is None or self.opaque_texture)
        if self.count:
            gl.glBindVertexArray(self.vao)
            self.vertices.upload(np.concatenate(rows), gl.GL_STATIC_DRAW)
            self.indices.upload(np.concatenate(tris), gl.GL_STATIC_DRAW, gl.GL_ELEMENT_ARRAY_BUFFER)
            gl.glBindVertexArray(0)
        self.dirty = False

    def draw(self, programs, visible=None, clock: float = 0.0, sky_light: float = 1.0) -> None:
        """One call: every square, or those ``visible`` says (a bool per square);
        the texture scrolled to ``clock`` (seconds); ``programs`` a
        textures.MeshPrograms; a sky layer's prelit colour times ``sky_light``."""
        program = programs.pick(self.surface, self.shading, self.texture is not None, self.tinted)
        set_surface(self.surface)
        if self.opaque:                  # alpha 1 everywhere: blending would give the same pixels, slower
            gl.glDisable(gl.GL_BLEND)
        sky = self.surface is not None and self.surface.sky and self.prelit is not None
        prelit = tuple(c * sky_light for c in self.prelit) if sky else self.prelit
        set_part(program, self.scroll, prelit, clock, self.shading)
        if self.colour is None:
            program["look"] = 0
        else:
            program["look"] = 1
            program["part_colour"] = self.colour
            if self.texture is not None:
                gl.glActiveTexture(gl.GL_TEXTURE0)
                gl.glBindTexture(gl.GL_TEXTURE_2D, self.texture)
        gl.glBindVertexArray(self.vao)
        if visible is None or visible.all():
            gl.glDrawElements(gl.GL_TRIANGLES, self.count, gl.GL_UNSIGNED_INT, None)
        else:
            shown = [c for c, v in zip(self.cells, visible) if v]
            counts = (gl.GLsizei * len(shown))(*(c[2] for c in shown))
            offsets = (ctypes.c_void_p * len(shown))(*(4 * c[1] for c in shown))
            gl.glMultiDrawElements(gl.GL_TRIANGLES, counts, gl.GL_UNSIGNED_INT,
                                   ctypes.cast(offsets, ctypes.POINTER(gl.GLvoid)), len(shown))
        gl.glBindVertexArray(0)


class StaticLayer:
    """The settled entities' buckets; `split` takes them out of the frame's groups."""

    def __init__(self, textures):
        self.textures = textures
        self.pieces: dict[str, list] = {}       # group key -> _pieces
        self.buckets: dict[tuple, _Bucket] = {}
        self.settling: dict = {}                 # entity -> (state, drawn frames unchanged)
        self.placed: dict = {}                   # entity -> (state, bucket keys)
        self.culled = 0                          # squares left out by the draws since it was set to 0
        self._sheet = (None, None)               # (the sky layer's member, its SkySheet): made once a placing

    def split(self, groups: dict[str, Group]) -> dict[str, Group]:
        """The groups without the static entities; entities that settled join
        the buckets, those that changed or are not drawn any more leave them."""
        out = {}
        seen = set()
        for key, g in groups.items():
            keep = []
            for k, e in enumerate(g.entities):
                seen.add(e)
                state = (np.asarray(g.matrices[k], dtype=np.float32).tobytes(), tuple(g.colours[k]))
                placed = self.placed.get(e)
                if placed is not None and placed[0] == state:
                    continue
                if placed is not None:
                    self._leave(e)
                before = self.settling.get(e)
                frames = before[1] + 1 if before is not None and before[0] == state else 0
                if frames >= SETTLE_FRAMES:
                    self._join(e, key, g, k, state)
                    self.settling.pop(e, None)
                    continue
                self.settling[e] = (state, frames)
                keep.append(k)
            if keep:
                out[key] = Group(g.mesh, [g.matrices[k] for k in keep], [g.colours[k] for k in keep],
                                 [g.entities[k] for k in keep], g.look)
        for e in [e for e in self.placed if e not in seen]:
            self._leave(e)
        for e in [e for e in self.settling if e not in seen]:
            del self.settling[e]
        for key in [k for k in self.pieces if k not in groups]:      # meshes of a scene reloaded or gone
            del self.pieces[key]
        return out

    def _join(self, e, key: str, g: Group, k: int, state) -> None:
        if key not in self.pieces:
            self.pieces[key] = _pieces(g.mesh, g.look, self.textures)
        keys = []
        for bucket_key, colour, tex, surface, scroll, prelit, shading, vertices, indices in self.pieces[key]:
            b = self.buckets.get(bucket_key)
            if b is None:
                b = self.buckets[bucket_key] = _Bucket(colour, tex, tex is not None and self.textures.opaque(tex),
                                                       surface, scroll, prelit, shading)
            b.members[e] = (vertices, indices, g.matrices[k], np.asarray(g.colours[k], dtype=np.float32))
            b.dirty = True
            keys.append(bucket_key)
        self.placed[e] = (state, keys)

    def _leave(self, e) -> None:
        _, keys = self.placed.pop(e)
        for bucket_key in keys:
            b = self.buckets[bucket_key]
            del b.members[e]
            b.dirty = True

    def sky_sheet(self) -> SkySheet | None:
        """The settled sky layer (a bucket of a Surface with ``sky``) as a
        SkySheet, if it is one entity that is one; else None."""
        for b in self.buckets.values():
            if b.surface is not None and b.surface.sky and len(b.members) == 1:
                member = next(iter(b.members.values()))      # a new tuple each time it is placed
                if self._sheet[0] is not member:
                    vertices, indices, matrix, tint = member
                    m = np.asarray(matrix, dtype=np.float64).reshape(4, 4)
                    self._sheet = (member, SkySheet.of(vertices[:, :3] @ m[:3, :3] + m[3, :3], vertices[:, 6:8],
                                                       indices, colour=b.colour, tint=tint, texture=b.texture,
                                                       scroll=b.scroll, prelit=b.prelit))
                return self._sheet[1]
        return None

    def draw(self, programs, opaque: bool, planes=None, clock: float = 0.0, sky_drawn: bool = False,
             sky_light: float = 1.0) -> int:
        """The opaque buckets or the others, each with members in one call
        (identity model rows), without its squares outside the view's
        ``planes`` (drawlist.frustum_planes; None: all), textures scrolled to
        ``clock``, with ``programs`` (textures.MeshPrograms), without the sky
        layer if ``sky_drawn`` (the sky's pass drew it), else its brightness
        times ``sky_light``; the draw calls made."""
        for location, row in enumerate(np.eye(4, dtype=np.float32), start=2):
            gl.glVertexAttrib4f(location, *(float(x) for x in row))
        calls = 0
        for key in sorted(self.buckets, key=lambda k: (k[2] or 0, k[0])):     # by texture
            b = self.buckets[key]
            if b.dirty:
                b.rebuild()
            if not b.count or b.opaque != opaque or (sky_drawn and b.surface is not None and b.surface.sky):
                continue
            visible = None if planes is None else spheres_in_frustum(planes, b.centres, b.radii)
            if visible is not None and not visible.any():
                self.culled += len(visible)
                continue
            b.draw(programs, visible, clock, sky_light)
            self.culled += 0 if visible is None else int((~visible).sum())
            calls += 1
        programs.reset()
        return calls
