"""Spec 12.4-12.6: hinges, sliders, ball joints, limits, and their sim units.

Bodies have collision off (like Ballance's FixCube), so no contacts interfere.

Expected values come from closed forms (pendulum periods with the body's IVP
inertia, uniform acceleration), from the spec's rules, or from hand-worked
matrices.
"""

import math

import pytest

from ivp import (MT_MOVING, MT_NOT_SIM, BallTemplate, ConstraintTemplate, Environment,
                 ObjectTemplate, SpringTemplate, build_surface, create_ball_joint, create_constraint,
                 create_hinge, create_slider, create_spring, umath)

DT = 1.0 / 66.0


def box_surface(hx, hy, hz):
    return build_surface("box", [[(x, y, z) for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz)]])


def body(env, name, pos, half=(0.1, 1.0, 0.1), mass=1.0, q=None, **kw):
    tmpl = ObjectTemplate(name=name, mass=mass, speed_damp_factor=0.0, rot_speed_damp_factor=(0.0,) * 3,
                          collision_enabled=False, **kw)
    return env.create_polygon(box_surface(*half), tmpl, pos, q)


def fix_cube(env):
    """Ballance's FixCube: a fixed body the single-body joints hang on."""
    return env.create_ball(BallTemplate(name="FixCube", radius=0.5, physical_unmoveable=True,
                                        collision_enabled=False), (0.0, 5.0, 0.0))


def z_quat(angle):
    return (0.0, 0.0, math.sin(angle / 2.0), math.cos(angle / 2.0))


def hanging_plank(env, angle, d=1.0, obj_a="fix"):
    """A plank (half extents 0.1 x d x 0.1) hinged at its top end, at the
    origin, about world z, turned by angle from hanging straight down."""
    other = fix_cube(env) if obj_a == "fix" else None
    plank = body(env, "plank", (d * math.sin(angle), -d * math.cos(angle), 0.0), half=(0.1, d, 0.1),
                 q=z_quat(angle))
    hinge = create_hinge(env, plank, other, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    plank.wake()
    return plank, hinge


def swing_angle(plank):
    _, vv = plank.core.m_world_f_core_last_psi
    return math.atan2(vv[0], -vv[1])


def record(env, fn):
    rec = []
    env.add_listener_psi(lambda e: rec.append((e.current_time, fn())))
    return rec


def period_of(rec):
    c = []
    for (t0, a), (t1, b) in zip(rec, rec[1:]):
        if (a > 0.0 >= b) or (a < 0.0 <= b):
            c.append(t0 + (t1 - t0) * a / (a - b))
    return 2.0 * (c[-1] - c[0]) / (len(c) - 1)


# --- hinge -----------------------------------------------------------------------


def test_hinge_pendulum_small_amplitude_period():
    g = 9.81
    env = Environment(gravity=(0.0, -g, 0.0))
    plank, _ = hanging_plank(env, 0.05)
    rec = record(env, lambda: swing_angle(plank))
    env.simulate(5.0)
    core = plank.core
    i_axis = core.rot_inertia[2] + core.mass * 1.0 ** 2          # IVP inertia about the hinge
    expected = 2.0 * math.pi * math.sqrt(i_axis / (core.mass * g * 1.0))
    assert abs(period_of(rec) / expected - 1.0) < 0.02


def test_hinge_released_from_horizontal_keeps_anchor_and_axis_for_10_s():
    g = 20.0
    env = Environment(gravity=(0.0, -g, 0.0))
    plank, hinge = hanging_plank(env, math.pi / 2.0, obj_a=None)
    top = (0.0, 1.0, 0.0)                                         # the plank's hinge end, object space
    errs = record(env, lambda: umath.length(umath.mat_mul_point(plank.get_m_world_f_object_AT(env.current_time), top)))
    axes = record(env, lambda: umath.rot_column(plank.core.m_world_f_core_last_psi[0], 2))
    env.simulate(10.0)
    core = plank.core
    w2_max = 2.0 * core.mass * g * 1.0 / (core.rot_inertia[2] + core.mass)    # energy, from horizontal
    worst = max(e for _, e in errs)
    assert worst < 0.005
    assert worst < w2_max * 1.0 * DT * DT                         # order w^2 r dt^2
    assert max(e for _, e in errs[-132:]) <= 1.1 * max(e for _, e in errs[:132])    # no drift
    assert max(abs(a[0]) + abs(a[1]) + abs(a[2] - 1.0) for _, a in axes) < 1e-6


def test_hinge_limits_stop_the_swing():
    # With R the plank and A fixed, the hinge error is A relative to R: -angle.
    env = Environment(gravity=(0.0, -20.0, 0.0))
    fix = fix_cube(env)
    plank = body(env, "plank", (1.0, 0.0, 0.0), q=z_quat(math.pi / 2.0))
    hinge = create_hinge(env, plank, fix, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), limits=(-0.3, 0.3))
    plank.wake()
    assert list(hinge.axis_type[3:]) == [1, 1, 2]
    angles = record(env, lambda: swing_angle(plank))
    env.simulate(2.0)
    # it falls from horizontal (angle pi/2) and stops 0.3 rad further down
    assert min(a for _, a in angles) > math.pi / 2.0 - 0.3 - 0.02
    assert abs(angles[-1][1] - (math.pi / 2.0 - 0.3)) < 0.005


def test_hinge_without_axis_turns_about_world_z():
    env = Environment(gravity=(0.0, -10.0, 0.0))
    plank = body(env, "plank", (1.0, 0.0, 0.0), q=z_quat(math.pi / 2.0))
    create_hinge(env, plank, None, (0.0, 0.0, 0.0))
    plank.wake()
    env.simulate(0.5)
    ax = umath.rot_column(plank.core.m_world_f_core_last_psi[0], 2)
    assert ax == pytest.approx((0.0, 0.0, 1.0), abs=1e-6)
    assert plank.core.pos_world_f_core_last_psi[1] < -0.3                      # it swung down


# --- slider ------------------------------------------------------------------------


def slider_block(g_dir, limits=None, r_moves=True):
    """A block on a slider from (1,2,3) toward (2,1,3), gravity 10 along g_dir."""
    env = Environment(gravity=umath.scale(g_dir, 10.0))
    fix = fix_cube(env)
    blk = body(env, "block", (1.0, 2.0, 3.0), half=(0.5, 0.3, 0.2), mass=2.0)
    r, a = (blk, fix) if r_moves else (fix, blk)
    s = create_slider(env, r, a, (1.0, 2.0, 3.0), (2.0, 1.0, 3.0), limits=limits)
    blk.wake()
    return env, blk, s


AXIS = (math.sqrt(0.5), -math.sqrt(0.5), 0.0)


def along_and_across(blk):
    d = umath.sub(blk.core.pos_world_f_core_last_psi, (1.0, 2.0, 3.0))
    s = umath.dot(d, AXIS)
    return s, umath.length(umath.sub(d, umath.scale(AXIS, s)))


def test_slider_moves_only_along_the_axis_and_does_not_rotate():
    env, blk, _ = slider_block((0.0, -1.0, 0.0))
    env.simulate(65 * DT + 1e-6)                  # 66 PSIs, the last at T_65
    s, across = along_and_across(blk)
    # the axial component of g, a = 10 cos 45; after n PSIs x = a dt^2 n (n + 1) / 2
    a = 10.0 * math.sqrt(0.5)
    n = 65
    assert abs(s / (a * DT * DT * n * (n + 1) / 2.0) - 1.0) < 1e-3
    assert across < 1e-6
    R = blk.core.m_world_f_core_last_psi[0]
    assert R == pytest.approx(umath.IDENTITY_R, abs=1e-9)


def test_slider_limits_stop_the_body():
    # err = p_A - p_R = -s for the moving target R: limits (-0.5, 0.5) keep |s| <= 0.5
    env, blk, _ = slider_block((0.0, -1.0, 0.0), limits=(-0.5, 0.5))
    env.simulate(1.5)
    s, across = along_and_across(blk)
    assert abs(s - 0.5) < 0.005 and across < 1e-6


def test_slider_limit_sign():
    # Spec 12.4 quirk: with R the moving target and -30000..0 (PE_Box_slide), the
    # target can only move toward the second point.
    env, blk, _ = slider_block((0.0, -1.0, 0.0), limits=(-30000.0, 0.0))     # gravity toward it
    env.simulate(0.5)
    assert along_and_across(blk)[0] > 0.5
    env, blk, _ = slider_block((0.0, 1.0, 0.0), limits=(-30000.0, 0.0))      # gravity away from it
    env.simulate(0.5)
    assert abs(along_and_across(blk)[0]) < 1e-3


def test_slider_limit_sign_flips_when_the_moving_body_is_a():
    # err = p_A - p_R = +s when A moves: -30000..0 lets it move only away from
    # the second point.
    env, blk, _ = slider_block((0.0, 1.0, 0.0), limits=(-30000.0, 0.0), r_moves=False)
    env.simulate(0.5)
    assert along_and_across(blk)[0] < -0.5
    env, blk, _ = slider_block((0.0, -1.0, 0.0), limits=(-30000.0, 0.0), r_moves=False)
    env.simulate(0.5)
    assert abs(along_and_across(blk)[0]) < 1e-3


def test_slider_double_set_constraint_ws():
    # Spec 12.4 quirk: set_constraint_ws (3, 2) then (2, 3); only the second counts.
    _, _, s = slider_block((0.0, -1.0, 0.0))
    assert list(s.axis_type) == [1, 1, 0, 1, 1, 1]
    tmpl = ConstraintTemplate()
    env = Environment()
    fix = fix_cube(env)
    blk = body(env, "block", (1.0, 2.0, 3.0))
    tmpl.set_constraint_ws(env, blk, (1.0, 2.0, 3.0), (1.0, -1.0, 0.0), 2, 3, fix)
    c = create_constraint(env, tmpl)
    assert c.m_rcs_f_rcore[0] == pytest.approx(s.m_rcs_f_rcore[0], abs=1e-12)


# --- ball joint ----------------------------------------------------------------------


def test_ball_joint_two_link_chain_swings_without_separating():
    env = Environment(gravity=(0.0, -10.0, 0.0))
    fix = fix_cube(env)
    a = 0.5
    u = (math.sin(a), -math.cos(a), 0.0)
    l1 = body(env, "link1", umath.scale(u, 0.5), half=(0.05, 0.5, 0.05), q=z_quat(a))
    l2 = body(env, "link2", umath.scale(u, 1.5), half=(0.05, 0.5, 0.05), q=z_quat(a))
    create_ball_joint(env, fix, l1, (0.0, 0.0, 0.0))
    create_ball_joint(env, l1, l2, umath.scale(u, 1.0))
    l1.wake()
    l2.async_push_object_ws(umath.scale(u, 2.0), (0.0, 0.0, 0.5))      # swing out of the plane too

    def gaps():
        top = umath.mat_mul_point(l1.core.m_world_f_core_last_psi, (0.0, 0.5, 0.0))
        mid1 = umath.mat_mul_point(l1.core.m_world_f_core_last_psi, (0.0, -0.5, 0.0))
        mid2 = umath.mat_mul_point(l2.core.m_world_f_core_last_psi, (0.0, 0.5, 0.0))
        return umath.length(top), umath.length(umath.sub(mid1, mid2))

    rec = record(env, gaps)
    env.simulate(3.0)
    half = len(rec) // 2
    assert max(g[0] for _, g in rec) < 0.002
    assert max(g[1] for _, g in rec) < 0.01                         # 1 % of a link
    assert max(g[1] for _, g in rec[half:]) < 1.5 * max(g[1] for _, g in rec[:half])
    assert abs(l2.core.pos_world_f_core_last_psi[2]) > 0.05          # it did leave the plane
    assert l1.core.sim_unit_of_core is l2.core.sim_unit_of_core


# --- sim units, removal ---------------------------------------------------------------


def two_resting_boxes(join):
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b1 = body(env, "b1", (0.0, 0.0, 0.0))
    b2 = body(env, "b2", (0.0, 3.0, 0.0))
    j = join(env, b1, b2)
    b1.wake()
    return env, b1, b2, j


JOINS = {
    "spring": lambda env, a, b: create_spring(env, SpringTemplate(a, (0.0, 1.0, 0.0), b, (0.0, 2.0, 0.0))),
    "ball joint": lambda env, a, b: create_ball_joint(env, a, b, (0.0, 1.5, 0.0)),
    "hinge": lambda env, a, b: create_hinge(env, a, b, (0.0, 1.5, 0.0), (1.0, 0.0, 0.0)),
}


@pytest.mark.parametrize("kind", sorted(JOINS))
def test_joined_bodies_share_a_unit_freeze_together_and_wake_together(kind):
    env, b1, b2, _ = two_resting_boxes(JOINS[kind])
    unit = b1.core.sim_unit_of_core
    assert b2.core.sim_unit_of_core is unit and len(unit.cores) == 2
    env.simulate(1.0)
    assert unit.state == 8 and b1.object_state == MT_NOT_SIM and b2.object_state == MT_NOT_SIM
    b2.async_push_object_ws((0.0, 3.0, 0.0), (0.0, 0.0, 0.1))
    env.simulate(DT)
    assert b1.core.movement_state == MT_MOVING and b2.core.movement_state == MT_MOVING
    assert unit in env.sim_unit_manager.active


def test_joining_an_awake_body_revives_its_frozen_partner():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b1 = body(env, "awake", (0.0, 0.0, 0.0))
    b2 = body(env, "frozen", (0.0, 3.0, 0.0))
    b1.wake()
    env.simulate(0.05)
    assert b1.object_state == MT_MOVING and b2.object_state == MT_NOT_SIM
    create_ball_joint(env, b1, b2, (0.0, 1.5, 0.0))
    assert b2.object_state == MT_MOVING and b2.core.sim_unit_of_core is b1.core.sim_unit_of_core


@pytest.mark.parametrize("kind", sorted(JOINS))
def test_delete_wakes_the_unit_detaches_and_splits_it(kind):
    env, b1, b2, j = two_resting_boxes(JOINS[kind])
    env.simulate(1.0)
    assert b1.object_state == MT_NOT_SIM
    j.delete()
    assert j not in b1.core.controllers_of_core and j not in b2.core.controllers_of_core
    assert b1.object_state == MT_MOVING and b2.object_state == MT_MOVING
    env.simulate(DT)
    assert b1.core.sim_unit_of_core is not b2.core.sim_unit_of_core
    assert b1.anchors == [] and b2.anchors == []
    j.delete()                                                        # a second delete does nothing


def test_destroying_a_body_removes_its_joints_and_wakes_the_partner():
    env = Environment(gravity=(0.0, -10.0, 0.0))
    fix = fix_cube(env)
    top = body(env, "top", (0.0, -1.0, 0.0))
    low = body(env, "low", (0.0, -3.0, 0.0))
    h = create_hinge(env, top, fix, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    b = create_ball_joint(env, top, low, (0.0, -2.0, 0.0))
    top.wake()
    env.simulate(1.0)
    env.delete_object(top)
    assert h.deleted and b.deleted and low.core.controllers_of_core == []
    env.simulate(0.5)
    assert low.object_state == MT_MOVING and low.core.speed[1] < -4.0          # falls freely
    assert len(low.core.sim_unit_of_core.cores) == 1


# --- solver details -------------------------------------------------------------------------


def test_constraint_frames_coincide_at_creation():
    # Spec 12.5: without A's frame, A's constraint frame is R's at creation.
    env = Environment()
    r = body(env, "r", (0.3, -1.0, 0.2), q=z_quat(0.4), mass_center_override=(0.0, 0.2, 0.0))
    a = body(env, "a", (1.0, 1.0, 0.0), q=(0.1, 0.2, 0.3, 0.9), mass_center_override=(0.1, 0.0, 0.0))
    c = create_hinge(env, r, a, (0.5, 0.0, 0.0), (1.0, 1.0, 0.0))
    wr = r.core.m_world_f_core_last_psi
    wa = a.core.m_world_f_core_last_psi
    assert umath.mat_mul_point(wr, c.anchor_r) == pytest.approx((0.5, 0.0, 0.0), abs=1e-6)
    assert umath.mat_mul_point(wa, c.anchor_a) == pytest.approx((0.5, 0.0, 0.0), abs=1e-6)
    # R's z axis (the hinge axis) in world is the normalized axis, and A's too
    for w, m in ((wr, c.m_rcs_f_rcore), (wa, c.m_acs_f_acore)):
        z = umath.rot_mul_v(w[0], umath.rot_t_mul_v(m[0], (0.0, 0.0, 1.0)))
        assert z == pytest.approx((math.sqrt(0.5), math.sqrt(0.5), 0.0), abs=1e-9)
    assert c.angular_error(umath.rot_mul(umath.rot_mul(c.m_rcs_f_rcore[0], umath.rot_transpose(wr[0])),
                                         wa[0])) == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)


def test_set_constraint_ws_basis_by_number_of_locked_axes():
    # Spec 12.4: (nRot or nTrans) == 2 -> basis(axis, 2); == 1 -> basis(axis, 0);
    # no axis or none of them -> identity; the frame is in R's object space.
    env = Environment()
    r = body(env, "r", (1.0, 2.0, 3.0), q=z_quat(math.pi / 2.0))        # object x = world y
    cases = [((3, 2), 2), ((2, 3), 2), ((0, 1), 0), ((1, 0), 0), ((3, 3), None), ((3, 0), None)]
    for (nt, nr), col in cases:
        t = ConstraintTemplate()
        t.set_constraint_ws(env, r, (1.0, 4.0, 3.0), (0.0, 5.0, 0.0), nt, nr, None)
        R, vv = t.m_rfs_f_rcs
        assert vv == pytest.approx((2.0, 0.0, 0.0), abs=1e-7)            # world (0, 2, 0) off = object x
        if col is None:
            assert R == umath.IDENTITY_R
        else:
            assert umath.rot_column(R, col) == pytest.approx((1.0, 0.0, 0.0), abs=1e-7)
        assert t.axis_type == [int(nt > i) for i in range(3)] + [int(nr > i) for i in range(3)]


def weld_response(r_rotated):
    """Weld (3 + 3 locked) at the world origin between the box (mass 2, inertia
    1, 2, 3, at (0, -1, 0), turned 90 deg about z) and the world."""
    env = Environment()
    box = env.create_polygon(box_surface(0.5, 0.5, 0.5),
                             ObjectTemplate(name="box", mass=2.0, rot_inertia_is_factor=False,
                                            rot_inertia=(1.0, 2.0, 3.0), collision_enabled=False),
                             (0.0, -1.0, 0.0), z_quat(math.pi / 2.0))
    t = ConstraintTemplate()
    r, a = (box, None) if r_rotated else (None, box)
    t.set_constraint_ws(env, r, (0.0, 0.0, 0.0), None, 3, 3, a)
    c = create_constraint(env, t)
    rz = box.core.m_world_f_core_last_psi[0]
    cs_w = umath.rot_transpose(rz) if r_rotated else umath.IDENTITY_R
    cs_a = cs_w if r_rotated else rz
    cores = (box.core, None) if r_rotated else (None, box.core)
    return c.response_matrix(list(range(6)), *cores, cs_w, cs_a)


def test_rotation_response_quirk_a_side_by_csa_r_side_by_0x70():
    # Spec 12.6: the linear response to a test torque is rotated by CsA on A's
    # side and by +0x70 on R's. Worked by hand for both sides (the anchor is
    # core x = (1, 0, 0), inverse inertia (1, 1/2, 1/3), inverse mass 1/2):
    # the matrix is the symmetric inverse-mass matrix in constraint space.
    t = 1.0 / 3.0
    a_side = [[-5 / 6, 0, 0, 0, 0, t], [0, -0.5, 0, 0, 0, 0], [0, 0, -1, -0.5, 0, 0],
              [0, 0, -0.5, -0.5, 0, 0], [0, 0, 0, 0, -1, 0], [t, 0, 0, 0, 0, -t]]
    r_side = [[-0.5, 0, 0, 0, 0, 0], [0, -5 / 6, 0, 0, 0, -t], [0, 0, -1, 0, 0.5, 0],
              [0, 0, 0, -1, 0, 0], [0, 0, 0.5, 0, -0.5, 0], [0, -t, 0, 0, 0, -t]]
    for r_rotated, expected in ((False, a_side), (True, r_side)):
        M = weld_response(r_rotated)
        for row, exp in zip(M, expected):
            assert row == pytest.approx(exp, abs=1e-6)


def test_quat_error_x_uses_f32_q_x():
    # Spec 12.6 (three locked rotations): e_i = 2 q_i + 0.24f q_i^3 + 0.58f q_i^5,
    # e.x from the f32-rounded q.x; negated when q.w < 0.
    from ivp.controllers.constraint_kernels import _quat_error
    from ivp.fp import f32
    c3, c5 = f32(0.24), f32(0.58)
    q = (0.1, 0.1, -0.2, -math.sqrt(1.0 - 0.06))
    e = _quat_error(q)
    x = f32(0.1)
    assert e[0] == -(2.0 * x + c3 * x ** 3 + c5 * x ** 5)
    assert e[1] == -(2.0 * 0.1 + c3 * 0.1 ** 3 + c5 * 0.1 ** 5)
    assert e[0] != e[1]
    assert e[2] == pytest.approx(2.0 * 0.2 + c3 * 0.2 ** 3 + c5 * 0.2 ** 5, rel=1e-15)


def test_solver_failure_path_applies_nothing(monkeypatch):
    import ivp.controllers.constraint as cmod
    import ivp.controllers.constraint_kernels as kmod
    env = Environment(gravity=(0.0, -10.0, 0.0))
    env.lane = None                 # the object path, whose solve_step the patch replaces
    plank, _ = hanging_plank(env, 0.3)
    def failed(*args):
        state, lam, cs_a, v_r, w_r, v_a, w_a = solve(*args)
        return kmod.SOLVE_FAILED, lam, cs_a, v_r, w_r, v_a, w_a

    solve = kmod.solve_step
    monkeypatch.setattr(cmod, "solve_step", failed)
    env.simulate(10 * DT - 1e-6)                     # 10 PSIs of free fall
    assert plank.core.speed[1] == pytest.approx(-10.0 * DT * 10, rel=1e-5)
    assert plank.core.rot_speed == (0.0, 0.0, 0.0)


def test_create_constraint_without_objects_returns_none():
    env = Environment()
    t = ConstraintTemplate()
    t.set_constraint_ws(env, None, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 3, 2, None)
    assert create_constraint(env, t) is None
    assert create_hinge(env, None, None, (0.0, 0.0, 0.0)) is None


# --- the outlined branches (beyond the spec) ----------------------------------------------------


def test_one_locked_rotation_axis_stops_the_twist_only():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = body(env, "b", (0.0, 0.0, 0.0), half=(0.5, 0.4, 0.3))
    t = ConstraintTemplate()
    t.set_constraint_ws(env, b, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0, 1, None)    # rotation about x locked
    c = create_constraint(env, t)
    assert list(c.axis_type) == [0, 0, 0, 1, 0, 0] and c.rot_order[0] == 0
    b.async_add_rot_speed_object_cs((2.0, 0.0, 0.0))
    b.async_add_speed_object_ws((0.0, 0.5, 0.0))
    env.simulate(0.5)
    R = b.core.m_world_f_core_last_psi[0]
    assert abs(b.core.rot_speed[0]) < 1e-3 and R == pytest.approx(umath.IDENTITY_R, abs=1e-3)
    assert b.core.speed[1] == pytest.approx(0.5, abs=1e-6)                       # translation free
    c.delete()
    b2 = body(env, "b2", (5.0, 0.0, 0.0), half=(0.5, 0.4, 0.3))
    t.set_constraint_ws(env, b2, (5.0, 0.0, 0.0), (1.0, 0.0, 0.0), 0, 1, None)
    create_constraint(env, t)
    b2.async_add_rot_speed_object_cs((0.0, 0.0, 1.0))                             # about z: free
    env.simulate(0.5)
    assert b2.core.rot_speed[2] == pytest.approx(1.0, abs=1e-3)


def hung_with_max_force(mode):
    """A box on a ball joint 1 below the FixCube, at most 6 N along y (m g = 10 N)."""
    env = Environment(gravity=(0.0, -10.0, 0.0))
    fix = fix_cube(env)
    b = body(env, "b", (0.0, -1.0, 0.0))
    t = ConstraintTemplate()
    t.set_constraint_ws(env, b, (0.0, 0.0, 0.0), None, 3, 0, fix)
    t.set_max_translation_force(1, 6.0, mode)
    c = create_constraint(env, t)
    b.wake()
    return env, b, c


def test_max_force_scale_lets_the_body_sag_at_g_minus_f_over_m():
    env, b, _ = hung_with_max_force("scale")
    env.simulate(20 * DT - 1e-6)
    assert b.core.speed[1] == pytest.approx(-(10.0 - 6.0) * 20 * DT, rel=1e-4)


def test_max_force_break_removes_the_constraint_and_calls_listeners():
    env, b, c = hung_with_max_force("break")
    broken = []
    c.add_break_listener(broken.append)
    env.simulate(0.1)
    assert broken == [c] and c.deleted and b.core.controllers_of_core == []
    assert b.core.speed[1] < -0.9                                  # falling freely


# --- bad input --------------------------------------------------------------------------------------


def bad_world():
    env = Environment(gravity=(0.0, -10.0, 0.0))
    fix = fix_cube(env)
    b1 = body(env, "plankA", (0.0, -1.0, 0.0))
    b2 = body(env, "plankB", (0.0, -3.0, 0.0))
    create_hinge(env, b1, fix, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    b1.wake()
    b2.wake()
    env.simulate(0.1)
    return env, fix, b1, b2


def world_state(env):
    m = env.sim_unit_manager
    return ([tuple(u.cores) for u in m.active], [tuple(u.cores) for u in m.frozen],
            [(tuple(o.core.controllers_of_core), tuple(o.anchors)) for o in env.objects],
            [[(e.controller, tuple(e.cores)) for e in u.entries] for u in m.active])


BAD = [
    (lambda env, f, a, b: create_hinge(env, a, a, (0, 0, 0), (0, 0, 1)), "plankA.*itself"),
    (lambda env, f, a, b: create_ball_joint(env, b, b, (0, 0, 0)), "plankB.*itself"),
    (lambda env, f, a, b: create_spring(env, SpringTemplate(a, (0, 0, 0), a, (1, 0, 0))), "plankA.*itself"),
    (lambda env, f, a, b: create_slider(env, a, b, (1, 2, 3), (1, 2, 3)), "plankA.*plankB.*zero-length"),
    (lambda env, f, a, b: create_spring(env, SpringTemplate(a, (0, 0, 0), b, (1, 0, 0), constant=0.0)),
     "plankA.*plankB.*constant"),
    (lambda env, f, a, b: create_spring(env, SpringTemplate(a, (0, 0, 0), b, (1, 0, 0), constant=-2.0)),
     "plankA.*plankB.*constant"),
    (lambda env, f, a, b: create_hinge(env, a, b, (0, 0, 0), (0, 0, 1), limits=(0.5, -0.5)),
     "plankA.*plankB.*limits"),
    (lambda env, f, a, b: create_slider(env, a, f, (0, 0, 0), (0, 1, 0), limits=(1.0, -1.0)),
     "plankA.*FixCube.*limits"),
    (lambda env, f, a, b: create_hinge(env, a, b, (0, math.nan, 0), (0, 0, 1)), "plankA.*plankB.*anchor"),
    (lambda env, f, a, b: create_hinge(env, a, b, (0, 0, 0), (0, 0, 0)), "plankA.*plankB.*axis"),
    (lambda env, f, a, b: create_spring(env, SpringTemplate(a, (0, 0, 0), None, (1, 0, 0))), "two objects"),
]


@pytest.mark.parametrize("make,match", BAD)
def test_bad_joints_are_refused_and_nothing_is_half_created(make, match):
    env, fix, b1, b2 = bad_world()
    before = world_state(env)
    with pytest.raises(ValueError, match=match):
        make(env, fix, b1, b2)
    assert world_state(env) == before
    env.simulate(0.1)                                  # the world goes on
    assert b1.core.sim_unit_of_core is not b2.core.sim_unit_of_core


def test_joint_with_a_deleted_body_is_refused():
    env, fix, b1, b2 = bad_world()
    env.delete_object(b2)
    with pytest.raises(ValueError, match="plankB.*deleted"):
        create_ball_joint(env, b1, b2, (0, -2, 0))
