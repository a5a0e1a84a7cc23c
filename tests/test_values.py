"""bbglue.values: one set of value rules for block pins, behaviour parameters and
scene files, and one did-you-mean (issue 14, item 3)."""

import math

import numpy as np
import pytest

from bbglue import values
from bbglue.blocks.base import BOOL, FLOAT, INT, VECTOR, _coerce
from behaviors.params import Param, Vec3
from scenes import SceneError, plan

F32_MAX = 3.4028234663852886e38          # the largest finite IEEE single: (2 - 2**-23) * 2**127


def scene_problem(tmp_path, value: str) -> str:
    """The one problem of a scene whose entity's physics mass is ``value``."""
    line = f"  - {{name: b, mesh: {{box: [1, 1, 1]}}, physics: {{mass: {value}}}}}"
    p = tmp_path / "s.yaml"
    p.write_text(f"version: 1\nentities:\n{line}\n")
    with pytest.raises(SceneError) as e:
        plan(str(p))
    (where, msg), = e.value.problems
    assert (where.line, where.column) == (3, line.index(value) + 1)
    return msg


# --- one error class for one fault, in all three users --------------------------------

@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_is_a_value_error_everywhere(bad):
    with pytest.raises(ValueError, match="NaN and infinity are not allowed"):
        values.Real()(bad)
    with pytest.raises(ValueError, match="pin 'Mass': expected a number.*NaN and infinity are not allowed"):
        _coerce(FLOAT, bad, "pin 'Mass'")
    with pytest.raises(ValueError, match="NaN and infinity are not allowed"):
        Param(float, bounds=(-1e3, 1e3)).coerce(None, bad, True)


def test_the_scene_file_gets_the_same_words_for_a_non_finite_number(tmp_path):
    assert scene_problem(tmp_path, ".nan").endswith("(NaN and infinity are not allowed)")
    assert "expected a number > 0 (kg), got inf" in scene_problem(tmp_path, ".inf")


@pytest.mark.parametrize("bad", [True, "3", [1.0], None])
def test_a_value_of_the_wrong_kind_is_a_type_error_everywhere(bad):
    with pytest.raises(TypeError, match="expected a number"):
        values.Real()(bad)
    with pytest.raises(TypeError, match="expected a number"):
        _coerce(FLOAT, bad, "pin")
    if bad is not None:                     # None is a parameter's "not given"
        with pytest.raises(TypeError, match="expected a number"):
            Param(float, bounds=(-1e3, 1e3)).coerce(None, bad, True)


def test_a_flag_is_not_a_number_in_a_scene(tmp_path):
    assert scene_problem(tmp_path, "true") == "expected a number > 0 (kg), got True"


# --- f32 pins --------------------------------------------------------------------------

def test_a_pin_value_beyond_f32_is_refused_after_rounding():
    # 3.5e38 and 1e300 are finite in f64 but round to infinity as f32 (spec 0.2)
    for bad in (3.5e38, -1e300):
        with pytest.raises(ValueError, match="beyond the f32 range"):
            _coerce(FLOAT, bad, "pin")
        with pytest.raises(ValueError, match="item 1 .*beyond the f32 range"):
            _coerce(VECTOR, (0.0, bad, 0.0), "pin")
    assert _coerce(FLOAT, F32_MAX, "pin") == F32_MAX
    assert _coerce(FLOAT, 0.1, "pin") == 0.10000000149011612        # 0.1 rounded to f32


# --- integers, flags, vectors, choices ---------------------------------------------------

def test_whole_numbers():
    kind = values.Real(integer=True)
    assert kind(2.0) == 2 and type(kind(2.0)) is int
    with pytest.raises(ValueError, match="not whole"):
        kind(2.5)
    assert _coerce(INT, 4, "pin") == 4
    assert Param(int, bounds=(0, 9)).coerce(None, 3.0, True) == 3


def test_flags():
    assert values.Flag()(False) is False
    with pytest.raises(TypeError):
        values.Flag()(1)                    # a scene or parameter flag is true or false
    assert _coerce(BOOL, 1, "pin") is True  # CK's TRUE is the int 1
    with pytest.raises(TypeError, match="expected TRUE/FALSE"):
        _coerce(BOOL, 2, "pin")


def test_vectors():
    kind = values.Vector(3)
    assert kind(np.array([1, 2, 3.5])) == (1.0, 2.0, 3.5)
    for bad in ("abc", {"x": 1}, (1, 2), 5):
        with pytest.raises(TypeError, match="expected a list of 3 numbers"):
            kind(bad)
    with pytest.raises(TypeError):
        kind(range(10 ** 12))               # refused by its length, never listed
    assert Param(Vec3, bounds=(-1.0, 2.0)).coerce(None, [0, 1, 2], True) == (0.0, 1.0, 2.0)


def test_a_choice_outside_the_set_is_a_value_error_with_a_suggestion():
    with pytest.raises(ValueError, match=r"expected one of 'on_start', 'on_frame', got 'on_fram' "
                                         r"\(did you mean 'on_frame'\?\)"):
        values.Choice("on_start", "on_frame")("on_fram")
    with pytest.raises(ValueError, match="did you mean 'on_frame'"):
        Param(str, "on_start", choices=("on_start", "on_frame")).coerce(None, "on_frme", True)


# --- did you mean ------------------------------------------------------------------------

def test_did_you_mean_gives_the_closest_choice():
    assert values.did_you_mean("frction", ["fixed", "friction", "mass"]) == " (did you mean 'friction'?)"
    assert values.did_you_mean("zzz", ["friction"]) == ""


def test_a_case_only_difference_is_the_suggestion():
    # "up" is closer by ratio to "upx" (0.8) than to "Up" (0.5), but differs from "Up" only in case
    assert values.did_you_mean("up", ["upx", "Up"]) == " (did you mean 'Up'?)"


def test_no_suggestion_for_a_list_a_mapping_or_a_long_word():
    assert values.suggestions(["friction"], ["friction"]) == []
    assert values.suggestions({"a": 1}, ["a"]) == []
    assert values.suggestions("f" * (values.SUGGESTION_WORD_MAX + 1), ["f" * values.SUGGESTION_WORD_MAX]) == []


def test_only_so_many_choices_are_compared():
    # the word matches only the choice after the first SUGGESTION_CHOICES_MAX
    choices = (f"x{i}" for i in range(values.SUGGESTION_CHOICES_MAX + 10))
    later = f"x{values.SUGGESTION_CHOICES_MAX + 5}"
    assert later not in values.suggestions(later, choices, n=1)


def test_show_keeps_messages_short():
    assert values.show("a" * 100) == repr("a" * 100)[:37] + "..."
    assert values.show([[1]] * 1000) == "a list of 1000"
    assert values.show({"k": 1}) == "a mapping"
