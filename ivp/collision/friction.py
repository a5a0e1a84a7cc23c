"""The friction system (ivp-contacts 5): contact points, their per-PSI update,
the normal and tangential solves, easing, deletion and splitting. Each group
of touching movable cores owns one :class:`FrictionSystem`, whose three
controllers run on each of its movable cores (5.4): energy (2000, 5.3),
dynamic friction (600, 5.6 and 5.7), static friction (0, 5.5 and 5.9)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..controllers.base import Controller, connected_parts
from ..core import ZERO3
from ..state.table import Table
from ..state.layout import ANTI, EASE, PAIR_WIDTH
from .contact_point import ContactPoint
from .constants import ENERGY_DAMP_LOG
from .friction_kernels import BALL_SIDE
from .friction_passes import (SystemArrays, damp_system, ease_system, normal_solve_multi, single_normal,
                              tangential_system, update_system)


class CorePair:
    """5.1 IVP_Friction_Core_Pair, a view onto its row of its system's pair
    table (integrated_anti_energy, next_ease_nr_psi: the passes read and
    write them there). ``made``: its number in its system (a pair lives in
    one system's dict, entered when made: the dict's order is that of
    ``made``)."""

    __slots__ = ("cores", "contacts", "last_impact_time_pair", "made", "_table", "row")

    def __init__(self, table: Table, c0, c1, made: int):
        self.made = made
        self.cores = (c0, c1)
        self.contacts = []
        self.last_impact_time_pair = -1000.0
        self._table = table
        self.row = table.new_row()
        table.rows[self.row] = (0.0, 1.0)

    @property
    def integrated_anti_energy(self) -> float:
        return float(self._table.rows[self.row, ANTI])

    @integrated_anti_energy.setter
    def integrated_anti_energy(self, e: float) -> None:
        self._table.rows[self.row, ANTI] = e

    @property
    def next_ease_nr_psi(self) -> int:
        return int(self._table.rows[self.row, EASE])


def pair_key(c0, c1):
    """The cores themselves (not their id(), which a copied world does not share)."""
    return frozenset((c0, c1))


class _Handle(Controller):
    """One of a friction system's three controllers (5.4), on every movable core."""

    links_cores = True

    def __init__(self, system):
        self.system = system

    def get_controlled_cores(self) -> list:
        return list(self.system.movable)

    def core_is_going_to_be_deleted_event(self, core) -> None:
        self.system.collision.core_deleted(core)


class EnergyHandle(_Handle):
    """Priority 2000: update every contact point (5.3); in multi-contact
    systems the anti-energy bookkeeping and the energy damping (5.8)."""

    priority = 2000

    def do_simulation_controller(self, ev, cores) -> None:
        fs = self.system
        if not fs.contacts:
            return
        several = len(fs.contacts) > 1
        update_system(fs, ev.environment, ev.environment.current_time, several)
        unit = ev.sim_unit
        if not several or unit.fast:
            return
        if unit.fast_prev:
            fs.pair_table.rows[fs.layout().K.PR, ANTI] = 0.0
            return
        damp_system(fs, math.exp(ENERGY_DAMP_LOG * ev.delta_time))


class DynamicHandle(_Handle):
    """Priority 600: tangential friction (5.6), easing (5.7)."""

    priority = 600

    def do_simulation_controller(self, ev, cores) -> None:
        fs = self.system
        if not fs.contacts:
            return
        several = len(fs.contacts) > 1
        tangential_system(fs, ev.environment, ev.delta_time, several)
        if several:
            ease_system(fs)


class StaticHandle(_Handle):
    """Priority 0: the normal solve (5.5), deletion and splitting (5.9)."""

    priority = 0

    def do_simulation_controller(self, ev, cores) -> None:
        fs = self.system
        col = fs.collision
        dt = ev.delta_time
        if len(fs.contacts) > 1:
            normal_solve_multi(fs, ev.environment, dt, 1.0 / dt)
        elif fs.contacts and single_normal(fs, ev.environment, dt):
            col.delete_contact(fs.contacts[0])
        col.after_static(fs)


_BALL_ROW = (BALL_SIDE, (ZERO3, ZERO3, ZERO3, ZERO3))


class SystemLayout(NamedTuple):
    """What the system passes read of a friction system's shape
    (FrictionSystem.layout)."""
    cores: list          # the system's cores
    cps: list            # the points of the core pairs, last pair to first
    pairs: list          # the core pairs, last to first
    row: dict            # a point's row of cps
    K: SystemArrays      # the same as arrays, for the passes


class FrictionSystem:
    """5.1 IVP_Friction_System: contact points (newest first), all cores and the
    movable ones, core pairs (their fields in the rows of ``pair_table``), and
    the three controllers."""

    def __init__(self, collision):
        self.collision = collision
        self.contacts = []
        self.cores = []
        self.movable = []
        self.pairs = {}
        self.pairs_made = 0             # the pairs made in it so far (CorePair.made)
        self.pair_table = Table(PAIR_WIDTH, 8)
        self.core_contacts = {}          # core -> its contact points in this system
        self.union_find_necessary = False
        self.handles = (StaticHandle(self), DynamicHandle(self), EnergyHandle(self))
        self._layout = None
        self._sides = None

    def _before_snapshot(self) -> None:
        self._layout = None             # made again when asked: no part of a snapshot
        self._sides = None

    def side_columns(self, lay: SystemLayout):
        """update_system's side columns of the layout's points, made once per
        layout: ((S, L, AT, X, edges), moving). S (n, 26): each side packed as
        ContactPoint.side_data (a ball as _BALL_ROW), the movable hull sides
        written again at each update by moving_sides_k from L (their
        side_local rows) and AT (point row, first column, core index);
        ``edges``: both sides edges; X (n, 3): both extra radii and 1.0 where
        side 0 is a ball; ``moving``: the (row, side) of the other movable
        non-ball sides (made by side_data at each update)."""
        kept = self._sides
        if kept is not None and kept[0] is lay:
            return kept[1]
        S = np.empty((len(lay.cps), 26))
        moving = []
        local = []
        at = []
        edges = []
        for q, cp in enumerate(lay.cps):
            kinds = []
            for i, (side, core) in enumerate(((cp.side0, cp.core0), (cp.side1, cp.core1))):
                if side.shape.is_ball:
                    k, (a, b, c, d) = _BALL_ROW
                else:
                    k, (a, b, c, d) = cp.side_data(i)
                    if not core.physical_unmoveable:
                        loc = cp.side_local(i)
                        if loc is None:
                            moving.append((q, i))
                        else:
                            local.append((loc[0], *loc[1], *loc[2], *loc[3]))
                            at.append((q, 13 * i, int(lay.K.I[q, i])))
                S[q, 13 * i:13 * i + 13] = (k, *a, *b, *c, *d)
                kinds.append(k)
            edges.append(kinds[0] == 1 and kinds[1] == 1)
        L = np.array(local, dtype=np.float64).reshape(len(local), 10)
        AT = np.array(at, dtype=np.int64).reshape(len(at), 3)
        X = np.array([(float(cp.obj0.extra_radius), float(cp.obj1.extra_radius), float(cp.side0.shape.is_ball))
                      for cp in lay.cps], dtype=np.float64).reshape(len(lay.cps), 3)
        out = ((S, L, AT, X, np.array(edges, dtype=np.bool_)), moving)
        self._sides = (lay, out)
        return out

    def layout(self) -> SystemLayout:
        """The system's shape for the system passes (update_system,
        tangential_system, normal_solve_multi), made again after its cores,
        pairs or contact points changed (add_core, remove_core, add_contact,
        remove_contact); the cores' masses and inertias are set when a body
        is made."""
        if self._layout is not None:
            return self._layout
        pairs = list(reversed(list(self.pairs.values())))
        cores = list(self.cores)
        at = {c: i for i, c in enumerate(cores)}
        cps = [cp for pair in pairs for cp in pair.contacts]
        starts = np.zeros(len(pairs) + 1, dtype=np.int64)
        np.cumsum([len(pair.contacts) for pair in pairs], out=starts[1:])
        K = SystemArrays(
            rows=np.array([c.row for c in cores], dtype=np.int64),
            MOV=np.array([not c.physical_unmoveable for c in cores], dtype=np.bool_),
            II=np.array([c.inv_rot_inertia for c in cores], dtype=np.float64).reshape(len(cores), 3),
            IM=np.array([c.inv_mass for c in cores], dtype=np.float64),
            M=np.array([c.mass for c in cores], dtype=np.float64),
            RI=np.array([c.rot_inertia for c in cores], dtype=np.float64).reshape(len(cores), 3),
            starts=starts,
            I=np.array([(at[cp.core0], at[cp.core1]) for cp in cps], dtype=np.int64).reshape(len(cps), 2),
            slots=self.collision.environment.contacts.slots(cps),
            PR=np.array([pair.row for pair in pairs], dtype=np.int64),
            PC=np.array([(at[pair.cores[0]], at[pair.cores[1]]) for pair in reversed(pairs)],
                        dtype=np.int64).reshape(len(pairs), 2))
        out = SystemLayout(cores, cps, pairs, {cp: k for k, cp in enumerate(cps)}, K)
        self._layout = out
        return out

    def add_core(self, core) -> None:
        """A core joins the system; a movable one gets the three controllers (5.2)."""
        if core in self.core_contacts:
            return
        self.core_contacts[core] = []
        self.cores.append(core)
        self._layout = None
        if core.physical_unmoveable:
            return
        self.movable.append(core)
        mgr = core.environment.sim_unit_manager
        for h in self.handles:
            mgr.add_controller_to_core(h, core)
        core.friction_system = self
        core.environment.sim_unit_manager.changed((core.sim_unit_of_core,))

    def remove_core(self, core) -> None:
        """A core leaves the system; a movable one loses the controllers and its
        unit is flagged for a split (5.9)."""
        if self.core_contacts.pop(core, None) is None:
            return
        self.cores.remove(core)
        self._layout = None
        if core.physical_unmoveable:
            return
        self.movable.remove(core)
        for h in self.handles:
            if h in core.controllers_of_core:
                core.controllers_of_core.remove(h)
                core.sim_unit_of_core.remove_controller_core(h, core)
        core.sim_unit_of_core.changed = True
        core.environment.sim_unit_manager.changed((core.sim_unit_of_core,))
        if getattr(core, "friction_system", None) is self:
            core.friction_system = None

    def add_contact(self, cp: ContactPoint) -> None:
        """The contact point at the front of the list, in its core pair."""
        # step.runs.lane_point reads the first point, the count
        self.collision.environment.sim_unit_manager.changed_cores(self.movable)
        self._add(cp)

    def take(self, other, cps) -> None:
        """The contact points ``cps`` of ``other`` move into this system (5.2
        merge, 5.9 split): removed in order, added in reverse (the list's
        order kept); the units of both systems' cores are told once."""
        for cp in cps:
            other._remove(cp)
        for cp in reversed(cps):
            self._add(cp)
        self.collision.environment.sim_unit_manager.changed_cores(self.movable + other.movable)

    def _add(self, cp: ContactPoint) -> None:
        self._layout = None
        self.add_core(cp.core0)
        self.add_core(cp.core1)
        cp.system = self
        self.contacts.insert(0, cp)
        self.core_contacts[cp.core0].append(cp)
        self.core_contacts[cp.core1].append(cp)
        key = pair_key(cp.core0, cp.core1)
        pair = self.pairs.get(key)
        if pair is None:
            self.pairs_made += 1
            pair = self.pairs[key] = CorePair(self.pair_table, cp.core0, cp.core1, self.pairs_made)
        pair.contacts.append(cp)
        cp.pair = pair

    def remove_contact(self, cp: ContactPoint) -> None:
        """5.9's bookkeeping of a deletion (events and timers are the caller's)."""
        self.collision.environment.sim_unit_manager.changed_cores(self.movable)
        self._remove(cp)

    def _remove(self, cp: ContactPoint) -> None:
        self._layout = None
        self.contacts.remove(cp)
        pair = cp.pair
        pair.contacts.remove(cp)
        if not pair.contacts:
            del self.pairs[pair_key(*pair.cores)]
            self.pair_table.free_row(pair.row)
            self.union_find_necessary = True
        for core in (cp.core0, cp.core1):
            lst = self.core_contacts.get(core)
            if lst is None:
                continue
            lst.remove(cp)
            if not lst:
                self.remove_core(core)
        cp.system = None

    def components(self) -> list:
        """5.9: the core pairs' connected parts, fixed cores not connecting."""
        return connected_parts(self.movable, (pair.cores for pair in self.pairs.values()))
