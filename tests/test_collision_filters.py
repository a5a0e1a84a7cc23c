"""Pair filters (surfaces-and-contacts 2): collision groups, Enable Collision, unmovable pairs."""

import pytest

from ivp import BallTemplate, Environment
from ivp.collision.material import may_collide
from test_collision_scenes import ball, box, floor, height, run


def stopper_scene(mover):
    """A body moving at 4 m/s along x towards a fixed 'Ball' stopper wall at x = 3."""
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, group="Floor")
    box(env, (3.5, 2.5, 0.0), size=(1.0, 5.0, 20.0), fixed=True, name="stopper", group="Ball")
    obj = mover(env)
    obj.async_add_speed_object_ws((4.0, 0.0, 0.0))
    run(env, 2.0)
    return obj


def test_ball_group_ball_passes_through_a_ball_group_stopper():
    obj = stopper_scene(lambda env: ball(env, (-2.0, 2.02, 0.0), name="player", group="Ball"))
    assert obj.core.pos_world_f_core_last_psi[0] > 3.0      # blocked, it would stop at 3 - 2 = 1


def test_ungrouped_box_is_stopped_by_the_ball_group_stopper():
    obj = stopper_scene(lambda env: box(env, (-2.0, 0.52, 0.0), name="crate", group=""))
    assert obj.core.pos_world_f_core_last_psi[0] < 3.0 - 0.5 + 0.03


def test_groups_compare_their_first_8_characters():
    env = Environment()
    a = ball(env, (0.0, 0.0, 0.0), name="a", group="Phys_Floors")
    b = ball(env, (10.0, 0.0, 0.0), name="b", group="Phys_FloorRails")
    c = ball(env, (20.0, 0.0, 0.0), name="c", group="")
    d = ball(env, (30.0, 0.0, 0.0), name="d", group="")
    assert not may_collide(a, b)          # "Phys_Flo" == "Phys_Flo"
    assert may_collide(a, c)
    assert may_collide(c, d)              # "" collides with everything, "" too


def test_two_unmovable_bodies_never_collide():
    env = Environment()
    f = floor(env)
    w = box(env, (0.0, 0.0, 0.0), fixed=True, name="wall")
    assert not may_collide(f, w)


def test_enable_collision_false_falls_through_the_floor():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    ghost = env.create_ball(BallTemplate(name="ghost", radius=2.0, collision_enabled=False), (0.0, 3.0, 0.0))
    ghost.wake()
    run(env, 1.0)
    assert height(ghost) < -2.0
    assert not list(env.collision.contacts())
    assert ghost.collision_data is None


def test_bodies_in_the_same_group_share_no_contact_even_when_overlapping():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    a = ball(env, (0.0, 0.0, 0.0), name="a", group="Ball")
    b = ball(env, (1.0, 0.0, 0.0), name="b", group="Ball")
    a.wake()
    b.wake()
    run(env, 0.2)
    assert a.core.pos_world_f_core_last_psi == pytest.approx((0.0, 0.0, 0.0))
    assert not list(env.collision.contacts())


@pytest.mark.parametrize("group", ["", "Ball"])
def test_a_ball_lands_on_a_fixed_floor_made_while_it_falls(group):
    """The enabled fixed bodies and, for a body with a group, may_collide's
    fixed bodies are kept between PSIs with the fixed boxes
    (CollisionSystem._fixed_boxes): a fixed floor made after the ball's
    first PSIs must be among them, so the ball (r 2) lands on its top, y = 0."""
    env = Environment(gravity=(0.0, -20.0, 0.0))
    box(env, (50.0, 0.0, 0.0), fixed=True, name="far")        # a fixed body in the kept lists from the start
    b = ball(env, (0.0, 4.0, 0.0), name="player", group=group)
    b.wake()
    run(env, 0.1)
    assert 3.8 < height(b) < 4.0                                # falling, nothing under it yet
    floor(env)
    run(env, 2.0)
    assert abs(height(b) - 2.0) < 0.05
