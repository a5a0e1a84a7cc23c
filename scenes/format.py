"""The scene format, version 1, as schemas (docs/scenes.md describes it).

Units: metres (1 Virtools unit = 1 IVP metre), seconds, kilograms; degrees only
where a key ends in ``_deg``. Axes: Virtools', left-handed with Y up.
Physics keys are the snake_case names of the Physicalize pins with their
defaults (glue-and-content 2); joint and force keys likewise for their blocks.
"""

from __future__ import annotations

import math
import re

from ivp.fp import DELTA_PSI_TIME

from . import limits, pose
from .schema import (BAD, Checked, Choice, Either, Exactly, Field, Flag, Kinded, ListOf, MapOf, Number, Plain,
                     Record, Scalar, Schema, Tagged, Text, Vector)
from .source import Sequence

VERSION = 1
FIXCUBE = "FixCube"          # Ballance's fixed, collision-free anchor body for one-body joints

ZERO = (0.0, 0.0, 0.0)
NON_NEGATIVE = Number(0)
COORD = Number(-limits.MAX_COORD, limits.MAX_COORD, limit="MAX_COORD")
VEC3 = Vector(3, COORD)
POINT = Vector(3, COORD, "metres")
SIZE = Number(limits.MIN_SIZE, limits.MAX_SIZE, unit="metres", limit="MIN_SIZE, MAX_SIZE")
SEGMENTS = Number(3, limits.MAX_SEGMENTS, integer=True, limit="MAX_SEGMENTS")
COPIES = Number(1, limits.MAX_REPEAT, integer=True, limit="MAX_REPEAT")
SCALE = Number(limits.MIN_SCALE, limits.MAX_SCALE, limit="MIN_SCALE, MAX_SCALE")


class Colour(Schema):
    """"#rrggbb", "#rrggbbaa" or a list of 3 or 4 numbers 0..1; returns (r, g, b, a)."""

    expected = 'a colour: "#rrggbb", "#rrggbbaa" or [r, g, b] / [r, g, b, a] with numbers 0..1'
    kinds = (str, Sequence)
    _HEX = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})")

    def check(self, value, where, rep):
        if isinstance(value, str):
            m = self._HEX.fullmatch(value)
            if not m:
                return self.fail(value, where, rep)
            h = m.group(1) + ("" if len(m.group(1)) == 8 else "ff")
            return tuple(int(h[i:i + 2], 16) / 255.0 for i in range(0, 8, 2))
        if isinstance(value, Sequence) and len(value) in (3, 4):
            c = Vector(len(value), Number(0, 1)).check(value, where, rep)
            return BAD if c is BAD else c + ((1.0,) if len(c) == 3 else ())
        return self.fail(value, where, rep)


def _rotation(c: Checked, rep):
    """Exactly one of euler_deg, quaternion, axis + angle_deg; returns a unit quaternion."""
    forms = [k for k in ("euler_deg", "quaternion", "axis") if k in c]
    if len(forms) != 1:
        rep.add(c.where, "a rotation needs exactly one of euler_deg (with order), quaternion, "
                         f"or axis with angle_deg; got {', '.join(forms) or 'none'}")
        return BAD
    if "order" in c and forms[0] != "euler_deg":
        rep.add(c.at("order"), "order goes with euler_deg only")
        return BAD
    if ("angle_deg" in c) != (forms[0] == "axis"):
        rep.add(c.where, "axis and angle_deg go together")
        return BAD
    if forms[0] == "euler_deg":
        return pose.euler(c["euler_deg"], c.get("order", "xyz"))
    if forms[0] == "quaternion":
        q = c["quaternion"]
        if not sum(x * x for x in q) > 1e-12:
            rep.add(c.at("quaternion"), "the quaternion is zero")
            return BAD
        return pose.unit(q)
    if not sum(x * x for x in c["axis"]) > 1e-12:
        rep.add(c.at("axis"), "the rotation axis has zero length")
        return BAD
    return pose.axis_angle(c["axis"], math.radians(c["angle_deg"]))


ROTATION = Record("rotation", {
    "euler_deg": Field(VEC3, "Euler angles in degrees about world axes, applied in `order`"),
    "order": Field(Choice(*pose.EULER_ORDERS), "the order of the Euler turns", "xyz"),
    "quaternion": Field(Vector(4, COORD), "(x, y, z, w), normalized on load"),
    "axis": Field(VEC3, "an axis for angle_deg"),
    "angle_deg": Field(Number(unit="degrees"), "the angle about axis"),
}, convert=_rotation)

# --- meshes ----------------------------------------------------------------------

MESH = Tagged("mesh", {
    "box": Vector(3, SIZE),
    "wedge": Vector(3, SIZE),
    "sphere": Record("sphere", {
        "radius": Field(SIZE, "metres", required=True),
        "segments": Field(SEGMENTS, "around Y", 16)}, fill=True),
    "cylinder": Record("cylinder", {
        "radius": Field(SIZE, "metres", required=True),
        "height": Field(SIZE, "metres, along Y", required=True),
        "segments": Field(SEGMENTS, "around Y", 16)}, fill=True),
    "octagonal_rail": Record("octagonal rail", {
        "radius": Field(SIZE, "circumradius of the octagon, metres", 0.35),
        "length": Field(SIZE, "metres, along Z", required=True)}, fill=True),
    "plane": Record("tessellated plane", {
        "size": Field(Vector(2, SIZE), "size x, z", required=True),
        "divisions": Field(Vector(2, Number(1, limits.MAX_DIVISIONS, integer=True, limit="MAX_DIVISIONS")),
                           "cells along x, z", (1, 1))}, fill=True),
    "obj": Text(),
})
MESH_REF = Either(Text(), MESH, expected="a mesh name or a mesh (e.g. {box: [1, 1, 1]})")

# --- physics: the Physicalize pins --------------------------------------------------

BALL = Record("ball", {
    "position": Field(VEC3, "ball position N, in the entity's frame", ZERO),
    "radius": Field(SIZE, "ball radius N, metres", required=True),
}, fill=True)

PHYSICS = Record("physics", {
    "fixed": Field(Flag(), "Fixed", False),
    "friction": Field(NON_NEGATIVE, "Friction", 0.7),
    "elasticity": Field(NON_NEGATIVE, "Elasticity", 0.4),
    "mass": Field(Number(0, lo_open=True, unit="kg"), "Mass", 1.0),
    "collision_group": Field(Text(empty=True), "Collision Group (\"\": none)", ""),
    "start_frozen": Field(Flag(), "Start Frozen", False),
    "enable_collision": Field(Flag(), "Enable Collision", True),
    "automatic_calculate_mass_center": Field(Flag(), "Automatic Calculate Mass Center", True),
    "linear_speed_dampening": Field(NON_NEGATIVE, "Linear Speed Dampening", 0.1),
    "rot_speed_dampening": Field(NON_NEGATIVE, "Rot Speed Dampening", 0.1),
    "collision_surface": Field(Text(), "Collision Surface (default: the mesh name)"),
    "convex": Field(ListOf(MESH_REF), 'the "convex N" meshes ("self": the entity\'s mesh)'),
    "balls": Field(ListOf(BALL), 'the "ball position N" / "ball radius N" pairs'),
    "concave": Field(ListOf(MESH_REF), 'the "concave N" meshes ("self": the entity\'s mesh)'),
    "shift_mass_center": Field(POINT, "Shift Mass Center (used when automatic is false)",
                               ZERO),
})
SELF_MESH = "self"

# --- entities, classes, group presets --------------------------------------------------

REPEAT = Record("repeat", {
    "count": Field(COPIES, "a row of count copies, index {i}"),
    "step": Field(VEC3, "the offset from one copy of the row to the next, metres"),
    "grid": Field(Vector(3, COPIES), "a grid of nx x ny x nz copies (at most MAX_REPEAT in all), "
                                     "indices {i} {j} {k}"),
    "spacing": Field(VEC3, "the grid's spacing along x, y, z, metres"),
})

_LOOK = {
    "mesh": Field(MESH_REF, "a mesh (or the name of one under meshes:); none: a frame without a mesh"),
    "rotation": Field(ROTATION, "orientation relative to the parent (or world)"),
    "scale": Field(Either(SCALE, Vector(3, SCALE)), "a number or x, y, z factors", (1.0, 1.0, 1.0)),
    "color": Field(Colour(), "render colour (no physics meaning)", (0.8, 0.8, 0.8, 1.0)),
    "visible": Field(Flag(), "shown (a hidden entity still has its physics)", True),
    "material": Field(Text(), "a physics material name: its friction and elasticity"),
    "attributes": Field(MapOf(Scalar(), "attribute values"), "CK attributes, name: value"),
    "groups": Field(ListOf(Text()), "group names (group presets apply their settings)"),
    "physics": Field(Either(Flag(), PHYSICS), "Physicalize pins; true: all defaults; false: not physicalized"),
}

CLASS = Record("defaults class", {
    "inherit": Field(Text(), "a class whose values this one starts from"), **_LOOK})

ENTITY = Record("entity", {
    "name": Field(Text(), "unique name", required=True),
    "class": Field(Text(), "a defaults class"),
    "position": Field(POINT, "relative to the parent (or world)", ZERO),
    "parent": Field(Text(), "parent entity name"),
    "repeat": Field(REPEAT, "copies of this entry"),
    **_LOOK,
})

_PLACEMENT = {
    "position": Field(POINT, "placement of the file's contents", ZERO),
    "rotation": Field(ROTATION, "placement of the file's contents"),
}

PREFAB = Record("prefab instance", {
    "prefab": Field(Text(), "a scene file whose contents are placed here", required=True),
    "prefix": Field(Text(), "put in front of every name the file defines", required=True),
    "repeat": Field(REPEAT, "copies of this instance"),
    **_PLACEMENT,
})

INCLUDE = Record("include", {
    "file": Field(Text(), 'a scene file (relative to this one, or "bundled:NAME")', required=True),
    "namespace": Field(Text(), 'names the file defines become "namespace/name"'),
    **_PLACEMENT,
})


_TEMPLATE = re.compile(r"\{[^{}]*\}")       # a repeat's {i}, {j+1} ... in a name


class EntityItem(Schema):
    """An entities: item: an entity, or a prefab instance when it has a prefab: key."""

    expected = "a mapping (an entity or a prefab instance)"
    kinds = ENTITY.kinds

    def check(self, value, where, rep):
        """The checked entity or instance; when it is bad, its name (with
        ``*`` for its {i} and the like; an instance's prefix and anything after
        it) and its groups are ``Report.unread``."""
        schema = PREFAB if isinstance(value, dict) and "prefab" in value else ENTITY
        out = schema.check(value, where, rep)
        if out is BAD and isinstance(value, dict):
            name = value.get("prefix" if schema is PREFAB else "name")
            if isinstance(name, str):
                rep.unread.add(_TEMPLATE.sub("*", name) + ("*" if schema is PREFAB else ""))
            groups = value.get("groups")
            if isinstance(groups, list):
                rep.unread.update(g for g in groups if isinstance(g, str))
        return out


class IncludeItem(Schema):
    """An includes: item; when it is bad, what the file would define is
    unknown, so every name is ``Report.unread``."""

    expected = INCLUDE.expected
    kinds = INCLUDE.kinds

    def check(self, value, where, rep):
        out = INCLUDE.check(value, where, rep)
        if out is BAD:
            rep.unread.add("*")
        return out


_JOINT_COMMON = {
    "type": Field(Text(), "the block", required=True),
    "name": Field(Text(), "a name for behaviours to find the joint by"),
    "object": Field(Text(), "the block's target entity", required=True),
    "object2": Field(Text(), f"the second body (default {FIXCUBE}, created when needed)", FIXCUBE),
    "repeat": Field(REPEAT, "copies of this entry (the offset moves its world points)"),
}

_FRAME = Record("referential frame", {
    "position": Field(POINT, "world position of the joint frame", ZERO),
    "rotation": Field(ROTATION, "its orientation: the hinge axis is the frame's Z"),
})

JOINT = Kinded("joint", {
    "hinge": Record("hinge (Set Physics Hinge)", {
        **_JOINT_COMMON,
        "joint_referential": Field(Either(Text(), _FRAME), "an entity, or an inline frame, whose world "
                                   "position is the anchor and whose Z is the axis"),
        "limitations": Field(Flag(), "Limitations", False),
        "lower_limit_deg": Field(Number(unit="degrees"), "Lower Limit", -45.0),
        "upper_limit_deg": Field(Number(unit="degrees"), "Upper Limit", 45.0),
    }, fill=True),
    "slider": Record("slider (Set Physics Slider)", {
        **_JOINT_COMMON,
        "axis_first_point": Field(Either(Text(), VEC3), "Axis first Point: an entity, or a world point",
                                  required=True),
        "axis_second_point": Field(Either(Text(), VEC3), "Axis second Point: an entity, or a world point",
                                   required=True),
        "limitations": Field(Flag(), "Limitations", False),
        "lower_limit": Field(Number(-limits.MAX_COORD, limits.MAX_COORD, unit="metres", limit="MAX_COORD"),
                             "Lower Limit", -1.0),
        "upper_limit": Field(Number(-limits.MAX_COORD, limits.MAX_COORD, unit="metres", limit="MAX_COORD"),
                             "Upper Limit", 1.0),
    }, fill=True),
    "ball_joint": Record("ball joint (Set Physics Ball Joint)", {
        **_JOINT_COMMON,
        "position_1": Field(POINT, "Position 1", ZERO),
        "referential_1": Field(Text(), "Referential 1 (none: world)"),
    }, fill=True),
    "spring": Record("spring (Set Physics Spring)", {
        **_JOINT_COMMON,
        "position_1": Field(POINT, "Position 1", ZERO),
        "referential_1": Field(Text(), "Referential 1 (none: world)"),
        "position_2": Field(POINT, "Position 2", ZERO),
        "referential_2": Field(Text(), "Referential 2 (none: world)"),
        "length": Field(NON_NEGATIVE, "Length (rest length, metres)", 1.0),
        "constant": Field(NON_NEGATIVE, "Constant (k)", 1.0),
        "linear_dampening": Field(NON_NEGATIVE, "Linear Dampening", 0.1),
        "global_dampening": Field(NON_NEGATIVE, "Global Dampening", 0.1),
    }, fill=True),
})

_FORCE_COMMON = {
    "type": Field(Text(), "the block", required=True),
    "name": Field(Text(), "a name for behaviours to find the force by"),
    "target": Field(Text(), "the body", required=True),
    "repeat": Field(REPEAT, "copies of this entry (the offset moves its world points)"),
    "direction": Field(VEC3, "Direction", (0.0, 0.0, 1.0)),
    "direction_ref": Field(Text(), "Direction Ref (none: world)"),
}

FORCE = Kinded("force", {
    "force": Record("force (SetPhysicsForce)", {
        **_FORCE_COMMON,
        "position": Field(POINT, "Position", ZERO),
        "pos_referential": Field(Text(), "Pos Referential (none: world)"),
        "force_value": Field(Number(), "Force Value: an impulse per PSI", 10.0),
    }, fill=True),
    "impulse": Record("impulse (Physics Impulse)", {
        **_FORCE_COMMON,
        "position": Field(POINT, "Position", ZERO),
        "referential": Field(Text(), "Referential (none: world)"),
        "impulse": Field(Number(), "Impulse", 10.0),
        "two_pos_instead_of_dir": Field(Flag(), '"2 pos instead of dir ?"', False),
        "constant_force": Field(Flag(), '"Constant Force ?"', False),
    }, fill=True),
})

BEHAVIOUR = Record("behaviour", {
    "type": Field(Text(), "a registered behaviour name", required=True),
    "entity": Field(Text(), "the entity it is attached to"),
    "params": Field(MapOf(Plain(), "values"), "its parameters (the behaviour checks them)", {}),
    "repeat": Field(REPEAT, "copies of this entry"),
}, fill=True)

# --- settings ---------------------------------------------------------------------

CAMERA = Record("camera", {
    "position": Field(POINT, "eye position", (0.0, 35.0, -22.0)),
    "target": Field(Either(Vector(3), Text()), "a point, or an entity to look at", ZERO),
    "fov_deg": Field(Number(0, 180, lo_open=True, unit="degrees"), "horizontal field of view", 58.0),
    "near": Field(Number(0, limits.MAX_COORD, lo_open=True, unit="metres", limit="MAX_COORD"), "near plane", 3.0),
    "far": Field(Number(0, limits.MAX_COORD, lo_open=True, unit="metres", limit="MAX_COORD"), "far plane", 1200.0),
}, fill=True)

LIGHT = Record("light", {
    "type": Field(Choice("directional", "point", "ambient"), "the kind of light", required=True),
    "direction": Field(VEC3, "directional: where the light travels", (0.3, -1.0, 0.5)),
    "position": Field(POINT, "point: where it is", ZERO),
    "color": Field(Colour(), "its colour", (1.0, 1.0, 1.0, 1.0)),
    "intensity": Field(NON_NEGATIVE, "a factor on the colour", 1.0),
}, fill=True)

SETTINGS = Record("scene settings", {
    "name": Field(Text(), "title", ""),
    "description": Field(Text(), "what it shows", ""),
    "length": Field(Number(0, limits.MAX_LENGTH, lo_open=True, unit="seconds", limit="MAX_LENGTH"),
                    "suggested run length, seconds of frame time", 5.0),
    "demo_input": Field(Text(), "a recording (relative to this file) that `ivp run` plays "
                                "when no --input is given", ""),
    "gravity": Field(Vector(3, unit="m/s^2"), "Set Physics Globals: Gravity", (0.0, -9.81, 0.0)),
    "time_factor": Field(NON_NEGATIVE, "Set Physics Globals: Physic Time Factor", 1.0),
    "psi_length": Field(Number(limits.MIN_PSI_LENGTH, limits.MAX_PSI_LENGTH, unit="seconds",
                               limit="MIN_PSI_LENGTH, MAX_PSI_LENGTH"), "seconds per PSI", DELTA_PSI_TIME),
    "camera": Field(CAMERA, "the initial view"),
    "lights": Field(ListOf(LIGHT), "lights", ()),
    "background": Field(Colour(), "clear colour", (0.55, 0.7, 0.85, 1.0)),
}, fill=True)

MATERIAL = Record("material", {
    "friction": Field(NON_NEGATIVE, "Friction", required=True),
    "elasticity": Field(NON_NEGATIVE, "Elasticity", required=True),
})

DOCUMENT = Record("scene file", {
    "version": Field(Exactly(VERSION), f"the format version, {VERSION}", required=True),
    "units": Field(Record("units", {
        "length": Field(Choice("m"), "metres"), "mass": Field(Choice("kg"), "kilograms"),
        "time": Field(Choice("s"), "seconds"), "angles": Field(Choice("deg"), "degrees where a key says _deg")}),
        "stated units (the only ones accepted)"),
    "axes": Field(Record("axes", {
        "handedness": Field(Choice("left"), "Virtools is left-handed"),
        "up": Field(Choice("y"), "Y is up")}), "stated axes (the only ones accepted)"),
    "scene": Field(SETTINGS, "settings (ignored in included files)"),
    "materials": Field(MapOf(MATERIAL, "materials", partial=True), "physics materials by name"),
    "meshes": Field(MapOf(MESH, "meshes", partial=True), "meshes by name"),
    "defaults": Field(MapOf(CLASS, "classes", partial=True), "defaults classes by name"),
    "group_presets": Field(MapOf(CLASS, "presets", partial=True), "settings given to every member of a group"),
    "includes": Field(ListOf(IncludeItem(), partial=True), "other files placed in this one"),
    "entities": Field(ListOf(EntityItem(), partial=True), "entities and prefab instances"),
    "joints": Field(ListOf(JOINT, partial=True), "hinges, sliders, ball joints, springs"),
    "forces": Field(ListOf(FORCE, partial=True), "SetPhysicsForce and Physics Impulse entries"),
    "behaviours": Field(ListOf(BEHAVIOUR, partial=True), "registered behaviours with parameters"),
    "groups": Field(MapOf(ListOf(Text()), "lists of entity names", partial=True),
                    "more group members: group name -> entity names or patterns (*, ?)"),
}, partial=True)

