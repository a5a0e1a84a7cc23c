"""A fixed-seed sample of the fuzz harness (tests/fuzz; issue 15, "How it proves
itself"): no case of the sample is uncaught, unlocated, hung or NaN; and the
harness's classifiers see each bad outcome when there is one."""

import math

import pytest

from scenes.source import SceneError, Where
from tests import fuzz
from tests.fuzz import call_cases, scene_cases

SAMPLE = 300                      # cases, half mutated scenes, half bad calls


def test_a_fixed_seed_sample_has_no_bad_outcome():
    outcomes = fuzz.run(SAMPLE, seed=0)
    counts = fuzz.tally(outcomes)
    bad = [(o.seed, o.kind, o.cls, o.detail) for o in outcomes if o.cls in fuzz.BAD]
    assert bad == []
    assert sum(counts.values()) == SAMPLE
    for kind in ("scene", "call"):      # both generators both run clean and get refused
        classes = {o.cls for o in outcomes if o.kind == kind}
        assert {fuzz.CLEAN, fuzz.LOCATED} <= classes, (kind, classes)


def test_the_same_seed_gives_the_same_outcome():
    with scene_cases.workspace() as root:
        first = [scene_cases.run_case(s, root) for s in range(5)] + [call_cases.run_case(s) for s in range(5)]
        again = [scene_cases.run_case(s, root) for s in range(5)] + [call_cases.run_case(s) for s in range(5)]
    assert first == again


def test_a_nan_body_or_entity_is_seen():
    ctx = call_cases.small_world()
    assert fuzz.finite_world(ctx)
    body = ctx.physics.body_of(ctx.get("keeper"))
    body.core.speed = (math.nan, 0.0, 0.0)
    assert not fuzz.finite_world(ctx)


def test_a_problem_without_a_real_place_is_unlocated(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("version: 1\n")
    assert scene_cases.located(SceneError([(Where(str(f), 1, 1), "bad")]))[0] == fuzz.LOCATED
    assert scene_cases.located(SceneError([(None, "bad")]))[0] == fuzz.UNLOCATED
    assert scene_cases.located(SceneError([(Where(str(f), 7, 1), "bad")]))[0] == fuzz.UNLOCATED


def test_a_hang_is_cut_by_the_guard():
    with pytest.raises(fuzz.Hang):
        with fuzz.hang_guard(0.2):
            while True:
                pass
