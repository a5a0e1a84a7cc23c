"""The reliability fuzz harness (issue 15; made as hard as an outside kit in
issue 41.7).

Generators of cases, each case one seed:

- ``scene_cases``: a bundled scene, or a part or library it includes, mutated
  (tests/scene_mutations.py, or physics given to any entity), loaded under the
  real scene limits and run for FRAMES frames;
- ``call_cases``: one bad call (hostile numbers, wrong kinds) into a building
  block, the glue's physics manager or an engine entry point (templates,
  create_*, joints, springs, forces, pushes on a body), on a small world that
  then runs FRAMES frames;
- ``level_cases`` (with a game folder only): a copy of one of the game's
  Level_NN.NMO with bytes or fields mutated, loaded and run.

Each outcome is one of the classes below. Cases run in a worker process
(``run``): a case that takes over HANG_SECONDS is a hang, its worker is killed
and a new one takes the next case, so no hang stalls the fuzz. ``python -m
tests.fuzz`` prints the counts per class and writes a reproducer of every
case that is neither clean nor located (``reproducer``).
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np

CLEAN = "clean run"             # loaded / accepted and ran, state finite
LOCATED = "located error"       # refused by a ValueError / TypeError / SceneError that says where
UNLOCATED = "unlocated error"   # refused, but the message does not say where (or points at no line)
UNCAUGHT = "uncaught exception" # any other exception, escaped or reported by the context
HANG = "hang"                   # over HANG_SECONDS
NAN = "NaN in state"            # ran, but a body or entity state is NaN or infinite
CLASSES = (CLEAN, LOCATED, UNLOCATED, UNCAUGHT, HANG, NAN)
BAD = (UNLOCATED, UNCAUGHT, HANG, NAN)

HANG_SECONDS = 10.0
FRAMES = 60                      # frames of 1/60 s each case runs once loaded
FRAME_MS = 1000.0 / 60.0


@dataclass
class Outcome:
    kind: str                   # "scene", "call" or "level"
    seed: int
    cls: str
    detail: str = ""            # what happened, for the bad classes
    repro: str = ""             # the reproducer's main file (run with an output folder)


@dataclass
class Setting:
    """What the cases of one fuzz share: the copy of the bundled scenes to
    mutate in (scene_cases.workspace) and the game folder (level cases)."""

    root: str
    game: str | None = None


def where_of(exc: BaseException) -> str:
    """The innermost source line of an exception: "file.py:123 in fn"."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return "?"
    code = tb.tb_frame.f_code
    return f"{code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno} in {code.co_name}"


def describe(exc: BaseException) -> str:
    first = str(exc).splitlines()[0][:160] if str(exc) else ""
    return f"{type(exc).__name__}: {first} [{where_of(exc)}]"


def finite_world(ctx) -> bool:
    """No NaN or infinity in a body's state or an entity's world matrix."""
    from scenes.headless import finite_state
    if not finite_state(ctx.physics.env):
        return False
    return all(np.isfinite(e.get_world_matrix().as_array()).all() for e in ctx.entities)


def run_frames(ctx, frames: int = FRAMES) -> tuple:
    """Run a context's frames (an exception escaping a frame propagates to the
    caller); (class, detail): NAN when the state is not finite, UNCAUGHT when
    the context reported an error that is not a refusal (a ValueError or
    TypeError, which the context names with its behaviour or block: LOCATED),
    else CLEAN."""
    for _ in range(frames):
        ctx.process_frame(FRAME_MS)
    if not finite_world(ctx):
        return NAN, ""
    for fe in ctx.errors:
        if not isinstance(fe.error, (ValueError, TypeError)):
            return UNCAUGHT, f"reported in frame {fe.frame} by {fe.where.splitlines()[0]}: {describe(fe.error)}"
    return (LOCATED if ctx.errors else CLEAN), ""


def tally(outcomes) -> Counter:
    return Counter(o.cls for o in outcomes)


def _generators():
    from . import call_cases, level_cases, scene_cases
    return {"scene": scene_cases, "call": call_cases, "level": level_cases}


def run_case(kind: str, seed: int, setting: Setting) -> Outcome:
    """One case, in this process (no hang limit)."""
    return _generators()[kind].run_case(seed, setting)


def reproducer(kind: str, seed: int, setting: Setting) -> dict:
    """The files that replay a case: {path relative to the reproducer folder: text or bytes}."""
    return _generators()[kind].reproducer(seed, setting)


def _worker(conn, setting: Setting) -> None:
    while True:
        job = conn.recv()
        if job is None:
            return
        start = time.perf_counter()
        outcome = run_case(*job, setting)
        conn.send((outcome, time.perf_counter() - start))


class Worker:
    """A forked process that runs cases one at a time; ``run`` returns HANG
    when a case takes over ``seconds`` by the worker's own clock, and kills
    the process when no answer comes in that time (a busy machine can keep
    the parent from waiting until the answer is there already)."""

    def __init__(self, setting: Setting, seconds: float):
        self.setting, self.seconds = setting, seconds
        self.conn, child = multiprocessing.Pipe()
        self.proc = multiprocessing.get_context("fork").Process(target=_worker, args=(child, setting), daemon=True)
        self.proc.start()
        child.close()

    def run(self, kind: str, seed: int) -> Outcome:
        self.conn.send((kind, seed))
        try:
            if self.conn.poll(self.seconds):
                outcome, took = self.conn.recv()
                if took <= self.seconds:
                    return outcome
                return Outcome(kind, seed, HANG, f"over {self.seconds:g} s ({took:.3g} s)")
        except EOFError:
            self.stop()
            return Outcome(kind, seed, UNCAUGHT, f"the worker died (exit code {self.proc.exitcode})")
        self.stop()
        return Outcome(kind, seed, HANG, f"over {self.seconds:g} s")

    def alive(self) -> bool:
        return self.proc.is_alive()

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()

    def close(self) -> None:
        if self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(self.seconds)
        self.stop()


def write_reproducer(outcome: Outcome, setting: Setting, folder: str) -> list:
    """Write the files of a case under ``folder``; their paths, the one to run or load first."""
    paths = []
    for rel, content in reproducer(outcome.kind, outcome.seed, setting).items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if isinstance(content, bytes) else "w") as fh:
            fh.write(content)
        paths.append(path)
    return paths


def warm_up() -> None:
    """Compile (or load from numba's cache) the engine's kernels in this
    process, so that no forked worker spends a case's time on them."""
    import scenes
    from . import call_cases
    run_frames(call_cases.small_world())
    run_frames(scenes.load(scenes.DEFAULT_SCENE).ctx)


def run(cases: int, seed: int = 0, kinds=("scene", "call"), game: str | None = None, on_outcome=None,
        seconds: float = HANG_SECONDS, out: str | None = None) -> list:
    """Cases seed, seed + 1, ...; each seed picks its generator in turn; each
    case runs in a worker process, cut after ``seconds`` (HANG). With ``out``,
    the reproducer of each bad case is written there (``Outcome.repro``)."""
    from . import scene_cases
    warm_up()
    outcomes = []
    with scene_cases.workspace() as root:
        setting = Setting(root, game)
        worker = Worker(setting, seconds)
        try:
            for i in range(cases):
                if not worker.alive():
                    worker = Worker(setting, seconds)
                o = worker.run(kinds[i % len(kinds)], seed + i)
                if out is not None and o.cls in BAD:
                    o.repro = write_reproducer(o, setting, out)[-1]
                outcomes.append(o)
                if on_outcome is not None:
                    on_outcome(o)
        finally:
            worker.close()
    return outcomes
