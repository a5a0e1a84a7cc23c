"""Spec 9: anomaly limits and the default anomaly manager."""

from __future__ import annotations

import math

from .fp import (ANOMALY_V_FACTOR, ANOMALY_W_FACTOR, MAX_ANGULAR_PER_PSI_F, MAX_COLLISIONS_PER_PSI, MAX_VELOCITY_F,
                 f32v)


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

    def max_collisions_exceeded(self, core) -> None:
        """ivp-contacts 4.7: more than max_collisions_per_psi impacts since the
        PSI start: the core's velocities move into its pending changes (landing
        at the next commit) and are zero, the core unmovable, for the rest of the PSI."""
        s, ds = core.speed, core.speed_change
        w, dw = core.rot_speed, core.rot_speed_change
        core.speed_change = f32v(ds[0] + s[0], ds[1] + s[1], ds[2] + s[2])
        core.rot_speed_change = f32v(dw[0] + w[0], dw[1] + w[1], dw[2] + w[2])
        core.speed = (0.0, 0.0, 0.0)
        core.rot_speed = (0.0, 0.0, 0.0)
        core.temporarily_unmovable_psi = core.environment.psi_count

    def inter_penetration(self, env, core0, core1, normal) -> None:
        """Vtable slot 2 (ivp-contacts 3.3): a pair measured as intruding.
        Against a fixed body (core1 fixed) the movable core0 gets a speed
        change of 2 |g| dt along ``normal`` (out of the fixed face it is most
        in front of); two movable cores are pushed apart along the line
        between their centres by 2 |g| dt each, with +-dt rad/s about core x.
        As pending pushes: they land at the next commit."""
        g = env.gravity
        k = 2.0 * math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * env.delta_PSI_time
        if core1.physical_unmoveable:
            _push_speed(core0, normal, k, 0.0)
            return
        a = core0.pos_world_f_core_last_psi
        b = core1.pos_world_f_core_last_psi
        d = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
        n = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        d = (d[0] / n, d[1] / n, d[2] / n) if n > 0.0 else (0.0, 1.0, 0.0)
        _push_speed(core0, d, -k, env.delta_PSI_time)
        _push_speed(core1, d, k, -env.delta_PSI_time)


def _push_speed(core, d, k: float, spin_x: float) -> None:
    """A pending speed change k d and rot speed change spin_x about core x."""
    s = core.speed_change
    r = core.rot_speed_change
    core.speed_change = f32v(s[0] + d[0] * k, s[1] + d[1] * k, s[2] + d[2] * k)
    if spin_x != 0.0:
        core.rot_speed_change = f32v(r[0] + spin_x, r[1], r[2])

