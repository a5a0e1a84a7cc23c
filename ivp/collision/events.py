"""The events a collision system hands its listeners (ivp-contacts 4.10, 7.1):
an impact, a contact point made or deleted."""

from __future__ import annotations

import math


class CollisionEvent:
    """4.10 IVP_Event_Collision (post collision): the contact point's sides,
    its point and normal (side 0 -> side 1), the relative velocity of side 1's
    surface point against side 0's before the impact, the impact time and the
    time since the pair's previous impact."""

    __slots__ = ("obj0", "obj1", "point_ws", "normal_ws", "speed", "time", "d_time_since_last_collision",
                 "contact")

    def __init__(self, cp, speed, time, dt_since):
        _at_contact(self, cp)
        self.speed = speed
        self.time = time
        self.d_time_since_last_collision = dt_since

    @property
    def speed_abs(self) -> float:
        s = self.speed
        return math.sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2])


class ContactEvent:
    """7.1 IVP_Event_Friction (friction created / deleted): a contact point's birth or death."""

    __slots__ = ("obj0", "obj1", "point_ws", "normal_ws", "contact", "time")

    def __init__(self, contact, time):
        _at_contact(self, contact)
        self.time = time


def _at_contact(event, cp) -> None:
    """An event's contact point, its sides, its point and normal (side 0 -> side 1)."""
    event.contact = cp
    event.obj0 = cp.obj0
    event.obj1 = cp.obj1
    event.point_ws = cp.p
    event.normal_ws = cp.n
