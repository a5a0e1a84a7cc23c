"""Mindists measured and tested in batches (issue 11): the pairs of a
collision pass measured in compiled passes (a ball's pairs with a grid's
triangles, ball against ball, a hull's pieces against triangles), each pair
keeping its gap and its row of the pass (:class:`BallPairBatch`,
mindist.PieceBatch, mindist.SoupPairs), the passes of a ball's and of a
hull's pairs with update_search's answers for each pair (ivp-contacts 3.5),
and update_events' early returns for many pairs at once (recalc_all's
answers)."""

from __future__ import annotations

import math
from operator import attrgetter

import numpy as np

from ..jit import kernel
from ..state.layout import AXIS, CUR_SPEED, MAX_SURF_ROT, SPEED
from .constants import COLL_DIST, HULL_LOOK_AHEAD_PSIS, NOT_APPROACHING_EPS, REAL_COLL_DIST
from ..states import MT_NOT_SIM
from .event_kernels import ball_event_search_k, centre_k, piece_at, piece_event_search_k, row_pose_parts
from .feature_kernels import ball_triangles_measure, balls_measure, triangle_feature
from .features import BEHIND_TRIANGLE_DEPTH, INTRUSION_DEPTH, Geometry, prev_codes
from .mindist import BALL, PieceBatch, Side, SoupPairs, ball_row_normal
from .mindist_search import (EVENT_AT, EVENT_BEYOND, EVENT_NONE, EVENT_NOT_MADE, EVENT_QUIET, NO_PIECE, core_pose,
                             piece_arg)
from .piece_kernels import grid_triangle, hull_triangles_measure, pieces_measure_fresh, put_measure, triangle_indices

PACK_LIMIT = 1024               # a PiecePack holding more pieces starts again
_ROW = attrgetter("row")


@kernel
def _closing_speed(n0, n1, n2, V):
    """update_events' bound of the closing speed (mcs) along the normal n
    from V's row 0 (as _pair_speeds makes it)."""
    mcs = V[0, 0] * n0 + V[0, 1] * n1 + V[0, 2] * n2
    for a in (3, 7):
        k = n0 * V[0, a] + n1 * V[0, a + 1] + n2 * V[0, a + 2]
        x = 1.001 - k * k
        if 0.0 > x:                 # max(x, 0.0)
            x = 0.0
        mcs += math.sqrt(x) * V[0, a + 3]
    return mcs


@kernel
def _not_closing(gap, mcs, horizon):
    """update_events' returns after the look-ahead: not approaching, or too
    far for its closing speed mcs before the next PSI (``horizon`` away)."""
    return mcs < NOT_APPROACHING_EPS or gap >= COLL_DIST + horizon * mcs


@kernel
def _update_tests(S, r0, r1, gap, n, dt, horizon, V):
    """update_search's tests before its search for a pair of the cores at
    rows r0, r1 of the body table S (its gap, normal n; ``horizon`` the time
    to the next PSI, V a scratch row): (EVENT_BEYOND, EVENT_QUIET, or
    EVENT_NONE where the search is due; the worst surface speed wc; the
    closing speed bound mcs), the same operations in the same order."""
    wc = S[r0, MAX_SURF_ROT] + S[r0, CUR_SPEED] + S[r1, MAX_SURF_ROT] + S[r1, CUR_SPEED]
    if gap > COLL_DIST + dt * wc * HULL_LOOK_AHEAD_PSIS:         # mindist_search.look_ahead_limit
        return EVENT_BEYOND, wc, 0.0
    _pair_speeds(S, r0, r1, V)
    mcs = _closing_speed(n[0], n[1], n[2], V)
    return (EVENT_QUIET if _not_closing(gap, mcs, horizon) else EVENT_NONE), wc, mcs


@kernel
def _pair_speeds(S, r0, r1, V):
    """V's row 0 as _closing_speed reads it, from the cores at rows r0, r1 of
    the body table S: their speed difference, side 0's rotation axis and
    max_surface_rot_speed, side 1's."""
    for j in range(3):
        V[0, j] = S[r0, SPEED + j] - S[r1, SPEED + j]
        V[0, 3 + j] = S[r0, AXIS + j]
        V[0, 7 + j] = S[r1, AXIS + j]
    V[0, 6] = S[r0, MAX_SURF_ROT]
    V[0, 10] = S[r1, MAX_SURF_ROT]


@kernel
def ball_pass_k(S, rows, r1, tris, prev, extra, GV, GPL, nopiece, t, t_max, base, dt, n, starts):
    """recalc's ball branch for pairs of a ball (its row of the body table
    S; its centre at t as Core.centre_at makes it) and a triangle ``tris``
    of a grid on the core at row r1 (ball_triangles_measure: features F and
    geometry G), then for
    each, on its gap less ``extra`` (sum_extra_radius), update_search's
    tests and event_search (ball_event_search_k on the feature's world
    points, mindist_search._ball_search_kind) with the same values in the
    same order: WHAT one of EVENT_BEYOND, EVENT_QUIET, EVENT_NONE, EVENT_AT
    (the time in T_EV), EVENT_NOT_MADE where the grid's core moves (the
    search left to Python); WC the worst surface speed. Then each pair's
    gap less ``extra`` (L), whether each of the first n pairs has no event
    (Q: beyond, quiet or none found), and the least of L over each group of
    the pairs after them (``starts``: their first rows, from row n; as
    numpy's minimum.reduceat)."""
    k = tris.shape[0]
    C = np.empty((k, 3))
    for q in range(k):
        if q == 0 or rows[q] != rows[q - 1]:
            c = centre_k(t, row_pose_parts(S, rows[q]))
        C[q, 0] = c[0]
        C[q, 1] = c[1]
        C[q, 2] = c[2]
    F, G = ball_triangles_measure(C, tris, prev, GV, GPL)
    WHAT = np.empty(k, dtype=np.int64)
    T_EV = np.zeros(k)
    WC = np.empty(k)
    V = np.empty((1, 11))
    D = np.empty((4, 3))
    B1 = row_pose_parts(S, r1)
    L = np.empty(k)
    for q in range(k):
        sx = extra[q]
        gap = L[q] = G[q, 0] - sx
        WHAT[q], WC[q], mcs = _update_tests(S, rows[q], r1, gap, (G[q, 1], G[q, 2], G[q, 3]), dt, t_max - t, V)
        if WHAT[q] != EVENT_NONE:
            continue
        if B1[1] < MT_NOT_SIM:
            WHAT[q] = EVENT_NOT_MADE
            continue
        tr = tris[q]
        kind = F[q, 0]
        W = triangle_feature((GV[tr, 0, 0], GV[tr, 0, 1], GV[tr, 0, 2]), (GV[tr, 1, 0], GV[tr, 1, 1], GV[tr, 1, 2]),
                              (GV[tr, 2, 0], GV[tr, 2, 1], GV[tr, 2, 2]), (GPL[tr, 0], GPL[tr, 1], GPL[tr, 2]),
                              kind, F[q, 1], F[q, 2])
        for i in range(4):
            for j in range(3):
                D[i, j] = W[i][j]
        real = REAL_COLL_DIST + (0.9 if kind == 1 else 0.5) * sx        # Mindist.bounds
        found, te = ball_event_search_k(kind, D, row_pose_parts(S, rows[q]), B1, nopiece, 0.5 * (COLL_DIST + sx),
                                        COLL_DIST + sx, real, mcs, t, t_max, base)
        WHAT[q] = EVENT_AT if found else EVENT_NONE
        T_EV[q] = te
    Q = np.empty(n, dtype=np.bool_)
    for q in range(n):
        Q[q] = WHAT[q] > EVENT_NOT_MADE and WHAT[q] < EVENT_AT
    least = np.empty(starts.shape[0])
    for i in range(starts.shape[0]):
        end = n + starts[i + 1] if i + 1 < starts.shape[0] else k
        m = L[n + starts[i]]
        for q in range(n + starts[i] + 1, end):
            if L[q] < m or L[q] != L[q]:        # np.minimum: the first of equal values, NaN kept
                m = L[q]
        least[i] = m
    return F, G, (WHAT, T_EV, WC), (L, Q, least)


# piece_pairs_k's per-piece ints (PIX): the piece's rows of VV, TT, EE (MM, HH
# share EE's), NN, then whether it is two-sided and moves with its core
V0, V1, T0, T1, E0, E1, N0, N1, TWO, MOVES, PIECE_INTS = range(11)
NORMAL_WIDTH = 7                # feature_kernels.normals' columns of a hull (a two-sided piece's 3 padded)


@kernel
def _packed_piece(VV, TT, EE, NN, MM, HH, PL, C, PIX, i):
    """Piece i of the packed pieces as event_kernels.piece_at reads one
    (mindist_search.piece_arg's tuple)."""
    return (VV[PIX[i, V0]:PIX[i, V1]], TT[PIX[i, T0]:PIX[i, T1]], EE[PIX[i, E0]:PIX[i, E1]], PIX[i, TWO] != 0,
            PL[i], NN[PIX[i, N0]:PIX[i, N1]], MM[PIX[i, E0]:PIX[i, E1]], HH[PIX[i, E0]:PIX[i, E1]],
            (C[i, 0], C[i, 1], C[i, 2]), PIX[i, MOVES] != 0)


@kernel
def piece_pairs_k(S, VV, TT, EE, NN, MM, HH, PL, C, PIX, pairs, prev, extra, t, t_max, base, dt, F, SW, G, D,
                  X, WHAT, T_EV, WC):
    """Mindist.recalc of pairs of two convex pieces at t (``pairs``: the
    packed pieces A and B and their cores' rows of the body table S; ``prev``
    their previous features, ``extra`` their sum_extra_radius), each into
    row q of F, SW, G, D (piece_kernels.put_measure) and X (intrusion, as
    features.piece_piece_measure says); then for a pair not intruded,
    mindist_search.update_search on the same values in the same order: WHAT
    one of its EVENT_BEYOND, EVENT_QUIET, EVENT_NONE, EVENT_AT (the event
    time in T_EV), the worst surface speed in WC; EVENT_NOT_MADE where it
    is left to Python (an intrusion, or no normal)."""
    V = np.empty((1, 11))
    for q in range(pairs.shape[0]):
        WHAT[q] = EVENT_NOT_MADE
        PA = _packed_piece(VV, TT, EE, NN, MM, HH, PL, C, PIX, pairs[q, 0])
        PB = _packed_piece(VV, TT, EE, NN, MM, HH, PL, C, PIX, pairs[q, 1])
        BA = row_pose_parts(S, pairs[q, 2])
        BB = row_pose_parts(S, pairs[q, 3])
        VA, TA, EA, twoA, plA, NA, _, _, cA = piece_at(t, PA, BA, False)
        VB, TB, EB, twoB, plB, NB, MB, HB, cB = piece_at(t, PB, BB, True)
        pq = (prev[q, 0], prev[q, 1], prev[q, 2], prev[q, 3], prev[q, 4], prev[q, 5])
        d, f, sw, g, d0 = pieces_measure_fresh(VA, TA, EA, twoA, plA, NA, cA, VB, TB, EB, twoB, plB, NB, MB, HB, cB,
                                               pq)
        put_measure(D, F, SW, G, q, d, f, sw, g)
        X[q] = d < (-BEHIND_TRIANGLE_DEPTH if (twoA if f[0] == 2 else twoB) else -INTRUSION_DEPTH)
        gap_ok, gap, n_ok, n, p, _, _ = g
        if not X[q] and n_ok:
            WHAT[q], T_EV[q], WC[q] = _pair_event(S, pairs[q, 2], pairs[q, 3], (gap if gap_ok else 0.0) - extra[q], n,
                                                  p, f[0], f[3], sw, extra[q], PA, BA, PB, BB, t, t_max, base, dt, V, d0)


@kernel
def _pair_event(S, rA, rB, gap, n, p, kA, kB, sw, sx, PA, BA, PB, BB, t, t_max, base, dt, V, d0=math.nan):
    """mindist_search.update_search for a measured pair of pieces A and B
    (its cores' rows rA, rB of the body table S; its gap less sx, its
    sum_extra_radius; normal n and point p; A's and B's feature kinds, sw
    whether its sides are swapped; PA, PB as event_kernels.piece_at reads
    them, BA, BB their cores' pose parts; V a scratch row; d0 as
    event_kernels.piece_event_search_k takes it), the same values
    in the same order: (one of EVENT_BEYOND, EVENT_QUIET, EVENT_NONE,
    EVENT_AT; the event time; the worst surface speed)."""
    r0 = rB if sw else rA                   # Mindist.cores: the sorted sides' cores
    r1 = rA if sw else rB
    what, wc, mcs = _update_tests(S, r0, r1, gap, n, dt, t_max - t, V)
    if what != EVENT_NONE:
        return what, 0.0, wc
    s0 = 1 if sw else 0                     # mindist_search.event_search's sides
    k0 = kB if sw else kA
    k1 = kA if sw else kB
    face = s0 if k0 == 2 and k1 != 2 else 1 - s0
    found, te = piece_event_search_k(d0, PA, BA, PB, BB, (-1, -1, -1, -1, -1, -1), (s0, 1 - s0, face), p, n,
                                     COLL_DIST + sx, REAL_COLL_DIST + 0.5 * sx, mcs, t, t_max, base)
    return (EVENT_AT if found else EVENT_NONE), te, wc


@kernel
def piece_triangles_k(S, rP, rT, V, T, E, two, pl, N, M, H, c, P, tris, prev, tri_first, GV, GPL, GN, extra, t,
                      t_max, base, dt):
    """Mindist.recalc of the pairs of one piece (V ... c: its kernel arrays
    moved to its core's pose at t; P as event_kernels.piece_at reads it;
    rP its core's row of the body table S) with triangles ``tris`` of the
    grid on the core at row rT (piece_kernels.hull_triangles_measure: D, F,
    SW, G), X whether each is intruded (features.piece_piece_measure's
    depths, the triangle two-sided), L each gap (0 unknown) less ``extra``:
    its len_numerator, then for a pair not intruded with a normal
    :func:`_pair_event` on L: WHAT (EVENT_NOT_MADE where it is left to
    Python), T_EV, WC as piece_pairs_k makes them. Returns L, not D."""
    D, F, SW, G = hull_triangles_measure(V, T, E, two, pl, N, M, H, c, tris, prev, tri_first, GV, GPL, GN)
    k = tris.shape[0]
    X = np.empty(k, dtype=np.bool_)
    L = np.empty(k)
    WHAT = np.full(k, EVENT_NOT_MADE, dtype=np.int64)
    T_EV = np.zeros(k)
    WC = np.zeros(k)
    TT, ET = triangle_indices()
    BP = row_pose_parts(S, rP)
    BT = row_pose_parts(S, rT)
    V1 = np.empty((1, 11))
    for q in range(k):
        X[q] = D[q] < (-BEHIND_TRIANGLE_DEPTH if (F[q, 0] == 2) == tri_first or two else -INTRUSION_DEPTH)
        gap = L[q] = (G[q, 1] if G[q, 0] != 0.0 else 0.0) - extra[q]
        if X[q] or G[q, 2] == 0.0:
            continue
        n = (G[q, 3], G[q, 4], G[q, 5])
        p = (G[q, 6], G[q, 7], G[q, 8])
        VT, _, _, _, plT, NT, MT, HT, ct = grid_triangle(GV, GPL, GN, tris[q], TT, ET)
        PT = (VT, TT, ET, True, plT, NT, MT, HT, ct, False)
        if tri_first:
            WHAT[q], T_EV[q], WC[q] = _pair_event(S, rT, rP, gap, n, p, F[q, 0], F[q, 3], SW[q], extra[q], PT, BT,
                                                  P, BP, t, t_max, base, dt, V1)
        else:
            WHAT[q], T_EV[q], WC[q] = _pair_event(S, rP, rT, gap, n, p, F[q, 0], F[q, 3], SW[q], extra[q], P, BP,
                                                  PT, BT, t, t_max, base, dt, V1)
    return L, F, SW, G, X, (WHAT, T_EV, WC)


def recalc_all(items, t: float) -> list:
    """Mindist.recalc of each (they are independent of one another), the
    pairs of a ball and a grid's triangle (single or as SoupPairs) in one
    kernel pass per grid, those of another piece and a grid's triangles in
    one pass per piece and grid, the pairs of two balls in one pass; each
    core's pose at t made once (core_pose). Returns, per item, True where
    update_events would queue no event, as the passes answer it: a single
    pair of a ball pass (ball_pass_k) and a pair of two balls
    (ball_pairs_k's Q); False for the others."""
    quiet = [False] * len(items)
    groups = {}
    pieces = {}
    balls = []
    hulls = []
    poses = {}
    for i, it in enumerate(items):
        if type(it) is SoupPairs:
            groups.setdefault(it.soup, ([], [], []))[1].append(it)
        elif it.kb[0] == "t":
            if it.a.is_ball:
                it.a.soup_measures += 1     # as recalc: a SoupPairs of a's keeps no codes past this
                g = groups.setdefault(it.b, ([], [], []))
                g[0].append(it)
                g[2].append(i)
            else:
                pieces.setdefault((it.a, it.ka, it.b, False), []).append(it)
        elif it.ka[0] == "t":
            pieces.setdefault((it.b, it.kb, it.a, True), []).append(it)
        elif it.a.is_ball and it.b.is_ball:
            balls.append((i, it))
        elif it.a.is_ball:
            it.recalc(t, poses)
        else:
            hulls.append(it)
    if balls:
        for (i, _), q in zip(balls, _recalc_ball_pairs([it for _, it in balls], t)):
            quiet[i] = q
    if hulls:
        _recalc_piece_pairs(hulls, t)
    for shape, (single, soups, at) in groups.items():
        for i, q in zip(at, _recalc_ball_triangles(shape, single, soups, t)):
            quiet[i] = q
    for (shape, key, soup, tri_first), mds in pieces.items():
        _recalc_piece_triangles(shape, key, soup, tri_first, mds, t)
    return quiet


class BallPairBatch:
    """One pass of balls_measure: each ball-ball pair's geometry row; its
    sides and geometry are made from the row when first read."""

    __slots__ = ("G",)

    def __init__(self, G):
        self.G = G

    def normal_of(self, q: int):
        return ball_row_normal(self.G, q)

    def unbatch(self, md) -> None:
        """recalc's ball-ball branch's results from md's row."""
        g = self.G[md._row].tolist()
        md._measured(Side(md.a, md.ka, BALL), Side(md.b, md.kb, BALL),
                     Geometry(g[0], (g[1], g[2], g[3]), (g[4], g[5], g[6]), (g[7], g[8], g[9]), False), None)


def _recalc_ball_pairs(mds, t: float) -> list:
    """recalc's ball-ball branch for the pairs (same values) in one kernel
    pass, ball_pairs_k: each keeps its gap and its row; returns its answers Q."""
    env = mds[0].a.obj.core.environment
    rows = _rows([md.a.obj.core for md in mds] + [md.b.obj.core for md in mds])
    G, L, Q = ball_pairs_k(env.bodies.rows, rows, np.array([md.sum_extra_radius for md in mds]), t,
                           env.delta_PSI_time, env.time_of_next_psi - env.current_time)
    batch = BallPairBatch(G)
    for md, q, len_numerator in zip(mds, range(len(mds)), L.tolist()):
        md._batch = batch
        md._row = q
        md._len = len_numerator
        md.intrusion = False
    return Q.tolist()


@kernel
def ball_pairs_k(S, rows, extra, t, dt, horizon):
    """balls_measure of the pairs of balls whose cores are at ``rows`` of the
    body table S (side 0's, then side 1's), each centre at t as
    Core.centre_at makes it; each pair's len_numerator L (its gap less
    ``extra``, its sum_extra_radius) and update_events' early returns Q
    (:func:`_update_tests` answers other than a search; ``horizon`` the time
    to the next PSI)."""
    C = np.empty((rows.shape[0], 3))
    for q in range(rows.shape[0]):
        c = centre_k(t, row_pose_parts(S, rows[q]))
        C[q, 0] = c[0]
        C[q, 1] = c[1]
        C[q, 2] = c[2]
    n = rows.shape[0] // 2
    G = balls_measure(C[:n], C[n:])
    L = np.empty(n)
    Q = np.empty(n, dtype=np.bool_)
    V = np.empty((1, 11))
    for q in range(n):
        L[q] = G[q, 0] - extra[q]
        Q[q] = _update_tests(S, rows[q], rows[n + q], L[q], (G[q, 1], G[q, 2], G[q, 3]), dt, horizon, V)[0] \
            != EVENT_NONE
    return G, L, Q


def _recalc_piece_triangles(shape, key, soup, tri_first: bool, mds, t: float) -> None:
    """recalc's piece branch for the pairs of piece ``key`` of ``shape`` with
    triangles of ``soup``'s grid (on side A when ``tri_first``), in one kernel
    pass, piece_triangles_k (same values), which also makes update_search's
    answers for each (kept with the pass: mindist._made_event): each pair
    keeps its gap, intrusion and row."""
    core = shape.obj.core
    env = core.environment
    piece = shape.piece_world(key, core_pose(core, t))
    k = len(mds)
    tris = np.fromiter([(md.ka if tri_first else md.kb)[1] for md in mds], dtype=np.int64, count=k)
    GV, GPL, GN = soup.grid.kernel_arrays()
    t_max = env.time_of_next_psi
    L, F, S, G, X, events = piece_triangles_k(
        env.bodies.rows, core.row, soup.obj.core.row, *piece.kernel_data(), piece.center, piece_arg(shape, key),
        tris, _previous_codes(mds, 6, _piece_prev_code), tri_first, GV, GPL, GN,
        np.array([md.sum_extra_radius for md in mds]), t, t_max, env.time_manager.base_time, env.delta_PSI_time)
    batch = PieceBatch(F, S, G)
    batch.events = (*events, t, t_max)
    for md, q, len_numerator, intrudes in zip(mds, range(k), L.tolist(), X.tolist()):
        md._batch = batch
        md._row = q
        md.len_numerator = len_numerator
        md.intrusion = intrudes


def _recalc_piece_pairs(mds, t: float) -> None:
    """recalc's piece branch for pairs of two convex pieces (neither a grid's
    triangle) in one kernel pass, piece_pairs_k (same values), which also
    makes update_events' tests and search for each (update_search; kept
    with the pass: mindist._made_event); each pair keeps its gap,
    intrusion and row."""
    env = mds[0].a.obj.core.environment
    pack = env.collision.piece_pack
    if len(pack.args) > PACK_LIMIT:
        pack.__init__()
    slot = pack.slot
    pairs = np.empty((len(mds), 4), dtype=np.int64)
    for q, md in enumerate(mds):
        for j, (shape, key) in enumerate(((md.a, md.ka), (md.b, md.kb))):
            piece = shape.pieces[key[1]] if shape.world_pieces is None else shape.world_pieces[key[1]]
            i = slot.get(piece)
            if i is None:
                i = pack.add(piece, piece_arg(shape, key))
            pairs[q, j] = i
        pairs[q, 2] = md.a.obj.core.row
        pairs[q, 3] = md.b.obj.core.row
    n = len(mds)
    F = np.empty((n, 6), dtype=np.int64)
    SW = np.empty(n, dtype=np.bool_)
    G = np.empty((n, 13))
    D = np.empty(n)
    X = np.empty(n, dtype=np.bool_)
    what = np.empty(n, dtype=np.int64)
    T = np.empty(n)
    wc = np.empty(n)
    t_max = env.time_of_next_psi
    piece_pairs_k(env.bodies.rows, *pack.packed(), pairs, _previous_codes(mds, 6, _piece_prev_code),
                  np.array([md.sum_extra_radius for md in mds]), t, t_max, env.time_manager.base_time,
                  env.delta_PSI_time, F, SW, G, D, X, what, T, wc)
    batch = PieceBatch(F, SW, G)
    batch.events = (what, T, wc, t, t_max)
    gaps = np.where(G[:, 0] != 0.0, G[:, 1], 0.0).tolist()
    intrudes = X.tolist()
    for q, md in enumerate(mds):
        md._batch = batch
        md._row = q
        md.len_numerator = gaps[q] - md.sum_extra_radius
        md.intrusion = intrudes[q]


class PiecePack:
    """The pieces of the piece pair passes (_recalc_piece_pairs) as
    piece_pairs_k reads them, each at its slot from the pass that first had
    it (``slot``: piece -> slot; ``args``: each slot's piece_arg), packed
    again only after a new piece came, not at each pass (a piece's arrays
    never change: a fixed shape moved has new pieces). Past PACK_LIMIT
    pieces it starts again."""

    __slots__ = ("slot", "args", "arrays")

    def __init__(self):
        self.slot = {}
        self.args = []
        self.arrays = None

    def add(self, piece, arg) -> int:
        """The new piece's slot (``arg``: its piece_arg)."""
        i = self.slot[piece] = len(self.args)
        self.args.append(arg)
        self.arrays = None
        return i

    def packed(self) -> tuple:
        """The pieces' piece_arg tuples as piece_pairs_k's arrays: VV, TT, EE,
        NN, MM, HH their rows one after another, PL their planes, C their
        centres, PIX their rows' bounds and flags."""
        if self.arrays is not None:
            return self.arrays
        pieces = self.args
        PIX = np.zeros((len(pieces), PIECE_INTS), dtype=np.int64)
        v = tt = e = nn = 0
        for i, p in enumerate(pieces):
            v1, t1, e1, n1 = v + len(p[0]), tt + len(p[1]), e + len(p[2]), nn + len(p[5])
            PIX[i, :TWO] = v, v1, tt, t1, e, e1, nn, n1
            PIX[i, TWO] = p[3]
            PIX[i, MOVES] = p[9]
            v, tt, e, nn = v1, t1, e1, n1
        NN = np.zeros((nn, NORMAL_WIDTH))
        for i, p in enumerate(pieces):
            N = p[5]
            NN[PIX[i, N0]:PIX[i, N1], :N.shape[1]] = N
        self.arrays = (np.concatenate([p[0] for p in pieces]), np.concatenate([p[1] for p in pieces]),
                       np.concatenate([p[2] for p in pieces]), NN, np.concatenate([p[6] for p in pieces]),
                       np.concatenate([p[7] for p in pieces]), np.array([p[4] for p in pieces], dtype=np.float64),
                       np.array([p[8] for p in pieces], dtype=np.float64), PIX)
        return self.arrays


def _previous_codes(mds, width: int = 3, own=lambda md: md.prev_code):
    """The pairs' previous features as an (n, width) array: each pass's rows
    (a SoupPairs member's: its group's pass) taken at once, the others'
    ``own`` (width 3: a ball's pairs, side 1's feature; 6: a piece's with a
    grid's triangles, with :func:`_piece_prev_code`)."""
    prev = np.empty((len(mds), width), dtype=np.int64)
    passes = {}
    for q, md in enumerate(mds):
        c, r = md._batch, md._row
        if type(c) is SoupPairs:
            r += c.offset
            c = c.batch
        if c is None:
            prev[q] = own(md)
            continue
        p = passes.get(id(c))
        if p is None:
            p = passes[id(c)] = (c, [], [])
        p[1].append(q)
        p[2].append(r)
    if len(passes) == 1:
        b, at, rows = next(iter(passes.values()))
        r0 = rows[0]
        if len(at) == len(mds) and rows == list(range(r0, r0 + len(rows))):
            return _pass_codes(b)[r0:r0 + len(rows)]      # the pass's rows in order: read as they are
    for b, at, rows in passes.values():
        prev[at] = _pass_codes(b)[rows]
    return prev


def _ball_codes(single, soups):
    """The previous features of the single pairs, then of each SoupPairs'
    members, as one array: a group's slice of its last pass while no member
    was measured on its own since, the other pairs' by one _previous_codes."""
    own, at, parts, k = list(single), list(range(len(single))), [], len(single)
    for sp in soups:
        b, m = sp.batch, len(sp.mds)
        if b is not None and sp.measures == sp.ball.soup_measures:
            parts.append((k, b[1][sp.offset:sp.offset + m]))
        else:
            own += sp.mds
            at += range(k, k + m)
        k += m
    if not parts or (not own and len(parts) == 1):
        return _previous_codes(own) if own else parts[0][1]
    prev = np.empty((k, 3), dtype=np.int64)
    for k0, part in parts:
        prev[k0:k0 + part.shape[0]] = part
    if own:
        prev[at] = _previous_codes(own)
    return prev


def _pass_codes(batch):
    """A pass's feature code rows: a ball pass's (G, F, events), or a PieceBatch."""
    return batch.F if type(batch) is PieceBatch else batch[1]


def _piece_prev_code(md):
    """A piece pair's previous features (six ints): its row of a pass, or its own."""
    b = md._batch
    return prev_codes(md._prev) if b is None else b.F[md._row]


def _recalc_ball_triangles(soup, single, soups, t: float) -> list:
    """recalc's ball branch for pairs with the triangles of ``soup``'s grid
    (same values) and update_search's answers for them, in one pass
    (:func:`_ball_pass`), kept by :func:`_keep_ball_pass`. Returns, per
    single pair, whether its answer is no event (beyond the look-ahead,
    quiet, or searched with none found)."""
    p = _ball_pass(soup, single, soups, t)
    _keep_ball_pass(soup, single, soups, t, p)
    return p[3][1].tolist()


def _ball_pass(soup, single, soups, t: float):
    """ball_pass_k over the single pairs' rows first, then each SoupPairs'
    slice: (F, G, events, (L, Q, least), again, (tris, extras, starts, rows)).
    When the pass is the last one's groups again (no single pair, each
    group's codes its slice of the last pass; ``again``), the last pass's
    triangles and codes are its own."""
    grid = soup.grid
    n = len(single)
    last = grid.last_pass
    again = (not single and last is not None and last[0] == soups
             and all(sp.measures == sp.ball.soup_measures for sp in soups))
    if again:
        _, tris, prev, extras, starts, rows = last
    elif not single and len(soups) == 1:    # one ball's group (a level's player ball)
        sp = soups[0]
        tris, prev, starts = sp.tris, _ball_codes(single, soups), np.zeros(1, dtype=np.int64)
        rows, extras = np.full(tris.shape[0], sp.core.row, dtype=np.int64), np.full(tris.shape[0], sp.sum_extra)
    else:
        tris = [np.fromiter([md.kb[1] for md in single], dtype=np.int64, count=n)] if n else []
        tris += [sp.tris for sp in soups]
        tris = tris[0] if len(tris) == 1 else np.concatenate(tris)
        prev = _ball_codes(single, soups)
        counts = np.array([1] * n + [len(sp.mds) for sp in soups], dtype=np.int64)
        rows = np.repeat(_rows([md.a.obj.core for md in single] + [sp.core for sp in soups]), counts)
        extras = np.array([md.sum_extra_radius for md in single] + [sp.sum_extra for sp in soups])
        extras = np.repeat(extras, counts) if soups else extras
        starts = np.cumsum(counts[n:]) - counts[n:]
    env = soup.obj.core.environment
    GV, GPL, _ = grid.kernel_arrays()
    F, G, events, answers = ball_pass_k(
        env.bodies.rows, rows, soup.obj.core.row, tris, prev, extras, GV, GPL, NO_PIECE, t, env.time_of_next_psi,
        env.time_manager.base_time, env.delta_PSI_time, n, starts)
    return F, G, events, answers, again, (tris, extras, starts, rows)


def _keep_ball_pass(soup, single, soups, t: float, p) -> None:
    """A ball pass's results kept (its answers with the pass: mindist._made_event):
    each single pair keeps its gap and its row of the pass, each SoupPairs its slice."""
    F, G, events, (Ls, _, least), again, (tris, extras, starts, rows) = p
    soup.grid.last_pass = (soups, tris, F, extras, starts, rows) if not single else None
    env = soup.obj.core.environment
    batch = (G, F, (*events, t, env.time_of_next_psi))
    n = len(single)
    if single:
        for q, md, len_numerator in zip(range(n), single, Ls[:n].tolist()):
            md._batch = batch               # a pass's row: its gap is its own (Mindist.len_numerator)
            md._row = q
            md._len = len_numerator
            md.intrusion = False            # a two-sided triangle has a back: never intruded
    if not soups:
        return
    L = Ls[n:].tolist()
    least = least.tolist()
    if again:                           # the same groups at the same rows: linked already
        for sp, m in zip(soups, least):
            sp.batch = batch
            sp.L = L
            sp.least = m
            if sp.relink:
                sp.link()
        return
    for sp, s0, m in zip(soups, starts.tolist(), least):
        sp.passed(batch, n + s0, L, s0, m)


def recalc_quiet_groups(groups, t: float) -> bool:
    """update_events_of_cores' measurement of whole SoupPairs (each a ball's
    group whose members are all linked to it), one ball pass per soup: when
    no member's answer is an event to queue or to search (EVENT_NOT_MADE,
    EVENT_AT), each group keeps its slice of the pass and its members'
    events are cleared, as recalc and update_events of each member would
    leave them (True); else nothing is kept (False)."""
    by_soup = {}
    for sp in groups:
        by_soup.setdefault(sp.soup, []).append(sp)
    passes = []
    for soup, soups in by_soup.items():
        p = _ball_pass(soup, [], soups, t)
        what = p[2][0]
        if ((what == EVENT_NOT_MADE) | (what == EVENT_AT)).any():
            return False
        passes.append((soup, soups, p))
    for soup, soups, p in passes:
        _keep_ball_pass(soup, [], soups, t, p)
    for sp in groups:
        if sp.armed:
            for md in sp.mds:
                md.event = None
            sp.armed = False
    return True


def _rows(cores):
    """The cores' rows in the body table."""
    return np.fromiter(map(_ROW, cores), dtype=np.int64, count=len(cores))
