"""Controllers of the dynamics (spec 6.4, 7, 12)."""

from .base import Controller, SimEvent
from .force import ForceController
from .gravity import GravityController
from .spring import Spring, SpringTemplate, create_spring
from .constraint import (Constraint, ConstraintTemplate, create_ball_joint, create_constraint,
                         create_hinge, create_slider)

__all__ = ["Controller", "SimEvent", "ForceController", "GravityController",
           "Spring", "SpringTemplate", "create_spring",
           "Constraint", "ConstraintTemplate", "create_constraint",
           "create_hinge", "create_slider", "create_ball_joint"]
