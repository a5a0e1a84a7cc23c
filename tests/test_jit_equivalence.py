"""The compiled kernels (ivp.jit) and the same functions run as plain Python
(IVP_JIT=0) give bit-identical worlds: a few scenes run both ways, with a hash
of every core's state compared at every PSI (issue 11)."""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from ivp import Material, create_hinge, jit

from test_collision_scenes import ball, box, floor

ROOT = Path(__file__).resolve().parent.parent
PSIS = 60


def scene_box_drop(env):
    floor(env)
    b = box(env, (0.3, 1.2, -0.2), name="tumbler", material=Material(0.7, 0.3))
    b.core.rot_speed = (2.0, 0.5, -1.0)
    box(env, (0.0, 3.0, 0.1), name="second", material=Material(0.7, 0.3))


def scene_ball_roll(env):
    floor(env, n=8, size=40.0)
    b = ball(env, (0.0, 2.05, 0.0), radius=2.0)
    b.core.speed = (3.0, 0.0, 1.0)


def scene_ball_heap(env):
    floor(env, n=4, size=20.0)
    for i in range(6):
        ball(env, ((i % 3) * 1.1 - 1.1, 0.6 + 1.1 * (i // 3), (i % 2) * 0.2), radius=0.5, name=f"b{i}")


def scene_hinged_planks(env):
    floor(env)
    a = box(env, (0.0, 1.0, 0.0), size=(2.0, 0.2, 1.0), name="plank_a")
    b = box(env, (2.0, 1.0, 0.0), size=(2.0, 0.2, 1.0), name="plank_b")
    create_hinge(env, b, a, (1.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    ball(env, (2.0, 2.0, 0.0), radius=0.5)


SCENES = {f.__name__: f for f in (scene_box_drop, scene_ball_roll, scene_ball_heap, scene_hinged_planks)}


def state_hashes(name: str) -> list:
    """The hash of every core's pose and speeds after each of PSIS PSIs."""
    from ivp import Environment
    env = Environment(gravity=(0.0, -20.0, 0.0))
    SCENES[name](env)
    for obj in env.objects:
        if not obj.core.physical_unmoveable:
            obj.wake()
    out = []
    for _ in range(PSIS):
        env.simulate(env.delta_PSI_time)
        h = hashlib.sha256()
        for obj in env.objects:
            c = obj.core
            h.update(struct.pack("<3d4d3d3d", *c.pos_world_f_core_last_psi, *c.q_world_f_core_last_psi,
                                 *c.speed, *c.rot_speed))
        out.append(h.hexdigest()[:16])
    return out


@pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: only the plain Python path exists")
@pytest.mark.parametrize("name", sorted(SCENES))
def test_compiled_and_plain_python_kernels_give_the_same_world(name):
    compiled = state_hashes(name)
    code = ("import sys; sys.path.insert(0, 'tests'); import test_jit_equivalence as t; "
            f"print(' '.join(t.state_hashes({name!r})))")
    env = dict(os.environ, IVP_JIT="0")
    plain = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    assert len(plain) == PSIS
    first = next((k for k, (a, b) in enumerate(zip(compiled, plain)) if a != b), None)
    assert first is None, f"{name}: the worlds differ from PSI {first}"
    assert len(set(compiled)) > 1, "the scene must move"


def test_plain_python_path_is_what_runs_without_numba():
    code = "import ivp.jit as j; print(j.ENABLED, j.numba)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ, IVP_JIT="0"),
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "None"]
