"""Debug overlays as world-space segments, read from the physics (no display)."""

import numpy as np
import pytest
from test_viewer_support import ball_scene

from viewer import overlays
from viewer.session import Session


def segments_of(fn, *args):
    lines = overlays.Lines()
    fn(lines, *args)
    return lines.arrays()


def test_bounding_sphere_circles_lie_on_the_core_radius():
    s = Session(ball_scene)
    segs, colours = segments_of(overlays.bounding_spheres, s.bodies(), s.env.current_time)
    assert segs.shape == (3 * overlays.CIRCLE_SEGMENTS, 2, 3) and colours.shape == (len(segs), 4)
    # a ball's core radius is its radius, 2, around its centre (0, 10, 0)
    assert np.allclose(np.linalg.norm(segs - (0.0, 10.0, 0.0), axis=2), 2.0)


def test_a_force_is_an_arrow_from_its_point_along_its_direction():
    from bbglue.blocks import SetPhysicsForce
    s = Session(ball_scene)
    ball = s.ctx.get("ball")
    SetPhysicsForce(ball, position=(0.0, 0.0, 0.0), pos_referential=ball, direction=(1.0, 0.0, 0.0),
                    force_value=0.43).trigger("Create")
    s.tick(1 / 60)
    segs, _ = segments_of(overlays.force_arrows, overlays.controllers(s.env), s.env.current_time)
    shaft = segs[0]
    centre = s.body_of(ball).core.get_m_world_f_core_PSI(s.env.current_time)[1]
    assert np.allclose(shaft[0], centre, atol=1e-6)
    assert np.allclose(shaft[1] - shaft[0], (0.43 * overlays.FORCE_SCALE, 0.0, 0.0), atol=1e-6)
    assert len(segs) == 3                          # the shaft and the two barbs


def test_a_spring_joins_its_two_anchors():
    from bbglue import meshes
    from bbglue.blocks import Physicalize, SetPhysicsSpring

    def load():
        ctx = ball_scene()
        other = ctx.create_entity("other", meshes.sphere(1.0), position=(8.0, 10.0, 0.0))
        Physicalize(other, ball_count=1, convex_count=0, ball_radius_1=1.0).trigger()
        SetPhysicsSpring(ctx.get("ball"), object2=other, referential_1=ctx.get("ball"), referential_2=other,
                         length=8.0).trigger("Create")
        return ctx

    s = Session(load)
    segs, _ = segments_of(overlays.joint_marks, overlays.controllers(s.env), s.env.current_time)
    ends = {tuple(np.round(p, 6)) for p in segs[-1]}
    assert ends == {(0.0, 10.0, 0.0), (8.0, 10.0, 0.0)}     # the anchors: each body's origin


def test_contacts_are_marked_with_their_normals(tmp_path):
    import textwrap

    from test_viewer_cli import SCENE
    path = tmp_path / "drop.yaml"
    path.write_text(textwrap.dedent(SCENE))
    import scenes
    s = Session(lambda: scenes.load(str(path)))
    contacts = []
    while not contacts and s.frames < 300:
        s.tick(1 / 60)
        contacts = list(s.env.collision.contacts())
    assert contacts, "the ball reaches the floor"
    segs, _ = segments_of(overlays.contact_marks, contacts)
    assert len(segs) == 4 * len(contacts)           # a 3-axis cross and the normal
    normal = segs[3]
    assert np.linalg.norm(normal[1] - normal[0]) == pytest.approx(overlays.NORMAL_LENGTH)
    assert abs(normal[1][1] - normal[0][1]) == pytest.approx(overlays.NORMAL_LENGTH)   # vertical


def test_sleeping_and_selected_tints_blend_the_colour():
    assert overlays.tint((1.0, 0.0, 0.0, 0.5), (0.0, 0.0, 1.0), 0.25) == (0.75, 0.0, 0.25, 0.5)


def test_a_hinge_shows_its_anchor_and_its_axis():
    from bbglue import meshes
    from bbglue.blocks import Physicalize, SetPhysicsHinge

    def load():
        ctx = ball_scene()
        other = ctx.create_entity("other", meshes.sphere(1.0), position=(8.0, 10.0, 0.0))
        Physicalize(other, ball_count=1, convex_count=0, ball_radius_1=1.0).trigger()
        pivot = ctx.create_entity("pivot", position=(4.0, 10.0, 0.0))
        SetPhysicsHinge(ctx.get("ball"), object2=other, joint_referential=pivot).trigger("Create")
        return ctx

    s = Session(load)
    segs, colours = segments_of(overlays.joint_marks, overlays.controllers(s.env), s.env.current_time)
    crosses, axes = segs[:6], segs[6:]
    # both anchors at the referential's position (glue-and-content 2: anchor = its world position)
    assert np.allclose(crosses.mean(axis=1), (4.0, 10.0, 0.0), atol=1e-5)
    assert len(axes) == 3 and np.allclose(axes[:, 0], (4.0, 10.0, 0.0), atol=1e-5)
    directions = (axes[:, 1] - axes[:, 0]) / overlays.AXIS_LENGTH
    assert np.allclose(np.abs(directions @ (0.0, 0.0, 1.0)).max(), 1.0, atol=1e-5)   # one axis is the hinge's Z
    assert np.allclose(directions @ directions.T, np.identity(3), atol=1e-5)
