"""The scene format without the glue: located errors, did-you-mean, safe loading,
classes and presets, materials, repeats, prefabs and includes (scenes.document)."""

import math
import textwrap

import pytest

from scenes import SceneError, plan
from scenes import pose

HEADER = "version: 1\n"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def problems(path):
    with pytest.raises(SceneError) as e:
        plan(path)
    return [(w.line, w.column, m) for w, m in e.value.problems]


def col(line: str, token: str) -> int:
    """The 1-based column where ``token`` starts in a line of the file."""
    return line.index(token) + 1


def one_problem(tmp_path, text):
    found = problems(write(tmp_path, "s.yaml", text))
    assert len(found) == 1, found
    return found[0]


# --- located errors -------------------------------------------------------------------

def test_unknown_key_is_located_with_did_you_mean(tmp_path):
    line, col, msg = one_problem(tmp_path, """\
        version: 1
        entities:
          - name: ball
            mesh: {sphere: {radius: 2}}
            physics: {mass: 1, frction: 0.5}
        """)
    assert (line, col) == (5, 24)
    assert "unknown key 'frction'" in msg and "did you mean 'friction'?" in msg


def test_error_text_reads_file_line_column(tmp_path):
    path = write(tmp_path, "s.yaml", "version: 1\nscene: {gravty: [0, -20, 0]}\n")
    with pytest.raises(SceneError) as e:
        plan(path)
    assert str(e.value).startswith(f"{path}:2:9: unknown key 'gravty'")
    assert isinstance(e.value, ValueError)


def test_wrong_type_says_what_was_expected(tmp_path):
    line, col, msg = one_problem(tmp_path, """\
        version: 1
        entities:
          - name: box
            mesh: {box: [1, 1]}
        """)
    assert (line, col) == (4, 17)
    assert "expected a list of 3" in msg and "got a list of 2" in msg


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_nan_and_infinity_are_refused(tmp_path, value):
    _, _, msg = one_problem(tmp_path, f"version: 1\nscene: {{gravity: [0, {value}, 0]}}\n")
    assert "NaN and infinity are not allowed" in msg


def test_zero_mass_is_refused(tmp_path):
    line, col_, msg = one_problem(tmp_path, """\
        version: 1
        entities:
          - {name: b, mesh: {box: [1, 1, 1]}, physics: {mass: 0}}
        """)
    assert (line, col_) == (3, col("  - {name: b, mesh: {box: [1, 1, 1]}, physics: {mass: 0}}", "0}"))
    assert "expected a number > 0 (kg), got 0" in msg


def test_every_problem_is_listed_not_only_the_first(tmp_path):
    found = problems(write(tmp_path, "s.yaml", """\
        version: 1
        scene: {time_factor: -1, lenght: 3}
        materials:
          wood: {friction: 0.8}
        """))
    settings = "scene: {time_factor: -1, lenght: 3}"
    assert [(n, c) for n, c, _ in found] == [(2, col(settings, "-1")), (2, col(settings, "lenght")), (4, 9)]
    assert "did you mean 'length'?" in found[1][2]
    assert "needs the key 'elasticity'" in found[2][2]


def test_unknown_mesh_kind_and_joint_type_suggest(tmp_path):
    found = problems(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: b, mesh: {spere: {radius: 2}}}
        joints:
          - {type: hinj, object: b}
        """))
    assert "did you mean 'sphere'?" in found[0][2]
    assert found[1][:2] == (5, col("  - {type: hinj, object: b}", "hinj")) and "did you mean 'hinge'?" in found[1][2]


def test_version_is_required_and_checked(tmp_path):
    assert "needs the key 'version'" in one_problem(tmp_path, "entities: []\n")[2]
    assert "expected 1, got 2" in one_problem(tmp_path, "version: 2\n")[2]


def test_units_and_axes_accept_only_the_stated_ones(tmp_path):
    line, col, msg = one_problem(tmp_path, "version: 1\nunits: {length: cm}\n")
    assert (line, col) == (2, 17) and "expected one of 'm'" in msg
    assert "expected one of 'left'" in one_problem(tmp_path, "version: 1\naxes: {handedness: right}\n")[2]


def test_yaml_syntax_error_is_located(tmp_path):
    line, _, msg = one_problem(tmp_path, "version: 1\nentities: [\n  {name: a\n")
    assert line >= 3 and msg.startswith("YAML:")


def test_key_given_twice_is_an_error(tmp_path):
    line, col, msg = one_problem(tmp_path, "version: 1\nscene: {length: 2, length: 3}\n")
    assert (line, col) == (2, 20) and "given twice" in msg


def test_python_tags_are_not_constructed(tmp_path):
    """Safe loading: a python/object tag is a located YAML error, never code."""
    _, _, msg = one_problem(tmp_path, "version: 1\nscene: !!python/object/apply:os.system ['true']\n")
    assert msg.startswith("YAML:") and "python/object/apply" in msg


def test_yes_as_a_key_explains_the_yaml_boolean(tmp_path):
    _, _, msg = one_problem(tmp_path, "version: 1\nscene: {yes: 1}\n")
    assert "a key must be a text" in msg


def test_unknown_entity_reference_suggests(tmp_path):
    line, col_, msg = one_problem(tmp_path, """\
        version: 1
        entities:
          - {name: ball, mesh: {sphere: {radius: 2}}, physics: {}}
        forces:
          - {type: force, target: bal}
        """)
    assert (line, col_) == (5, col("  - {type: force, target: bal}", "bal}"))
    assert "no entity 'bal' (did you mean 'ball'?)" in msg


def test_duplicate_entity_names_and_parent_loops(tmp_path):
    found = problems(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: a, parent: b}
          - {name: b, parent: a}
          - {name: a}
        """))
    texts = " | ".join(m for _, _, m in found)
    assert "'a' is defined twice (first at" in texts
    assert "parents form a loop" in texts


def test_physics_needs_a_shape(tmp_path):
    _, _, msg = one_problem(tmp_path, "version: 1\nentities:\n  - {name: f, physics: true}\n")
    assert "physics needs a shape" in msg


# --- values ---------------------------------------------------------------------------

def test_physicalize_pin_defaults(tmp_path):
    """Glue-and-content 2: every pin's default, convex 1 = the entity's own mesh."""
    p = plan(write(tmp_path, "s.yaml", "version: 1\nentities:\n  - {name: b, mesh: {box: [1, 2, 3]}, physics: {}}\n"))
    ph = p.entity("b").physics
    assert {k: ph[k] for k in ("fixed", "friction", "elasticity", "mass", "collision_group", "start_frozen",
                               "enable_collision", "automatic_calculate_mass_center",
                               "linear_speed_dampening", "rot_speed_dampening", "shift_mass_center")} == {
        "fixed": False, "friction": 0.7, "elasticity": 0.4, "mass": 1.0, "collision_group": "",
        "start_frozen": False, "enable_collision": True, "automatic_calculate_mass_center": True,
        "linear_speed_dampening": 0.1, "rot_speed_dampening": 0.1, "shift_mass_center": (0.0, 0.0, 0.0)}
    assert ph["convex"] == [p.entity("b").mesh] and ph["balls"] == [] and ph["concave"] == []


def test_scene_setting_defaults_are_set_physics_globals(tmp_path):
    s = plan(write(tmp_path, "s.yaml", HEADER)).settings
    assert s["gravity"] == (0.0, -9.81, 0.0) and s["time_factor"] == 1.0
    assert s["psi_length"] == pytest.approx(1 / 66)


def test_given_shape_lists_replace_the_default_convex(tmp_path):
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: b, mesh: {sphere: {radius: 2}}, physics: {balls: [{radius: 2}]}}
        """))
    ph = p.entity("b").physics
    assert ph["convex"] == [] and ph["balls"] == [((0.0, 0.0, 0.0), 2.0)]


def test_explicit_value_beats_class_beats_preset(tmp_path):
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        materials:
          ice: {friction: 0.05, elasticity: 0.1}
        group_presets:
          Props: {color: "#ff0000", physics: {mass: 5, friction: 0.9, linear_speed_dampening: 2}}
        defaults:
          base: {mesh: {box: [1, 1, 1]}, physics: {mass: 7}}
          light: {inherit: base, groups: [Props], material: ice}
        entities:
          - {name: a, class: light}
          - {name: b, class: light, physics: {friction: 0.3}, color: [0, 0, 1]}
        """))
    a, b = p.entity("a"), p.entity("b")
    assert a.physics["mass"] == 7.0                     # class over preset
    assert a.physics["friction"] == 0.05                # the class' material over the preset
    assert a.physics["linear_speed_dampening"] == 2.0   # preset over the pin default
    assert a.color == (1.0, 0.0, 0.0, 1.0)
    assert b.physics["friction"] == 0.3 and b.color == (0.0, 0.0, 1.0, 1.0)


def test_physics_false_turns_a_class_body_off(tmp_path):
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        defaults:
          prop: {mesh: {box: [1, 1, 1]}, physics: {mass: 2}}
        entities:
          - {name: a, class: prop, physics: false}
        """))
    assert p.entity("a").physics is None


def test_group_presets_that_disagree_are_an_error(tmp_path):
    _, _, msg = one_problem(tmp_path, """\
        version: 1
        group_presets:
          A: {physics: {friction: 0.1}}
          B: {physics: {friction: 0.2}}
        entities:
          - {name: x, mesh: {box: [1, 1, 1]}, groups: [A, B]}
        """)
    assert "group presets 'A' and 'B' disagree on 'friction'" in msg


def test_unknown_material_and_class_suggest(tmp_path):
    found = problems(write(tmp_path, "s.yaml", """\
        version: 1
        materials: {wood: {friction: 0.8, elasticity: 0.2}}
        defaults: {plank: {mesh: {box: [1, 1, 1]}}}
        entities:
          - {name: a, class: plnk, material: wod, physics: {}, mesh: {box: [1, 1, 1]}}
        """))
    texts = [m for _, _, m in found]
    assert any("no defaults class 'plnk' (did you mean 'plank'?)" in t for t in texts)
    assert any("no material 'wod' (did you mean 'wood'?)" in t for t in texts)


def test_rotation_forms_agree(tmp_path):
    """Euler xyz (extrinsic), axis-angle and quaternion give one orientation."""
    q1 = pose.euler((90.0, 0.0, 0.0), "xyz")
    q2 = pose.axis_angle((1.0, 0.0, 0.0), math.pi / 2)
    assert q1 == pytest.approx(q2)
    # extrinsic order: x then y; the world-Y turn maps the X-turned Z axis (0,-1,0)... stays (0,-1,0)
    q = pose.euler((90.0, 90.0, 0.0), "xyz")
    assert pose.rotate(q, (0.0, 0.0, 1.0)) == pytest.approx((0.0, -1.0, 0.0))
    assert pose.rotate(q, (1.0, 0.0, 0.0)) == pytest.approx((0.0, 0.0, -1.0))
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: a, rotation: {euler_deg: [0, 90, 0]}}
          - {name: b, rotation: {axis: [0, 2, 0], angle_deg: 90}}
          - {name: c, rotation: {quaternion: [0, 2, 0, 2]}}
        """))
    for n in "abc":
        assert p.entity(n).rotation == pytest.approx((0.0, math.sqrt(0.5), 0.0, math.sqrt(0.5)))


def test_rotation_needs_exactly_one_form(tmp_path):
    _, _, msg = one_problem(tmp_path, """\
        version: 1
        entities:
          - {name: a, rotation: {euler_deg: [0, 0, 0], quaternion: [0, 0, 0, 1]}}
        """)
    assert "exactly one of" in msg


def test_colours(tmp_path):
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: a, color: "#ff8000"}
          - {name: b, color: [0.5, 0.25, 1, 0.5]}
        """))
    assert p.entity("a").color == pytest.approx((1.0, 128 / 255, 0.0, 1.0))
    assert p.entity("b").color == (0.5, 0.25, 1.0, 0.5)


# --- reuse ----------------------------------------------------------------------------

def test_repeat_row_and_grid(tmp_path):
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: "plank{i}", position: [1, 2, 3], repeat: {count: 3, step: [0, 0, 2.5]}}
          - {name: "b{i}_{j}_{k}", repeat: {grid: [2, 1, 2], spacing: [6, 0, 7]}}
        joints:
          - {type: hinge, object: "plank{i}", object2: "plank{i+1}", repeat: {count: 2},
             joint_referential: {position: [0, 2, 4.25]}}
        """))
    assert [p.entity(f"plank{i}").position for i in range(3)] == [(1, 2, 3), (1, 2, 5.5), (1, 2, 8)]
    assert p.entity("b1_0_1").position == (6.0, 0.0, 7.0)
    assert [(j.values["object"], j.values["object2"]) for j in p.joints] == [("plank0", "plank1"),
                                                                          ("plank1", "plank2")]


def test_repeat_with_an_unknown_variable(tmp_path):
    _, _, msg = one_problem(tmp_path, "version: 1\nentities:\n  - {name: 'a{x}', repeat: {count: 2}}\n")
    assert "unknown repeat variable {x}" in msg


def test_repeat_without_index_in_the_name(tmp_path):
    _, _, msg = one_problem(tmp_path, "version: 1\nentities:\n  - {name: a, repeat: {count: 2}}\n")
    assert "needs {i} in its name" in msg


PREFAB = """\
    version: 1
    scene: {length: 99}
    entities:
      - {name: post, position: [1, 0, 0], mesh: {box: [1, 1, 1]}, physics: {fixed: true}}
      - {name: lamp, parent: post, position: [0, 2, 0]}
      - {name: deck, position: [0, 0, 2], mesh: {box: [1, 1, 1]}, physics: {}}
    joints:
      - {type: hinge, name: pivot, object: deck, object2: post,
         joint_referential: {position: [0, 0, 1]}}
    forces:
      - {type: force, target: deck, position: [0, 0, 2], direction: [1, 0, 0], force_value: 1}
    """


def test_prefab_instances_are_prefixed_and_placed(tmp_path):
    write(tmp_path, "part.yaml", PREFAB)
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {prefab: part.yaml, prefix: "a_", position: [10, 0, 0]}
          - {prefab: part.yaml, prefix: "b_", position: [0, 0, 10], rotation: {euler_deg: [0, 90, 0]}}
        """))
    assert p.settings["length"] == 5.0                   # an included file's settings are ignored
    assert p.entity("a_post").position == pytest.approx((11.0, 0.0, 0.0))
    assert p.entity("a_lamp").parent == "a_post" and p.entity("a_lamp").position == (0.0, 2.0, 0.0)
    # turned 90 degrees about Y: local +X goes to world -Z, local +Z to world +X
    assert p.entity("b_post").position == pytest.approx((0.0, 0.0, 9.0))
    assert p.entity("b_deck").position == pytest.approx((2.0, 0.0, 10.0))
    hinge = next(j for j in p.joints if j.name == "b_pivot")
    assert hinge.values["object"] == "b_deck" and hinge.values["object2"] == "b_post"
    assert p.entity(hinge.values["joint_referential"]).position == pytest.approx((1.0, 0.0, 10.0))
    force = [f for f in p.forces if f.values["target"] == "b_deck"][0]
    assert force.values["direction"] == pytest.approx((0.0, 0.0, -1.0))
    assert force.values["position"] == pytest.approx((2.0, 0.0, 10.0))


def test_include_with_namespace_and_shared_tables(tmp_path):
    write(tmp_path, "lib.yaml", """\
        version: 1
        materials: {rubber: {friction: 1.2, elasticity: 0.9}}
        group_presets:
          Bouncy: {material: rubber, physics: {mass: 3}}
        """)
    write(tmp_path, "part.yaml", PREFAB)
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        includes:
          - {file: lib.yaml}
          - {file: part.yaml, namespace: left, position: [0, 5, 0]}
        entities:
          - {name: ball, mesh: {sphere: {radius: 1}}, groups: [Bouncy]}
        """))
    assert p.entity("ball").physics["friction"] == 1.2 and p.entity("ball").physics["mass"] == 3.0
    assert p.entity("left/deck").position == (0.0, 5.0, 2.0)
    assert p.files[0].endswith("s.yaml") and len(p.files) == 3


def test_include_cycle_and_missing_file(tmp_path):
    write(tmp_path, "a.yaml", "version: 1\nincludes: [{file: b.yaml}]\n")
    write(tmp_path, "b.yaml", "version: 1\nincludes: [{file: a.yaml}, {file: nothere.yaml}]\n")
    texts = [m for _, _, m in problems(str(tmp_path / "a.yaml"))]
    assert any("includes itself" in t for t in texts)
    assert any("no scene file" in t and "nothere.yaml" in t for t in texts)


def test_conflicting_table_entries_across_files(tmp_path):
    write(tmp_path, "lib.yaml", "version: 1\nmaterials: {wood: {friction: 0.8, elasticity: 0.2}}\n")
    found = problems(write(tmp_path, "s.yaml", """\
        version: 1
        includes: [{file: lib.yaml}]
        materials: {wood: {friction: 0.5, elasticity: 0.2}}
        """))
    assert len(found) == 1 and "material 'wood' is defined again, differently" in found[0][2]


def test_fixcube_is_created_for_one_body_joints(tmp_path):
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: door, mesh: {box: [1, 2, 0.2]}, physics: {}}
        joints:
          - {type: hinge, object: door, joint_referential: {position: [0.5, 0, 0]}}
        """))
    cube = p.entity("FixCube")
    assert p.joints[0].values["object2"] == "FixCube"
    assert cube.physics["fixed"] and not cube.physics["enable_collision"] and not cube.visible


def test_bundled_library_paths(tmp_path):
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        includes: [{file: "bundled:lib/ballance"}]
        entities:
          - {name: floor, mesh: {box: [10, 1, 10]}, groups: [Phys_Floors]}
        """))
    ph = p.entity("floor").physics
    assert (ph["fixed"], ph["friction"], ph["elasticity"], ph["collision_group"]) == (True, 0.7, 0.3, "Floor")
    assert ph["concave"] == [p.entity("floor").mesh] and ph["convex"] == []


def test_groups_section_adds_members_by_name_or_pattern(tmp_path):
    write(tmp_path, "part.yaml", "version: 1\nentities:\n  - {name: 'plank{i}', repeat: {count: 3}}\n")
    p = plan(write(tmp_path, "s.yaml", """\
        version: 1
        group_presets:
          Heavy: {physics: {mass: 9}}
        includes: [{file: part.yaml, namespace: bridge}]
        entities:
          - {name: crate, mesh: {box: [1, 1, 1]}, physics: {}, groups: [Props]}
        groups:
          Sector_02: ["bridge/plank*", crate]
          Heavy: [crate]
        """))
    assert [e.name for e in p.entities if "Sector_02" in e.groups] == [
        "bridge/plank0", "bridge/plank1", "bridge/plank2", "crate"]
    assert p.entity("crate").groups == ["Props", "Sector_02", "Heavy"]
    assert p.entity("crate").physics["mass"] == 9.0          # a preset applies to added members too


def test_groups_section_pattern_matching_nothing(tmp_path):
    line, _, msg = one_problem(tmp_path, """\
        version: 1
        entities:
          - {name: crate}
        groups:
          G: [crat]
        """)
    assert line == 5 and "no entity matches 'crat' (did you mean 'crate'?)" in msg
