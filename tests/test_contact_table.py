"""The contact table (ivp.state.contacts, issue 39): every friction contact
point's fields are its row; a ContactPoint is a view onto it (table, row,
generation). The table grows by doubling and every view keeps reading its
own row."""

import pytest

from ivp import Environment
from ivp.collision.impact import Rows
from ivp.collision.impact_kernels import REACHED
from ivp.state.layout import GAP, NORMAL, POINT, POINT_WIDTH
from test_collision_scenes import ball, floor, run


def resting_balls(n: int):
    """n balls (r 0.5) set down 1 cm above a 40 m floor, 1.2 m apart in rows of 25."""
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env)
    balls = [ball(env, (-17.3 + 1.2 * (i % 25), 0.51, -15.7 + 2.5 * (i // 25)), radius=0.5, name=f"b{i}")
             for i in range(n)]
    for b in balls:
        b.wake()
    return env, balls


def test_the_table_grows_past_its_first_block_and_each_view_reads_its_own_row():
    env, balls = resting_balls(70)
    first = env.contacts.rows.shape[0]
    run(env, 0.2)
    cps = list(env.collision.contacts())
    assert first == 64 and env.contacts.rows.shape == (128, POINT_WIDTH)
    assert sorted(cp.row for cp in cps) == list(range(len(cps)))          # (a ball on an edge has two)
    assert {cp.obj0 for cp in cps} | {cp.obj1 for cp in cps} >= set(balls) and 70 <= len(cps) <= 128
    for cp in cps:
        b = cp.obj0 if cp.obj0 in balls else cp.obj1
        x, y, z = b.core.pos_world_f_core_last_psi
        row = env.contacts.rows[cp.row]
        # a ball on a flat floor: its lowest point, straight below its centre, the gap above the floor
        assert cp.p == tuple(row[POINT:POINT + 3]) and cp.p[0] == pytest.approx(x, abs=1e-6)
        assert cp.p[1] == pytest.approx(y - 0.5, abs=1e-6) and cp.p[2] == pytest.approx(z, abs=1e-6)
        assert cp.p[1] == pytest.approx(cp.gap, abs=1e-6)
        assert cp.n == tuple(row[NORMAL:NORMAL + 3]) and abs(cp.n[1]) == pytest.approx(1.0, abs=1e-6)
        assert cp.gap == row[GAP] and 0.0 <= cp.gap < 0.02
        assert env.contacts.points[cp.row] is cp and cp.alive


def test_a_write_through_a_view_lands_in_its_row_and_a_row_write_is_read():
    env, _ = resting_balls(2)
    run(env, 0.1)
    a, b = list(env.collision.contacts())
    a.span_s = (0.25, -0.5)
    a.needs_recheck = True
    a.last_n = None
    a.has_negative_pull_since = -3
    assert a.span_s == (0.25, -0.5) and a.needs_recheck is True and a.last_n is None
    assert a.has_negative_pull_since == -3 and type(a.has_negative_pull_since) is int
    env.contacts.rows[b.row, GAP] = 0.0125                    # (as a kernel writes it)
    assert b.gap == 0.0125 and a.gap != 0.0125
    b.last_n = (0.0, 1.0, 0.0)
    assert b.last_n == (0.0, 1.0, 0.0)


def test_two_environments_have_their_own_contact_tables():
    e1, _ = resting_balls(1)
    e2, _ = resting_balls(3)
    run(e1, 0.1)
    run(e2, 0.1)
    assert e1.contacts is not e2.contacts
    assert len(list(e1.collision.contacts())) == 1 and len(list(e2.collision.contacts())) == 3
    assert all(cp._contacts is e2.contacts for cp in e2.collision.contacts())
    assert [cp.row for cp in e1.collision.contacts()] == [0]


def test_the_impact_rows_skip_a_point_deleted_during_the_loop():
    """An anomaly handler may delete an object inside the impact loop (4.7):
    the points gathered before keep rows in the loop's arrays, and putting
    them back must not write into a freed row (StaleContactError)."""
    env, _ = resting_balls(2)
    run(env, 0.1)
    a, b = list(env.collision.contacts())
    rows = Rows(env)
    rows.add_points([a, b])
    env.collision.delete_contact(a)
    with pytest.raises(RuntimeError, match="deleted contact point"):
        a.test_fresh = True
    rows.put_back_points(None)
    assert b.alive and b.reached == rows.PF[1, REACHED]
