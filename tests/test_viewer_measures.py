"""Measured overlays (issue 43, viewer/measures.py): contact forces as arrows
of N x scale along the normal, mass centres and inertia boxes."""

import math
import textwrap

import numpy as np
import pytest
from test_viewer_cli import SCENE
from test_viewer_support import ball_scene

from viewer import measures, overlays
from viewer.session import Session


def segments_of(fn, *args):
    lines = overlays.Lines()
    fn(lines, *args)
    return lines.arrays()


def test_a_resting_ball_pushes_the_floor_with_its_weight(tmp_path):
    import scenes
    path = tmp_path / "drop.yaml"
    path.write_text(textwrap.dedent(SCENE))
    s = Session(lambda: scenes.load(str(path)))
    for _ in range(600):                                # 10 s: dropped from 10 m, it has come to rest
        s.tick(1 / 60)
    contacts = list(s.env.collision.contacts())
    assert contacts
    weight = 1.9 * float(np.linalg.norm(s.env.gravity))     # the scene's mass x g
    assert all(c.obj0.name == "ball" for c in contacts)     # side 0, n pointing to the floor (down)
    up = sum(-c.normal_force * c.normal_ws[1] for c in contacts)
    assert up == pytest.approx(weight, rel=0.05)
    scale = measures.CONTACT_SCALES[1]
    segs, colours = segments_of(measures.contact_forces, contacts, scale)
    assert len(segs) == 3 * len(contacts)              # a shaft and two barbs each
    for c, shaft in zip(contacts, segs[::3]):
        assert np.allclose(shaft[0], c.point_ws)
        assert np.allclose(shaft[1] - shaft[0], -np.asarray(c.normal_ws) * c.normal_force * scale)
        assert shaft[1][1] > shaft[0][1]                # the floor holds the ball up
    assert np.all(colours == measures.CONTACT_FORCE)


def test_a_balls_inertia_box_has_half_extents_r_sqrt_0_6_about_its_centre():
    # ivp-dynamics (ivp_object_init_core): a ball's inertia is 0.4 m r^2 on each
    # axis; a uniform box with I_x = m (b^2 + c^2) / 3 has a^2 = 3 I / (2 m) = 0.6 r^2
    s = Session(ball_scene)
    segs, colours = segments_of(measures.mass_marks, s.bodies(), s.env.current_time)
    cross, box = segs[:3], segs[3:]
    assert np.allclose(cross.mean(axis=1), (0.0, 10.0, 0.0))
    assert len(box) == 12
    corners = np.unique(np.round(box.reshape(-1, 3), 9), axis=0)
    half = 2.0 * math.sqrt(0.6)
    expected = np.array([(x, 10.0 + y, z) for x in (-half, half) for y in (-half, half) for z in (-half, half)])
    assert np.allclose(np.sort(corners, axis=0), np.sort(expected, axis=0))
    assert np.allclose(np.linalg.norm(box[:, 1] - box[:, 0], axis=1), 2.0 * half)     # edges, no diagonals


def test_inertia_half_extents_of_an_unequal_box_and_of_inertias_no_box_has():
    m, a, b, c = 3.0, 1.0, 2.0, 0.5                     # a uniform box: I_x = m (b^2 + c^2) / 3 ...
    inertia = (m * (b * b + c * c) / 3, m * (a * a + c * c) / 3, m * (a * a + b * b) / 3)
    assert np.allclose(measures.inertia_half_extents(m, inertia), (a, b, c))
    assert measures.inertia_half_extents(1.0, (10.0, 1.0, 1.0))[0] == 0.0     # I_x > I_y + I_z
