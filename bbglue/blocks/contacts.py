"""PhysicsCollDetection and PhysicsContinuousContact (glue-and-content 2;
surfaces-and-contacts 5, step 9). Both listen to the collision system of ivp
through deferred commands, so they can be created before Physicalize.

Their outputs fire during the physics step and stay active until the behaviour
graph takes them at the next frame (``take_outputs`` for direct use). Times
(Sleep afterwards, the contact delays) are simulated seconds, env.current_time.
"""

from __future__ import annotations

import math

from ivp.fp import f32v

from .base import BOOL, FLOAT, IF_LIVE, INT, HandleBlock, Pin

COLL_DETECTION_ID = "Coll Detection ID"
CONTINUOUS_CONTACT_ID = "Continuous Contact ID"


def _other(ev, body):
    """(the other body of a two-body event, True when ``body`` is its obj0)."""
    return (ev.obj1, True) if ev.obj0 is body else (ev.obj0, False)


class _ListenerBlock(HandleBlock):
    """A block that registers a listener on its target's body with the collision
    system (``ADD`` names the registration); Stop silences it."""

    INPUTS = ("Create", "Stop")
    CREATED = None
    DESTROYED = None
    REMADE_BY_RESET = IF_LIVE
    ADD = ""

    def create_handle(self, mgr, cmd) -> bool:
        if self.target is None:
            return True
        body = mgr.body_for(self.target, cmd)
        if body is None:
            return False
        lst = self.make_listener(mgr, body)
        getattr(mgr.env.collision, self.ADD)(lst, body)
        self.set_handle(lst)
        return True

    def make_listener(self, mgr, body):
        raise NotImplementedError


class _Listener:
    """Base of the listeners a block registers; ``active`` is cleared on Stop."""

    def __init__(self, block, body, env):
        self.block = block
        self.body = body
        self.env = env
        self.active = True

    def stop(self, remove_name: str) -> None:
        self.active = False
        try:
            getattr(self.env.collision, remove_name)(self, self.body)
        except ValueError:            # already removed (a Stop, then the body's deletion)
            pass


class _CollisionListener(_Listener):
    def event_post_collision(self, ev) -> None:
        """Glue-and-content 2: the filters, then the out pins and the output."""
        blk = self.block
        if not self.active:
            return
        p = blk.params
        t = self.env.current_time
        last = blk.locals.get("last_time")
        if last is not None and t - last < p["Sleep afterwards"]:
            return
        if "Collision" in blk.fired_outputs:
            return
        v = ev.speed                      # relative velocity, ivp-contacts 4.10
        speed = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        if speed <= p["Min Speed"]:
            return
        other, first = _other(ev, self.body)
        entity = other.client_data
        if blk.settings["Use Collision ID"]:
            if entity is None or entity.get_attribute(COLL_DETECTION_ID, None) != p["Collision ID"]:
                return
        blk.locals["last_time"] = t
        n = ev.normal_ws if first else tuple(-c for c in ev.normal_ws)
        blk.outputs = {
            "Entity": entity,
            "Speed (0-1)": _speed_01(speed, p["Max Speed"]),
            "Collision Normal World": f32v(*n),
            "Position World": f32v(*ev.point_ws),
        }
        blk.activate_output("Collision")


def _speed_01(speed: float, max_speed: float) -> float:
    """ivp-contacts 7.2: min(|speed| / Max Speed, 1); 0.0001 below 0.0001 m/s,
    1 when Max Speed is below 0.0001."""
    if speed < 0.0001:
        return 0.0001
    if max_speed < 0.0001:
        return 1.0
    return min(speed / max_speed, 1.0)


class PhysicsCollDetection(_ListenerBlock):
    """Fires Collision on the target's post-collision events that pass the filters."""

    NAME = "PhysicsCollDetection"
    OUTPUTS = ("Collision",)
    ADD = "add_listener_collision"
    SETTINGS = (Pin("Use Collision ID", BOOL, False),)
    PINS = (
        Pin("Min Speed", FLOAT, 0.3),
        Pin("Max Speed", FLOAT, 10.0),
        Pin("Sleep afterwards", FLOAT, 0.5),
        Pin("Collision ID", INT, 1),
    )
    OUT_PINS = (Pin("Entity", None), Pin("Speed (0-1)", None), Pin("Collision Normal World", None),
                Pin("Position World", None))

    def make_listener(self, mgr, body):
        return _CollisionListener(self, body, mgr.env)

    def delete_handle(self, mgr, handle) -> None:
        handle.stop("remove_listener_collision")


class _ContactListener(_Listener):
    """Counts the contact points per group and runs the on / off timers."""

    def __init__(self, block, body, env, groups: int):
        super().__init__(block, body, env)
        self.count = [0] * groups
        self.since = [0.0] * groups
        self.on = [False] * groups

    def _group(self, ev):
        entity = _other(ev, self.body)[0].client_data
        g = entity.get_attribute(CONTINUOUS_CONTACT_ID, None) if entity is not None else None
        if isinstance(g, int) and not isinstance(g, bool) and 0 <= g < len(self.count):
            return g
        return None

    def event_friction_created(self, ev) -> None:
        g = self._group(ev)
        if g is None or not self.active:
            return
        self.count[g] += 1
        if self.count[g] == 1:
            self.since[g] = self.env.current_time

    def event_friction_deleted(self, ev) -> None:
        g = self._group(ev)
        if g is None or not self.active or self.count[g] == 0:
            return
        self.count[g] -= 1
        if self.count[g] == 0:
            self.since[g] = self.env.current_time

    def update(self, mgr) -> None:
        """Step 5 of the frame: "on N" once in contact longer than the start delay,
        "off N" after no contact for the end delay."""
        if not self.active:
            return
        p = self.block.params
        t = self.env.current_time
        for g in range(len(self.count)):
            if self.count[g] > 0 and not self.on[g] and t - self.since[g] > p["Time Delay Start"]:
                self.on[g] = True
                self.block.activate_output(f"contact on {g}")
            elif self.count[g] == 0 and self.on[g] and t - self.since[g] >= p["Time Delay End"]:
                self.on[g] = False
                self.block.activate_output(f"contact off {g}")

    def destroy_handler(self, mgr) -> None:
        """The body is deleted (spec 10.5) or the block stops."""
        self.stop("remove_listener_contact")
        if self in mgr.timers:
            mgr.timers.remove(self)
        rec = mgr.record_of(self.block.target)
        if rec is not None and rec.continuous_contact is self:
            rec.continuous_contact = None
        if self.block.handle is self:
            self.block.forget_handle()


class PhysicsContinuousContact(_ListenerBlock):
    """Contact on / off per group of the other body's "Continuous Contact ID"."""

    NAME = "PhysicsContinuousContact"
    ADD = "add_listener_contact"
    SETTINGS = (Pin("Number Group Output", INT, 5),)
    PINS = (
        Pin("Time Delay Start", FLOAT, 0.1),
        Pin("Time Delay End", FLOAT, 0.1),
    )

    @property
    def OUTPUTS(self):
        n = self.settings["Number Group Output"]
        return tuple(f"contact {w} {g}" for g in range(n) for w in ("on", "off"))

    def set_setting(self, key: str, value) -> None:
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"{self.describe()}: setting {key!r} must be >= 0, got {value}")
        super().set_setting(key, value)

    def make_listener(self, mgr, body):
        lst = _ContactListener(self, body, mgr.env, self.settings["Number Group Output"])
        mgr.record_of(self.target).continuous_contact = lst
        mgr.timers.append(lst)
        return lst

    def delete_handle(self, mgr, handle) -> None:
        handle.destroy_handler(mgr)
