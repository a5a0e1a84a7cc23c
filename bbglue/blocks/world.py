"""Physics WakeUp, Set Physics Globals, Physics Reset and DeleteCollisionSurfaces
(glue-and-content 1 and 2; ivp spec 10.4)."""

from __future__ import annotations

from .base import DONE, FLOAT, VECTOR, BuildingBlock, Command, Pin


class PhysicsWakeUp(BuildingBlock):
    """Wakes the target's body (spec 10.4) through a deferred command, so a wake
    before Physicalize lands once the body exists."""

    NAME = "Physics WakeUp"
    INPUTS = ("In",)
    OUTPUTS = ("Out",)

    def execute(self, ctx) -> str:
        if self.target is not None:
            ctx.physics.queue(Command(self, self._wake))
        self.activate_output("Out")
        return DONE

    def _wake(self, cmd) -> bool:
        body = self.context.physics.body_for(self.target, cmd)
        if body is None:
            return False
        body.wake()
        return True


class SetPhysicsGlobals(BuildingBlock):
    """Set Values: gravity and time factor; Clean Physics World: a new world."""

    NAME = "Set Physics Globals"
    INPUTS = ("Set Values", "Clean Physics World")
    OUTPUTS = ("Out1", "Out2")
    PINS = (
        Pin("Gravity", VECTOR, (0.0, -9.81, 0.0)),
        Pin("Physic Time Factor", FLOAT, 1.0),
    )
    LIMITS = {"Gravity": (None, "MAX_GRAVITY"), "Physic Time Factor": ("MIN_TIME_FACTOR", "MAX_TIME_FACTOR")}

    def execute(self, ctx) -> str:
        if self.is_input_active("Set Values"):
            ctx.physics.set_globals(self.params["Gravity"], self.params["Physic Time Factor"])
            self.activate_output("Out1")
        if self.is_input_active("Clean Physics World"):
            ctx.physics.clean_world()
            self.activate_output("Out2")
        return DONE


class PhysicsReset(BuildingBlock):
    """A clean world and an empty command queue; the globals are kept."""

    NAME = "Physics Reset"
    INPUTS = ("In",)
    OUTPUTS = ("Out",)

    def execute(self, ctx) -> str:
        ctx.physics.reset()
        self.activate_output("Out")
        return DONE


class DeleteCollisionSurfaces(BuildingBlock):
    """Empties the collision-surface cache (later bodies rebuild their surfaces)."""

    NAME = "DeleteCollisionSurfaces"
    INPUTS = ("In",)
    OUTPUTS = ("Out",)

    def execute(self, ctx) -> str:
        ctx.physics.delete_collision_surfaces()
        self.activate_output("Out")
        return DONE
