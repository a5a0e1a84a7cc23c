"""SetPhysicsForce and Physics Impulse (glue-and-content 2; ivp spec 7.2, 13.1)."""

from __future__ import annotations

from ivp import ForceController, umath
from ivp.fp import FORCE_DIR_EPS, f32v

from .base import BOOL, DONE, ENTITY, FLOAT, VECTOR, BuildingBlock, HandleBlock, Pin


def _world_point(point, ref):
    """``ref->Transform(point)`` (a VxVector, f32), or the point itself."""
    return f32v(*ref.transform(point)) if ref is not None else point


def _world_vector(vec, ref):
    """``ref->TransformVector(vec)`` (rotation part, f32), or the vector itself."""
    return f32v(*ref.transform_vector(vec)) if ref is not None else vec


class SetPhysicsForce(HandleBlock):
    """A constant impulse per PSI on the target (spec 7.2): Create / Destroy."""

    NAME = "SetPhysicsForce"
    PINS = (
        Pin("Position", VECTOR, (0.0, 0.0, 0.0)),
        Pin("Pos Referential", ENTITY),
        Pin("Direction", VECTOR, (0.0, 0.0, 1.0)),
        Pin("Direction Ref", ENTITY),
        Pin("Force Value", FLOAT, 10.0),
    )
    LIMITS = {"Force Value": (None, "MAX_IMPULSE"), "Position": (None, "MAX_POSITION")}  # negative: along -Direction

    def create_handle(self, mgr, cmd) -> bool:
        """Spec 7.2, creation (0x10004930): the direction is captured in world space
        now; a position in the target's own frame is used as core coordinates
        (no mass-centre shift: the spec's quirk)."""
        tgt = self.target
        if tgt is None:
            return True
        body = mgr.body_for(tgt, cmd)
        if body is None:
            return False
        p = self.params
        d = _world_vector(p["Direction"], p["Direction Ref"])
        if d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > FORCE_DIR_EPS:
            d = umath.normalize_f64(d)
        else:
            d = (1.0, 0.0, 0.0)
        value = p["Force Value"]
        force = f32v(d[0] * value, d[1] * value, d[2] * value)
        core = body.core
        ref = p["Pos Referential"]
        if ref is tgt:
            point = p["Position"]
        else:
            pw = _world_point(p["Position"], ref)
            point = umath.mat_inv_mul_point(core.get_m_world_f_core_PSI(mgr.env.current_time), pw)
        ctrl = ForceController(core, point, force)
        mgr.env.sim_unit_manager.add_controller_to_core(ctrl, core)
        self.set_handle(ctrl)
        return True

    def delete_handle(self, mgr, handle) -> None:
        handle.core.environment.sim_unit_manager.remove_controller(handle)


class PhysicsImpulse(BuildingBlock):
    """One impulse, landing at the next PSI (spec 13.1, 0x10002f90)."""

    NAME = "Physics Impulse"
    INPUTS = ("In",)
    OUTPUTS = ("Out",)
    SETTINGS = (
        Pin("2 pos instead of dir ?", BOOL, False, py="two_pos_instead_of_dir"),
        Pin("Constant Force ?", BOOL, False, py="constant_force"),
    )
    PINS = (
        Pin("Position", VECTOR, (0.0, 0.0, 0.0)),
        Pin("Referential", ENTITY),
        Pin("Direction", VECTOR, (0.0, 0.0, 1.0)),
        Pin("Direction Ref", ENTITY),
        Pin("Impulse", FLOAT, 10.0),
    )
    LIMITS = {"Impulse": (None, "MAX_IMPULSE"), "Position": (None, "MAX_POSITION")}

    def execute(self, ctx) -> str:
        self.apply(ctx.physics)
        self.activate_output("Out")
        return DONE

    def apply(self, mgr) -> None:
        p = self.params
        impulse = p["Impulse"]
        if self.settings["Constant Force ?"]:
            impulse *= mgr.sim_dt
        rec = mgr.record_of(self.target)
        if rec is None:
            return
        body = rec.body
        core = body.core
        if core.physical_unmoveable:
            return
        body.wake()
        ref = p["Referential"]
        pw = _world_point(p["Position"], ref)
        if not self.settings["2 pos instead of dir ?"]:
            d = _world_vector(p["Direction"], p["Direction Ref"])
        else:
            d = umath.sub(_world_point(p["Direction"], p["Direction Ref"]), pw)
        d = umath.normalize_f64(d)
        imp = f32v(d[0] * impulse, d[1] * impulse, d[2] * impulse)
        if ref is self.target:
            M = core.get_m_world_f_core_PSI(mgr.env.current_time)
            core.async_push_core(p["Position"], f32v(*umath.rot_t_mul_v(M[0], imp)), imp)
        else:
            body.async_push_object_ws(pw, imp)
