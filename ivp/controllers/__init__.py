"""Controllers of the dynamics (spec 6.4, 7, 12)."""

from .base import Controller, SimEvent
from .force import ForceController
from .gravity import GravityController

__all__ = ["Controller", "SimEvent", "ForceController", "GravityController"]
