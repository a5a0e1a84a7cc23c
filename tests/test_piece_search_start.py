"""The event search of two pieces (ivp-contacts 3.5) starts from their closest
distance measured with no previous pair; the pass that measures the pair with
its previous pair gives that distance too (piece_kernels.pieces_closest_fresh),
so the search does not measure the pair again at the same time."""

import numpy as np

from ivp.collision.features import NO_FEATURE
from ivp.collision.piece_kernels import pieces_closest, pieces_closest_fresh
from ivp.collision.shapes import hull_piece, triangle_piece
from ivp.surface import convex_piece
from test_collision_scenes import box_points
from test_piece_batches import _pose, _round_hull

IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def _previous_pairs(rnd, VA, TA, EA, VB, TB, EB, found):
    """The pair found, then pairs of every kind: vertex-face both ways and
    edge-edge (the ones the edge walk keeps only because they are previous)."""
    yield found
    for _ in range(6):
        ea, eb = EA[rnd.integers(len(EA))], EB[rnd.integers(len(EB))]
        yield (1, int(min(ea)), int(max(ea)), 1, int(min(eb)), int(max(eb)))
    for f in range(len(TA)):                # B's corners resting on a face of A tie (within rounding)
        for j in range(len(VB)):
            yield (2, f, -1, 0, j, -1)
    for _ in range(3):
        yield (0, int(rnd.integers(len(VA))), -1, 2, int(rnd.integers(len(TB))), -1)


def test_the_distance_with_no_previous_pair_comes_with_every_previous_pair():
    """Boxes, a 40-vertex hull and a two-sided triangle, apart, touching and
    sunk into one another (crossed edges among them), and a box resting on a
    box (its corners tie, the previous pair kept at its own distance): for every previous pair
    pieces_closest_fresh returns pieces_closest's distance and features with
    that pair, and, bit for bit, its distance with no previous pair."""
    rnd = np.random.default_rng(41)
    bx = convex_piece(box_points(1.2, 0.9, 0.6))
    rh = convex_piece(_round_hull(40, 0.7, 3))
    shapes = [hull_piece(bx.vertices, bx.faces), hull_piece(rh.vertices, rh.faces),
              triangle_piece((0.0, 0.0, 0.0), (1.5, 0.2, 0.0), (0.0, -0.3, 1.2))]
    kept, differs, checked = 0, 0, 0
    for k in range(120):
        if k < 90:
            A = shapes[k % 3].transformed(_pose(rnd, 0.0))
            B = shapes[(k // 3) % 2].transformed(_pose(rnd, rnd.uniform(-0.8, 0.8)))
            B = B.transformed((IDENTITY, tuple(A.center[i] - B.center[i] * 0.5 for i in range(3))))
        else:                               # a box on a box, turned alike, 0-2 cm apart
            R, c = _pose(rnd, 0.0)
            u = (rnd.uniform(-0.3, 0.3), 0.9 + rnd.uniform(0.0, 0.02), rnd.uniform(-0.3, 0.3))
            A = shapes[0].transformed((R, c))
            B = shapes[0].transformed((R, tuple(c[i] + R[3 * i] * u[0] + R[3 * i + 1] * u[1] + R[3 * i + 2] * u[2]
                                                for i in range(3))))
        VA, TA, EA, twoA, plA, NA, _, _ = A.kernel_data()
        VB, TB, EB, twoB, plB, NB, MB, HB = B.kernel_data()
        args = (VA, TA, EA, twoA, plA, NA, A.center, VB, TB, EB, twoB, plB, NB, MB, HB, B.center)
        d_none, found = pieces_closest(*args, NO_FEATURE + NO_FEATURE)
        for prev in _previous_pairs(rnd, VA, TA, EA, VB, TB, EB, found):
            d, f, fresh = pieces_closest_fresh(*args, prev)
            assert (d, f) == pieces_closest(*args, prev)
            assert fresh == d_none
            kept += f == prev
            differs += d != d_none
            checked += 1
    assert checked > 1000 and kept > 90 and differs > 0
