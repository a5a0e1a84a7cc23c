"""Easing (ivp-contacts 5.7): in a core pair's contact points with parallel
normals, the spring components along the line joining two points are pulled
towards their mean, by the factor 1 / n of the pair's n points; every 5th PSI
of the pair, the first in its first multi-contact PSI."""

import numpy as np
import pytest

from ivp import Environment
from ivp.collision import Material
from ivp.collision.constants import EASE_EVERY_NTH_PSI
from ivp.collision.contact_point import ContactPoint
from ivp.collision.friction_passes import ease_k
from ivp.state.contacts import ContactTable
from test_collision_scenes import box, floor, run

UP = (0.0, 1.0, 0.0)
T0 = (1.0, 0.0, 0.0)
T1 = (0.0, 0.0, -1.0)               # n x t0


def point(p, s, core0="box", n=UP, t0=T0, t1=T1, table=None):
    """A view onto a new row of ``table`` (a table of its own by default)
    holding what ease reads: normal, point, the spring (s_0, s_1) in the
    tangents t0, t1; its side-0 core ``core0``."""
    table = ContactTable() if table is None else table
    cp = ContactPoint.__new__(ContactPoint)
    cp._contacts = table
    cp.row = table.add(cp)
    cp._gen = table.gen[cp.row]
    cp.core0 = core0
    cp.n, cp.p, cp.span_s, cp.t0, cp.t1 = n, p, s, t0, t1
    return cp


def pair_of(*cps):
    return list(cps)


def ease(*pairs) -> None:
    """ease_k of the core pairs (lists of points, each pair due), their
    points' rows of one table; side-0 cores told apart by name."""
    cps = [cp for pair in pairs for cp in pair]
    table = cps[0]._contacts
    keys = {}
    K0 = np.array([keys.setdefault(cp.core0, len(keys)) for cp in cps], dtype=np.int64)
    starts = np.cumsum([0] + [len(pair) for pair in pairs]).astype(np.int64)
    ease_k(table.rows, table.slots(cps), starts, K0, np.ones(len(pairs), dtype=np.bool_))


def test_opposite_springs_on_their_joining_line_move_halfway_to_the_mean():
    # two points 1 m apart along x, springs 0.004 and -0.002 along x: mean
    # 0.001; with n = 2 each moves 1/2 of the way, the z parts stay
    a = point((0.0, 0.0, 0.0), (0.004, 0.001))
    b = point((1.0, 0.0, 0.0), (-0.002, 0.003), table=a._contacts)
    ease(pair_of(a, b))
    assert a.span_s == pytest.approx((0.0025, 0.001), abs=1e-9)
    assert b.span_s == pytest.approx((-0.0005, 0.003), abs=1e-9)


def test_points_whose_normals_are_not_parallel_are_not_eased():
    a = point((0.0, 0.0, 0.0), (0.004, 0.0))
    b = point((1.0, 0.0, 0.0), (-0.004, 0.0), n=(0.0, 0.0, 1.0), table=a._contacts)
    ease(pair_of(a, b))
    assert a.span_s == pytest.approx((0.004, 0.0), abs=1e-9)           # only the f32 store
    assert b.span_s == pytest.approx((-0.004, 0.0), abs=1e-9)


def test_antiparallel_normals_of_points_from_the_other_side_use_the_sign():
    # the second point's side 0 is the other core: its spring is seen negated
    # (sgn = -1): springs 0.004 and +0.004 are then opposite and eased to 0
    a = point((0.0, 0.0, 0.0), (0.004, 0.0))
    b = point((1.0, 0.0, 0.0), (0.004, 0.0), core0="floor", n=(0.0, -1.0, 0.0), table=a._contacts)
    ease(pair_of(a, b))
    assert a.span_s == pytest.approx((0.002, 0.0), abs=1e-9)
    assert b.span_s == pytest.approx((0.002, 0.0), abs=1e-9)


def test_a_resting_box_pair_is_eased_in_its_first_multi_contact_psi_then_every_5th():
    env = Environment(gravity=(0.0, -9.81, 0.0))
    floor(env, material=Material(0.7, 0.0))
    b = box(env, (3.0, 0.52, 3.0), material=Material(0.5, 0.0))     # inside one floor triangle
    b.wake()
    eased = []
    import ivp.collision.friction as friction
    real = friction.ease_system

    def spy(fs):
        real(fs)                        # a pair eased now starts its count-down again
        if any(len(pair.contacts) > 1 and pair.next_ease_nr_psi == EASE_EVERY_NTH_PSI for pair in fs.pairs.values()):
            eased.append(env.psi_count)

    friction.ease_system = spy
    try:
        run(env, 0.5)
    finally:
        friction.ease_system = real
    assert len(eased) >= 3
    assert all(q - p == 5 for p, q in zip(eased, eased[1:]))


def test_the_pairs_of_one_point_are_eased_at_once_as_ease_leaves_a_point_alone():
    """A pair of one point has no partner: ease only adds the zero change's
    dot products and rounds to f32, so a -0.0 span stays -0.0 only when every
    product is -0.0 (a tangent of negative components), and a span that is no
    f32 value is rounded; ease_k does that for such pairs in their rows."""
    third = 1.0 / 3.0
    cases = [((-0.0, 0.25), (-0.8, -0.0, -0.6), (0.6, 0.0, -0.8), (-0.0, 0.25)),
             ((-0.0, third), (1.0, 0.0, 0.0), (0.0, 0.0, -1.0), (0.0, 0.3333333432674408)),
             ((0.004, -0.002), (0.0, -1.0, 0.0), (-1.0, -0.0, -0.0), (0.004000000189989805, -0.0020000000949949026))]
    table = ContactTable()
    cps = [point((0.0, 0.0, 0.0), span, t0=t0, t1=t1, table=table) for span, t0, t1, _ in cases]
    ease(*[pair_of(cp) for cp in cps])
    for cp, (span, t0, t1, want) in zip(cps, cases):
        plain = point((0.0, 0.0, 0.0), span, t0=t0, t1=t1)
        ease(pair_of(plain))
        assert repr(cp.span_s) == repr(want) == repr(plain.span_s)
