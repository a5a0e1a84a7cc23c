"""Rolling without slipping (surfaces-and-contacts 4: the friction spring and controller 600)."""

import math

import pytest

from ivp import Environment
from ivp.collision import Material
from test_collision_scenes import along, ball, run, slope

G = 9.81


def ball_on_slope(deg, floor_friction, ball_friction, r=2.0, mass=2.0):
    env = Environment(gravity=(0.0, -G, 0.0))
    a, n, down = slope(env, deg, Material(floor_friction, 0.0))
    b = ball(env, tuple(x * (r + 0.02) for x in n), radius=r, mass=mass, material=Material(ball_friction, 0.0))
    b.wake()
    return env, b, a, n, down


def acceleration(env, b, down, settle, span):
    run(env, settle)
    v0 = along(b.core.speed, down)
    run(env, span)
    return (along(b.core.speed, down) - v0) / span


@pytest.mark.parametrize("deg", [10.0, 20.0])
def test_ball_rolls_down_a_slope_at_five_sevenths_g_sin_a(deg):
    # Solid sphere (I = 0.4 m r^2) rolling without slipping: a = 5/7 g sin(a).
    env, b, a, n, down = ball_on_slope(deg, 0.7, 0.5)
    acc = acceleration(env, b, down, 0.5, 1.0)
    assert acc == pytest.approx(5.0 / 7.0 * G * math.sin(a), rel=0.03)
    # rolling: the contact point does not slip, v + w x (-r n) = 0
    r = 2.0
    w = b.core.rot_speed
    R = b.core.m_world_f_core_last_psi[0]
    ww = tuple(R[3 * i] * w[0] + R[3 * i + 1] * w[1] + R[3 * i + 2] * w[2] for i in range(3))
    rim = (-n[0] * r, -n[1] * r, -n[2] * r)
    slip = tuple(b.core.speed[i] + (ww[(i + 1) % 3] * rim[(i + 2) % 3] - ww[(i + 2) % 3] * rim[(i + 1) % 3])
                 for i in range(3))
    assert math.sqrt(sum(x * x for x in slip)) < 0.02 * abs(along(b.core.speed, down))


def test_ball_on_a_slope_too_steep_for_friction_slips():
    # With mu < 2/7 tan(a) rolling is impossible: the ball slides, kinetic
    # friction mu N acts on it and the centre accelerates at g (sin a - mu cos a).
    mu = 0.1
    env, b, a, n, down = ball_on_slope(40.0, 1.0, mu, mass=1.0)
    acc = acceleration(env, b, down, 0.3, 0.5)
    assert acc == pytest.approx(G * (math.sin(a) - mu * math.cos(a)), rel=0.03)
