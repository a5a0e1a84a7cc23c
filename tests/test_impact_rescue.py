"""The rescue speed of an impact (surfaces-and-contacts 5 step 6): separation at
least (0.02 + addon) * 1.2 m/s, the addon covering a gap below 0.01 and the
rotation uncertainty."""

import math

import pytest

from ivp import Environment
from ivp.collision import Material
from ivp.collision.bodies import Side
from ivp.collision.impact import resolve_impact
from test_collision_scenes import ball, box

DT = 1.0 / 66.0
DOWN = (0.0, -1.0, 0.0)


def spinning(obj, omega):
    """obj turning at omega about the vertical after one PSI of free flight
    (the integration sets abs_omega and max_surface_rot_speed, dynamics 8.3)."""
    env = obj.environment
    obj.wake()
    obj.core.rot_speed = (0.0, omega, 0.0)
    env.simulate(env.delta_PSI_time)
    assert obj.core.abs_omega == pytest.approx(omega, rel=1e-3)      # 8.3: asin approximated
    return obj.core


def rescue_after_touch(core, gap, offset=(0.0, 0.0, 0.0)):
    """The separation speed a resting touch (not closing) on a fixed floor below
    leaves, the contact point below the mass centre."""
    R, p = core.m_world_f_core_last_psi
    side = Side(core, R, offset)
    resolve_impact(side, None, DOWN, gap, 0.5, 0.0, DT)
    return core.speed[1]


def test_rescue_of_a_resting_touch_is_0_024():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env, (0.0, 5.0, 0.0), radius=1.0, material=Material(0.5, 0.0))
    core = spinning(b, 20.0)                     # a ball's surface deviation is 0
    assert rescue_after_touch(core, 0.015, (0.0, -1.0, 0.0)) == pytest.approx(0.02 * 1.2, rel=1e-6)


def test_rescue_adds_the_gap_below_the_collision_distance():
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = ball(env, (0.0, 5.0, 0.0), radius=1.0, material=Material(0.5, 0.0))
    core = spinning(b, 0.0)
    # (0.02 + (0.01 - 0.004) / dt) * 1.2
    assert rescue_after_touch(core, 0.004, (0.0, -1.0, 0.0)) == pytest.approx(
        (0.02 + 0.006 * 66.0) * 1.2, rel=1e-6)


def test_rescue_adds_the_rotation_uncertainty_of_a_turning_box():
    # Unit cube: R = sqrt(3)/2; its faces' vertices lie sqrt(1/2) from the
    # normal lines through the centre, stored as int(1 + dev / (R/250)) = 205
    # steps of R/250 (surfaces-and-contacts 1): dev = 205 R / 250.
    # Turning at w the surface leaves its straight path by w^2 dev dt^2 / 2
    # within the PSI: the addon is w^2 dev dt / 2.
    env = Environment(gravity=(0.0, 0.0, 0.0))
    b = box(env, (0.0, 5.0, 0.0))
    w = 6.0
    core = spinning(b, w)
    R = math.sqrt(3.0) / 2.0
    assert int(1 + math.sqrt(0.5) / (R / 250.0)) == 205
    dev = 205 * R / 250.0
    assert core.max_surface_deviation == pytest.approx(dev, rel=1e-6)
    expected = (0.02 + 0.5 * w * w * dev * DT) * 1.2
    assert rescue_after_touch(core, 0.015, (0.0, -0.5, 0.0)) == pytest.approx(expected, rel=1e-4)
