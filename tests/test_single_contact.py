"""A resting ball's controllers as one kernel (ivp.collision.single_contact,
issue 11): the same bits as the four controllers of the object path, PSI by PSI,
for the core and its contact point, through rolling over triangle edges and
vertices, leaving the floor's edge, damping and sleep."""

import math

import pytest

from ivp import Environment, rng, sim_unit
from ivp.collision import single_contact
from test_collision_scenes import ball, floor

pytestmark = pytest.mark.skipif(not sim_unit.LANE_ENABLED, reason="the kernel path needs the compiled kernels")


def state(env):
    out = [env.sleep_countdown_value, rng.get_seed(), env.current_time]
    for o in env.objects:
        c = o.core
        out.append((c.pos_world_f_core_last_psi, c.q_world_f_core_next_psi, c.speed, c.rot_speed,
                    c.speed_change, c.rot_speed_change, c.movement_state, c.time_calm_ref, c.pos_calm_ref))
    for cp in env.collision.contacts():
        out.append((cp.gap, cp.n, cp.p, cp.t0, cp.t1, cp.r_cs, cp.rxn, cp.inv_vm, cp.span_s,
                    cp.now_friction_pressure, cp.last_gap_len, cp.needs_recheck, cp.broken, cp.last_time,
                    cp.side1.feature))
    return repr(out)


def world(lane: bool = True):
    """Balls on a 4 x 4-quad floor (40 m): some dropped to rest (sleep), some
    rolling across the triangles' edges and vertices, one over the floor's
    edge, some damped, some on a tilted floor."""
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    if not lane:
        env.lane = None
    floor(env)
    floor(env, tilt=math.radians(12.0), position=(0.0, -30.0, 60.0), name="slope")
    balls = [ball(env, (-15.0 + 3.1 * i, 0.52 + 0.4 * (i % 3), -12.0 + 1.7 * i), radius=0.5, name=f"r{i}",
                  speed_damp_factor=0.3 * (i % 2)) for i in range(8)]
    balls += [ball(env, (3.0 * i - 6.0, -25.0, 58.0), radius=1.0, name=f"s{i}") for i in range(4)]
    for b in balls:
        b.wake()
    for _ in range(20):
        env.simulate(env.delta_PSI_time)
    for i, b in enumerate(balls[:8]):
        if i % 2:
            b.core.speed = (6.0 - i, 0.0, 3.0 + 0.5 * i)        # rolls across edges; r7 over the floor's edge
    balls[7].core.speed = (25.0, 0.0, 0.0)
    return env


def run(way: str, monkeypatch, psis: int = 500):
    """way: "lane" (resting runs), "kernel" (the unit's controllers as one
    kernel, no lane) or "objects"; returns the states and how many units the
    kernel ran (resting runs, or run_controllers)."""
    monkeypatch.setattr(sim_unit, "LANE_ENABLED", way == "kernel")
    ran = [0]
    real = single_contact.run_controllers
    real_rows = single_contact.resting_rows

    def counted(env, ev, su):
        done = real(env, ev, su)
        ran[0] += done
        return done

    def counted_rows(env, units, *rest):
        done = real_rows(env, units, *rest)
        ran[0] += done
        return done

    monkeypatch.setattr(sim_unit, "run_controllers", counted)
    monkeypatch.setattr(single_contact, "resting_rows", counted_rows)
    env = world(lane=way == "lane")
    seen = []
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
        seen.append(state(env))
    return seen, ran[0]


@pytest.mark.parametrize("way", ["kernel", "lane"])
def test_the_kernel_gives_the_object_paths_bits_psi_by_psi(way, monkeypatch):
    by_kernel, ran = run(way, monkeypatch)
    by_objects, ran_objects = run("objects", monkeypatch)
    assert ran > 1000 and ran_objects == 0            # the kernel path did run (and only there)
    for k, (a, b) in enumerate(zip(by_kernel, by_objects)):
        assert a == b, f"PSI {k}"
