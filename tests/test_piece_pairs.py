"""Pairs of two convex pieces measured and searched in one kernel pass
(mindist_batches.piece_pairs_k; issue 39, issue 41 item 1): the same bits as
each pair's own recalc and event search (ivp-contacts 3.3, 3.5), and after an
impact (4.9) every such pair of the pushed cores goes through the pass, not
through a search per pair from Python."""

import numpy as np

from ivp import Environment, rng
from ivp.collision import mindist_batches, mindist_search
from ivp.collision.mindist import PieceBatch
from ivp.collision.system import CollisionSystem
from ivp.snapshot import state_hash
from scenes.headless import run
from test_collision_scenes import box
from test_impact_budget import jam_scene
from test_piece_batches import states


def _searched(what) -> int:
    """How many pairs a piece_pairs_k pass searched."""
    return int(np.isin(what, (mindist_search.EVENT_NONE, mindist_search.EVENT_AT)).sum())


def _heap():
    """Six boxes, tilted and spinning, dropped onto a fixed box and onto one
    another, two of them started inside each other (an intrusion)."""
    rng.reset()
    env = Environment()
    box(env, (0.0, -0.5, 0.0), size=(12.0, 1.0, 12.0), fixed=True, name="ground")
    rnd = np.random.default_rng(7)
    bodies = []
    for i in range(6):
        q = rnd.normal(size=4)
        q = tuple(q / np.linalg.norm(q))
        at = (0.4 * (i % 2), 0.6 + 0.9 * i, 0.3 * (i % 3)) if i < 5 else (0.4, 0.6 + 0.9 * 3 - 0.3, 0.0)
        bodies.append(box(env, at, size=(1.0, 0.6, 0.8), name=f"b{i}", quaternion=q))
    for b in bodies:
        b.wake()
        b.core.rot_speed = tuple(rnd.uniform(-3.0, 3.0, 3))
    return env


def _pairs_run(monkeypatch, batched: bool):
    searched = []
    if batched:
        kernel = mindist_batches.piece_pairs_k

        def counting(*args):
            kernel(*args)
            searched.append(_searched(args[-3]))
        monkeypatch.setattr(mindist_batches, "piece_pairs_k", counting)
    else:
        def one_by_one(mds, t):
            for md in mds:
                md.recalc(t)
        monkeypatch.setattr(mindist_batches, "_recalc_piece_pairs", one_by_one)
    seen = states(_heap(), 150)
    monkeypatch.undo()
    return seen, sum(searched)


def test_hull_pairs_in_one_pass_run_the_same_bits_as_each_pairs_own_recalc_and_search(monkeypatch):
    batched, searches = _pairs_run(monkeypatch, True)
    single, _ = _pairs_run(monkeypatch, False)
    assert batched == single
    assert batched[0] != batched[-1]
    assert searches > 50                    # the pass made the event searches, not only the measurements


def _heap_after(psis: int):
    env = _heap()
    for _ in range(psis):
        env.simulate(env.delta_PSI_time)
    return env


def test_a_state_hash_reads_no_kept_search_answers():
    """The pass's kept update_search answers are a cache, not state (issue 39's
    snapshot gate): their rows without an event time or speed hold whatever
    memory held, so two worlds the same to the bit hash the same whatever
    those rows hold."""
    h = state_hash(_heap_after(30))
    env = _heap_after(30)
    kept = [md._batch.events for md in env.collision.mindists()
            if type(md._batch) is PieceBatch and md._batch.events is not None]
    assert kept                             # the pass left answers with the pairs
    for what, T, W, _, _ in kept:
        T[what != mindist_search.EVENT_AT] = np.nan
        W[what == mindist_search.EVENT_NOT_MADE] = np.nan
    assert state_hash(env) == h


def test_after_an_impact_the_pairs_of_two_hulls_are_searched_in_one_pass(tmp_path, monkeypatch):
    """4.9 in the heap of 16 ball pieces (the jam of tests/test_impact_budget):
    each re-search after an impact system is one kernel pass over its pairs of
    two pieces; none of them is searched on its own from Python."""
    inside = []
    per_pair = []
    passes = []
    update = CollisionSystem.update_events_of_cores
    search = mindist_search.event_search
    kernel = mindist_batches.piece_pairs_k

    def updating(system, cores):
        inside.append(0)
        update(system, cores)
        inside.pop()

    def searching(md, *args):
        if inside and not md.a.is_ball and md.ka[0] != "t" and md.kb[0] != "t":
            per_pair.append(md)
        return search(md, *args)

    def counting(*args):
        kernel(*args)
        if inside:
            passes.append(_searched(args[-3]))

    monkeypatch.setattr(CollisionSystem, "update_events_of_cores", updating)
    monkeypatch.setattr(mindist_search, "event_search", searching)
    monkeypatch.setattr(mindist_batches, "piece_pairs_k", counting)
    scene = jam_scene(tmp_path, "modules/ph34_falling_stone__fz18363.yaml")
    run(scene, seconds=0.02)
    assert per_pair == []
    assert len(passes) > 100 and sum(passes) > 1000     # hundreds of impact systems, thousands of searches
