"""Several-contact systems (issue 11): the dynamic and static handles read the
points' values from the rows the energy handle's pass left in the same PSI
(FrictionSystem.updated_rows), with the same values as packing them again
from the contact points; the energy handle moves the movable hull sides'
points from the core frame (friction_kernels.moving_sides_k) to side_data's
values; the points read what the passes wrote into their rows of the
contact table."""

import numpy as np

from ivp import Environment, rng
from ivp.collision.friction import FrictionSystem
from ivp.collision.friction_passes import _core_states
from ivp.collision.friction_kernels import moving_sides_k
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


def test_a_systems_points_read_what_the_energy_pass_wrote_into_their_rows():
    """Between PSIs, a several-point system's points read through their view
    the values the energy handle's pass wrote into their rows of the contact
    table (its result rows O, while the system's layout holds): gap (and
    last_gap_len), n, p, t0, t1, inv_vm, the levers (None for a fixed side)."""
    env = heap_world()
    checked = both = 0
    for _ in range(150):
        env.simulate(env.delta_PSI_time)
        for fs in env.collision.systems:
            kept = fs._updated
            if kept is None or kept[0] is not fs.layout():
                continue
            lay, _, O = kept
            for cp, o in zip(lay.cps, O.tolist()):
                assert (cp.gap, cp.last_gap_len, cp.n, cp.p, cp.t0, cp.t1, cp.inv_vm) == (
                    o[0], o[0], tuple(o[1:4]), tuple(o[4:7]), tuple(o[7:10]), tuple(o[10:13]), o[25])
                fixed = (cp.core0.physical_unmoveable, cp.core1.physical_unmoveable)
                assert cp.r_cs == [None if fixed[0] else tuple(o[13:16]), None if fixed[1] else tuple(o[16:19])]
                assert cp.rxn == [None if fixed[0] else tuple(o[19:22]), None if fixed[1] else tuple(o[22:25])]
                checked += 1
                both += not any(fixed)
    assert checked > 1000 and both > 100


def point_state(env) -> str:
    """Every contact point's fields as a reader sees them."""
    return repr([(cp.gap, cp.n, cp.p, cp.t0, cp.t1, cp.inv_vm, cp.span_s, cp.now_friction_pressure,
                  cp.last_gap_len, cp.needs_recheck, cp.broken, cp.last_time, cp.last_n,
                  cp.impacts_while_system, cp.test_fresh, cp.r_cs, cp.rxn, cp.has_negative_pull_since)
                 for cp in env.collision.contacts()])


def states_now(env) -> str:
    return repr([rng.get_seed()] + [(o.core.pos_world_f_core_last_psi, o.core.q_world_f_core_last_psi,
                                     o.core.speed, o.core.rot_speed) for o in env.objects])
