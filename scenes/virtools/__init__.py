"""Virtools 2.x files (.nmo / .cmo): the reader (``reader``), a writer of the
same subset for test files (``writer``), and a game's levels as scenes
(``level``, with what the groups mean from the game's plug-in, Ballance's
through the ``ivp.levels`` entry point; docs/levels.md).

    scene = scenes.load("Level_01.NMO")        # scenes.load dispatches on the suffix
    imp = import_level("Level_01.NMO")         # the scene document, its meshes, the report
    write_scene(imp, "level.yaml")             # the YAML scene and its OBJ sidecars
"""

from __future__ import annotations

import os

import yaml

from bbglue.meshes import Mesh

from .. import document
from ..build import VIRTOOLS_SUFFIXES as SUFFIXES
from ..build import Scene, build
from ..document import MeshSpec
from ..source import Where, located
from behaviors.levels import level_meaning

from .balls import give_balls, read_balls
from .game import game_folder, game_level
from .level import Import, LevelReport, import_level
from .looks import MaterialLibrary, Textures, plan_looks, write_obj
from .reader import VirtoolsError, read_file

def is_virtools(path: str) -> bool:
    return os.path.splitext(path)[1].lower() in SUFFIXES


def plan_level(imp: Import, path: str) -> document.Plan:
    """The import's document planned as if it were a scene file at ``path``."""
    doc = located(imp.document, Where(path, 1, 1))
    return document.plan(path, {path: doc})


def load(path: str, strict: bool = False, game: str | None = None, meaning=None) -> Scene:
    """A level file as a built scene; ``scene.level`` is the import's report and
    ``scene.looks`` its entities' materials and textures (looks.py) and
    ``scene.particles`` its emitters' settings (particles.py), for the viewer; ``meaning`` what its groups mean (default: the plug-in's, level.py).
    The rig's balls and pieces take the game's shapes when the game folder
    has the meaning's balls file (balls.py)."""
    meaning = meaning if meaning is not None else level_meaning()
    game = game if game is not None else game_folder(path)
    imp = import_level(path, game, meaning=meaning)
    plan = plan_level(imp, path)
    meshes = {MeshSpec("obj", os.path.normpath(os.path.join(os.path.dirname(plan.path), rel))):
              Mesh(os.path.splitext(os.path.basename(rel))[0], v, f) for rel, (v, f) in imp.meshes.items()}
    scene = build(plan, strict, meshes)
    scene.level = imp.report
    scene.looks = imp.looks
    scene.sky_box = imp.sky_box
    scene.particles = imp.particles
    if meaning.balls:
        balls, why = read_balls(game, meaning.balls_file, meaning.balls, Textures(game, imp.report.warnings))
        left = give_balls(scene.ctx, scene.looks, balls) + ([why] if why else [])
        imp.report.skipped += [("the balls' shapes", line) for line in left]
    return scene


def write_scene(imp: Import, yaml_path: str) -> list:
    """The import as a YAML scene at ``yaml_path`` with its meshes as OBJ files
    beside it, their materials and textures in an MTL file there (looks.py);
    the paths written, the scene first."""
    base = os.path.dirname(os.path.abspath(yaml_path))
    written = [yaml_path]
    folders = {os.path.dirname(os.path.join(base, rel)) for rel in imp.meshes}
    libraries = {f: MaterialLibrary(f) for f in folders}
    for rel, (v, f) in imp.meshes.items():
        out = os.path.join(base, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        write_obj(out, v, f, imp.sidecar_looks.get(rel), libraries[os.path.dirname(out)])
        written.append(out)
    for lib in libraries.values():
        written += lib.write()
    head = f"# {imp.report.path}, imported (docs/levels.md)\n"
    with open(yaml_path, "w", encoding="utf-8") as fh:
        fh.write(head + yaml.safe_dump(imp.document, sort_keys=False, allow_unicode=True, width=120,
                                         default_flow_style=None))
    return written


__all__ = ["Import", "LevelReport", "VirtoolsError", "game_level", "import_level", "is_virtools", "load", "plan_level",
           "plan_looks", "read_file", "write_scene"]
