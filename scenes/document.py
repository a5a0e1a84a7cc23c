"""From scene files to a plan: every entity, joint, force and behaviour with its
final values, world poses and resolved names, before anything is built.

Pass 1 reads the top file and, recursively, its includes and prefabs (each
file parsed and checked once), expands repeats and collects the tables
(materials, meshes, defaults classes, group presets: one namespace for the
whole scene). Pass 2 resolves names, classes, presets and materials, and
checks every reference. All problems are collected and raised together as a
``SceneError`` whose lines read ``file:line:column: message``.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

from bbglue.values import did_you_mean
from behaviors import registry
from behaviors.params import Entity, Group, declared_params

from . import format as fmt
from . import pose
from .schema import BAD, Checked, Items
from .source import Mapping, Report, SceneError, Where, parse_file

BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundled")
BUNDLED_PREFIX = "bundled:"


@dataclass(frozen=True)
class MeshSpec:
    """A mesh to build: a primitive (box, wedge, sphere, cylinder, octagonal_rail,
    plane) with its checked parameters, or obj with an absolute file path.
    ``value`` is hashable (a record's items are a sorted tuple of pairs)."""

    kind: str
    value: object

    @classmethod
    def of(cls, tagged, base_dir: str) -> "MeshSpec":
        kind, value, _ = tagged
        if kind == "obj":
            value = os.path.normpath(os.path.join(base_dir, value))
        elif isinstance(value, dict):
            value = tuple(sorted(value.items()))
        return cls(kind, value)

    @property
    def params(self):
        """The checked parameters: a dict for a record, else the value itself."""
        return dict(self.value) if isinstance(fmt.MESH.variants[self.kind], fmt.Record) else self.value


@dataclass
class EntityPlan:
    name: str
    where: Where
    mesh: MeshSpec | None = None
    position: tuple = fmt.ZERO
    rotation: tuple = pose.IDENTITY[1]
    scale: tuple = (1.0, 1.0, 1.0)
    parent: str | None = None
    parent_where: Where | None = None
    color: tuple = (0.8, 0.8, 0.8, 1.0)
    visible: bool = True
    attributes: dict = field(default_factory=dict)
    groups: list = field(default_factory=list)
    physics: dict | None = None        # the Physicalize pins, meshes as MeshSpec, balls as (position, radius)


@dataclass
class ItemPlan:
    """A joint, force or behaviour: its type, optional name, values with entity
    names resolved and world points placed."""

    kind: str              # "joint", "force" or "behaviour"
    type: str
    name: str | None
    values: dict
    where: Where


@dataclass
class Plan:
    path: str
    settings: dict
    entities: list          # parents before children
    joints: list
    forces: list
    behaviours: list
    files: list             # every file read, the top one first

    def entity(self, name: str) -> EntityPlan:
        return next(e for e in self.entities if e.name == name)


def bundled_path(name: str) -> str:
    """The file of a bundled scene: "spring_lift", "modules/ph03" or a path under bundled/."""
    rel = name if name.endswith(".yaml") else name + ".yaml"
    return os.path.join(BUNDLED_DIR, rel)


def resolve_path(ref: str, base_dir: str) -> str:
    """A file named in a scene: "bundled:NAME" or relative to the naming file."""
    if ref.startswith(BUNDLED_PREFIX):
        return bundled_path(ref[len(BUNDLED_PREFIX):])
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(ref)))


def plan(path: str, documents: dict | None = None) -> Plan:
    """Read, check and resolve the scene file at ``path``. ``documents`` maps a
    path to its document already parsed (located values, ``source.located``),
    read instead of the file: an imported level is planned this way."""
    return _Resolver(documents).run(path)


# --- repeats ------------------------------------------------------------------------

_VAR = re.compile(r"\{([^{}]*)\}")
_VAR_FORM = re.compile(r"([ijkn])\s*([+-]\s*\d+)?")


def _copies(item: Checked, rep: Report):
    """The copies of an item with repeat: (item with {i} {j} {k} {n} filled in, offset)."""
    r = item.get("repeat")
    if r is None:
        return [(item, fmt.ZERO)]
    if ("count" in r) == ("grid" in r) or ("step" in r and "count" not in r) or ("spacing" in r and "grid" not in r):
        rep.add(r.where, "a repeat has either count (with step) or grid (with spacing)")
        return []
    if "count" in r:
        step = r.get("step", fmt.ZERO)
        indices = [(i, 0, 0) for i in range(r["count"])]
        offsets = [tuple(i * s for s in step) for i, _, _ in indices]
    else:
        nx, ny, nz = r["grid"]
        sp = r.get("spacing", fmt.ZERO)
        indices = [(i, j, k) for k in range(nz) for j in range(ny) for i in range(nx)]
        offsets = [(i * sp[0], j * sp[1], k * sp[2]) for i, j, k in indices]
    out = []
    for n, ((i, j, k), off) in enumerate(zip(indices, offsets)):
        env = {"i": i, "j": j, "k": k, "n": n}
        c = _fill(item, env, rep, item.where)
        if c is BAD:
            return []
        c.pop("repeat")
        out.append((c, off))
    return out


def _fill(value, env: dict, rep: Report, where: Where):
    """``value`` with every "{i}", "{i+1}" ... in its texts replaced."""
    if isinstance(value, str):
        def sub(m):
            v = _VAR_FORM.fullmatch(m.group(1).strip())
            if not v:
                raise KeyError(m.group(0))
            return str(env[v.group(1)] + int((v.group(2) or "0").replace(" ", "")))
        try:
            return _VAR.sub(sub, value)
        except KeyError as exc:
            rep.add(where, f"unknown repeat variable {exc.args[0]} in {value!r}: use {{i}}, {{j}}, {{k}}, "
                           "{n} or forms like {i+1}")
            return BAD
    if isinstance(value, Where):
        return value
    if isinstance(value, Checked):
        out = Checked(value.where, wheres=value.wheres)
        for k, v in value.items():
            c = _fill(v, env, rep, value.at(k))
            if c is BAD:
                return BAD
            out[k] = c
        return out
    if isinstance(value, (list, tuple)):
        wheres = getattr(value, "wheres", [where] * len(value))
        items = [_fill(v, env, rep, w) for v, w in zip(value, wheres)]
        if BAD in items:
            return BAD
        return Items(value.where, items, value.wheres) if isinstance(value, Items) else type(value)(items)
    return value


# --- pass 1: files ------------------------------------------------------------------

class _Instance:
    """One placement of one file: its name prefix, placement, and the entity
    (joint, force) names and group names it defines, those of the files it
    places included (with their prefix relative to this one)."""

    def __init__(self, file: str, prefix: str, placement, parent: "_Instance | None" = None, rel: str = ""):
        self.file = file
        self.dir = os.path.dirname(file)
        self.prefix = prefix
        self.placement = placement
        self.parent = parent
        self.rel = rel              # this instance's prefix within its parent's names
        self.names = set()
        self.groups = set()

    def define(self, name: str, group: bool = False) -> None:
        """``name`` is defined here, so also in every enclosing instance (prefixed)."""
        inst = self
        while inst is not None:
            (inst.groups if group else inst.names).add(name)
            name = inst.rel + name
            inst = inst.parent

    def ref(self, name):
        """A name used in this file: its own names get the prefix, others are outer names."""
        return None if name is None else (self.prefix + name if name in self.names else name)

    def group_ref(self, name: str) -> str:
        """A group named in this file: its own groups are the instance's (prefixed)."""
        return self.prefix + name if name in self.groups else name

    def where_text(self) -> str:
        return f" (in the instance {self.prefix!r})" if self.prefix else ""


class _Resolver:
    def __init__(self, documents: dict | None = None):
        self.given = {os.path.normpath(k): v for k, v in (documents or {}).items()}
        self.rep = Report()
        self.docs = {}
        self.files = []
        self.tables = {k: {} for k in ("materials", "meshes", "defaults", "group_presets")}
        self.table_where = {}
        self.items = {"entities": [], "joints": [], "forces": [], "behaviours": []}
        self.memberships = []       # (group, name pattern with the file's prefix, place, instance)
        self.settings = None

    def run(self, path: str) -> Plan:
        """Both passes; pass 2 runs after problems in pass 1 too (a missing
        include, a bad value), on what could be read, so that all the problems
        of the files are listed together."""
        path = os.path.normpath(path)
        self._read(path, None, "", pose.IDENTITY, (), None)
        if self.settings is None:           # the top file could not be read at all
            self.rep.raise_if_any()
        read_badly = bool(self.rep.problems)
        try:
            result = self._resolve(path)
        except (KeyError, TypeError, AttributeError, ValueError):
            if not read_badly:
                raise
            result = None                   # pass 2 tripped on what pass 1 has reported
        self.rep.raise_if_any()
        return result

    def _document(self, path: str, where: Where | None):
        if path not in self.docs:
            if path in self.given:
                doc = fmt.DOCUMENT.check(self.given[path], self.given[path].where, self.rep)
                self.docs[path] = None if doc is BAD else doc
                self.files.append(path)
            elif not os.path.isfile(path):
                self.rep.add(where, f"no scene file {path}")
                self.docs[path] = None
            else:
                try:
                    raw = parse_file(path)
                except SceneError as exc:
                    self.rep.problems.extend(exc.problems)
                    raw = BAD
                if raw is None:
                    self.rep.add(Where(path, 1, 1), "the file is empty (a scene needs at least version: 1)")
                doc = BAD if raw in (None, BAD) else fmt.DOCUMENT.check(raw, Where(path, 1, 1), self.rep)
                self.docs[path] = None if doc is BAD else doc
                self.files.append(path)
        return self.docs[path]

    def _read(self, path: str, parent: _Instance | None, rel: str, placement, stack: tuple,
              where: Where | None) -> None:
        """Pass 1 for one placement of a file: ``rel`` is its prefix within ``parent``."""
        if path in stack:
            self.rep.add(where, f"{path} includes itself (through {' -> '.join(stack)})")
            return
        doc = self._document(path, where)
        if doc is None:
            return
        if not stack:
            self.settings = doc.get("scene") or fmt.SETTINGS.check(
                Mapping(Where(path, 1, 1)), Where(path, 1, 1), self.rep)
            self._demo_input(os.path.dirname(path))
        prefix = (parent.prefix if parent else "") + rel
        inst = _Instance(path, prefix, placement, parent, rel)
        stack = stack + (path,)
        self._tables(doc, inst)
        for inc, w in _with_wheres(doc.get("includes")):
            ns = inc.get("namespace")
            self._read(resolve_path(inc["file"], inst.dir), inst, ns + "/" if ns else "",
                       pose.compose(placement, _local_pose(inc)), stack, w)
        for item, _ in _with_wheres(doc.get("entities")):
            for c, off in _copies(item, self.rep):
                if "prefab" in c:
                    self._read(resolve_path(c["prefab"], inst.dir), inst, c["prefix"],
                               pose.compose(_offset(placement, off), _local_pose(c)), stack, c.at("prefab"))
                else:
                    inst.define(c["name"])
                    self.items["entities"].append((inst, c, off))
        for group, patterns in doc.get("groups", {}).items():
            self.memberships += [(group, prefix + pat, w, inst) for pat, w in zip(patterns, patterns.wheres)]
        for key in ("joints", "forces", "behaviours"):
            for item, _ in _with_wheres(doc.get(key)):
                for c, off in _copies(item, self.rep):
                    if c.get("name"):
                        inst.define(c["name"])
                    self.items[key].append((inst, c, off))

    def _tables(self, doc: Checked, inst: _Instance) -> None:
        for key, table in self.tables.items():
            given = doc.get(key, {})
            for name, value in given.items():
                if key == "meshes":
                    value = MeshSpec.of(value, inst.dir)
                old = table.get(name)
                if old is not None and old != value:
                    self.rep.add(given.at(name), f"{key[:-1].replace('_', ' ')} {name!r} is defined again, "
                                                 f"differently (first at {self.table_where[key, name]})")
                    continue
                table[name] = value
                self.table_where.setdefault((key, name), given.at(name))

    # --- pass 2: names, classes, presets, references --------------------------------

    def _resolve(self, path: str) -> Plan:
        self.extra_groups = self._memberships()
        entities = [self._entity(inst, c, off) for inst, c, off in self.items["entities"]]
        self.names = {}
        for e in entities:
            if e.name in self.names:
                first = self.names[e.name].where
                hint = " (a repeated entity needs {i} in its name)" if first == e.where else ""
                self.rep.add(e.where, f"entity {e.name!r} is defined twice (first at {first}){hint}")
            self.names.setdefault(e.name, e)
        self.extra = []
        joints = [self._joint(inst, c, off) for inst, c, off in self.items["joints"]]
        forces = [self._force(inst, c, off) for inst, c, off in self.items["forces"]]
        self.group_names = {g for e in entities for g in e.groups}
        behaviours = [self._behaviour(inst, c) for inst, c, _ in self.items["behaviours"]]
        for e in entities:
            if e.parent is not None and self._known(e.parent, e.parent_where, "parent"):
                self._no_parent_cycle(e)
        target = self.settings["camera"]["target"] if "camera" in self.settings else None
        if isinstance(target, str):
            self._known(target, self.settings["camera"].at("target"), "camera target")
        names = set(self.names)
        for e in self.extra:
            if e.name not in names:
                names.add(e.name)
                entities.append(e)
        ordered = _parents_first(entities)
        return Plan(path, self.settings, ordered, joints, forces, behaviours, list(self.files))

    def _memberships(self) -> dict:
        """Entity name -> the (group, instance whose groups: section adds it) pairs, in order."""
        names = [inst.prefix + c["name"] for inst, c, _ in self.items["entities"]]
        out = {}
        for group, pattern, where, inst in self.memberships:
            found = fnmatch.filter(names, pattern)
            if not found:
                self.rep.add(where, f"group {group!r}: no entity matches {pattern!r}{did_you_mean(pattern, names)}")
            for n in found:
                out.setdefault(n, [])
                if (group, inst) not in out[n]:
                    out[n].append((group, inst))
        return out

    def _known(self, name: str, where: Where, what: str) -> bool:
        if name in self.names or any(e.name == name for e in self.extra):
            return True
        if name == fmt.FIXCUBE:
            cube = MeshSpec("box", (1.0, 1.0, 1.0))
            self.extra.append(EntityPlan(fmt.FIXCUBE, where, cube, visible=False, physics=self._pins(
                {"fixed": True, "enable_collision": False}, cube, where)))
            return True
        self.rep.add(where, f"{what}: no entity {name!r}{did_you_mean(name, self.names)}")
        return False

    def _frame(self, name: str, frame, where: Where) -> str:
        """A hidden entity without a mesh at ``frame`` (an inline referential);
        its name is ``name``, or name2, name3 ... when that is taken."""
        taken = set(self.names) | {e.name for e in self.extra}
        n = 1
        out = name
        while out in taken:
            n += 1
            out = f"{name}{n}"
        self.extra.append(EntityPlan(out, where, None, frame[0], frame[1], visible=False))
        return out

    def _name(self, inst: _Instance, c: Checked, key: str):
        """The entity named by ``c[key]`` (prefixed when the file defines it), checked."""
        name = inst.ref(c.get(key))
        if name is not None and not self._known(name, c.at(key), key):
            return None
        return name

    def _no_parent_cycle(self, e: EntityPlan) -> None:
        seen = [e.name]
        p = e.parent
        while p is not None and p in self.names:
            if p in seen:
                self.rep.add(e.where, f"entity {e.name!r}: the parents form a loop ({' -> '.join(seen + [p])})")
                e.parent = None
                return
            seen.append(p)
            p = self.names[p].parent

    def _class_layers(self, name: str, where: Where, seen=()):
        """The layers of a defaults class, its root ancestor first."""
        table = self.tables["defaults"]
        if name not in table:
            self.rep.add(where, f"no defaults class {name!r}{did_you_mean(name, table)}")
            return []
        if name in seen:
            self.rep.add(where, f"defaults classes inherit in a loop: {' -> '.join(seen + (name,))}")
            return []
        c = table[name]
        up = self._class_layers(c["inherit"], c.at("inherit"), seen + (name,)) if "inherit" in c else []
        return up + [c]

    def _entity(self, inst: _Instance, c: Checked, off) -> EntityPlan:
        layers = (self._class_layers(c["class"], c.at("class")) if "class" in c else []) + [c]
        name = inst.prefix + c["name"]
        groups, own = _groups([(g, inst) for g in _merged(layers, "groups") or []] + self.extra_groups.get(name, []))
        presets = self._presets(groups, c)
        layers = presets + layers
        parent = inst.ref(c.get("parent"))
        local = pose.compose((off, pose.IDENTITY[1]), _local_pose(c))
        placed = local if parent is not None and c["parent"] in inst.names else pose.compose(inst.placement, local)
        mesh = _merged(layers, "mesh")
        mesh = None if mesh is None else self._mesh(mesh, inst, layers, "mesh")
        scale = _merged(layers, "scale") or (1.0, 1.0, 1.0)
        e = EntityPlan(name, c.where, mesh, placed[0], placed[1],
                       (scale,) * 3 if isinstance(scale, float) else scale, parent, c.at("parent"),
                       _merged(layers, "color") or fmt.ENTITY.fields["color"].default,
                       _merged(layers, "visible") is not False, {}, groups + own)
        for layer in layers:
            e.attributes.update(layer.get("attributes", {}))
        e.physics = self._physics(layers, e, inst)
        return e

    def _presets(self, groups, c: Checked):
        """The group presets of the entity's groups; two that set one value differently are an error."""
        table = self.tables["group_presets"]
        chosen = [(g, table[g]) for g in groups if g in table]
        seen = {}
        for g, p in chosen:
            flat = {k: v for k, v in p.items() if k != "physics"}
            flat.update(p.get("physics") if isinstance(p.get("physics"), dict) else {})
            for k, v in flat.items():
                if k in seen and seen[k][1] != v:
                    self.rep.add(c.where, f"entity {c['name']!r}: group presets {seen[k][0]!r} and {g!r} "
                                          f"disagree on {k!r}")
                seen.setdefault(k, (g, v))
        return [p for _, p in chosen]

    def _demo_input(self, base_dir: str) -> None:
        """The settings' demo recording as a path; a missing file is a located error."""
        s = self.settings
        if s.get("demo_input"):
            path = resolve_path(s["demo_input"], base_dir)
            if not os.path.isfile(path):
                self.rep.add(s.at("demo_input"), f"no recording file {path}")
            s["demo_input"] = path

    def _mesh(self, ref, inst: _Instance, layers, key: str, entity_mesh: MeshSpec | None = None):
        """A mesh reference: inline, a name from meshes:, or "self" (physics lists)."""
        if isinstance(ref, tuple):
            return MeshSpec.of(ref, inst.dir)
        if ref == fmt.SELF_MESH and entity_mesh is not None:
            return entity_mesh
        table = self.tables["meshes"]
        if ref in table:
            return table[ref]
        where = next((lay.at(key) for lay in reversed(layers) if key in lay), layers[-1].where)
        hint = (" (the entity has no mesh for \"self\")" if ref == fmt.SELF_MESH
                else did_you_mean(ref, list(table) + [fmt.SELF_MESH]))
        self.rep.add(where, f"no mesh {ref!r}{hint}")
        return None

    def _physics(self, layers, e: EntityPlan, inst: _Instance):
        """The pins from the layers in order (a layer's material under its own
        physics keys); physicalized when the last layer naming physics says so."""
        given = {}
        on = False
        where = e.where
        for layer in layers:
            if "material" in layer:
                given.update(self._material(layer["material"], layer.at("material")))
            ph = layer.get("physics")
            if ph is not None:
                on = ph is not False
                given.update(ph if isinstance(ph, dict) else {})
                where = layer.at("physics")
        return self._pins(given, e.mesh, where, inst, layers) if on else None

    def _material(self, name: str, where: Where) -> dict:
        table = self.tables["materials"]
        if name not in table:
            self.rep.add(where, f"no material {name!r}{did_you_mean(name, table)}")
            return {}
        return dict(table[name])

    def _pins(self, given: dict, mesh: MeshSpec | None, where: Where, inst: _Instance | None = None, layers=()):
        """Every Physicalize pin: the block's defaults under the given values.
        With none of convex / balls / concave given, convex is the entity's own
        mesh (Convex Count 1); with any given, the others are empty."""
        pins = {**fmt.PHYSICS.defaults(), **given}
        shapes = ("convex", "balls", "concave")
        if not any(k in given for k in shapes):
            pins["convex"] = [] if mesh is None else [mesh]
        for k in ("convex", "concave"):
            refs = pins.get(k, [])
            pins[k] = [r if isinstance(r, MeshSpec) else self._mesh(r, inst, layers or [given], "physics", mesh)
                       for r in refs]
        pins["balls"] = [(b["position"], b["radius"]) for b in pins.get("balls", [])]
        if not (pins["convex"] or pins["balls"] or pins["concave"]):
            self.rep.add(where, "physics needs a shape: give the entity a mesh, or convex, balls or concave")
        return pins

    def _joint(self, inst: _Instance, c: Checked, off) -> ItemPlan:
        place = _offset(inst.placement, off)
        values = {k: v for k, v in c.items() if k not in ("type", "name")}
        for k in ("object", "object2", "referential_1", "referential_2"):
            if k in c:
                values[k] = self._name(inst, c, k)
        name = inst.prefix + c["name"] if "name" in c else None
        if c["type"] == "hinge" and isinstance(c.get("joint_referential"), Checked):
            ref = c["joint_referential"]
            values["joint_referential"] = self._frame((name or values["object"]) + ".ref",
                                                      pose.compose(place, _local_pose(ref)), ref.where)
        elif c["type"] == "hinge" and "joint_referential" in c:
            values["joint_referential"] = self._name(inst, c, "joint_referential")
        for k in ("axis_first_point", "axis_second_point"):
            if isinstance(c.get(k), tuple):
                values[k] = self._frame(f"{name or values['object']}.{k}",
                                        (pose.apply(place, c[k]), pose.IDENTITY[1]), c.at(k))
            elif k in c:
                values[k] = self._name(inst, c, k)
        for i in ("1", "2"):
            if "position_" + i in c and c.get("referential_" + i) is None:
                values["position_" + i] = pose.apply(place, c["position_" + i])
        return ItemPlan("joint", c["type"], name, values, c.where)

    def _force(self, inst: _Instance, c: Checked, off) -> ItemPlan:
        place = _offset(inst.placement, off)
        values = {k: v for k, v in c.items() if k not in ("type", "name")}
        refs = ("target", "direction_ref", "pos_referential" if c["type"] == "force" else "referential")
        for k in refs:
            values[k] = self._name(inst, c, k) if k in c else None
        if values[refs[2]] is None:
            values["position"] = pose.apply(place, c["position"])
        if values["direction_ref"] is None:
            values["direction"] = (pose.apply(place, c["direction"]) if c.get("two_pos_instead_of_dir")
                                   else pose.rotate(place[1], c["direction"]))
        return ItemPlan("force", c["type"], inst.prefix + c["name"] if "name" in c else None, values, c.where)

    def _behaviour(self, inst: _Instance, c: Checked) -> ItemPlan:
        """A behaviour entry. The parameters its class declares as Entity or
        Group name the instance's own entities and groups when the file defines
        them (so do their defaults), else the outer scene's; each given name is
        checked here, with its place."""
        params = dict(c["params"])
        self._behaviour_known(c)
        for key, p in _name_params(c["type"]).items():
            ref = inst.ref if p.kind is Entity else inst.group_ref
            if isinstance(params.get(key), str):
                params[key] = ref(params[key])
                self._param_exists(params[key], p.kind, c["params"].at(key),
                                   f"behaviour {c['type']!r} parameter {key!r}{inst.where_text()}")
            elif key not in params and isinstance(p.default, str) and ref(p.default) != p.default:
                params[key] = ref(p.default)
        return ItemPlan("behaviour", c["type"], None, {"entity": self._name(inst, c, "entity"), "params": params},
                        c.where)

    def _behaviour_known(self, c: Checked) -> None:
        """The behaviour's type is registered and takes each parameter given
        (checked here, so that they are listed with the file's other problems)."""
        try:
            cls = registry.lookup(c["type"])
        except ValueError as exc:
            self.rep.add(c.at("type"), str(exc).removeprefix("<python>: "))
            return
        declared = declared_params(cls)
        for key in c["params"]:
            if key not in declared:
                self.rep.add(c["params"].at(key), f"behaviour {c['type']!r} has no parameter {key!r}"
                                                  f"{did_you_mean(key, declared)} (parameters: "
                                                  f"{', '.join(declared) or 'none'})")

    def _param_exists(self, name: str, kind, where: Where, what: str) -> None:
        if kind is Entity:
            self._known(name, where, what)
        elif name not in self.group_names:
            self.rep.add(where, f"{what}: no group {name!r}{did_you_mean(name, self.group_names)}")


def _name_params(behaviour: str) -> dict:
    """The Entity and Group parameters a registered behaviour declares (none for
    an unknown name: building the scene reports it)."""
    try:
        cls = registry.lookup(behaviour)
    except ValueError:
        return {}
    return {k: p for k, p in declared_params(cls).items() if p.kind in (Entity, Group)}


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


def _local_pose(c: Checked):
    """The position and rotation keys of an item (their defaults when absent)."""
    return c.get("position", fmt.ZERO), c.get("rotation", pose.IDENTITY[1])


def _with_wheres(items):
    if not items:
        return []
    return list(zip(items, items.wheres))


def _offset(placement, off):
    return pose.compose(placement, (off, pose.IDENTITY[1]))


def _merged(layers, key):
    """The value of ``key`` in the last layer that gives it."""
    for layer in reversed(layers):
        if key in layer:
            return layer[key]
    return None


def _parents_first(entities):
    """Entities ordered so that each comes after its parent (input order otherwise)."""
    by_name = {e.name: e for e in entities}
    depth = {}

    def d(e, guard=0):
        if e.name not in depth:
            p = by_name.get(e.parent)
            depth[e.name] = 0 if p is None or guard > len(by_name) else d(p, guard + 1) + 1
        return depth[e.name]

    return sorted(entities, key=d)
