"""Spec 7.1, 7.3, 11: free fall of a damped ball (glue-and-content 3's closed form)."""

from ivp import BallTemplate, Environment


def wood_ball(env, y=100.0):
    return env.create_ball(BallTemplate(name="wood", mass=1.9, radius=2.0, speed_damp_factor=0.9,
                                        rot_speed_damp_factor=(0.1,) * 3), (0.0, y, 0.0))


def test_wood_ball_free_fall_132_psis():
    # v_{n+1} = v_n (1 - 0.9/66) - 20/66: after 132 PSIs, -18.594 (closed form).
    env = Environment(gravity=(0.0, -20.0, 0.0))
    ball = wood_ball(env)
    ball.wake()
    env.simulate_until(131 / 66 + 1e-3)       # PSIs at T_0 .. T_131
    assert env.psi_count == 132
    k = 1.0 - 0.9 / 66.0
    expected = -(20.0 / 66.0) * (1.0 - k ** 132) / (1.0 - k)
    assert abs(expected - (-18.594)) < 5e-4
    assert abs(ball.core.speed[1] - expected) < 1e-4
