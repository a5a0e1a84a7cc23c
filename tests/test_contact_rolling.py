"""Rolling without slipping (surfaces-and-contacts 4: the friction spring and controller 600)."""

import math

import pytest

from ivp import Environment
from ivp.collision import Material
from test_collision_scenes import ball, floor, rotation_x, run


@pytest.mark.parametrize("deg", [10.0, 20.0])
def test_ball_rolls_down_a_slope_at_five_sevenths_g_sin_a(deg):
    # Solid sphere (I = 0.4 m r^2) rolling without slipping: a = 5/7 g sin(a).
    g = 9.81
    a = math.radians(deg)
    env = Environment(gravity=(0.0, -g, 0.0))
    floor(env, tilt=a, material=Material(0.7, 0.0))
    n = (0.0, math.cos(a), math.sin(a))
    down = (0.0, -math.sin(a), math.cos(a))
    r = 2.0
    b = ball(env, tuple(x * (r + 0.02) for x in n), radius=r, mass=2.0, material=Material(0.5, 0.0))
    b.wake()
    run(env, 0.5)

    def along():
        s = b.core.speed
        return s[0] * down[0] + s[1] * down[1] + s[2] * down[2]

    v0 = along()
    run(env, 1.0)
    acc = (along() - v0) / 1.0
    assert acc == pytest.approx(5.0 / 7.0 * g * math.sin(a), rel=0.03)
    # rolling: the contact point does not slip, v = w x r
    w = b.core.rot_speed
    R = b.core.m_world_f_core_last_psi[0]
    ww = tuple(R[3 * i] * w[0] + R[3 * i + 1] * w[1] + R[3 * i + 2] * w[2] for i in range(3))
    rim = (-n[0] * r, -n[1] * r, -n[2] * r)
    slip = tuple(b.core.speed[i] + (ww[(i + 1) % 3] * rim[(i + 2) % 3] - ww[(i + 2) % 3] * rim[(i + 1) % 3])
                 for i in range(3))
    assert math.sqrt(sum(x * x for x in slip)) < 0.02 * abs(along())


def test_ball_on_a_slope_too_steep_for_friction_slips():
    # With mu < 2/7 tan(a) rolling is impossible: the ball slides, kinetic
    # friction mu N acts on it and the centre accelerates at g (sin a - mu cos a).
    g = 9.81
    a = math.radians(40.0)
    mu = 0.1
    env = Environment(gravity=(0.0, -g, 0.0))
    floor(env, tilt=a, material=Material(1.0, 0.0))
    n = (0.0, math.cos(a), math.sin(a))
    down = (0.0, -math.sin(a), math.cos(a))
    b = ball(env, tuple(x * 2.02 for x in n), mass=1.0, material=Material(mu, 0.0))
    b.wake()
    run(env, 0.3)
    s = b.core.speed
    v0 = sum(s[i] * down[i] for i in range(3))
    run(env, 0.5)
    s = b.core.speed
    acc = (sum(s[i] * down[i] for i in range(3)) - v0) / 0.5
    assert acc == pytest.approx(g * (math.sin(a) - mu * math.cos(a)), rel=0.03)
