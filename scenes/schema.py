"""A small schema language for the located YAML of ``scenes.source``.

A schema checks a value and returns it normalized (numbers as floats, vectors
as tuples, records as ``Checked`` dicts that keep the place of every value), or
``BAD`` after adding a located problem to the report: "expected ..., got ...",
and for an unknown key or choice a "did you mean". Numbers, flags, texts and
choices are judged by the value kinds of ``bbglue.values``, the rules building
blocks and behaviour parameters follow.
"""

from __future__ import annotations

import math

from bbglue import values
from bbglue.values import did_you_mean, show

from .source import Mapping, Sequence, Where

BAD = object()          # returned by a check that failed (the problem is in the report)
_NUMBER = (int, float)


class Checked(dict):
    """A checked mapping: the given keys only, with the place of each value."""

    def __init__(self, where: Where, items=(), wheres=None):
        super().__init__(items)
        self.where = where
        self.wheres = dict(wheres or {})

    def at(self, key) -> Where:
        """The place of ``key``'s value (the mapping's place when not given)."""
        return self.wheres.get(key, self.where)


class Items(list):
    """A checked list with the place of each item."""

    def __init__(self, where: Where, items=(), wheres=()):
        super().__init__(items)
        self.where = where
        self.wheres = list(wheres)


class Schema:
    """Base: ``check(value, where, report)``; ``expected`` says what is accepted."""

    expected = "a value"
    kinds: tuple = (object,)        # the YAML kinds this schema takes (for Either)

    def check(self, value, where: Where, rep):
        raise NotImplementedError

    def fail(self, value, where: Where, rep, expected: str | None = None):
        hint = yaml_number_hint(value) if float in self.kinds else ""
        rep.add(where, f"expected {expected or self.expected}, got {show(value)}{hint}")
        return BAD


class OfKind(Schema):
    """A schema that is one value kind of ``bbglue.values`` (a behaviour
    parameter's too): its error is the problem."""

    def __init__(self, kind: values.Kind, what: str = ""):
        self.kind = kind
        self.what = what            # put in front of the problem ("behaviour 'x' parameter 'y'")
        self.expected = kind.expected

    def check(self, value, where, rep):
        try:
            return self.kind(value)
        except (TypeError, ValueError) as exc:
            hint = yaml_number_hint(value) if isinstance(exc, TypeError) else ""
            rep.add(where, f"{self.what}: {exc}{hint}" if self.what else f"{exc}{hint}")
            return BAD


def yaml_number_hint(value) -> str:
    """How to write a number that YAML read as text: YAML 1.1 reads 1e3,
    1.0e3 and 1e+3 as texts (an exponent needs a dot before it and a sign,
    1.0e+3), and a quoted number is a text. Looks in a list's items too; ""
    when there is no such text."""
    texts = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] \
        if isinstance(value, list) else []
    for text in texts:
        try:
            x = float(text)
        except ValueError:
            continue
        if not math.isfinite(x):
            continue
        if "e" not in text.lower():
            return " (a text: write the number without quotes)"
        mantissa, exponent = f"{x:.15e}".split("e")
        mantissa = mantissa.rstrip("0")
        written = f"{mantissa}{'0' if mantissa.endswith('.') else ''}e{int(exponent):+d}"
        if x == int(x) and abs(x) < 1e15:
            written = f"{int(x)} or {written}"
        return f" (YAML reads {text} as text: write {written}, with a dot and a signed exponent)"
    return ""


class Number(OfKind):
    """A finite number, optionally in a range and whole (``values.Real``);
    ``limit`` names the limits of ``scenes.limits`` the range comes from."""

    kinds = _NUMBER

    def __init__(self, lo=None, hi=None, *, lo_open=False, integer=False, unit="", limit=""):
        note = ", ".join(x for x in (unit, limit and f"limit {limit} in docs/scenes.md") if x)
        super().__init__(values.Real(lo, hi, lo_open=lo_open, integer=integer, unit=note))


class Flag(OfKind):
    kinds = (bool,)

    def __init__(self):
        super().__init__(values.Flag())


class Text(OfKind):
    kinds = (str,)

    def __init__(self, empty: bool = False):
        super().__init__(values.Text(empty))


class Exactly(Schema):
    """One given value (a version number)."""

    def __init__(self, value):
        self.value = value
        self.kinds = (type(value),)
        self.expected = repr(value)

    def check(self, value, where, rep):
        if type(value) is type(self.value) and value == self.value:
            return value
        return self.fail(value, where, rep)


class Choice(OfKind):
    """One of a fixed set of texts."""

    kinds = (str,)

    def __init__(self, *options: str):
        super().__init__(values.Choice(*options))


class Plain(Schema):
    """Any YAML value, passed on as it is (behaviour parameters check themselves)."""

    expected = "a value"

    def check(self, value, where, rep):
        return value


class Scalar(Schema):
    """A text, number or flag (attribute values)."""

    expected = "a text, number or true/false"
    kinds = (str, int, float, bool)

    def check(self, value, where, rep):
        if isinstance(value, (str, bool)):
            return value
        if values.is_number(value):         # kept as given (an int stays an int), if finite
            return BAD if Number().check(value, where, rep) is BAD else value
        return self.fail(value, where, rep)


class Vector(Schema):
    """A list of ``n`` items (numbers by default), returned as a tuple."""

    kinds = (Sequence,)

    def __init__(self, n: int, item: Schema | None = None, unit: str = ""):
        self.n = n
        self.item = item or Number()
        self.expected = (f"a list of {n} numbers" if item is None else f"a list of {n}, each {self.item.expected}") \
            + (f" ({unit})" if unit else "")

    def check(self, value, where, rep):
        if not isinstance(value, Sequence) or len(value) != self.n:
            return self.fail(value, where, rep)
        out = tuple(self.item.check(v, w, rep) for v, w in zip(value, value.item_where))
        return BAD if BAD in out else out


class ListOf(Schema):
    """A list whose items all follow ``item``; ``partial``: the good items
    when some are bad (a section of a file: the rest of it is still checked)."""

    kinds = (Sequence,)

    def __init__(self, item: Schema, min_len: int = 0, partial: bool = False):
        self.item = item
        self.min_len = min_len
        self.partial = partial
        self.expected = "a list" + (f" of at least {min_len}" if min_len else "")

    def check(self, value, where, rep):
        if not isinstance(value, Sequence) or len(value) < self.min_len:
            return self.fail(value, where, rep)
        out = Items(value.where)
        for v, w in zip(value, value.item_where):
            c = self.item.check(v, w, rep)
            if c is not BAD:
                out.append(c)
                out.wheres.append(w)
        return out if self.partial or len(out) == len(value) else BAD


class MapOf(Schema):
    """A mapping from free names to values that follow ``value``; ``partial``:
    the good entries when some are bad (the names of the others are
    ``Report.unread``)."""

    kinds = (Mapping,)

    def __init__(self, value: Schema, what: str = "entries", partial: bool = False):
        self.value = value
        self.partial = partial
        self.expected = f"a mapping of names to {what}"

    def check(self, value, where, rep):
        if not isinstance(value, Mapping):
            return self.fail(value, where, rep)
        out = Checked(value.where)
        for k, v in value.items():
            c = self.value.check(v, value.value_where[k], rep)
            if c is not BAD:
                out[k] = c
                out.wheres[k] = value.value_where[k]
            elif self.partial:
                rep.unread.add(k)
        return out if self.partial or len(out) == len(value) else BAD


class Field:
    """A key of a record: its schema, a doc line, and its default (None: none)."""

    __slots__ = ("schema", "doc", "default", "required")

    def __init__(self, schema: Schema, doc: str, default=None, required: bool = False):
        self.schema, self.doc, self.default, self.required = schema, doc, default, required


class Record(Schema):
    """A mapping with known keys. The result holds the given keys only (so that
    layers of settings can be merged), unless ``fill`` adds the defaults;
    ``partial``: the good keys when some are bad (a whole file: what could be
    read is still resolved, so that its other problems are listed too)."""

    kinds = (Mapping,)

    def __init__(self, what: str, fields: dict, fill: bool = False, convert=None, partial: bool = False):
        self.what = what
        self.fields = fields
        self.fill = fill
        self.convert = convert
        self.partial = partial
        self.expected = f"a mapping ({what})"

    def defaults(self) -> dict:
        return {k: f.default for k, f in self.fields.items() if f.default is not None}

    def check(self, value, where, rep):
        if not isinstance(value, Mapping):
            return self.fail(value, where, rep)
        out = Checked(value.where)
        ok = True
        for k, v in value.items():
            field = self.fields.get(k)
            if field is None:
                rep.add(value.key_where[k], f"unknown key {k!r} in {self.what}{did_you_mean(k, self.fields)}; "
                                           f"known keys: {', '.join(self.fields)}")
                ok = False
                continue
            c = field.schema.check(v, value.value_where[k], rep)
            if c is BAD:
                ok = False
            else:
                out[k] = c
                out.wheres[k] = value.value_where[k]
        for k, field in self.fields.items():
            if field.required and k not in value:
                rep.add(value.where, f"{self.what} needs the key {k!r} ({field.doc})")
                ok = False
        if not (ok or self.partial):
            return BAD
        if self.fill:
            for k, d in self.defaults().items():
                out.setdefault(k, d)
        return self.convert(out, rep) if self.convert else out


class _Variants(Schema):
    """A mapping checked by one of several schemas, chosen by a key."""

    kinds = (Mapping,)
    form = ""

    def __init__(self, what: str, variants: dict):
        self.what = what
        self.variants = variants
        self.expected = f"a {what}: a mapping with {self.form}" + ", ".join(variants)


class Tagged(_Variants):
    """A mapping with exactly one key naming the variant: ``{box: [1, 2, 3]}``.
    Returns (tag, checked value, place of the value)."""

    form = "one of the keys "

    def check(self, value, where, rep):
        if not isinstance(value, Mapping) or len(value) != 1:
            return self.fail(value, where, rep)
        (tag, v), = value.items()
        schema = self.variants.get(tag)
        if schema is None:
            rep.add(value.key_where[tag], f"unknown {self.what} {tag!r}{did_you_mean(tag, self.variants)}; "
                                          f"known: {', '.join(self.variants)}")
            return BAD
        vw = value.value_where[tag]
        c = schema.check(v, vw, rep)
        return BAD if c is BAD else (tag, c, vw)


class Kinded(_Variants):
    """A mapping whose ``type`` key names the record that checks it."""

    form = "type: one of "

    def check(self, value, where, rep):
        if not isinstance(value, Mapping):
            return self.fail(value, where, rep)
        if "type" not in value:
            rep.add(value.where, f"a {self.what} needs the key 'type' (one of {', '.join(self.variants)})")
            return BAD
        kind = value["type"]
        if not isinstance(kind, str) or kind not in self.variants:
            return Choice(*self.variants).check(kind, value.value_where["type"], rep)
        return self.variants[kind].check(value, where, rep)


class Either(Schema):
    """The first alternative whose kind matches the value."""

    def __init__(self, *alternatives: Schema, expected: str | None = None):
        self.alternatives = alternatives
        self.kinds = tuple(k for a in alternatives for k in a.kinds)
        self.expected = expected or " or ".join(a.expected for a in alternatives)

    def check(self, value, where, rep):
        for a in self.alternatives:
            if isinstance(value, a.kinds) and not (isinstance(value, bool) and bool not in a.kinds):
                return a.check(value, where, rep)
        return self.fail(value, where, rep)
