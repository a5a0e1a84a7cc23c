"""The physics manager's frame step (glue-and-content 1; ivp spec 4.2, 4.3, 10.5, 11)."""

import numpy as np
import pytest

from bbglue import CKContext, blocks, meshes
from ivp import umath
from ivp.fp import f32

FRAME_MS = 1000.0 / 60.0


def ball(ctx, name="ball", position=(0.0, 50.0, 0.0), **pins):
    e = ctx.create_entity(name, mesh=meshes.sphere(2.0), position=position)
    pins.setdefault("ball_count", 1)
    pins.setdefault("ball_radius_1", 2.0)
    blocks.physicalize(ctx, e, **pins)
    return e


def test_smoothing_starts_at_zero_and_averages_a_quarter():
    ctx = CKContext()
    ctx.process_frame(10.0)
    assert ctx.physics.smoothed_ms == 2.5                   # (10 + 3 * 0) / 4
    ctx.process_frame(30.0)
    assert ctx.physics.smoothed_ms == (30.0 + 3 * 2.5) / 4  # 9.375
    assert ctx.physics.sim_dt == pytest.approx(9.375 * 0.001 * 1.0)


def test_frame_delta_is_clamped_to_ballance_1_to_1000_ms():
    ctx = CKContext()
    ctx.process_frame(5000.0)                # a stalled frame (window drag, breakpoint)
    assert ctx.time_manager.last_delta_ms == 1000.0
    assert ctx.physics.smoothed_ms == 250.0
    ctx.process_frame(0.01)
    assert ctx.time_manager.last_delta_ms == 1.0


def test_clamp_is_configurable():
    ctx = CKContext(min_delta_ms=5.0, max_delta_ms=100.0)
    ctx.process_frame(5000.0)
    assert ctx.time_manager.last_delta_ms == 100.0
    with pytest.raises(ValueError, match="min_delta_ms"):
        CKContext(min_delta_ms=10.0, max_delta_ms=1.0)


def test_time_factor_2_runs_132_psis_per_second_after_smoothing_converged():
    ctx = CKContext()
    ctx.physics.set_globals((0.0, -20.0, 0.0), 2.0)
    for _ in range(200):                     # (3/4)^200: the smoothing has converged
        ctx.process_frame(FRAME_MS)
    env = ctx.physics.env
    t0, n0 = env.current_time, env.psi_count
    for _ in range(600):                     # 10 s of frames
        ctx.process_frame(FRAME_MS)
    # the frame delta is a CK float: 600 x (f32)(1000/60) ms x 0.001 x 2
    assert env.current_time - t0 == pytest.approx(600 * f32(FRAME_MS) * 0.002, rel=1e-9)
    # PSI period (f32)(1/66): 20 s of simulation hold 1320 PSIs, +-1 at the ends
    assert abs((env.psi_count - n0) - 1320) <= 1


def psis_before(target, period):
    """PSIs at T_0 = 0, T_{k+1} = T_k + (f64)(f32)period, strictly before target."""
    n, t = 0, 0.0
    while t < target:
        n += 1
        t += f32(period)
    return n


def test_smoothing_switch_off_feeds_each_frame_straight_to_simulate():
    ctx = CKContext()
    ctx.physics.smoothing = False
    ctx.process_frame(100.0)
    assert ctx.physics.smoothed_ms == 100.0
    assert ctx.physics.env.current_time == pytest.approx(0.1)
    assert ctx.physics.env.psi_count == psis_before(0.1, 1.0 / 66.0)      # 7
    on = CKContext()
    on.process_frame(100.0)                  # smoothed from 0: 25 ms
    assert on.physics.env.psi_count == psis_before(0.025, 1.0 / 66.0)     # 2


def test_psi_length_applies_to_a_new_world_and_survives_clean():
    ctx = CKContext()
    ctx.physics.smoothing = False
    ctx.physics.set_psi_length(0.01)
    ctx.physics.clean_world()
    env = ctx.physics.env
    assert env.delta_PSI_time == 0.01 and env.inv_delta_PSI_time == 100.0
    ctx.process_frame(100.0)
    assert env.psi_count == psis_before(0.1, 0.01)                       # f32(0.01) < 0.01: 11
    with pytest.raises(ValueError, match="PSI length"):
        ctx.physics.set_psi_length(0.0)
    assert ctx.physics.env is env


def test_paused_time_factor_0_runs_no_psi():
    ctx = CKContext()
    ctx.physics.set_globals((0.0, -20.0, 0.0), 0.0)
    for _ in range(10):
        ctx.process_frame(FRAME_MS)
    assert ctx.physics.env.psi_count == 0


def _pose_4_2(obj, t):
    """Spec 4.2 from the core's fields (ball: no shift, no q_core_f_object)."""
    c = obj.core
    dt = t - c.time_of_last_psi
    q = umath.quat_slerp(c.q_world_f_core_last_psi, c.q_world_f_core_next_psi, dt * c.i_delta_time)
    p, d = c.pos_world_f_core_last_psi, c.delta_world_f_core_psis
    return umath.quat_to_matrix(q), tuple(p[i] + d[i] * dt for i in range(3))


def test_write_back_is_the_pose_interpolated_at_the_frame_time():
    ctx = CKContext()
    e = ball(ctx)
    blocks.impulse(ctx, e, direction=(1.0, 0.0, 0.0), impulse=3.0, position=(0.0, 50.0, 1.0))
    for _ in range(5):
        ctx.process_frame(FRAME_MS)
    env = ctx.physics.env
    body = ctx.physics.body_of(e)
    assert env.current_time != body.core.time_of_last_psi      # extrapolated from the last PSI
    R, vv = _pose_4_2(body, env.current_time)
    m = e.get_world_matrix().as_array()
    expected = np.identity(4)
    for r in range(3):
        for c in range(3):
            expected[c, r] = f32(R[r * 3 + c])                    # Vx[c][r] = (f32) R[r][c]
    expected[3, :3] = [f32(x) for x in vv]
    assert np.array_equal(m, expected.astype(np.float32))
    assert m[3, 1] != f32(body.core.pos_world_f_core_last_psi[1])


def test_write_back_only_of_awake_movable_bodies():
    ctx = CKContext()
    floor = ctx.create_entity("floor", mesh=meshes.box(10, 1, 10), position=(0, -5, 0))
    blocks.physicalize(ctx, floor, fixed=True)
    frozen = ball(ctx, "frozen", position=(20, 50, 0), start_frozen=True)
    awake = ball(ctx, "awake")
    ctx.process_frame(FRAME_MS)
    assert ctx.physics.write_back_objects == [ctx.physics.body_of(awake)]
    for e in (floor, frozen, awake):
        e.set_position((1.0, 2.0, 3.0))        # a script moves physicalized entities
    ctx.process_frame(FRAME_MS)
    assert floor.get_position() == (1.0, 2.0, 3.0)
    assert frozen.get_position() == (1.0, 2.0, 3.0)
    assert awake.get_position() != (1.0, 2.0, 3.0)          # overwritten: the body moved on
    assert ctx.physics.body_of(frozen).core.pos_world_f_core_last_psi == (20.0, 50.0, 0.0)  # never read back


def test_frozen_body_leaves_the_write_back_set():
    ctx = CKContext()
    ctx.physics.set_globals((0.0, 0.0, 0.0), 1.0)
    e = ball(ctx)
    ctx.process_frame(FRAME_MS)
    body = ctx.physics.body_of(e)
    assert body in ctx.physics.write_back_objects
    for _ in range(300):                     # at rest, no gravity: it freezes (spec 10.2)
        ctx.process_frame(FRAME_MS)
    assert body.object_state == 8 and ctx.physics.write_back_objects == []
    blocks.wake_up(ctx, e)
    ctx.process_frame(FRAME_MS)
    assert ctx.physics.write_back_objects == [body]


def test_frozen_listener_removes_element_0_when_the_object_is_missing():
    ctx = CKContext()
    ball(ctx, "a")
    ball(ctx, "b", position=(10, 50, 0))
    ctx.process_frame(FRAME_MS)
    v = ctx.physics.write_back_objects
    first = v[0]
    other = [o for o in v if o is not first][0]
    ctx.physics.write_back_objects[:] = [first]
    ctx.physics.env.fire_object_frozen(other)          # not in the vector: element 0 goes (0x10007fd0)
    assert ctx.physics.write_back_objects == []


def test_revived_listener_appends_without_duplicate_check():
    """Spec 10.5 (0x10008030): a second revived event appends the object again."""
    ctx = CKContext()
    e = ball(ctx)
    ctx.process_frame(FRAME_MS)
    body = ctx.physics.body_of(e)
    ctx.physics.env.fire_object_revived(body)
    assert ctx.physics.write_back_objects == [body, body]


def test_write_back_replaces_the_entity_scale():
    """Spec 4.3: SetWorldMatrix with the unit IVP rotation: the scale is lost."""
    ctx = CKContext()
    e = ctx.create_entity("big", mesh=meshes.sphere(1.0), position=(0, 50, 0), scale=(2, 2, 2))
    blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=2.0)
    ctx.process_frame(FRAME_MS)
    assert e.get_scale() == pytest.approx((1.0, 1.0, 1.0))


def test_teleport_by_unphysicalize_move_physicalize():
    ctx = CKContext()
    e = ball(ctx)
    for _ in range(3):
        ctx.process_frame(FRAME_MS)
    blocks.unphysicalize(ctx, e)
    e.set_position((100.0, 7.0, 0.0))
    blocks.physicalize(ctx, e, ball_count=1, ball_radius_1=2.0)
    assert ctx.physics.body_of(e).core.pos_world_f_core_last_psi == (100.0, 7.0, 0.0)
    ctx.process_frame(FRAME_MS)
    x, y, _ = e.get_position()
    assert x == 100.0 and 6.0 < y < 7.0


def test_wood_ball_falls_as_the_closed_form_at_ballance_globals():
    """Glue-and-content 3: a wood ball in free fall, 132 PSIs: vy = -18.594."""
    ctx = CKContext()
    ctx.physics.set_globals((0.0, -20.0, 0.0), 2.0)
    e = ball(ctx, position=(0.0, 1000.0, 0.0), mass=1.9, linear_speed_dampening=0.9,
             friction=0.8, elasticity=0.2)
    body = ctx.physics.body_of(e)
    while ctx.physics.env.psi_count < 132:
        ctx.process_frame(FRAME_MS)
    extra = ctx.physics.env.psi_count - 132
    k = 1.0 - f32(0.9) / 66.0
    n = 132 + extra
    expected = -(20.0 / 66.0) * (1.0 - k ** n) / (1.0 - k)
    assert body.core.speed[1] == pytest.approx(expected, abs=2e-4)
