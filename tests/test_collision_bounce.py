"""Bounces and rest (surfaces-and-contacts 2, 3, 5): apex ratio e = e0 e1, rest gap 0.02, sleep."""

import numpy as np
import pytest

from ivp import MT_NOT_SIM, Environment, ObjectTemplate, build_surface
from ivp.collision import Material
from test_collision_scenes import WOOD, ball, floor, height, run


def apexes(env, obj, seconds):
    ys = []
    run(env, seconds, lambda e: ys.append(height(obj)))
    return [ys[i] for i in range(1, len(ys) - 1) if ys[i] > ys[i - 1] and ys[i] >= ys[i + 1]]


@pytest.mark.parametrize("e_ball,e_floor", [(1.0, 0.5), (0.8, 0.3)])
def test_bounce_apex_is_e_times_the_drop(e_ball, e_floor):
    # v_out = v_in sqrt(e): the apex above the floor is e times the drop height.
    g = 9.81
    env = Environment(gravity=(0.0, -g, 0.0))
    floor(env, material=Material(0.5, e_floor))
    drop = 10.0
    b = ball(env, (0.0, 2.0 + drop, 0.0), material=Material(0.5, e_ball))
    b.wake()
    e = e_ball * e_floor
    tops = [y - 2.0 for y in apexes(env, b, 6.0)]
    assert len(tops) >= 2
    assert tops[0] == pytest.approx(e * drop, rel=0.05)
    assert tops[1] == pytest.approx(e * tops[0], rel=0.05)


def test_wood_ball_comes_to_rest_0_02_above_the_floor_and_freezes():
    # Ballance values: wood ball (0.8 / 0.2) on a floor (0.7 / 0.3), gravity -20.
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    b = ball(env, (0.0, 5.0, 0.0), name="wood", **WOOD)
    b.wake()
    run(env, 4.0)
    assert b.core.movement_state == MT_NOT_SIM
    assert height(b) == pytest.approx(2.0 + 0.02, abs=0.003)
    (c,) = list(env.collision.contacts())
    assert c.gap == pytest.approx(0.02, abs=0.003)
    # at rest the normal force carries the weight: N = m g
    assert c.normal_force == pytest.approx(1.9 * 20.0, rel=0.02)


def test_small_fast_ball_does_not_tunnel_through_a_thin_two_sided_wall():
    # 40 m/s is 0.6 m per PSI, six times the ball's radius: the end pose is
    # past the wall, the start pose decides the side (e = 1: it comes back).
    env = Environment(gravity=(0.0, 0.0, 0.0))
    V = np.array([(0.0, -5.0, -5.0), (0.0, 5.0, -5.0), (0.0, 0.0, 5.0)])
    wall = build_surface("wall", concave_meshes=[(V, np.array([(0, 1, 2)]))])
    env.create_polygon(wall, ObjectTemplate(name="wall", physical_unmoveable=True, material=Material(0.0, 1.0)),
                       (0.0, 0.0, 0.0))
    b = ball(env, (-1.0, 0.0, 0.0), radius=0.1, material=Material(0.0, 1.0))
    b.async_add_speed_object_ws((40.0, 0.0, 0.0))
    run(env, 0.1)
    assert b.core.pos_world_f_core_last_psi[0] < -0.1
    assert b.core.speed[0] == pytest.approx(-40.0, rel=0.01)
