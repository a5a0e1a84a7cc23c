"""What the scene loader catches at load, and loads that stay linear
(issue 41 items 2-4, issue 43 defects 8 and 9)."""

import pytest

import scenes
from scenes import SceneError, plan
from scenes.files import FileGraph
from scenes.model import EntityPlan
from scenes.names import Names
from scenes.source import PROBLEMS_SHOWN, Report, Where
from test_scene_limits import problems, write


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


def test_a_chain_of_3000_loads_parents_first(tmp_path):
    """Each entity 0.5 m above its parent, listed leaf first: planned parents
    first, and built with the world matrices each kept (bbglue.entity)."""
    n = 3000
    text = "version: 1\nentities:\n" + "".join(
        f"  - {{name: e{i}, position: [0, 0.5, 0]" + (f", parent: e{i + 1}" if i < n - 1 else "") + "}\n"
        for i in range(n))
    scene = scenes.load(write(tmp_path, text))
    assert [e.name for e in scene.plan.entities] == [f"e{i}" for i in reversed(range(n))]
    assert scene.entity("e0").get_position() == pytest.approx((0.0, 0.5 * n, 0.0), abs=1e-3)


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


# --- behaviour parameters: ranges, required ones, entities (41.2, 41.4) --------------------

PLAYER = """\
version: 1
includes:
  - {file: bundled:parts/player}
entities:
  - {name: floor, mesh: {box: [40, 1, 40]}, position: [0, -0.5, 0], groups: [Phys_Floors]}
  - {name: w, mesh: {box: [1, 1, 1]}, position: [0, 3, 0], groups: [G], physics: {mass: 1}}
  - {name: PR_Resetpoint_01, position: [0, 2.5, 0]}
behaviours:
"""


def test_a_tiny_point_period_is_refused_at_load_where_it_is_given(tmp_path):
    """repro r_level_point_period_tiny_hang: 1e-45 s per point lost made the
    level's clock loop until the watchdog; the range starts at 0.01 s."""
    line = "  - {type: ballance.level, params: {start_kind: wood, point_period: 1.0e-45}}\n"
    found = problems(write(tmp_path, PLAYER + line), load=True)
    assert found == [(9, line.index("1.0e-45") + 1, "behaviour 'ballance.level' parameter 'point_period': "
                                                  "expected a number >= 0.01 and <= 3600, got 1e-45")]


def test_the_range_holds_at_its_ends(tmp_path):
    line = "  - {type: ballance.level, params: {start_kind: wood, point_period: 0.01, end_wait: 3600}}\n"
    scene = scenes.load(write(tmp_path, PLAYER + line))
    level = next(b for b in scene.behaviours if b.name == "ballance.level")
    assert (level.point_period, level.end_wait) == (0.01, 3600.0)


def test_every_number_parameter_of_every_ballance_behaviour_has_a_range():
    from behaviors import registry
    from behaviors.params import Vec3, declared_params
    for name in registry.names():
        for p in declared_params(registry.lookup(name)).values():
            if p.kind in (float, int, Vec3):
                kind = p.value_kind.item if p.kind is Vec3 else p.value_kind
                assert kind.lo is not None and kind.hi is not None, (name, p.name)


def test_a_number_parameter_without_a_range_is_refused_where_it_is_declared():
    from behaviors.params import Param
    with pytest.raises(TypeError, match="a float parameter needs its range, bounds=\\(low, high\\)"):
        Param(float, 1.0)
    with pytest.raises(ValueError, match="the default: expected a number >= 0 and <= 1, got 2"):
        Param(float, 2.0, bounds=(0.0, 1.0))


def test_a_gate_without_its_entity_is_refused_at_load(tmp_path):
    """repro r_wake_gate_no_entity: its on_frame raised AttributeError every frame."""
    text = PLAYER + ("  - {type: ballance.wake_gate, params: {bodies: G, radius: 35}}\n"
                     "  - {type: ballance.level, params: {start_kind: wood}}\n")
    assert problems(write(tmp_path, text)) == [
        (9, 5, "behaviour 'ballance.wake_gate' needs an entity: give entity: "
               "(the gate: the ball's distance is measured to it)")]


def test_a_required_parameter_is_refused_at_load_when_missing(tmp_path):
    text = PLAYER + "  - {type: ballance.wake_gate, entity: w, params: {radius: 35}}\n"
    assert problems(write(tmp_path, text)) == [
        (9, 5, "behaviour 'ballance.wake_gate' needs the parameter 'bodies' (the bodies to wake)")]


def test_navigation_without_the_camera_frame_is_refused_at_load(tmp_path):
    """The navigation pushes in Cam_OrientRef's frame, which ballance.camera
    makes: without the camera, KeyError at the first frame with a ball."""
    text = ("version: 1\nentities:\n  - {name: floor, mesh: {box: [4, 1, 4]}}\n"
            "behaviours:\n  - {type: ballance.navigation}\n")
    assert problems(write(tmp_path, text)) == [
        (5, 5, "behaviour 'ballance.navigation' parameter 'orient_ref' (default 'Cam_OrientRef'): "
               "no entity 'Cam_OrientRef'")]


def test_the_entities_a_behaviour_makes_may_be_named_after_it(tmp_path):
    text = ("version: 1\nentities:\n  - {name: floor, mesh: {box: [4, 1, 4]}}\nbehaviours:\n"
            "  - {type: ballance.camera, params: {orient_ref: Frame}}\n"
            "  - {type: ballance.navigation, params: {orient_ref: Frame}}\n")
    scene = scenes.load(write(tmp_path, text))
    nav = scene.behaviours[1]
    assert nav.orient_ref is scene.entity("Frame")


# --- numbers YAML reads as text (43.8) -----------------------------------------------------

@pytest.mark.parametrize("text, hint", [
    ("1e3", "YAML reads 1e3 as text: write 1000 or 1.0e+3, with a dot and a signed exponent"),
    ("1.0e3", "YAML reads 1.0e3 as text: write 1000 or 1.0e+3, with a dot and a signed exponent"),
    ("2.5E-4", None),                       # a dot and a signed exponent: YAML's number
    ("1e-45", "YAML reads 1e-45 as text: write 1.0e-45, with a dot and a signed exponent"),
    ("'12'", "a text: write the number without quotes"),
])
def test_a_number_yaml_reads_as_text_says_how_to_write_it(tmp_path, text, hint):
    doc = f"version: 1\nentities:\n  - {{name: b, mesh: {{box: [1, 1, 1]}}, physics: {{mass: {text}}}}}\n"
    path = write(tmp_path, doc)
    if hint is None:
        assert plan(path).entities[0].physics["mass"] == 2.5e-4
        return
    (_, _, msg), = problems(path)
    assert msg.startswith("expected a number > 0 (kg), got ") and msg.endswith(f" ({hint})")


def test_the_hint_is_given_in_a_list_and_in_a_behaviour_parameter(tmp_path):
    text = ("version: 1\nentities:\n  - {name: f, position: [0, 1e3, 0]}\nbehaviours:\n"
            "  - {type: ballance.fan, entity: f, params: {size: [2, 1e3, 2]}}\n")
    hint = "(YAML reads 1e3 as text: write 1000 or 1.0e+3, with a dot and a signed exponent)"
    found = problems(write(tmp_path, text))
    assert [(line, msg.endswith(hint)) for line, _, msg in found] == [(3, True), (5, True)]
    assert found[1][2].startswith("behaviour 'ballance.fan' parameter 'size': item 1 of a list of 3")


# --- every independent problem in one pass (43.9) ----------------------------------------

def test_six_typos_give_six_problems(tmp_path):
    """Typos of keys, values, names and parameters in one file: each is listed,
    and an entity left out for its own problem is not reported again where
    it is named."""
    text = """\
version: 1
entities:
  - {name: floor, mesh: {box: [40, 1, 40]}, postion: [0, -0.5, 0]}
  - {name: crate, mesh: {box: [1, 1, 1]}, physics: {mass: 1e3}}
  - {name: lid, parent: crat}
joints:
  - {type: hinge, object: crate, limitations: yes}
behaviours:
  - {type: ballance.wake_gate, entity: crate, params: {bodies: Crates, radius: -3}}
  - {type: ballance.swing, entity: floor, params: {force: 1e3}}
"""
    lines = text.splitlines()

    def at(line, token):
        return line, lines[line - 1].index(token) + 1

    found = problems(write(tmp_path, text))
    assert sorted((line, col) for line, col, _ in found) == sorted([
        at(3, "postion"), at(4, "1e3"), at(5, "crat}"), at(9, "Crates"), at(9, "-3"), at(10, "1e3")])
    said = "\n".join(msg for _, _, msg in found)
    for words in ("unknown key 'postion'", "got '1e3' (YAML reads 1e3 as text", "parent: no entity 'crat'",
                  "'bodies': no group 'Crates'", "'radius': expected a number >= 0", "'force': expected a number"):
        assert words in said
