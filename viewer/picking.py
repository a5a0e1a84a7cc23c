"""Which entity is under the mouse: a ray against the entities' triangles (no pyglet)."""

from __future__ import annotations

import numpy as np

from .drawlist import bounding_sphere


def ray_triangles(origin, direction, corners: np.ndarray) -> float | None:
    """Nearest positive ray parameter t at which origin + t direction meets one
    of the triangles (corners (m, 3, 3)), or None (Moller-Trumbore, both sides)."""
    a, b, c = corners[:, 0], corners[:, 1], corners[:, 2]
    e1, e2 = b - a, c - a
    p = np.cross(direction, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = origin - a
    u = np.einsum("ij,ij->i", s, p) * inv
    q = np.cross(s, e1)
    v = (q @ direction) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    hit = ok & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (t > 0.0)
    return float(t[hit].min()) if hit.any() else None


def pick(entities, origin, direction, spheres: dict | None = None):
    """(entity, world point) nearest along the ray among the visible entities
    with a mesh, or None. Bounding spheres, tested all at once, skip the
    entities the ray misses; ``spheres`` (id(mesh) -> (mesh, centre,
    radius)) keeps them between calls."""
    origin = np.asarray(origin, dtype=np.float64)
    direction = np.asarray(direction, dtype=np.float64)
    shown = [e for e in entities if e.mesh is not None and e.visible and len(e.mesh.faces)]
    if not shown:
        return None
    spheres = {} if spheres is None else spheres
    for e in shown:
        known = spheres.get(id(e.mesh))
        if known is None or known[0] is not e.mesh:
            spheres[id(e.mesh)] = (e.mesh, *bounding_sphere(e.mesh))
    centres = np.array([spheres[id(e.mesh)][1] for e in shown], dtype=np.float64)
    radii = np.array([spheres[id(e.mesh)][2] for e in shown], dtype=np.float64)
    m = np.array([np.asarray(e.world_token(), np.float32) for e in shown], np.float64)    # (n, 4, 4)
    to_c = np.einsum("ni,nij->nj", centres, m[:, :3, :3]) + m[:, 3, :3] - origin
    along = to_c @ direction
    scale = np.linalg.norm(m[:, :3, :3], axis=2).max(axis=1)
    near = np.linalg.norm(to_c - along[:, None] * direction, axis=1) <= radii * scale
    best = None
    for i in np.flatnonzero(near):
        inv = np.linalg.inv(m[i])                       # world -> entity frame (row vectors)
        o_local = (np.append(origin, 1.0) @ inv)[:3]
        d_local = (np.append(direction, 0.0) @ inv)[:3]
        mesh = shown[i].mesh
        v = np.asarray(mesh.vertices, dtype=np.float64)
        t = ray_triangles(o_local, d_local, v[np.asarray(mesh.faces)])
        if t is not None and (best is None or t < best[0]):
            best = (t, shown[i])
    if best is None:
        return None
    return best[1], origin + best[0] * direction
