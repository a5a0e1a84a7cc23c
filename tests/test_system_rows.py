"""Several-contact systems (issue 11, 39): the energy handle moves the movable
hull sides' points from the core frame (friction_kernels.moving_sides_k) to
side_data's values; the passes read the cores' states from their rows of
the body table, a new pose at once."""

import numpy as np

from ivp import Environment, rng
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


def test_the_movable_hull_sides_moved_from_the_core_frame_are_side_data_bit_for_bit():
    """Every movable hull side of the heap's systems (points, edges and faces
    of the boxes, PSI after PSI) packs as ContactPoint.side_data packs it."""
    env = heap_world()
    kinds = set()
    for _ in range(120):
        env.simulate(env.delta_PSI_time)
        for fs in env.collision.systems:
            lay = fs.layout()
            R, POS, _, _ = _core_states(env.bodies.rows, lay.K.rows)
            (_, L, AT, _, _), _ = fs.side_columns(lay)
            F = np.full((len(lay.cps), 26), np.nan)
            moving_sides_k(L, AT, R, POS, F)
            for q, o, _ in AT.tolist():
                k, pts = lay.cps[q].side_data(o // 13)
                assert F[q, o:o + 13].tolist() == [k] + [x for v in pts for x in v]
                kinds.add(k)
    assert kinds == {0, 1, 2}


def test_the_passes_read_the_cores_rows_and_a_new_pose_at_once():
    """_core_states reads every core's pose and speeds from its row of the
    body table (issue 39): a pose or speed written through the core is what
    the next call reads."""
    env = heap_world()
    for _ in range(40):
        env.simulate(env.delta_PSI_time)
    fs = max(env.collision.systems, key=lambda s: len(s.cores))
    lay = fs.layout()
    R, POS, V, W = _core_states(env.bodies.rows, lay.K.rows)
    for j, c in enumerate(lay.cores):
        assert R[j].tolist() == list(c.m_world_f_core_last_psi[0]) and V[j].tolist() == list(c.speed)
        assert POS[j].tolist() == list(c.m_world_f_core_last_psi[1]) and W[j].tolist() == list(c.rot_speed)
    core = next(c for c in lay.cores if not c.physical_unmoveable)
    k = lay.cores.index(core)
    m = core.m_world_f_core_last_psi
    core.m_world_f_core_last_psi = ((0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0), (1.5, 2.5, 3.5))
    core.speed = (4.0, 5.0, 6.0)
    try:
        R3, POS3, V3, _ = _core_states(env.bodies.rows, lay.K.rows)
    finally:
        core.m_world_f_core_last_psi = m
    assert R3[k].tolist() == [0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    assert POS3[k].tolist() == [1.5, 2.5, 3.5] and V3[k].tolist() == [4.0, 5.0, 6.0]
    for j, c in enumerate(lay.cores):
        assert R3[j].tolist() == list(c.m_world_f_core_last_psi[0]) or j == k
        assert POS3[j].tolist() == list(c.m_world_f_core_last_psi[1]) or j == k
