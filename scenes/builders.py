"""Pass 2 of planning, the builders: each entity, joint, force and behaviour of
the file graph as its plan, with classes, presets and materials applied, names
resolved through ``scenes.names`` and world points placed.
"""

from __future__ import annotations

from bbglue.values import did_you_mean
from behaviors import registry
from behaviors.params import Entity, Group, declared_params

from . import format as fmt
from . import limits, pose
from .files import Instance, local_pose, offset
from .model import EntityPlan, ItemPlan, MeshSpec
from .names import Names
from .schema import Checked, OfKind
from .source import Report, Where


class Builder:
    """Makes the plans of one scene; ``names`` checks every name they use."""

    def __init__(self, names: Names, rep: Report):
        self.names = names
        self.rep = rep

    # --- entities --------------------------------------------------------------------

    def entity(self, inst: Instance, c: Checked, off) -> EntityPlan:
        names = self.names
        layers = (names.class_layers(c["class"], c.at("class")) if "class" in c else []) + [c]
        name = inst.prefix + c["name"]
        groups, own = _groups([(g, inst) for g in _merged(layers, "groups") or []] + names.memberships.get(name, []))
        layers = names.presets(groups, c) + layers
        parent = inst.ref(c.get("parent"))
        local = pose.compose((off, pose.IDENTITY[1]), local_pose(c))
        placed = local if parent is not None and c["parent"] in inst.names else pose.compose(inst.placement, local)
        self._in_range(placed[0], f"entity {name!r}: its position", c.where)
        mesh = _merged(layers, "mesh")
        mesh = None if mesh is None else names.mesh(mesh, inst, layers, "mesh")
        scale = _merged(layers, "scale") or (1.0, 1.0, 1.0)
        e = EntityPlan(name, c.where, mesh, placed[0], placed[1],
                       (scale,) * 3 if isinstance(scale, float) else scale, parent, c.at("parent"),
                       _merged(layers, "color") or fmt.ENTITY.fields["color"].default,
                       _merged(layers, "visible") is not False, {}, groups + own)
        for layer in layers:
            e.attributes.update(layer.get("attributes", {}))
        e.physics = self._physics(layers, e, inst)
        return e

    def _physics(self, layers, e: EntityPlan, inst: Instance):
        """The pins from the layers in order (a layer's material under its own
        physics keys); physicalized when the last layer naming physics says so."""
        given = {}
        on = False
        where = e.where
        for layer in layers:
            if "material" in layer:
                given.update(self.names.material(layer["material"], layer.at("material")))
            ph = layer.get("physics")
            if ph is not None:
                on = ph is not False
                given.update(ph if isinstance(ph, dict) else {})
                where = layer.at("physics")
        return self._pins(given, e.mesh, where, inst, layers) if on else None

    def _pins(self, given: dict, mesh: MeshSpec | None, where: Where, inst: Instance | None = None, layers=()):
        """Every Physicalize pin: the block's defaults under the given values.
        With none of convex / balls / concave given, convex is the entity's own
        mesh (Convex Count 1); with any given, the others are empty."""
        pins = {**fmt.PHYSICS.defaults(), **given}
        shapes = ("convex", "balls", "concave")
        if not any(k in given for k in shapes):
            pins["convex"] = [] if mesh is None else [mesh]
        for k in ("convex", "concave"):
            refs = pins.get(k, [])
            pins[k] = [r if isinstance(r, MeshSpec) else self.names.mesh(r, inst, layers or [given], "physics", mesh)
                       for r in refs]
        pins["balls"] = [(b["position"], b["radius"]) for b in pins.get("balls", [])]
        if not (pins["convex"] or pins["balls"] or pins["concave"]):
            self.rep.add(where, "physics needs a shape: give the entity a mesh, or convex, balls or concave")
        return pins

    def extras(self) -> list:
        """The hidden entities the loader adds: inline frames, and FixCube (fixed,
        collision-free) at its first reference when a reference needs it."""
        out = list(self.names.extra)
        if self.names.fixcube is not None:
            at, where = self.names.fixcube
            cube = MeshSpec("box", (1.0, 1.0, 1.0))
            out.insert(at, EntityPlan(fmt.FIXCUBE, where, cube, visible=False, physics=self._pins(
                {"fixed": True, "enable_collision": False}, cube, where)))
        return out

    def _frame(self, name: str, frame, where: Where) -> str:
        """A hidden entity without a mesh at ``frame`` (an inline referential);
        its name is ``name``, or name2, name3 ... when that is taken."""
        out = self.names.free_name(name)
        self.names.add_extra(EntityPlan(out, where, None, frame[0], frame[1], visible=False))
        return out

    def _in_range(self, point, what: str, where: Where):
        """A placed point (a repeat's offsets and placements add up) is within MAX_COORD."""
        if not all(abs(x) <= limits.MAX_COORD for x in point):
            self.rep.add(where, f"{what} ({', '.join(f'{x:g}' for x in point)}) is "
                                f"{limits.over('MAX_COORD', 'm')} from the origin")
        return point

    def _name(self, inst: Instance, c: Checked, key: str):
        """The entity named by ``c[key]`` (prefixed when the file defines it), checked."""
        name = inst.ref(c.get(key))
        if name is not None and not self.names.known(name, c.at(key), key):
            return None
        return name

    # --- joints, forces, behaviours ------------------------------------------------------

    def joint(self, inst: Instance, c: Checked, off) -> ItemPlan:
        place = offset(inst.placement, off)
        values = {k: v for k, v in c.items() if k not in ("type", "name")}
        for k in ("object", "object2", "referential_1", "referential_2"):
            if k in c:
                values[k] = self._name(inst, c, k)
        name = inst.prefix + c["name"] if "name" in c else None
        frame_name = name or values["object"] or inst.prefix + c["object"]     # an unknown object is reported
        if c["type"] == "hinge" and isinstance(c.get("joint_referential"), Checked):
            ref = c["joint_referential"]
            frame = pose.compose(place, local_pose(ref))
            self._in_range(frame[0], "joint_referential", ref.where)
            values["joint_referential"] = self._frame(frame_name + ".ref", frame, ref.where)
        elif c["type"] == "hinge" and "joint_referential" in c:
            values["joint_referential"] = self._name(inst, c, "joint_referential")
        for k in ("axis_first_point", "axis_second_point"):
            if isinstance(c.get(k), tuple):
                point = self._in_range(pose.apply(place, c[k]), k, c.at(k))
                values[k] = self._frame(f"{frame_name}.{k}", (point, pose.IDENTITY[1]), c.at(k))
            elif k in c:
                values[k] = self._name(inst, c, k)
        for i in ("1", "2"):
            if "position_" + i in c and c.get("referential_" + i) is None:
                values["position_" + i] = self._in_range(pose.apply(place, c["position_" + i]), "position_" + i,
                                                         c.at("position_" + i))
        return ItemPlan("joint", c["type"], name, values, c.where)

    def force(self, inst: Instance, c: Checked, off) -> ItemPlan:
        place = offset(inst.placement, off)
        values = {k: v for k, v in c.items() if k not in ("type", "name")}
        refs = ("target", "direction_ref", "pos_referential" if c["type"] == "force" else "referential")
        for k in refs:
            values[k] = self._name(inst, c, k) if k in c else None
        if values[refs[2]] is None:
            values["position"] = self._in_range(pose.apply(place, c["position"]), "position", c.at("position"))
        if values["direction_ref"] is None:
            values["direction"] = (pose.apply(place, c["direction"]) if c.get("two_pos_instead_of_dir")
                                   else pose.rotate(place[1], c["direction"]))
        return ItemPlan("force", c["type"], inst.prefix + c["name"] if "name" in c else None, values, c.where)

    def behaviour(self, inst: Instance, c: Checked) -> ItemPlan:
        """A behaviour entry, checked as its class declares it (``_behaviour_known``).
        The parameters declared as Entity or Group name the instance's own
        entities and groups when the file defines them (so do their defaults),
        else the outer scene's; each name is checked here, with its place, and
        the entities the behaviour makes are known to the entries after it."""
        params = dict(c["params"])
        cls = self._behaviour_known(c)
        declared = declared_params(cls) if cls is not None else {}
        what = f"behaviour {c['type']!r} parameter {{!r}}{inst.where_text()}"
        for key, p in declared.items():
            if p.kind not in (Entity, Group):
                continue
            ref = inst.ref if p.kind is Entity else inst.group_ref
            if isinstance(params.get(key), str):
                params[key] = ref(params[key])
                self.names.param_exists(params[key], p.kind, c["params"].at(key), what.format(key))
            elif key not in params and isinstance(p.default, str):
                name = ref(p.default)
                if name != p.default:
                    params[key] = name
                if not p.optional:
                    self.names.param_exists(name, p.kind, c.where, what.format(key) + f" (default {p.default!r})")
        for key in cls.makes if cls is not None else ():
            self.names.made.add(params.get(key, declared[key].default))
        return ItemPlan("behaviour", c["type"], None, {"entity": self._name(inst, c, "entity"), "params": params},
                        c.where)

    def _behaviour_known(self, c: Checked):
        """The class of the behaviour's type, which takes each parameter given,
        each value in its kind and range, every required one, and its entity
        when it needs one (checked here, so that they are listed with the
        file's other problems); None for an unknown type."""
        try:
            cls = registry.lookup(c["type"])
        except ValueError as exc:
            self.rep.add(c.at("type"), str(exc).removeprefix("<python>: "))
            return None
        declared = declared_params(cls)
        given = c["params"]
        for key, value in given.items():
            p = declared.get(key)
            if p is None:
                self.rep.add(given.at(key), f"behaviour {c['type']!r} has no parameter {key!r}"
                                            f"{did_you_mean(key, declared)} (parameters: "
                                            f"{', '.join(declared) or 'none'})")
            elif p.value_kind is not None:
                what = f"behaviour {c['type']!r} parameter {key!r}"
                OfKind(p.value_kind, what).check(value, given.at(key), self.rep)
        for key, p in declared.items():
            if p.required and key not in given:
                self.rep.add(c.where, f"behaviour {c['type']!r} needs the parameter {key!r}"
                                      f"{f' ({p.doc})' if p.doc else ''}")
        if cls.needs_entity and "entity" not in c:
            self.rep.add(c.where, f"behaviour {c['type']!r} needs an entity: give entity: ({cls.needs_entity})")
        return cls


def _groups(declared):
    """The groups of an entity from (group, declaring instance) pairs: the
    scene-wide groups, and the instance groups (the declaring instance's prefix
    + group, holding only that instance's members) of prefixed instances."""
    groups, own = [], []
    for g, inst in declared:
        inst.define(g, group=True)
        if g not in groups:
            groups.append(g)
        if inst.prefix and inst.prefix + g not in own:
            own.append(inst.prefix + g)
    return groups, [g for g in own if g not in groups]


def _merged(layers, key):
    """The value of ``key`` in the last layer that gives it."""
    for layer in reversed(layers):
        if key in layer:
            return layer[key]
    return None
