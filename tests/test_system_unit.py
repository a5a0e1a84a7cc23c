"""A unit of one several-point friction system runs its PSI with its cores on
loan to the lane (issue 11, collision.system_unit): the same bits as the
object path (SimUnit._object_psi) for every core and contact point, PSI
after PSI, through the normal solve, the panic of a system over
MAX_FRICTION_MATRIX points, the sleep test and a write to a taken core in the
middle of the PSI."""

import pytest

import ivp.sim_unit as sim_unit
from ivp.collision import system_unit
from ivp import Environment, rng
from ivp.collision.constants import MAX_FRICTION_MATRIX
from test_collision_scenes import ball, box, floor
from test_system_rows import heap_world, point_state, states_now


def ball_pit():
    """Three layers of 7 x 7 / 6 x 6 balls (r 0.5) in a walled pit: one
    system of ~250 points, over MAX_FRICTION_MATRIX."""
    rng.reset()
    env = Environment(gravity=(0.0, -10.0, 0.0))
    floor(env, n=6, size=30.0)
    for k, (x, z) in enumerate([(-4.1, 0.0), (4.1, 0.0), (0.0, -4.1), (0.0, 4.1)]):
        box(env, (x, 1.0, z), size=(0.2, 2.0, 8.4) if z == 0.0 else (8.4, 2.0, 0.2), fixed=True, name=f"wall{k}")
    for layer in range(3):
        o = 0.5 * (layer % 2)
        m = 7 - layer % 2
        for i in range(m):
            for j in range(m):
                ball(env, (-3.0 + o + i, 0.5 + 0.75 * layer, -3.0 + o + j), radius=0.5, name=f"b{layer}_{i}_{j}")
    for o in env.objects:
        if not o.core.physical_unmoveable:
            o.wake()
    return env


class Runs:
    """run_system_unit counted: runs, and the most points a run's system held."""

    def __init__(self, monkeypatch):
        self.runs = 0
        self.most_points = 0
        self.loaned_after = 0
        run = sim_unit.run_system_unit

        def counted(env, su, fs, ev, cores_out):
            self.runs += 1
            self.most_points = max(self.most_points, len(fs.contacts))
            run(env, su, fs, ev, cores_out)
            self.loaned_after += sum(env.lane.has(c) for c in su.cores)

        monkeypatch.setattr(sim_unit, "run_system_unit", counted)


def world_states(env, psis: int) -> list:
    out = []
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
        out.append((states_now(env), point_state(env), len(env.sim_unit_manager.active)))
    return out


def assert_as_the_object_path(make, psis: int, monkeypatch) -> list:
    """The world run with system units (of any size) and without them (every
    unit on the object path), equal at every PSI; returns the first run's states."""
    monkeypatch.setattr(system_unit, "MIN_CORES", 2)
    loaned = world_states(make(), psis)
    with monkeypatch.context() as m:
        m.setattr(sim_unit, "system_unit", lambda env, su: None)
        objects = world_states(make(), psis)
    for k, (a, b) in enumerate(zip(loaned, objects)):
        assert a == b, f"PSI {k}"
    return loaned


def test_a_heaps_unit_runs_on_loan_as_the_object_path(monkeypatch):
    runs = Runs(monkeypatch)
    states = assert_as_the_object_path(heap_world, 200, monkeypatch)
    assert runs.runs >= 100
    assert runs.loaned_after >= 100 * 4                  # the cores stayed on loan after the runs
    assert runs.most_points <= MAX_FRICTION_MATRIX       # the normal solve, not its panic
    assert states[30][0] != states[199][0]               # the heap moved


def test_a_system_over_the_matrix_limit_panics_and_sleeps_on_loan_as_the_object_path(monkeypatch):
    runs = Runs(monkeypatch)
    states = assert_as_the_object_path(ball_pit, 120, monkeypatch)
    assert runs.most_points > MAX_FRICTION_MATRIX        # the panic: speeds zeroed on the rows
    assert runs.runs >= 20
    assert states[5][2] >= 1 and states[-1][2] == 0      # the pit fell asleep (unit_calm_k)


class GiveBack:
    """A contact listener that writes a movable side's speed (the same value)
    when a point dies: a write to a taken core's row mid-PSI."""

    def __init__(self):
        self.loaned = 0

    def event_friction_created(self, ev) -> None:
        pass

    def event_friction_deleted(self, ev) -> None:
        cp = ev.contact
        core = cp.core1 if cp.core0.physical_unmoveable else cp.core0
        self.loaned += core.environment.lane.has(core)
        core.speed = core.speed


@pytest.mark.parametrize("make", [heap_world, ball_pit])
def test_a_write_to_a_taken_core_in_the_middle_of_the_psi_gives_the_object_paths_bits(make, monkeypatch):
    listeners = []

    def with_listener():
        env = make()
        listeners.append(GiveBack())
        env.collision.add_listener_contact(listeners[-1])
        return env

    assert_as_the_object_path(with_listener, 200, monkeypatch)
    assert listeners[0].loaned >= 3                      # taken by the lane, in a system unit's PSI


def test_a_write_to_a_taken_core_before_gravity_gives_the_object_paths_bits(monkeypatch):
    """A write to a taken core during the energy handle (here after its
    damping, 5.8, at every PSI) lands in its row before gravity, the sleep
    test and the integration read it."""
    import ivp.collision.friction as friction
    damp = friction.damp_system
    loaned = []

    def damp_then_write(fs, factor):
        damp(fs, factor)
        core = fs.movable[len(fs.movable) // 2]
        loaned.append(core.environment.lane.has(core))
        core.speed = core.speed

    monkeypatch.setattr(friction, "damp_system", damp_then_write)
    states = assert_as_the_object_path(ball_pit, 120, monkeypatch)
    assert sum(loaned) >= 20
    assert states[-1][2] == 0                            # asleep


def test_a_small_system_stays_on_the_object_path_and_a_big_one_runs_on_loan(monkeypatch):
    """MIN_CORES: the heap of ten bodies runs on the object path, the pit's 134 balls on loan."""
    for make, want in ((heap_world, False), (ball_pit, True)):
        with monkeypatch.context() as m:
            runs = Runs(m)
            world_states(make(), 30)
        assert (runs.runs > 0) == want
