"""Behaviour parameters: declared on the class, checked when a scene names them.

A behaviour declares its parameters as class attributes::

    class Swing(Behavior):
        force = Param(float, 1.1, "impulse per PSI (glue-and-content 3, module 08)", bounds=(-1e9, 1e9))
        deck = Param(Entity, doc="the swinging deck")

Kinds: ``float``, ``int``, ``bool``, ``str``, ``Vec3`` (three numbers),
``Entity`` and ``Group`` (given by name, resolved in the context). A parameter
without a default is required. A number or Vec3 parameter has a range,
``bounds=(low, high)`` (each of a Vec3's numbers), as block pins have their
limits: a value outside is refused where it is given (a scene's file:line:
column) and no hook meets it. ``optional=True`` on an Entity or Group whose
default name is absent from the context gives None instead of an error (an
explicitly given name must always exist).
"""

from __future__ import annotations

from bbglue import values

REQUIRED = object()


class Vec3:
    """Parameter kind: three finite numbers, stored as a tuple of floats."""


class Entity:
    """Parameter kind: a 3D entity of the context, given by name."""


class Group:
    """Parameter kind: a group of the context, given by name."""


_KIND_NAMES = {float: "a number", int: "an integer", bool: "true or false", str: "a string",
               Vec3: "three numbers", Entity: "an entity name", Group: "a group name"}
_VALUE_KINDS = {bool: values.Flag(), str: values.Text(expected=_KIND_NAMES[str])}
_RANGED = (float, int, Vec3)


def _ranged_kind(kind, bounds) -> values.Kind:
    """The value kind of a number or Vec3 parameter within ``bounds``."""
    if not (isinstance(bounds, tuple) and len(bounds) == 2 and all(values.is_number(b) for b in bounds)
            and bounds[0] <= bounds[1]):
        raise TypeError(f"Param: a {kind.__name__} parameter needs bounds=(low, high), two numbers "
                        f"low <= high, got {bounds!r}")
    number = values.Real(*bounds, integer=kind is int)
    if kind is not Vec3:
        return number
    return values.Vector(3, number, expected=f"three numbers, each {number.expected.removeprefix('a number ')}")


class Param:
    """A declared parameter: kind, default (REQUIRED when absent), doc,
    choices, and for numbers and Vec3 the bounds of its range."""

    def __init__(self, kind, default=REQUIRED, doc: str = "", choices=None, optional: bool = False, bounds=None):
        if kind not in _KIND_NAMES:
            raise TypeError(f"Param: unknown kind {kind!r} (use one of float, int, bool, str, Vec3, Entity, Group)")
        if bounds is not None and kind not in _RANGED:
            raise TypeError(f"Param: bounds go with the kinds float, int and Vec3, not {kind.__name__}")
        if bounds is None and kind in _RANGED:
            raise TypeError(f"Param: a {kind.__name__} parameter needs its range, bounds=(low, high)")
        if choices is not None and kind is not str:
            raise TypeError(f"Param: choices go with the kind str, not {kind.__name__}")
        self.kind = kind
        self.choices = tuple(choices) if choices is not None else None
        self.value_kind = (_ranged_kind(kind, bounds) if bounds is not None
                           else values.Choice(*self.choices) if choices is not None else _VALUE_KINDS.get(kind))
        self.default = default
        self.doc = doc
        self.optional = optional
        self.name = None
        if self.value_kind is not None and default not in (REQUIRED, None):
            values.checked(self.value_kind, default, "Param: the default")

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def describe(self) -> str:
        d = "required" if self.required else f"default {self.default!r}"
        what = self.value_kind.expected if self.kind in _RANGED else _KIND_NAMES[self.kind]
        return f"{self.name}: {what} ({d})"

    def coerce(self, ctx, value, explicit: bool):
        """The parameter's value for ``value``: by its value kind of
        ``bbglue.values`` (``value_kind``: its range or choices), or an Entity or
        Group resolved in ``ctx``; TypeError (wrong kind) or ValueError (NaN,
        infinite, out of range, not a choice) saying what was expected."""
        if value is None and (self.optional or not explicit):
            return None
        kind = self.value_kind
        return kind(value) if kind is not None else self._resolve(ctx, value, explicit)

    def _resolve(self, ctx, value, explicit: bool):
        from bbglue.entity import CK3dEntity, CKGroup
        cls = CK3dEntity if self.kind is Entity else CKGroup
        if isinstance(value, cls):
            return value
        if not isinstance(value, str):
            raise TypeError(f"expected {_KIND_NAMES[self.kind]}, got {values.show(value)}")
        if value not in ctx:
            if self.optional and not explicit:
                return None
            try:
                ctx.get(value)
            except KeyError as e:
                raise ValueError(e.args[0]) from None
        obj = ctx.get(value)
        if not isinstance(obj, cls):
            raise TypeError(f"{value!r} is a {type(obj).__name__}, expected {_KIND_NAMES[self.kind]}")
        return obj


def declared_params(cls) -> dict:
    """name -> Param for a behaviour class, base classes first."""
    out = {}
    for klass in reversed(cls.__mro__):
        for name, v in vars(klass).items():
            if isinstance(v, Param):
                out[name] = v
    return out
