"""The plan of a scene: every entity, joint, force and behaviour with its final
values, before anything is built (made by ``scenes.document.plan``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import format as fmt
from . import pose
from .source import Where


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

