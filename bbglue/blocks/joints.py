"""Set Physics Spring, Hinge, Slider and Ball Joint (glue-and-content 2; ivp spec
12.2, 12.4). Each is a deferred command: it waits until both bodies exist."""

from __future__ import annotations

from ivp import SpringTemplate, create_ball_joint, create_hinge, create_slider, create_spring
from ivp.fp import f32v, hexf64

from .base import ALWAYS, BOOL, ENTITY, FLOAT, VECTOR, HandleBlock, Pin
from .forces import _world_point

DEG_TO_RAD = hexf64("3f91df46a2529d39")     # pi / 180 (12.4, hinge limits)


class _JointBlock(HandleBlock):
    """A joint or spring between the target and Object2: part of both bodies'
    initial state, made again when either is reset (blocks.reset_bodies)."""

    REMADE_BY_RESET = ALWAYS
    LIMITS = {"Position": (None, "MAX_POSITION")}         # Position 1 and 2: a lever of 1e30 m spins to NaN

    def handle_entities(self) -> tuple:
        return (self.target, self.params["Object2"])

    def body_destroyed(self, body) -> None:
        """A joint or spring goes with either of its bodies (ivp spec 12,
        controller slot 0: core deleted, deletes self): the block forgets the
        dead handle, so Create makes it again on the bodies there are then."""
        if self.handle is not None and self.handle.deleted:
            self.forget_handle()


def _bodies(block, mgr, cmd):
    """(target body, Object2 body), or None when one is not physicalized yet
    (each missing one warns once)."""
    b0 = mgr.body_for(block.target, cmd)
    b1 = mgr.body_for(block.params["Object2"], cmd)
    return None if b0 is None or b1 is None else (b0, b1)


class SetPhysicsSpring(_JointBlock):
    """A spring between the target and Object2 (spec 12.2, 12.3)."""

    NAME = "Set Physics Spring"
    PINS = (
        Pin("Object2", ENTITY),
        Pin("Position 1", VECTOR, (0.0, 0.0, 0.0)),
        Pin("Referential 1", ENTITY),
        Pin("Position 2", VECTOR, (0.0, 0.0, 0.0)),
        Pin("Referential 2", ENTITY),
        Pin("Length", FLOAT, 1.0),
        Pin("Constant", FLOAT, 1.0),
        Pin("Linear Dampening", FLOAT, 0.1),
        Pin("Global Dampening", FLOAT, 0.1),
    )

    def create_handle(self, mgr, cmd) -> bool:
        """0x10006490: no target: done; Object2 NULL or a body missing: retried."""
        if self.target is None:
            return True
        p = self.params
        if p["Object2"] is None:
            return False
        bodies = _bodies(self, mgr, cmd)
        if bodies is None:
            return False
        tmpl = SpringTemplate(bodies[0], _world_point(p["Position 1"], p["Referential 1"]),
                              bodies[1], _world_point(p["Position 2"], p["Referential 2"]),
                              p["Length"], p["Constant"], p["Linear Dampening"], p["Global Dampening"])
        self.set_handle(create_spring(mgr.env, tmpl))
        return True


class _ConstraintBlock(_JointBlock):
    """Hinge, slider and ball joint: a NULL target or Object2 creates nothing."""

    def create_handle(self, mgr, cmd) -> bool:
        if self.target is None or self.params["Object2"] is None:
            return True
        bodies = _bodies(self, mgr, cmd)
        if bodies is None:
            return False
        self.set_handle(self.create_constraint(mgr.env, *bodies))
        return True

    def limits(self, scale: float = 1.0):
        """(Lower, Upper) x scale with Limitations, else None. They bound Object2's
        displacement (slider) or turn (hinge) relative to the target along the
        axis (spec 12.4 "Slider limit sign", 12.6: err = p_A - p_R), so a moving
        target against a fixed Object2 stays in [-Upper, -Lower]."""
        p = self.params
        return (p["Lower Limit"] * scale, p["Upper Limit"] * scale) if p["Limitations"] else None


class SetPhysicsHinge(_ConstraintBlock):
    """Anchor = the referential's world position, axis = its world Z (spec 12.4)."""

    NAME = "Set Physics Hinge"
    PINS = (
        Pin("Object2", ENTITY),
        Pin("Joint Referential", ENTITY),
        Pin("Limitations", BOOL, False),
        Pin("Lower Limit", FLOAT, -45.0),
        Pin("Upper Limit", FLOAT, 45.0),
    )

    def create_constraint(self, env, body_r, body_a):
        ref = self.params["Joint Referential"]
        anchor = f32v(*ref.get_position()) if ref is not None else None
        axis = f32v(*ref.get_orientation()[0]) if ref is not None else None
        return create_hinge(env, body_r, body_a, anchor, axis, self.limits(DEG_TO_RAD))


class SetPhysicsSlider(_ConstraintBlock):
    """Axis from the first point to the second (spec 12.4; the original's double
    set-up, of which only the second counts, is inside ivp's create_slider)."""

    NAME = "Set Physics Slider"
    PINS = (
        Pin("Object2", ENTITY),
        Pin("Axis first Point", ENTITY),
        Pin("Axis second Point", ENTITY),
        Pin("Limitations", BOOL, False),
        Pin("Lower Limit", FLOAT, -1.0),
        Pin("Upper Limit", FLOAT, 1.0),
    )

    def create_constraint(self, env, body_r, body_a):
        points = []
        for name in ("Axis first Point", "Axis second Point"):
            e = self.params[name]
            if e is None:
                raise ValueError(f"{self.describe()}: pin {name!r} is not set (a 3D entity is needed)")
            points.append(f32v(*e.get_position()))
        return create_slider(env, body_r, body_a, points[0], points[1], self.limits())


class SetPhysicsBallJoint(_ConstraintBlock):
    """Anchor = Position 1 in Referential 1 (spec 12.4)."""

    NAME = "Set Physics Ball Joint"
    PINS = (
        Pin("Object2", ENTITY),
        Pin("Position 1", VECTOR, (0.0, 0.0, 0.0)),
        Pin("Referential 1", ENTITY),
    )

    def create_constraint(self, env, body_r, body_a):
        p = self.params
        return create_ball_joint(env, body_r, body_a, _world_point(p["Position 1"], p["Referential 1"]))
