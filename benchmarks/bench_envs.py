"""Benchmark: environment steps per second of the Ballance Gymnasium env (envs/).

Random key presses (a new action every step, frame_skip 1: a step is a frame
of 1/60 s) on the bundled sample level, and on an original level with
``--game``. For each level it prints the env in this process, then
``gymnasium.vector.AsyncVectorEnv`` of 1, 2 ... processes (one world each),
their total steps per second and the scaling over one process. In this process
it also splits the time: the env's own work in a step (keys, observation,
reward: all but the frames; the median) and the resets' share. Loading and the
first reset are not timed; an episode's end resets inside the timing, as in
training.

    python benchmarks/bench_envs.py [--steps 600] [--processes 1 2] [--game DIR --level 2]
"""

from __future__ import annotations

import argparse
import functools
import os
import time

import gymnasium
import numpy as np

from envs import KEYS, BallanceEnv


def actions(n: int, seed: int = 0):
    return np.random.default_rng(seed).integers(0, 2, size=(n, len(KEYS)), dtype=np.int8)


def serial_rate(make, steps: int) -> tuple:
    """Steps per second in this process; the env's own time in a step (the step
    less its frames), the median over the steps in ms (robust to the machine's
    other work); the share of the time spent in resets."""
    env = make()
    env.reset(seed=0)
    in_frames = in_resets = 0.0
    run_frames = env._run_frames

    def timed_frames(keys, n):
        nonlocal in_frames
        t = time.perf_counter()
        try:
            return run_frames(keys, n)
        finally:
            in_frames += time.perf_counter() - t

    env._run_frames = timed_frames
    own = []
    t0 = time.perf_counter()
    for a in actions(steps):
        t, before = time.perf_counter(), in_frames
        _, _, terminated, truncated, _ = env.step(a)
        own.append(time.perf_counter() - t - (in_frames - before))
        if terminated or truncated:
            t = time.perf_counter()
            env.reset()
            in_resets += time.perf_counter() - t
    total = time.perf_counter() - t0
    env.close()
    return steps / total, float(np.median(own)) * 1e3, in_resets / total


def vector_rate(make, processes: int, steps: int) -> float:
    vec = gymnasium.vector.AsyncVectorEnv([make] * processes)
    try:
        vec.reset(seed=list(range(processes)))
        batch = actions(steps)
        t0 = time.perf_counter()
        for a in batch:
            vec.step(np.repeat(a[None], processes, axis=0))
        return processes * steps / (time.perf_counter() - t0)
    finally:
        vec.close()


def bench(label: str, make, steps: int, processes) -> None:
    rate, own_ms, resets = serial_rate(make, steps)
    print(f"{label}: in this process {rate:7.0f} steps/s  (the env's own work {own_ms:.3f} ms a step (median), "
          f"resets {100 * resets:.0f}% of the time)", flush=True)
    base = None
    for n in processes:
        rate = vector_rate(make, n, steps)
        base = base or rate / n
        print(f"{label}: AsyncVectorEnv x{n:<2d} {rate:7.0f} steps/s  (scaling {rate / base:4.2f} "
              f"over one process)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=600, help="steps per world and measure")
    ap.add_argument("--processes", type=int, nargs="+", default=[1, 2], help="worlds (processes) per vector env")
    ap.add_argument("--game", metavar="DIR", help="your Ballance folder: also time an original level")
    ap.add_argument("--level", type=int, default=1, help="the original level's number (with --game)")
    args = ap.parse_args()
    if args.steps < 1 or any(n < 1 for n in args.processes):
        ap.error("--steps and --processes must be at least 1")
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} cores, load average {load:.1f} at the start (other work slows the numbers)")
    bench("sample_level", functools.partial(BallanceEnv, scene="sample_level"), args.steps, args.processes)
    if args.game:
        bench(f"level {args.level}", functools.partial(BallanceEnv, level=args.level, game_dir=args.game),
              args.steps, args.processes)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
