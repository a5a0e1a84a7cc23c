"""The reliability fuzz harness (issue 15, "How it proves itself").

Two generators of cases, each case one seed:

- ``scene_cases``: a bundled scene mutated by ``tests/scene_mutations.py``,
  loaded and run for a few frames;
- ``call_cases``: one bad call (hostile numbers, wrong kinds) into a building
  block, the glue's physics manager or the engine, on a small world that then
  runs a few frames.

Each outcome is one of the classes below. ``run_case`` classifies one case,
``run`` many; ``python -m tests.fuzz --cases 20000`` prints the counts per
class. A small fixed-seed sample runs in the test suite
(tests/test_reliability_fuzz.py).

The scene limits are lowered during a case (MAX_ENTITIES and the like, as
tests/test_scene_limits.py does), so that a file that asks for the most a
limit allows stays small; the limits themselves are tested where they are
defined. A case runs under a SIGALRM guard of HANG_SECONDS.
"""

from __future__ import annotations

import signal
from collections import Counter
from contextlib import contextmanager
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
FRAMES = 15                      # frames of 1/60 s each case runs once loaded
FRAME_MS = 1000.0 / 60.0


@dataclass
class Outcome:
    kind: str                   # "scene" or "call"
    seed: int
    cls: str
    detail: str = ""            # what happened, for the bad classes


class Hang(BaseException):
    """A case ran past HANG_SECONDS (a BaseException, so no handler under test keeps it)."""


@contextmanager
def hang_guard(seconds: float = HANG_SECONDS):
    def expired(_signum, _frame):
        raise Hang()

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


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


def run(cases: int, seed: int = 0, kinds=("scene", "call"), on_outcome=None) -> list:
    """Cases seed, seed + 1, ...; each seed picks its generator in turn."""
    from . import call_cases, scene_cases
    generators = {"scene": scene_cases.run_case, "call": call_cases.run_case}
    out = []
    with scene_cases.workspace() as ws:
        for i in range(cases):
            kind = kinds[i % len(kinds)]
            o = generators[kind](seed + i, ws)
            out.append(o)
            if on_outcome is not None:
                on_outcome(o)
    return out
