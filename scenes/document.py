"""From scene files to a plan: every entity, joint, force and behaviour with its
final values, world poses and resolved names, before anything is built.

Pass 1 (``scenes.files``) reads the top file and, recursively, its includes
and prefabs (each file parsed and checked once), expands repeats and collects
the tables. Pass 2 resolves names, classes, presets and materials
(``scenes.names``) and makes the plans (``scenes.builders``), checking every
reference. All problems are collected and raised together as a ``SceneError``
whose lines read ``file:line:column: message``.
"""

from __future__ import annotations

import os

from .builders import Builder
from .files import BUNDLED_DIR, BUNDLED_PREFIX, FileGraph, bundled_path, resolve_path
from .model import EntityPlan, ItemPlan, MeshSpec, Plan
from .names import Names
from .source import Report

__all__ = ["BUNDLED_DIR", "BUNDLED_PREFIX", "EntityPlan", "ItemPlan", "MeshSpec", "Plan", "bundled_path",
           "resolve_path", "plan"]


def plan(path: str, documents: dict | None = None) -> Plan:
    """Read, check and resolve the scene file at ``path``. ``documents`` maps a
    path to its document already parsed (located values, ``source.located``),
    read instead of the file: an imported level is planned this way."""
    return _Resolver(documents).run(path)


class _Resolver:
    """Both passes over one scene, their problems in one report."""

    def __init__(self, documents: dict | None = None):
        self.rep = Report()
        self.graph = FileGraph(documents, self.rep)

    def run(self, path: str) -> Plan:
        """Both passes; pass 2 runs after problems in pass 1 too (a missing
        include, a bad value), on what could be read, so that all the problems
        of the files are listed together."""
        path = os.path.normpath(path)
        self.graph.read(path)
        if self.graph.settings is None:           # the top file could not be read at all
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

    def _resolve(self, path: str) -> Plan:
        graph, items = self.graph, self.graph.items
        names = Names(graph, self.rep)
        build = Builder(names, self.rep)
        entities = [build.entity(inst, c, off) for inst, c, off in items["entities"]]
        names.define(entities)
        joints = [build.joint(inst, c, off) for inst, c, off in items["joints"]]
        forces = [build.force(inst, c, off) for inst, c, off in items["forces"]]
        behaviours = [build.behaviour(inst, c) for inst, c, _ in items["behaviours"]]
        for e in entities:
            if e.parent is not None:
                names.known(e.parent, e.parent_where, "parent")
        names.no_parent_cycles(entities)
        settings = graph.settings
        target = settings["camera"]["target"] if "camera" in settings else None
        if isinstance(target, str):
            names.known(target, settings["camera"].at("target"), "camera target")
        defined = set(names.names)
        for e in build.extras():
            if e.name not in defined:
                defined.add(e.name)
                entities.append(e)
        return Plan(path, settings, _parents_first(entities), joints, forces, behaviours, list(graph.files))


def _parents_first(entities):
    """Entities ordered so that each comes after its parent (input order
    otherwise); the parents form no loop (``Names.no_parent_cycles``)."""
    by_name = {e.name: e for e in entities}
    depth = {}
    for e in entities:
        chain = []
        while e is not None and e.name not in depth:
            chain.append(e)
            e = by_name.get(e.parent)
        d = -1 if e is None else depth[e.name]
        for c in reversed(chain):
            d += 1
            depth[c.name] = d
    return sorted(entities, key=lambda e: depth[e.name])
