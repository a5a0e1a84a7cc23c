"""The physics building blocks (glue-and-content 2) and their base classes."""

from .base import ACTIVATE_NEXT_FRAME, DONE, BuildingBlock, HandleBlock, Pin, snake
from .contacts import PhysicsCollDetection, PhysicsContinuousContact
from .forces import PhysicsImpulse, SetPhysicsForce
from .joints import SetPhysicsBallJoint, SetPhysicsHinge, SetPhysicsSlider, SetPhysicsSpring
from .physicalize import Physicalize
from .scripting import (SCRIPTING, ball_joint, coll_detection, continuous_contact, hinge, impulse, physicalize,
                        reset_bodies, set_force, slider, spring, unphysicalize, wake_up)
from .world import DeleteCollisionSurfaces, PhysicsReset, PhysicsWakeUp, SetPhysicsGlobals

__all__ = [
    "DONE", "ACTIVATE_NEXT_FRAME", "BuildingBlock", "HandleBlock", "Pin", "snake",
    "Physicalize", "SetPhysicsForce", "PhysicsImpulse", "SetPhysicsSpring", "SetPhysicsHinge",
    "SetPhysicsSlider", "SetPhysicsBallJoint", "PhysicsWakeUp", "SetPhysicsGlobals",
    "PhysicsCollDetection", "PhysicsContinuousContact", "PhysicsReset", "DeleteCollisionSurfaces",
    *SCRIPTING,
]
