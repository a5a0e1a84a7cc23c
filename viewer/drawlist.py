"""What to draw this frame, gathered from the entities (no OpenGL here).

Entities whose meshes have the same vertices and faces form one group; the
renderer draws each group with one instanced call, so 1000 balls cost one draw
call however the scene built their meshes.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

CREASE_DEG = 40.0
SKY = (0.55, 0.70, 0.90)      # the clear colour when the scene names none


def shade_normals(vertices, faces, crease_deg: float = CREASE_DEG, where: str = "mesh") -> np.ndarray:
    """Triangle corners with normals, as a (3 m, 6) float32 array (x y z nx ny nz).

    A corner's normal is the area-weighted mean of the face normals around its
    vertex that lie within `crease_deg` of its own face's, so a sphere is smooth
    and a box keeps its edges.
    """
    v = np.asarray(vertices, dtype=np.float64)
    f = np.asarray(faces)
    if v.ndim != 2 or v.shape[1] != 3 or f.ndim != 2 or f.shape[1] != 3:
        raise ValueError(f"{where}: vertices must be (n, 3) and faces (m, 3), "
                         f"got {v.shape} and {f.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{where}: vertices contain NaN or infinite values")
    if f.size and (f.min() < 0 or f.max() >= len(v)):
        raise ValueError(f"{where}: a face indexes a vertex outside 0..{len(v) - 1}")
    f = f.astype(np.int64)
    corners = v[f]                                          # (m, 3, 3)
    area_normals = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    lengths = np.linalg.norm(area_normals, axis=1)
    unit = area_normals / np.where(lengths > 0.0, lengths, 1.0)[:, None]
    normals = np.repeat(unit, 3, axis=0)                    # flat by default
    cos_crease = math.cos(math.radians(crease_deg))
    vertex_of_corner = f.ravel()
    face_of_corner = np.repeat(np.arange(len(f)), 3)
    order = np.argsort(vertex_of_corner, kind="stable")
    bounds = np.flatnonzero(np.diff(vertex_of_corner[order])) + 1
    for group in np.split(order, bounds):
        if len(group) < 2:
            continue
        faces_here = face_of_corner[group]
        u = unit[faces_here]
        close = (u @ u.T) >= cos_crease
        smooth = close.astype(np.float64) @ area_normals[faces_here]
        norm = np.linalg.norm(smooth, axis=1)
        ok = norm > 0.0
        normals[group[ok]] = smooth[ok] / norm[ok, None]
    out = np.empty((len(f) * 3, 6), dtype=np.float32)
    out[:, :3] = corners.reshape(-1, 3)
    out[:, 3:] = normals
    return out


def indexed(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Corners sharing position and normal merged: (unique (k, 6), indices (3 m,) uint32),
    so each vertex is transformed once however many triangles use it."""
    unique, inverse = np.unique(corners, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1).astype(np.uint32)


def mesh_key(mesh) -> str:
    """A key equal for meshes with the same vertices and faces."""
    h = hashlib.blake2b(digest_size=16)
    for a in (np.ascontiguousarray(mesh.vertices, dtype=np.float32),
              np.ascontiguousarray(mesh.faces, dtype=np.int32)):
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def bounding_sphere(mesh) -> tuple[np.ndarray, float]:
    """Centre and radius (mesh frame) of a sphere holding every vertex."""
    v = np.asarray(mesh.vertices, dtype=np.float64)
    if len(v) == 0:
        return np.zeros(3), 0.0
    centre = (v.min(axis=0) + v.max(axis=0)) / 2.0
    return centre, float(np.linalg.norm(v - centre, axis=1).max())


@dataclass
class Group:
    """Instances of one mesh: world matrices (n, 4, 4) in VxMatrix layout and colours (n, 4);
    with a ``look`` (materials and textures, viewer/textures.py) the colours are tints added to it."""
    mesh: object
    matrices: list = field(default_factory=list)
    colours: list = field(default_factory=list)
    entities: list = field(default_factory=list)
    look: object = None

    def instance_data(self) -> np.ndarray:
        """(n, 20) float32: each row a matrix's 16 floats in memory order, then the colour."""
        n = len(self.matrices)
        out = np.empty((n, 20), dtype=np.float32)
        out[:, :16] = np.asarray(self.matrices, dtype=np.float32).reshape(n, 16)
        out[:, 16:] = np.asarray(self.colours, dtype=np.float32).reshape(n, 4)
        return out


class MeshKeys:
    """Caches each mesh object's content key (the object is kept, so its id stays unique)."""

    def __init__(self):
        self._keys: dict[int, tuple[object, str]] = {}

    def __call__(self, mesh) -> str:
        entry = self._keys.get(id(mesh))
        if entry is None or entry[0] is not mesh:
            entry = (mesh, mesh_key(mesh))
            self._keys[id(mesh)] = entry
        return entry[1]


def gather(entities, keys: MeshKeys, colour_of=None, looks=None) -> dict[str, Group]:
    """Group the visible entities that have a mesh by mesh content (and look).

    `colour_of(entity)` overrides the entity's colour (tints, selection);
    `looks` maps entity names to their looks (an imported level's materials):
    such an entity is drawn in its look, plus the tint `colour_of` gives it.
    """
    groups: dict[str, Group] = {}
    for e in entities:
        mesh = e.mesh
        if mesh is None or not e.visible:
            continue
        look = looks.get(e.name) if looks else None
        key = keys(mesh) if look is None else f"{keys(mesh)}/look{id(look)}"
        g = groups.get(key)
        if g is None:
            g = groups[key] = Group(mesh, look=look)
        g.matrices.append(np.asarray(e.world_token(), dtype=np.float32))    # as get_world_matrix, unchecked
        colour = e.color if colour_of is None else colour_of(e)
        if look is not None:
            colour = tuple(c - o for c, o in zip(colour[:3], e.color[:3])) + (1.0,)
        g.colours.append(colour)
        g.entities.append(e)
    return groups


def frustum_planes(view_proj) -> np.ndarray:
    """The six planes (a, b, c, d), unit normals pointing inwards, of the view
    of a column-vector clip matrix: a point p is inside when a.p + d >= 0 for all."""
    m = np.asarray(view_proj, dtype=np.float64)
    planes = np.array([m[3] + m[0], m[3] - m[0], m[3] + m[1], m[3] - m[1], m[3] + m[2], m[3] - m[2]])
    return planes / np.linalg.norm(planes[:, :3], axis=1)[:, None]


def spheres_in_frustum(planes: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Which spheres ((n, 3) centres, (n,) radii) are not wholly outside one of the planes."""
    if not len(centres):
        return np.zeros(0, dtype=bool)
    dist = np.asarray(centres, np.float64) @ planes[:, :3].T + planes[:, 3]
    return (dist >= -np.asarray(radii, np.float64)[:, None]).all(axis=1)
