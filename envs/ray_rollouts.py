"""Episodes of a Ballance level collected by Ray actors, one world each (docs/training.md, "Ray").

    python -m envs.ray_rollouts --scene sample_level --episodes 20
    python -m envs.ray_rollouts --level 2 --game-dir DIR --frame-skip 4 --time-limit 60
    python -m envs.ray_rollouts --address ray://HEAD:10001 --scene sample_level --workers 16

Without ``--address`` it starts a local Ray instance with the machine's cores;
with one it joins that cluster and runs unchanged there (every node needs this
project installed, and for an original level the game at the same path). Each
actor loads the level once and plays the seeds it is handed; an episode depends
only on its seed and the policy, never on the worker that ran it, so the same
seeds give the same episodes to the bit, serially (``serial``) or on any cluster.

A policy is ``policy(env, seed) -> act``, ``act(observation) -> action``, a
module-level callable (it travels to the workers by name): ``random_keys`` or
any ``module:name``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import socket

import numpy as np

from .ballance import BallanceEnv


@dataclasses.dataclass
class Episode:
    """One episode from ``reset(seed=seed)`` to its end."""
    seed: int
    observations: np.ndarray       # (steps + 1, n) float32: the reset's, then each step's
    actions: np.ndarray            # (steps, ...) as the policy chose them
    rewards: np.ndarray            # (steps,) float64
    terminated: bool
    truncated: bool
    info: dict                     # the last step's (the reset's when there was no step)
    worker: str = ""               # host:pid of the process that ran it

    @property
    def total(self) -> float:
        return float(self.rewards.sum())


def random_keys(env, seed: int):
    """The random policy: samples of the action space, seeded with the episode's seed."""
    env.action_space.seed(seed)
    return lambda observation: env.action_space.sample()


def resolve_policy(name: str):
    """``"random"`` or ``"module:callable"`` -> the policy."""
    if name == "random":
        return random_keys
    module, _, attr = name.partition(":")
    if not module or not attr:
        raise ValueError(f"ray_rollouts: a policy is 'random' or 'module:callable', got {name!r}")
    try:
        policy = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"ray_rollouts: policy {name!r}: {exc}") from None
    if not callable(policy):
        raise ValueError(f"ray_rollouts: policy {name!r} is not callable")
    return policy


def run_episode(env, seed: int, policy=random_keys) -> Episode:
    """Reset ``env`` with ``seed`` and step ``policy(env, seed)`` until the episode
    ends (the environment's time_limit bounds it)."""
    obs, info = env.reset(seed=seed)
    act = policy(env, seed)
    observations, actions, rewards = [obs], [], []
    terminated = truncated = False
    while not (terminated or truncated):
        action = act(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        observations.append(obs)
        actions.append(action)
        rewards.append(reward)
    return Episode(seed, np.array(observations), np.array(actions), np.array(rewards, dtype=np.float64),
                   bool(terminated), bool(truncated), info, f"{socket.gethostname()}:{os.getpid()}")


def serial(seeds, env_kwargs: dict, policy=random_keys) -> list:
    """The episodes of ``seeds`` in this process, one world."""
    env = BallanceEnv(**env_kwargs)
    try:
        return [run_episode(env, s, policy) for s in seeds]
    finally:
        env.close()


class _World:
    """A Ray actor's body: one environment, the episodes it is handed."""

    def __init__(self, env_kwargs: dict):
        self.env = BallanceEnv(**env_kwargs)

    def episode(self, seed: int, policy):
        return run_episode(self.env, seed, policy)


def _ray():
    try:
        import ray
    except ImportError as exc:          # the extra is not installed
        raise ImportError("envs.ray_rollouts needs ray: pip install -e '.[rl]'") from exc
    return ray


def collect(seeds, env_kwargs: dict, policy=random_keys, workers: int | None = None) -> list:
    """The episodes of ``seeds`` (in that order), played by ``workers`` Ray actors
    (default: one per CPU of the connected Ray instance), each seed handed to the
    next actor that comes free. Connects with ``ray.init()`` if not connected."""
    ray = _ray()
    seeds = [int(s) for s in seeds]
    if not ray.is_initialized():
        ray.init()
    if workers is None:
        workers = max(1, int(ray.available_resources().get("CPU", 1)))
    if workers < 1:
        raise ValueError(f"ray_rollouts: workers must be at least 1, got {workers!r}")
    World = ray.remote(num_cpus=1)(_World)
    actors = [World.remote(env_kwargs) for _ in range(min(workers, len(seeds)))]
    todo = list(enumerate(seeds))[::-1]
    running, out = {}, [None] * len(seeds)

    def hand(actor):
        if todo:
            i, s = todo.pop()
            running[actor.episode.remote(s, policy)] = (i, actor)

    for actor in actors:
        hand(actor)
    while running:
        [ref], _ = ray.wait(list(running))
        i, actor = running.pop(ref)
        out[i] = ray.get(ref)
        hand(actor)
    for actor in actors:
        ray.kill(actor)
    return out


def summary(episodes) -> dict:
    """Mean and spread of the returns, how many finished, died or ran out of
    time, the mean length in steps, the furthest sector reached."""
    returns = np.array([e.total for e in episodes])
    return {"episodes": len(episodes), "mean_return": float(returns.mean()),
            "sd_return": float(returns.std(ddof=1)) if len(episodes) > 1 else 0.0,
            "finished": sum(bool(e.info["finished"]) for e in episodes),
            "died": sum(e.terminated and not e.info["finished"] for e in episodes),
            "truncated": sum(e.truncated for e in episodes),
            "mean_steps": float(np.mean([len(e.rewards) for e in episodes])),
            "furthest_sector": max(int(e.info["sector"]) for e in episodes)}


def _args(argv):
    ap = argparse.ArgumentParser(prog="python -m envs.ray_rollouts", description=__doc__.splitlines()[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--scene", help="a scene file or bundled name (sample_level)")
    where.add_argument("--level", type=int, help="an original level's number (with --game-dir)")
    ap.add_argument("--game-dir", help="your Ballance folder (with --level)")
    ap.add_argument("--address", help="a Ray cluster's address (default: a local instance)")
    ap.add_argument("--workers", type=int, help="actors, one world each (default: the CPUs Ray has)")
    ap.add_argument("--episodes", type=int, default=10, help="episodes, of seeds --seed, --seed + 1, ...")
    ap.add_argument("--seed", type=int, default=0, help="the first episode's seed")
    ap.add_argument("--policy", default="random", help="'random' or module:callable (see the module's doc)")
    ap.add_argument("--frame-skip", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds of frame time per episode")
    ap.add_argument("--actions", default="multibinary", choices=("multibinary", "discrete"))
    args = ap.parse_args(argv)
    if args.episodes < 1 or (args.workers is not None and args.workers < 1):
        ap.error("--episodes and --workers must be at least 1")
    if args.level is not None and args.game_dir is None:
        ap.error("--level needs --game-dir")
    try:
        args.policy = resolve_policy(args.policy)
    except ValueError as exc:
        ap.error(str(exc))
    return args


def main(argv=None) -> dict:
    """Collect the episodes, print and return their summary."""
    args = _args(argv)
    ray = _ray()
    if args.address:
        ray.init(address=args.address)
    elif not ray.is_initialized():
        ray.init(include_dashboard=False)          # a local instance with this machine's cores
    where = dict(scene=args.scene) if args.scene else dict(level=args.level, game_dir=args.game_dir)
    env_kwargs = dict(where, frame_skip=args.frame_skip, time_limit=args.time_limit, actions=args.actions)
    seeds = range(args.seed, args.seed + args.episodes)
    episodes = collect(seeds, env_kwargs, args.policy, args.workers)
    s = summary(episodes)
    hosts = sorted({e.worker for e in episodes})
    print(f"{s['episodes']} episodes on {len(hosts)} workers: return {s['mean_return']:.1f} "
          f"(sd {s['sd_return']:.1f}), finished {s['finished']}, died {s['died']}, "
          f"out of time {s['truncated']}, mean length {s['mean_steps']:.0f} steps "
          f"({s['mean_steps'] * args.frame_skip / 60.0:.1f} s), furthest sector {s['furthest_sector']}")
    return s


if __name__ == "__main__":
    from envs.ray_rollouts import main as _main    # the workers find everything by its module's name
    _main()
