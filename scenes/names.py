"""Pass 2 of planning, the lookups: entity and group names, the entities the
loader adds (FixCube, inline frames), defaults classes, group presets,
materials and meshes from the scene-wide tables. Each lookup checks and
reports; none creates anything.
"""

from __future__ import annotations

import fnmatch

from bbglue.values import did_you_mean
from behaviors.params import Entity

from . import format as fmt
from .files import FileGraph, Instance
from .model import EntityPlan, MeshSpec
from .schema import Checked
from .source import Report, Where


class Names:
    """The names of a scene being resolved. ``names`` maps each entity of the
    files to its plan (filled by ``define``); ``extra`` lists the hidden
    entities the loader adds; ``made`` holds the names of the entities
    behaviours make (``Behavior.makes``); ``fixcube`` is (where FixCube goes among them,
    the place of the first reference) when a reference needs it and no file
    defines it (None: not needed)."""

    def __init__(self, graph: FileGraph, rep: Report):
        self.rep = rep
        self.tables = graph.tables
        self.names = {}
        self.group_names = set()
        self.extra = []
        self.extra_names = set()
        self.made = set()
        self.fixcube = None
        self.memberships = self._memberships(graph)

    def _memberships(self, graph: FileGraph) -> dict:
        """Entity name -> the (group, instance whose groups: section adds it) pairs, in order."""
        names = [inst.prefix + c["name"] for inst, c, _ in graph.items["entities"]]
        out = {}
        for group, pattern, where, inst in graph.memberships:
            found = fnmatch.filter(names, pattern)
            if not found and not self.rep.unread:
                self.rep.add(where, f"group {group!r}: no entity matches {pattern!r}{did_you_mean(pattern, names)}")
            for n in found:
                out.setdefault(n, [])
                if (group, inst) not in out[n]:
                    out[n].append((group, inst))
        return out

    def define(self, entities) -> None:
        """The entities of the files (a name given twice is an error) and their groups."""
        for e in entities:
            if e.name in self.names:
                first = self.names[e.name].where
                hint = " (a repeated entity needs {i} in its name)" if first == e.where else ""
                self.rep.add(e.where, f"entity {e.name!r} is defined twice (first at {first}){hint}")
            self.names.setdefault(e.name, e)
        self.group_names = {g for e in entities for g in e.groups}

    def taken(self, name: str) -> bool:
        """``name`` is in use: by the files, the loader, a behaviour, or FixCube once needed."""
        return name in self.names or name in self.extra_names or name in self.made or (
            name == fmt.FIXCUBE and self.fixcube is not None)

    def known(self, name: str, where: Where, what: str) -> bool:
        """``name`` names an entity (FixCube always does: the loader adds it when
        the files do not define it); else a located problem."""
        if self.taken(name):
            return True
        if name == fmt.FIXCUBE:
            self.fixcube = (len(self.extra), where)
            return True
        if not self.rep.was_unread(name):
            self.rep.add(where, f"{what}: no entity {name!r}{did_you_mean(name, self.names)}")
        return False

    def add_extra(self, e: EntityPlan) -> None:
        """A hidden entity the loader adds (an inline frame, FixCube)."""
        self.extra.append(e)
        self.extra_names.add(e.name)

    def free_name(self, name: str) -> str:
        """``name``, or name2, name3 ... when that is taken."""
        n = 1
        out = name
        while self.taken(out):
            n += 1
            out = f"{name}{n}"
        return out

    def param_exists(self, name: str, kind, where: Where, what: str) -> None:
        """A behaviour parameter's entity or group exists."""
        if kind is Entity:
            self.known(name, where, what)
        elif name not in self.group_names and not self.rep.was_unread(name):
            self.rep.add(where, f"{what}: no group {name!r}{did_you_mean(name, self.group_names)}")

    def no_parent_cycles(self, entities) -> None:
        """No entity is its own ancestor: each loop is reported once, at the
        entity where the walk met it, whose parent is then dropped. Each
        entity is walked over once (a chain of n costs n steps, not n^2)."""
        done = set()
        for e in entities:
            path = {}                       # name -> its place on this walk
            name = e.name
            while name is not None and name in self.names and name not in done:
                if name in path:
                    loop = list(path)[path[name]:] + [name]
                    first = self.names[name]
                    self.rep.add(first.where, f"entity {name!r}: the parents form a loop ({' -> '.join(loop)})")
                    first.parent = None
                    break
                path[name] = len(path)
                name = self.names[name].parent
            done.update(path)

    # --- tables --------------------------------------------------------------------

    def class_layers(self, name: str, where: Where, seen=()):
        """The layers of a defaults class, its root ancestor first."""
        table = self.tables["defaults"]
        if name not in table:
            if not self.rep.was_unread(name):
                self.rep.add(where, f"no defaults class {name!r}{did_you_mean(name, table)}")
            return []
        if name in seen:
            self.rep.add(where, f"defaults classes inherit in a loop: {' -> '.join(seen + (name,))}")
            return []
        c = table[name]
        up = self.class_layers(c["inherit"], c.at("inherit"), seen + (name,)) if "inherit" in c else []
        return up + [c]

    def presets(self, groups, c: Checked):
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

    def material(self, name: str, where: Where) -> dict:
        table = self.tables["materials"]
        if name not in table:
            if not self.rep.was_unread(name):
                self.rep.add(where, f"no material {name!r}{did_you_mean(name, table)}")
            return {}
        return dict(table[name])

    def mesh(self, ref, inst: Instance | None, layers, key: str, entity_mesh: MeshSpec | None = None):
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
        if not self.rep.was_unread(ref):
            self.rep.add(where, f"no mesh {ref!r}{hint}")
        return None
