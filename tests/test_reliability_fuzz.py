"""A fixed-seed handful of the fuzz harness (tests/fuzz; issues 15 and 41.7):
no case is uncaught, unlocated, hung or NaN; the harness's classifiers see
each bad outcome when there is one; a case over its time is a hang, its
worker is replaced and its reproducer written; a level mutation reaches
the reader's decoders."""

import math
import os
import random

import scenes
from scenes.source import SceneError, Where
from scenes.virtools import reader, writer
from tests import fuzz
from tests.fuzz import call_cases, level_cases, scene_cases
from virtools_levels import two_sector_level

SAMPLE = 6                      # cases, half mutated scenes, half bad calls


def test_a_fixed_seed_sample_has_no_bad_outcome():
    outcomes = fuzz.run(SAMPLE, seed=0)
    bad = [(o.seed, o.kind, o.cls, o.detail) for o in outcomes if o.cls in fuzz.BAD]
    assert bad == []
    assert [o.kind for o in outcomes] == ["scene", "call"] * (SAMPLE // 2)
    assert {o.cls for o in outcomes} == {fuzz.CLEAN, fuzz.LOCATED}


def test_the_same_seed_gives_the_same_outcome():
    with scene_cases.workspace() as root:
        setting = fuzz.Setting(root)
        first = [fuzz.run_case(k, s, setting) for k in ("scene", "call") for s in range(2)]
        again = [fuzz.run_case(k, s, setting) for k in ("scene", "call") for s in range(2)]
        assert os.listdir(root) == os.listdir(scenes.BUNDLED_DIR)    # a case leaves no file behind
    assert first == again


def test_a_case_over_its_time_is_a_hang_with_a_reproducer(tmp_path):
    outcomes = fuzz.run(2, seed=5, seconds=1e-3, out=str(tmp_path))     # no case ends in 1 ms
    assert [(o.kind, o.cls) for o in outcomes] == [("scene", fuzz.HANG), ("call", fuzz.HANG)]
    scene, call = (o.repro for o in outcomes)
    assert scene.startswith(str(tmp_path / "scenes")) and scene.endswith("__fz5.yaml") and os.path.isfile(scene)
    assert open(call).read().endswith("print(call_cases.run_case(6))\n")
    assert open(call).read().startswith("# call case 6 (")


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


def test_physics_is_given_to_an_entity():
    text = "version: 1\nentities:\n  - {name: piece, mesh: {box: [1, 1, 1]}}\n"
    assert "physics:" in scene_cases.give_physics(text, random.Random(0))


def test_a_level_field_mutation_reaches_the_decoders():
    raw = writer.write_bytes(two_sector_level().objects, compressed=True)
    read, refused = 0, 0
    for seed in range(40):
        mutated = level_cases.field_mutation(raw, random.Random(seed))
        assert mutated != raw
        try:
            reader.read_bytes(mutated, "lvl.nmo")
            read += 1
        except reader.VirtoolsError as exc:
            assert "lvl.nmo" in str(exc) and "zlib" not in str(exc)
            refused += 1
    assert read and refused
