"""Scene cases: a bundled scene file (or a part it includes) mutated by
tests/scene_mutations.py, loaded, then run for FRAMES frames."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from contextlib import contextmanager

import scenes
from ivp import rng as ivp_rng
from scenes import SceneError, limits
from tests.scene_mutations import mutate

from . import BAD, HANG, LOCATED, UNCAUGHT, UNLOCATED, Hang, Outcome, describe, hang_guard, run_frames

# the scene limits during a case (tests/test_scene_limits.py lowers the same ones)
LOWERED = {"MAX_ENTITIES": 2000, "MAX_ITEMS": 2000, "MAX_PLACEMENTS": 200, "MAX_NODES": 100_000}
SKIPPED = ("stress/floor_1000",)          # 1000 bodies: a case of seconds even unmutated


def names() -> list:
    return [n for n in scenes.bundled_names() if n not in SKIPPED] + ["parts/player", "lib/ballance"]


@contextmanager
def workspace():
    """A copy of the bundled scenes to mutate in, with the lowered limits."""
    saved = {k: getattr(limits, k) for k in LOWERED}
    root = tempfile.mkdtemp(prefix="ivp-fuzz-")
    try:
        shutil.copytree(scenes.document.BUNDLED_DIR, root, dirs_exist_ok=True)
        for k, v in LOWERED.items():
            setattr(limits, k, v)
        yield root
    finally:
        for k, v in saved.items():
            setattr(limits, k, v)
        shutil.rmtree(root, ignore_errors=True)


def located(exc: SceneError) -> tuple:
    """LOCATED when every problem names a line and column that exist, else UNLOCATED."""
    for where, msg in exc.problems:
        if where is None:
            return UNLOCATED, f"no place: {msg[:160]}"
        try:
            with open(where.file, encoding="utf-8", errors="replace") as fh:
                n = len(fh.read().split("\n"))
        except OSError:
            return UNLOCATED, f"{where}: no such file: {msg[:160]}"
        if not (1 <= where.line <= n and where.column >= 1):
            return UNLOCATED, f"{where}: not a place in the file ({n} lines): {msg[:160]}"
    return LOCATED, ""


def run_case(seed: int, root: str) -> Outcome:
    rnd = random.Random(seed)
    path = os.path.join(root, rnd.choice(names()) + ".yaml")
    with open(path, encoding="utf-8") as fh:
        text = mutate(fh.read(), rnd)
    mutated = path[:-5] + f".mutated{seed}.yaml"
    with open(mutated, "w", encoding="utf-8") as fh:
        fh.write(text)
    ivp_rng.reset()
    label = os.path.relpath(path, root)
    try:
        with hang_guard():
            try:
                scene = scenes.load(mutated)
            except SceneError as exc:
                cls, detail = located(exc)
                return Outcome("scene", seed, cls, f"{label}: {detail}" if detail else "")
            cls, detail = run_frames(scene.ctx)
            return Outcome("scene", seed, cls, f"{label}: {detail}" if cls in BAD else "")
    except Hang:
        return Outcome("scene", seed, HANG, label)
    except Exception as exc:            # noqa: BLE001 - the harness classifies every exception
        return Outcome("scene", seed, UNCAUGHT, f"{label}: {describe(exc)}")
    finally:
        os.remove(mutated)
