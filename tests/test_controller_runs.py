"""Controller runs (issue 11): a unit's consecutive constraints without a
maximum force are solved in one compiled pass (ConstraintRun), with the same
values as each constraint's do_simulation_controller in turn."""

import pytest

from ivp import ConstraintTemplate, Environment, create_ball_joint, create_constraint, create_hinge, create_slider
from ivp import jit, rng, sim_unit
from ivp.controllers.constraint import Constraint, ConstraintRun
from test_constraint import body, fix_cube

pytestmark = pytest.mark.skipif(not jit.ENABLED, reason="controller runs are made with the compiled kernels")


def chain_world():
    """One unit: a FixCube, a chain of four planks on hinges (the second
    limited to +-0.3 rad, so its limit axis switches on and off), a slider
    and a ball joint to the world, and in the middle of the controller list a
    ball joint with a maximum force (solved on its own); every body pushed."""
    rng.reset()
    env = Environment(gravity=(0.0, -10.0, 0.0))
    fix = fix_cube(env)
    planks = [body(env, f"p{i}", (0.0, -1.0 - 2.0 * i, 0.0), half=(0.1, 1.0, 0.2 + 0.05 * i)) for i in range(4)]
    create_hinge(env, planks[0], fix, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    create_hinge(env, planks[1], planks[0], (0.0, -2.0, 0.0), (0.0, 0.0, 1.0), limits=(-0.3, 0.3))
    t = ConstraintTemplate()
    t.set_constraint_ws(env, planks[2], (0.0, -4.0, 0.0), None, 3, 0, planks[1])
    t.set_max_translation_force(1, 40.0, "scale")
    create_constraint(env, t)
    create_hinge(env, planks[3], planks[2], (0.0, -6.0, 0.0), (1.0, 0.0, 0.0))
    block = body(env, "block", (3.0, -7.0, 0.0), half=(0.3, 0.3, 0.3))
    create_slider(env, block, planks[3], (3.0, -7.0, 0.0), (4.0, -7.0, 0.0), limits=(-0.5, 0.5))
    create_ball_joint(env, block, None, (3.0, -6.5, 0.0))
    for i, b in enumerate(planks + [block]):
        b.wake()
        b.core.speed = (3.0 - i, 0.5 * i, 1.0)
        b.core.rot_speed = (0.2 * i, -1.0, 2.0 - i)
    return env, planks + [block]


def state(env):
    return repr([rng.get_seed()] + [(o.core.pos_world_f_core_last_psi, o.core.q_world_f_core_last_psi, o.core.speed,
                  o.core.rot_speed, o.core.movement_state) for o in env.objects]
                + [list(c.axis_type) for c in constraints(env)])


def constraints(env) -> list:
    out = []
    for o in env.objects:
        for c in o.core.controllers_of_core:
            if isinstance(c, Constraint) and c not in out:
                out.append(c)
    return out


def run(monkeypatch, runs: bool, psis: int = 240) -> list:
    monkeypatch.setattr(sim_unit, "CONTROLLER_RUNS", runs)
    env, _ = chain_world()
    seen = []
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
        seen.append(state(env))
    return seen


def test_constraint_runs_give_the_values_of_each_constraint_in_turn(monkeypatch):
    alone = run(monkeypatch, False)
    together = run(monkeypatch, True)
    assert together == alone
    assert together[10] != together[200]                     # the chain moved


def test_a_units_steps_group_consecutive_constraints_without_a_maximum_force():
    env, bodies = chain_world()
    env.simulate(env.delta_PSI_time)
    su = bodies[0].core.sim_unit_of_core
    assert all(b.core.sim_unit_of_core is su for b in bodies)
    steps = su.controller_steps()
    order = [e.controller for e in su.entries[::-1]]
    runs = [c for c, on in steps if isinstance(c, ConstraintRun)]
    assert [on for c, on in steps if isinstance(c, ConstraintRun)] == [None] * len(runs)
    # the max-force joint splits the constraints (all at one priority) into two runs
    constraints = [c for c in order if isinstance(c, Constraint)]
    limited = [c for c in constraints if c.max_force is not None]
    assert len(limited) == 1 and len(runs) == 2
    k = constraints.index(limited[0])
    assert [run.IR.shape[0] for run in runs] == [k, len(constraints) - k - 1]
    assert [c for c, _ in steps if not isinstance(c, ConstraintRun)] == [c for c in order
                                                                          if c not in constraints or c in limited]
    # the steps are kept while the unit stays as it is, and made again after a change
    assert su.controller_steps() is steps
    limited[0].delete()
    assert len([c for c, _ in su.controller_steps() if isinstance(c, ConstraintRun)]) == 1


def test_a_run_is_kept_when_the_steps_are_made_again_with_the_same_constraints():
    """A change to the unit (SimUnitManager.changed) makes the steps again:
    a run of the same constraints is the same run (its arrays, its kept axis
    types); one more constraint in the unit makes a new one."""
    env, bodies = chain_world()
    env.simulate(env.delta_PSI_time)
    su = bodies[0].core.sim_unit_of_core
    first, second = [c for c, _ in su.controller_steps() if isinstance(c, ConstraintRun)]
    env.sim_unit_manager.changed((su,))
    steps = su.controller_steps()
    assert [c for c, _ in steps if isinstance(c, ConstraintRun)] == [first, second]
    create_hinge(env, bodies[4], bodies[3], (3.0, -6.5, 0.0), (0.0, 0.0, 1.0))
    runs = [c for c, _ in su.controller_steps() if isinstance(c, ConstraintRun)]
    kept = [r for r in runs if r is first or r is second]
    new, = [r for r in runs if r is not first and r is not second]
    assert len(kept) == 1 and len(new.controllers) == len(({first, second} - set(kept)).pop().controllers) + 1


def test_a_restored_snapshot_goes_on_as_the_world_it_was_taken_from():
    env, bodies = chain_world()
    for _ in range(30):
        env.simulate(env.delta_PSI_time)
    assert any(isinstance(c, ConstraintRun) for c, _ in bodies[0].core.sim_unit_of_core.controller_steps())
    snap = env.snapshot()
    for _ in range(60):
        env.simulate(env.delta_PSI_time)
    copy = snap.restore()                       # the seed as it was, the steps made again
    for _ in range(60):
        copy.simulate(copy.delta_PSI_time)
    assert state(copy) == state(env)
