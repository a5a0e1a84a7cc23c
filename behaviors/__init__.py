"""behaviors: the Python behaviour API and Ballance's gameplay built on it.

    from behaviors import Behavior, Param, register, registry

    @register("spinner")
    class Spinner(Behavior):
        needs_entity = "the entity it turns"
        speed = Param(float, 90.0, "degrees per second", bounds=(-3600.0, 3600.0))
        def on_frame(self, dt):
            self.entity.rotate((0, 1, 0), math.radians(self.speed) * dt)

    registry.create(ctx, "spinner", entity="Cube", params={"speed": 45})

docs/behaviors.md describes the hooks, timers, messages, initial conditions,
error isolation, input recordings and the Ballance behaviours. Ballance's
gameplay (behaviors.ballance) is a plug-in registered through the
``ivp.behaviors`` entry points; nothing here imports it.
"""

import warnings

from . import hooks, registry
from .api import PENDING, RUNNING, STOPPED, FAILED, Behavior, BehaviorError, BehaviorManager, manager_of
from .params import Entity, Group, Param, Vec3
from .recording import Frame, LiveInput, Recorder, Recording, replay, run_frame
from .registry import register


def gameplay_state(ctx):
    """Deprecated: the HUD fields the running behaviours offer (``hooks.hud_fields``;
    a Ballance level's score, lives, state...), or None without any."""
    warnings.warn("behaviors.gameplay_state is deprecated: use behaviors.hooks.hud_fields",
                  DeprecationWarning, stacklevel=2)
    return hooks.hud_fields(ctx) or None


def reset(ctx) -> None:
    """Back to the start of a run: the time, input and message managers as at
    play, then the behaviours (``BehaviorManager.reset``: saved initial
    conditions restored, their bodies put back with their joints). The physics
    world stays: its globals, and the bodies without saved initial conditions
    (``ctx.reset()`` would clear the world, so that no body could come back)."""
    for m in (ctx.time_manager, ctx.input_manager, ctx.message_manager):
        m.reset()
    manager_of(ctx).reset()


__all__ = ["hooks", "registry", "register", "Behavior", "BehaviorError", "BehaviorManager", "manager_of",
           "PENDING", "RUNNING", "STOPPED", "FAILED", "Param", "Vec3", "Entity", "Group",
           "Frame", "LiveInput", "Recorder", "Recording", "replay", "run_frame", "gameplay_state", "reset"]
