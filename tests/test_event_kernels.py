"""3.5's event search in one compiled pass (event_kernels: a ball's, two
pieces') and update_events' early returns answered by the passes
(mindist_batches.recalc_all): each gives what the value functions and
update_events give pair by pair (issue 11)."""

import collections
import copy

import numpy as np

from ivp import Environment, rng
from ivp.collision.constants import COLL_DIST
from ivp.collision import mindist, mindist_batches, mindist_search, system
from test_collision_scenes import ball, box, box_points, floor
from test_hull_mode import _hash
from test_lane import in_lane


def _scene():
    """Balls on a fine triangle floor, thrown along it and into each other,
    one dropped onto another, a big one rolled fast across the floor, balls
    thrown at a fixed box's faces, edges and corners, and boxes tumbling onto
    the floor, each other and the fixed box."""
    rng.reset()
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env, n=24, size=40.0)
    box(env, (6.0, 1.0, 0.0), size=(2.0, 2.0, 2.0), name="wall", fixed=True)
    bodies = [ball(env, (-9.0 + 2.0 * i, 0.55 + 0.1 * (i % 3), -4.0 + 2.5 * (i % 4)), radius=0.5, name=f"s{i}")
              for i in range(8)]
    bodies.append(ball(env, (-5.0, 6.0, -4.0), radius=0.5, name="dropped"))
    bodies.append(ball(env, (-12.0, 2.05, 8.0), radius=2.0, name="big"))
    thrown = [((3.0, 0.0, 0.5), 1), ((-4.0, 0.0, 3.0), 5), ((14.0, 0.0, -9.0), 9)]
    for (x, y, z), k in thrown:
        bodies[k].async_add_speed_object_ws((x, y, z))
    for k, (p, v) in enumerate([((2.0, 1.0, 0.0), (8.0, 0.0, 0.0)), ((2.0, 2.6, 2.5), (7.0, -1.0, -4.0)),
                                ((6.0, 4.0, 3.5), (0.0, -3.0, -6.0)),
                                ((9.0, 4.0, 3.0), (-6.0, -4.0, -6.0)), ((9.0, 3.2, 3.0), (-6.0, -3.0, -6.0))]):
        b = ball(env, p, radius=0.5, name=f"at_wall{k}")
        b.async_add_speed_object_ws(v)
        bodies.append(b)
    for k, (p, q, v) in enumerate([((-3.0, 1.2, 6.0), (0.9, 0.3, 0.2, 0.1), (0.0, 0.0, 0.0)),
                                   ((-3.2, 2.6, 6.1), None, (0.5, 0.0, 0.0)),
                                   ((2.0, 1.5, -1.0), (0.8, 0.1, 0.5, 0.3), (9.0, -1.0, 1.5))]):
        b = box(env, p, name=f"tumbler{k}", quaternion=q)
        b.async_add_speed_object_ws(v)
        bodies.append(b)
    for b in bodies:
        b.wake()
    return env, bodies


def test_the_compiled_searches_find_what_the_value_function_finds(monkeypatch):
    """Every search (a ball against the floor's faces and edges, the box's
    faces, edges and corners, another ball; a box against the floor, the
    fixed box and another box) gives the time the raster search on
    Mindist.value_function gives, bit for bit, or none where it finds none;
    every kind of side is searched, with and without a result. A box's
    pairs with the floor's triangles are measured one by one here, so that
    their searches come through event_search; in their pass
    (piece_triangles_k) the same searches run inside the kernel
    (test_piece_batches: the same bits either way)."""
    seen = collections.Counter()
    real = mindist_search.event_search

    def checked(md, dev, t_now, t_max):
        t = real(md, dev, t_now, t_max)
        thr, bound = md.bounds()
        assert mindist_search.raster_search(md.value_function(t_now), thr, bound, dev, t_now, t_max,
                                                md.a.obj.core.environment.time_manager.base_time) == t
        seen[("ball " if md.a.is_ball else "box ") + md.side1.feature[0], t is not None] += 1
        return t

    def one_by_one(shape, key, soup, tri_first, mds, t):
        for md in mds:
            md.recalc(t)

    monkeypatch.setattr(mindist_search, "event_search", checked)
    monkeypatch.setattr(mindist_batches, "_recalc_piece_triangles", one_by_one)
    env, bodies = _scene()
    _hash(env, bodies, 240)
    for k in ("ball F", "ball K", "ball P", "ball B", "box F", "box K"):
        assert seen[(k, True)] > 0, (k, seen)
    assert sum(n for (k, found), n in seen.items() if not found) > 100


def test_pairs_the_passes_answer_quiet_would_have_had_no_event(monkeypatch):
    """Each pair recalc_all answers quiet, let go without update_events, gets
    no event from it (a copy updated queues nothing), and many do."""
    quiet = []
    searched = []
    ball_loans = []
    real = system.recalc_all

    def checked(mds, t):
        out = real(mds, t)
        insert = env.time_manager.insert

        def refused(ev, t):
            raise AssertionError(f"a quiet pair queued an event at {t}")

        env.time_manager.insert = refused
        try:
            for md, q in zip(mds, out):
                if q:
                    probe = copy.copy(md)
                    mindist.update_events(env, probe, True, mindist.HINT_SMALL_DELAY)
                    assert probe.event is None
                    quiet.append(md)
                    if type(md._batch) is mindist_batches.BallPairBatch:       # (ball_pairs_k's Q)
                        ball_loans.append(sum(in_lane(c) for c in md.cores))
                elif type(md) is mindist.Mindist:
                    searched.append(md)
        finally:
            env.time_manager.insert = insert
        return out

    monkeypatch.setattr(system, "recalc_all", checked)
    env, bodies = _scene()
    _hash(env, bodies, 240)
    assert len(quiet) > 1000 and searched
    loaned = collections.Counter(ball_loans)
    assert len(ball_loans) > 50 and loaned[2] > 0 and loaned[0] + loaned[1] > 0, loaned
    assert any(type(md._batch) is mindist_batches.BallPairBatch for md in searched)


def test_quiet_answers_leave_the_scene_as_updating_every_pair(monkeypatch):
    """The scene with update_events run on every pair gives the same state,
    bit for bit, at every PSI."""
    env, bodies = _scene()
    with_quiet = _hash(env, bodies, 240)
    real = system.recalc_all
    monkeypatch.setattr(system, "recalc_all", lambda mds, t: [False] * len(real(mds, t)))
    env, bodies = _scene()
    assert _hash(env, bodies, 240) == with_quiet


def _moving_hull_scene():
    """Boxes sliding across a floor, balls thrown at their faces and edges
    from every side, and balls dropped onto a slow box's corners."""
    rng.reset()
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env, n=12, size=40.0)
    sliding = [((-6.0, 0.6, 0.0), (4.0, 0.0, 0.0)), ((6.0, 0.6, 4.0), (-3.0, 0.0, -1.0)),
               ((0.0, 0.6, -6.0), (0.5, 0.0, 5.0)), ((10.0, 0.6, 10.0), (0.3, 0.0, 0.0))]
    bodies = [_sent(box(env, p, size=(2.0, 1.2, 1.5), name=f"slider{k}",
                        quaternion=(0.95, 0.0, 0.31, 0.0) if k in (1, 2) else None), v)
              for k, (p, v) in enumerate(sliding)]
    bodies += [ball(env, p, radius=0.4, name=f"dropped{k}")          # onto the slowest box's corners
               for k, p in enumerate([(11.2, 2.5, 10.95), (11.3, 3.0, 9.05)])]
    thrown = [((-1.0, 0.7, 0.0), (-6.0, 0.0, 0.0)), ((-3.0, 2.5, 0.0), (0.0, -2.0, 0.0)),
              ((3.0, 1.7, 3.0), (-5.0, -2.0, -1.0)), ((0.0, 2.2, -2.0), (0.3, -3.0, -4.0)),
              ((-4.6, 3.0, 0.7), (0.0, 0.0, 0.0)), ((5.0, 3.0, 2.4), (-2.5, 0.0, 0.5)),
              ((1.0, 1.2, -6.0), (-4.0, 0.0, 0.3))]
    bodies += [_sent(ball(env, p, radius=0.4, name=f"thrown{k}"), v) for k, (p, v) in enumerate(thrown)]
    for b in bodies:
        b.wake()
    return env, bodies


def _sent(body, v):
    """The body with the speed v added."""
    body.async_add_speed_object_ws(v)
    return body


def test_a_balls_search_against_a_moving_hull_finds_what_the_value_function_finds(monkeypatch):
    """A ball's search against a moving box's face, edge or corner (the box's
    feature moved to its pose at each t, as Shape.piece_world moves it) gives
    the raster search's time on Mindist.value_function bit for bit, or none
    where it finds none; each kind of feature is searched and found."""
    from ivp.states import MT_NOT_SIM
    seen = collections.Counter()
    real = mindist_search.event_search

    def checked(md, dev, t_now, t_max):
        t = real(md, dev, t_now, t_max)
        s1 = md.side1
        if md.a.is_ball and not s1.shape.is_ball and s1.shape.obj.core.movement_state < MT_NOT_SIM:
            thr, bound = md.bounds()
            assert mindist_search.raster_search(md.value_function(t_now), thr, bound, dev, t_now, t_max,
                                                md.a.obj.core.environment.time_manager.base_time) == t
            seen[s1.feature[0], t is not None] += 1
        return t

    monkeypatch.setattr(mindist_search, "event_search", checked)
    env, bodies = _moving_hull_scene()
    _hash(env, bodies, 200)
    for k in ("F", "K", "P"):
        assert seen[(k, True)] > 0, (k, seen)
    assert sum(n for (k, found), n in seen.items() if not found) > 20, seen


def test_a_root_on_a_value_with_a_jump_stops_once_its_time_is_settled():
    """3.5's secant on a value that jumps through the threshold at t* (two
    pieces' closest distance can) never meets the 1e-8 tolerance; it stops
    once its bracket queues at one f32 offset from the base (dynamics 11.1),
    well before the 64-step cap, at the f32 time of the jump."""
    from ivp.collision.constants import COLL_DIST, REAL_COLL_DIST
    from ivp.fp import f32
    base, t_now, t_max, t_jump = 2.0, 2.0, 2.0 + 1.0 / 66.0, 2.0073
    calls = []

    def f(t):
        calls.append(t)
        return 0.06 - t + t_now if t < t_jump else 0.0      # falls at 1 m/s, then jumps to contact

    t = mindist_search.raster_search(f, COLL_DIST, REAL_COLL_DIST, 10.0, t_now, t_max, base)
    assert t is not None and t < t_jump
    assert f32(t - base) == f32(t_jump - base)
    assert len(calls) < 40                                  # the full root takes 64 steps and more


def test_a_tumbling_boxs_events_are_where_its_lowest_corner_reaches_coll_dist(monkeypatch):
    """Boxes spun fast about horizontal axes fall onto a fixed slab: every
    event the search of a box and the slab (3.5) finds is where the lowest
    of the box's eight corners, on the poses at that time, first comes
    within coll_dist of the slab's top (the heights sampled every 1/2000 s
    before it stay above it); and in many of them that corner is not the
    one the pair held when the search began (3.5's sector events: the
    feature pair changes within the search)."""
    found = []
    switched = []
    real = mindist_search.event_search
    corners = box_points(1.0, 1.0, 1.0)

    def lowest(core, t):
        R, v = core.get_m_world_f_core_PSI(t)
        h = [R[3] * x + R[4] * y + R[5] * z + v[1] for x, y, z in corners]
        return min(h), int(np.argmin(h))

    def checked(md, dev, t_now, t_max):
        t = real(md, dev, t_now, t_max)
        names = (md.a.obj.name, md.b.obj.name)
        if t is not None and "slab" in names:
            core = (md.a if names[1] == "slab" else md.b).obj.core
            h, k = lowest(core, t)
            assert abs(h - COLL_DIST) < 1e-5, (h, t - t_now)
            for s in np.arange(t_now, t, 1.0 / 2000.0):
                assert lowest(core, s)[0] > COLL_DIST - 1e-5
            found.append(t)
            if lowest(core, t_now)[1] != k:
                switched.append(t)
        return t

    def one_by_one(mds, t):             # searched through event_search, not in the pass (the same bits)
        for md in mds:
            md.recalc(t)

    monkeypatch.setattr(mindist_search, "event_search", checked)
    monkeypatch.setattr(mindist_batches, "_recalc_piece_pairs", one_by_one)
    rng.reset()
    env = Environment(gravity=(0.0, -9.81, 0.0))
    box(env, (0.0, -1.0, 0.0), size=(30.0, 2.0, 30.0), name="slab", fixed=True)
    bodies = []
    for k, (w, v) in enumerate([((0.0, 0.0, 14.0), (0.0, -3.0, 0.0)), ((11.0, 0.0, 6.0), (1.0, -5.0, 0.0)),
                                ((0.0, 0.0, -20.0), (0.0, -2.0, 1.0)), ((17.0, 0.0, 0.0), (-1.0, -4.0, 0.0))]):
        b = box(env, (-9.0 + 6.0 * k, 1.5 + 0.4 * k, 3.0 * (k % 2)), name=f"tumbler{k}",
                quaternion=(0.92, 0.2, 0.1, 0.3))
        b.async_add_speed_object_ws(v)
        b.async_add_rot_speed_object_cs(w)
        b.wake()
        bodies.append(b)
    _hash(env, bodies, 120)
    assert len(found) > 20 and len(switched) > 3, (len(found), len(switched))
