"""Scene cases: one file of the bundled scenes (a runnable scene, or a part or
library some scene includes) mutated, by tests/scene_mutations.py or by giving
an entity physics; the mutated copy is written beside the original as
``<name>__fz<seed>.yaml`` (with a copy of an including scene that includes it),
loaded under the real scene limits, then run for FRAMES frames."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from contextlib import contextmanager

import yaml

import scenes
from ivp import rng as ivp_rng
from scenes import SceneError
from tests.scene_mutations import mutate

from . import BAD, LOCATED, UNCAUGHT, UNLOCATED, Outcome, describe, run_frames

PHYSICS = [True, {"friction": 0.0}, {"elasticity": 1.0, "friction": 0.0}, {"mass": 1e-3}, {"mass": 1e4},
           {"mass": 0.1, "friction": 0.0, "linear_speed_dampening": 0.0, "rot_speed_dampening": 0.0}]
MESHES = [{"cylinder": {"radius": 1, "height": 1, "segments": 3}}, {"box": [0.01, 0.01, 0.01]},
          {"box": [40, 0.2, 40]}]


def files() -> list:
    """Every file a case may mutate: the runnable scenes, then the parts and
    libraries (paths relative to the bundled folder, without .yaml)."""
    runnable = scenes.bundled_names()
    included = sorted(os.path.relpath(os.path.join(d, f), scenes.BUNDLED_DIR)[:-5]
                      for d, _, fs in os.walk(scenes.BUNDLED_DIR) for f in fs
                      if f.endswith(".yaml") and os.path.basename(d) in ("parts", "lib"))
    return runnable + included


@contextmanager
def workspace():
    """A copy of the bundled scenes to mutate in."""
    root = tempfile.mkdtemp(prefix="ivp-fuzz-")
    try:
        shutil.copytree(scenes.BUNDLED_DIR, root, dirs_exist_ok=True)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def give_physics(text: str, rnd: random.Random) -> str:
    """An entity of the file (any: a ball piece, a fan, a reset point) made
    physical, sometimes with a small or flat mesh."""
    doc = yaml.safe_load(text)
    ents = [e for e in doc.get("entities") or [] if isinstance(e, dict)]
    if not ents:
        return mutate(text, rnd)
    ent = rnd.choice(ents)
    ent["physics"] = rnd.choice(PHYSICS)
    if rnd.random() < 0.3:
        ent["mesh"] = rnd.choice(MESHES)
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=None)


def case_files(seed: int, root: str) -> tuple:
    """({path relative to root: text} of the case's new files, the scene to load)."""
    rnd = random.Random(seed)
    runnable = scenes.bundled_names()
    target = rnd.choice(files())
    with open(os.path.join(root, target + ".yaml"), encoding="utf-8") as fh:
        text = fh.read()
    text = give_physics(text, rnd) if rnd.random() < 1 / 3 else mutate(text, rnd)
    mutated = f"{target}__fz{seed}"
    out = {mutated + ".yaml": text}
    if target in runnable:
        return out, mutated
    base = os.path.basename(target) + ".yaml"
    includers = []
    for name in runnable:
        with open(os.path.join(root, name + ".yaml"), encoding="utf-8") as fh:
            if base in fh.read():
                includers.append(name)
    scene = rnd.choice(includers)
    with open(os.path.join(root, scene + ".yaml"), encoding="utf-8") as fh:
        out[f"{scene}__fz{seed}.yaml"] = fh.read().replace(base, os.path.basename(mutated) + ".yaml")
    return out, f"{scene}__fz{seed}"


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


def reproducer(seed: int, setting) -> dict:
    """The mutated files, to lay over a copy of the bundled scenes (as ../shared/repro/scenes)."""
    return {os.path.join("scenes", rel): text for rel, text in case_files(seed, setting.root)[0].items()}


def run_case(seed: int, setting) -> Outcome:
    new, scene = case_files(seed, setting.root)
    for rel, text in new.items():
        with open(os.path.join(setting.root, rel), "w", encoding="utf-8") as fh:
            fh.write(text)
    ivp_rng.reset()
    try:
        try:
            loaded = scenes.load(os.path.join(setting.root, scene + ".yaml"))
        except SceneError as exc:
            cls, detail = located(exc)
            return Outcome("scene", seed, cls, f"{scene}: {detail}" if detail else "")
        cls, detail = run_frames(loaded.ctx)
        return Outcome("scene", seed, cls, f"{scene}: {detail}" if cls in BAD else "")
    except Exception as exc:            # noqa: BLE001 - the harness classifies every exception
        return Outcome("scene", seed, UNCAUGHT, f"{scene}: {describe(exc)}")
    finally:
        for rel in new:
            os.remove(os.path.join(setting.root, rel))
