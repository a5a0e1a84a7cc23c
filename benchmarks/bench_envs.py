"""Benchmark: environment steps per second of the Ballance Gymnasium env (envs/).

Random key presses (a new action every step; with the default frame_skip 1
a step is a frame of 1/60 s, with ``--frame-skip k`` k frames, and the rates
count frames) on the bundled sample level, and on an original level with
``--game``. For each level it prints the env in this process, then
``gymnasium.vector.AsyncVectorEnv`` of 1, 2 ... processes (one world each),
their total steps per second and the scaling over one process. Loading and
the first steps (numba loads each kernel from its cache at its first call)
are not timed; an episode's end resets inside the timing, as in training.

Beside each rate: the CPU time behind it. In this process, the steps per CPU
second (what the machine's other work does not take away); with the vector
env, how each worker and the parent spent the wall time (Linux schedstat):
on a core, queued (runnable, waiting for a core the machine's other work
holds) and idle (waiting for the parent, for the other workers: a reset holds
the whole batch, or for the pipe), and the parent's CPU per step.

``--layers`` splits a step's CPU time (this process, thread time) into the
engine (``ivp.Environment.simulate``), the write-back of the awake bodies'
matrices, the behaviours (``BehaviorManager.process``), the rest of the
frame's glue (input, messages, commands), the observation and the rest of
the env's step (keys, reward, info), with the costliest behaviours.

    python benchmarks/bench_envs.py [--steps 600] [--processes 1 2] [--game DIR --level 2] [--layers]
                                    [--frame-skip 1]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import multiprocessing
import os
import time

import gymnasium
import numpy as np

import ivp
from bbglue.context import CKContext
from bbglue.physics import PhysicsManager
from behaviors.api import BehaviorManager
from envs import KEYS, BallanceEnv

WARM_STEPS = 120          # untimed steps first: numba loads its cached kernels on their first calls


def actions(n: int, seed: int = 0):
    return np.random.default_rng(seed).integers(0, 2, size=(n, len(KEYS)), dtype=np.int8)


def play(env, batch) -> None:
    """Step through ``batch``, resetting at an episode's end."""
    for a in batch:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()


def serial_rate(make, steps: int, start=None) -> tuple:
    """(steps per wall second, steps per CPU second) in this process; with
    ``start`` (a barrier), the timing starts when every process reached it."""
    env = make()
    env.reset(seed=0)
    play(env, actions(WARM_STEPS, seed=1))
    env.reset(seed=0)
    if start is not None:
        start.wait()
    w0, c0 = time.perf_counter(), time.process_time()
    play(env, actions(steps))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    env.close()
    return steps / wall, steps / cpu


def independent_rate(make, processes: int, steps: int) -> tuple:
    """(total steps per wall second, each process's CPU ms per step) of
    ``processes`` worlds stepped in their own processes with no vector env
    between them: the scaling the machine itself allows."""
    ctx = multiprocessing.get_context("fork")
    with ctx.Manager() as manager:
        start = manager.Barrier(processes)
        with ctx.Pool(processes) as pool:
            rates = pool.starmap(serial_rate, [(make, steps, start)] * processes)
    return sum(r for r, _ in rates), [1e3 / c for _, c in rates]


def _sched(pid):
    """(seconds on a core, seconds runnable but waiting for one) of a
    process's main thread (Linux /proc/PID/schedstat), or None."""
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            on_cpu, waiting = fh.read().split()[:2]
    except (OSError, ValueError):
        return None
    return int(on_cpu) * 1e-9, int(waiting) * 1e-9


def _shares(before, after, wall: float) -> str:
    """'cpu a%, queued b%, idle c%' of a process over ``wall`` seconds (module docstring)."""
    if before is None or after is None:
        return "?"
    cpu, queued = (after[i] - before[i] for i in (0, 1))
    return f"cpu {100 * cpu / wall:.0f}%, queued {100 * queued / wall:.0f}%, idle {100 * (1 - (cpu + queued) / wall):.0f}%"


def vector_rate(make, processes: int, steps: int) -> tuple:
    """(total steps per wall second, how each worker and the parent spent
    the time: on a core, waiting for one, idle (Linux), the parent's CPU
    ms per step)."""
    vec = gymnasium.vector.AsyncVectorEnv([make] * processes)
    try:
        vec.reset(seed=list(range(processes)))
        for a in actions(WARM_STEPS, seed=1):
            vec.step(np.repeat(a[None], processes, axis=0))
        pids = [p.pid for p in vec.processes] + [os.getpid()]
        before = [_sched(p) for p in pids]
        w0, c0 = time.perf_counter(), time.process_time()
        for a in actions(steps):
            vec.step(np.repeat(a[None], processes, axis=0))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        shares = [_shares(b, _sched(p), wall) for p, b in zip(pids, before)]
        return processes * steps / wall, shares, 1e3 * cpu / steps
    finally:
        vec.close()


@contextlib.contextmanager
def timed(totals: dict, cls, name: str, key):
    """While inside, ``cls.name`` adds its thread CPU time to ``totals[key(*args)]``."""
    original = getattr(cls, name)

    def wrapper(*args, **kwargs):
        t = time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            totals[key(*args)] += time.thread_time() - t

    setattr(cls, name, wrapper)
    try:
        yield
    finally:
        setattr(cls, name, original)


def layers(make, steps: int) -> str:
    """The split of a step's CPU time (module docstring), as text."""
    env = make()
    env.reset(seed=0)
    play(env, actions(WARM_STEPS, seed=1))
    env.reset(seed=0)
    t = collections.defaultdict(float)
    with contextlib.ExitStack() as stack:
        for cls, name, key in ((BallanceEnv, "step", lambda *a: "step"), (BallanceEnv, "reset", lambda *a: "step"),
                               (CKContext, "process_frame", lambda *a: "frames"),
                               (ivp.Environment, "simulate", lambda *a: "engine"),
                               (PhysicsManager, "write_back", lambda *a: "write-back"),
                               (BehaviorManager, "process", lambda *a: "behaviours"),
                               (BehaviorManager, "_call", lambda m, b, hook, *a: f"{b.name}.{hook}"),
                               (BallanceEnv, "_observation", lambda *a: "observation")):
            stack.enter_context(timed(t, cls, name, key))
        play(env, actions(steps))
    env.close()
    ms = {k: 1e3 * v / steps for k, v in t.items()}
    glue = ms["frames"] - ms["engine"] - ms["write-back"] - ms["behaviours"]
    rest = ms["step"] - ms["frames"] - ms["observation"]
    top = sorted((k for k in ms if "." in k), key=lambda k: -ms[k])[:4]
    return (f"{ms['step']:.3f} ms CPU a step: engine {ms['engine']:.3f}, write-back {ms['write-back']:.3f}, "
            f"behaviours {ms['behaviours']:.3f}, other glue {glue:.3f}, observation {ms['observation']:.3f}, "
            f"the env's rest {rest:.3f} (resets included); behaviours: "
            + ", ".join(f"{k} {ms[k]:.3f}" for k in top))


def bench(label: str, make, steps: int, processes, split: bool, skip: int) -> None:
    """The rows of one level (module docstring); rates in frames (steps x ``skip``)."""
    rate, cpu_rate = (skip * r for r in serial_rate(make, steps))
    print(f"{label}: in this process {rate:7.0f} frames/s  ({cpu_rate:.0f} per CPU second)", flush=True)
    if split:
        print(f"{label}: {layers(make, steps)}", flush=True)
    base = None
    for n in processes:
        rate, shares, parent_ms = vector_rate(make, n, steps)
        rate *= skip
        base = base or rate / n
        print(f"{label}: AsyncVectorEnv x{n:<2d} {rate:7.0f} frames/s  (scaling {rate / base:4.2f} over one "
              f"process; parent {parent_ms:.3f} ms CPU a step)", flush=True)
        for i, s in enumerate(shares):
            print(f"    {'parent' if i == n else f'worker {i}'}: {s}", flush=True)
        rate, cpu_ms = independent_rate(make, n, steps)
        print(f"{label}: independent x{n:<2d}  {skip * rate:7.0f} frames/s  (each world in its own process, no vector "
              f"env; CPU " + " ".join(f"{c:.3f}" for c in cpu_ms) + " ms a step)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=600, help="steps per world and measure")
    ap.add_argument("--processes", type=int, nargs="+", default=[1, 2], help="worlds (processes) per vector env")
    ap.add_argument("--game", metavar="DIR", help="your Ballance folder: also time an original level")
    ap.add_argument("--level", type=int, default=1, help="the original level's number (with --game)")
    ap.add_argument("--layers", action="store_true", help="split a step's CPU time by layer (this process)")
    ap.add_argument("--frame-skip", type=int, default=1, help="frames per step (fewer round trips to the workers)")
    args = ap.parse_args()
    if args.steps < 1 or args.frame_skip < 1 or any(n < 1 for n in args.processes):
        ap.error("--steps, --frame-skip and --processes must be at least 1")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start "
          "(other work slows the numbers)")
    kw = dict(frame_skip=args.frame_skip)
    bench("sample_level", functools.partial(BallanceEnv, scene="sample_level", **kw), args.steps, args.processes,
          args.layers, args.frame_skip)
    if args.game:
        bench(f"level {args.level}", functools.partial(BallanceEnv, level=args.level, game_dir=args.game, **kw),
              args.steps, args.processes, args.layers, args.frame_skip)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
