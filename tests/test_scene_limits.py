"""What a scene may ask for (scenes.limits, docs/scenes.md "Limits"), and a
fuzz of seeded mutations of the bundled scenes: every failure is a located
SceneError, never a traceback, a RecursionError, a MemoryError or a hang
(issue 15, "Scene files")."""

import os
import random
import re
import shutil
import signal

import pytest

import scenes
from scenes import SceneError, limits, plan
from scenes.source import parse_text

from scene_mutations import mutate

DOCS = os.path.join(os.path.dirname(__file__), "..", "docs", "scenes.md")


def write(tmp_path, text, name="s.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def problems(path, load=False):
    with pytest.raises(SceneError) as e:
        scenes.load(path) if load else plan(path)
    return [(w.line, w.column, m) for w, m in e.value.problems]


def one(path, load=False):
    found = problems(path, load)
    assert len(found) == 1, found
    return found[0]


# --- the YAML text ------------------------------------------------------------------

@pytest.mark.parametrize("nest", ["[" * 10000 + "]" * 10000, "{a: " * 5000 + "1" + "}" * 5000],
                         ids=["lists", "mappings"])
def test_deep_nesting_is_a_located_error_naming_the_limit(tmp_path, nest):
    line, col, msg = one(write(tmp_path, f"version: 1\nscene: {{name: {nest}}}\n"))
    assert line == 2 and "more than 64 levels (limit MAX_NESTING" in msg
    # the 65th level is refused: the document (1), scene's mapping (2), then 62 more
    if nest[0] == "[":
        assert col == len("scene: {name: ") + 62 + 1            # the 63rd bracket
    else:
        assert col == len("scene: {name: ") + 61 * 4 + 2        # the key of the 62nd mapping


def test_nesting_up_to_the_limit_is_read():
    deepest = "[" * (limits.MAX_NESTING - 1) + "]" * (limits.MAX_NESTING - 1)
    doc = parse_text(f"x: {deepest}\n", "f.yaml")            # the mapping is level 1
    depth = 0
    value = doc["x"]
    while isinstance(value, list):
        depth += 1
        value = value[0] if value else None
    assert depth == limits.MAX_NESTING - 1


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\ufffe"])
def test_a_control_character_is_located(tmp_path, char):
    line, col, msg = one(write(tmp_path, f"version: 1\nscene: {{name: ab{char}c}}\n"))
    assert (line, col) == (2, len("scene: {name: ab") + 1)
    assert f"U+{ord(char):04X} is not allowed" in msg


def bomb(levels):
    """Top-level keys a0..a{levels-1}; a{n} lists a{n-1} ten times: 10 ** levels values."""
    out = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    out += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]" for n in range(1, levels)]
    return "\n".join(out) + "\n"


def test_an_alias_bomb_is_refused_before_it_is_walked(tmp_path):
    # 10 ** 7 values after expansion, 71 distinct nodes
    line, col, msg = one(write(tmp_path, "version: 1\n" + bomb(7)))
    assert "once its aliases are expanded, more than 1000000 values (limit MAX_NODES" in msg
    # a5 is the first over the limit: 10 ** 6 strings and 111111 lists
    assert line == 1 + 6 and col == len("a5: ") + 1


def test_aliases_within_the_limit_are_expanded():
    doc = parse_text(bomb(3), "f.yaml")
    assert len(doc["a2"]) == 10 and doc["a2"][9][9] == ["x"] * 10


def test_an_alias_inside_its_own_anchor_is_located(tmp_path):
    line, col, msg = one(write(tmp_path, "version: 1\nscene: &s {name: *s}\n"))
    assert (line, col) == (2, 8) and "alias refers to the collection it is in" in msg


def test_a_file_over_the_byte_limit_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 100)
    path = write(tmp_path, "version: 1\n" + "# padding\n" * 20)
    line, col, msg = one(path)
    assert (line, col) == (1, 1) and "the file has 211 bytes, more than 100 (limit MAX_FILE_BYTES" in msg


# --- what the files make ---------------------------------------------------------------

def test_a_huge_repeat_count_is_located_at_the_count(tmp_path):
    text = "version: 1\nentities:\n  - {name: 'b{i}', repeat: {count: 1000000}}\n"
    line, col, msg = one(write(tmp_path, text))
    assert (line, col) == (3, text.split("\n")[2].index("1000000") + 1)
    assert "<= 10000" in msg and "MAX_REPEAT" in msg


def test_a_huge_grid_is_refused_by_its_product(tmp_path):
    text = "version: 1\nentities:\n  - {name: 'b{i}{j}{k}', repeat: {grid: [1000, 1000, 1000]}}\n"
    found = problems(write(tmp_path, text))
    assert all(ln == 3 for ln, _, _ in found) and any("MAX_REPEAT" in m for _, _, m in found)
    text = "version: 1\nentities:\n  - {name: 'b{i}{j}{k}', repeat: {grid: [101, 100, 1]}}\n"
    line, col, msg = one(write(tmp_path, text))
    assert "the grid makes 10100 copies, more than 10000 (limit MAX_REPEAT" in msg
    assert (line, col) == (3, text.split("\n")[2].index("[101") + 1)


def test_entities_over_the_limit_stop_the_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ENTITIES", 25)
    write(tmp_path, "version: 1\nentities:\n  - {name: 'b{i}', repeat: {count: 10}}\n", "part.yaml")
    path = write(tmp_path, "version: 1\nentities:\n  - {prefab: part.yaml, prefix: 'p{i}_', "
                           "repeat: {count: 10000}}\n")
    line, col, msg = one(path)
    # the 26th entity is the 6th copy of the third placement of part.yaml, line 3 there
    assert line == 3 and "the scene makes more than 25 entities (limit MAX_ENTITIES" in msg


def test_joints_forces_and_behaviours_share_one_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_ITEMS", 3)
    path = write(tmp_path, "version: 1\nentities:\n  - {name: a, mesh: {box: [1, 1, 1]}, physics: {}}\n"
                           "forces:\n  - {type: force, target: a, repeat: {count: 2}}\n"
                           "joints:\n  - {type: ball_joint, object: a, repeat: {count: 2}}\n")
    line, col, msg = one(path)
    # joints are read first: the two ball joints, then the second force is the fourth
    assert line == 5 and "more than 3 joints, forces and behaviours (limit MAX_ITEMS" in msg


def test_file_placements_have_a_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_PLACEMENTS", 4)
    write(tmp_path, "version: 1\n", "empty.yaml")
    path = write(tmp_path, "version: 1\nentities:\n  - {prefab: empty.yaml, prefix: 'p{i}_', repeat: {count: 100}}\n")
    line, col, msg = one(path)
    assert line == 3 and "more than 4 file placements (limit MAX_PLACEMENTS" in msg


def test_include_depth_has_a_limit(tmp_path):
    n = limits.MAX_INCLUDE_DEPTH + 2
    for i in range(n):
        nxt = f"includes: [{{file: f{i + 1}.yaml}}]\n" if i + 1 < n else ""
        write(tmp_path, f"version: 1\n{nxt}", f"f{i}.yaml")
    found = problems(str(tmp_path / "f0.yaml"))
    assert len(found) == 1
    line, col, msg = found[0]
    # f16 is placed 16 deep; f17, named on line 2 of f16, would be 17 deep
    assert line == 2 and "f17.yaml is placed 17 files deep, more than 16 (limit MAX_INCLUDE_DEPTH" in msg


# --- geometry and values ------------------------------------------------------------------

@pytest.mark.parametrize("mesh, token, limit", [
    ("{sphere: {radius: 1, segments: 1000000000}}", "1000000000", "MAX_SEGMENTS"),
    ("{cylinder: {radius: 1, height: 1, segments: 257}}", "257", "MAX_SEGMENTS"),
    ("{plane: {size: [10, 10], divisions: [301, 1]}}", "301", "MAX_DIVISIONS"),
    ("{box: [1.0e+30, 1, 1]}", "1.0e+30", "MIN_SIZE, MAX_SIZE"),
    ("{box: [1.0e-30, 1, 1]}", "1.0e-30", "MIN_SIZE, MAX_SIZE"),
    ("{sphere: {radius: 20000}}", "20000", "MIN_SIZE, MAX_SIZE"),
])
def test_mesh_parameters_have_limits(tmp_path, mesh, token, limit):
    line_text = f"  - {{name: m, mesh: {mesh}}}"
    line, col, msg = one(write(tmp_path, f"version: 1\nentities:\n{line_text}\n"))
    assert (line, col) == (3, line_text.index(token) + 1) and f"limit {limit} in docs/scenes.md" in msg


@pytest.mark.parametrize("key, value", [("position", "[0, 1.0e+308, 0]"), ("scale", "1000000"),
                                        ("rotation", "{quaternion: [1.0e+308, 0, 0, 1]}")])
def test_absurd_placements_are_refused_where_they_are_given(tmp_path, key, value):
    line_text = f"  - {{name: m, {key}: {value}}}"
    line, col, msg = one(write(tmp_path, f"version: 1\nentities:\n{line_text}\n"))
    assert line == 3 and "limit" in msg and col > line_text.index(key)


def test_a_placed_position_beyond_the_limit_names_the_entity(tmp_path):
    # each step is allowed, the third copy lands at x = 120000 m
    path = write(tmp_path, "version: 1\nentities:\n  - {name: 'b{i}', repeat: {count: 3, step: [60000, 0, 0]}}\n")
    line, col, msg = one(path)
    assert line == 3 and msg.startswith("entity 'b2': its position (120000, 0, 0) is more than 100000 m")


def test_a_mesh_larger_than_the_size_limit_after_scale_names_the_entity(tmp_path):
    path = write(tmp_path, "version: 1\nentities:\n  - {name: slab, mesh: {box: [5000, 1, 1]}, scale: [3, 1, 1]}\n")
    line, col, msg = one(path, load=True)
    assert line == 3 and "entity 'slab'" in msg and "extent after scale is 15000 m" in msg and "MAX_SIZE" in msg


def test_a_zero_area_triangle_in_a_concave_shape_names_the_entity(tmp_path):
    (tmp_path / "floor.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 0 1\nv 2 0 0\nf 1 2 3\nf 1 2 4\n")
    path = write(tmp_path, "version: 1\nentities:\n  - {name: floor, mesh: {obj: floor.obj}, "
                           "physics: {fixed: true, concave: [self]}}\n")
    line, col, msg = one(path, load=True)
    # triangle 1 has the three collinear points (0,0,0), (1,0,0), (2,0,0)
    assert line == 3 and "entity 'floor'" in msg and "triangle 1 (vertices 0, 1, 3) is degenerate" in msg


def test_a_convex_shape_may_hold_a_zero_area_triangle(tmp_path):
    (tmp_path / "rock.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 2 0 0\n"
                                       "f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\nf 1 2 5\n")
    path = write(tmp_path, "version: 1\nentities:\n  - {name: rock, mesh: {obj: rock.obj}, physics: {}}\n")
    assert scenes.load(path).body("rock") is not None


def test_a_mapping_where_a_joint_type_goes_is_located(tmp_path):
    line_text = "  - {type: {a: 1}, object: x}"
    line, col, msg = one(write(tmp_path, f"version: 1\njoints:\n{line_text}\n"))
    assert (line, col) == (3, line_text.index("{a") + 1) and "expected one of 'hinge'" in msg


def test_a_hinge_on_an_unknown_object_with_an_inline_frame_is_located(tmp_path):
    line_text = "  - {type: hinge, object: nothing, joint_referential: {position: [0, 0, 0]}}"
    line, col, msg = one(write(tmp_path, f"version: 1\njoints:\n{line_text}\n"))
    assert (line, col) == (3, line_text.index("nothing") + 1) and "object: no entity 'nothing'" in msg


def test_a_time_factor_beyond_f32_carries_the_scene_settings_place(tmp_path):
    path = write(tmp_path, "version: 1\nscene:\n  time_factor: 1.0e+300\n")
    line, col, msg = one(path, load=True)
    assert (line, col) == (3, 3) and "Physic Time Factor" in msg and "beyond the f32 range" in msg


def test_the_psi_length_has_limits(tmp_path):
    line, col, msg = one(write(tmp_path, "version: 1\nscene: {psi_length: 1e-300}\n"))
    assert line == 2 and "MIN_PSI_LENGTH" in msg


def test_every_limit_is_documented_with_its_value():
    text = open(DOCS, encoding="utf-8").read()
    section = text[text.index("## Limits"):]
    for name in (n for n in dir(limits) if n.isupper()):
        value = getattr(limits, name)
        row = re.search(rf"^\| `{name}` \| ([^|]+) \|", section, re.M)
        assert row, f"{name} is not in docs/scenes.md's Limits table"
        assert float(row.group(1).replace(",", "").replace(" MiB", "").strip()) * (
            2 ** 20 if "MiB" in row.group(1) else 1) == value, name


# --- the fuzz ------------------------------------------------------------------------

FUZZ_CASES = 500


class Hang(Exception):
    """A case ran past the hang guard: a limit is missing."""


@pytest.fixture(scope="module")
def bundled_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("bundled")
    shutil.copytree(scenes.document.BUNDLED_DIR, root, dirs_exist_ok=True)
    return str(root)


def test_mutated_bundled_scenes_fail_only_with_located_scene_errors(bundled_copy, monkeypatch):
    """Each case loads (plans and builds) one mutated file. Its work is bounded
    by the limits, lowered here so that a case that reaches one stays small;
    an alarm turns a hang into a failure naming the seed (a guard, not a timing)."""
    for name, value in (("MAX_ENTITIES", 2000), ("MAX_ITEMS", 2000), ("MAX_PLACEMENTS", 200),
                        ("MAX_NODES", 100_000)):
        monkeypatch.setattr(limits, name, value)
    names = [n for n in scenes.bundled_names() if n != "stress/floor_1000"] + ["parts/player", "lib/ballance"]

    def hang(*_):
        raise Hang()

    old = signal.signal(signal.SIGALRM, hang)
    outcomes = {"loaded": 0, "located": 0}
    try:
        for seed in range(FUZZ_CASES):
            rng = random.Random(seed)
            path = os.path.join(bundled_copy, rng.choice(names) + ".yaml")
            with open(path, encoding="utf-8") as fh:
                text = mutate(fh.read(), rng)
            mutated = path[:-5] + ".mutated.yaml"
            with open(mutated, "w", encoding="utf-8") as fh:
                fh.write(text)
            signal.alarm(60)
            try:
                scenes.load(mutated)
                outcomes["loaded"] += 1
            except SceneError as exc:
                for where, msg in exc.problems:
                    assert where is not None, (seed, msg)
                    with open(where.file, encoding="utf-8", errors="replace") as fh:
                        lines = fh.read().split("\n")
                    assert 1 <= where.line <= len(lines) and where.column >= 1, (seed, where, msg)
                outcomes["located"] += 1
            except Hang:
                pytest.fail(f"seed {seed}: loading {mutated} hung")
            finally:
                signal.alarm(0)
                os.remove(mutated)
    finally:
        signal.signal(signal.SIGALRM, old)
    # both outcomes occur: the mutations are neither all harmless nor all fatal
    assert outcomes["loaded"] > 0 and outcomes["located"] > 0
    assert sum(outcomes.values()) == FUZZ_CASES
