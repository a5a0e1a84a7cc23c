"""What the viewer reads from the scene's behaviours: the keys they own, the
Ballance camera rig's eye, the gameplay state for the HUD (no pyglet here)."""

from __future__ import annotations

import numpy as np

from behaviors.api import manager_of
from behaviors.ballance import camera_of, gameplay_state
from behaviors.params import declared_params


def game_keys(ctx) -> frozenset:
    """Every key named by a behaviour's ``*_key`` parameter (navigation, camera
    turn and raise): the viewer leaves these keys to the game."""
    keys = set()
    for b in manager_of(ctx).behaviors:
        for name in declared_params(type(b)):
            value = getattr(b, name, None)
            if name.endswith("_key") and isinstance(value, str):
                keys.add(value)
    return frozenset(keys)


def rig_camera(ctx):
    """The Ballance camera rig's eye as a camera world matrix, once it follows a
    ball (it looks at the target along its Z); None otherwise."""
    rig = camera_of(ctx)
    if rig is None or rig.eye_spring.cur is None:
        return None
    return np.asarray(rig.eye_entity.get_world_matrix().as_array(), dtype=np.float64)


def game_line(ctx) -> str:
    """Level, state, score, lives and ball of the gameplay, or '' without one."""
    state = gameplay_state(ctx)
    if state is None:
        return ""
    return "   ".join(f"{k} {v}" for k, v in state.items() if v is not None)
