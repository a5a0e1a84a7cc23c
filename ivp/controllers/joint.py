"""What springs and constraints share: registration, removal, break listeners
(spec 10.0, 10.4, 12.2, 12.5)."""

from __future__ import annotations

import warnings

from ..freeze import ensure_in_simulation
from .base import Controller


def check_joint_objects(env, what: str, obj0, obj1) -> None:
    """Bad input of a joint or spring: deleted objects, objects of another
    environment, a body joined to itself (None is the world)."""
    for o in (obj0, obj1):
        if o is None:
            continue
        if getattr(o, "core", None) is None or not hasattr(o, "anchors"):
            raise TypeError(f"{what}: {o!r} is not a physics object")
        if o.deleted:
            raise ValueError(f"{what}: object {o.name!r} was deleted")
        if o.environment is not env:
            raise ValueError(f"{what}: object {o.name!r} belongs to another environment")
    if obj0 is obj1 and obj0 is not None:
        raise ValueError(f"{what}: object {obj0.name!r} cannot be joined to itself")


def joint_name(obj0, obj1) -> str:
    """'A' - 'B' for messages; a missing object is the world (what is not
    an object at all is named as it is, for check_joint_objects to refuse)."""
    def name(o):
        return "world" if o is None else repr(getattr(o, "name", o))
    return f"{name(obj0)} - {name(obj1)}"


class Joint(Controller):
    """A controller that links the cores of two objects (spring or constraint).
    Registration merges their units and revives them if one is simulated
    (0x10011b30, 10.0); removal wakes the unit, then detaches it (0x10011ad0,
    0x10011a60: it splits at its next PSI, 10.4)."""

    links_cores = True

    def __init__(self, env, obj0, obj1):
        self.environment = env
        self.objects = (obj0, obj1)
        cores = []
        for o in (obj0, obj1):
            if o is not None and not o.core.physical_unmoveable and o.core not in cores:
                cores.append(o.core)
        self.controlled_cores = cores
        self.break_listeners = []
        self.deleted = False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {joint_name(*self.objects)}>"

    def get_controlled_cores(self) -> list:
        return self.controlled_cores

    def register(self) -> None:
        """0x10011b30: merge the units, attach to each movable core, revive."""
        self.environment.controller_manager.add_controller(self)

    def add_break_listener(self, listener) -> None:
        """A callable, called with the joint when it breaks (outlined in spec 12)."""
        if not callable(listener):
            raise TypeError(f"{self!r}: break listener {listener!r} is not callable")
        self.break_listeners.append(listener)

    def remove_break_listener(self, listener) -> None:
        self.break_listeners.remove(listener)

    def delete(self) -> None:
        """Spec 10.4: wake the unit of the first core, then detach."""
        if self.deleted:
            return
        if self.controlled_cores:
            ensure_in_simulation(self.environment, self.controlled_cores[0])
        self.detach()

    def detach(self) -> None:
        """0x10011a60: off every core, the units marked changed; anchors released."""
        self.deleted = True
        self.environment.controller_manager.remove_controller(self)
        self.release()

    def release(self) -> None:
        """Free what the joint holds on its objects (anchors); nothing by default."""

    def core_is_going_to_be_deleted_event(self, core) -> None:
        """Slot 0: a body of the joint is destroyed; the joint goes.

        Beyond the spec: the surviving bodies get a queued wake-up (10.4), so
        they fall once their partner is gone; an immediate revive would also
        revive the dying core, which is still in their unit.
        """
        self.detach()
        for o in self.objects:
            if o is not None and o.core is not core and not o.deleted:
                o.wake()

    def break_joint(self) -> None:
        """A spring stretched past its break length, or a constraint over its
        maximum force in break mode: its listeners are called, then it is
        deleted (12.3). This runs inside the PSI, so a listener that raises is
        reported as a warning and the PSI goes on."""
        for listener in list(self.break_listeners):
            try:
                listener(self)
            except Exception as exc:  # noqa: BLE001 - the PSI must complete
                warnings.warn(f"{self!r}: break listener {listener!r} raised {exc!r}",
                              RuntimeWarning, stacklevel=2)
        self.delete()
