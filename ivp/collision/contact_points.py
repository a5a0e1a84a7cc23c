"""The collision system's contact points (ivp-contacts 5.2, 5.9): a feature
pair's point reused or made at an impact, friction systems merged, a point
deleted, a system split after the static controller, and the contact points
a revived core gets with its resting partners."""

from __future__ import annotations

from ..fp import f32
from .broadphase import PoseGrid
from .constants import MAX_DISTANCE_FOR_FRICTION
from .contact_point import ContactPoint
from .events import ContactEvent
from .friction import FrictionSystem
from .material import may_collide, pair_friction_elasticity
from .mindist import pair_order


class ContactPoints:
    """CollisionSystem's 5.2 and 5.9 (its base class: these read and write
    the system's ``contact_points``, ``systems``, contact listeners and pose
    grid, and make mindists with its ``_mindist``)."""

    def get_or_create_contact_point(self, md, keep_unit, t: float):
        """5.2: the mindist's feature pair's contact point, reused or new.

        A friction-created listener may delete one of the two objects: the
        new point then went with it (5.9, object_deleted) and is returned dead
        (``cp.alive`` False), in no friction system, no unit merged."""
        s0 = md.side0
        s1 = md.side1
        key = tuple(sorted((s0.shape.serial, s1.shape.serial)))
        for cp in self.contact_points.get(key, ()):
            if (cp.side0.same_as(s0) and cp.side1.same_as(s1)) or (cp.side0.same_as(s1) and cp.side1.same_as(s0)):
                cp.update(t)
                return cp, False
        mu, e = pair_friction_elasticity(s0.shape.obj, s1.shape.obj)
        cp = ContactPoint(s0, s1, f32(mu), f32(e), t)
        if s0.feature[0] == "K" and s1.feature[0] == "K":
            cp.last_n = md.normal       # crossed edges (a negative gap): the measured side, not the lines'
        cp.update(t)
        cp.init_virt_mass()
        self.contact_points.setdefault(key, []).append(cp)
        self._fire(self.listeners_contact, "event_friction_created", ContactEvent(cp, t))
        if not cp.alive:
            return cp, True
        c0, c1 = cp.core0, cp.core1
        if c0.physical_unmoveable:
            c0, c1 = c1, c0
        S = c0.friction_system
        if S is not None:
            S2 = c1.friction_system
            if S2 is not None and S2 is not S:
                self._merge_systems(S, S2)
            S.add_contact(cp)
        elif not c1.physical_unmoveable and c1.friction_system is not None:
            c1.friction_system.add_contact(cp)
        else:
            fs = FrictionSystem(self)
            self.systems[fs] = None
            fs.add_contact(cp)
        if not c0.physical_unmoveable and not c1.physical_unmoveable:
            u0 = c0.sim_unit_of_core
            u1 = c1.sim_unit_of_core
            if u0 is not u1:
                units = [u1, u0] if u1 is keep_unit else [u0, u1]
                self.environment.sim_unit_manager.merge(units)
        return cp, True

    def _merge_systems(self, S, S2) -> None:
        """5.2: every contact point and core of S2 moves into S (pairs rebuilt)."""
        S.take(S2, list(S2.contacts))
        del self.systems[S2]

    def delete_contact(self, cp: ContactPoint, silent: bool = False) -> None:
        """5.9 delete_friction_distance; the point's row of the contact table
        is freed after the deleted event (its listeners may read the point)."""
        if not cp.alive:
            return
        cp.alive = False
        for _, core in cp.movable_sides():
            core.reset_freeze_check_values()
        fs = cp.system
        if fs is not None:
            fs.remove_contact(cp)
        key = tuple(sorted((cp.side0.shape.serial, cp.side1.shape.serial)))
        lst = self.contact_points.get(key)
        if lst is not None:
            lst.remove(cp)
            if not lst:
                del self.contact_points[key]
        if fs is not None and not fs.contacts and fs in self.systems:
            self._dissolve(fs)
        if not silent:
            self._fire(self.listeners_contact, "event_friction_deleted",
                       ContactEvent(cp, self.environment.current_time))
        self.environment.contacts.remove(cp.row)

    def _dissolve(self, fs) -> None:
        for core in list(fs.cores):
            fs.remove_core(core)
        del self.systems[fs]

    def after_static(self, fs) -> None:
        """5.9, after the static controller: an empty system goes; one whose
        core pairs fell apart splits."""
        if fs not in self.systems:
            return
        if not fs.contacts:
            self._dissolve(fs)
            return
        if not fs.union_find_necessary:
            return
        fs.union_find_necessary = False
        self.environment.sim_unit_manager.changed_cores(fs.movable)      # step.runs.lane_point reads the flag
        parts = fs.components()
        for part in parts[1:]:
            members = set(map(id, part))
            cps = [cp for cp in fs.contacts if id(cp.core0) in members or id(cp.core1) in members]
            new = FrictionSystem(self)
            self.systems[new] = None
            new.take(fs, cps)
            for core in part:
                core.sim_unit_of_core.changed = True
            self.environment.sim_unit_manager.changed_cores(part)

    def revive_partners(self, core) -> bool:
        """5.2 grow_friction_system: a revived core gets contact points to the
        movable bodies within 0.045 that are in no friction system yet; True
        when a unit changed (merged). A friction-created listener may delete
        either body: the search stops at a shape that has gone."""
        changed = False
        t = self.environment.current_time
        for obj in core.objects:
            shape = obj.collision_data
            if shape is None:
                continue
            if self._pose_grid is None:
                self._pose_grid = PoseGrid(self.movable, MAX_DISTANCE_FOR_FRICTION)
            for other in self._pose_grid.near(core):
                if obj.collision_data is not shape:
                    break
                oc = other.obj.core
                if (other is shape or oc is core or oc.friction_system is not None
                        or other.obj.collision_data is not other):
                    continue
                if not may_collide(obj, other.obj):
                    continue
                a, b = pair_order(shape, other)
                for ka in a.piece_keys():
                    for kb in b.piece_keys():
                        if other.obj.collision_data is not other or obj.collision_data is not shape:
                            break
                        md = self._mindist(a, ka, b, kb)
                        md.recalc(t)
                        if md.intrusion or md.len_numerator >= MAX_DISTANCE_FOR_FRICTION:
                            continue
                        unit = oc.sim_unit_of_core
                        _, new = self.get_or_create_contact_point(md, core.sim_unit_of_core, t)
                        if new and not other.obj.deleted:     # (a friction-created listener may delete it)
                            oc.reset_freeze_check_values()
                        if oc.sim_unit_of_core is not unit or unit is not core.sim_unit_of_core:
                            changed = True
        return changed
