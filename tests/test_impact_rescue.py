"""The impact solver (ivp-contacts 4.3-4.6): the rescue speed (0.02 + addon) 1.2
with the addon 2 ((0.01 - gap) / dt + the rotation uncertainty), the
compression loop in 10 % steps and frictionless restitution to v sqrt(e)."""

import math

import pytest

from ivp import Environment
from ivp.collision import Material
from ivp.collision.impact import rescue_addon, solve_single_impact
from ivp.collision.mindist import Mindist
from test_collision_scenes import ball, box, floor

IDT = 66.0


def contact_on_floor(obj, env, fl):
    """The contact point of obj's closest feature on the floor (5.2), made at
    the current time without an impact."""
    col = env.collision
    shape = obj.collision_data
    fshape = fl.collision_data
    t = env.current_time
    best = None
    for k in range(len(fshape.grid)):
        md = Mindist(shape, shape.piece_keys()[0], fshape, ("t", k)) if shape.is_ball else \
            Mindist(fshape, ("t", k), shape, shape.piece_keys()[0])
        md.recalc(t)
        if best is None or md.len_numerator < best.len_numerator:
            best = md
    cp, new = col.get_or_create_contact_point(best, obj.core.sim_unit_of_core, t)
    assert new
    return cp


def scene(gap, maker=ball, **kw):
    env = Environment(gravity=(0.0, 0.0, 0.0))
    fl = floor(env, material=Material(0.5, 0.0))
    half = kw.pop("half", 1.0)
    obj = maker(env, (0.0, half + gap, 0.0), material=Material(1.0, 0.0), **kw)
    obj.wake()
    return env, fl, obj


def test_rescue_of_a_resting_touch_is_0_024():
    # not closing (4.3): a panic rescue push of (0.02 + 0) 1.2 m/s; a ball
    # 1.5 cm up has no addon (gap >= 0.01, no rotation term for a ball)
    env, fl, b = scene(0.015, radius=1.0)
    cp = contact_on_floor(b, env, fl)
    assert rescue_addon(env, cp) == 0.0
    solve_single_impact(env, cp, 0.0, 0)
    assert b.core.speed[1] == pytest.approx(0.02 * 1.2, rel=1e-6)


def test_rescue_addon_catches_up_a_gap_below_1_cm_within_a_psi():
    env, fl, b = scene(0.004, radius=1.0)
    cp = contact_on_floor(b, env, fl)
    addon = rescue_addon(env, cp)
    assert addon == pytest.approx(2.0 * (0.01 - 0.004) * IDT, rel=1e-5)
    solve_single_impact(env, cp, addon, 0)
    assert b.core.speed[1] == pytest.approx((0.02 + addon) * 1.2, rel=1e-5)


def test_rescue_addon_adds_the_rotation_uncertainty_of_a_turning_box():
    # 4.6: alpha^2 = min(|w|^2 / 200^2, 0.25); (1 - cos alpha) R / dt, doubled
    env, fl, b = scene(0.015, maker=box, half=0.5)
    w = 6.0
    b.core.rot_speed = (0.0, w, 0.0)
    cp = contact_on_floor(b, env, fl)
    R = b.core.upper_limit_radius
    assert R == pytest.approx(math.sqrt(3.0) / 2.0, rel=1e-6)
    assert rescue_addon(env, cp) == pytest.approx(2.0 * (1.0 - math.cos(w / 200.0)) * R * IDT, rel=1e-6)


@pytest.mark.parametrize("e", [0.0, 0.06, 0.25, 1.0])
def test_a_ball_landing_straight_separates_at_v_sqrt_e(e):
    # 4.4: steps of 10 % of the elastic impulse 2 vm_A vm_B / (vm_A + vm_B) v
    # with the fixed floor's vm_A = 100000 vm_B, so each removes 0.2 k v,
    # k = 1e5 / (1e5 + 1): five steps leave v 1e-5 closing and a sixth
    # overshoots; 4.5 then gives v sqrt(e) unless the overshoot is more
    env, fl, b = scene(0.01, radius=1.0)
    v = 3.0
    b.core.speed = (0.0, -v, 0.0)
    cp = contact_on_floor(b, env, fl)
    cp.elasticity = e
    u, pushed = solve_single_impact(env, cp, 0.0, 0)
    assert u == pytest.approx((0.0, -v, 0.0))            # B (the ball) against A (the floor)
    assert pushed == [b.core]
    k = 1e5 / (1e5 + 1.0)
    steps = 6
    assert (steps - 1) * 0.2 * k < 1.0 <= steps * 0.2 * k
    overshoot = steps * 0.2 * k * v - v
    assert b.core.speed[1] == pytest.approx(max(v * math.sqrt(e), overshoot, 0.024), rel=1e-5, abs=1e-6)
