"""Value kinds: the one set of rules by which building-block pins
(``bbglue.blocks``), behaviour parameters (``behaviors.params``) and scene files
(``scenes.schema``) judge a value, and the one "did you mean" they all give.

A kind is called with a value and returns it normalized, or raises:

- ``TypeError`` when the value is of the wrong kind (a text for a number, a
  flag for a number, a list of 2 for a vector of 3);
- ``ValueError`` when it is of the right kind but not allowed: NaN or
  infinite, infinite once rounded to f32 (a pin that stores f32, spec 0.2),
  outside the range, not whole, not one of the choices.

The message is "expected ..., got ..." and the caller puts its place in front
(a pin, a parameter, file:line:column).
"""

from __future__ import annotations

import difflib
import math

from ivp.fp import f32

SUGGESTION_WORD_MAX = 100          # longer words get no suggestion (difflib is quadratic in the length)
SUGGESTION_CHOICES_MAX = 10_000    # only this many choices are compared


def suggestions(word, choices, n: int = 1) -> list:
    """The choices closest to ``word``, best first: one that differs only in
    case, else up to ``n`` close ones (difflib's ratio >= 0.6). Only a text
    or number gets suggestions (a list or mapping is not spelled wrong)."""
    if not isinstance(word, (str, int, float)):
        return []
    text = str(word)
    if len(text) > SUGGESTION_WORD_MAX:
        return []
    pool = []
    for c in choices:
        pool.append(str(c))
        if len(pool) >= SUGGESTION_CHOICES_MAX:
            break
    same = [c for c in pool if c.lower() == text.lower() and c != text]
    return same[:1] or difflib.get_close_matches(text, pool, n=n)


def did_you_mean(word, choices) -> str:
    """" (did you mean 'x'?)" for the closest choice, else "": the one
    suggestion every layer gives (an unknown pin, object, behaviour, key, name)."""
    close = suggestions(word, choices)
    return f" (did you mean {close[0]!r}?)" if close else ""


def checked(kind, value, where: str):
    """``kind(value)``; a refusal keeps its type and gets ``where`` in front
    of its message ("entity 'ball': set_position: expected ...")."""
    try:
        return kind(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where}: {exc}") from None


def show(value) -> str:
    """A value as a short text for messages."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if value is None:
        return "nothing"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Kind:
    """Base: ``expected`` says what is accepted; calling checks a value."""

    expected = "a value"

    def __call__(self, value):
        raise NotImplementedError

    def wrong(self, value, why: str = "", error=TypeError):
        """The error for ``value``: "expected <expected>, got <value>[ (why)]"."""
        return error(f"expected {self.expected}, got {show(value)}" + (f" ({why})" if why else ""))


def is_number(value) -> bool:
    """An int or float, not a flag (True is not 1 here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Real(Kind):
    """A finite number, optionally in a range and whole; ``single``: also
    finite once rounded to f32 (and returned rounded)."""

    def __init__(self, lo=None, hi=None, *, lo_open=False, integer=False, single=False, unit="",
                 expected: str | None = None):
        self.lo, self.hi, self.lo_open, self.integer, self.single = lo, hi, lo_open, integer, single
        parts = ["a whole number" if integer else "a number"]
        if lo is not None:
            parts.append(f"{'>' if lo_open else '>='} {lo:g}")
        if hi is not None:
            parts.append(f"{'and ' if lo is not None else ''}<= {hi:g}")
        self.expected = expected or " ".join(parts) + (f" ({unit})" if unit else "")

    def __call__(self, value):
        if not is_number(value):
            raise self.wrong(value)
        if not math.isfinite(value):
            raise self.wrong(value, "NaN and infinity are not allowed", ValueError)
        if self.integer and value != int(value):
            raise self.wrong(value, "not whole", ValueError)
        if self.lo is not None and (value <= self.lo if self.lo_open else value < self.lo):
            raise self.wrong(value, error=ValueError)
        if self.hi is not None and value > self.hi:
            raise self.wrong(value, error=ValueError)
        if self.integer:
            return int(value)
        if self.single:
            out = f32(float(value))
            if not math.isfinite(out):
                raise self.wrong(value, "beyond the f32 range, about 3.4e38", ValueError)
            return out
        return float(value)


class Flag(Kind):
    """true or false; ``ints``: also the ints 0 and 1 (CK's TRUE and FALSE)."""

    def __init__(self, ints: bool = False, expected: str = "true or false"):
        self.ints = ints
        self.expected = expected

    def __call__(self, value):
        if isinstance(value, bool) or (self.ints and type(value) is int and value in (0, 1)):
            return bool(value)
        raise self.wrong(value)


class Text(Kind):
    """A text (non-empty unless ``empty``)."""

    def __init__(self, empty: bool = True, expected: str | None = None):
        self.empty = empty
        self.expected = expected or ("a text" if empty else "a non-empty text")

    def __call__(self, value):
        if not isinstance(value, str):
            raise self.wrong(value)
        if not (value or self.empty):
            raise self.wrong(value, error=ValueError)
        return value


class Vector(Kind):
    """A sized sequence (list, tuple, array) of ``n`` items of kind ``item``
    (numbers by default), returned as a tuple; a text or mapping is not a vector."""

    def __init__(self, n: int, item: Kind | None = None, unit: str = "", expected: str | None = None):
        self.n = n
        self.item = item or Real()
        self.expected = expected or (
            (f"a list of {n} numbers" if item is None else f"a list of {n}, each {self.item.expected}")
            + (f" ({unit})" if unit else ""))

    def __call__(self, value):
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__") \
                or not hasattr(value, "__len__") or len(value) != self.n:
            raise self.wrong(value)
        out = []
        for i, v in enumerate(value):
            try:
                out.append(self.item(v))
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"item {i} of {show(value)}: {exc}") from None
        return tuple(out)


class Choice(Kind):
    """One of a fixed set of values; a miss is a ValueError with a did-you-mean."""

    def __init__(self, *options):
        self.options = options
        self.expected = "one of " + ", ".join(repr(o) for o in options)

    def __call__(self, value):
        if value in self.options:
            return value
        raise ValueError(f"expected {self.expected}, got {show(value)}{did_you_mean(value, self.options)}")


class Instance(Kind):
    """An object of class ``cls``, or None when ``none``."""

    def __init__(self, cls, expected: str, none: bool = True):
        self.cls, self.none, self.expected = cls, none, expected

    def __call__(self, value):
        if isinstance(value, self.cls) or (value is None and self.none):
            return value
        raise TypeError(f"expected {self.expected}, got {type(value).__name__} {show(value)}")
