"""Issue 41 item 5: every public ivp entry point checks kinds, finiteness and
the f32 range and raises one ValueError naming the argument, before any state
changes (ivp.limits). One test per reproducer of ../shared/repro/api/, plus
the neighbours of each call (the same argument of the sibling entry points)."""

import math

import numpy as np
import pytest

import ivp
from ivp import limits

TETRA_FACES = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]


def world():
    env = ivp.Environment(gravity=(0.0, -20.0, 0.0))
    ball = env.create_ball(ivp.BallTemplate(name="b", mass=1.0, radius=1.0), (0.0, 5.0, 0.0))
    ball.wake()
    return env, ball


def refused(call, *words):
    """The call raises ValueError whose message has every word."""
    with pytest.raises(ValueError) as err:
        call()
    for w in words:
        assert w in str(err.value), str(err.value)


def test_a_zero_rotation_inertia_is_refused_at_creation():
    # api_rot_inertia_zero.py: was a ZeroDivisionError in core.calc_calc
    env, _ = world()
    refused(lambda: env.create_ball(ivp.BallTemplate(name="z", rot_inertia=(0, 0, 0)), (0, 5, 0)),
            "'z'", "rotation inertia", "MIN_ROT_INERTIA")
    refused(lambda: env.create_ball(ivp.BallTemplate(name="n", rot_inertia=(1.0, -2.0, 1.0)), (0, 5, 0)),
            "rotation inertia")
    assert [o.name for o in env.objects] == ["b"]


def test_the_inertia_check_factor_is_a_number_within_its_range():
    # fuzz call cases 3043 and 3169: auto_check_rot_inertia=[1.0, 2.0] was a
    # TypeError inside init_object_core, naming no object
    env, _ = world()
    refused(lambda: env.create_ball(ivp.BallTemplate(name="v", auto_check_rot_inertia=[1.0, 2.0]), (0, 5, 0)),
            "'v'", "inertia check")
    refused(lambda: env.create_ball(ivp.BallTemplate(name="n", auto_check_rot_inertia=-0.5), (0, 5, 0)),
            "'n'", "inertia check", "MIN_INERTIA_CHECK")
    refused(lambda: env.create_ball(ivp.BallTemplate(name="h", auto_check_rot_inertia=2.0), (0, 5, 0)),
            "'h'", "inertia check", "MAX_INERTIA_CHECK")
    assert [o.name for o in env.objects] == ["b"]
    env.create_ball(ivp.BallTemplate(name="ok", auto_check_rot_inertia=1.0), (0, 5, 0))


def test_a_string_for_the_surface_or_the_template_is_refused():
    # api_create_polygon_str.py: was an AttributeError on 'str'
    env, _ = world()
    refused(lambda: env.create_polygon("box", ivp.ObjectTemplate(name="x"), (0, 5, 0)),
            "'x'", "surface", "'box'", "CompactSurface")
    refused(lambda: env.create_polygon(None, ivp.ObjectTemplate(name="x"), (0, 5, 0)), "surface")
    surf = ivp.build_surface("tet", [np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)], float)])
    refused(lambda: env.create_polygon(surf, "tmpl", (0, 5, 0)), "tmpl", "ObjectTemplate")
    refused(lambda: env.create_ball(ivp.ObjectTemplate(name="x"), (0, 5, 0)), "tmpl", "BallTemplate")
    assert [o.name for o in env.objects] == ["b"]


def test_a_surface_beyond_max_vertex_is_refused():
    # api_huge_tetra_nan.py: a tetrahedron of 1e20 m made an infinite
    # rot_inertia (its second moments, about size^2 x mass, overflow f32)
    huge = [(0, 0, 0), (1e20, 0, 0), (0, 1e20, 0), (0, 0, 1e20)]
    refused(lambda: ivp.build_surface("t", [huge]), "'t'", "vertex", "MAX_VERTEX")
    refused(lambda: ivp.build_surface("t", (), [(huge, TETRA_FACES)]), "'t'", "vertex")
    # the largest one allowed keeps a finite inertia even at the largest mass
    big = [(0, 0, 0), (limits.MAX_VERTEX, 0, 0), (0, limits.MAX_VERTEX, 0), (0, 0, limits.MAX_VERTEX)]
    env = ivp.Environment()
    body = env.create_polygon(ivp.build_surface("big", [big]), ivp.ObjectTemplate(name="big", mass=limits.MAX_MASS),
                              (0.0, 0.0, 0.0))
    assert all(math.isfinite(x) and x > 0.0 for x in body.core.rot_inertia)


def test_the_huge_tetra_of_the_glue_is_a_located_error():
    # the reproducer itself: Physicalize names the entity and the limit
    import bbglue
    from bbglue import blocks
    from bbglue.meshes import Mesh
    ctx = bbglue.CKContext()
    tet = [(0, 0, 0), (1e20, 0, 0), (0, 1e20, 0), (0, 0, 1e20)]
    e = ctx.create_entity("t", mesh=Mesh("t", tet, [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]), position=(0, 5, 0))
    refused(lambda: blocks.physicalize(ctx, e, mass=1.0), "'t'", "MAX_VERTEX")


def test_a_hinge_anchor_at_1e300_is_refused():
    # api_hinge_anchor_1e300_nan.py: the anchor was accepted, anchor_r became inf
    env, b = world()
    refused(lambda: ivp.create_hinge(env, b, None, (1e300, 0, 0), (0, 0, 1)), "anchor", "MAX_POSITION")
    refused(lambda: ivp.create_hinge(env, b, None, (0, 5, 0), (1e39, 0, 1)), "axis", "f32")
    refused(lambda: ivp.create_ball_joint(env, b, None, ("a", 0, 0)), "anchor", "numbers")
    refused(lambda: ivp.create_slider(env, b, None, (0, 5, 0), (0, 5, math.nan)), "second point", "finite")
    refused(lambda: ivp.create_hinge(env, b, None, (0, 5, 0), (0, 0, 1), limits=(0.0, 1e39)), "limits", "f32")
    assert b.core.controllers_of_core == []
    hinge = ivp.create_hinge(env, b, None, (1e6, 5, 0), (0, 0, 1))       # far, but inside MAX_POSITION
    for _ in range(3):
        env.simulate(env.delta_PSI_time)
    assert all(math.isfinite(x) for x in hinge.anchor_r + b.core.speed)


def test_a_spring_constant_of_3e38_is_refused():
    # 3e38 is a finite f32, but the spring's force (length - L) k overflows it
    env, b = world()
    other = env.create_ball(ivp.BallTemplate(name="c", mass=1.0, radius=1.0), (0.0, 9.0, 0.0))

    def spring(**kw):
        return lambda: ivp.create_spring(env, ivp.SpringTemplate(b, (0, 5, 0), other, (0, 9, 0), **kw))
    refused(spring(constant=3e38), "constant", "MAX_SPRING_CONSTANT")
    refused(spring(constant=10.0, damp_lin=1e30), "linear dampening", "MAX_SPRING_CONSTANT")
    refused(spring(constant=10.0, length=-1.0), "length", "below")
    refused(spring(constant=10.0, break_length=math.inf), "break length", "finite")
    refused(spring(constant="10"), "constant", "number")
    assert b.core.controllers_of_core == [] and other.core.controllers_of_core == []


def test_a_force_checks_its_core_point_and_force():
    env, b = world()
    refused(lambda: ivp.ForceController("b", (0, 0, 0), (0, 1, 0)), "force: core", "Core")
    refused(lambda: ivp.ForceController(b.core, (0, 0, 0), (0, 3e38, 0)), "force: force", "MAX_IMPULSE")
    refused(lambda: ivp.ForceController(b.core, (0, math.inf, 0), (0, 1, 0)), "force: point", "finite")


def test_the_environment_checks_what_it_is_given_to_delete_or_call():
    env, b = world()
    refused(lambda: env.delete_object("b"), "delete_object: obj", "RealObject")
    refused(lambda: env.add_listener_psi(42), "add_listener_psi", "callable")
    assert env.objects == [b] and env.psi_listeners == []


def test_a_joint_or_spring_given_a_string_for_a_body_is_refused_by_name():
    # tests.fuzz call case 2188: the message's joint name read 'str'.name, an
    # AttributeError before check_joint_objects could refuse the string
    env, ball = world()
    for make in (lambda: ivp.create_hinge(env, ball, "floor", (0, 5, 0), (0, 0, 1)),
                 lambda: ivp.create_ball_joint(env, "floor", ball, (0, 5, 0))):
        with pytest.raises(TypeError) as err:
            make()
        assert "'floor'" in str(err.value) and "not a physics object" in str(err.value)
