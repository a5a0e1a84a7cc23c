"""Events for the glue (surfaces-and-contacts 5 step 9): post-collision, friction
created / deleted, and the contact list the viewer draws."""

import math

import pytest

from ivp import Environment
from ivp.collision import Material
from test_collision_scenes import ball, floor, run


class Recorder:
    def __init__(self):
        self.collisions = []
        self.created = []
        self.deleted = []

    def event_post_collision(self, ev):
        self.collisions.append(ev)

    def event_friction_created(self, ev):
        self.created.append(ev)

    def event_friction_deleted(self, ev):
        self.deleted.append(ev)


def drop_scene(height=5.0, g=20.0):
    env = Environment(gravity=(0.0, -g, 0.0))
    fl = floor(env, material=Material(0.7, 0.5))
    b = ball(env, (1.0, 2.0 + height, -1.0), name="ball", material=Material(0.5, 1.0))
    b.wake()
    return env, fl, b


def test_post_collision_reports_the_closing_speed_normal_point_and_objects():
    env, fl, b = drop_scene()
    rec = Recorder()
    env.collision.add_listener_collision(rec, b)
    run(env, 1.0)
    ev = rec.collisions[0]
    assert {ev.obj0, ev.obj1} == {b, fl}
    # ivp-contacts 4.10: the velocity of side 1's surface against side 0's
    # before the impact, here the closing speed of a 5 m fall (to the 0.01
    # collision gap) under g = 20, upwards when the ball is side 0
    sign = 1.0 if ev.obj0 is b else -1.0
    v = math.sqrt(2 * 20.0 * (5.0 - 0.01))
    assert ev.speed == pytest.approx((0.0, sign * v, 0.0), rel=0.02, abs=1e-9)
    # unit normal from obj0 towards obj1: from the ball down to the floor
    assert ev.normal_ws == pytest.approx((0.0, -sign, 0.0), abs=1e-9)
    # on the ball's surface (5.3): centre + radius n, 0.01 above the floor
    assert ev.point_ws == pytest.approx((1.0, 0.01, -1.0), abs=1e-6)
    assert ev.time == pytest.approx(math.sqrt(2 * 4.99 / 20.0), abs=2 / 66)


def test_friction_created_and_deleted_bracket_each_bounce():
    env, fl, b = drop_scene()
    rec = Recorder()
    env.collision.add_listener_contact(rec)
    run(env, 1.0)                    # the first bounce (e = 0.5) lifts the ball off again
    assert len(rec.created) >= 1 and len(rec.deleted) >= 1
    assert rec.created[0].obj0 is b and rec.created[0].obj1 is fl
    assert rec.deleted[0].contact is rec.created[0].contact
    assert rec.created[0].normal_ws == pytest.approx((0.0, -1.0, 0.0))


def test_listener_for_another_object_hears_nothing_and_removal_stops_events():
    env, fl, b = drop_scene()
    other = ball(env, (50.0, 2.02, 0.0), name="other")
    rec = Recorder()
    env.collision.add_listener_collision(rec, other)
    all_rec = Recorder()
    env.collision.add_listener_collision(all_rec)
    env.collision.remove_listener_collision(all_rec)
    run(env, 1.0)
    assert rec.collisions == [] and all_rec.collisions == []


def test_contacts_list_exposes_gap_and_normal_force_for_the_overlay():
    env, fl, b = drop_scene(height=0.0)
    run(env, 2.0)
    (c,) = list(env.collision.contacts())
    assert c.obj0 is b and c.obj1 is fl
    assert c.gap == pytest.approx(0.02, abs=0.005)
    assert c.normal_force == pytest.approx(1.0 * 20.0, rel=0.02)      # m g
    # the point is on the ball's surface (ivp-contacts 5.3), the gap above the floor
    assert c.point_ws[1] == pytest.approx(c.gap, abs=1e-6)
