"""Pass 1 of planning: the file graph. The top file and, recursively, its
includes and prefabs (each file parsed and checked once), repeats expanded,
and the tables (materials, meshes, defaults classes, group presets: one
namespace for the whole scene) collected.
"""

from __future__ import annotations

import os
import re

from . import format as fmt
from . import limits, pose
from .model import MeshSpec
from .schema import BAD, Checked, Items
from .source import Mapping, Report, SceneError, Where, parse_file

BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundled")
BUNDLED_PREFIX = "bundled:"


def bundled_path(name: str) -> str:
    """The file of a bundled scene: "spring_lift", "modules/ph03" or a path under bundled/."""
    rel = name if name.endswith(".yaml") else name + ".yaml"
    return os.path.join(BUNDLED_DIR, rel)


def resolve_path(ref: str, base_dir: str) -> str:
    """A file named in a scene: "bundled:NAME" or relative to the naming file."""
    if ref.startswith(BUNDLED_PREFIX):
        return bundled_path(ref[len(BUNDLED_PREFIX):])
    return os.path.normpath(os.path.join(base_dir, os.path.expanduser(ref)))


# --- repeats ------------------------------------------------------------------------

_VAR = re.compile(r"\{([^{}]*)\}")
_VAR_FORM = re.compile(r"([ijkn])\s*([+-]\s*\d+)?")


def copies(item: Checked, rep: Report):
    """The copies of an item with repeat, one by one: (item with {i} {j} {k}
    {n} filled in, offset). A grid of more than MAX_REPEAT copies makes none."""
    r = item.get("repeat")
    if r is None:
        yield item, fmt.ZERO
        return
    if ("count" in r) == ("grid" in r) or ("step" in r and "count" not in r) or ("spacing" in r and "grid" not in r):
        rep.add(r.where, "a repeat has either count (with step) or grid (with spacing)")
        return
    if "count" in r:
        step = r.get("step", fmt.ZERO)
        indices = ((i, 0, 0) for i in range(r["count"]))
        spacing = step
    else:
        nx, ny, nz = r["grid"]
        if nx * ny * nz > limits.MAX_REPEAT:
            rep.add(r.at("grid"), f"the grid makes {nx * ny * nz} copies, {limits.over('MAX_REPEAT')}")
            return
        spacing = r.get("spacing", fmt.ZERO)
        indices = ((i, j, k) for k in range(nz) for j in range(ny) for i in range(nx))
    for n, (i, j, k) in enumerate(indices):
        c = _fill(item, {"i": i, "j": j, "k": k, "n": n}, rep, item.where)
        if c is BAD:
            return
        c.pop("repeat")
        off = (i * spacing[0], j * spacing[1], k * spacing[2]) if "grid" in r else tuple(i * s for s in spacing)
        yield c, off


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


# --- placements ---------------------------------------------------------------------

class Instance:
    """One placement of one file: its name prefix, placement, and the entity
    (joint, force) names and group names it defines, those of the files it
    places included (with their prefix relative to this one)."""

    def __init__(self, file: str, prefix: str, placement, parent: "Instance | None" = None, rel: str = ""):
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


def local_pose(c: Checked):
    """The position and rotation keys of an item (their defaults when absent)."""
    return c.get("position", fmt.ZERO), c.get("rotation", pose.IDENTITY[1])


def offset(placement, off):
    """``placement`` moved by a repeat's offset."""
    return pose.compose(placement, (off, pose.IDENTITY[1]))


def _with_wheres(items):
    if not items:
        return []
    return list(zip(items, items.wheres))


class FileGraph:
    """Pass 1: every placement of every file, read from the top file down.

    ``items`` holds, per section, (instance, checked item, repeat offset) in
    file order; ``memberships`` the top-level ``groups:`` entries; ``tables``
    the scene-wide tables; ``settings`` the top file's (None until it is read).
    Reading stops (``full``) at the first limit on what the files make:
    placements, entities, joints + forces + behaviours (``scenes.limits``).
    """

    def __init__(self, documents: dict | None, rep: Report):
        self.given = {os.path.normpath(k): v for k, v in (documents or {}).items()}
        self.rep = rep
        self.docs = {}
        self.files = []
        self.tables = {k: {} for k in ("materials", "meshes", "defaults", "group_presets")}
        self.table_where = {}
        self.items = {"entities": [], "joints": [], "forces": [], "behaviours": []}
        self.memberships = []       # (group, name pattern with the file's prefix, place, instance)
        self.settings = None
        self.placements = 0
        self.full = False

    def read(self, path: str, parent: Instance | None = None, rel: str = "", placement=pose.IDENTITY,
             stack: tuple = (), where: Where | None = None) -> None:
        """Pass 1 for one placement of a file: ``rel`` is its prefix within ``parent``."""
        if path in stack:
            self.rep.add(where, f"{path} includes itself (through {' -> '.join(stack)})")
            return
        if len(stack) > limits.MAX_INCLUDE_DEPTH:
            self.rep.add(where, f"{path} is placed {len(stack)} files deep, {limits.over('MAX_INCLUDE_DEPTH')}")
            return
        self.placements += 1
        if self.full or not self._room(self.placements, "MAX_PLACEMENTS", "file placements", where):
            return
        doc = self._document(path, where)
        if doc is None:
            return
        if not stack:
            self.settings = doc.get("scene") or fmt.SETTINGS.check(
                Mapping(Where(path, 1, 1)), Where(path, 1, 1), self.rep)
            self._demo_input(os.path.dirname(path))
        prefix = (parent.prefix if parent else "") + rel
        inst = Instance(path, prefix, placement, parent, rel)
        stack = stack + (path,)
        self._tables(doc, inst)
        for inc, w in _with_wheres(doc.get("includes")):
            ns = inc.get("namespace")
            self.read(resolve_path(inc["file"], inst.dir), inst, ns + "/" if ns else "",
                      pose.compose(placement, local_pose(inc)), stack, w)
        for item, _ in _with_wheres(doc.get("entities")):
            for c, off in copies(item, self.rep):
                if "prefab" in c:
                    self.read(resolve_path(c["prefab"], inst.dir), inst, c["prefix"],
                              pose.compose(offset(placement, off), local_pose(c)), stack, c.at("prefab"))
                elif self._room(len(self.items["entities"]) + 1, "MAX_ENTITIES", "entities", c.where):
                    inst.define(c["name"])
                    self.items["entities"].append((inst, c, off))
                if self.full:
                    return
        for group, patterns in doc.get("groups", {}).items():
            self.memberships += [(group, prefix + pat, w, inst) for pat, w in zip(patterns, patterns.wheres)]
        for key in ("joints", "forces", "behaviours"):
            for item, _ in _with_wheres(doc.get(key)):
                for c, off in copies(item, self.rep):
                    made = sum(len(self.items[k]) for k in ("joints", "forces", "behaviours"))
                    if not self._room(made + 1, "MAX_ITEMS", "joints, forces and behaviours", c.where):
                        return
                    if c.get("name"):
                        inst.define(c["name"])
                    self.items[key].append((inst, c, off))

    def _room(self, count: int, limit: str, what: str, where: Where | None) -> bool:
        """``count`` is within the limit named ``limit``; else a located problem, and reading stops."""
        if count <= getattr(limits, limit):
            return True
        if not self.full:
            self.rep.add(where, f"the scene makes {limits.over(limit, what)}")
        self.full = True
        return False

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
                    self.rep.extend(exc.problems)
                    raw = BAD
                if raw is None:
                    self.rep.add(Where(path, 1, 1), "the file is empty (a scene needs at least version: 1)")
                doc = BAD if raw in (None, BAD) else fmt.DOCUMENT.check(raw, Where(path, 1, 1), self.rep)
                self.docs[path] = None if doc is BAD else doc
                self.files.append(path)
        return self.docs[path]

    def _tables(self, doc: Checked, inst: Instance) -> None:
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

    def _demo_input(self, base_dir: str) -> None:
        """The settings' demo recording as a path; a missing file is a located error."""
        s = self.settings
        if s.get("demo_input"):
            path = resolve_path(s["demo_input"], base_dir)
            if not os.path.isfile(path):
                self.rep.add(s.at("demo_input"), f"no recording file {path}")
            s["demo_input"] = path
