"""A unit of one several-point friction system (a heap) runs its PSI on its
cores' rows through the object path's steps (issue 39): a pit of balls whose
system is over MAX_FRICTION_MATRIX points takes the panic and falls asleep."""

from ivp import Environment, rng
from ivp.collision.constants import MAX_FRICTION_MATRIX
from test_collision_scenes import ball, box, floor


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


def test_a_system_over_the_matrix_limit_panics_and_falls_asleep():
    env = ball_pit()
    most_points = 0
    active = []
    for _ in range(120):
        env.simulate(env.delta_PSI_time)
        most_points = max([most_points] + [len(fs.contacts) for fs in env.collision.systems])
        active.append(len(env.sim_unit_manager.active))
    assert most_points > MAX_FRICTION_MATRIX             # the panic: speeds zeroed
    assert active[5] >= 1 and active[-1] == 0            # the pit fell asleep
    top = [o.core.pos_world_f_core_last_psi[1] for o in env.objects if o.name.startswith("b2_")]
    assert all(0.5 < y < 2.5 for y in top)               # the top layer rests on the others, inside the pit
