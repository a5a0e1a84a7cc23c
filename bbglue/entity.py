"""CK objects: CK3dEntity and CKGroup (glue-and-content 4).

Every positional call takes an optional referential entity (None = world), as
in CK. An entity stores its local matrix (relative to its parent, or to the
world without one); its world matrix is the local matrix composed with the
parent's world matrix (row vectors: ``world = local @ parent_world``).
docs/ck-api.md maps each CK method to its name here.
"""

from __future__ import annotations

import math

import numpy as np

from ivp import umath
from ivp.limits import MAX_POSITION

from . import values
from .meshes import Mesh
from .vxmath import VxMatrix, quat_from_vx, rotation_matrix

LIGHT_GREY = (0.8, 0.8, 0.8, 1.0)
_MISSING = object()


_VECTORS = {n: values.Vector(n, values.Real(-MAX_POSITION, MAX_POSITION)) for n in (1, 3, 4)}


def check_vector(v, what: str, n: int = 3) -> tuple:
    """A tuple of n finite floats within +-ivp.limits.MAX_POSITION (so a
    world matrix stays finite in f32; ``bbglue.values.Vector``), or a
    TypeError / ValueError naming ``what``. A tuple of n such floats is
    returned as it is (what the Vector kind would make of it), unchecked
    by the kind: the frame's many positions pass at the cost of a loop."""
    if type(v) is tuple and len(v) == n:
        for x in v:
            if type(x) is not float or not -MAX_POSITION <= x <= MAX_POSITION:      # NaN fails too
                break
        else:
            return v
    return values.checked(_VECTORS[n], v, what)


def _normalized(v, what: str):
    n = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if n < 1e-12:
        raise ValueError(f"{what}: the vector {tuple(v)} has zero length")
    return (v[0] / n, v[1] / n, v[2] / n)


class CKObject:
    """A named object of a context, with attributes (name -> value)."""

    def __init__(self, context, name: str, ident: int):
        self.context = context
        self.name = name
        self.id = ident
        self._attributes = {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    def set_attribute(self, name: str, value=None) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"{self.name!r}.set_attribute: the attribute name must be a non-empty string")
        self._attributes[name] = value

    def get_attribute(self, name: str, default=_MISSING):
        """The attribute's value; KeyError (or ``default``) when the entity has none."""
        try:
            return self._attributes[name]
        except KeyError:
            if default is not _MISSING:
                return default
            raise KeyError(f"{self.name!r} has no attribute {name!r} "
                           f"(it has {sorted(self._attributes) or 'none'})") from None

    def has_attribute(self, name: str) -> bool:
        return name in self._attributes

    def remove_attribute(self, name: str) -> None:
        self._attributes.pop(name, None)

    @property
    def attributes(self) -> dict:
        """A copy of the attributes."""
        return dict(self._attributes)


class CKGroup(CKObject):
    """A named, ordered set of entities (CKGroup)."""

    def __init__(self, context, name: str, ident: int):
        super().__init__(context, name, ident)
        self._members = []

    def add(self, entity: "CK3dEntity") -> None:
        if not isinstance(entity, CKObject):
            raise TypeError(f"group {self.name!r}: can only hold CK objects, got {entity!r}")
        if entity not in self._members:
            self._members.append(entity)

    def remove(self, entity) -> None:
        if entity in self._members:
            self._members.remove(entity)

    def __contains__(self, entity) -> bool:
        return entity in self._members

    def __iter__(self):
        return iter(list(self._members))

    def __len__(self) -> int:
        return len(self._members)

    @property
    def entities(self) -> list:
        return list(self._members)


class CK3dEntity(CKObject):
    """A 3D entity: matrices, hierarchy, transforms, visibility, mesh, colour."""

    def __init__(self, context, name: str, ident: int, mesh: Mesh | None = None):
        super().__init__(context, name, ident)
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError(f"entity {name!r}: mesh must be a bbglue.Mesh or None, got {type(mesh).__name__}")
        self._local = np.identity(4)          # float64 working copy; stored values are f32
        self._world_kept = None               # the world matrix while no local matrix above changes
        self._parent = None
        self._children = []
        self.mesh = mesh
        self.visible = True
        self.color = LIGHT_GREY

    def __getstate__(self) -> dict:
        """The fields without the kept world matrix, a memo made again on
        demand: a snapshot (and its hash) is the same whether or not someone
        (the viewer's drawing) has read the world matrix."""
        state = self.__dict__.copy()
        state["_world_kept"] = None
        return state

    # --- matrices -------------------------------------------------------------

    def _world(self) -> np.ndarray:
        """A copy of the world matrix (``_world_read``)."""
        return self._world_read().copy()

    def _world_read(self) -> np.ndarray:
        """The kept world matrix itself, for reading only. Each entity keeps
        its own until a local matrix on its way to the root changes
        (``_moved``), so a query costs the entities above it whose matrices
        are not kept, not its depth: a chain of n parented entities is made
        and placed in n steps, not n^2."""
        if self._world_kept is None:
            above = []
            e = self
            while e is not None and e._world_kept is None:
                above.append(e)
                e = e._parent
            for e in reversed(above):
                e._world_kept = e._local if e._parent is None else e._local @ e._parent._world_kept
        return self._world_kept

    def _moved(self) -> None:
        """Forget the kept world matrices of this entity and those below it (an
        entity whose matrix is not kept has none kept below it)."""
        if not self._children:
            self._world_kept = None
            return
        stack = [self]
        while stack:
            e = stack.pop()
            if e._world_kept is not None or e is self:
                e._world_kept = None
                stack.extend(e._children)

    def _store_local(self, m: np.ndarray, what: str) -> None:
        if not np.isfinite(m).all():
            raise ValueError(f"entity {self.name!r}: {what} gives a NaN or infinite matrix")
        self._local = m.astype(np.float32).astype(np.float64)
        self._moved()

    def _store_rows(self, rows, values) -> None:
        """A parentless entity's matrix with ``rows`` (an index of the 4 x 4)
        set to ``values`` rounded to f32: what ``_store_local`` makes of the
        matrix so changed (the rest of it is f32 already), for finite values
        whose f32 is finite (a position within MAX_POSITION, unit axes times
        the scale), without its checks and its rounding of all 16 entries."""
        m = self._local.copy()
        m[rows] = np.array(values, dtype=np.float32)
        self._local = m
        self._moved()

    def _set_world(self, w: np.ndarray, what: str) -> None:
        if self._parent is not None:
            w = w @ np.linalg.inv(self._parent._world_read())
        self._store_local(w, what)

    def world_token(self):
        """An object that stays the same (compare with ``is``) while this
        entity's world matrix does: the key of a value derived from the
        matrix (behaviors.ballance.boxes.KeptBoxes). A new token does not
        always mean a new matrix. Read-only: do not write into it."""
        return self._world_read()

    def get_world_matrix(self) -> VxMatrix:
        return VxMatrix(self._world_read())

    def set_world_matrix(self, M) -> None:
        self._set_world(_as_array(M, f"entity {self.name!r}: set_world_matrix"), "set_world_matrix")

    def get_local_matrix(self) -> VxMatrix:
        return VxMatrix(self._local)

    def set_local_matrix(self, M) -> None:
        self._store_local(_as_array(M, f"entity {self.name!r}: set_local_matrix"), "set_local_matrix")

    def _ref_world(self, ref, what: str):
        """The referential's world matrix (None for the world)."""
        if ref is None:
            return None
        if not isinstance(ref, CK3dEntity):
            raise TypeError(f"entity {self.name!r}: {what}: the referential must be a CK3dEntity "
                            f"or None, got {type(ref).__name__}")
        return ref._world_read()

    def _relative(self, ref, what: str) -> np.ndarray:
        """This entity's matrix expressed in the referential's frame, for
        reading only (without a referential, the kept world matrix itself)."""
        w = self._world_read()
        r = self._ref_world(ref, what)
        return w if r is None else w @ np.linalg.inv(r)

    # --- position -------------------------------------------------------------

    def get_position(self, ref=None):
        m = self._world_read() if ref is None else self._relative(ref, "get_position")
        return tuple(m[3, :3].tolist())

    def set_position(self, pos, ref=None) -> None:
        p = check_vector(pos, f"entity {self.name!r}: set_position")
        r = self._ref_world(ref, "set_position")
        if r is None and self._parent is None:
            self._store_rows((3, slice(0, 3)), p)
            return
        w = self._world()
        w[3, :3] = p if r is None else np.array(p + (1.0,)) @ r[:, :3]
        self._set_world(w, "set_position")

    def translate(self, vec, ref=None) -> None:
        v = check_vector(vec, f"entity {self.name!r}: translate")
        r = self._ref_world(ref, "translate")
        w = self._world()
        w[3, :3] += v if r is None else np.array(v) @ r[:3, :3]
        self._set_world(w, "translate")

    # --- orientation ------------------------------------------------------------

    def get_orientation(self, ref=None):
        """(dir, up, right): the unit Z, Y and X axes, in the referential's frame."""
        m = self._relative(ref, "get_orientation")
        return tuple(_normalized(tuple(float(x) for x in m[i, :3]), f"entity {self.name!r}: get_orientation")
                     for i in (2, 1, 0))

    def set_orientation(self, dir, up=(0.0, 1.0, 0.0), right=None, ref=None) -> None:
        """Z along ``dir``; Y as close to ``up`` as possible (X = up x dir unless
        ``right`` is given); the scale and position are kept."""
        what = f"entity {self.name!r}: set_orientation"
        d = _normalized(check_vector(dir, what), what)
        u = check_vector(up, what)
        x = _normalized(check_vector(right, what) if right is not None else umath.cross(u, d), what)
        y = umath.cross(d, x)
        self._set_rotation_rows((x, y, d), ref, "set_orientation")

    def look_at(self, pos, ref=None) -> None:
        """Turn Z toward a point (in the referential's frame), Y toward world up."""
        what = f"entity {self.name!r}: look_at"
        p = check_vector(pos, what)
        r = self._ref_world(ref, "look_at")
        target = p if r is None else tuple(np.array(p + (1.0,)) @ r[:, :3])
        here = self.get_position()
        d = (target[0] - here[0], target[1] - here[1], target[2] - here[2])
        up = (0.0, 1.0, 0.0) if abs(d[0]) + abs(d[2]) > 1e-9 * (abs(d[1]) + 1.0) else (0.0, 0.0, 1.0)
        self.set_orientation(d, up)

    def get_quaternion(self, ref=None):
        """(x, y, z, w): the rotation from this entity's axes to the referential's."""
        return quat_from_vx(VxMatrix(self._relative(ref, "get_quaternion")),
                            f"entity {self.name!r}: get_quaternion: the matrix")

    def set_quaternion(self, q, ref=None) -> None:
        qq = check_vector(q, f"entity {self.name!r}: set_quaternion", 4)
        if sum(c * c for c in qq) < 1e-19:
            raise ValueError(f"entity {self.name!r}: set_quaternion: {qq} is a zero quaternion")
        R = np.array(umath.quat_to_matrix(umath.quat_normalize(qq))).reshape(3, 3)
        self._set_rotation_rows(R.T, ref, "set_quaternion")

    def rotate(self, axis, angle: float, ref=None) -> None:
        """Turn by ``angle`` radians about ``axis`` (in the referential's frame)
        through the entity's own origin."""
        what = f"entity {self.name!r}: rotate"
        a = check_vector(axis, what)
        ang = check_vector((angle,), what, 1)[0]
        r = self._ref_world(ref, "rotate")
        if r is not None:
            a = tuple(np.array(a) @ r[:3, :3])
        R = np.array(rotation_matrix(_normalized(a, what), ang)).reshape(3, 3)
        w = self._world()
        w[:3, :3] = w[:3, :3] @ R.T
        self._set_world(w, "rotate")

    def _set_rotation_rows(self, rows, ref, what: str) -> None:
        """Set the unit axes (three rows, in the referential's frame), keeping scale and position."""
        r = self._ref_world(ref, what)
        if r is None and self._parent is None:
            s = self.get_scale(local=False)
            self._store_rows((slice(0, 3), slice(0, 3)), [[c * s[i] for c in rows[i]] for i in range(3)])
            return
        rows = np.array(rows)
        if r is not None:
            rr = r[:3, :3] / np.linalg.norm(r[:3, :3], axis=1)[:, None]
            rows = rows @ rr
        w = self._world()
        w[:3, :3] = rows * np.array(self.get_scale(local=False))[:, None]
        self._set_world(w, what)

    # --- scale ----------------------------------------------------------------

    def get_scale(self, local: bool = True):
        m = self._local if local else self._world_read()
        rows = (m[0, :3], m[1, :3], m[2, :3])
        return tuple(math.sqrt(r.dot(r)) for r in rows)        # what np.linalg.norm(r) computes, without its checks

    def set_scale(self, scale, local: bool = True) -> None:
        what = f"entity {self.name!r}: set_scale"
        s = check_vector(scale, what)
        if min(abs(c) for c in s) < 1e-12:
            raise ValueError(f"{what}: a zero scale {s} cannot be inverted")
        m = self._local.copy() if local else self._world()
        n = np.linalg.norm(m[:3, :3], axis=1)
        m[:3, :3] = m[:3, :3] / n[:, None] * np.array(s)[:, None]
        if local:
            self._store_local(m, "set_scale")
        else:
            self._set_world(m, "set_scale")

    # --- transforms ---------------------------------------------------------------

    def transform(self, point, ref=None):
        """A point of this entity's frame, in the referential's frame (or world)."""
        p = check_vector(point, f"entity {self.name!r}: transform")
        return tuple((np.array(p + (1.0,)) @ self._relative(ref, "transform")[:, :3]).tolist())

    def inverse_transform(self, point, ref=None):
        """A point of the referential's frame (or world), in this entity's frame."""
        p = check_vector(point, f"entity {self.name!r}: inverse_transform")
        m = np.linalg.inv(self._relative(ref, "inverse_transform"))
        return tuple(float(x) for x in np.array(p + (1.0,)) @ m[:, :3])

    def transform_vector(self, vec, ref=None):
        """A direction of this entity's frame in the referential's (3 x 3 part: no translation)."""
        v = check_vector(vec, f"entity {self.name!r}: transform_vector")
        return tuple((np.array(v) @ self._relative(ref, "transform_vector")[:3, :3]).tolist())

    def world_axes(self) -> tuple:
        """The world X, Y and Z axes, scale included (rows 0 to 2 of the world
        matrix): ``transform_vector`` of the unit axes, read, not multiplied
        (a zero may differ in sign from the product's)."""
        return tuple(tuple(r) for r in self._world_read()[:3, :3].tolist())

    def inverse_transform_vector(self, vec, ref=None):
        v = check_vector(vec, f"entity {self.name!r}: inverse_transform_vector")
        m = np.linalg.inv(self._relative(ref, "inverse_transform_vector")[:3, :3])
        return tuple(float(x) for x in np.array(v) @ m)

    # --- hierarchy ------------------------------------------------------------------

    @property
    def parent(self):
        return self._parent

    @property
    def children(self) -> list:
        return list(self._children)

    def set_parent(self, parent, keep_world_pos: bool = True) -> None:
        """Attach to ``parent`` (None detaches); by default the world pose is kept."""
        if parent is not None and not isinstance(parent, CK3dEntity):
            raise TypeError(f"entity {self.name!r}: the parent must be a CK3dEntity or None, "
                            f"got {type(parent).__name__}")
        p = parent if self._children or parent is self else None      # a childless entity is no one's ancestor
        while p is not None:
            if p is self:
                raise ValueError(f"entity {self.name!r}: {parent.name!r} is its own descendant")
            p = p._parent
        w = self._world()
        if self._parent is not None:
            self._parent._children.remove(self)
        self._parent = parent
        if parent is not None:
            parent._children.append(self)
        self._moved()
        if keep_world_pos:
            self._set_world(w, "set_parent")

    # --- visibility, mesh, bounding box -------------------------------------------

    def show(self) -> None:
        self.visible = True

    def hide(self) -> None:
        self.visible = False

    def is_visible(self) -> bool:
        return self.visible

    def get_bounding_box(self, local: bool = False):
        """(min, max) of the mesh in local coordinates, or the world-axis box
        around the transformed local box (CK's world box)."""
        if self.mesh is None:
            lo = hi = (0.0, 0.0, 0.0)
        else:
            lo, hi = self.mesh.bounding_box()
        if local:
            return lo, hi
        corners = np.array([(x, y, z, 1.0) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        pts = corners @ self._world_read()[:, :3]
        return tuple(float(x) for x in pts.min(axis=0)), tuple(float(x) for x in pts.max(axis=0))


def set_world_matrices(entities, matrices: np.ndarray) -> None:
    """``entities[i].set_world_matrix(matrices[i])`` for all i, from one
    (n, 4, 4) float32 array (the physics write-back, ivp spec 4.3).

    An entity without a parent takes its row of the array widened to f64 as
    its local matrix, which is what set_world_matrix stores for an f32 matrix.
    With a NaN or infinite entry anywhere, each entity is set in turn, so the
    first bad matrix raises set_world_matrix's error after the ones before it
    are set.
    """
    if not np.isfinite(matrices).all():
        for e, m in zip(entities, matrices):
            e.set_world_matrix(m)
        return
    for e, m in zip(entities, matrices.astype(np.float64)):
        if e._parent is None:
            e._local = m
            e._moved()
        else:
            e._set_world(m, "set_world_matrix")


def _as_array(M, what: str) -> np.ndarray:
    if isinstance(M, VxMatrix):
        return M.as_array().astype(np.float64)
    a = np.asarray(M, dtype=np.float64)
    if a.shape != (4, 4):
        raise TypeError(f"{what}: expected a VxMatrix or a 4 x 4 array, got shape {a.shape}")
    return a
