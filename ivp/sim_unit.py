"""Simulation units, controller entries, freeze and revive (spec 1.4, 6.2-6.4, 10).

A sim unit is a set of cores that are simulated, frozen and woken together
(bodies joined by springs, constraints or resting contacts). The manager keeps
an active and a frozen list, each with the newest unit first (10.0).
"""

from __future__ import annotations

from itertools import groupby

import numpy as np

from .core import MT_NOT_SIM
from .controllers.base import SimEvent, connected_parts
from .jit import ENABLED as JIT_ENABLED
from .freeze import revive_sim_unit, try_to_freeze
from .step.runs import lane_point, run_rows, run_units
from .step.unit_pass import joint_unit, run_joint_unit, unit_head
from .states import SU_FROZEN

RUN_LENGTH = 64     # units in one lane run at most: a run ends early at a unit the object path
                    # finishes (calm, a point to delete), and the units after it are looked at again
CONTROLLER_RUNS = JIT_ENABLED   # consecutive controllers of a run_class called as one compiled step


class ControllerEntry:
    """Spec 1.4: a controller and the cores of this unit it acts on."""

    __slots__ = ("controller", "cores")

    def __init__(self, controller):
        self.controller = controller
        self.cores = []


class SimUnit:
    """Spec 1.4 (IVP_Sim_Unit)."""

    __slots__ = ("state", "changed", "fast", "fast_prev", "cores", "entries", "alive", "_steps", "_runs", "_lane",
                 "_joint_run", "lane_kind")

    def __init__(self):
        self.state = SU_FROZEN
        self.changed = False        # flags 0x300
        self.fast = False           # flags bits 10-11
        self.fast_prev = False      # flags bits 12-13
        self.cores = []
        self.entries = []           # ascending priority
        self.alive = True
        self._steps = None          # controller_steps' answer while the unit stays as it is
        self._runs = []             # the runs of the steps made last, kept for the next steps
        self._lane = None           # (unit_pass.joint_unit's step,) while the unit stays as it is
        self._joint_run = None      # the run of the step joint_unit made last
        self.lane_kind = None       # (lane_kind's answer,) while the unit stays as it is

    def _before_snapshot(self) -> None:
        self.forget()                   # made again when asked: no part of a snapshot
        self._runs = []
        self._joint_run = None

    def forget(self) -> None:
        """Something the unit's way through the PSI is chosen by changed (its
        cores or controllers, its state, a core's friction system or impact:
        SimUnitManager.changed): its kept kind and steps are made
        again when next asked."""
        self._steps = None
        self._lane = None
        self.lane_kind = None

    def controller_steps(self) -> list:
        """(controller, cores) in calling order (6.3: the entries last to
        first), two or more consecutive controllers of one run_class that
        are in_run as one step (run_class(controllers), None); made again
        after the unit changed (:meth:`forget`), a run of the same
        controllers kept."""
        if self._steps is not None:
            return self._steps
        runs = self._runs
        steps = []
        for _, run in groupby(self.entries[::-1], _run_key):
            run = list(run)
            if len(run) > 1:
                controllers = [e.controller for e in run]
                step = next((r for r in runs if r.controllers == controllers), None)
                if step is None:
                    step = type(controllers[0]).run_class(controllers)
                steps.append((step, None))
            else:
                steps.append((run[0].controller, run[0].cores))
        self._steps = steps
        self._runs = [c for c, on in steps if on is None]
        return steps

    def find_entry(self, controller):
        """0x10011370."""
        for e in self.entries:
            if e.controller is controller:
                return e
        return None

    def add_controller_core(self, controller, core) -> None:
        """0x10011cc0: find or append the entry, add the core, re-sort (6.4)."""
        e = self.find_entry(controller)
        if e is None:
            e = ControllerEntry(controller)
            self.entries.append(e)
        e.cores.append(core)
        self.sort_entries()

    def remove_controller_core(self, controller, core) -> None:
        """0x10011c00 (unit side): drop the core from the entry; an empty entry goes."""
        e = self.find_entry(controller)
        if e is None:
            return
        if core in e.cores:
            e.cores.remove(core)
        if not e.cores:
            self.entries.remove(e)

    def sort_entries(self) -> None:
        """0x10011db0: insertion sort to ascending priority, swapping only when
        strictly greater, so equal priorities keep their insertion order."""
        a = self.entries
        for i in range(1, len(a)):
            j = i
            while j > 0 and a[j - 1].controller.priority > a[j].controller.priority:
                a[j - 1], a[j] = a[j], a[j - 1]
                j -= 1

    def do_sim_unit_psi(self, env, ev: SimEvent, cores_out: list) -> None:
        """Spec 6.3 (0x100121b0): sync poses, commit, controllers, sleep test
        (a unit of joints the lane runs whole: lane.run_joint_unit)."""
        ev.sim_unit = self
        if env.lane is not None and not self.changed and (step := joint_unit(env, self)) is not None:
            run_joint_unit(env, self, step, cores_out)
        else:
            self._object_psi(env, ev, cores_out)
        if self.changed and self.alive:
            env.sim_unit_manager.split(self)

    def _object_psi(self, env, ev: SimEvent, cores_out: list) -> None:
        """do_sim_unit_psi on the objects, up to the split."""
        test_sleep = unit_head(env, self)
        for c, on in self.controller_steps():
            c.do_simulation_controller(ev, on)
        cores_out.extend(reversed(self.cores))
        if test_sleep:
            try_to_freeze(env, self)
        if env.collision is not None:
            env.collision.update_after_controllers(self)


def _run_key(entry):
    """controller_steps' grouping: a controller that may be one of a run is
    keyed by its run_class, any other by itself (a step of its own)."""
    c = entry.controller
    return type(c).run_class if CONTROLLER_RUNS and c.in_run() else entry


def lane_kind(env, su):
    """The unit's way in the PSI loop: None (the object path) or, a lane
    unit, its resting point's row in the contact table or -1
    (step.runs.lane_point). Kept on the unit until it changes
    (SimUnitManager.changed): a settling heap, where some unit lands or
    freezes at every PSI, looks at each unit again at every PSI, and most
    of them are what they were."""
    kept = su.lane_kind
    if kept is not None:
        return kept[0]
    kind = lane_point(env, su)
    su.lane_kind = (kind,)
    return kind


class Plan:
    """A PSI's units (6.2) as steps, recorded while the unit-by-unit loop runs
    them and run again at every later PSI while it is the lane's plan
    (``Lane.plan``: nothing they were chosen by changed, SimUnitManager.changed):
    a run of lane units with their cores, rows, flags and points' rows
    (step.runs), or one other unit. ``awake`` is the collision system's cache of the PSI's awake
    shapes (the plan's cores, in order)."""

    __slots__ = ("complete", "steps", "awake")

    def __init__(self):
        self.complete = False           # recorded whole, a PSI with no change
        self.steps = []
        self.awake = None

    def other_unit(self, i: int, su) -> None:
        """The recording: the order's unit i, run by the object path."""
        self.steps.append((i, su, None, None, None, None, None))

    def recorded(self, env, complete: bool) -> bool:
        """The recording is over: it holds from now when every unit of the
        order ran as recorded and nothing changed (this PSI is then
        planned)."""
        if complete and env.lane.plan is self:
            self.complete = True
            env.lane.planned_psi = env.psi_count
            self.steps = _merged(self.steps)
            return True
        return False

    def run(self, env, ev, cores_out: list) -> int:
        """The steps in order while the plan holds; returns the index in the
        order of the first unit not run (the caller goes on from there unit
        by unit), or -1 when every step ran."""
        for i, su, units, cores, rows, flags, slots in self.steps:
            if su is not None:
                su.do_sim_unit_psi(env, ev, cores_out)
                i += 1
            else:
                ran = run_rows(env, units, cores, rows, flags, slots, cores_out)
                i += ran
                if ran < len(units):
                    return i
            if env.lane.plan is not self:
                return i
        env.lane.planned_psi = env.psi_count
        return -1


def _merged(steps) -> list:
    """Runs that follow each other in the order (recorded at most RUN_LENGTH
    units at a time) as one run: the same pass, in fewer calls."""
    out = []
    for step in steps:
        i, su, units, cores, rows, flags, slots = step
        if out and su is None:
            j, su0, units0, cores0, rows0, flags0, slots0 = out[-1]
            if su0 is None and j + len(units0) == i:
                out[-1] = (j, None, units0 + units, cores0 + cores, np.concatenate((rows0, rows)),
                           np.concatenate((flags0, flags)), np.concatenate((slots0, slots)))
                continue
        out.append(step)
    return out


class SimUnitManager:
    """Spec 10.0: the active and frozen lists (newest first), merge and split."""

    def __init__(self, env):
        self.environment = env
        self.active = []
        self.frozen = []

    def changed(self, units) -> None:
        """Something a unit's way through the PSI is chosen by changed (the
        unit lists; a unit's cores, controllers or state; a core's friction
        system or impact, a shape made or gone): the lane's plan
        goes, and the kept kind and steps of the ``units`` (SimUnit.forget;
        None for no unit)."""
        lane = self.environment.lane
        if lane is not None:
            lane.plan = None
        for su in units:
            if su is not None:
                su.forget()

    def changed_cores(self, cores) -> None:
        """:meth:`changed` naming the cores' units (each once: the cores of a
        heap share one)."""
        self.changed({c.sim_unit_of_core for c in cores})

    def add_sim_unit(self, su: SimUnit) -> None:
        """0x10011ef0: push at the head of the list chosen by the state byte."""
        self.changed((su,))
        (self.active if su.state < SU_FROZEN else self.frozen).insert(0, su)

    def remove_sim_unit(self, su: SimUnit) -> None:
        """0x10011f50."""
        self.changed((su,))
        lst = self.active if su.state < SU_FROZEN else self.frozen
        lst.remove(su)

    def set_state(self, su: SimUnit, state: int) -> None:
        """remove, set the state byte, add: moves the unit between the lists."""
        self.remove_sim_unit(su)
        su.state = state
        self.add_sim_unit(su)

    def simulate_sim_units(self, env, cores_out: list) -> None:
        """Spec 6.2 (0x100124c0), with the 3-deep look-ahead order quirk:
        list order except the last three, which run in reverse."""
        units = self.active
        n = len(units)
        if n >= 3:
            order = units[:n - 3] + units[n - 3:][::-1]
        else:
            order = units[::-1]
        ev = SimEvent(env.delta_PSI_time, env.inv_delta_PSI_time, env)
        lane = env.lane
        i = 0
        plan = None
        if lane is not None:
            lane.start()
            if lane.plan is not None and lane.plan.complete:
                i = lane.plan.run(env, ev, cores_out)
                if i < 0:
                    return
            else:
                plan = lane.plan = Plan()
        n = len(order)
        complete = i == 0
        while i < n:
            su = order[i]
            if not (su.alive and su.state < SU_FROZEN):
                i += 1
            elif lane is not None and (slot := lane_kind(env, su)) is not None:
                slots = [slot]          # the run of lane units from here (at most RUN_LENGTH)
                j = i + 1
                end = min(n, i + RUN_LENGTH)
                while j < end and order[j].alive and order[j].state < SU_FROZEN:
                    slot = lane_kind(env, order[j])
                    if slot is None:
                        break
                    slots.append(slot)
                    j += 1
                ran = run_units(env, order, i, j, slots, cores_out, plan)
                complete = complete and ran == j - i
                i += ran
            else:
                if plan is not None:
                    plan.other_unit(i, su)
                su.do_sim_unit_psi(env, ev, cores_out)
                i += 1
        if plan is not None and not plan.recorded(env, complete):
            lane.plan = None

    # --- controllers (6.4, 10.0) ------------------------------------------------

    def add_controller_to_core(self, ctrl, core) -> None:
        """0x10011b10 / 0x10011c70: attach a one-core controller (no merge, no wake)."""
        core.controllers_of_core.append(ctrl)
        core.sim_unit_of_core.add_controller_core(ctrl, core)
        self.changed((core.sim_unit_of_core,))

    def add_controller(self, ctrl) -> None:
        """0x10011b30: merge the units of the controller's movable cores, attach it
        to each, and revive the unit if any of its cores is simulated."""
        cores = [c for c in ctrl.get_controlled_cores() if not c.physical_unmoveable]
        if not cores:
            return
        su = self.merge([c.sim_unit_of_core for c in cores])
        state = MT_NOT_SIM              # the AND of the cores' movement states (0.4)
        for c in cores:
            c.controllers_of_core.append(ctrl)
            su.add_controller_core(ctrl, c)
        self.changed((su,))
        for c in su.cores:
            state &= c.movement_state
        if state < SU_FROZEN:
            revive_sim_unit(self.environment, su)

    def remove_controller(self, ctrl) -> None:
        """0x10011a60 / 0x10011c00: detach from every core; the unit is marked changed."""
        for c in list(ctrl.get_controlled_cores()):
            if ctrl in c.controllers_of_core:
                c.controllers_of_core.remove(ctrl)
                su = c.sim_unit_of_core
                su.remove_controller_core(ctrl, c)
                self.changed((su,))
                su.changed = True

    def merge(self, units) -> SimUnit:
        """0x10011720: join units into the first; the others are removed."""
        self.changed(units)
        first = units[0]
        for su in units[1:]:
            if su is first or not su.alive:
                continue
            self.remove_sim_unit(su)
            su.alive = False
            for c in su.cores:
                c.sim_unit_of_core = first
                first.cores.append(c)
            for e in su.entries:
                mine = first.find_entry(e.controller)
                if mine is None:
                    first.entries.append(e)
                else:
                    mine.cores.extend(e.cores)
            su.cores = []
            su.entries = []
        first.sort_entries()
        return first

    def split(self, su: SimUnit) -> None:
        """0x100120d0: a unit whose structure changed splits into its connected parts.

        Cores are connected through controllers that link cores (springs,
        constraints, contacts); the environment's gravity controller does not.
        """
        su.changed = False
        self.changed((su,))
        parts = connected_parts(su.cores, (e.controller.get_controlled_cores() for e in su.entries
                                           if e.controller.links_cores))
        if len(parts) < 2:
            return
        keep = parts[0]
        for part in parts[1:]:
            new = SimUnit()
            new.state = su.state
            members = set(map(id, part))
            new.cores = [c for c in su.cores if id(c) in members]
            for e in su.entries:
                mine = [c for c in e.cores if id(c) in members]
                if mine:
                    ne = ControllerEntry(e.controller)
                    ne.cores = mine
                    new.entries.append(ne)
            for c in new.cores:
                c.sim_unit_of_core = new
            self.add_sim_unit(new)
        kept = set(map(id, keep))
        su.cores = [c for c in su.cores if id(c) in kept]
        for e in su.entries:
            e.cores = [c for c in e.cores if id(c) in kept]
        su.entries = [e for e in su.entries if e.cores]

    def remove_core(self, core) -> None:
        """A core is deleted: it leaves its unit; an empty unit leaves the manager."""
        self.changed((core.sim_unit_of_core,))
        su = core.sim_unit_of_core
        if core in su.cores:
            su.cores.remove(core)
        for e in su.entries:
            if core in e.cores:
                e.cores.remove(core)
        su.entries = [e for e in su.entries if e.cores]
        if not su.cores:
            self.remove_sim_unit(su)
            su.alive = False
        else:
            su.changed = True

