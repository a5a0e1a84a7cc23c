"""The body table (ivp.state.bodies, issue 39 step 1): every core's state is
its row; a Core is a view onto it (table, row, generation). Runs with and
without the compiled kernels."""

import pytest

from ivp import BallTemplate, Environment
from ivp.state.bodies import StaleCoreError
from ivp.state.layout import CALM_T, M_POS, M_R, POS, Q_NEXT, SPEED, STATE, WIDTH


def balls(env, n, y=100.0):
    return [env.create_ball(BallTemplate(name=f"b{i}", radius=0.5), (3.0 * i, y, 0.0)) for i in range(n)]


def test_a_cores_fields_are_its_row_both_ways():
    env = Environment(collision=False)
    core = balls(env, 1)[0].core
    row = env.bodies.rows[core.row]
    assert env.bodies.rows.shape[1] == WIDTH
    assert tuple(row[POS:POS + 3]) == (0.0, 100.0, 0.0)          # the creation position
    assert tuple(row[Q_NEXT:Q_NEXT + 4]) == (0.0, 0.0, 0.0, 1.0)  # no rotation, (x, y, z, w)
    core.speed = (1.5, -2.0, 0.25)                                 # a write through the view lands in the row
    assert row[SPEED:SPEED + 3].tolist() == [1.5, -2.0, 0.25]
    row[SPEED + 1] = 7.0                                           # a write into the row (as a kernel's) is read
    assert core.speed == (1.5, 7.0, 0.25)
    core.time_calm_ref = [2.0, 3.0]
    assert row[CALM_T:CALM_T + 2].tolist() == [2.0, 3.0] and core.time_calm_ref == [2.0, 3.0]
    core.movement_state = 3
    assert row[STATE] == 3.0 and core.movement_state == 3 and type(core.movement_state) is int


def test_the_pose_is_one_object_until_written_and_its_columns_follow():
    env = Environment(collision=False)
    core = balls(env, 1)[0].core
    m = core.m_world_f_core_last_psi
    assert core.m_world_f_core_last_psi is m
    new = ((0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0), (4.0, 5.0, 6.0))
    core.m_world_f_core_last_psi = new
    assert core.m_world_f_core_last_psi is new
    row = env.bodies.rows[core.row]
    assert tuple(row[M_R:M_R + 9]) == new[0] and tuple(row[M_POS:M_POS + 3]) == new[1]


def test_rows_grow_past_the_first_block_and_every_core_keeps_its_state():
    env = Environment(collision=False)
    first = env.bodies.rows.shape[0]
    objs = balls(env, first + 10)
    assert env.bodies.rows.shape[0] == 2 * first                   # grown by doubling, once
    for i, o in enumerate(objs):
        assert o.core.row == i and o.core.pos_world_f_core_last_psi == (3.0 * i, 100.0, 0.0)
    for o in objs:
        o.wake()
    env.simulate(1.0)                                              # free fall: v = g t, the same for every ball
    vy = objs[0].core.speed[1]
    assert vy == pytest.approx(-9.81, rel=0.02)
    assert all(o.core.speed == (0.0, vy, 0.0) for o in objs)


def test_a_deleted_objects_core_fails_loudly_and_its_row_is_used_again():
    env = Environment(collision=False)
    a, b = balls(env, 2)
    gone = a.core
    env.delete_object(a)
    assert env.bodies.gen[gone.row] == 1 and env.bodies.cores[gone.row] is None
    with pytest.raises(StaleCoreError, match="deleted object"):
        gone.speed
    with pytest.raises(StaleCoreError):
        gone.speed = (1.0, 0.0, 0.0)
    c = balls(env, 1, y=50.0)[0]
    assert c.core.row == gone.row and c.core.pos_world_f_core_last_psi == (0.0, 50.0, 0.0)
    with pytest.raises(StaleCoreError):
        gone.pos_world_f_core_last_psi
    assert b.core.pos_world_f_core_last_psi == (3.0, 100.0, 0.0)


def test_two_environments_have_their_own_tables():
    e1 = Environment(collision=False)
    e2 = Environment(collision=False)
    c1 = balls(e1, 1)[0].core
    c2 = balls(e2, 1)[0].core
    assert c1.row == c2.row == 0 and e1.bodies is not e2.bodies
    c1.speed = (1.0, 2.0, 3.0)
    assert c2.speed == (0.0, 0.0, 0.0)
