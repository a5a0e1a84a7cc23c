"""Snapshots (issue 15): flat copies at any depth of linking, whole-game snapshot
files restored in a new process and running on to the bit like the uninterrupted
run, and the refusals of what a snapshot cannot hold."""

import json
import os
import subprocess
import sys

import pytest

import scenes
from bbglue import CKContext, snapshot
from behaviors.recording import Recording, run_frame
from ivp import BallTemplate, Environment, rng
from ivp.snapshot import SnapshotError, build, deep_copy, flatten, state_hash

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "scenes", "bundled", "sample_level_demo.jsonl")
FRAME_MS = 1000.0 / 60.0

# scene, frames before the snapshot, frames compared after it (every frame's
# full-state hash). The issue asks for 300 compared frames; ph08 compares them.
# The whole-state hash costs 10 to 500 ms a frame, and the slower scenes take
# 30 to 400 ms a frame to simulate, so those compare fewer frames to keep the
# test near a minute and a half (measured: 3 minutes with 150 / 100 / 60 / 20
# frames on a shared 2-core machine). The sample level (with its demo input)
# runs past frame 301 and ph08 past frame 241, where restored copies used to
# diverge (the registry keyed by id(entity), issue 15).
CASES = [
    ("sample_level", 200, 110),
    ("modules/ph08_swing", 180, 300),
    ("stack", 60, 60),
    ("modules/ph29_plank_bridge", 60, 60),
    ("modules/ph03_spring_lift", 20, 30),
    ("stress/bowl_100", 15, 15),
]


def frame(ctx, recording, i: int) -> None:
    """Frame i of a run: the demo input for the sample level, else 60 Hz frames."""
    if recording is not None and i < len(recording.frames):
        run_frame(ctx, recording.frames[i])
    else:
        ctx.process_frame(FRAME_MS)


def recording_for(scene: str):
    return Recording.load(DEMO) if scene == "sample_level" else None


def hashes_after(ctx, recording, first: int, count: int) -> list:
    out = []
    for i in range(first, first + count):
        frame(ctx, recording, i)
        out.append(snapshot.game_hash(ctx))
    return out


def restored_run(path: str, scene: str, first: int, count: int) -> None:
    """In the new process: load the snapshot, run on, print one hash a line."""
    ctx = snapshot.load(path)
    print("\n".join(hashes_after(ctx, recording_for(scene), first, count)))


CHILD = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import test_snapshot_restore as t; "
         "t.restored_run(sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))")


@pytest.mark.parametrize("scene,before,compared", CASES)
def test_whole_game_snapshot_restored_in_a_new_process_runs_on_identically(tmp_path, scene, before, compared):
    recording = recording_for(scene)
    ctx = scenes.load(scene).ctx
    for i in range(before):
        frame(ctx, recording, i)
    path = str(tmp_path / "game.snapshot")
    snapshot.save(ctx, path)
    child = subprocess.Popen([sys.executable, "-c", CHILD, ROOT, os.path.join(ROOT, "tests"), path, scene,
                              str(before), str(compared)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)
    expected = hashes_after(ctx, recording, before, compared)
    out, err = child.communicate()
    assert child.returncode == 0, err
    got = out.split()
    assert len(got) == compared
    first_bad = next((before + k + 1 for k, (a, b) in enumerate(zip(expected, got)) if a != b), None)
    assert first_bad is None, f"{scene}: the restored game diverges at frame {first_bad}"
    assert len(set(expected)) > 1          # the state did move: the hashes can tell frames apart


def test_an_in_process_copy_of_a_level_runs_on_identically():
    """The autopilot's rollback: an in-process table (atom lists and dicts in one
    record) and the RNG seed, built and run on, gives the original's hashes."""
    recording = recording_for("sample_level")
    ctx = scenes.load("sample_level").ctx
    for i in range(200):
        frame(ctx, recording, i)
    table, seed = flatten(ctx), rng.get_seed()
    assert {"L", "D"} <= {r[0] for r in table}
    expected = hashes_after(ctx, recording, 200, 60)
    rng.set_seed(seed)
    got = hashes_after(build(table), recording, 200, 60)
    assert got == expected and len(set(expected)) > 1


def test_the_registry_finds_bodies_in_a_restored_copy():
    ctx = scenes.load("modules/ph08_swing").ctx
    copy = deep_copy(ctx)
    for e in copy.entities:
        if ctx.physics.is_physicalized(ctx.get(e.name)):
            assert copy.physics.body_of(e) is not None
            assert copy.physics.body_of(e).client_data is e


# --- flat copies ------------------------------------------------------------------------


class Link:
    def __init__(self, nxt):
        self.next = nxt
        self.value = 0.1


def test_a_chain_of_ten_thousand_links_copies_without_recursion():
    head = None
    for _ in range(10_000):
        head = Link(head)
    copy = deep_copy(head)
    n, a, b = 0, head, copy
    while a is not None:
        assert b is not a and b.value == a.value
        a, b, n = a.next, b.next, n + 1
    assert n == 10_000 and b is None


def test_shared_objects_and_cycles_stay_shared():
    a = Link(None)
    a.next = a
    pair = (a, [a])
    copy = deep_copy({"x": pair, "y": pair, "s": {1, 2}, "f": frozenset({a})})
    p = copy["x"]
    assert copy["y"] is p and p[0].next is p[0] and p[1][0] is p[0]
    assert copy["s"] == {1, 2} and next(iter(copy["f"])) is p[0]
    assert p[0] is not a


def test_a_list_of_atoms_is_one_record_and_copies_as_a_new_list():
    shared = [(0.1, 2, "x"), (3.5, None, True)]
    grid = {"faces": shared, "again": shared, "ints": [1, 2, 3], "empty": [],
            "mixed": [1, (2.0, 3)], "deep": [((1, 2),)], "objs": [Link(None)]}
    table = flatten(grid)
    atom_lists = [r for r in table if r[0] == "L"]
    assert sorted(len(r[1]) for r in atom_lists) == [0, 2, 2, 3]     # faces (once), ints, empty, mixed
    copy = build(table)
    assert all(copy[k] == grid[k] for k in grid if k != "objs")
    assert copy["objs"][0] is not grid["objs"][0] and copy["objs"][0].value == 0.1
    assert copy["faces"] is copy["again"] and copy["faces"] is not shared
    assert state_hash(copy) == state_hash(grid)
    copy["ints"].append(4)
    assert grid["ints"] == [1, 2, 3]
    assert all(r[0] != "L" for r in flatten(grid, portable=True))   # a file keeps its format


def test_a_dict_with_atom_keys_keeps_its_order_and_its_links():
    link = Link(None)
    cells = {(2, 0, 1): [5, 6], (0, 0, 0): link, "name": "grid", 7: 0.25, (1,): link}
    table = flatten({"cells": cells, "link": link})
    assert sum(r[0] == "D" for r in table) == 3     # the outer dict, cells, the Link's __dict__
    copy = build(table)
    got = copy["cells"]
    assert list(got) == list(cells) and got[(2, 0, 1)] == [5, 6] and got[7] == 0.25
    assert got[(0, 0, 0)] is copy["link"] and got[(1,)] is copy["link"] and copy["link"] is not link
    assert state_hash(copy) == state_hash({"cells": cells, "link": link})
    assert all(r[0] != "D" for r in flatten(cells, portable=True))


def test_bowl_of_100_snapshots_and_restores_exactly():
    ctx = scenes.load("stress/bowl_100").ctx
    for _ in range(10):                 # copy.deepcopy raised RecursionError here
        ctx.process_frame(FRAME_MS)
    env = ctx.physics.env
    snap = env.snapshot()
    for _ in range(4):
        env.simulate(env.delta_PSI_time)
    expected = state_hash(env)
    restored = snap.restore()
    for _ in range(4):
        restored.simulate(restored.delta_PSI_time)
    assert state_hash(restored) == expected


def test_state_hash_tells_a_one_bit_change():
    env = Environment()
    ball = env.create_ball(BallTemplate(name="b", radius=1.0), (0.0, 1.0, 0.0))
    h = state_hash(env)
    x = ball.core.speed[0]
    ball.core.speed = (float.fromhex("0x1p-1074") + x, 0.0, 0.0)      # the smallest change there is
    assert state_hash(env) != h


# --- snapshot files ----------------------------------------------------------------------------


def test_a_file_names_classes_and_holds_plain_data(tmp_path):
    ctx = CKContext()
    ctx.create_entity("Cube", position=(1.0, 2.0, 3.0))
    path = tmp_path / "s.snapshot"
    snapshot.save(ctx, path)
    doc = json.loads(path.read_text())
    assert doc["format"] == snapshot.FORMAT and doc["version"] == snapshot.VERSION
    assert doc["records"][0][:2] == ["o", "bbglue.context:CKContext"]
    back = snapshot.load(path)
    assert back.get("Cube").get_position() == ctx.get("Cube").get_position()


def test_a_lambda_is_refused_with_its_path(tmp_path):
    ctx = CKContext()
    ctx.add_behavior(lambda c: None, name="anonymous")
    with pytest.raises(SnapshotError, match=r"_behaviors.*lambda"):
        snapshot.save(ctx, tmp_path / "s.snapshot")


def test_another_version_or_format_is_refused(tmp_path):
    path = tmp_path / "s.snapshot"
    snapshot.save(CKContext(), path)
    doc = json.loads(path.read_text())
    doc["version"] = snapshot.VERSION + 1
    path.write_text(json.dumps(doc))
    with pytest.raises(SnapshotError, match="version"):
        snapshot.load(path)
    path.write_text("[1, 2]")
    with pytest.raises(SnapshotError, match="not an ivp-ballance-snapshot file"):
        snapshot.load(path)


def test_a_class_outside_the_allowed_packages_is_refused(tmp_path):
    path = tmp_path / "s.snapshot"
    snapshot.save(CKContext(), path)
    doc = json.loads(path.read_text())
    doc["records"][0][1] = "os:system"
    path.write_text(json.dumps(doc))
    with pytest.raises(SnapshotError, match="'os:system' is outside the allowed packages"):
        snapshot.load(path)


def test_rng_seed_comes_back(tmp_path):
    path = tmp_path / "s.snapshot"
    rng.set_seed(12345)
    snapshot.save(CKContext(), path)
    rng.set_seed(1)
    snapshot.load(path)
    assert rng.get_seed() == 12345


def test_flatten_refuses_a_closure_in_portable_mode_only():
    def local():
        return 1
    assert flatten([local])[1] == ("g", local)
    with pytest.raises(SnapshotError, match=r"root\[0\]"):
        flatten([local], portable=True)
