"""The energy-gain check of the multi-contact normal solve (surfaces-and-contacts 4)."""

import pytest

from ivp import Environment
from ivp.collision import Material
from ivp.collision.solver import Velocities, _normal_rows, energy_gain, row_apply
from test_collision_scenes import ball, box, floor, run


def test_energy_gain_is_the_kinetic_energy_added_beyond_the_targets():
    # a 2 kg ball on the floor (the impact at 5 mm makes the contact), then
    # closing at 1 m/s; the contact is below the centre, so an impulse lam
    # only changes v
    env = Environment(gravity=(0.0, 0.0, 0.0))
    floor(env)
    b = ball(env, (0.0, 1.0 + 0.005, 0.0), radius=1.0, mass=2.0)
    b.wake()
    run(env, env.delta_PSI_time)
    b.core.speed = (0.0, -1.0, 0.0)
    (c,) = [c for c in env.collision.contacts()]
    c.make_sides(b.core.m_world_f_core_last_psi, None)
    c.normal_force = 0.0                          # no warm start: the row begins at lam = 0
    (row,) = _normal_rows([c], Velocities(), env.delta_PSI_time, True)
    gap = c.gap
    lam = 3.0
    row[4] = lam
    row_apply(row[1], lam)
    m = 2.0
    v1 = -1.0 + lam / m
    gained = 0.5 * m * (v1 * v1 - 1.0)
    target = (0.02 - gap) * 1.0
    assert energy_gain([row]) == pytest.approx(gained - lam * target, rel=1e-9)


def test_a_stack_that_loses_its_support_falls_together():
    # Ten boxes resting 2 cm apart, each contact still holding last PSI's share
    # of the weight above it, start to fall freely: nothing presses them
    # together, so no contact may separate faster than its rest-gap target
    # (0.02 - gap) / s. Started from those forces, Gauss-Seidel does not
    # converge in its sweeps and would throw the stack apart; the check
    # solves again from zero.
    n = 10
    env = Environment(gravity=(0.0, -20.0, 0.0))
    boxes = [box(env, (0.0, 0.52 + 1.02 * i, 0.0), name=f"box{i}", material=Material(0.7, 0.3))
             for i in range(n)]
    boxes[0].wake()                              # pulls the resting partners in
    run(env, env.delta_PSI_time)
    interfaces = {}
    for c in env.collision.contacts():
        interfaces.setdefault(min(boxes.index(c.obj0), boxes.index(c.obj1)), []).append(c)
    assert sorted(interfaces) == list(range(n - 1))
    for k, contacts in interfaces.items():
        for c in contacts:
            c.normal_force = (n - 1 - k) * 1.0 * 20.0 / len(contacts)
    run(env, env.delta_PSI_time)
    target = max(0.02 - c.gap for c in env.collision.contacts())
    v = [b.core.speed[1] for b in boxes]
    assert max(v[k + 1] - v[k] for k in range(n - 1)) <= max(target, 0.0) + 1e-3
