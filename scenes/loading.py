"""scenes.load: a scene file, a bundled scene's name or a game's level file.

Apart from scenes.build so that the builder never imports the level importer
(which imports the builder): the import graph has no loop.
"""

from __future__ import annotations

import os

from . import document
from .build import VIRTOOLS_SUFFIXES, Scene, build


def load(path_or_name: str, strict: bool = False) -> Scene:
    """A scene file, the name of a bundled scene, or a Virtools level file
    (.nmo / .cmo, imported by scenes.virtools), checked and built."""
    path = path_or_name
    if os.path.splitext(path)[1].lower() in VIRTOOLS_SUFFIXES:
        from . import virtools          # only for a level file: it imports Ballance's level names
        return virtools.load(path, strict)
    if not os.path.exists(path) and os.path.exists(document.bundled_path(path)):
        path = document.bundled_path(path)
    scene = build(document.plan(path), strict)
    if any(e.mesh is not None and e.mesh.kind == "obj" for e in scene.plan.entities):
        from .virtools.looks import plan_looks      # OBJ sidecars with materials: an imported level's
        scene.looks = plan_looks(scene.plan)
    return scene
