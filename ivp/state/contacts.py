"""The contact table (DESIGN "State and the hot path", issue 39): each
friction contact point's fields (ivp-contacts 5.1, and 5.3's "info") in one
f64 row of :mod:`.layout`'s columns, owned by ``env.contacts``; a
``ContactPoint`` is a permanent view (table, index, generation). A freed row
is zeroed and its generation bumped, so its old view fails loudly
(:class:`StaleContactError`). Memory: POINT_WIDTH (60) f64, 480 bytes a point."""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from .layout import POINT_WIDTH
from .table import Table


class StaleContactError(RuntimeError):
    """A contact point's field read or written after the point was deleted."""


class ContactTable(Table):
    """The rows of one environment's contact points (a :class:`.table.Table`
    of POINT_WIDTH columns)."""

    __slots__ = ("points",)

    def __init__(self, capacity: int = 64):
        super().__init__(POINT_WIDTH, capacity)
        self.points = []                # the point of each row, None for a free row

    def add(self, cp) -> int:
        """A zeroed row for ``cp`` (a freed row was zeroed); returns its index."""
        k = self.new_row()
        if k < len(self.points):
            self.points[k] = cp
        else:
            self.points.append(cp)
        return k

    def remove(self, k: int) -> None:
        """Row k is free: zeroed, its generation moves on, its point is no view any more."""
        self.rows[k] = 0.0
        self.free_row(k)
        self.points[k] = None

    def slots(self, cps):
        """The rows of the points ``cps`` (an int array)."""
        return np.fromiter(map(_ROW, cps), dtype=np.int64, count=len(cps))


_ROW = attrgetter("row")


def locate(cp, col: int = 0):
    """The table's flat view and the index of column ``col`` of the point's
    row; StaleContactError when the row is no longer the point's."""
    t = cp._contacts
    k = cp.row
    if t.gen[k] != cp._gen:
        raise StaleContactError(f"a deleted contact point was used (row {k} of the contact table, generation "
                                f"{cp._gen}, now {t.gen[k]})")
    return t.mv, k * POINT_WIDTH + col
