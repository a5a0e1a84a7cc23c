"""A table of rows (DESIGN "State and the hot path", issue 39): the f64 rows
of one environment's objects of a kind, grown by doubling, with a flat float
view for the objects' fields and each row's generation, bumped when the row
is freed; the base of the body table (:mod:`.bodies`) and the contact table
(:mod:`.contacts`)."""

from __future__ import annotations

import numpy as np


class Table:
    """``rows`` (capacity x width), ``mv`` a flat float view of them (row k
    starts at k * width; made again when the array grows, and no part of a
    snapshot), ``gen`` each row's generation, ``free`` the free rows, last
    freed first. A subclass keeps its rows' objects in lists of its own."""

    __slots__ = ("rows", "mv", "gen", "free")

    def __init__(self, width: int, capacity: int = 64):
        self.rows = np.zeros((capacity, width))
        self.mv = flat_view(self.rows)
        self.gen = []
        self.free = []

    def __getstate__(self):
        return {k: getattr(self, k) for c in type(self).__mro__ for k in getattr(c, "__slots__", ()) if k != "mv"}

    def __setstate__(self, state) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self.mv = flat_view(self.rows)

    def new_row(self) -> int:
        """A row's index: the last freed one, else the next (the array
        doubled when full, its new rows zero)."""
        if self.free:
            return self.free.pop()
        k = len(self.gen)
        if k == self.rows.shape[0]:
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
            self.mv = flat_view(self.rows)
        self.gen.append(0)
        return k

    def free_row(self, k: int) -> None:
        """Row k is free: its generation moves on (its object's view fails from now)."""
        self.gen[k] += 1
        self.free.append(k)


def flat_view(rows):
    """A flat float memoryview of a table's 2-d ``rows`` (row k at k * width)."""
    return memoryview(rows).cast("B").cast("d")
