"""Ball navigation and the camera rig (glue-and-content 3; ivp spec 6.3, 7.2, 7.3)."""

import math

import pytest

from behaviors.ballance import camera_of, player_of, spring_step
from behaviors.ballance.camera import CameraSpring, eased, yaw_vector
from behaviors.ballance.values import BALL_KINDS, EYE_DAMPING, EYE_FORCE, EYE_SLOT
from test_ballance_world import FRAME_MS, PSI_DT, ball_body, ballance_ctx, run


class SpeedLog:
    """The ball's linear speed at the start of every PSI (a PSI listener)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.speeds = []
        ctx.physics.env.add_listener_psi(self)

    def __call__(self, env):
        body = ball_body(self.ctx)
        self.speeds.append(tuple(body.core.speed) if body is not None else None)


def falling_ball(kind="wood"):
    """A ball falling freely for 10 frames, so it is moving (no calm damping)."""
    ctx = ballance_ctx(kind=kind, start=(0.0, 1000.0, 0.0))
    run(ctx, 10)
    return ctx


def push_per_psi(speeds, axis, kind):
    """v[n+1] - k v[n] along ``axis``: the push each PSI added (spec 7.2, 7.3:
    damping first, then the pushes committed)."""
    k = 1.0 - BALL_KINDS[kind].linear_damping * PSI_DT
    return [b[axis] - k * a[axis] for a, b in zip(speeds, speeds[1:])]


@pytest.mark.parametrize("kind", ["paper", "wood", "stone"])
def test_up_pushes_F_over_m_per_psi_along_the_camera_z(kind):
    ctx = falling_ball(kind)
    log = SpeedLog(ctx)
    run(ctx, 5, keys={"Up"})
    pushes = push_per_psi(log.speeds, 2, kind)
    f_over_m = BALL_KINDS[kind].force / BALL_KINDS[kind].mass
    assert len(pushes) >= 9
    assert pushes == pytest.approx([f_over_m] * len(pushes), rel=1e-5)
    assert all(s[0] == 0.0 for s in log.speeds)                # nothing sideways


def test_push_direction_follows_the_camera_frame_captured_at_press():
    ctx = falling_ball()
    camera_of(ctx).snap(90.0)                                  # camera looking along +X
    run(ctx)
    log = SpeedLog(ctx)
    run(ctx, 3, keys={"Up"})
    f_over_m = BALL_KINDS["wood"].force / BALL_KINDS["wood"].mass
    assert push_per_psi(log.speeds, 0, "wood") == pytest.approx([f_over_m] * (len(log.speeds) - 1), rel=1e-5)
    assert all(abs(s[2]) < 1e-12 for s in log.speeds)


def test_a_camera_turn_changes_the_push_only_on_a_fresh_press():
    ctx = falling_ball()
    run(ctx, 2, keys={"Up"})
    run(ctx, 1, keys={"Up", "LShift", "Right"})                # turn right by 90 over 250 ms
    run(ctx, 20, keys={"Up"})
    cam = camera_of(ctx)
    assert cam.yaw == 90.0 and not cam.turning
    assert ctx.get("Cam_OrientRef").get_orientation()[0] == pytest.approx((1.0, 0.0, 0.0), abs=1e-6)
    log = SpeedLog(ctx)
    run(ctx, 3, keys={"Up"})                                   # still the force made at press: +Z
    f_over_m = BALL_KINDS["wood"].force / BALL_KINDS["wood"].mass
    assert push_per_psi(log.speeds, 2, "wood") == pytest.approx([f_over_m] * (len(log.speeds) - 1), rel=1e-5)
    assert all(s[0] == 0.0 for s in log.speeds)
    run(ctx, 1)                                                # release
    log = SpeedLog(ctx)
    run(ctx, 3, keys={"Up"})                                   # fresh press: +X now
    assert push_per_psi(log.speeds, 0, "wood") == pytest.approx([f_over_m] * (len(log.speeds) - 1), rel=1e-5)
    assert push_per_psi(log.speeds, 2, "wood") == pytest.approx([0.0] * (len(log.speeds) - 1), abs=1e-6)


def test_diagonal_is_sqrt2_stronger_and_release_destroys_the_forces():
    ctx = falling_ball()
    log = SpeedLog(ctx)
    run(ctx, 3, keys={"Up", "Right"})
    f_over_m = BALL_KINDS["wood"].force / BALL_KINDS["wood"].mass
    px, pz = push_per_psi(log.speeds, 0, "wood"), push_per_psi(log.speeds, 2, "wood")
    assert [math.hypot(a, b) for a, b in zip(px, pz)] == pytest.approx([math.sqrt(2) * f_over_m] * len(px), rel=1e-5)
    run(ctx, 1)
    log = SpeedLog(ctx)
    run(ctx, 3)
    assert push_per_psi(log.speeds, 2, "wood") == pytest.approx([0.0] * (len(log.speeds) - 1), abs=1e-6)


def test_shift_left_turns_the_camera_instead_of_pushing():
    ctx = falling_ball()
    log = SpeedLog(ctx)
    run(ctx, 1, keys={"LShift", "Left"})
    run(ctx, 7, keys={"LShift"})                               # 8 frames = 133.3 ms of the 250
    cam = camera_of(ctx)
    assert cam.turning and cam.yaw == pytest.approx(-90.0 * eased(8 * FRAME_MS / 250.0), rel=1e-5)
    run(ctx, 8)
    assert cam.yaw == -90.0 and not cam.turning
    assert all(s[0] == 0.0 and s[2] == 0.0 for s in log.speeds)


def test_a_press_wakes_a_sleeping_ball():
    """Ivp spec 6.3: a frozen unit's controllers do not run; navigation wakes the ball."""
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0))
    run(ctx, 1)
    body = ball_body(ctx)
    run(ctx, 400)                                              # at rest, it falls asleep
    assert body.core.speed == (0.0, 0.0, 0.0)
    assert body not in ctx.physics.write_back_objects
    run(ctx, 3, keys={"Up"})
    assert body in ctx.physics.write_back_objects and body.core.speed[2] > 0.0


# --- the camera rig -------------------------------------------------------------------------


def test_spring_step_is_the_spec_formula():
    # new = cur + (followed - cur - offset) * force * dt + (cur - prev) * damping
    new = spring_step((1.0, 2.0, 3.0), (0.0, 2.0, 4.0), (11.0, 2.0, 3.0), (0.0, -10.0, 0.0),
                      EYE_FORCE, EYE_DAMPING, 0.1)
    assert new == pytest.approx((1.0 + 10.0 * 5.0 * 0.1 + 1.0 * 0.5,
                                 2.0 + 10.0 * 0.8 * 0.1 + 0.0,
                                 3.0 + 0.0 - 1.0 * 0.5))


def test_eye_settles_35_up_and_22_behind_the_ball():
    s = CameraSpring(EYE_FORCE, EYE_DAMPING)
    s.snap((0.0, 0.0, 0.0))
    ball = (10.0, 5.0, -3.0)
    slot = yaw_vector(90.0, EYE_SLOT)
    assert slot == pytest.approx((-22.0, 35.0, 0.0), abs=1e-12)  # behind = -X when looking along +X
    for _ in range(2000):
        s.step(ball, tuple(-c for c in slot), 1.0 / 60.0)
    assert s.cur == pytest.approx((-12.0, 40.0, -3.0), abs=1e-9)


def test_camera_follows_and_space_raises_the_eye_by_50():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0))
    run(ctx, 600)
    assert ctx.get("Cam_Target").get_position() == pytest.approx((0.0, 0.0, 0.0), abs=1e-4)
    assert ctx.get("Cam_Pos").get_position() == pytest.approx((0.0, 35.0, -22.0), abs=1e-3)
    d = ctx.get("Cam_Pos").get_orientation()[0]
    assert d == pytest.approx((0.0, -35.0 / math.hypot(35, 22), 22.0 / math.hypot(35, 22)), abs=1e-4)
    run(ctx, 900, keys={"Space"})
    assert ctx.get("Cam_Pos").get_position() == pytest.approx((0.0, 85.0, -22.0), abs=1e-3)


def test_respawn_heads_the_camera_along_the_reset_points_minus_x_axis():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), heading=(0.0, 0.0, -1.0))
    run(ctx)
    assert camera_of(ctx).yaw == pytest.approx(180.0)
    assert ctx.get("Cam_OrientRef").get_orientation()[0] == pytest.approx((0.0, 0.0, -1.0), abs=1e-9)
    assert player_of(ctx).ball is not None


def test_space_makes_the_eyes_vertical_spring_force_2_while_held():
    ctx = ballance_ctx(gravity=(0.0, 0.0, 0.0), start=(0.0, 0.0, 0.0))
    run(ctx, 300)
    cam = camera_of(ctx)
    cur, prev = cam.eye_spring.cur, cam.eye_spring.prev
    run(ctx, 1, keys={"Space"})
    dt = FRAME_MS / 1000.0
    # new = cur + (followed - cur - offset) * force * dt + (cur - prev) * damping; offset = -(0, 85, 22)
    expected_y = cur[1] + (0.0 - cur[1] + 85.0) * 2.0 * dt + (cur[1] - prev[1]) * EYE_DAMPING[1]
    assert cam.eye_spring.cur[1] == pytest.approx(expected_y, rel=1e-6)     # with 0.8: 35.67
    run(ctx, 1)
    assert cam.eye_force() == EYE_FORCE                        # 0.8 again once released


def test_the_turn_follows_an_eased_curve_over_250_ms():
    ctx = falling_ball()
    cam = camera_of(ctx)
    run(ctx, 1, keys={"LShift", "Right"}, ms=12.5)             # the press: 12.5 of 250 ms
    run(ctx, 4, ms=12.5)                                       # 62.5 ms: a quarter
    assert cam.yaw == pytest.approx(90.0 * (1.0 - math.cos(math.pi / 4.0)) / 2.0, rel=1e-9)   # 13.18
    run(ctx, 5, ms=12.5)                                       # 125 ms: half way
    assert cam.yaw == pytest.approx(45.0, rel=1e-9)
    run(ctx, 10, ms=12.5)
    assert cam.yaw == 90.0 and not cam.turning
