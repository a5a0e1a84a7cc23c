"""What the scene loader catches at load, and loads that stay linear
(issue 41 items 2-4, issue 43 defects 8 and 9)."""

import pytest

import scenes
from scenes import SceneError, plan
from scenes.files import FileGraph
from scenes.model import EntityPlan
from scenes.names import Names
from scenes.source import PROBLEMS_SHOWN, Report, Where


def write(tmp_path, text, name="s.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def problems(path, load=False):
    with pytest.raises(SceneError) as e:
        scenes.load(path) if load else plan(path)
    return [(w.line, w.column, m) for w, m in e.value.problems]


# --- linear loads (41.3) ---------------------------------------------------------------

class CountingDict(dict):
    """A dict that counts its lookups."""

    def __init__(self, *a):
        super().__init__(*a)
        self.lookups = 0

    def __getitem__(self, k):
        self.lookups += 1
        return super().__getitem__(k)

    def __contains__(self, k):
        self.lookups += 1
        return super().__contains__(k)


def _chain_names(n, loop_at=None):
    """Names for a chain e0 <- e1 <- ... (each the parent of the next); with
    ``loop_at``, e0's parent is e{loop_at} (a loop of loop_at + 1 entities)."""
    rep = Report()
    names = Names(FileGraph(None, rep), rep)
    w = Where("s.yaml", 1, 1)
    ents = [EntityPlan(f"e{i}", w._replace(line=i + 1), parent=f"e{i - 1}" if i else None) for i in range(n)]
    if loop_at is not None:
        ents[0].parent = f"e{loop_at}"
    names.define(ents)
    names.names = CountingDict(names.names)
    return names, ents, rep


@pytest.mark.parametrize("n", [300, 3000])
def test_the_parent_loop_check_walks_each_entity_once(n):
    """A chain of n parented entities: the walk from every entity to its root
    would look up n^2 / 2 parents; each entity is walked over once."""
    names, ents, rep = _chain_names(n)
    names.no_parent_cycles(reversed(ents))          # the deepest first: the worst order for a walk per entity
    assert rep.problems == []
    assert names.names.lookups <= 3 * n


def test_a_parent_loop_is_reported_once_and_cut():
    names, ents, rep = _chain_names(6, loop_at=3)
    names.no_parent_cycles(ents)
    assert len(rep.problems) == 1
    where, msg = rep.problems[0]
    assert msg == "entity 'e0': the parents form a loop (e0 -> e3 -> e2 -> e1 -> e0)"
    assert where.line == 1 and ents[0].parent is None


def test_a_chain_of_3000_plans_parents_first(tmp_path):
    n = 3000
    text = "version: 1\nentities:\n" + "".join(
        f"  - {{name: e{i}" + (f", parent: e{i + 1}" if i < n - 1 else "") + "}\n" for i in range(n))
    p = plan(write(tmp_path, text))
    order = [e.name for e in p.entities]
    assert order == [f"e{i}" for i in reversed(range(n))]


class CountingWhere(Where):
    """A place whose comparisons are counted (a list scan compares each)."""

    compared = 0

    def __eq__(self, other):
        CountingWhere.compared += 1
        return tuple.__eq__(self, other)

    __hash__ = Where.__hash__


def test_the_report_drops_repeats_without_scanning_its_list():
    rep = Report()
    n = 5000
    CountingWhere.compared = 0
    for i in range(n):
        rep.add(CountingWhere("s.yaml", i + 1, 3), "unknown key 'colr'")
    rep.add(CountingWhere("s.yaml", 7, 3), "unknown key 'colr'")        # a repeat: kept once
    assert len(rep.problems) == n
    assert CountingWhere.compared <= 2 * n


def test_20000_unknown_keys_are_all_reported_and_the_message_capped(tmp_path):
    n = 20_000
    text = "version: 1\nentities:\n" + "".join(f"  - {{name: e{i}, colr: '#ffffff'}}\n" for i in range(n))
    with pytest.raises(SceneError) as e:
        plan(write(tmp_path, text))
    assert len(e.value.problems) == n
    assert [w.line for w, _ in e.value.problems] == list(range(3, n + 3))
    lines = str(e.value).splitlines()
    assert len(lines) == PROBLEMS_SHOWN + 1
    assert lines[-1] == f"... and {n - PROBLEMS_SHOWN} more problems (the first {PROBLEMS_SHOWN} are listed)"
