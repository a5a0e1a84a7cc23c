"""Meshes: the CK mesh an entity shows and Physicalize reads, and primitive builders.

Coordinates are Virtools units (1 unit = 1 IVP metre), Y up. Every face is
wound so that the plain cross product ``(v1 - v0) x (v2 - v0)`` points out of
the solid (for the flat plane: up, +Y). Builder names encode their parameters,
because Physicalize caches collision surfaces by mesh name (glue-and-content
2; surfaces-and-contacts 1): two meshes with one name must be one geometry.
"""

from __future__ import annotations

import math
import os

import numpy as np


class Mesh:
    """A named triangle mesh: ``vertices`` (n, 3) float32, ``faces`` (m, 3) int32.
    Nothing changes a mesh once made (entities share them, as do the copies
    of a world: ``ivp.snapshot``'s ``share``)."""

    __slots__ = ("name", "vertices", "faces", "_box")

    def __init__(self, name: str, vertices, faces):
        if not isinstance(name, str) or not name:
            raise ValueError(f"mesh: the name must be a non-empty string, got {name!r}")
        v = np.asarray(vertices, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 3:
            raise ValueError(f"mesh {name!r}: vertices must be an (n, 3) array, got shape {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"mesh {name!r}: a vertex is NaN or infinite")
        f = np.asarray(faces)
        if f.size == 0:
            f = f.reshape(0, 3)
        if f.ndim != 2 or f.shape[1] != 3 or not np.issubdtype(f.dtype, np.integer):
            raise ValueError(f"mesh {name!r}: faces must be an (m, 3) integer array, got shape {f.shape}")
        if len(f) and (f.min() < 0 or f.max() >= len(v)):
            raise ValueError(f"mesh {name!r}: a face refers to a vertex that does not exist "
                             f"(indices must be in 0..{len(v) - 1})")
        self.name = name
        self.vertices = np.ascontiguousarray(v, dtype=np.float32)
        self.faces = np.ascontiguousarray(f, dtype=np.int32)

    def __repr__(self) -> str:
        return f"<Mesh {self.name!r}: {len(self.vertices)} vertices, {len(self.faces)} faces>"

    def __getstate__(self):
        """The slots without the kept bounding box, a memo made again on demand
        (a snapshot's hash does not depend on who asked for the box)."""
        return None, {"name": self.name, "vertices": self.vertices, "faces": self.faces}

    def bounding_box(self):
        """(min, max) corners of the vertices, as tuples of floats (made at
        the first call: the death boxes and the ball ask every frame)."""
        box = getattr(self, "_box", None)
        if box is None:
            if len(self.vertices) == 0:
                box = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
            else:
                box = tuple(self.vertices.min(axis=0).tolist()), tuple(self.vertices.max(axis=0).tolist())
            self._box = box
        return box


def _positive(builder: str, **values) -> None:
    for k, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise ValueError(f"meshes.{builder}: {k} must be a positive number, got {v!r}")


def _count(builder: str, minimum: int, **values) -> None:
    for k, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise ValueError(f"meshes.{builder}: {k} must be an integer >= {minimum}, got {v!r}")


def _prism(name: str, ring_a, ring_b, caps: bool) -> Mesh:
    """Side quads between two rings of equal length (b is ring a moved along the
    prism axis, both counter-clockwise seen from the b end), plus fan caps."""
    n = len(ring_a)
    verts = list(ring_a) + list(ring_b)
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, j, n + j))
        faces.append((i, n + j, n + i))
    if caps:
        for i in range(1, n - 1):
            faces.append((0, i + 1, i))               # the a end, facing away from b
            faces.append((n, n + i, n + i + 1))       # the b end
    return Mesh(name, verts, faces)


def box(sx: float, sy: float, sz: float, name: str | None = None) -> Mesh:
    """A box of size sx x sy x sz centred on the origin (8 vertices, 12 triangles)."""
    _positive("box", sx=sx, sy=sy, sz=sz)
    x, y, z = sx / 2.0, sy / 2.0, sz / 2.0
    bottom = [(-x, -y, -z), (-x, -y, z), (x, -y, z), (x, -y, -z)]     # counter-clockwise from +Y
    top = [(px, y, pz) for px, _, pz in bottom]
    return _prism(name or f"box({sx:g},{sy:g},{sz:g})", bottom, top, caps=True)


def wedge(sx: float, sy: float, sz: float, name: str | None = None) -> Mesh:
    """A ramp in the box sx x sy x sz centred on the origin: the floor is the full
    sx x sz rectangle, the slope rises from the -Z edge to height sy at +Z."""
    _positive("wedge", sx=sx, sy=sy, sz=sz)
    x, y, z = sx / 2.0, sy / 2.0, sz / 2.0
    # a triangular prism along X: the cross-section (z, y) is counter-clockwise seen from +X
    tri = [(-z, -y), (z, y), (z, -y)]
    left = [(-x, py, pz) for pz, py in tri]
    right = [(x, py, pz) for pz, py in tri]
    return _prism(name or f"wedge({sx:g},{sy:g},{sz:g})", left, right, caps=True)


def cylinder(radius: float, height: float, segments: int = 16, name: str | None = None) -> Mesh:
    """A closed cylinder along Y, centred on the origin."""
    _positive("cylinder", radius=radius, height=height)
    _count("cylinder", 3, segments=segments)
    h = height / 2.0
    angles = [-2.0 * math.pi * i / segments for i in range(segments)]
    bottom = [(radius * math.cos(a), -h, radius * math.sin(a)) for a in angles]
    top = [(px, h, pz) for px, _, pz in bottom]
    return _prism(name or f"cylinder({radius:g},{height:g},{segments})", bottom, top, caps=True)


def octagonal_rail(radius: float = 0.35, length: float = 1.0, name: str | None = None) -> Mesh:
    """A Ballance rail: a closed prism of octagonal cross-section (circumradius
    ``radius``, a flat face on top) along local Z from -length/2 to +length/2."""
    _positive("octagonal_rail", radius=radius, length=length)
    h = length / 2.0
    angles = [math.pi / 8.0 + i * math.pi / 4.0 for i in range(8)]
    back = [(radius * math.cos(a), radius * math.sin(a), -h) for a in angles]
    front = [(px, py, h) for px, py, _ in back]
    return _prism(name or f"octagonal_rail({radius:g},{length:g})", back, front, caps=True)


def sphere(radius: float, segments: int = 16, name: str | None = None) -> Mesh:
    """A UV sphere centred on the origin: ``segments`` around Y, segments // 2 rings."""
    _positive("sphere", radius=radius)
    _count("sphere", 3, segments=segments)
    rings = max(2, segments // 2)
    verts = [(0.0, radius, 0.0)]
    for r in range(1, rings):
        phi = math.pi * r / rings
        y = radius * math.cos(phi)
        s = radius * math.sin(phi)
        for i in range(segments):
            a = -2.0 * math.pi * i / segments
            verts.append((s * math.cos(a), y, s * math.sin(a)))
    verts.append((0.0, -radius, 0.0))
    south = len(verts) - 1
    faces = []
    for i in range(segments):
        j = (i + 1) % segments
        faces.append((0, 1 + i, 1 + j))
        last = 1 + (rings - 2) * segments
        faces.append((south, last + j, last + i))
    for r in range(rings - 2):
        a0 = 1 + r * segments
        b0 = a0 + segments
        for i in range(segments):
            j = (i + 1) % segments
            faces.append((a0 + i, b0 + j, a0 + j))
            faces.append((a0 + i, b0 + i, b0 + j))
    return Mesh(name or f"sphere({radius:g},{segments})", verts, faces)


def tessellated_plane(sx: float, sz: float, nx: int = 1, nz: int = 1, name: str | None = None) -> Mesh:
    """A flat floor at y = 0 centred on the origin: (nx+1)(nz+1) vertices, 2*nx*nz
    triangles facing up."""
    _positive("tessellated_plane", sx=sx, sz=sz)
    _count("tessellated_plane", 1, nx=nx, nz=nz)
    xs = np.linspace(-sx / 2.0, sx / 2.0, nx + 1)
    zs = np.linspace(-sz / 2.0, sz / 2.0, nz + 1)
    verts = [(x, 0.0, z) for z in zs for x in xs]
    faces = []
    w = nx + 1
    for k in range(nz):
        for i in range(nx):
            a = k * w + i
            faces.append((a, a + w, a + w + 1))
            faces.append((a, a + w + 1, a + 1))
    return Mesh(name or f"plane({sx:g},{sz:g},{nx},{nz})", verts, faces)


def load_obj(path, name: str | None = None) -> Mesh:
    """A Wavefront OBJ file: ``v`` and ``f`` records (``f`` accepts v, v/vt, v//vn,
    v/vt/vn and negative indices); polygons are fan-triangulated; other records
    are ignored. Errors are ValueErrors naming file:line."""
    path = os.fspath(path)
    verts = []
    faces = []
    try:
        fh = open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the OBJ file ({exc.strerror})") from exc
    with fh:
        for lineno, line in enumerate(fh, 1):
            where = f"{path}:{lineno}"
            parts = line.split("#", 1)[0].split()
            if not parts:
                continue
            if parts[0] == "v":
                verts.append(_obj_vertex(parts, where))
            elif parts[0] == "f":
                idx = [_obj_index(tok, len(verts), where) for tok in parts[1:]]
                if len(idx) < 3:
                    raise ValueError(f"{where}: a face needs at least 3 vertices, got {len(idx)}")
                faces.extend((idx[0], idx[i], idx[i + 1]) for i in range(1, len(idx) - 1))
    if not faces:
        raise ValueError(f"{path}: the OBJ file has no faces")
    return Mesh(name or os.path.splitext(os.path.basename(path))[0], verts, faces)


def _obj_vertex(parts, where: str):
    if len(parts) < 4:
        raise ValueError(f"{where}: a vertex needs 3 coordinates, got {len(parts) - 1}")
    try:
        v = tuple(float(t) for t in parts[1:4])
    except ValueError:
        raise ValueError(f"{where}: vertex coordinates {parts[1:4]} are not numbers") from None
    if not all(math.isfinite(c) for c in v):
        raise ValueError(f"{where}: vertex {v} is NaN or infinite")
    return v


def _obj_index(token: str, count: int, where: str) -> int:
    head = token.split("/", 1)[0]
    try:
        i = int(head)
    except ValueError:
        raise ValueError(f"{where}: face index {token!r} is not an integer") from None
    k = i - 1 if i > 0 else count + i
    if i == 0 or not 0 <= k < count:
        raise ValueError(f"{where}: face index {i} refers to no vertex (there are {count} so far)")
    return k
