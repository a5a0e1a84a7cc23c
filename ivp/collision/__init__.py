"""Collision events, impacts and the friction system (ivp-contacts)."""

from .contact_point import ContactPoint
from .friction import FrictionSystem
from .material import DEFAULT_MATERIAL, Material
from .events import CollisionEvent, ContactEvent
from .system import CollisionSystem

__all__ = [
    "Material", "DEFAULT_MATERIAL", "CollisionSystem", "CollisionEvent", "ContactEvent",
    "ContactPoint", "FrictionSystem",
]
