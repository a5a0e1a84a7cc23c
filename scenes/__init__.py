"""scenes: the YAML scene format, its loader, the bundled scenes and headless runs.

    scene = scenes.load("spring_lift")        # a bundled name or a path
    scene.ctx.process_frame(1000 / 60)        # one frame of the CK context

docs/scenes.md describes the format. pyyaml is imported here and nowhere else.
"""

from __future__ import annotations

import os

from .build import Scene, build
from .loading import load
from .document import BUNDLED_DIR, Plan, plan
from .source import SceneError, Where

DEFAULT_SCENE = "sample_level"


def bundled_names() -> list:
    """The bundled scenes that can be run (libraries and prefab parts excluded),
    as names ``load`` accepts: "ball_wood", "modules/ph03_spring_lift" ..."""
    out = []
    for root, dirs, files in os.walk(BUNDLED_DIR):
        dirs[:] = sorted(d for d in dirs if d not in ("parts", "lib"))
        for f in sorted(files):
            if f.endswith(".yaml"):
                rel = os.path.relpath(os.path.join(root, f), BUNDLED_DIR)
                out.append(rel[:-5].replace(os.sep, "/"))
    return out


__all__ = ["Scene", "SceneError", "Where", "Plan", "load", "build", "plan", "bundled_names", "DEFAULT_SCENE"]
