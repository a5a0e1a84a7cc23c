"""ctx.physics.reset_bodies: bodies back to their initial matrices with their
joints and springs (Ballance's sector reset; glue-and-content 1 and 2)."""

import math

import numpy as np
import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import SetPhysicsGlobals
from ivp import MT_NOT_SIM

PSI_MS = 1000.0 / 66.0


def world(gravity=(0.0, -20.0, 0.0)):
    """A context with Ballance's FixCube (fixed, collision off) at the origin."""
    ctx = CKContext()
    SetPhysicsGlobals(None, ctx, gravity=gravity, physic_time_factor=1.0).trigger()
    fix = ctx.create_entity("FixCube", mesh=meshes.box(1.0, 1.0, 1.0, name="fix"))
    blocks.physicalize(ctx, fix, fixed=True, enable_collision=False)
    return ctx, fix


def run(ctx, n=1, ms=PSI_MS):
    for _ in range(n):
        ctx.process_frame(ms)


def matrix(e):
    return e.get_world_matrix().as_array().copy()


def hinged(ctx, fix, name, mesh, position, anchor, **pins):
    """A body hinged to FixCube about world Z through ``anchor``."""
    e = ctx.create_entity(name, mesh=mesh, position=position)
    ref = ctx.create_entity(f"{name}_joint", position=anchor)
    blocks.physicalize(ctx, e, **pins)
    return e, blocks.hinge(ctx, e, object2=fix, joint_referential=ref)


def hanging_plank(ctx, fix, **pins):
    """A 0.4 x 4 x 1 plank hanging from a hinge at its top end, (0, 10, 0)."""
    return hinged(ctx, fix, "Plank", meshes.box(0.4, 4.0, 1.0, name="plank"), (0.0, 8.0, 0.0), (0.0, 10.0, 0.0),
                  **pins)


def seesaw(ctx, fix, **pins):
    """An 8 x 0.4 x 2 board (mass 3, damping 1 / 1) hinged at its centre (0, 5, 0)."""
    pins = {"mass": 3.0, "linear_speed_dampening": 1.0, "rot_speed_dampening": 1.0, **pins}
    return hinged(ctx, fix, "Seesaw", meshes.box(8.0, 0.4, 2.0, name="board"), (0.0, 5.0, 0.0), (0.0, 5.0, 0.0),
                  **pins)


def knock(ctx, e, position, direction, impulse):
    blocks.impulse(ctx, e, position=position, referential=e, direction=direction, impulse=impulse)


def swing_after(ctx, plank, psis):
    """Knock the plank's bottom end along +X (the impulse lands at the next
    PSI, ivp spec 13.1) and give its centre ``psis`` PSIs later."""
    env = ctx.physics.env
    knock(ctx, plank, (0.0, -2.0, 0.0), (1.0, 0.0, 0.0), 2.0)
    first, seen = env.psi_count, []

    def sample(env):
        if env.psi_count == first + psis + 1:          # the pose after psis PSIs
            seen.append(ctx.physics.body_of(plank).core.pos_world_f_core_last_psi)

    env.add_listener_psi(sample)
    while not seen:
        run(ctx)
    env.remove_listener_psi(sample)
    return seen[0]


def test_a_knocked_plank_comes_back_to_its_initial_matrix_on_its_hinge():
    """No gravity, no damping: the impulse J = 2 at 4 below the hinge turns the
    plank (mass 1, 0.4 x 4) at w = 4 J / (m (0.4^2 + 4^2) / 12 + m 2^2) about the
    hinge, its centre on a circle of radius 2."""
    ctx, fix = world(gravity=(0.0, 0.0, 0.0))
    plank, hinge = hanging_plank(ctx, fix, linear_speed_dampening=0.0, rot_speed_dampening=0.0)
    m0 = matrix(plank)
    n = 20
    w = 4.0 * 2.0 / ((0.4 ** 2 + 4.0 ** 2) / 12.0 + 2.0 ** 2)
    assert w == pytest.approx(1.496259, abs=1e-6)
    first = swing_after(ctx, plank, n)
    assert math.atan2(first[0], 10.0 - first[1]) == pytest.approx(w * n / 66.0, rel=5e-3)   # knocked away
    assert math.hypot(first[0], 10.0 - first[1]) == pytest.approx(2.0, abs=1e-3)         # about its hinge
    old_body, old_joint = ctx.physics.body_of(plank), hinge.handle
    assert blocks.reset_bodies(ctx, {plank: m0}) == [plank]
    body = ctx.physics.body_of(plank)
    assert body is not old_body and old_body.deleted and old_joint.deleted
    assert np.array_equal(matrix(plank), m0)                       # exactly, bit for bit
    assert body.core.speed == (0.0, 0.0, 0.0) and body.core.rot_speed == (0.0, 0.0, 0.0)
    assert hinge.handle is not None and hinge.handle is not old_joint
    assert hinge.handle.objects == (body, ctx.physics.body_of(fix))
    # The same push from the same state: the same swing about the same hinge.
    assert swing_after(ctx, plank, n) == pytest.approx(first, abs=1e-9)


def test_a_tipped_seesaw_comes_back_level():
    ctx, fix = world()
    board, hinge = seesaw(ctx, fix)
    m0 = matrix(board)
    run(ctx, 2)
    knock(ctx, board, (4.0, 0.0, 0.0), (0.0, -1.0, 0.0), 10.0)
    run(ctx, 20)
    tilt = board.get_orientation()[2]                            # the up axis of the board
    assert abs(tilt[0]) > 0.1
    assert blocks.reset_bodies(ctx, {board: m0}) == [board]
    assert np.array_equal(matrix(board), m0)
    run(ctx, 20)
    # Balanced on its hinge (the mass centre on the axis), at rest: it stays level.
    assert matrix(board) == pytest.approx(m0, abs=1e-5)
    assert hinge.handle is not None and not hinge.handle.deleted


def pendulum_half_periods(ctx, ball, anchor_x, psis):
    """Simulated times between successive crossings of the vertical below the
    anchor (linear interpolation between PSIs)."""
    body = ctx.physics.body_of(ball)
    samples = []

    def sample(env):
        samples.append((env.current_time, body.core.pos_world_f_core_last_psi[0] - anchor_x))

    ctx.physics.env.add_listener_psi(sample)
    start = ctx.physics.env.psi_count
    while ctx.physics.env.psi_count - start < psis:
        run(ctx, ms=50.0)
    ctx.physics.env.remove_listener_psi(sample)
    crossings = [t0 + (t1 - t0) * x0 / (x0 - x1) for (t0, x0), (t1, x1) in zip(samples, samples[1:])
                 if (x0 > 0.0) != (x1 > 0.0)]
    return [b - a for a, b in zip(crossings, crossings[1:])]


def test_a_pendulum_swings_with_the_same_period_after_a_reset():
    """A ball (radius 1, I = 0.4 m r^2, ivp spec 2.4) 5 below its hinge, let go
    at 0.1 rad, no damping: T = 2 pi sqrt((0.4 r^2 + d^2) / (g d)) (1 + t0^2 / 16)."""
    ctx, fix = world()
    d, theta0, g = 5.0, 0.1, 20.0
    start = (d * math.sin(theta0), 10.0 - d * math.cos(theta0), 0.0)
    ball, hinge = hinged(ctx, fix, "Bob", None, start, (0.0, 10.0, 0.0), collision_surface="",
                         linear_speed_dampening=0.0, rot_speed_dampening=0.0)
    m0 = matrix(ball)
    period = 2.0 * math.pi * math.sqrt((0.4 + d * d) / (g * d)) * (1.0 + theta0 ** 2 / 16.0)
    assert period == pytest.approx(3.16860, abs=1e-5)
    psis = int(0.8 * period * 66.0)                              # two crossings: T / 4 and 3 T / 4
    before = pendulum_half_periods(ctx, ball, 0.0, psis)
    knock(ctx, ball, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 3.0)    # knocked off its swing
    run(ctx, 10)
    blocks.reset_bodies(ctx, {ball: m0})
    after = pendulum_half_periods(ctx, ball, 0.0, psis)
    assert len(before) == len(after) == 1
    assert 2.0 * before[0] == pytest.approx(period, rel=1e-3)
    assert 2.0 * after[0] == pytest.approx(2.0 * before[0], rel=1e-3)
    assert hinge.handle is not None


def test_a_start_frozen_body_is_frozen_again():
    ctx, fix = world()
    board, hinge = seesaw(ctx, fix, start_frozen=True)
    lone = ctx.create_entity("Lone", mesh=meshes.box(1.0, 1.0, 1.0, name="lone"), position=(20.0, 5.0, 0.0))
    blocks.physicalize(ctx, lone, start_frozen=True)
    m0 = {e: matrix(e) for e in (board, lone)}
    run(ctx, 3)
    assert ctx.physics.body_of(lone).object_state == MT_NOT_SIM and np.array_equal(matrix(lone), m0[lone])
    blocks.wake_up(ctx, lone)
    knock(ctx, board, (4.0, 0.0, 0.0), (0.0, -1.0, 0.0), 10.0)   # an impulse wakes the board
    run(ctx, 15)
    assert lone.get_position()[1] < 4.9                          # woken, falling under gravity
    assert abs(board.get_orientation()[1][0]) > 0.05
    blocks.reset_bodies(ctx, {e: m for e, m in m0.items()})
    run(ctx, 15)
    for e in (board, lone):
        body = ctx.physics.body_of(e)
        assert body.object_state == MT_NOT_SIM and body not in ctx.physics.write_back_objects
        assert np.array_equal(matrix(e), m0[e])                   # frozen bodies are never written back
    assert hinge.handle is not None and not hinge.handle.deleted


def test_an_entity_never_physicalized_is_untouched():
    ctx, fix = world()
    plank, _ = hanging_plank(ctx, fix)
    ghost = ctx.create_entity("Ghost", position=(3.0, 4.0, 5.0))
    m_ghost, m_plank = matrix(ghost), matrix(plank)
    moved = np.array(m_ghost)
    moved[3, :3] = (30.0, 40.0, 50.0)
    run(ctx, 2)
    assert blocks.reset_bodies(ctx, {ghost: moved, plank: m_plank}) == [plank]
    assert np.array_equal(matrix(ghost), m_ghost)
    assert not ctx.physics.is_physicalized(ghost) and ctx.console == []


def test_a_reset_while_the_body_sleeps():
    """A tipped seesaw with strong damping stops tilted and freezes (ivp spec
    10); the reset puts it back level and its hinge works again."""
    ctx, fix = world()
    board, hinge = seesaw(ctx, fix, rot_speed_dampening=10.0)
    m0 = matrix(board)
    run(ctx, 2)
    knock(ctx, board, (4.0, 0.0, 0.0), (0.0, -1.0, 0.0), 10.0)
    for _ in range(300):
        run(ctx, ms=50.0)
        if ctx.physics.body_of(board).object_state == MT_NOT_SIM:
            break
    assert ctx.physics.body_of(board).object_state == MT_NOT_SIM
    assert abs(board.get_orientation()[1][0]) > 0.05             # asleep, tilted
    blocks.reset_bodies(ctx, {board: m0})
    assert np.array_equal(matrix(board), m0)
    knock(ctx, board, (4.0, 0.0, 0.0), (0.0, -1.0, 0.0), 10.0)
    run(ctx, 10)
    assert abs(board.get_orientation()[1][0]) > 0.05             # it turns again...
    assert board.get_position() == pytest.approx((0.0, 5.0, 0.0), abs=1e-3)   # ...about its hinge


def test_a_joint_whose_other_body_is_not_back_yet_is_made_when_it_is():
    ctx, fix = world(gravity=(0.0, 0.0, 0.0))
    a = ctx.create_entity("A", mesh=meshes.box(1.0, 1.0, 1.0, name="cube"), position=(0.0, 0.0, 5.0))
    b = ctx.create_entity("B", mesh=meshes.box(1.0, 1.0, 1.0, name="cube"), position=(2.0, 0.0, 5.0))
    for e in (a, b):
        blocks.physicalize(ctx, e)
    spring = blocks.spring(ctx, a, object2=b, position_1=(0.5, 0.0, 0.0), referential_1=a,
                                position_2=(-0.5, 0.0, 0.0), referential_2=b, length=1.0, constant=5.0)
    assert spring.handle is not None
    pins_b = dict(ctx.physics.record_of(b).pins)
    blocks.unphysicalize(ctx, b)                                  # the spring goes with B
    blocks.reset_bodies(ctx, {a: matrix(a)})
    assert spring.handle is None and len(ctx.physics.commands) == 1
    assert ctx.console == ["You must Physicalize B !!!"]
    run(ctx)
    assert spring.handle is None
    blocks.physicalize(ctx, b, **{k.lower().replace(" ", "_"): v for k, v in pins_b.items()
                                  if k in ("Mass", "Friction")})
    run(ctx)
    assert spring.handle is not None and ctx.physics.commands == []
    assert spring.handle.objects == (ctx.physics.body_of(a), ctx.physics.body_of(b))


def test_a_broken_hinge_comes_back_but_forces_do_not():
    ctx, fix = world(gravity=(0.0, 0.0, 0.0))
    plank, hinge = hanging_plank(ctx, fix)
    force = blocks.set_force(ctx, plank, direction=(1.0, 0.0, 0.0), force_value=0.05)
    watch = blocks.coll_detection(ctx, plank)
    m0 = matrix(plank)
    run(ctx, 2)
    hinge.destroy()                                              # broken by a script
    run(ctx, 10)
    assert plank.get_position()[0] > 0.02                         # pushed away, free
    blocks.reset_bodies(ctx, {plank: m0})
    body = ctx.physics.body_of(plank)
    assert hinge.handle is not None and hinge.handle.objects[0] is body
    assert force.handle is None and watch.handle is not None and watch.handle.body is body
    run(ctx, 10)
    assert matrix(plank) == pytest.approx(m0, abs=1e-6)           # no force: at rest
    force.create()                                                # its script makes it again
    assert force.handle is not None and force.handle.core is body.core
    run(ctx, 10)
    assert plank.get_position()[0] > 0.0 and math.dist(plank.transform((0.0, 2.0, 0.0)), (0.0, 10.0, 0.0)) < 1e-3


def test_a_disposed_block_is_not_made_again():
    ctx, fix = world(gravity=(0.0, 0.0, 0.0))
    plank, hinge = hanging_plank(ctx, fix)
    hinge.dispose()
    assert hinge.handle is None and hinge not in ctx.physics.record_of(plank).blocks
    blocks.reset_bodies(ctx, {plank: matrix(plank)})
    assert hinge.handle is None and ctx.physics.commands == []


@pytest.mark.parametrize("bad, error", [
    ({"Plank": None}, TypeError),
    ([("Plank", None)], TypeError),
    ("nan", ValueError),
    ("zero scale", ValueError),
    ("shape", ValueError),
])
def test_bad_input_changes_nothing(bad, error):
    ctx, fix = world()
    plank, hinge = hanging_plank(ctx, fix)
    m = matrix(plank)
    if bad == "nan":
        m[3, 0] = float("nan")
    elif bad == "zero scale":
        m[0, :3] = 0.0
    if isinstance(bad, str):
        bad = {plank: m[:3] if bad == "shape" else m}
    body, joint = ctx.physics.body_of(plank), hinge.handle
    with pytest.raises(error, match="reset_bodies"):
        blocks.reset_bodies(ctx, bad)
    assert ctx.physics.body_of(plank) is body and hinge.handle is joint and not joint.deleted
