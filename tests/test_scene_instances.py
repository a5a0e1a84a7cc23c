"""Prefabs and includes placed more than once: names inside an instanced file
(behaviour parameters of kind Entity / Group, joints, forces) resolve to that
instance's entities and groups; other names to the outer scene; a name that
resolves to nothing is a located error."""

import pytest

import scenes
from bbglue.blocks import SetPhysicsForce
from behaviors import Behavior, Entity, Group, Param, register
from scenes import SceneError
from test_scene_format import col, write

PSI_MS = 1000.0 / 66.0


@register("test.own_pusher")
class OwnPusher(Behavior):
    """Pushes ``body`` along world +X with ``force`` per PSI."""
    body = Param(Entity)
    bodies = Param(Group, "crates", optional=True)
    force = Param(float, 0.5, bounds=(0.0, 10.0))

    def on_start(self):
        self.own(SetPhysicsForce(self.body, self.ctx, direction=(1.0, 0.0, 0.0), force_value=self.force)).create()


# a crate without damping and a behaviour that names it and its group
PUSHER = """\
    version: 1
    entities:
      - {name: crate, mesh: {box: [1, 1, 1]}, groups: [crates],
         physics: {mass: 2, linear_speed_dampening: 0, rot_speed_dampening: 0}}
    behaviours:
      - {type: test.own_pusher, params: {body: crate}}
    """


def located(path):
    """(file name, line, column, message) of each problem of a scene file."""
    with pytest.raises(SceneError) as e:
        scenes.load(path)
    return [(w.file.rsplit("/", 1)[-1], w.line, w.column, m) for w, m in e.value.problems]


def test_a_prefab_placed_twice_drives_its_own_entity_in_each_instance(tmp_path):
    """No gravity, no damping: a force F per PSI on mass m gives each crate the
    speed n F / m after n PSIs. Were both behaviours pushing one crate, it would
    have 2 n F / m and the other none."""
    write(tmp_path, "pusher.yaml", PUSHER)
    scene = scenes.load(write(tmp_path, "s.yaml", """\
        version: 1
        scene: {gravity: [0, 0, 0]}
        entities:
          - {prefab: pusher.yaml, prefix: "a_", position: [0, 0, 0]}
          - {prefab: pusher.yaml, prefix: "b_", position: [0, 0, 10]}
        """))
    a, b = scene.behaviours
    assert (a.body.name, b.body.name) == ("a_crate", "b_crate")
    assert [e.name for e in a.bodies] == ["a_crate"] and [e.name for e in b.bodies] == ["b_crate"]
    assert [e.name for e in scene.ctx.get_group("crates")] == ["a_crate", "b_crate"]   # scene-wide
    for _ in range(20):
        scene.ctx.process_frame(PSI_MS)
    n = scene.ctx.physics.env.psi_count
    assert n > 10 and scene.ctx.errors == []
    for name in ("a_crate", "b_crate"):
        assert scene.body(name).core.speed == pytest.approx((n * 0.5 / 2.0, 0.0, 0.0), rel=1e-6, abs=1e-9)


def test_an_include_with_a_namespace_resolves_into_its_namespace(tmp_path):
    write(tmp_path, "pusher.yaml", PUSHER)
    scene = scenes.load(write(tmp_path, "s.yaml", """\
        version: 1
        scene: {gravity: [0, 0, 0]}
        includes:
          - {file: pusher.yaml, namespace: left, position: [-5, 0, 0]}
          - {file: pusher.yaml, namespace: right, position: [5, 0, 0]}
        """))
    assert [(b.body.name, [e.name for e in b.bodies]) for b in scene.behaviours] == [
        ("left/crate", ["left/crate"]), ("right/crate", ["right/crate"])]


def test_names_a_file_does_not_define_refer_to_the_outer_scene(tmp_path):
    write(tmp_path, "part.yaml", """\
        version: 1
        entities:
          - {name: marker, position: [0, 1, 0]}
        behaviours:
          - {type: test.own_pusher, params: {body: target, bodies: Props}}
        """)
    scene = scenes.load(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {name: target, mesh: {box: [1, 1, 1]}, groups: [Props], physics: {}}
          - {prefab: part.yaml, prefix: "p_"}
        """))
    (b,) = scene.behaviours
    assert b.body is scene.entity("target") and b.bodies is scene.ctx.get_group("Props")


def test_a_default_name_the_instance_defines_is_its_own(tmp_path):
    """The plank bridge (bundled) placed twice: each bridge hinges its own 9
    planks on its own 10 referentials and FixCube (the `fix` default), and each
    wake gate wakes its own planks."""
    scene = scenes.load(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {prefab: "bundled:parts/ph29_plank_bridge", prefix: "w_", position: [-20, 0, 0]}
          - {prefab: "bundled:parts/ph29_plank_bridge", prefix: "e_", position: [20, 0, 0]}
        """))
    bridges = [b for b in scene.behaviours if b.name == "ballance.plank_bridge"]
    gates = [b for b in scene.behaviours if b.name == "ballance.wake_gate"]
    for p, bridge, gate in zip(("w_", "e_"), bridges, gates):
        assert [e.name for e in bridge.planks] == [f"{p}ph29_plank{i}" for i in range(9)]
        assert [e.name for e in bridge.joints] == [f"{p}ph29_joint{k}" for k in range(10)]
        assert bridge.fix.name == f"{p}FixCube" and gate.entity.name == f"{p}ph29_gate"
        assert list(gate.bodies) == list(bridge.planks)
    assert len(scene.ctx.get_group("PH29_planks")) == 18


def test_nested_instances_and_their_joints_resolve_through_every_level(tmp_path):
    """A file that places a prefab names the prefab's entities with the prefab's
    prefix; placed in turn under another prefix, its behaviour, joint and force
    find that instance's entities."""
    write(tmp_path, "pusher.yaml", PUSHER)
    write(tmp_path, "pair.yaml", """\
        version: 1
        entities:
          - {prefab: pusher.yaml, prefix: "in_"}
          - {name: post, mesh: {box: [1, 1, 1]}, position: [0, 0, 3], physics: {fixed: true}}
        joints:
          - {type: ball_joint, object: in_crate, object2: post, position_1: [0, 0, 1.5]}
        forces:
          - {type: impulse, target: in_crate, direction: [0, 1, 0], impulse: 0}
        behaviours:
          - {type: test.own_pusher, params: {body: in_crate, bodies: in_crates, force: 0.25}}
        """)
    p = scenes.document.plan(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {prefab: pair.yaml, prefix: "x_"}
          - {prefab: pair.yaml, prefix: "y_", position: [10, 0, 0]}
        """))
    for pre in ("x_", "y_"):
        assert p.entity(f"{pre}in_crate").groups == ["crates", f"{pre}in_crates"]
    assert [j.values["object"] for j in p.joints] == ["x_in_crate", "y_in_crate"]
    assert [j.values["object2"] for j in p.joints] == ["x_post", "y_post"]
    assert [f.values["target"] for f in p.forces] == ["x_in_crate", "y_in_crate"]
    outer = [b.values["params"] for b in p.behaviours if "force" in b.values["params"]]
    assert outer == [{"body": "x_in_crate", "bodies": "x_in_crates", "force": 0.25},
                     {"body": "y_in_crate", "bodies": "y_in_crates", "force": 0.25}]


def test_a_groups_section_of_an_instanced_file_makes_an_instance_group(tmp_path):
    write(tmp_path, "part.yaml", """\
        version: 1
        entities:
          - {name: "box{i}", mesh: {box: [1, 1, 1]}, physics: {}, repeat: {count: 2, step: [2, 0, 0]}}
        groups:
          crates: ["box*"]
        behaviours:
          - {type: test.own_pusher, params: {body: box0}}
        """)
    scene = scenes.load(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {prefab: part.yaml, prefix: "a_"}
          - {prefab: part.yaml, prefix: "b_", position: [0, 0, 5]}
        """))
    assert [[e.name for e in b.bodies] for b in scene.behaviours] == [["a_box0", "a_box1"], ["b_box0", "b_box1"]]


def test_a_name_that_resolves_to_nothing_is_located_in_the_instanced_file(tmp_path):
    bad_entity = "  - {type: test.own_pusher, params: {body: crat, bodies: crate}}"
    bad_group = "  - {type: test.own_pusher, params: {body: crate, bodies: cratez}}"
    write(tmp_path, "part.yaml", "\n".join([
        "version: 1", "entities:",
        "  - {name: crate, mesh: {box: [1, 1, 1]}, groups: [crates], physics: {}}",
        "behaviours:", bad_entity, bad_group]))
    found = located(write(tmp_path, "s.yaml", """\
        version: 1
        entities:
          - {prefab: part.yaml, prefix: "a_"}
        """))
    what = "behaviour 'test.own_pusher' parameter '{}' (in the instance 'a_'): no {} (did you mean '{}'?)"
    assert found == [
        ("part.yaml", 5, col(bad_entity, "crat,"), what.format("body", "entity 'crat'", "a_crate")),
        ("part.yaml", 5, col(bad_entity, "crate}"), what.format("bodies", "group 'crate'", "crates")),
        ("part.yaml", 6, col(bad_group, "cratez"), what.format("bodies", "group 'cratez'", "crates")),
    ]
