"""What the viewer reads from the loaded scene: the camera a behaviour offers or
the file's camera, the sky and lens, and the HUD fields the behaviours offer
(behaviors.hooks; no pyglet here). The keys its behaviours own are
scenes.headless.declared_keys."""

from __future__ import annotations

import numpy as np

from behaviors import hooks

from .camera import BALLANCE_LENS, Lens, look_at
from .drawlist import SKY
from .lighting import Lighting, scene_lighting


def rig_camera(ctx):
    """The camera a behaviour offers (behaviors.hooks; Ballance's rig once it
    follows a ball), as a float64 world matrix; None otherwise."""
    m = hooks.camera_matrix(ctx)
    return None if m is None else np.asarray(m, dtype=np.float64)


def game_line(ctx) -> str:
    """The HUD fields the behaviours offer (a Ballance level: level, state,
    score, lives, ball), or '' without any; a float with two decimals."""
    state = hooks.hud_fields(ctx)
    return "   ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                       for k, v in state.items() if v is not None)


def _settings(session) -> dict:
    return getattr(session.scene, "settings", None) or {}


def file_camera(session):
    """The scene file's camera (position, target point or entity), or None."""
    cam = _settings(session).get("camera")
    if not cam:
        return None
    target = cam["target"]
    if isinstance(target, str):
        target = session.ctx.get(target).get_world_matrix().as_array()[3, :3]
    return look_at(cam["position"], target)


def scene_camera(session):
    """The rig's eye once it follows a ball, else the file's camera, else None
    (the viewer then uses its free camera)."""
    m = rig_camera(session.ctx)
    return m if m is not None else file_camera(session)


def scene_look(session) -> tuple[tuple, Lens, Lighting]:
    """Sky colour, lens and lights from the scene file (by default a light blue
    sky, Ballance's lens and the viewer's sun)."""
    s = _settings(session)
    sky = tuple(s["background"][:3]) if s.get("background") else SKY
    cam = s.get("camera")
    lens = Lens(cam["fov_deg"], cam["near"], cam["far"]) if cam else BALLANCE_LENS
    return sky, lens, scene_lighting(s.get("lights"))
