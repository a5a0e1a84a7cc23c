"""A resting ball's four controllers in the lane's runs (ivp.step.runs, issue
39: its one contact point's friction beside gravity): the same bits as the four
controllers of the object path, PSI by PSI, for the core and its contact point,
through rolling over triangle edges and vertices, leaving the floor's edge,
damping and sleep; the runs read and write the points' rows of the contact
table (ivp.state.contacts)."""

import math

import pytest

from ivp import Environment, rng, sim_unit
from ivp.step.unit_pass import ENABLED as LANE_ENABLED
from ivp.core import MT_NOT_SIM
from ivp.step import runs
from ivp.state.contacts import StaleContactError
from ivp.state.layout import POINT_WIDTH
from test_collision_scenes import ball, floor

pytestmark = pytest.mark.skipif(not LANE_ENABLED, reason="the lane's runs need the compiled kernels")


def state(env):
    out = [env.sleep_countdown_value, rng.get_seed(), env.current_time]
    for o in env.objects:
        c = o.core
        out.append((c.pos_world_f_core_last_psi, c.q_world_f_core_next_psi, c.speed, c.rot_speed,
                    c.speed_change, c.rot_speed_change, c.movement_state, c.time_calm_ref, c.pos_calm_ref))
    for cp in env.collision.contacts():
        out.append((cp.gap, cp.n, cp.p, cp.t0, cp.t1, cp.r_cs, cp.rxn, cp.inv_vm, cp.span_s,
                    cp.now_friction_pressure, cp.last_gap_len, cp.needs_recheck, cp.broken, cp.last_time,
                    cp.side1.feature))
    return repr(out)


def world(lane: bool = True):
    """Balls on a 4 x 4-quad floor (40 m): some dropped to rest (sleep), some
    rolling across the triangles' edges and vertices, one over the floor's
    edge, some damped, some on a tilted floor."""
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    if not lane:
        env.lane = None
    floor(env)
    floor(env, tilt=math.radians(12.0), position=(0.0, -30.0, 60.0), name="slope")
    balls = [ball(env, (-15.0 + 3.1 * i, 0.52 + 0.4 * (i % 3), -12.0 + 1.7 * i), radius=0.5, name=f"r{i}",
                  speed_damp_factor=0.3 * (i % 2)) for i in range(8)]
    balls += [ball(env, (3.0 * i - 6.0, -25.0, 58.0), radius=1.0, name=f"s{i}") for i in range(4)]
    for b in balls:
        b.wake()
    for _ in range(20):
        env.simulate(env.delta_PSI_time)
    for i, b in enumerate(balls[:8]):
        if i % 2:
            b.core.speed = (6.0 - i, 0.0, 3.0 + 0.5 * i)        # rolls across edges; r7 over the floor's edge
    balls[7].core.speed = (25.0, 0.0, 0.0)
    return env


def run(lane: bool, monkeypatch, psis: int = 500):
    """The states after each PSI with the lane (its runs) or without (the
    object path), and how many units on a contact point the runs ran."""
    ran = [0]
    real_rows = runs.run_rows

    def counted_rows(env, units, cores, rows, flags, slots, *rest):
        done = real_rows(env, units, cores, rows, flags, slots, *rest)
        ran[0] += int((slots[:done] >= 0).sum())
        return done

    monkeypatch.setattr(runs, "run_rows", counted_rows)
    monkeypatch.setattr(sim_unit, "run_rows", counted_rows)     # (a plan's runs)
    env = world(lane=lane)
    seen = []
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
        seen.append(state(env))
    return seen, ran[0]


def test_the_kernel_gives_the_object_paths_bits_psi_by_psi(monkeypatch):
    by_kernel, ran = run(True, monkeypatch)
    by_objects, ran_objects = run(False, monkeypatch)
    assert ran > 1000 and ran_objects == 0            # the kernel path did run (and only there)
    for k, (a, b) in enumerate(zip(by_kernel, by_objects)):
        assert a == b, f"PSI {k}"


def point_state(env):
    """Every field of every point, as its readers see it."""
    return repr([(cp.gap, cp.n, cp.p, cp.t0, cp.t1, cp.inv_vm, cp.span_s, cp.now_friction_pressure,
                  cp.last_gap_len, cp.needs_recheck, cp.broken, cp.last_time, cp.last_n,
                  cp.impacts_while_system, cp.test_fresh, cp.real_friction_factor, cp.r_cs, cp.rxn)
                 for cp in env.collision.contacts()])


def _points_run(lane: bool, psis: int, write_at: int = -1):
    """point_state after every PSI of world(lane) (run alone: the RNG is global);
    at PSI ``write_at`` the first point's friction is set to 0.05."""
    env = world(lane=lane)
    seen = []
    for k in range(psis):
        if k == write_at:
            cp = next(iter(env.collision.contacts()))
            cp.real_friction_factor = 0.05
            assert cp.real_friction_factor == 0.05
        env.simulate(env.delta_PSI_time)
        seen.append(point_state(env))
    return env, seen


def test_the_runs_points_read_as_the_object_paths():
    """The runs' points read between PSIs (every field a pass writes,
    the lever lists too) equal a world without the lane; a lever list read
    is a new list (a change to it changes nothing); a fixed side's lever is
    None."""
    lane, seen = _points_run(True, 300)
    plain, seen_plain = _points_run(False, 300)
    for k, (a, b) in enumerate(zip(seen, seen_plain)):
        assert a == b, f"PSI {k}"
    cp = next(p for p in lane.collision.contacts() if p.core0.movement_state != MT_NOT_SIM)
    assert lane.contacts.points[cp.row] is cp
    twin = next(p for p in plain.collision.contacts() if p.side0.shape.obj.name == cp.side0.shape.obj.name)
    assert cp.r_cs == twin.r_cs and cp.rxn == twin.rxn and twin.r_cs[1] is None and cp.r_cs[0] is not None
    levers = cp.r_cs
    levers[0] = (9.0, 9.0, 9.0)
    assert cp.r_cs == twin.r_cs


def test_a_write_to_a_point_lands_and_a_deleted_one_frees_its_row():
    """A write between PSIs is read by the next run as by the object
    path; a deleted point's row is zeroed and its generation moves on: the
    point fails loudly, its row is the next new point's."""
    lane, seen = _points_run(True, 120, write_at=60)
    plain, seen_plain = _points_run(False, 120, write_at=60)
    assert seen == seen_plain
    table = lane.contacts
    victim = next(iter(lane.collision.contacts()))
    k, gen = victim.row, table.gen[victim.row]
    assert table.rows[k].any()
    lane.delete_object(victim.side0.shape.obj)
    assert not victim.alive and table.points[k] is None and table.gen[k] == gen + 1
    assert table.rows[k].tolist() == [0.0] * POINT_WIDTH
    with pytest.raises(StaleContactError, match=f"row {k} of the contact table"):
        victim.gap
    assert "deleted" in repr(victim)
    assert table.free[-1] == k
    b = ball(lane, (10.0, 0.51, 10.0), radius=0.5, name="new")       # 1 cm above the floor: a point at once
    b.wake()
    lane.simulate(lane.delta_PSI_time)
    fresh = next(p for p in lane.collision.contacts() if b in (p.obj0, p.obj1))
    assert fresh.row == k and fresh._gen == gen + 1 and table.points[k] is fresh
    with pytest.raises(StaleContactError):
        victim.n = (0.0, 1.0, 0.0)


def test_a_snapshot_copies_the_contact_table_and_its_copy_runs_on_identically():
    env = world(lane=True)
    for _ in range(80):
        env.simulate(env.delta_PSI_time)
    copy = env.snapshot().restore()
    assert copy.contacts is not env.contacts and copy.contacts.rows.tobytes() == env.contacts.rows.tobytes()
    assert all(cp._contacts is copy.contacts for cp in copy.collision.contacts())
    seed = rng.get_seed()
    for _ in range(60):
        env.simulate(env.delta_PSI_time)
    a = point_state(env), state(env)
    rng.set_seed(seed)
    for _ in range(60):
        copy.simulate(copy.delta_PSI_time)
    assert (point_state(copy), state(copy)) == a
