"""The game as a plug-in (issue 14 items 1 and 2): Ballance registers through the
``ivp.behaviors`` entry points, the generic layers read a game's camera, HUD
fields and outcome through behaviors.hooks, and the old spellings still work
with a DeprecationWarning."""

import os
import subprocess
import sys
import tomllib
import warnings

import pytest

import behaviors
from bbglue import CKContext, blocks
from behaviors import Behavior, hooks, registry
from scenes import cli
from viewer import gameplay

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_pyproject_declares_every_ballance_behaviour_as_an_entry_point():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        declared = tomllib.load(fh)["project"]["entry-points"]["ivp.behaviors"]
    ballance = {k: v for k, v in declared.items() if k.startswith("ballance.")}
    assert len(ballance) == 12
    for name, value in ballance.items():
        assert value.startswith("behaviors.ballance.")
        assert registry.lookup(name).registered_name == name


def test_a_scene_without_ballance_imports_no_ballance_code():
    code = ("import sys, scenes\n"
            "sc = scenes.load('stack')\n"
            "[sc.ctx.process_frame(1000 / 60) for _ in range(3)]\n"
            "from scenes import cli; from viewer import gameplay; from behaviors import registry\n"
            "cli._outcome(sc.ctx); gameplay.game_line(sc.ctx); gameplay.rig_camera(sc.ctx)\n"
            "assert 'ballance.level' in registry.names()\n"
            "print(sorted(m for m in sys.modules if m.startswith('behaviors.ballance')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


class Director(Behavior):
    """Offers all three hooks."""

    def camera_matrix(self):
        return [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [1.0, 2.0, 3.0, 1.0]]

    def hud_fields(self):
        return {"laps": 3, "best": None}

    def outcome(self):
        return "finished first"


def _context_with(behaviour_class):
    ctx = CKContext()
    behaviors.manager_of(ctx).attach(behaviour_class(ctx, None))
    ctx.process_frame(16.0)                # on_start: the behaviour runs
    return ctx


def test_the_viewer_and_the_cli_read_any_behaviours_hooks():
    ctx = _context_with(Director)
    assert gameplay.rig_camera(ctx)[3].tolist() == [1.0, 2.0, 3.0, 1.0]
    assert gameplay.game_line(ctx) == "laps 3"          # None values are not shown
    assert cli._outcome(ctx) == "finished first"
    assert hooks.hud_fields(ctx) == {"laps": 3, "best": None}


def test_without_hooks_there_is_no_camera_hud_or_outcome():
    ctx = _context_with(Behavior)
    assert gameplay.rig_camera(ctx) is None and gameplay.game_line(ctx) == "" and cli._outcome(ctx) == ""


def test_the_old_spellings_warn_and_still_work():
    ctx = CKContext()
    e = ctx.create_entity("b")
    with pytest.warns(DeprecationWarning, match=r"ctx.physics.physicalize.*bbglue.blocks.physicalize"):
        body = ctx.physics.physicalize(e, ball_count=1, ball_radius_1=0.5)
    assert body is ctx.physics.body_of(e) is not None
    with pytest.warns(DeprecationWarning, match="hud_fields"):
        assert behaviors.gameplay_state(ctx) is None
    with pytest.raises(AttributeError, match="no attribute 'no_such_call'"):
        ctx.physics.no_such_call


def test_the_new_scripting_calls_do_not_warn():
    ctx = CKContext()
    a, b = ctx.create_entity("a"), ctx.create_entity("b", position=(0.0, 3.0, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for e in (a, b):
            blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=0.5)
        spring = blocks.spring(ctx, a, object2=b)
        assert spring.handle is not None
        assert blocks.reset_bodies(ctx, {a: a.get_world_matrix()}) == [a]
