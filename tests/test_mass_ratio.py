"""Issue 41 item 6: the mass ratio the engine holds (ivp.limits.MAX_MASS_RATIO,
docs/ivp.md) and the warning at creation past it."""

import warnings

import pytest

from ivp import Environment, ObjectTemplate, limits
from test_collision_scenes import box, floor


def stack(heavy_mass):
    """A 1 kg unit box 2 cm above a fixed floor, a unit box of heavy_mass kg 3 cm above it."""
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    light = box(env, (0.0, 0.52, 0.0), mass=1.0, name="light")
    heavy = box(env, (0.0, 1.55, 0.0), mass=heavy_mass, name="heavy")
    light.wake()
    heavy.wake()
    return env, light, heavy


def test_a_stack_at_the_stated_ratio_holds_on_a_fixed_floor():
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # at the ratio: no warning
        env, light, heavy = stack(limits.MAX_MASS_RATIO)
    for _ in range(int(3.0 / env.delta_PSI_time)):
        env.simulate(env.delta_PSI_time)
    # unit boxes held at IVP's 2 cm contact gap: centres at 0.52 and 1.54
    assert light.core.pos_world_f_core_last_psi[1] == pytest.approx(0.52, abs=0.02)
    assert heavy.core.pos_world_f_core_last_psi[1] == pytest.approx(1.54, abs=0.02)


def test_creation_past_the_ratio_warns_naming_the_body_and_the_limit():
    env = Environment()
    box(env, (0.0, 0.5, 0.0), mass=1.0, name="light")
    with pytest.warns(RuntimeWarning, match=r"'heavy'.*1e\+06 kg.*MAX_MASS_RATIO"):
        box(env, (0.0, 2.0, 0.0), mass=1e6, name="heavy")
    with pytest.warns(RuntimeWarning, match=r"'feather'.*0\.001 kg.*1e\+06 kg"):
        box(env, (0.0, 4.0, 0.0), mass=1e-3, name="feather")


def test_fixed_bodies_do_not_count():
    env = Environment()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.create_polygon(floor(env).surface, ObjectTemplate(name="rock", mass=1e9, physical_unmoveable=True),
                           (0.0, 0.0, 0.0))
        box(env, (0.0, 0.5, 0.0), mass=1.0, name="light")
