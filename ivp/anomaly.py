"""Spec 9: anomaly limits and the default anomaly manager."""

from __future__ import annotations

import math

from .fp import (
    ANOMALY_V_FACTOR,
    ANOMALY_W_FACTOR,
    MAX_ANGULAR_PER_PSI_F,
    MAX_COLLISIONS_PER_PSI,
    MAX_VELOCITY_F,
    f32v,
)


class AnomalyLimits:
    """0x1002f5e0: max_velocity 2000 m/s, 70000 collisions per PSI, pi/2 rad per PSI."""

    __slots__ = ("max_velocity", "max_collisions_per_psi", "max_angular_velocity_per_psi")

    def __init__(self):
        self.max_velocity = MAX_VELOCITY_F
        self.max_collisions_per_psi = MAX_COLLISIONS_PER_PSI
        self.max_angular_velocity_per_psi = MAX_ANGULAR_PER_PSI_F


class AnomalyManager:
    """0x1002f660: scales an excessive velocity back under its limit."""

    def max_velocity_exceeded(self, lim: AnomalyLimits, core) -> None:
        """0x1002f6d0: v *= (max_velocity . 0.99) / |v|."""
        v = core.speed
        k = (lim.max_velocity * ANOMALY_V_FACTOR) / math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
        core.speed = f32v(v[0] * k, v[1] * k, v[2] * k)

    def max_angular_velocity_exceeded(self, lim: AnomalyLimits, core) -> None:
        """0x1002f720: w *= (inv_delta_PSI_time . max_angular_velocity_per_psi . 0.9) / |w|."""
        w = core.rot_speed
        env = core.environment
        k = (env.inv_delta_PSI_time * lim.max_angular_velocity_per_psi * ANOMALY_W_FACTOR
             / math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]))
        core.rot_speed = f32v(w[0] * k, w[1] * k, w[2] * k)
