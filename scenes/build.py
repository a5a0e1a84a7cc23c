"""From a plan to a running CK context: entities, groups, Physicalize, joints,
forces and behaviours, each through the glue's building blocks.

Order (a fixed order makes the IVP object list, and so the run, reproducible):
Set Physics Globals, every entity (parents first), every Physicalize (file
order), joints, forces, then behaviours.
"""

from __future__ import annotations

import os

import bbglue
from bbglue import blocks, meshes
from ivp.fp import DELTA_PSI_TIME

from . import limits
from .document import MeshSpec, Plan
from .source import Report

_PRIMITIVES = {
    "box": lambda v: meshes.box(*v),
    "wedge": lambda v: meshes.wedge(*v),
    "sphere": lambda v: meshes.sphere(v["radius"], v["segments"]),
    "cylinder": lambda v: meshes.cylinder(v["radius"], v["height"], v["segments"]),
    "octagonal_rail": lambda v: meshes.octagonal_rail(v["radius"], v["length"]),
    "plane": lambda v: meshes.tessellated_plane(v["size"][0], v["size"][1], *v["divisions"]),
}


class Scene:
    """A loaded scene: its context and what the file said about it."""

    def __init__(self, plan: Plan, ctx):
        s = plan.settings
        self.plan = plan
        self.ctx = ctx
        self.path = plan.path
        self.name = s["name"] or os.path.splitext(os.path.basename(plan.path))[0]
        self.settings = _plain(s)
        self.length = s["length"]
        self.files = plan.files
        self.joints = {}            # name -> the joint's building block (named joints only)
        self.forces = {}            # name -> the force's building block (named forces only)
        self.behaviours = []
        self.level = None           # an imported level's report (scenes.virtools.LevelReport)

    def __repr__(self) -> str:
        return (f"<Scene {self.name!r}: {len(self.ctx.entities)} entities, "
                f"{len(self.ctx.physics.registry)} bodies, {len(self.behaviours)} behaviours>")

    def entity(self, name: str):
        return self.ctx.get(name)

    def body(self, name: str):
        """The ivp body of a physicalized entity (None when it has none)."""
        return self.ctx.physics.body_of(self.ctx.get(name))


VIRTOOLS_SUFFIXES = (".nmo", ".cmo")      # level files of the game (scenes.virtools)


def build(plan: Plan, strict: bool = False, meshes: dict | None = None) -> Scene:
    """The plan as a running context. ``meshes`` gives meshes already made, by
    their MeshSpec (an import's OBJ sidecars, which need not exist on disk)."""
    ctx = bbglue.CKContext(strict=strict)
    scene = Scene(plan, ctx)
    rep = Report()
    _globals(ctx, plan.settings, rep)
    rep.raise_if_any()
    mesh_cache = dict(meshes or {})
    checked = {}                        # (spec, scale, concave) -> what limits.mesh_problem found
    for e in plan.entities:
        _guard(rep, e.where, _create_entity, ctx, e, mesh_cache, checked)
    rep.raise_if_any()
    for e in plan.entities:
        if e.physics is not None:
            _guard(rep, e.where, _physicalize, ctx, e, mesh_cache, checked)
    for item in plan.joints + plan.forces:
        blk = _guard(rep, item.where, _block, ctx, item)
        if item.name and blk is not None:
            (scene.joints if item.kind == "joint" else scene.forces)[item.name] = blk
    rep.raise_if_any()
    if plan.behaviours:
        from behaviors import registry
        for b in plan.behaviours:
            made = _guard(rep, b.where, registry.create, ctx, b.type, b.values["entity"], b.values["params"],
                          str(b.where))
            if made is not None:
                scene.behaviours.append(made)
    rep.raise_if_any()
    return scene


def _guard(rep: Report, where, fn, *args):
    """fn(*args); a ValueError, TypeError or KeyError becomes a located problem."""
    try:
        return fn(*args)
    except (ValueError, TypeError, KeyError) as exc:
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        rep.add(where, text.removeprefix(f"{where}: "))
        return None


def _plain(value):
    """Checked dicts and lists as plain ones (for the viewer)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _globals(ctx, s, rep: Report) -> None:
    """The PSI length (a new, still empty world), then Set Physics Globals' Set
    Values; what they refuse is a problem at the scene settings."""
    if s["psi_length"] != DELTA_PSI_TIME:
        _guard(rep, s.at("psi_length"), ctx.physics.set_psi_length, s["psi_length"])
    _guard(rep, s.where, lambda: blocks.SetPhysicsGlobals(
        context=ctx, gravity=s["gravity"], physic_time_factor=s["time_factor"]).trigger("Set Values"))


def _mesh(spec: MeshSpec | None, cache: dict):
    if spec is None:
        return None
    m = cache.get(spec)
    if m is None:
        if spec.kind == "obj":
            if os.path.isfile(spec.value) and os.path.getsize(spec.value) > limits.MAX_OBJ_BYTES:
                raise ValueError(f"{spec.value}: the OBJ file has {os.path.getsize(spec.value)} bytes, "
                                 f"{limits.over('MAX_OBJ_BYTES')}")
            names = {v.name for v in cache.values()}
            base = os.path.splitext(os.path.basename(spec.value))[0]
            name = base if base not in names else f"{base}@{spec.value}"
            m = meshes.load_obj(spec.value, name=name)
        else:
            m = _PRIMITIVES[spec.kind](spec.params)
        cache[spec] = m
    return m


def _scene_mesh(e, spec: MeshSpec | None, cache: dict, checked: dict, concave: bool = False):
    """The mesh of ``spec`` for entity ``e``, checked against the limits at the
    entity's scale (once per mesh, scale and use)."""
    m = _mesh(spec, cache)
    if m is not None:
        key = (spec, e.scale, concave)
        if key not in checked:
            checked[key] = limits.mesh_problem(m.vertices, m.faces, e.scale, concave)
        if checked[key] is not None:
            raise ValueError(f"entity {e.name!r}: mesh {m.name!r}: {checked[key]}")
    return m


def _create_entity(ctx, e, cache: dict, checked: dict) -> None:
    parent = ctx.get(e.parent) if e.parent is not None else None
    ent = ctx.create_entity(e.name, mesh=_scene_mesh(e, e.mesh, cache, checked), scale=e.scale, color=e.color,
                            visible=e.visible, parent=parent)
    ent.set_quaternion(e.rotation, ref=parent)
    ent.set_position(e.position, ref=parent)
    for k, v in e.attributes.items():
        ent.set_attribute(k, v)
    for g in e.groups:
        (ctx.get_group(g) if g in ctx else ctx.create_group(g)).add(ent)


def surface_name(e, pins, cache: dict) -> str | None:
    """The Collision Surface name the loader gives when the file gives none.

    The block's default is the mesh name, and the glue caches surfaces by name
    (the first geometry and scale win). That default is kept when it is safe:
    the shape is the entity's own mesh at scale 1. Otherwise the name says the
    geometry (the meshes of the lists and the scale), so that two entities
    share a surface only when they share its geometry.
    """
    if pins.get("collision_surface") is not None:
        return pins["collision_surface"]
    own = pins["convex"] == [e.mesh] and not pins["concave"]
    if pins["balls"] or (own and e.scale == (1.0, 1.0, 1.0)):
        return None
    parts = [_mesh(m, cache).name for m in pins["convex"]] + ["concave " + _mesh(m, cache).name
                                                             for m in pins["concave"]]
    scale = "" if e.scale == (1.0, 1.0, 1.0) else " @ " + ",".join(f"{s:g}" for s in e.scale)
    return " + ".join(parts) + scale


def _physicalize(ctx, e, cache: dict, checked: dict) -> None:
    """The Physicalize block with every pin (glue-and-content 2)."""
    p = e.physics
    kw = {k: p[k] for k in ("fixed", "friction", "elasticity", "mass", "collision_group", "start_frozen",
                            "enable_collision", "automatic_calculate_mass_center", "linear_speed_dampening",
                            "rot_speed_dampening", "shift_mass_center")}
    kw.update(convex_count=len(p["convex"]), ball_count=len(p["balls"]), concave_count=len(p["concave"]))
    name = surface_name(e, p, cache)
    if name is not None:
        kw["collision_surface"] = name
    for i, m in enumerate(p["convex"], 1):
        kw[f"convex_{i}"] = _scene_mesh(e, m, cache, checked)
    for i, (pos, r) in enumerate(p["balls"], 1):
        kw[f"ball_position_{i}"] = pos
        kw[f"ball_radius_{i}"] = r
    for i, m in enumerate(p["concave"], 1):
        kw[f"concave_{i}"] = _scene_mesh(e, m, cache, checked, concave=True)
    blocks.physicalize(ctx, ctx.get(e.name), **kw)


_BLOCKS = {"hinge": "hinge", "slider": "slider", "ball_joint": "ball_joint", "spring": "spring",
           "force": "set_force", "impulse": "impulse"}
_ENTITY_PINS = ("object2", "joint_referential", "axis_first_point", "axis_second_point", "referential_1",
                "referential_2", "pos_referential", "direction_ref", "referential")


def _block(ctx, item):
    """A joint or force block on its target, created at once (deferred by the glue
    until its bodies exist)."""
    v = dict(item.values)
    target = ctx.get(v.pop("object" if item.kind == "joint" else "target"))
    v.pop("repeat", None)
    for k in _ENTITY_PINS:
        if k in v:
            v[k] = ctx.get(v[k]) if v[k] is not None else None
    for k in ("lower_limit_deg", "upper_limit_deg"):
        if k in v:
            v[k.removesuffix("_deg")] = v.pop(k)
    return getattr(blocks, _BLOCKS[item.type])(ctx, target, **v)

