"""The epoch of one environment's changes (issue 11, issue 39): what the kept
plans, steps and layouts of the lane are stamped with.

Each environment owns one (``env.epoch``), so two environments in one process
are independent: a change in one makes no cache of the other stale.
"""

from __future__ import annotations


class Epoch:
    """How many times something a kept plan, step or layout is made from
    changed (a unit's cores, controllers, state or list; a core's friction
    system, impact or row; a shape's mindists or collision data): a cache
    stamped with ``value`` holds while the value stays. ``untagged``: the
    value at the last touch that named no units.

    A snapshot drops every stamped cache (their ``_before_snapshot``), so a
    restored world counts from 0 again, as a new one does: the value is no
    part of a snapshot."""

    __slots__ = ("value", "untagged")

    def __init__(self):
        self.value = 0
        self.untagged = 0

    def __getstate__(self):
        return None

    def __setstate__(self, state) -> None:
        self.value = self.untagged = 0

    def touch(self, units=None) -> None:
        """Something a Plan (ivp.sim_unit) is made from changed: every plan is
        made again at its next PSI. ``units``: the units whose lane step
        (sim_unit.lane_kind) the change may alter, each stamped with the new
        value (``touched``); None when that is not known (every unit's kept
        step is then stale)."""
        self.value += 1
        if units is None:
            self.untagged = self.value
            return
        for su in units:
            if su is not None:
                su.touched = self.value

    def touch_cores(self, cores) -> None:
        """:meth:`touch` naming the cores' units."""
        self.touch([c.sim_unit_of_core for c in cores])
