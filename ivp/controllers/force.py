"""Spec 7.2: the glue force controller (priority 1500): one push per PSI, no dt."""

from __future__ import annotations

from .. import umath
from ..core import Core
from ..fp import f32v
from ..limits import check, check_kind
from .base import Controller


class ForceController(Controller):
    """A constant world-space impulse per PSI at a point given in core coordinates."""

    priority = 1500

    def __init__(self, core, point_cs, force_ws):
        check_kind("force: core", core, Core)
        check("force: point", point_cs, high="MAX_POSITION", size=3)
        check("force: force", force_ws, high="MAX_IMPULSE", size=3)
        self.core = core
        self.point = tuple(float(x) for x in point_cs)     # f64[3], core coordinates
        self.force = f32v(*force_ws)                        # f32[3], world

    def get_controlled_cores(self) -> list:
        return [self.core]

    def do_simulation_controller(self, ev, cores) -> None:
        """Spec 7.2 (0x100046b0): f_cs = (f32)(R^T F); async_push_core(p, f_cs, F)."""
        if len(cores) < 1:
            return
        core = self.core
        R = core.get_m_world_f_core_PSI(ev.environment.current_time)[0]
        f_cs = f32v(*umath.rot_t_mul_v(R, self.force))
        core.async_push_core(f32v(*self.point), f_cs, self.force)
