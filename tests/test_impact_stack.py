"""Stacks and pushes (surfaces-and-contacts 4, 5; dynamics 10): resting stacks sleep and
wake as one, impacts propagate, heavy balls push boxes and light ones barely do."""

import pytest

from ivp import MT_NOT_SIM, Environment
from ivp.collision import Material
from test_collision_scenes import ball, box, floor, height, run

BOX_MAT = Material(0.7, 0.3)          # P_Box (glue-and-content 3)


def stack(n=3):
    """n unit boxes stacked 2 cm apart on a floor, woken; gravity -20."""
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    boxes = [box(env, (0.0, 0.52 + 1.02 * i, 0.0), name=f"box{i}", material=BOX_MAT) for i in range(n)]
    for b in boxes:
        b.wake()
    return env, boxes


def test_three_stacked_boxes_settle_and_freeze_within_3_s():
    env, boxes = stack()
    frozen_at = None
    for k in range(3 * 66):
        run(env, env.delta_PSI_time)
        if all(b.core.movement_state == MT_NOT_SIM for b in boxes):
            frozen_at = k
            break
    assert frozen_at is not None
    # resting about 2 cm apart (spec 3), in one sim unit
    assert [height(b) for b in boxes] == pytest.approx([0.52, 1.54, 2.56], abs=0.01)
    assert len({id(b.core.sim_unit_of_core) for b in boxes}) == 1


def test_a_ball_hitting_the_frozen_stack_wakes_all_three():
    env, boxes = stack()
    run(env, 3.0)
    assert all(b.core.movement_state == MT_NOT_SIM for b in boxes)
    hits = []

    class Listener:
        def event_post_collision(self, ev):
            hits.append(ev)

    env.collision.add_listener_collision(Listener())
    stone = ball(env, (0.0, 5.0, 0.0), radius=0.5, name="stone", mass=10.0, material=Material(0.5, 0.1))
    stone.wake()
    woke = set()
    run(env, 0.6, lambda e: woke.update(b.name for b in boxes if b.core.movement_state != MT_NOT_SIM))
    assert any({h.obj0.name, h.obj1.name} == {"stone", "box2"} for h in hits)
    assert woke == {"box0", "box1", "box2"}


@pytest.mark.parametrize("ball_mass,ball_mat,box_mass,lo,hi", [
    (10.0, Material(0.5, 0.1), 1.0, 1.0, None),       # stone ball, 1 kg box: pushed away
    (0.2, Material(0.5, 0.4), 3.0, None, 0.05),       # paper ball, 3 kg box: barely moves
])
def test_ball_pushing_a_box(ball_mass, ball_mat, box_mass, lo, hi):
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, material=Material(0.7, 0.3))
    b = box(env, (0.0, 1.27, 0.0), size=(2.5, 2.5, 2.5), mass=box_mass, material=BOX_MAT)
    bl = ball(env, (-5.0, 2.02, 0.0), radius=2.0, mass=ball_mass, material=ball_mat)
    b.wake()
    bl.wake()
    bl.async_add_speed_object_ws((6.0, 0.0, 0.0))
    run(env, 2.0)
    moved = b.core.pos_world_f_core_last_psi[0]
    if lo is not None:
        assert moved > lo
    if hi is not None:
        assert abs(moved) < hi


def test_units_split_again_when_the_contact_ends():
    env, (low, top) = stack(2)
    run(env, 0.5)
    assert low.core.sim_unit_of_core is top.core.sim_unit_of_core
    top.async_add_speed_object_ws((0.0, 8.0, 0.0))         # thrown up: the contact drops beyond 0.045
    run(env, 0.3)
    assert not [c for c in env.collision.contacts() if top in (c.obj0, c.obj1)]
    assert low.core.sim_unit_of_core is not top.core.sim_unit_of_core


def test_reviving_a_body_pulls_in_its_resting_movable_partner():
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    low = box(env, (0.0, 0.52, 0.0), name="low", material=BOX_MAT)
    top = box(env, (0.0, 1.54, 0.0), name="top", material=BOX_MAT)      # 0.02 above low: both frozen
    low.wake()
    run(env, 2 * env.delta_PSI_time)
    assert top.core.movement_state != MT_NOT_SIM
    assert low.core.sim_unit_of_core is top.core.sim_unit_of_core
    assert any({c.obj0, c.obj1} == {low, top} for c in env.collision.contacts())
