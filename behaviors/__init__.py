"""behaviors: the Python behaviour API and Ballance's gameplay built on it.

    from behaviors import Behavior, Param, register, registry

    @register("spinner")
    class Spinner(Behavior):
        speed = Param(float, 90.0, "degrees per second")
        def on_frame(self, dt):
            self.entity.rotate((0, 1, 0), math.radians(self.speed) * dt)

    registry.create(ctx, "spinner", entity="Cube", params={"speed": 45})

docs/behaviors.md describes the hooks, timers, messages, initial conditions,
error isolation, input recordings and the Ballance behaviours.
"""

from . import registry
from .api import PENDING, RUNNING, STOPPED, FAILED, Behavior, BehaviorError, BehaviorManager, manager_of
from .params import Entity, Group, Param, Vec3
from .recording import Frame, LiveInput, Recorder, Recording, replay, run_frame
from .registry import register


def gameplay_state(ctx):
    """The HUD's view of a Ballance level (score, lives, level state...), or None."""
    from .ballance.level import gameplay_state as state
    return state(ctx)


def reset(ctx) -> None:
    """Reset the context (managers and physics) and its behaviours."""
    ctx.reset()
    manager_of(ctx).reset()


__all__ = ["registry", "register", "Behavior", "BehaviorError", "BehaviorManager", "manager_of",
           "PENDING", "RUNNING", "STOPPED", "FAILED", "Param", "Vec3", "Entity", "Group",
           "Frame", "LiveInput", "Recorder", "Recording", "replay", "run_frame", "gameplay_state", "reset"]
