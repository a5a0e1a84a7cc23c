"""ivp: the Ipion IVP rigid-body dynamics as Ballance's physics_RT.dll runs them.

The law is ``spec/ivp-dynamics.txt``; each function names its section.
"""

from . import limits, rng
from .collision import CollisionSystem, Material
from .controllers import Controller, ForceController, GravityController, SimEvent
from .controllers import (Constraint, ConstraintTemplate, Spring, SpringTemplate, create_ball_joint,
                          create_constraint, create_hinge, create_slider, create_spring)
from .core import MT_CALM, MT_MOVING, MT_NOT_SIM, MT_SLOW, MT_STATIC, Core
from .environment import Environment, ObjectListener, Snapshot
from .real_object import Anchor, BallTemplate, ObjectTemplate, RealObject
from .surface import CompactSurface, build_surface

__all__ = [
    "limits", "rng", "CollisionSystem", "Material", "Controller", "ForceController", "GravityController", "SimEvent",
    "Core", "MT_MOVING", "MT_SLOW", "MT_CALM", "MT_NOT_SIM", "MT_STATIC",
    "Environment", "ObjectListener", "Snapshot",
    "Anchor", "BallTemplate", "ObjectTemplate", "RealObject",
    "CompactSurface", "build_surface",
    "Spring", "SpringTemplate", "create_spring",
    "Constraint", "ConstraintTemplate", "create_constraint",
    "create_hinge", "create_slider", "create_ball_joint",
]
