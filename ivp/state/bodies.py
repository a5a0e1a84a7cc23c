"""The body table (DESIGN "State and the hot path", issue 39): each core's
dynamic state (spec 1.2) in one f64 row of :mod:`.layout`'s columns, owned
by the environment; a ``Core`` is a permanent view (table, index,
generation), the kernels take ``rows`` and row indices. A freed row's
generation moves on, so its old core fails loudly (:class:`StaleCoreError`)."""

from __future__ import annotations

from array import array

import numpy as np

from .layout import DELTA, I_DT, M_POS, M_R, POS, Q_LAST, Q_NEXT, ROT_SPEED, SPEED, T_LAST, WIDTH
from .table import Table


class StaleCoreError(RuntimeError):
    """A core read or written after its object was deleted."""


class BodyTable(Table):
    """The rows of one environment's cores (a :class:`.table.Table` of
    WIDTH columns)."""

    __slots__ = ("cores", "poses")

    def __init__(self, capacity: int = 64):
        super().__init__(WIDTH, capacity)
        self.cores = []                 # the core of each row, None for a free row
        self.poses = []                 # each row's m_world_f_core_last_psi object, None: made from the row

    def add(self, core) -> int:
        """A zeroed row for ``core``; returns its index."""
        k = self.new_row()
        if k < len(self.cores):
            self.rows[k] = 0.0
            self.cores[k] = core
            self.poses[k] = None
        else:
            self.cores.append(core)
            self.poses.append(None)
        return k

    def remove(self, k: int) -> None:
        """Row k is free: its generation moves on, its core is no view any more."""
        self.free_row(k)
        self.cores[k] = None
        self.poses[k] = None

    def pose(self, k: int):
        """Row k's m_world_f_core_last_psi as one object, made from the row
        when first asked for after a kernel wrote it (:meth:`begun`): the
        caches keyed by a pose object hold while it stays."""
        m = self.poses[k]
        if m is None:
            v = self.rows[k, M_R:M_POS + 3].tolist()
            m = self.poses[k] = (tuple(v[:9]), (v[9], v[10], v[11]))
        return m

    def begun(self, rows) -> None:
        """A kernel wrote the poses of ``rows`` (a begin of the PSI, 6.3)."""
        poses = self.poses
        for k in rows.tolist():
            poses[k] = None

    def pose_values(self, rows):
        """(time_of_last_psi, i_delta_time, q_world_f_core_last_psi,
        q_world_f_core_next_psi, pos_world_f_core_last_psi,
        delta_world_f_core_psis) of ``rows``, as one (n, 16) array."""
        S = self.rows
        return np.concatenate((S[rows, T_LAST:I_DT + 1], S[rows, Q_LAST:Q_NEXT + 4], S[rows, POS:DELTA + 3]), axis=1)

    def motion_values(self, rows):
        """(speed, rot_speed, pos_world_f_core_last_psi) of ``rows``, as one (n, 9) array."""
        S = self.rows
        return np.concatenate((S[rows, SPEED:ROT_SPEED + 3], S[rows, POS:POS + 3]), axis=1)


# --- a core's fields as views onto its row (ivp.core) --------------------------

def locate(core, col: int = 0):
    """The table's flat view and the index of column ``col`` of the core's
    row; StaleCoreError when the row is no longer the core's."""
    t = core._bodies
    k = core.row
    if t.gen[k] != core._gen:
        raise StaleCoreError(f"a core of a deleted object was used (row {k} of the body table, generation "
                             f"{core._gen}, now {t.gen[k]})")
    return t.mv, k * WIDTH + col


def vector_field(col: int, n: int, doc: str, locate=locate):
    """A field of n (3 or 4) floats at column ``col`` of the core's row, read
    as a tuple (of another table's row: ``locate``, as :func:`locate`)."""
    if n == 3:
        def get(core):
            m, b = locate(core, col)
            return (m[b], m[b + 1], m[b + 2])

        def put(core, v):
            m, b = locate(core, col)
            m[b], m[b + 1], m[b + 2] = v
    else:
        def get(core):
            m, b = locate(core, col)
            return (m[b], m[b + 1], m[b + 2], m[b + 3])

        def put(core, v):
            m, b = locate(core, col)
            m[b], m[b + 1], m[b + 2], m[b + 3] = v
    return property(get, put, doc=doc)


def number_field(col: int, doc: str, kind=float, locate=locate):
    """A field of one number (``kind``: float, int or bool) at column ``col``
    of the core's row (of another table's row: ``locate``, as :func:`locate`)."""
    def get(core):
        m, b = locate(core, col)
        return kind(m[b])

    def put(core, v):
        m, b = locate(core, col)
        m[b] = v
    return property(get, put, doc=doc)


def pair_field(col: int, n: int, doc: str):
    """The two calm references of n floats each from column ``col`` (10.2),
    read as a new list (write the whole list back to change one)."""
    def get(core):
        m, b = locate(core, col)
        v = m[b:b + 2 * n].tolist()
        return [v[0], v[1]] if n == 1 else [tuple(v[:n]), tuple(v[n:])]

    def put(core, v):
        m, b = locate(core, col)
        m[b:b + 2 * n] = array("d", v if n == 1 else (*v[0], *v[1]))
    return property(get, put, doc=doc)


def pose_field():
    """m_world_f_core_last_psi: the row's pose columns, read as one object
    (BodyTable.pose); a write stores the object it is given."""
    def get(core):
        locate(core, 0)
        return core._bodies.pose(core.row)

    def put(core, v):
        m, b = locate(core, M_R)
        R, p = v
        m[b], m[b + 1], m[b + 2], m[b + 3], m[b + 4], m[b + 5], m[b + 6], m[b + 7], m[b + 8] = R
        m[b + 9], m[b + 10], m[b + 11] = p
        core._bodies.poses[core.row] = v
    return property(get, put, doc="m_world_f_core_last_psi (R, v): the pose at the last PSI, one object")

