"""envs: Ballance levels as Gymnasium environments (docs/training.md).

Importing the package registers ``ivp/Ballance-v0``::

    import gymnasium, envs
    env = gymnasium.make("ivp/Ballance-v0", scene="sample_level")
    env = gymnasium.make("ivp/Ballance-v0", level=1, game_dir="/path/to/Ballance")

(``gymnasium.make("envs:ivp/Ballance-v0", ...)`` imports it on the way.) The
layer sits above ``scenes``; gymnasium comes with the ``rl`` extra.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as exc:          # the extra is not installed
    raise ImportError("envs needs gymnasium: pip install -e '.[rl]'") from exc

from .ballance import DISCRETE_ACTIONS, KEYS, BallanceEnv, default_reward, observation_layout

ENV_ID = "ivp/Ballance-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="envs.ballance:BallanceEnv")

__all__ = ["BallanceEnv", "DISCRETE_ACTIONS", "ENV_ID", "KEYS", "default_reward", "observation_layout"]
