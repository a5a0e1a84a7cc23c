"""The level's autopilot as a policy (docs/training.md "Baselines").

Each step it holds the keys the autopilot's steering picks for the world the
environment shows (behaviors/ballance/autopilot.py, ``Pilot.steer``: the
route to the next checkpoint over the level's floors, a push toward a point
ahead on it). Only the steering: the autopilot's search, which rolls the
world back after a death and tries again, is not open to a policy (an
environment goes forward only), so a death ends the episode as it would a
player's. It steers every frame of 1/60 s: use it with ``frame_skip=1``.

    python -m envs.ray_rollouts --scene sample_level --policy envs.autopilot:autopilot --episodes 3

The walk map is made once per environment (the first episode; it holds the
level's fixed geometry); the routes are made afresh in each episode, so an
episode depends only on its seed.
"""

from __future__ import annotations

import weakref

import numpy as np

from behaviors.ballance.autopilot import Pilot
from behaviors.ballance.balls import player_of
from behaviors.ballance.level import PLAYING

from .ballance import DISCRETE_ACTIONS, KEYS

_pilots = weakref.WeakKeyDictionary()       # BallanceEnv -> its Pilot


def autopilot(env, seed: int):
    """The policy ``(env, seed) -> act`` (envs.ray_rollouts): ``act(observation)``
    returns the steering's keys as the env's action (MultiBinary flags, or the
    index of the key set among DISCRETE_ACTIONS)."""
    base = env.unwrapped
    pilot = _pilots.get(base)
    if pilot is None:               # it runs a frame of the loaded world, which no episode uses
        pilot = _pilots[base] = Pilot(base.scene)
    pilot.routes = {}

    def act(observation):
        pilot.ctx, pilot.level = base.ctx, base.level
        player = player_of(base.ctx)
        ball = player.ball if player is not None else None
        keys = pilot.steer(ball, player.kind) if base.level.flow == PLAYING and ball is not None else frozenset()
        if base.discrete:
            return DISCRETE_ACTIONS.index(tuple(k for k in KEYS if k in keys))
        return np.array([k in keys for k in KEYS], np.int8)

    return act
