"""The lane (ivp.step.runs and unit_pass, issue 11): free bodies run from their rows of the body
table, bit-identical to the object path, and a core the lane ran behaves as
any core to every caller (issue 39: the row is the core's state)."""

import pytest

from ivp import Environment, rng
from ivp.core import MT_NOT_SIM
from ivp.state.bodies import StaleCoreError
from ivp.state.layout import DAMP, SPEED
from test_collision_scenes import ball, box, floor

pytestmark = pytest.mark.skipif(Environment().lane is None, reason="the lane needs the compiled kernels")


def state(env):
    """Everything a core's PSI writes, the count-down and the RNG seed."""
    out = [env.sleep_countdown_value, rng.get_seed(), env.current_time]
    for o in env.objects:
        c = o.core
        out.append((c.pos_world_f_core_last_psi, c.q_world_f_core_last_psi, c.q_world_f_core_next_psi, c.speed,
                    c.rot_speed, c.speed_change, c.rot_speed_change, c.movement_state, c.time_calm_ref,
                    c.q_calm_ref, c.pos_calm_ref, c.current_speed, c.abs_omega, c.rotation_axis_world,
                    c.max_surface_rot_speed, c.m_world_f_core_last_psi, o.object_state))
    return repr(out)


def flying_world(lane: bool):
    """Boxes of unequal inertias and damped balls in weightless flight, spinning
    (some over pi/2 per PSI), some faster than 2000 m/s, one with a max rot speed,
    one woken again later; and a floor with a ball dropped from high above it."""
    rng.reset()
    env = Environment(gravity=(0.0, -0.0, 0.0))
    if not lane:
        env.lane = None
    floor(env, position=(0.0, -40.0, 0.0))
    bodies = [box(env, (i * 5.0, 3.0, 0.0), size=(1.0, 0.5 + 0.1 * i, 2.0), name=f"b{i}") for i in range(8)]
    bodies += [ball(env, (i * 5.0, 10.0, 9.0), radius=0.5, name=f"s{i}", speed_damp_factor=1.5,
                    rot_speed_damp_factor=(2.0, 2.0, 2.0)) for i in range(4)]
    for b in bodies:
        b.wake()
    env.simulate(env.delta_PSI_time)
    for i, b in enumerate(bodies):
        b.core.rot_speed = (0.3 * i, -7.0 + i, 2.0) if i % 3 else (50.0, 80.0, -90.0)
        b.core.speed = (0.01 * i, 0.0, 0.0) if i % 4 else (2500.0, 0.0, 0.0)
    bodies[3].core.max_rot_speed = (1.0, 2.0, 3.0)
    return env, bodies


def run_flying(lane: bool, look_every: int):
    env, bodies = flying_world(lane)
    frozen = []
    env.add_listener_object(type("L", (), {"event_object_frozen": lambda self, o: frozen.append(o.name),
                                            "event_object_revived": lambda self, o: None,
                                            "event_object_deleted": lambda self, o: None})())
    seen = []
    for k in range(700):
        env.simulate(env.delta_PSI_time)
        if k % look_every == 0:
            seen.append(state(env))
        if k == 300:
            bodies[5].core.speed = (0.0, 0.5, 0.0)
            bodies[5].wake()
    seen.append(state(env))
    return seen, frozen


def sparse_world():
    """Ten balls and boxes falling, 10 m apart, far above a floor."""
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    bodies = [(ball if i % 2 else box)(env, (10.0 * i, 500.0, 0.0), name=f"o{i}") for i in range(10)]
    for b in bodies:
        b.wake()
    return env, bodies


@pytest.mark.parametrize("look_every", [1, 97])
def test_the_lane_gives_the_object_paths_bits_psi_by_psi_and_after_long_stretches(look_every):
    lane, frozen = run_flying(True, look_every)
    plain, frozen_plain = run_flying(False, look_every)
    assert frozen and frozen == frozen_plain          # the damped balls fall asleep, in the same order
    assert lane == plain


def in_lane(core) -> bool:
    """Whether the lane ran the core at this PSI (or the last, between PSIs):
    it is in one of the PSI's recorded runs (Lane.ran)."""
    lane = core.environment.lane
    return lane is not None and any(c is core for _, cores in lane.ran for c in cores)


def lane_count(env) -> int:
    return sum(in_lane(o.core) for o in env.objects)


def test_free_bodies_run_in_the_lane_at_every_psi_and_their_fields_are_their_rows():
    env, bodies = sparse_world()
    for _ in range(5):
        env.simulate(env.delta_PSI_time)
    assert all(in_lane(b.core) for b in bodies)
    assert lane_count(env) == len(bodies)
    c = bodies[0].core
    y = c.pos_world_f_core_last_psi[1]                 # free fall for 5 PSIs: y = 500 - g t^2 / 2
    v = c.speed
    assert y == pytest.approx(500.0 - 10.0 * (5 / 66) ** 2, abs=0.1)
    assert v[1] == pytest.approx(-20.0 * 5 / 66, rel=0.05) and c.speed_change == (0.0, 0.0, 0.0)
    refs = c.time_calm_ref                             # a new list each read: the row is not changed by it
    refs[0] = -1.0
    assert in_lane(c) and c.time_calm_ref != refs
    c.speed = (1.0, 2.0, 3.0)                          # a write lands in the row; the core stays in the lane
    assert in_lane(c) and tuple(env.bodies.rows[c.row, SPEED:SPEED + 3]) == (1.0, 2.0, 3.0) == c.speed
    c.speed_damp_factor = 0.5                          # a field the take copies: its columns written again,
    assert in_lane(c)                                    # kl = 1 - dt . 0.5 (7.3, below the exp limit)
    assert env.bodies.rows[c.row, DAMP + 3] == 1.0 - env.delta_PSI_time * 0.5


def test_a_snapshot_copies_the_rows_and_the_runs_and_its_copy_runs_on_identically():
    env, bodies = sparse_world()
    for _ in range(20):
        env.simulate(env.delta_PSI_time)
    assert lane_count(env) == len(bodies)
    snap = env.snapshot()
    copy = snap.restore()
    assert [in_lane(o.core) for o in copy.objects] == [in_lane(o.core) for o in env.objects]
    assert lane_count(copy) == len(bodies)
    assert all(o.core._bodies is copy.bodies for o in copy.objects) and copy.bodies is not env.bodies
    assert copy.bodies.rows.tobytes() == env.bodies.rows.tobytes()
    seed = rng.get_seed()
    for _ in range(50):
        env.simulate(env.delta_PSI_time)
    a = state(env)
    rng.set_seed(seed)
    for _ in range(50):
        copy.simulate(copy.delta_PSI_time)
    assert state(copy) == a


def test_deleting_a_body_frees_its_row_and_its_core_fails_loudly():
    env, bodies = sparse_world()
    for _ in range(3):
        env.simulate(env.delta_PSI_time)
    gone = bodies[3].core
    assert in_lane(gone)
    env.delete_object(bodies[3])
    assert env.bodies.free == [gone.row]
    with pytest.raises(StaleCoreError, match="deleted object"):
        gone.speed
    with pytest.raises(StaleCoreError):
        gone.m_world_f_core_last_psi = ((1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0))
    new = ball(env, (0.0, 600.0, 0.0), name="new")     # the freed row is the new core's, zeroed but its fields
    assert new.core.row == gone.row and new.core.speed == (0.0, 0.0, 0.0)
    with pytest.raises(StaleCoreError):
        gone.pos_world_f_core_last_psi
    env.simulate(env.delta_PSI_time)


def test_a_quiet_psi_runs_the_recorded_plan_again():
    """Free bodies, nothing changing: the plan recorded at one PSI is the one
    every later PSI runs, and each PSI's cores are its cores."""
    env, bodies = sparse_world()
    for _ in range(2):                  # the first PSI's broad phase reads every core (its rows are made)
        env.simulate(env.delta_PSI_time)
    plan = env.lane.plan
    assert plan is not None and plan.complete
    for _ in range(10):
        env.simulate(env.delta_PSI_time)
        assert env.lane.plan is plan and env.lane.planned_psi == env.psi_count - 1
    cores = [c for step in plan.steps for c in (step[3] or step[1].cores)]
    assert sorted(map(id, cores)) == sorted(id(b.core) for b in bodies)


def test_a_first_pair_being_measured_keeps_the_plan():
    """A ball falling towards a floor gets its first mindist some PSIs
    before it touches: the unit's way does not depend on it, so the plan
    recorded in free fall holds through that PSI and the kept awake set
    takes the ball as one whose pairs a pass may drop."""
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    b = ball(env, (0.0, 30.0, 0.0), radius=0.5)
    b.wake()
    shape = b.collision_data
    for _ in range(2):
        env.simulate(env.delta_PSI_time)
    assert not shape.mindists           # 29.5 m above the floor
    plan = env.lane.plan
    assert plan is not None and plan.complete
    for _ in range(113):                # it reaches the floor after 1.72 s (113 PSIs)
        env.simulate(env.delta_PSI_time)
        assert env.lane.plan is plan
        if shape.mindists:
            break
    assert shape.mindists and plan.awake.with_mindists == [plan.awake.index_of[shape.serial]]
    env.simulate(env.delta_PSI_time)
    assert env.lane.plan is plan and env.lane.planned_psi == env.psi_count - 1


def test_a_spring_added_between_psis_is_felt_at_the_next_one():
    """A new controller touches the plan: the two bodies leave the lane and the
    spring pulls them together (10 m apart, rest length 1 m), as it does in a
    world that never had a plan."""
    from ivp import SpringTemplate, create_spring

    def gap(lane: bool):
        env, bodies = sparse_world()
        if not lane:
            env.lane = None
        for _ in range(5):
            env.simulate(env.delta_PSI_time)
        a, b = bodies[2], bodies[3]
        plan = env.lane.plan if lane else None
        create_spring(env, SpringTemplate(a, a.core.m_world_f_core_last_psi[1], b, b.core.m_world_f_core_last_psi[1],
                                          length=1.0, constant=50.0))
        for _ in range(20):
            env.simulate(env.delta_PSI_time)
        if lane:
            assert env.lane.plan is not plan and not in_lane(a.core) and in_lane(bodies[5].core)
        pa, pb = a.core.m_world_f_core_last_psi[1], b.core.m_world_f_core_last_psi[1]
        return pb[0] - pa[0], state(env)

    with_plans, s1 = gap(True)
    without, s2 = gap(False)
    assert with_plans < 9.0 and s1 == s2


def touch_every_psi(env) -> None:
    """A PSI listener that makes every PSI go unit by unit (no plan holds)."""
    env.add_listener_psi(lambda e: e.sim_unit_manager.changed(()))


def test_planned_psis_give_the_unit_by_unit_bits_with_bodies_landing_and_falling_asleep():
    """Balls and boxes dropped on a floor (lane runs cut by units with contacts,
    units freezing mid-run): the same state every 25 PSIs whether the plans
    run or every PSI goes unit by unit."""
    def run(plans: bool):
        rng.reset()
        env = Environment(gravity=(0.0, -20.0, 0.0))
        floor(env)
        bodies = [(ball if i % 2 else box)(env, (3.0 * i, 1.0 + 0.4 * i, 0.0), name=f"o{i}") for i in range(12)]
        for b in bodies:
            b.wake()
        if not plans:
            touch_every_psi(env)
        out = []
        for k in range(400):
            env.simulate(env.delta_PSI_time)
            if k % 25 == 24:            # reading gives the cores back: planned PSIs come between
                out.append(state(env))
        return out, sum(o.core.movement_state >= 2 for o in bodies)

    planned, resting = run(True)
    assert resting > 6                                  # most have landed and gone calm
    assert planned == run(False)[0]


def test_runs_longer_than_a_run_length_recorded_in_pieces_give_the_same_bits():
    """140 balls dropped in rows onto a floor (lane runs, then resting runs,
    each recorded at most RUN_LENGTH units at a time and merged in the plan;
    balls landing end runs early), then kept awake: the same state every 60
    PSIs as going unit by unit, and the plan's merged runs are longer than
    RUN_LENGTH."""
    from ivp import sim_unit

    def run(plans: bool):
        rng.reset()
        env = Environment(gravity=(0.0, -20.0, 0.0))
        floor(env)
        bodies = [ball(env, (-15.0 + 2.2 * (i % 14), 0.6 + 0.05 * (i // 14), -10.0 + 2.2 * (i // 14)), radius=0.5,
                       name=f"o{i}", speed_damp_factor=0.4 * (i % 3)) for i in range(140)]
        for b in bodies:
            b.wake()
        if not plans:
            touch_every_psi(env)
        out = []
        longest = 0
        for k in range(240):
            if k >= 5:                  # kept awake: quiet PSIs once they have landed
                for b in bodies:
                    b.wake()
            env.simulate(env.delta_PSI_time)
            plan = env.lane.plan
            if plans and plan is not None and plan.complete:
                longest = max([longest] + [len(s[2]) for s in plan.steps if s[2] is not None])
            if k % 60 == 59:            # reading gives the cores back: planned PSIs come between
                out.append(state(env))
        return out, longest

    planned, longest = run(True)
    assert longest > sim_unit.RUN_LENGTH
    assert planned == run(False)[0]


def test_a_pose_asked_for_keeps_the_core_in_the_lane_and_is_the_object_paths():
    """The glue's write-back asks every body's pose each frame (4.2), a force
    block the core's (4.1), a HUD its speed: a lane core answers from its
    row, stays in the lane, and gives the values a world without the lane gives,
    between PSIs and at them."""
    def poses(lane: bool):
        env, bodies = flying_world(lane)
        out = []
        kept = []
        for k in range(40):
            env.simulate(env.delta_PSI_time)
            t = env.current_time
            before = [in_lane(b.core) for b in bodies]
            for b in bodies:
                for tt in (t, t + 0.3 * env.delta_PSI_time):
                    out.append((b.get_m_world_f_object_AT(tt), b.core.get_m_world_f_core_PSI(tt)))
                c = b.core
                out.append((c.speed, c.rot_speed, c.speed_change, c.pos_world_f_core_last_psi,
                            c.q_world_f_core_next_psi, c.m_world_f_core_last_psi, c.current_speed,
                            c.movement_state, c.time_of_last_psi))
            kept.append((before.count(True), [in_lane(b.core) for b in bodies] == before))
        return out, kept

    with_lane, kept = poses(True)
    plain, _ = poses(False)
    assert all(same for _, same in kept) and min(n for n, _ in kept[5:]) >= 2
    assert with_lane == plain


def test_a_lane_cores_pose_is_one_object_until_its_next_begin_as_in_the_object_path():
    """At its last PSI a core's pose is one object (the caches keyed by a pose
    object hold on it: Shape.piece_world, a pair's hull record): a lane
    core's too, made from its row once (BodyTable.pose), the same object through
    get_m_world_f_core_PSI and the field, a new one with the
    row's new values after the next PSI's begin."""
    rng.reset()
    env = Environment()
    bodies = [ball(env, (3.0 * i, 50.0, 0.0), radius=0.5, name=f"s{i}") for i in range(4)]
    for i, b in enumerate(bodies):
        b.wake()
        b.core.rot_speed = (0.5 * i, 1.0, -2.0)
    moved = 0
    last = {}
    for k in range(30):
        env.simulate(env.delta_PSI_time)
        for b in bodies:
            c = b.core
            assert in_lane(c)
            row = env.bodies.rows[c.row]
            t = c.time_of_last_psi
            m = c.get_m_world_f_core_PSI(t)
            assert m is c.m_world_f_core_last_psi and m is c.get_m_world_f_core_PSI(t)
            assert c.get_m_world_f_core_PSI(env.current_time + 0.5 * env.delta_PSI_time) is not m
            assert m == (tuple(row[26:35].tolist()), tuple(row[35:38].tolist()))
            if b.name in last and m != last[b.name]:
                assert m is not last[b.name]
                moved += 1
            last[b.name] = m
    assert moved >= 100


def test_a_cores_centre_and_event_values_are_its_pose_and_fields_in_the_lane_or_not():
    """centre_at(t) is get_m_world_f_core_PSI(t)'s centre, look_values and
    event_values the fields they name, read at once from a lane core's row
    (the collision passes read them instead of the fields one by one), at a
    PSI and between PSIs, for moving and frozen cores; the core stays in the lane."""
    def values(lane: bool):
        env, bodies = flying_world(lane)
        out = []
        lane_count = 0
        for k in range(30):
            env.simulate(env.delta_PSI_time)
            t = env.current_time
            for b in bodies:
                c = b.core
                lane_count += in_lane(c)
                for tt in (t, t + 0.3 * env.delta_PSI_time, t - 0.7 * env.delta_PSI_time):
                    centre = c.centre_at(tt)
                    assert tuple(centre) == c.get_m_world_f_core_PSI(tt)[1]
                    out.append(tuple(centre))
                look = c.look_values()
                ev = c.event_values()
                assert look == (c.max_surface_rot_speed, c.current_speed)
                assert ev == (c.speed, c.rotation_axis_world, c.max_surface_rot_speed)
                out.append((look, ev))
                assert in_lane(b.core) == in_lane(c)   # still in the lane (or still not)
        return out, lane_count

    in_lane_values, lane_count = values(True)
    plain, _ = values(False)
    assert lane_count >= 50                 # at least two bodies in the lane at each PSI after the first few
    assert in_lane_values == plain


def test_object_poses_are_each_objects_pose_in_the_lane_or_not():
    """ivp.real_object.object_poses (the glue's write-back of every awake body)
    gives each object's get_m_world_f_object_AT(t), bit for bit, at PSIs and
    between them: lane cores read from their rows, others from their
    fields, objects whose core is shifted (an off-centre box) or turned (a
    lopsided hull) from them included."""
    import numpy as np
    from ivp import ObjectTemplate, build_surface, umath
    from ivp.real_object import object_poses
    from test_collision_scenes import box_points
    env, bodies = flying_world(True)
    off = [(x + 0.4, y - 0.1, z) for x, y, z in box_points(1.0, 0.5, 2.0)]
    for name, pts in (("off", off), ("turned", box_points(1.0, 0.5, 2.0))):
        o = env.create_polygon(build_surface(name, convex_point_sets=[pts]), ObjectTemplate(name=name),
                               (20.0, 3.0, 4.0 if name == "off" else -4.0))
        o.wake()
        o.core.rot_speed = (1.0, -2.0, 0.5)
        bodies.append(o)
    q = np.array([0.3, -0.2, 0.5, 0.78])
    bodies[-1].set_new_m_object_f_core((umath.quat_to_matrix(tuple(q / np.linalg.norm(q))), (0.2, 0.0, -0.3)))
    assert not bodies[-2].shift_is_zero and bodies[-1].q_core_f_object is not None
    lane_count = 0
    for _ in range(30):
        env.simulate(env.delta_PSI_time)
        for tt in (env.current_time, env.current_time + 0.4 * env.delta_PSI_time):
            kinds = [in_lane(b.core) for b in bodies]
            lane_count += kinds.count(True)
            R, V = object_poses(bodies, tt)
            assert [in_lane(b.core) for b in bodies] == kinds
            for k, b in enumerate(bodies):
                Rk, vk = b.get_m_world_f_object_AT(tt)
                assert tuple(R[k].tolist()) == tuple(Rk) and tuple(V[k].tolist()) == tuple(vk)
    assert lane_count >= 60


def resting_heap(n: int = 48):
    """Balls of radius 0.5 dropped in rows 0.1 above a floor, landing over a
    few PSIs and falling asleep one by one (a plan is recorded at most PSIs)."""
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, n=40)                    # 1 m cells: balls roll over edges (a second point, one deleted)
    bodies = [ball(env, (-6.0 + 1.05 * (i % 12), 0.6 + 0.03 * i, -3.0 + 1.5 * (i // 12)), radius=0.5,
                   name=f"o{i}", speed_damp_factor=0.2 * (i % 3)) for i in range(n)]
    for b in bodies:
        b.wake()
    return env, bodies


def test_a_units_kept_lane_step_is_the_one_it_would_get_again(monkeypatch):
    """sim_unit.lane_kind keeps each unit's way through the PSI loop while no
    change names the unit: in a heap landing and falling asleep (contacts
    made and deleted, units merged, split and frozen), every kept answer is
    the one looking at the unit again gives, and most answers are kept ones."""
    from ivp import sim_unit
    from ivp.step.runs import lane_point
    answers = []                        # per answer, whether it was the kept one
    ask = sim_unit.lane_kind

    def counted(env, su):
        kept = su.lane_kind
        out = ask(env, su)
        answers.append(kept is not None and su.lane_kind is kept)
        assert out == lane_point(env, su), f"a unit's kept lane step is stale: {out}"
        return out

    monkeypatch.setattr(sim_unit, "lane_kind", counted)
    env, bodies = resting_heap()
    for _ in range(300):
        env.simulate(env.delta_PSI_time)
    assert sum(o.core.movement_state == MT_NOT_SIM for o in bodies) > len(bodies) // 2     # most fell asleep
    assert sum(answers) > 0.75 * len(answers)


def test_a_change_naming_the_unit_makes_its_kept_step_stale():
    """A resting ball's kept step is its contact point's row, a ball in
    flight's -1 (no point); a force controller
    added to its core (SimUnitManager.changed names the unit) sends it to the
    object path, and leaves another unit's kept step as it was, until a
    change names that unit."""
    from ivp import ForceController
    from ivp.sim_unit import lane_kind
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    b = ball(env, (0.0, 0.55, 0.0), radius=0.5, name="b")
    far = ball(env, (30.0, 300.0, 0.0), radius=0.5, name="far")
    b.wake()
    far.wake()
    for _ in range(40):
        env.simulate(env.delta_PSI_time)
        b.wake()
    su, su_far = b.core.sim_unit_of_core, far.core.sim_unit_of_core
    (cp,) = env.collision.contacts()
    assert lane_kind(env, su) == cp.row and lane_kind(env, su_far) == -1
    kept = su.lane_kind
    assert lane_kind(env, su) == kept[0] and su.lane_kind is kept          # asked again: kept
    env.sim_unit_manager.add_controller_to_core(ForceController(b.core, (0, 0, 0), (0.0, 0.1, 0.0)), b.core)
    far_kept = su_far.lane_kind
    assert lane_kind(env, su) is None and su.lane_kind is not kept
    assert lane_kind(env, su_far) == -1 and su_far.lane_kind is far_kept  # not named: kept
    env.sim_unit_manager.changed((su_far,))
    assert lane_kind(env, su_far) == -1 and su_far.lane_kind is not far_kept
