"""Set Physics Spring, Hinge, Slider and Ball Joint (glue-and-content 2; ivp spec 12.2, 12.4)."""

import math

import pytest

from bbglue import CKContext, blocks, meshes
from bbglue.blocks import SetPhysicsBallJoint, SetPhysicsHinge, SetPhysicsSlider, SetPhysicsSpring
from ivp.fp import f32

FRAME_MS = 1000.0 / 60.0


@pytest.fixture
def ctx():
    return CKContext()


def box(ctx, name, position, **pins):
    e = ctx.create_entity(name, mesh=meshes.box(2.0, 2.0, 2.0, name="joint_box"), position=position)
    if pins.pop("physicalize", True):
        blocks.physicalize(ctx, e, **pins)
    return e


def fix_cube(ctx):
    """Ballance anchors single-body joints to "FixCube": fixed, collision off."""
    return box(ctx, "FixCube", (0.0, 0.0, 0.0), fixed=True, enable_collision=False)


def test_pins_and_defaults():
    assert SetPhysicsSpring().params == {
        "Object2": None, "Position 1": (0.0, 0.0, 0.0), "Referential 1": None, "Position 2": (0.0, 0.0, 0.0),
        "Referential 2": None, "Length": 1.0, "Constant": 1.0, "Linear Dampening": f32(0.1),
        "Global Dampening": f32(0.1)}
    assert SetPhysicsHinge().params == {"Object2": None, "Joint Referential": None, "Limitations": False,
                                        "Lower Limit": -45.0, "Upper Limit": 45.0}
    assert SetPhysicsSlider().params == {"Object2": None, "Axis first Point": None, "Axis second Point": None,
                                         "Limitations": False, "Lower Limit": -1.0, "Upper Limit": 1.0}
    assert SetPhysicsBallJoint().params == {"Object2": None, "Position 1": (0.0, 0.0, 0.0),
                                            "Referential 1": None}


def test_hinge_created_before_physicalize_is_created_once_both_bodies_exist(ctx):
    fix = box(ctx, "FixCube", (0.0, 0.0, 0.0), physicalize=False)
    deck = box(ctx, "deck", (0.0, 5.0, 0.0), physicalize=False)
    blk = blocks.hinge(ctx, deck, object2=fix, joint_referential=fix)
    ctx.process_frame(FRAME_MS)
    ctx.process_frame(FRAME_MS)
    assert blk.handle is None
    assert ctx.console == ["You must Physicalize deck !!!", "You must Physicalize FixCube !!!"]
    blocks.physicalize(ctx, deck, mass=10.0)
    ctx.process_frame(FRAME_MS)
    assert blk.handle is None
    blocks.physicalize(ctx, fix, fixed=True, enable_collision=False)
    ctx.process_frame(FRAME_MS)
    joint = blk.handle
    assert joint is not None and ctx.physics.commands == []
    blk.create()                                     # a no-op while the handle is set
    ctx.process_frame(FRAME_MS)
    assert blk.handle is joint
    assert len(ctx.console) == 2


def test_null_object2_creates_no_constraint(ctx):
    deck = box(ctx, "deck", (0.0, 5.0, 0.0))
    for cls in (SetPhysicsHinge, SetPhysicsSlider, SetPhysicsBallJoint):
        blk = cls(target=deck)
        blk.create()
        assert blk.handle is None and ctx.physics.commands == []


def test_spring_with_null_object2_stays_queued(ctx):
    """Spec 12.2: Object2 NULL returns 0, retried each frame (no warning)."""
    deck = box(ctx, "deck", (0.0, 5.0, 0.0))
    blk = blocks.spring(ctx, deck)
    ctx.process_frame(FRAME_MS)
    assert blk.handle is None and len(ctx.physics.commands) == 1 and ctx.console == []
    blk.destroy()
    assert ctx.physics.commands == []


def test_spring_pins_map_to_the_spring(ctx):
    fix = fix_cube(ctx)
    plat = box(ctx, "platform", (0.0, 10.0, 0.0), mass=3.0)
    blk = blocks.spring(ctx, plat, object2=fix, position_1=(0.0, 1.0, 0.0), referential_1=plat,
                             position_2=(0.0, 2.0, 0.0), length=0.0, constant=15.0,
                             linear_dampening=0.1, global_dampening=1.0)
    s = blk.handle
    assert (s.length, s.constant, s.damp_lin, s.damp_rel) == (0.0, 15.0, f32(0.1), 1.0)
    # anchors: (0,1,0) in the platform's frame is world (0,11,0); (0,2,0) in world on FixCube
    assert s.anchors[0].object_pos == pytest.approx((0.0, 1.0, 0.0))
    assert s.anchors[1].object_pos == pytest.approx((0.0, 2.0, 0.0))


def test_spring_pulls_a_weight_toward_its_rest_length(ctx):
    ctx.physics.set_globals((0.0, 0.0, 0.0), 1.0)
    fix = fix_cube(ctx)
    w = box(ctx, "weight", (0.0, 10.0, 0.0), mass=1.0, linear_speed_dampening=0.0)
    blocks.spring(ctx, w, object2=fix, position_1=(0.0, 10.0, 0.0), length=4.0, constant=2.0,
                       linear_dampening=0.0, global_dampening=0.0)
    while ctx.physics.env.psi_count < 1:
        ctx.process_frame(FRAME_MS)
    # positions without a referential are world points: stretched by 10 - 4 with k = 2,
    # the first PSI pulls the weight down by F dt / m = 12 / 66
    assert ctx.physics.body_of(w).core.speed[1] == pytest.approx(-12.0 / 66.0, rel=1e-6)


def test_hinge_axis_is_the_referential_world_z(ctx):
    ctx.physics.set_globals((0.0, -20.0, 0.0), 1.0)
    fix = fix_cube(ctx)
    ref = ctx.create_entity("hinge_ref", position=(0.0, 10.0, 0.0))
    ref.rotate((0, 1, 0), math.pi / 2)                   # world Z of the referential: +x
    arm = box(ctx, "arm", (0.0, 10.0, 3.0), mass=3.0)
    blocks.hinge(ctx, arm, object2=fix, joint_referential=ref)
    for _ in range(20):
        ctx.process_frame(FRAME_MS)
    x, y, z = arm.get_position()
    # a pendulum about the x axis through (0, 10, 0): the arm stays at distance 3, x = 0
    assert abs(x) < 1e-3
    assert math.hypot(y - 10.0, z) == pytest.approx(3.0, abs=1e-2)
    assert y < 10.0


def test_hinge_limits_are_degrees(ctx):
    fix = fix_cube(ctx)
    arm = box(ctx, "arm", (0.0, 10.0, 3.0))
    blk = blocks.hinge(ctx, arm, object2=fix, limitations=True, lower_limit=-30.0, upper_limit=60.0)
    c = blk.handle
    assert c.borders_low[5] == pytest.approx(f32(-30.0 * math.pi / 180.0))
    assert c.borders_high[5] == pytest.approx(f32(60.0 * math.pi / 180.0))


def test_slider_moves_only_along_its_axis(ctx):
    ctx.physics.set_globals((0.0, -20.0, 0.0), 1.0)
    fix = fix_cube(ctx)
    a = ctx.create_entity("first", position=(0.0, 10.0, 0.0))
    b = ctx.create_entity("second", position=(0.0, 11.0, 1.0))     # a 45 degree rail
    stone = box(ctx, "stone", (0.0, 10.0, 0.0), mass=1.6)
    blocks.slider(ctx, stone, object2=fix, axis_first_point=a, axis_second_point=b)
    for _ in range(20):
        ctx.process_frame(FRAME_MS)
    x, y, z = stone.get_position()
    assert abs(x) < 1e-3 and y < 10.0 and (y - 10.0) == pytest.approx(z, abs=1e-3)
    assert ctx.physics.body_of(stone).core.rot_speed == pytest.approx((0.0, 0.0, 0.0), abs=1e-4)


def limited_joint(ctx, kind, lower, upper, gravity_y, target_moves=True):
    """A 1 kg box free in a limited slider along +y from the origin (or a hinge
    about +z at the origin, the box 3 m out on +x), gravity ``gravity_y`` driving
    it along the axis; the moving box is the target, or Object2 of a fixed
    target. Returns its displacement along the axis (m) or its turn (degrees)
    after 4 s."""
    ctx.physics.set_globals((0.0, gravity_y, 0.0), 1.0)
    fix = fix_cube(ctx)
    x0 = 3.0 if kind == "hinge" else 0.0
    moving = box(ctx, "moving", (x0, 0.0, 0.0), mass=1.0, linear_speed_dampening=0.0, rot_speed_dampening=0.0,
                 enable_collision=False)
    target, object2 = (moving, fix) if target_moves else (fix, moving)
    if kind == "hinge":
        blocks.hinge(ctx, target, object2=object2, joint_referential=ctx.create_entity("axis"),
                     limitations=True, lower_limit=lower, upper_limit=upper)
    else:
        blocks.slider(ctx, target, object2=object2, axis_first_point=ctx.create_entity("first"),
                      axis_second_point=ctx.create_entity("second", position=(0.0, 10.0, 0.0)),
                      limitations=True, lower_limit=lower, upper_limit=upper)
    for _ in range(240):
        ctx.process_frame(FRAME_MS)
    x, y, _ = moving.get_position()
    return math.degrees(math.atan2(y, x)) if kind == "hinge" else y


# ivp spec 12.4-12.6: a limit bounds err = p_A - p_R along the axis (A = Object2,
# R = the target), so a moving target against a fixed Object2 stays in
# [-upper, -lower], a moving Object2 of a fixed target in [lower, upper]. Past
# a limit the joint takes back 0.3 of the overshoot per PSI: at rest, the 5 m/s^2
# that drive it in leave 5 / 66^2 / 0.3 = 0.004 m beyond.
@pytest.mark.parametrize("lower, upper", [(-1.0, 3.0), (-3.0, 1.0)])
@pytest.mark.parametrize("target_moves", [True, False])
def test_slider_limits_bound_object2_relative_to_the_target(lower, upper, target_moves):
    lo, hi = (-upper, -lower) if target_moves else (lower, upper)
    assert limited_joint(CKContext(), "slider", lower, upper, 5.0, target_moves) == pytest.approx(hi, abs=0.01)
    assert limited_joint(CKContext(), "slider", lower, upper, -5.0, target_moves) == pytest.approx(lo, abs=0.01)


@pytest.mark.parametrize("target_moves", [True, False])
def test_hinge_limits_bound_object2_turning_relative_to_the_target(target_moves):
    """Gravity +y on the box 3 m out on +x turns it by a positive angle about +z
    (right-hand rule: (3, 0, 0) x (0, 5, 0) = (0, 0, 15)); -y by a negative one."""
    lo, hi = (-30.0, 10.0) if target_moves else (-10.0, 30.0)
    assert limited_joint(CKContext(), "hinge", -10.0, 30.0, 5.0, target_moves) == pytest.approx(hi, abs=0.5)
    assert limited_joint(CKContext(), "hinge", -10.0, 30.0, -5.0, target_moves) == pytest.approx(lo, abs=0.5)


def test_slider_without_axis_points_names_the_pin(ctx):
    fix = fix_cube(ctx)
    stone = box(ctx, "stone", (0.0, 10.0, 0.0))
    blocks.slider(ctx, stone, object2=fix)
    assert "pin 'Axis first Point' is not set" in ctx.console[-1]


def test_ball_joint_keeps_the_anchor_distance(ctx):
    ctx.physics.set_globals((0.0, -20.0, 0.0), 1.0)
    fix = fix_cube(ctx)
    rope = box(ctx, "rope", (4.0, 10.0, 0.0), mass=1.0, enable_collision=False)
    blocks.ball_joint(ctx, rope, object2=fix, position_1=(-4.0, 0.0, 0.0), referential_1=rope)
    for _ in range(20):
        ctx.process_frame(FRAME_MS)
    x, y, z = rope.get_position()
    assert math.dist((x, y, z), (0.0, 10.0, 0.0)) == pytest.approx(4.0, abs=1e-2) and y < 10.0


def test_unphysicalizing_a_jointed_body_removes_the_joint(ctx):
    fix = fix_cube(ctx)
    arm = box(ctx, "arm", (0.0, 10.0, 3.0))
    blk = blocks.hinge(ctx, arm, object2=fix)
    joint = blk.handle
    blocks.unphysicalize(ctx, arm)
    assert joint.deleted and blk.handle is None      # the block is told: its handle goes
    blk.destroy()                                    # destroying again is harmless
    ctx.process_frame(FRAME_MS)
    assert blk.handle is None
