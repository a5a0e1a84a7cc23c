"""A piece against a grid's triangles measured in one kernel pass
(mindist_batches._recalc_piece_triangles, issue 11) gives each pair's own recalc."""

import math

import numpy as np
import pytest

from ivp import Environment, ObjectTemplate, build_surface, rng
from ivp.collision import mindist_batches, mindist_search
from ivp.collision.features import feature_of, piece_piece_measure, prev_codes
from ivp.collision.piece_kernels import hull_triangles_measure
from ivp.collision.shapes import TriangleGrid, hull_piece, triangle_piece
from ivp.surface import convex_piece
from test_collision_scenes import box, box_points, floor, grid_mesh
from test_lane import state


def _round_hull(n: int, radius: float, seed: int):
    rnd = np.random.default_rng(seed)
    pts = rnd.normal(size=(n, 3))
    pts /= np.linalg.norm(pts, axis=1)[:, None]
    return [tuple(p * radius) for p in pts]


def _pose(rnd, y):
    """A random rotation (as a matrix from a unit quaternion) and a position at height y."""
    w, x, yy, z = rnd.normal(size=4)
    s = math.sqrt(w * w + x * x + yy * yy + z * z)
    w, x, yy, z = w / s, x / s, yy / s, z / s
    R = (1 - 2 * (yy * yy + z * z), 2 * (x * yy - w * z), 2 * (x * z + w * yy),
         2 * (x * yy + w * z), 1 - 2 * (x * x + z * z), 2 * (yy * z - w * x),
         2 * (x * z - w * yy), 2 * (yy * z + w * x), 1 - 2 * (x * x + yy * yy))
    return R, (rnd.uniform(-3.0, 3.0), y, rnd.uniform(-3.0, 3.0))


def _single(A, B, prev):
    fa, fb, swapped, g, intrusion = piece_piece_measure(A, B, prev)
    return fa, fb, swapped, g.gap, g.n, g.p, g.t0, g.broken, intrusion


@pytest.mark.parametrize("tri_first", [True, False])
def test_the_pass_gives_each_triangles_single_measurement_with_and_without_its_previous_pair(tri_first):
    """A box, a 60-vertex hull and a two-sided triangle (a movable soup's
    piece) over a bumpy grid, some of them sunk into it: every row of the pass
    equals piece_piece_measure of the grid triangle's piece and the moved
    piece, in the mindist's order, fresh and with the features it found."""
    V, F = grid_mesh(6, 8.0)
    rnd = np.random.default_rng(11)
    V = V + rnd.normal(0.0, 0.08, V.shape)
    grid = TriangleGrid(V, F)
    bx = convex_piece(box_points(1.0, 0.4, 2.0))
    rh = convex_piece(_round_hull(60, 0.7, 2))
    pieces = [hull_piece(bx.vertices, bx.faces), hull_piece(rh.vertices, rh.faces),
              triangle_piece((0.0, 0.0, 0.0), (1.5, 0.2, 0.0), (0.0, -0.3, 1.2))]
    GV, GPL, GN = grid.kernel_arrays()
    checked = 0
    for k in range(24):
        piece = pieces[k % 3]
        moved = piece.transformed(_pose(rnd, rnd.uniform(-0.3, 1.2)))
        V2, T2, E2, two, pl, N2, M2, H2 = moved.kernel_data()
        tris = grid.query(*moved.center, moved.radius + 0.5)
        assert tris
        prev = [None] * len(tris)
        for _ in range(2):
            codes = np.array([prev_codes(p) for p in prev], dtype=np.int64).reshape(-1, 6)
            D, Fk, S, G = hull_triangles_measure(V2, T2, E2, two, pl, N2, M2, H2, moved.center,
                                                 np.array(tris, dtype=np.int64), codes, tri_first, GV, GPL, GN)
            for q, t in enumerate(tris):
                A, B = (grid.piece(t), moved) if tri_first else (moved, grid.piece(t))
                fa, fb, swapped, gap, n, p, t0, broken, _ = _single(A, B, prev[q])
                row = Fk[q].tolist()
                assert feature_of(*row[:3]) == fa and feature_of(*row[3:]) == fb
                assert bool(S[q]) == swapped
                g = G[q].tolist()
                assert (g[1] if g[0] else None) == gap
                assert ((g[3], g[4], g[5]) if g[2] else None) == n
                assert (g[6], g[7], g[8]) == p and (g[9], g[10], g[11]) == t0 and bool(g[12]) == broken
                prev[q] = (fa, fb)
                checked += 1
    assert checked > 200


def test_the_ball_pass_gives_each_triangles_single_measurement_with_its_previous_feature():
    """Ball centres above, below, beside and on the edges of a bumpy grid's
    triangles: every row of the grid's ball pass (ball_triangles_measure, on
    the grid's vertex and plane arrays) equals ball_piece_measure of that
    triangle's own piece (its vertices, normals and plane), fresh, with the
    feature it found and with another feature (kept within the tie or not)."""
    from ivp.collision.feature_kernels import ball_triangles_measure
    from ivp.collision.features import ball_piece_measure, code_of
    V, F = grid_mesh(6, 8.0)
    rnd = np.random.default_rng(5)
    V = V + rnd.normal(0.0, 0.08, V.shape)
    grid = TriangleGrid(V, F)
    GV, GPL, _ = grid.kernel_arrays()
    kinds = set()
    checked = 0
    for _ in range(40):
        c = (rnd.uniform(-4.5, 4.5), rnd.uniform(-0.6, 0.9), rnd.uniform(-4.5, 4.5))
        tris = grid.query(*c, 1.5)
        assert tris
        others = [("F", 0), ("F", 1), ("K", (0, 1)), ("K", (1, 2)), ("P", 2), None]
        prev = [None] * len(tris)
        for step in range(3):
            codes = np.array([code_of(p) for p in prev], dtype=np.int64).reshape(-1, 3)
            C = np.repeat(np.array([c]), len(tris), axis=0)
            Fk, G = ball_triangles_measure(C, np.array(tris, dtype=np.int64), codes, GV, GPL)
            for q, t in enumerate(tris):
                f, g = ball_piece_measure(c, grid.piece(t), prev[q])
                assert feature_of(*Fk[q].tolist()) == f
                row = G[q].tolist()
                assert row[0] == g.gap and tuple(row[1:4]) == g.n
                assert tuple(row[4:7]) == g.p and tuple(row[7:10]) == g.t0
                kinds.add(f[0])
                prev[q] = f if step == 0 else others[(q + step) % len(others)]
                checked += 1
    assert checked > 500 and kinds == {"F", "K", "P"}


def _sunk_world():
    """Boxes and a round hull dropped tilted, spinning, onto a bumpy floor,
    one box started 0.15 m into it (an intrusion), one box on another."""
    rng.reset()
    env = Environment()
    floor(env, n=8, size=20.0)
    rnd = np.random.default_rng(4)
    bodies = []
    for i in range(4):
        q = rnd.normal(size=4)
        q = tuple(q / np.linalg.norm(q))
        bodies.append(box(env, (3.0 * i - 4.5, 0.8 + 0.3 * i, 1.0), size=(1.0, 0.5, 1.5), name=f"b{i}",
                          quaternion=q))
    bodies.append(box(env, (6.0, 0.35 - 0.15, -3.0), size=(1.0, 0.7, 1.0), name="sunk"))
    bodies.append(box(env, (-4.5, 2.5, 1.0), name="on_top"))
    surf = build_surface("round", convex_point_sets=[_round_hull(40, 0.6, 8)])
    bodies.append(env.create_polygon(surf, ObjectTemplate(name="round", mass=2.0), (0.0, 1.5, -4.0)))
    for b in bodies:
        b.wake()
        b.core.rot_speed = tuple(rnd.uniform(-3.0, 3.0, 3))
    return env


def _run(monkeypatch, batched: bool):
    if not batched:
        def one_by_one(shape, key, soup, tri_first, mds, t):
            for md in mds:
                md.recalc(t)
        monkeypatch.setattr(mindist_batches, "_recalc_piece_triangles", one_by_one)
    seen = states(_sunk_world(), 240)
    monkeypatch.undo()
    return seen


def states(env, psis: int) -> list:
    """The world's state after each of ``psis`` PSIs."""
    seen = []
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
        seen.append(state(env))
    return seen


def test_bodies_landing_tipping_and_pushed_out_of_a_floor_run_the_same_bits_batched(monkeypatch):
    batched = _run(monkeypatch, True)
    single = _run(monkeypatch, False)
    assert batched == single
    assert batched[0] != batched[-1]


def test_ball_pairs_in_one_pass_give_each_pairs_own_recalc():
    """Balls dropped in a heap: at every PSI each ball-ball mindist measured
    in the pass (mindist_batches._recalc_ball_pairs) has the sides, geometry, gap and
    intrusion flag of its own recalc, read back from its row."""
    from test_collision_scenes import ball
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env)
    for i in range(9):
        ball(env, (1.05 * (i % 3) - 1.0, 0.6 + 1.1 * (i // 3), 0.3 * (i % 2)), radius=0.5, name=f"b{i}")
    for o in env.objects:
        o.wake()
    checked = 0
    for _ in range(60):
        env.simulate(env.delta_PSI_time)
        mds = [md for md in env.collision.mindists() if md.a.is_ball and md.b.is_ball]
        t = env.current_time
        mindist_batches.recalc_all(mds, t)
        assert all(type(md._batch) is mindist_batches.BallPairBatch for md in mds)
        batched = [(md.len_numerator, md.intrusion, md.side0.feature, md.side1.feature, md.side0.shape,
                    md.side1.shape, md.geom.gap, md.geom.n, md.geom.p, md.geom.t0, md.geom.broken, md.prev)
                   for md in mds]
        for md in mds:
            md.recalc(t)
        single = [(md.len_numerator, md.intrusion, md.side0.feature, md.side1.feature, md.side0.shape,
                   md.side1.shape, md.geom.gap, md.geom.n, md.geom.p, md.geom.t0, md.geom.broken, md.prev)
                  for md in mds]
        assert batched == single
        checked += len(mds)
    assert checked > 100


def test_a_batched_pairs_normal_is_its_geometrys():
    """update_events reads a pair's normal from its row (Mindist.normal)
    without making its sides and geometry: balls and boxes over a grid floor
    and on each other, every batched pair's normal is the one its geometry
    then gives."""
    from test_collision_scenes import ball
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, n=8, size=16.0)
    for i in range(4):
        ball(env, (1.05 * i - 1.5, 0.6 + 1.1 * (i % 2), 0.0), radius=0.5, name=f"b{i}")
        box(env, (1.2 * i - 1.8, 1.0, 2.5), name=f"x{i}")
    for o in env.objects:
        o.wake()
    kinds = set()
    for _ in range(40):
        env.simulate(env.delta_PSI_time)
        for md in env.collision.mindists():
            b = md._batch
            if b is None:
                continue
            kinds.add(type(b).__name__)
            n = md.normal
            assert n == md.geom.n
    assert kinds == {"tuple", "SoupPairs", "BallPairBatch", "PieceBatch"}


def test_the_ball_pass_answers_update_search_as_it_would_itself(monkeypatch):
    """Balls dropped from several heights onto a bumpy floor, bouncing and
    rolling: at every collision pass each ball-triangle pair measured in a
    ball pass (ball_pass_k), single or a SoupPairs' member, has the answer
    update_search (3.5: look-ahead, closing speed, event search) gives for
    it from the pair's own values; events, quiet and far pairs among them."""
    from test_collision_scenes import ball
    from ivp.collision import system
    from ivp.collision.mindist import SoupPairs, _made_event
    from ivp.collision.mindist_search import EVENT_AT, EVENT_BEYOND, EVENT_QUIET, update_search
    answers = {}
    recalc_all = system.recalc_all

    def checked(mds, t):
        out = recalc_all(mds, t)
        t, t_max = env.current_time, env.time_of_next_psi
        members = [m for md in mds for m in (md.mds if type(md) is SoupPairs else (md,))]
        for md in members:
            b = md._batch
            if type(b) is tuple or (type(b) is SoupPairs and type(b.batch) is tuple):
                made = _made_event(b, md._row, t, t_max)
                assert made == update_search(env, md, t, t_max)
                answers[made[0]] = answers.get(made[0], 0) + 1
        return out

    monkeypatch.setattr(system, "recalc_all", checked)
    rng.reset()
    env = Environment(gravity=(0.0, -20.0, 0.0))
    floor(env, n=8, size=16.0)
    for i in range(6):
        ball(env, (2.0 * i - 5.0, 1.0 + 0.9 * i, 0.5 * i - 1.0), radius=0.5, name=f"b{i}").wake()
    for _ in range(90):
        env.simulate(env.delta_PSI_time)
    assert answers.get(EVENT_AT, 0) > 5 and answers.get(EVENT_QUIET, 0) > 50 and answers.get(EVENT_BEYOND, 0) > 50


def test_the_pairs_with_triangles_are_searched_in_their_pass_not_one_by_one(monkeypatch):
    """3.5 in the pass (mindist_batches.piece_triangles_k, issue 41 item 1):
    over the sunk world's 240 PSIs no pair of a piece and a grid's triangle
    is searched on its own from Python; its pass made the searches (the
    same bits: test_bodies_landing_..._batched)."""
    per_pair = []
    searched = []
    search = mindist_search.event_search
    kernel = mindist_batches.piece_triangles_k

    def searching(md, *args):
        if "t" in (md.ka[0], md.kb[0]) and not md.a.is_ball:
            per_pair.append(md)
        return search(md, *args)

    def counting(*args):
        out = kernel(*args)
        searched.append(int(np.isin(out[-1][0], (mindist_search.EVENT_NONE, mindist_search.EVENT_AT)).sum()))
        return out

    monkeypatch.setattr(mindist_search, "event_search", searching)
    monkeypatch.setattr(mindist_batches, "piece_triangles_k", counting)
    states(_sunk_world(), 240)
    assert per_pair == []
    assert len(searched) > 500 and sum(searched) > 400     # 613 passes, 503 searches
