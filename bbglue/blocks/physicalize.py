"""Physicalize / Unphysicalize (glue-and-content 2; ivp spec 1.3, 2, 10.4;
surfaces-and-contacts 1 and 2)."""

from __future__ import annotations

import re

import numpy as np

import ivp
from ivp.fp import MIN_MASS

from ..physics import PhysicsRecord
from ..vxmath import quat_from_vx
from .base import BOOL, DONE, FLOAT, INT, MESH, STRING, VECTOR, BuildingBlock, Pin, snake

# The "ball radius N" pins' default; with Ball Count 0 (a ball chosen by an empty
# Collision Surface name) no such pin exists and this value is the radius.
DEFAULT_BALL_RADIUS = 1.0


class Physicalize(BuildingBlock):
    """Creates the IVP body of its target; the second input destroys it."""

    NAME = "Physicalize"
    INPUTS = ("Physicalize", "Unphysicalize")
    OUTPUTS = ("Out1", "Out2")
    SETTINGS = (
        Pin("Convex Count", INT, 1),
        Pin("Ball Count", INT, 0),
        Pin("Concave Count", INT, 0),
        Pin("Shift Mass Center", VECTOR, (0.0, 0.0, 0.0)),
    )
    FIXED_PINS = (
        Pin("Fixed", BOOL, False),
        Pin("Friction", FLOAT, 0.7),
        Pin("Elasticity", FLOAT, 0.4),
        Pin("Mass", FLOAT, 1.0),
        Pin("Collision Group", STRING, ""),
        Pin("Start Frozen", BOOL, False),
        Pin("Enable Collision", BOOL, True),
        Pin("Automatic Calculate Mass Center", BOOL, True),
        Pin("Linear Speed Dampening", FLOAT, 0.1),
        Pin("Rot Speed Dampening", FLOAT, 0.1),
        Pin("Collision Surface", STRING, None),      # None: the mesh name
    )
    LIMITS = {
        "Convex Count": (None, "MAX_SURFACE_PIECES"), "Ball Count": (None, "MAX_SURFACE_PIECES"),
        "Concave Count": (None, "MAX_SURFACE_PIECES"), "Shift Mass Center": (None, "MAX_SHIFT"),
        "Mass": (None, "MAX_MASS"), "Linear Speed Dampening": ("MIN_DAMP", "MAX_DAMP"),
        "Rot Speed Dampening": ("MIN_DAMP", "MAX_DAMP"),
        "ball radius": ("MIN_BALL_RADIUS", "MAX_BALL_RADIUS"),
        "Friction": ("MIN_FRICTION", "MAX_FRICTION"), "Elasticity": ("MIN_ELASTICITY", "MAX_ELASTICITY"),
    }

    def set_setting(self, key: str, value) -> None:
        pin = self._find(self.SETTINGS, key, "setting")
        if pin.kind == INT and isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ValueError(f"{self.describe()}: setting {pin.name!r} must be >= 0, got {value}")
        super().set_setting(key, value)

    # The numbered pins: each group once per unit of its count setting, " N" its number.
    NUMBERED_PINS = (
        ("Convex Count", (Pin("convex", MESH, None),)),
        ("Ball Count", (Pin("ball position", VECTOR, (0.0, 0.0, 0.0)),
                        Pin("ball radius", FLOAT, DEFAULT_BALL_RADIUS))),
        ("Concave Count", (Pin("concave", MESH, None),)),
    )

    def pins(self) -> tuple:
        """The fixed pins, then "convex N", "ball position N" / "ball radius N",
        "concave N" for the counts of the settings."""
        out = list(self.FIXED_PINS)
        for count, group in self.NUMBERED_PINS:
            for i in range(1, self.settings[count] + 1):
                out += [Pin(f"{pin.name} {i}", pin.kind, pin.default) for pin in group]
        return tuple(out)

    def unknown_pin_hint(self, key: str) -> str:
        """A numbered pin beyond its count names the setting that makes it;
        any other unknown pin lists the settings and how a ball is made."""
        m = re.fullmatch(r"([a-z_]+?)_?(\d+)", snake(key))
        for count, group in self.NUMBERED_PINS:
            for pin in group:
                if m and m.group(1) == pin.py:
                    n = int(m.group(2))
                    return (f"; {pin.py}_N exists for N = 1 .. setting {snake(count)} "
                            f"(now {self.settings[count]}): pass {snake(count)}={n} too")
        return super().unknown_pin_hint(key) + " (a ball: ball_count=1, ball_radius_1=R)"

    @classmethod
    def of_record(cls, record, context) -> "Physicalize":
        """A block with the settings and pins a registry record kept, for the
        same entity (blocks.reset_bodies)."""
        blk = cls(record.entity, context)
        blk.settings = dict(record.settings)
        blk.params = dict(record.pins)
        return blk

    def execute(self, ctx) -> str:
        mgr = ctx.physics
        tgt = self.target
        if self.is_input_active("Unphysicalize"):
            if tgt is not None:
                mgr.destroy_body(tgt)
            self.activate_output("Out2")
        if self.is_input_active("Physicalize"):
            if tgt is not None and not mgr.is_physicalized(tgt):
                self.physicalize(mgr)
            self.activate_output("Out1")
        return DONE

    # --- the body -----------------------------------------------------------------------

    def physicalize(self, mgr):
        """Glue 0x10007460: the template, the geometry, the body, the registry, the wake."""
        p = self.params
        tgt = self.target
        surface_name = p["Collision Surface"]
        if surface_name is None:
            surface_name = tgt.mesh.name if tgt.mesh is not None else ""
        is_ball = self.settings["Ball Count"] != 0 or surface_name == ""
        mass = p["Mass"]
        if mass < MIN_MASS:         # glue-and-content 2: the clamp, told to the user
            mgr.context.output_to_console(f"{self.describe()}: pin 'Mass' {mass:g} is below {MIN_MASS:g}: "
                                          f"the body gets mass 1")
            mass = 1.0
        shift = None if p["Automatic Calculate Mass Center"] else self.settings["Shift Mass Center"]
        material = ivp.Material(p["Friction"], p["Elasticity"])   # one per body (surfaces-and-contacts 2)
        fields = dict(
            name=tgt.name, nocoll_group=p["Collision Group"], physical_unmoveable=p["Fixed"],
            material=material, mass=mass, speed_damp_factor=p["Linear Speed Dampening"],
            rot_speed_damp_factor=(p["Rot Speed Dampening"],) * 3, mass_center_override=shift,
            client_data=tgt, collision_enabled=p["Enable Collision"] and surface_name != "")
        M = tgt.get_world_matrix()
        pos, q = M.position, quat_from_vx(M, f"{self.describe()}: the world matrix")
        env = mgr.env
        if is_ball:
            n = self.settings["Ball Count"]
            radius = p[f"ball radius {n}"] if n else DEFAULT_BALL_RADIUS
            body = env.create_ball(ivp.BallTemplate(radius=radius, **fields), pos, q)
        else:
            surface = mgr.surface(surface_name, lambda: self._build_surface(surface_name))
            body = env.create_polygon(surface, ivp.ObjectTemplate(**fields), pos, q)
        mgr.register(PhysicsRecord(tgt, body, p["Friction"], p["Elasticity"], material,
                                   settings=dict(self.settings), pins=dict(p)))
        if not p["Start Frozen"]:
            body.wake()
        return body

    def _mesh(self, pin_name: str):
        m = self.params[pin_name] or self.target.mesh
        if m is None:
            raise ValueError(f"{self.describe()}: pin {pin_name!r}: no mesh, and the entity has none")
        return m

    def _build_surface(self, name: str):
        """Surfaces-and-contacts 1: convex hulls and concave triangle soups, the
        entity's scale multiplied in (the first scale wins, by the cache)."""
        s = self.settings
        scale = np.array(self.target.get_scale(local=False))
        convex = [self._mesh(f"convex {i}").vertices.astype(np.float64) * scale
                  for i in range(1, s["Convex Count"] + 1)]
        concave = []
        for i in range(1, s["Concave Count"] + 1):
            m = self._mesh(f"concave {i}")
            concave.append((m.vertices.astype(np.float64) * scale, m.faces))
        if not convex and not concave:
            raise ValueError(f"{self.describe()}: Convex Count and Concave Count are 0 and the "
                             f"Collision Surface {name!r} is not empty: there is no geometry")
        try:
            return ivp.build_surface(name, convex, concave)
        except ValueError as exc:
            raise ValueError(f"{self.describe()}: {exc}") from exc
