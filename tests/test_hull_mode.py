"""3.4 hull mode: a polygon pair beyond the look-ahead is not measured again
while the poses its bodies have reached cannot have closed its gap to the
look-ahead (mindist_search.hull_holds), which is when measuring it and update_events
would queue nothing (issue 11)."""

import copy
import hashlib
import math
import struct

import numpy as np

from ivp import Environment, rng
from ivp.collision import awake, mindist, mindist_search, system
from test_collision_scenes import ball, box, floor
from test_piece_batches import _pose


class _Core:
    def __init__(self, radius):
        self.upper_limit_radius = radius


def test_moved_bound_is_the_shift_for_a_translation_and_covers_a_turned_bodys_points():
    """A shift (3, 4, 0): 5. A turn by a about z of a body of radius r: its
    farthest point moves 2 r sin(a/2), the bound is |R - I| r = 2 sqrt(2) r sin(a/2)."""
    I = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    m0 = (I, (1.0, 2.0, 3.0))
    assert mindist_search.moved_bound(_Core(7.0), m0, (I, (4.0, 6.0, 3.0))) == 5.0
    assert mindist_search.moved_bound(_Core(7.0), m0, m0) == 0.0
    a = 0.3
    c, s = math.cos(a), math.sin(a)
    turned = ((c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0), (1.0, 2.0, 3.0))
    bound = mindist_search.moved_bound(_Core(2.0), m0, turned)
    assert math.isclose(bound, 2.0 * math.sqrt(2.0) * 2.0 * math.sin(a / 2) * (1 + 1e-6), rel_tol=1e-12)
    assert bound > 2.0 * 2.0 * math.sin(a / 2)


def test_no_point_of_a_body_moves_farther_than_moved_bound():
    """Random poses and points within the radius: the point's move is never above the bound."""
    rnd = np.random.default_rng(4)
    for _ in range(500):
        (R0, v0), (R, v) = _pose(rnd, rnd.uniform(-1, 1)), _pose(rnd, rnd.uniform(-1, 1))
        if rnd.uniform() < 0.5:                 # small moves too, where rounding matters
            R = tuple(x + rnd.normal(0.0, 1e-9) for x in R0)
            v = tuple(x + rnd.normal(0.0, 1e-9) for x in v0)
        r = rnd.uniform(0.1, 5.0)
        bound = mindist_search.moved_bound(_Core(r), (R0, v0), (R, v))
        u = rnd.normal(size=3)
        u *= r / np.linalg.norm(u)
        p0 = np.array(R0).reshape(3, 3) @ u + v0
        p = np.array(R).reshape(3, 3) @ u + v
        assert np.linalg.norm(p - p0) <= bound


def _scene():
    """Boxes dropped, turned, on a triangle floor and onto each other, one
    thrown fast along the floor into the others and a ball rolled at them
    (the random numbers from their start)."""
    rng.reset()
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env, n=8, size=30.0)
    bodies = [box(env, (0.0, 0.52, 0.0), name="b0"), box(env, (0.1, 1.6, 0.05), name="b1"),
              box(env, (2.5, 0.7, 1.0), name="b2", quaternion=(0.9, 0.3, 0.2, 0.1)),
              box(env, (-3.0, 2.5, -1.0), size=(2.0, 0.5, 1.0), name="b3"),
              box(env, (-9.0, 0.6, 0.2), name="b4"), ball(env, (3.0, 0.5, 8.0), radius=0.5)]
    bodies[4].async_add_speed_object_ws((14.0, 0.0, 0.0))
    bodies[5].async_add_speed_object_ws((0.0, 0.0, -9.0))
    for b in bodies:
        b.wake()
    return env, bodies


def _hash(env, bodies, psis: int) -> str:
    h = hashlib.sha256()
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
        for b in bodies:
            c = b.core
            h.update(struct.pack("<13d", *c.pos_world_f_core_last_psi, *c.q_world_f_core_last_psi, *c.speed,
                                 *c.rot_speed))
    return h.hexdigest()


def test_a_pair_left_in_hull_mode_would_have_had_no_event(monkeypatch):
    """Whenever hull_holds keeps a pair unmeasured, a copy of it measured at
    that time is beyond the look-ahead, so update_events would have returned
    at once; and pairs do go to hull mode and come back."""
    held = []
    woken = []
    real = mindist_search.hull_holds

    def checked(env, md, t, memo=None):
        holds = real(env, md, t, memo)
        if holds:
            probe = copy.copy(md)
            probe.recalc(t)
            _, limit = mindist_search.look_ahead(env, *probe.cores)
            assert not probe.intrusion and probe.len_numerator > limit
            held.append(probe.len_numerator - limit)
        else:
            woken.append(md)
        return holds

    monkeypatch.setattr(system, "hull_holds", checked)
    env, bodies = _scene()
    _hash(env, bodies, 200)
    assert len(held) > 1000 and woken
    assert min(held) < 0.05                 # some were kept close to the look-ahead
    assert any(md.a.is_ball for md in woken)


def test_hull_mode_leaves_the_scene_as_measuring_every_pair_every_psi(monkeypatch):
    """The same scene with every pair measured every PSI (hull_holds never
    true) gives the same state, bit for bit, at every PSI."""
    env, bodies = _scene()
    with_hull = _hash(env, bodies, 200)
    monkeypatch.setattr(system, "hull_holds", lambda env, md, t, memo=None: False)
    env, bodies = _scene()
    assert _hash(env, bodies, 200) == with_hull


def _balls_scene():
    """Balls dropped in rows onto a tessellated floor (SoupPairs), some
    thrown along it into the others, one dropped from high onto a resting one."""
    rng.reset()
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env, n=12, size=30.0)
    bodies = [ball(env, (-9.0 + 2.0 * i, 0.55 + 0.1 * (i % 3), -4.0 + 2.5 * (i % 4)), radius=0.5, name=f"s{i}")
              for i in range(12)]
    bodies.append(ball(env, (-9.0, 6.0, -4.0), radius=0.5, name="dropped"))
    bodies[3].async_add_speed_object_ws((6.0, 0.0, 0.5))
    bodies[7].async_add_speed_object_ws((-4.0, 0.0, 3.0))
    for b in bodies:
        b.wake()
    return env, bodies


def test_a_balls_soup_group_left_in_hull_mode_would_have_had_no_event(monkeypatch):
    """Whenever SteadyBalls.quiet keeps a ball's triangle group unmeasured,
    each of its pairs measured at that time is beyond the look-ahead
    SoupPairs.update_events uses and none has an event, so the update would
    have queued and searched nothing; and groups do go to hull mode and come back."""
    kept = []
    woken = []
    real = awake.SteadyBalls.quiet

    def checked(self, holds, centers, speeds, dt):
        out = real(self, holds, centers, speeds, dt)
        env = self.aw.shapes[0].obj.environment
        t = env.current_time
        for k, q in enumerate(out):
            sp = self.sp[k]
            if not q:
                if holds[k] and sp.hull:
                    woken.append(k)
                continue
            c1 = sp.soup.obj.core
            limit = mindist_search.look_ahead_limit(env, speeds[k] + c1.max_surface_rot_speed + c1.current_speed)
            for md in sp.mds:
                probe = copy.copy(md)
                probe.recalc(t)
                assert md.event is None and probe.len_numerator > limit
                kept.append(probe.len_numerator - limit)
        return out

    monkeypatch.setattr(awake.SteadyBalls, "quiet", checked)
    env, bodies = _balls_scene()
    _hash(env, bodies, 300)
    assert len(kept) > 1000 and woken
    assert min(kept) < 0.05                 # some were kept close to the look-ahead


def test_soup_groups_in_hull_mode_leave_the_scene_as_measuring_them_every_psi(monkeypatch):
    """The balls' scene with every triangle group measured every PSI (quiet
    never true) gives the same state, bit for bit, at every PSI."""
    env, bodies = _balls_scene()
    with_hull = _hash(env, bodies, 300)
    monkeypatch.setattr(awake.SteadyBalls, "quiet", lambda self, holds, *a: np.zeros(len(holds), dtype=bool))
    env, bodies = _balls_scene()
    assert _hash(env, bodies, 300) == with_hull


def _touching_balls_scene():
    """The balls' scene with a row of balls side by side, 0.02 apart, on the
    floor too (each has mindists with its neighbours besides its triangles)."""
    env, bodies = _balls_scene()
    bodies += [ball(env, (-6.0 + 1.02 * i, 0.5, 6.0), radius=0.5, name=f"row{i}") for i in range(6)]
    for b in bodies[-6:]:
        b.wake()
    return env, bodies


def test_the_held_balls_taken_at_once_leave_the_scene_as_the_per_piece_loop(monkeypatch):
    """With no steady record ever holding (every ball through after_integration's
    per-piece loop, PSI by PSI) the scene of balls, some resting side by side,
    measures the same pairs in the same order at every PSI, drops the same
    mindists and gives the same state, bit for bit (the groups in hull mode
    measured both ways: the loop does not test them); and the held path did
    run for balls whose group is all their mindists, for balls with others
    too, and with entries measured among the loop's."""
    real = system.CollisionSystem._take_held
    seen = {"whole": 0, "partial": 0, "entries": 0}

    def counted(steady, near, holds, quiet, stamp):
        rest, entries, seen_all = real(steady, near, holds, quiet, stamp)
        held = near[holds[near]]
        seen["whole"] += int(seen_all.sum())
        seen["partial"] += held.shape[0] - int(seen_all.sum())
        if rest.shape[0] and any(k < rest.max() for _, k in entries):
            seen["entries"] += 1
        return rest, entries, seen_all

    def run():
        log = []
        measure = system.recalc_all
        drop = system.CollisionSystem._drop_mindist

        def logged_measure(mds, t):
            log.append([(type(md).__name__, md.ball.obj.name if type(md) is mindist.SoupPairs
                         else (md.a.obj.name, md.ka, md.b.obj.name, md.kb)) for md in mds])
            return measure(mds, t)

        def logged_drop(self, md):
            log.append(("dropped", md.a.obj.name, md.ka, md.b.obj.name, md.kb))
            drop(self, md)

        monkeypatch.setattr(system, "recalc_all", logged_measure)
        monkeypatch.setattr(system.CollisionSystem, "_drop_mindist", logged_drop)
        env, bodies = _touching_balls_scene()
        h = _hash(env, bodies, 300)
        monkeypatch.setattr(system, "recalc_all", measure)
        monkeypatch.setattr(system.CollisionSystem, "_drop_mindist", drop)
        return h, log

    monkeypatch.setattr(awake.SteadyBalls, "quiet", lambda self, holds, *a: np.zeros(len(holds), dtype=bool))
    monkeypatch.setattr(system.CollisionSystem, "_take_held", staticmethod(counted))
    held = run()
    assert seen["whole"] > 500 and seen["partial"] > 100 and seen["entries"] > 0
    monkeypatch.setattr(awake.SteadyBalls, "holds", lambda self, *a: None)
    loop = run()
    assert loop[1] == held[1]
    assert loop[0] == held[0]
