"""Spec 5-9: pushes, controllers and their order, damping, integration, poses."""

import math

import pytest

from ivp import BallTemplate, Controller, Environment, ForceController, ObjectTemplate, build_surface
from ivp.controllers.base import SimEvent
from ivp.controllers.gravity import GravityController
from ivp.core import damping_factors
from ivp.step.kernels import gyro_sub_steps
from ivp.fp import f32

DT = 1.0 / 66.0


def ball(env, name="ball", mass=1.0, lin=0.0, rot=0.0, pos=(0.0, 0.0, 0.0)):
    return env.create_ball(BallTemplate(name=name, mass=mass, radius=2.0, speed_damp_factor=lin,
                                        rot_speed_damp_factor=(rot,) * 3), pos)


def box(env, name="box", mass=1.0, size=(2.0, 1.0, 0.5), lin=0.0, rot=0.0, pos=(0.0, 0.0, 0.0)):
    pts = [(x * size[0] / 2, y * size[1] / 2, z * size[2] / 2) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    return env.create_polygon(build_surface(name, [pts]),
                              ObjectTemplate(name=name, mass=mass, speed_damp_factor=lin,
                                             rot_speed_damp_factor=(rot,) * 3), pos)


def one_psi(env):
    """Run exactly the next PSI (T_0 first, then time_of_next_psi)."""
    env.simulate_until((env.time_of_next_psi if env.psi_count else 0.0) + 1e-9)


def test_push_committed_after_damping():
    # Paper ball: vx 1, damping 1.5, a force worth +1 m/s in one PSI: the force
    # is committed after damping, 1 (1 - 1.5/66) + 1 = 1.97727273.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env, "paper", mass=0.2, lin=1.5, rot=0.1)
    b.wake()
    b.async_add_speed_object_ws((1.0, 0.0, 0.0))
    env.sim_unit_manager.add_controller_to_core(ForceController(b.core, (0, 0, 0), (0.2, 0, 0)), b.core)
    one_psi(env)
    assert env.psi_count == 1
    assert b.core.speed[0] == pytest.approx(1.97727273, abs=1e-6)


def test_force_controller_pushes_f_over_m_per_psi_without_dt():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env, mass=2.0)
    b.wake()
    env.sim_unit_manager.add_controller_to_core(ForceController(b.core, (0, 0, 0), (0, 0, 1.0)), b.core)
    env.simulate_until(10 * DT - 1e-6)           # PSIs T_0 .. T_9
    assert env.psi_count == 10
    assert b.core.speed[2] == pytest.approx(10 * 0.5, rel=1e-6)
    assert b.core.rot_speed == (0.0, 0.0, 0.0)


def test_force_off_centre_spins_the_body():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env, mass=1.0)
    b.wake()
    # point (0, 2, 0), force +x: torque (0,2,0) x (1,0,0) = (0,0,-2); I = 1.6
    env.sim_unit_manager.add_controller_to_core(ForceController(b.core, (0, 2, 0), (1.0, 0, 0)), b.core)
    one_psi(env)
    assert b.core.rot_speed[2] == pytest.approx(-2.0 / 1.6, rel=1e-6)


def test_async_impulse_at_world_point():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env, mass=4.0, pos=(1.0, 1.0, 1.0))
    b.async_push_object_ws((1.0, 1.0, 3.0), (0.0, 8.0, 0.0))     # r = (0,0,2): torque (-16, 0, 0)
    assert b.core.speed_change == (0.0, 2.0, 0.0)
    I = f32(f32(4 * f32(0.4)) * 4.0)
    assert b.core.rot_speed_change[0] == pytest.approx(-16.0 / I, rel=1e-6)
    one_psi(env)
    assert b.core.speed[1] == pytest.approx(2.0, rel=1e-6)


def test_rotational_damping_branch_chosen_from_vector_length_quirk():
    # a = (0.1, 0.1, 40)/66: |a|^2 = 0.367 < 0.5 -> 1 - a on every axis
    k = damping_factors(DT, (f32(0.1), f32(0.1), 40.0), 0.0)
    assert k[2] == f32(1.0 - f32(40.0 * DT))
    # a_z = 50/66: |a|^2 = 0.574 >= 0.5 -> exp(-a) on every axis, even the small ones
    k = damping_factors(DT, (f32(0.1), f32(0.1), 50.0), 0.0)
    assert k[0] == f32(math.exp(-f32(0.1) * DT))
    assert k[2] == f32(math.exp(-f32(50.0 * DT)))
    # linear: 1 - b below 0.25, exp(-b) above (kl is f64, rounded when speed is stored)
    assert f32(damping_factors(DT, (0.0, 0.0, 0.0), 10.0)[3]) == f32(1.0 - DT * 10.0)
    assert f32(damping_factors(DT, (0.0, 0.0, 0.0), 20.0)[3]) == f32(math.exp(-DT * 20.0))


def test_calm_bodies_get_0_1_extra_damping():
    # the gravity controller's pass (7.1) with g = 0 and nothing to commit: damping alone
    env = Environment()
    gravity = GravityController((0.0, 0.0, 0.0))
    b = ball(env, lin=0.5, rot=0.2)
    c = b.core
    for state, extra in ((1, 0.0), (2, 0.1), (3, 0.1)):
        c.movement_state = state
        c.speed = (1.0, 0.0, 0.0)
        c.rot_speed = (1.0, 0.0, 0.0)
        gravity.do_simulation_controller(SimEvent(DT, 1.0 / DT, env), [c])
        tenth = f32(0.1) if extra else 0.0
        assert c.speed[0] == f32(1.0 - DT * (f32(0.5) + tenth))
        assert c.rot_speed[0] == f32(1.0 - f32(f32(0.2) + tenth) * DT)


def test_gyroscopic_sub_step_count():
    for w in (0.0, 5.0, 11.0, 11.1, 20.0, 100.0, 400.0):
        x = w * w * DT * DT
        expected = math.trunc(math.sqrt(144.0 * x)) + 1 if x > 1.0 / 36.0 else 1
        assert gyro_sub_steps((w, 0.0, 0.0), DT) == expected
    # just past x = 1/36 the count jumps from 1 to 3 (sqrt(144/36) = 2)
    assert gyro_sub_steps((0.0, 0.0, 10.99), DT) == 1
    assert gyro_sub_steps((0.0, 0.0, 11.01), DT) == 3
    assert gyro_sub_steps((0.0, 0.0, 50.0), DT) == int(12 * 50 / 66) + 1


def test_box_spinning_about_a_principal_axis_keeps_its_speed_and_angle():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = box(env)
    b.wake()
    b.async_add_rot_speed_object_cs((0.0, 0.0, 3.0))
    env.simulate_until(66 * DT - 1e-6)          # 66 PSIs: T_0 .. T_65
    c = b.core
    assert not c.rot_inertias_are_equal
    assert c.rot_speed == (0.0, 0.0, 3.0)
    # q_next holds the rotation after 66 steps of 3/66 rad
    q = c.q_world_f_core_next_psi
    angle = 2 * math.atan2(q[2], q[3])
    assert angle == pytest.approx(3.0, abs=1e-6)
    assert c.abs_omega == pytest.approx(3.0, rel=1e-5)


def test_gyroscopic_path_conserves_energy_and_momentum():
    # torque-free rotation about a non-principal axis: Euler's equations
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = box(env)
    b.wake()
    b.async_add_rot_speed_object_cs((0.3, 2.0, 0.2))    # near the unstable middle axis
    env.simulate(0.01)
    c = b.core
    I = c.rot_inertia

    def energy_and_momentum():
        w = c.rot_speed
        return (sum(I[i] * w[i] ** 2 for i in range(3)), math.sqrt(sum((I[i] * w[i]) ** 2 for i in range(3))))

    e0, l0 = energy_and_momentum()
    env.simulate(2.0)
    e1, l1 = energy_and_momentum()
    assert e1 == pytest.approx(e0, rel=0.02)
    assert l1 == pytest.approx(l0, rel=0.02)
    assert abs(c.rot_speed[1] - 2.0) > 0.05           # it does precess


def test_ball_rotation_uses_the_sine_path():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env)
    b.wake()
    b.async_add_rot_speed_object_cs((0.0, 6.6, 0.0))
    env.simulate_until(10 * DT - 1e-6)           # 10 PSIs of 0.1 rad
    q = b.core.q_world_f_core_next_psi
    assert 2 * math.atan2(q[1], q[3]) == pytest.approx(10 * f32(6.6) * DT, abs=1e-12)


def test_max_velocity_anomaly_clamps_to_0_99_of_2000():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env)
    b.wake()
    b.async_add_speed_object_ws((3000.0, 4000.0, 0.0))
    one_psi(env)
    s = b.core.speed
    assert math.hypot(s[0], s[1]) == pytest.approx(2000.0 * 0.99, rel=1e-6)
    assert s[0] / s[1] == pytest.approx(0.75, rel=1e-6)


def test_max_angular_velocity_anomaly_clamps_to_0_9_of_66_pi_over_2():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env)
    b.wake()
    b.async_add_rot_speed_object_cs((0.0, 200.0, 0.0))
    one_psi(env)
    assert b.core.rot_speed[1] == pytest.approx(66.0 * f32(math.pi / 2) * 0.9, rel=1e-6)


def test_max_rot_speed_y_axis_quirk():
    # Spec 8.2: the per-axis clamp sets +m.y when rot_speed.y < -m.y.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env)
    b.wake()
    one_psi(env)
    b.core.max_rot_speed = (1.0, 1.0, 1.0)
    b.core.rot_speed = (-5.0, -5.0, -5.0)
    b.core.calc_next_psi_matrix(DT, 66.0)
    assert b.core.rot_speed == (-1.0, 1.0, -1.0)
    b.core.rot_speed = (5.0, 5.0, 5.0)
    b.core.calc_next_psi_matrix(DT, 66.0)
    assert b.core.rot_speed == (1.0, 1.0, 1.0)


def test_pose_between_psis_is_extrapolated_from_the_last_psi():
    # Spec 4.2 / 8.2: the position at T_k + d is pos_k + v_k d, where v_k is
    # the velocity committed at PSI k (after gravity's g dt).
    env = Environment(gravity=(0.0, -20.0, 0.0))
    b = ball(env, pos=(0.0, 10.0, 0.0))
    b.wake()
    frame = 1.0 / 60.0
    g = f32(-20.0)
    for _ in range(30):
        env.simulate(frame)
    k = env.psi_count - 1                       # index of the last PSI
    T = [0.0]
    for _ in range(k):
        T.append(T[-1] + f32(1.0 / 66.0))
    v, y = 0.0, 10.0
    for i in range(k + 1):
        if i:
            y += v * (T[i] - T[i - 1])
        v = f32(v + g * DT)
    t = env.current_time
    R, vv = b.get_m_world_f_object_AT(t)
    assert vv[1] == pytest.approx(y + v * (t - T[k]), abs=1e-9)
    assert t > T[k]


def test_core_pose_at_time_of_frozen_body_is_the_psi_pose():
    env = Environment()
    b = ball(env, pos=(1.0, 2.0, 3.0))
    M = b.core.get_m_world_f_core_PSI(123.0)
    assert M is b.core.m_world_f_core_last_psi


class Recording(Controller):
    def __init__(self, log, tag, priority, core):
        self.log, self.tag, self.priority, self.core = log, tag, priority, core

    def get_controlled_cores(self):
        return [self.core]

    def do_simulation_controller(self, ev, cores):
        self.log.append(self.tag)


def test_controllers_run_by_descending_priority_newest_first_among_equals():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env)
    b.wake()
    log = []
    m = env.sim_unit_manager
    for tag, prio in (("a600", 600), ("b1500", 1500), ("c600", 600), ("d2000", 2000), ("e1500", 1500)):
        m.add_controller_to_core(Recording(log, tag, prio, b.core), b.core)
    one_psi(env)
    assert log == ["d2000", "e1500", "b1500", "c600", "a600"]


def test_unit_order_look_ahead_quirk():
    # Spec 6.2: list order except the last three, which run in reverse.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    log = []
    balls = [ball(env, name=str(i), pos=(10.0 * i, 0.0, 0.0)) for i in range(5)]
    for bb in balls:
        bb.wake()
        env.sim_unit_manager.add_controller_to_core(Recording(log, bb.name, 1500, bb.core), bb.core)
    one_psi(env)
    active = [su.cores[0].objects[0].name for su in env.sim_unit_manager.active]
    # revive runs the queue from its end and every unit is pushed at the head
    assert active == ["0", "1", "2", "3", "4"]
    assert log == ["0", "1", "4", "3", "2"]
    log.clear()
    for bb in balls[2:]:
        env.delete_object(bb)
    one_psi(env)
    assert log == ["1", "0"]
