"""The rows of loaned contact points (issue 11): while a resting run
(collision.single_contact) or the passes of a friction system of several
points (collision.friction) have a point, its fields are in a row of the
collision system's :class:`PointRows` and the point is a
:class:`LoanedPoint`, the way the lane holds a core (ivp.lane)."""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from ..core import ZERO3
from ..state.layout import (BROKEN, FRESH, GAP, IMPACTS, IN_LAST_TIME, IN_N, IN_SPAN, INV_VM, LAST_GAP, LAST_N,
                            NO_LAST_N, NORMAL, POINT, POINT_WIDTH, R_CS, R_CS1, RECHECK, RXN, RXN1, T0, T1,
                            free_row)
from .contact_point import ContactPoint


class PointRows:
    """The rows of the loaned contact points (see LoanedPoint); a snapshot
    gives every point back first."""

    def __init__(self, epoch):
        self.epoch = epoch              # the environment's (ivp.state.epoch)
        self.rows = np.zeros((64, POINT_WIDTH))
        self.points = []                # the point of each row

    def _before_snapshot(self) -> None:
        self.give_back_all()

    def take(self, cp, touch: bool = True) -> int:
        """Put the point's fields in a new row; the point is on loan from now.
        ``touch``: a resting run's take touches (the plan's rows); the system
        passes' do not (a plan and a system's layout hold no point's row)."""
        k = len(self.points)
        if k == self.rows.shape[0]:
            self.rows = np.concatenate([self.rows, np.zeros_like(self.rows)])
        last_n = cp.last_n
        r0, r1 = cp.r_cs
        x0, x1 = cp.rxn
        self.rows[k] = (*inputs(cp), cp.gap, *cp.n, *cp.p, *cp.t0, *cp.t1, *_lever(r0), *_lever(x0), cp.inv_vm,
                        float(cp.broken), float(cp.needs_recheck), cp.last_gap_len,
                        *(ZERO3 if last_n is None else last_n), float(last_n is None),
                        float(cp.impacts_while_system), float(cp.test_fresh), *_lever(r1), *_lever(x1))
        self.points.append(cp)
        cp.point_slot = k
        cp.__class__ = LoanedPoint
        if touch:
            self.epoch.touch(())
        return k

    def give_back(self, cp) -> None:
        """The row into the point's fields; the point is a plain ContactPoint
        again (a fixed side's levers None, as ContactPoint.update leaves them)."""
        k = cp.point_slot
        cp.__class__ = ContactPoint
        r = self.rows[k].tolist()
        for name, read in _POINT_READ.items():
            setattr(cp, name, read(r))
        cp.r_cs = _levers(cp, r, R_CS, R_CS1)
        cp.rxn = _levers(cp, r, RXN, RXN1)
        cp.point_slot = -1
        self.epoch.touch(())
        free_row(self.rows, self.points, k, "point_slot")

    def give_back_all(self) -> None:
        while self.points:
            self.give_back(self.points[-1])

    def slots(self, cps, touch: bool = False):
        """The rows of the points (an int array), each not on loan taken
        first (``touch``: as take's; the system passes' takes touch nothing)."""
        slots = list(map(_point_slot, cps))
        if slots and min(slots) < 0:
            slots = [self.take(cp, touch) if k < 0 else k for cp, k in zip(cps, slots)]
        return np.array(slots, dtype=np.int64)


_point_slot = attrgetter("point_slot")


def point_rows(col):
    """The collision system's contact point rows (points.PointRows), made when first asked for."""
    if col.points is None:
        col.points = PointRows(col.environment.epoch)
    return col.points


def inputs(cp) -> tuple:
    """A contact point's CP_IN inputs of the resting pass."""
    kind, (a, b, c, d) = cp.side_data(1)
    return (kind, *a, *b, *c, *d, float(cp.obj0.extra_radius), float(cp.obj1.extra_radius), *cp.span_s,
            cp.now_friction_pressure, cp.real_friction_factor, cp.inv_virt_mass_no_dir, cp.last_time)


def _lever(r):
    """A side's lever (r_cs or r x n) for its row: zero for a fixed side (None)."""
    return ZERO3 if r is None else r


def _levers(cp, r, at0: int, at1: int) -> list:
    """A point's lever list (r_cs or rxn) from its row ``r`` (a list): a
    fixed side's None, as ContactPoint.update leaves it."""
    return [None if cp.core0.physical_unmoveable else tuple(r[at0:at0 + 3]),
            None if cp.core1.physical_unmoveable else tuple(r[at1:at1 + 3])]


def _tuple(at: int):
    return lambda r: tuple(r[at:at + 3])


def _flag(at: int):
    return lambda r: r[at] != 0.0


# a loaned point's written fields as read from its row (a list from tolist())
_POINT_READ = {
    "span_s": lambda r: (r[IN_SPAN], r[IN_SPAN + 1]), "now_friction_pressure": lambda r: r[IN_N],
    "last_time": lambda r: r[IN_LAST_TIME], "gap": lambda r: r[GAP], "n": _tuple(NORMAL), "p": _tuple(POINT),
    "t0": _tuple(T0), "t1": _tuple(T1), "inv_vm": lambda r: r[INV_VM], "broken": _flag(BROKEN),
    "needs_recheck": _flag(RECHECK), "last_gap_len": lambda r: r[LAST_GAP],
    "last_n": lambda r: None if r[NO_LAST_N] != 0.0 else tuple(r[LAST_N:LAST_N + 3]),
    "impacts_while_system": lambda r: int(r[IMPACTS]), "test_fresh": _flag(FRESH),
}
# the fields the pass only reads (from the row, copied at take) and the
# objects they come from: a write gives the point back first
_POINT_INPUTS = ("side0", "side1", "obj0", "obj1", "core0", "core1", "real_friction_factor",
                 "inv_virt_mass_no_dir", "fixed_world")


class LoanedPoint(ContactPoint):
    """A contact point of a resting run or of a several-point system's
    passes whose fields are in its row of the collision system's PointRows,
    like a loaned core's (ivp.lane): the fields the passes write are read
    from the row (a lever list read is a new list: changing it leaves the
    point as it is), any write gives the point back first; a snapshot gives
    every point back first."""

    __slots__ = ()

    def _before_snapshot(self) -> None:
        self.core0.environment.collision.points.give_back(self)


def _point_field(name: str):
    slot = ContactPoint.__dict__[name]
    read = _POINT_READ.get(name)

    def points_of(cp):
        return cp.core0.environment.collision.points

    if read is not None:
        def get(cp):
            return read(points_of(cp).rows[cp.point_slot].tolist())
    elif name in ("r_cs", "rxn"):
        at0, at1 = (R_CS, R_CS1) if name == "r_cs" else (RXN, RXN1)

        def get(cp):
            return _levers(cp, points_of(cp).rows[cp.point_slot].tolist(), at0, at1)
    else:
        get = slot.__get__

    def put(cp, value):
        points_of(cp).give_back(cp)
        slot.__set__(cp, value)

    return property(get, put, doc=f"ContactPoint.{name}, given back from its row first")


for _name in (*_POINT_READ, "r_cs", "rxn", *_POINT_INPUTS):
    setattr(LoanedPoint, _name, _point_field(_name))
