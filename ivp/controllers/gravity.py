"""Spec 1.7 and 7.1: the gravity controller (priority 1000), one per environment."""

from __future__ import annotations

import numpy as np

from ..fp import f32v
from ..step.kernels import gravity_rows_k
from .base import Controller


class GravityController(Controller):
    """Damps, commits the async pushes, then adds g.dt, for every core it is given."""

    priority = 1000

    def __init__(self, gravity=(0.0, -9.81, 0.0)):
        self.gravity = f32v(*gravity)

    def set_gravity(self, g) -> None:
        """0x10011fe0: stored as f32."""
        self.gravity = f32v(*g)

    def get_controlled_cores(self) -> list:
        return []

    def do_simulation_controller(self, ev, cores) -> None:
        """Spec 7.1 (0x10012010): per core (last first), damp (7.3), commit
        (5), speed += g.dt (stored f32), in one pass over the cores' rows
        (step.kernels.gravity_rows_k)."""
        dt = ev.delta_time
        gx, gy, gz = self.gravity
        rows = np.fromiter((c.row for c in reversed(cores)), dtype=np.int64, count=len(cores))
        gravity_rows_k(ev.environment.bodies.rows, rows, gx * dt, gy * dt, gz * dt)

    def core_is_going_to_be_deleted_event(self, core) -> None:
        """The environment-wide gravity controller outlives every core."""
