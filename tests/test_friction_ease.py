"""Easing of the friction springs (surfaces-and-contacts 4): with several contact
points on a pair, every 5th PSI the springs along the line joining two contact
points are pulled toward their mean."""

import math
from types import SimpleNamespace

import pytest

from ivp import MT_NOT_SIM, Environment
from ivp.collision import Material
from ivp.collision.contact import ease_springs
from test_collision_scenes import box, floor, run

DOWN = (0.0, -1.0, 0.0)


def point(p, spring, normal=DOWN):
    return SimpleNamespace(point_ws=p, normal_ws=normal, spring=spring)


def test_springs_along_the_joining_line_take_their_mean_and_keep_the_rest():
    a = point((-0.5, 0.0, 0.0), (0.004, 0.0, 0.001))
    b = point((0.5, 0.0, 0.0), (-0.002, 0.0, 0.003))
    ease_springs([a, b])
    # along x (the line): both (0.004 - 0.002) / 2; across it (z) untouched
    assert a.spring == pytest.approx((0.001, 0.0, 0.001), abs=1e-15)
    assert b.spring == pytest.approx((0.001, 0.0, 0.003), abs=1e-15)


def test_diagonal_line_eases_only_the_diagonal_part():
    # points on the diagonal x = z: the line's direction is (1, 0, 1)/sqrt 2
    a = point((0.0, 0.0, 0.0), (0.002, 0.0, 0.0))
    b = point((1.0, 0.0, 1.0), (0.0, 0.0, 0.0))
    ease_springs([a, b])
    # a's part along the line: 0.002/sqrt2, b's 0; the mean 0.001/sqrt2 each
    # a keeps its cross part 0.002 (1, 0, -1)/2, so a = (0.0015, 0, -0.0005)
    assert a.spring == pytest.approx((0.0015, 0.0, -0.0005), abs=1e-15)
    assert b.spring == pytest.approx((0.0005, 0.0, 0.0005), abs=1e-15)


def test_points_of_different_faces_or_one_place_are_not_eased():
    side = (1.0, 0.0, 0.0)                         # 90 degrees from DOWN
    a = point((0.0, 0.0, 0.0), (0.0, 0.0, 0.002))
    b = point((0.0, 0.0, 1.0), (0.0, 0.0, -0.002), normal=side)
    ease_springs([a, b])
    assert a.spring == (0.0, 0.0, 0.002) and b.spring == (0.0, 0.0, -0.002)
    c = point((0.0, 0.0, 0.0), (0.001, 0.0, 0.0))
    d = point((0.0, 0.0, 0.0), (-0.001, 0.0, 0.0))  # no line between them
    ease_springs([c, d])
    assert c.spring == (0.001, 0.0, 0.0) and d.spring == (-0.001, 0.0, 0.0)


def test_a_resting_box_has_its_opposite_springs_eased_every_5th_psi():
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env, material=Material(0.7, 0.0))
    b = box(env, (3.0, 0.52, 3.0), material=Material(0.5, 0.0))     # inside one floor triangle
    b.wake()
    run(env, 0.2)
    contacts = list(env.collision.contacts())
    assert len(contacts) == 4
    # two corners on one edge (along x), springs pulling apart along it: equal
    # and opposite forces on one line, no net force or torque, nothing moves
    c0 = min(contacts, key=lambda c: (c.point_ws[0], c.point_ws[2]))
    c1 = min((c for c in contacts if c is not c0 and abs(c.point_ws[2] - c0.point_ws[2]) < 1e-3),
             key=lambda c: -c.point_ws[0])
    d = [q - p for p, q in zip(c0.point_ws, c1.point_ws)]
    length = math.sqrt(sum(x * x for x in d))
    d = [x / length for x in d]
    assert length == pytest.approx(1.0, abs=0.01) and d[0] == pytest.approx(1.0, abs=1e-3)

    def along_line(c):
        return sum(s * x for s, x in zip(c.spring, d))

    while env.psi_count % 5 != 1:
        run(env, env.delta_PSI_time)
    c0.spring = tuple(-2e-4 * x for x in d)
    c1.spring = tuple(2e-4 * x for x in d)
    run(env, 3 * env.delta_PSI_time)             # PSIs 1, 2, 3: not eased
    assert along_line(c0) == pytest.approx(-2e-4, abs=2e-5)
    assert along_line(c1) == pytest.approx(2e-4, abs=2e-5)
    run(env, 2 * env.delta_PSI_time)             # PSI 5: eased to their mean, 0
    assert along_line(c0) == pytest.approx(0.0, abs=2e-5)
    assert along_line(c1) == pytest.approx(0.0, abs=2e-5)
    assert b.core.movement_state != MT_NOT_SIM          # the controllers ran all along
