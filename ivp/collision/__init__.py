"""Collision, friction and impacts (surfaces-and-contacts; dynamics 14.4)."""

from .contact import ContactPair, ContactPoint, FrictionController, NormalController
from .material import DEFAULT_MATERIAL, Material
from .system import CollisionEvent, CollisionSystem, ContactEvent

__all__ = [
    "Material", "DEFAULT_MATERIAL", "CollisionSystem", "CollisionEvent", "ContactEvent",
    "ContactPoint", "ContactPair", "FrictionController", "NormalController",
]
