"""Loading onto the glue: the Physicalize pins reach the bodies, joints and
forces become blocks, behaviours are created by registered name only, and
errors found while building are located too."""

import textwrap

import pytest

import scenes
from scenes import SceneError


def write(tmp_path, text, name="s.yaml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def load_error(tmp_path, text):
    with pytest.raises(SceneError) as e:
        scenes.load(write(tmp_path, text))
    return e.value


def test_load_by_bundled_name_or_path():
    a = scenes.load("ball_wood")
    b = scenes.load(scenes.document.bundled_path("ball_wood"))
    assert a.path == b.path and a.name == "The wood ball" and a.length == 3.0
    assert a.settings["gravity"] == (0.0, -20.0, 0.0) and a.settings["time_factor"] == 2.0
    assert a.settings["camera"]["fov_deg"] == 58.0


def test_pins_reach_the_body(tmp_path):
    """Glue-and-content 3's wood ball values on the IVP body."""
    scene = scenes.load(write(tmp_path, """\
        version: 1
        includes: [{file: "bundled:lib/ballance"}]
        entities:
          - {name: ball, class: ball_wood, position: [0, 5, 0]}
          - {name: crate, mesh: {box: [2, 2, 2]}, position: [10, 5, 0],
             physics: {mass: 3, linear_speed_dampening: 0.25, start_frozen: true, fixed: false}}
        """))
    ball, crate = scene.body("ball"), scene.body("crate")
    assert ball.is_ball and ball.ball_radius == 2.0
    assert ball.core.mass == pytest.approx(1.9, rel=1e-7)            # f32 pin
    assert ball.core.speed_damp_factor == pytest.approx(0.9, rel=1e-7)
    assert ball.nocoll_group == "Ball"
    rec = scene.ctx.physics.record_of(scene.entity("ball"))
    assert (rec.friction, rec.elasticity) == (pytest.approx(0.8), pytest.approx(0.2))
    assert crate.core.mass == 3.0 and not crate.is_ball
    scene.ctx.process_frame(1000 / 60)
    assert crate.object_state != 1 and ball.object_state == 1       # start frozen / woken


def test_scaled_copies_of_a_mesh_get_their_own_surface(tmp_path):
    """The glue caches surfaces by name; the loader names a scaled shape by its
    geometry, so a box of scale 4 rests 2 above the floor, not 0.5."""
    scene = scenes.load(write(tmp_path, """\
        version: 1
        scene: {gravity: [0, -20, 0]}
        entities:
          - {name: floor, mesh: {box: [40, 1, 40]}, position: [0, -0.5, 0], physics: {fixed: true}}
          - {name: small, mesh: {box: [1, 1, 1]}, position: [-5, 0.6, 0], physics: {}}
          - {name: big, mesh: {box: [1, 1, 1]}, scale: 4, position: [5, 2.1, 0], physics: {}}
        """))
    for _ in range(90):
        scene.ctx.process_frame(1000 / 60)
    assert scene.entity("small").get_position()[1] == pytest.approx(0.5, abs=0.05)
    assert scene.entity("big").get_position()[1] == pytest.approx(2.0, abs=0.05)
    assert len(scene.ctx.physics.surfaces) == 3


def test_psi_length_setting(tmp_path):
    scene = scenes.load(write(tmp_path, "version: 1\nscene: {psi_length: 0.01}\n"))
    env = scene.ctx.physics.env
    assert env.delta_PSI_time == 0.01
    env.simulate(0.095)
    assert env.psi_count == 10                 # PSIs at 0, 0.01, ... 0.09 (< 0.095)


def test_joints_and_forces_become_named_blocks(tmp_path):
    scene = scenes.load(write(tmp_path, """\
        version: 1
        entities:
          - {name: door, mesh: {box: [1, 2, 0.2]}, physics: {}}
        joints:
          - {type: hinge, name: door_hinge, object: door, joint_referential: {position: [0.5, 0, 0]},
             limitations: true, lower_limit_deg: -10, upper_limit_deg: 80}
        forces:
          - {type: force, name: wind, target: door, direction: [1, 0, 0], force_value: 0.5}
        """))
    hinge, wind = scene.joints["door_hinge"], scene.forces["wind"]
    assert hinge.NAME == "Set Physics Hinge" and hinge.handle is not None
    assert hinge.params["Lower Limit"] == -10.0 and hinge.params["Upper Limit"] == 80.0
    assert hinge.params["Object2"] is scene.entity("FixCube")
    assert wind.NAME == "SetPhysicsForce" and wind.params["Force Value"] == 0.5


def test_unknown_behaviour_is_located_with_did_you_mean(tmp_path):
    err = load_error(tmp_path, """\
        version: 1
        behaviours:
          - {type: ballance.leve}
        """)
    assert err.where.line == 3 and "unknown behaviour 'ballance.leve'" in str(err)
    assert "ballance.level" in str(err)


def test_bad_behaviour_parameter_is_located(tmp_path):
    err = load_error(tmp_path, """\
        version: 1
        entities:
          - {name: fan, mesh: {box: [1, 1, 1]}}
        behaviours:
          - {type: ballance.fan, entity: fan, params: {forc: 2}}
        """)
    assert err.where.line == 5 and "no parameter 'forc'" in str(err) and "force" in str(err)


def test_missing_obj_file_is_located(tmp_path):
    err = load_error(tmp_path, """\
        version: 1
        entities:
          - {name: rock, mesh: {obj: rock.obj}}
        """)
    assert err.where.line == 3 and "rock.obj" in str(err)


def test_obj_mesh_relative_to_the_file(tmp_path):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "tri.obj").write_text(
        "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 0 1 0\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    scene = scenes.load(write(tmp_path, """\
        version: 1
        entities:
          - {name: tet, mesh: {obj: meshes/tri.obj}, physics: {}}
        """))
    assert scene.entity("tet").mesh.name == "tri" and scene.body("tet") is not None
