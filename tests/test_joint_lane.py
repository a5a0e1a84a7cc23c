"""Units of joints run by the lane (issue 11): a unit whose controllers
are gravity and constraints without a maximum force, far from everything,
runs its whole PSI from array rows (lane.run_joint_unit), bit-identical to
the object path PSI by PSI: pushes, limits switching, falling asleep,
landing on a floor, a snapshot."""

import pytest

from ivp import ConstraintTemplate, Environment, ObjectTemplate, create_constraint, create_hinge, create_slider, rng
from test_collision_scenes import ball, box, floor
from test_constraint import body, box_surface, fix_cube
from test_lane import in_lane, state

pytestmark = pytest.mark.skipif(Environment().lane is None, reason="the lane needs the compiled kernels")


def world(lane: bool, gravity=(0.0, -20.0, 0.0)):
    rng.reset()
    env = Environment(gravity=gravity)
    if not lane:
        env.lane = None
    return env


def plank(env, name, pos, mass, collide, damp=0.1):
    tmpl = ObjectTemplate(name=name, mass=mass, speed_damp_factor=damp, rot_speed_damp_factor=(damp,) * 3,
                          collision_enabled=collide)
    return env.create_polygon(box_surface(1.0, 0.1, 1.5), tmpl, pos)


def bridge(env, collide=False):
    """bench_joints' plank bridge: nine damped planks hinged about z at their
    edges (the fourth hinge limited), both ends on a FixCube; a floor far below."""
    floor(env, position=(0.0, -60.0, 0.0))
    fix = fix_cube(env)
    planks = [plank(env, f"plank{i}", (2.0 * i + 1.0, 5.0, 0.0), 1.0 if i == 8 else 0.5, collide)
              for i in range(9)]
    create_hinge(env, planks[0], fix, (0.0, 5.0, 0.0), (0.0, 0.0, 1.0))
    for i in range(8):
        create_hinge(env, planks[i + 1], planks[i], (2.0 * i + 2.0, 5.0, 0.0), (0.0, 0.0, 1.0),
                     limits=(-0.2, 0.2) if i == 3 else None)
    create_hinge(env, planks[8], fix, (18.0, 5.0, 0.0), (0.0, 0.0, 1.0))
    return planks


def run(env, psis: int, every=None, look_every=1):
    """The state (test_lane.state) every
    look_every PSIs and at the end; ``every(env, k)`` before PSI k."""
    seen = []
    for k in range(psis):
        if every is not None:
            every(env, k)
        env.simulate(env.delta_PSI_time)
        if k % look_every == 0 or k == psis - 1:
            seen.append(state(env))
    return seen


def same_worlds(make, psis: int, every=None, look_every=1):
    """The world ``make(env)`` builds, run with the lane and without: the
    look of the first difference (None) and the lane run's environment."""
    out = []
    for lane in (True, False):
        env = world(lane)
        make(env)
        out.append((run(env, psis, every, look_every), env))
    (a, env), (b, _) = out
    first = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), None)
    return first, env


def pushed_bridge(env, collide=False):
    planks = bridge(env, collide)
    planks[4].async_push_object_ws((9.0, 5.0, 0.0), (0.0, -3.0, 0.0))
    for p in planks:
        p.wake()


def lane_cores(env) -> int:
    return 0 if env.lane is None else sum(in_lane(o.core) for o in env.objects)


@pytest.mark.parametrize("look_every", [1, 23])
def test_a_bridge_of_hinges_in_the_lane_gives_the_object_paths_bits(look_every):
    seen = []
    first, env = same_worlds(pushed_bridge, 200, lambda env, k: seen.append(lane_cores(env)), look_every)
    assert first is None, f"the worlds differ from look {first}"
    if look_every > 1:
        assert max(seen) == 9, "the bridge's planks must stay in the lane between PSIs"


def test_pushes_between_psis_reach_a_lane_unit_as_a_plain_one():
    def kick(env, k):
        if k % 37 == 5:
            p = next(o for o in env.objects if o.name == f"plank{k % 9}")
            p.async_push_object_ws((2.0 * (k % 9) + 1.5, 5.0, 0.5), (0.5, 4.0, -1.0))
        if k == 90:
            p = next(o for o in env.objects if o.name == "plank2")
            p.core.rot_speed = (0.0, 0.0, 3.0)

    first, _ = same_worlds(pushed_bridge, 160, kick)
    assert first is None, f"the worlds differ from PSI {first}"


def test_a_damped_pendulum_falls_asleep_in_the_lane_as_on_the_object_path():
    """One hinge to the world (a constraint of its own, no run), heavily
    damped: the unit is calm and frozen at the same PSI both ways."""
    frozen = {}

    def make(env):
        tmpl = ObjectTemplate(name="pendulum", speed_damp_factor=3.0, rot_speed_damp_factor=(3.0,) * 3,
                              collision_enabled=False)
        p = env.create_polygon(box_surface(0.1, 1.0, 0.1), tmpl, (0.0, -1.0, 0.0))
        create_hinge(env, p, None, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
        p.core.rot_speed = (0.0, 0.0, 1.5)
        p.wake()

    def look(env, k):
        p = env.objects[0]
        if p.object_state == 8 and id(env) not in frozen:
            frozen[id(env)] = k

    first, env = same_worlds(make, 400, look)
    assert first is None, f"the worlds differ from PSI {first}"
    assert len(frozen) == 2 and len(set(frozen.values())) == 1, frozen
    assert not in_lane(env.objects[0].core), "a frozen unit's cores leave the lane"


def test_a_jointed_body_falling_onto_a_floor_stays_in_the_lane_until_it_touches():
    """A box (collision on) with a plank on a hinge and a block on a limited
    slider (collision off), falling from 12 m onto a floor, the plank
    spinning: in the lane while it falls, while the box's pairs with the
    floor are measured (mindists) too, and on the object path once the box
    touches (its friction system's handles are controllers of the unit)."""
    def make(env):
        floor(env)
        a = box(env, (0.0, 12.0, 0.0), size=(1.0, 0.2, 1.0), name="box")
        b = body(env, "plank", (3.0, 12.0, 0.0), half=(1.0, 0.1, 0.5))
        c = body(env, "block", (-3.0, 12.0, 0.0), half=(0.5, 0.25, 0.5))
        create_hinge(env, b, a, (1.5, 12.0, 0.0), (0.0, 0.0, 1.0))
        create_slider(env, c, a, (-3.0, 12.0, 0.0), (-4.0, 12.0, 0.0), limits=(-0.3, 0.3))
        for o in (a, b, c):
            o.wake()
        b.core.rot_speed = (0.0, 0.0, 2.0)

    seen = []                   # per PSI: cores the lane ran, the box had mindists before, it touches after
    had = [False]

    def look(env, k):
        if env.lane is not None:
            core = next(o for o in env.objects if o.name == "box").core
            if k > 0:
                seen.append((lane_cores(env), had[0], core.friction_system is not None))
            had[0] = bool(core.objects[0].collision_data.mindists)

    first, env = same_worlds(make, 150, look, look_every=200)
    assert first is None, f"the worlds differ from look {first}"
    assert seen[1] == (3, False, False), "in the lane while falling"
    assert (3, True, False) in seen, "in the lane while the box's pairs with the floor are measured"
    assert seen[-1][0] == 0 and seen[-1][2], "on the object path once the box touches"


def test_a_constraint_with_a_maximum_force_keeps_its_unit_on_the_object_path():
    env = world(True)
    fix = fix_cube(env)
    p = body(env, "p", (0.0, 4.0, 0.0))
    t = ConstraintTemplate()
    t.set_constraint_ws(env, p, (0.0, 5.0, 0.0), None, 3, 0, fix)
    t.set_max_translation_force(1, 40.0, "scale")
    create_constraint(env, t)
    q = body(env, "q", (0.0, 2.0, 0.0))
    create_hinge(env, q, p, (0.0, 3.0, 0.0), (0.0, 0.0, 1.0))
    p.wake()
    for _ in range(5):
        env.simulate(env.delta_PSI_time)
    assert lane_cores(env) == 0


def test_a_snapshot_of_a_lane_bridge_runs_on_identically():
    env = world(True)
    pushed_bridge(env)
    for _ in range(30):
        env.simulate(env.delta_PSI_time)
    assert lane_cores(env) == 9
    snap = env.snapshot()
    copy = snap.restore()
    assert lane_cores(copy) == 9                # the runs are copied with the rows
    seed = rng.get_seed()
    a = run(env, 60)
    rng.set_seed(seed)
    assert run(copy, 60) == a


def test_a_ball_hitting_the_lane_bridge_takes_it_back_to_the_object_path():
    def make(env):
        pushed_bridge(env, collide=True)
        b = ball(env, (9.0, 9.0, 0.0), radius=0.5, name="ball")
        b.wake()

    first, env = same_worlds(make, 120)
    assert first is None, f"the worlds differ from PSI {first}"


def test_a_frozen_listener_that_breaks_a_lane_chain_splits_its_unit_at_once():
    """Two damped planks hanging on hinges fall asleep in the lane; the frozen
    listener of the lower one deletes the hinge between them: the unit is
    split in that PSI, as on the object path, and both worlds go on the same."""
    units = []

    def make(env):
        a = plank(env, "upper", (1.0, 5.0, 0.0), 0.5, False, damp=4.0)
        b = plank(env, "lower", (3.0, 5.0, 0.0), 0.5, False, damp=4.0)
        create_hinge(env, a, None, (0.0, 5.0, 0.0), (0.0, 0.0, 1.0))
        link = create_hinge(env, b, a, (2.0, 5.0, 0.0), (0.0, 0.0, 1.0))

        class Breaker:
            def event_object_frozen(self, o):
                if o is b and not link.deleted:
                    link.delete()
                    units.append((id(env), env.psi_count, len(env.sim_unit_manager.frozen)))

            def event_object_revived(self, o):
                pass

            def event_object_deleted(self, o):
                pass

        env.add_listener_object(Breaker())
        a.wake()

    shapes = {}

    def look(env, k):
        m = env.sim_unit_manager
        a, b = env.objects
        shapes.setdefault(id(env), []).append((len(m.active), len(m.frozen),
                                               a.core.sim_unit_of_core is b.core.sim_unit_of_core))
        if k == 600:
            for o in env.objects:
                o.wake()

    first, env = same_worlds(make, 700, look, look_every=50)
    assert first is None, f"the worlds differ from look {first}"
    assert len(units) == 2 and units[0][1:] == units[1][1:], units
    lane, plain = shapes.values()
    assert lane == plain                    # the units, PSI by PSI
    assert lane[-1][2] is False             # split
