"""Several-contact systems (issue 11): the dynamic and static handles read the
points' values from the rows the energy handle's pass left in the same PSI
(FrictionSystem.updated_rows), with the same values as packing them again
from the contact points; the energy handle moves the movable hull sides'
points from the core frame (friction_kernels.moving_sides_k) to side_data's
values."""

import numpy as np

from ivp import Environment, rng
from ivp.collision.friction import FrictionSystem
from ivp.collision.friction_passes import _core_states
from ivp.collision.friction_kernels import moving_sides_k
from ivp.collision.points import LoanedPoint
from test_collision_scenes import ball, box, floor


def heap_world():
    """A stack of four boxes, one turned, and six balls dropped on it and on the floor."""
    rng.reset()
    env = Environment(gravity=(0.0, -10.0, 0.0))
    floor(env, n=6, size=30.0)
    for k in range(4):
        box(env, (0.1 * k, 0.5 + 1.02 * k, 0.0), size=(2.0, 1.0, 1.5 - 0.2 * k), name=f"box{k}",
            quaternion=(0.0, 0.1, 0.0, 0.995) if k == 2 else None)
    for k in range(6):
        ball(env, (-1.5 + 0.6 * k, 5.0 + 0.7 * k, 0.3 * (k % 2)), radius=0.4, name=f"ball{k}")
    for o in env.objects:
        if not o.core.physical_unmoveable:
            o.wake()
    return env


def states(env, psis: int) -> list:
    out = []
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
        out.append(repr([rng.get_seed()] + [(o.core.pos_world_f_core_last_psi, o.core.q_world_f_core_last_psi,
                                             o.core.speed, o.core.rot_speed) for o in env.objects]))
    return out


def test_the_handles_read_the_energy_handles_rows_with_the_values_of_the_points(monkeypatch):
    read = []
    kept = FrictionSystem.updated_rows

    def counted(self, lay, psi):
        rows = kept(self, lay, psi)
        read.append(rows is not None)
        return rows

    monkeypatch.setattr(FrictionSystem, "updated_rows", counted)
    from_rows = states(heap_world(), 200)
    assert sum(read) > 100                               # the rows were read, PSI after PSI
    monkeypatch.setattr(FrictionSystem, "updated_rows", lambda self, lay, psi: None)
    packed = states(heap_world(), 200)
    assert from_rows == packed
    assert from_rows[20] != from_rows[199]               # the heap moved


def test_the_movable_hull_sides_moved_from_the_core_frame_are_side_data_bit_for_bit():
    """Every movable hull side of the heap's systems (points, edges and faces
    of the boxes, PSI after PSI) packs as ContactPoint.side_data packs it."""
    env = heap_world()
    kinds = set()
    for _ in range(120):
        env.simulate(env.delta_PSI_time)
        for fs in env.collision.systems:
            lay = fs.layout()
            R, POS, _, _ = _core_states(fs, lay)
            _, _, _, L, AT, _ = fs.side_columns(lay)
            F = np.full((len(lay.cps), 26), np.nan)
            moving_sides_k(L, AT, R, POS, F)
            for q, o, _ in AT.tolist():
                k, pts = lay.cps[q].side_data(o // 13)
                assert F[q, o:o + 13].tolist() == [k] + [x for v in pts for x in v]
                kinds.add(k)
    assert kinds == {0, 1, 2}


def test_the_passes_read_the_cores_rows_and_a_new_pose_at_once():
    """_core_states reads every core's pose and speeds from its row of the
    body table (issue 39), taken by the lane or not: a pose or speed written
    through the core is what the next call reads."""
    env = heap_world()
    for _ in range(40):
        env.simulate(env.delta_PSI_time)
    fs = max(env.collision.systems, key=lambda s: len(s.cores))
    lay = fs.layout()
    R, POS, V, W = _core_states(fs, lay)
    for j, c in enumerate(lay.cores):
        assert R[j].tolist() == list(c.m_world_f_core_last_psi[0]) and V[j].tolist() == list(c.speed)
        assert POS[j].tolist() == list(c.m_world_f_core_last_psi[1]) and W[j].tolist() == list(c.rot_speed)
    core = next(c for c in lay.cores if not c.physical_unmoveable)
    k = lay.cores.index(core)
    m = core.m_world_f_core_last_psi
    core.m_world_f_core_last_psi = ((0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0), (1.5, 2.5, 3.5))
    core.speed = (4.0, 5.0, 6.0)
    try:
        R3, POS3, V3, _ = _core_states(fs, lay)
    finally:
        core.m_world_f_core_last_psi = m
    assert R3[k].tolist() == [0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    assert POS3[k].tolist() == [1.5, 2.5, 3.5] and V3[k].tolist() == [4.0, 5.0, 6.0]
    for j, c in enumerate(lay.cores):
        assert R3[j].tolist() == list(c.m_world_f_core_last_psi[0]) or j == k
        assert POS3[j].tolist() == list(c.m_world_f_core_last_psi[1]) or j == k


def point_state(env) -> str:
    """Every contact point's fields as a reader sees them."""
    return repr([(cp.gap, cp.n, cp.p, cp.t0, cp.t1, cp.inv_vm, cp.span_s, cp.now_friction_pressure,
                  cp.last_gap_len, cp.needs_recheck, cp.broken, cp.last_time, cp.last_n,
                  cp.impacts_while_system, cp.test_fresh, cp.r_cs, cp.rxn, cp.has_negative_pull_since)
                 for cp in env.collision.contacts()])


def test_a_systems_points_stay_on_loan_and_run_as_points_given_back_at_every_psi():
    """The points of the heap's several-point systems stay on loan from PSI
    to PSI (their rows are the truth between the passes) and the world runs
    as one whose points are all given back before every PSI (each pass then
    takes them from their fields): every core and every point field equal."""
    env = heap_world()
    kept = []
    for _ in range(150):
        env.simulate(env.delta_PSI_time)
        kept.append((states_now(env), point_state(env)))
    loaned = [cp for cp in env.collision.contacts()
              if type(cp) is LoanedPoint and cp.system is not None and len(cp.system.contacts) > 1]
    assert len(loaned) >= 10
    assert any(not cp.core0.physical_unmoveable and not cp.core1.physical_unmoveable for cp in loaned)
    other = heap_world()
    for k in range(150):
        if other.collision.points is not None:
            other.collision.points.give_back_all()
        other.simulate(other.delta_PSI_time)
        assert (states_now(other), point_state(other)) == kept[k], f"PSI {k}"


def states_now(env) -> str:
    return repr([rng.get_seed()] + [(o.core.pos_world_f_core_last_psi, o.core.q_world_f_core_last_psi,
                                     o.core.speed, o.core.rot_speed) for o in env.objects])
