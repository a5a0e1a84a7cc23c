"""Behaviour parameters: declared on the class, checked when a scene names them.

A behaviour declares its parameters as class attributes::

    class Swing(Behavior):
        force = Param(float, 1.1, "impulse per PSI (glue-and-content 3, module 08)")
        deck = Param(Entity, doc="the swinging deck")

Kinds: ``float``, ``int``, ``bool``, ``str``, ``Vec3`` (three numbers),
``Entity`` and ``Group`` (given by name, resolved in the context). A parameter
without a default is required. ``optional=True`` on an Entity or Group whose
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
_VALUE_KINDS = {float: values.Real(), int: values.Real(integer=True, expected=_KIND_NAMES[int]),
                bool: values.Flag(), str: values.Text(expected=_KIND_NAMES[str]),
                Vec3: values.Vector(3, expected=_KIND_NAMES[Vec3])}


class Param:
    """A declared parameter: kind, default (REQUIRED when absent), doc, choices."""

    def __init__(self, kind, default=REQUIRED, doc: str = "", choices=None, optional: bool = False):
        if kind not in _KIND_NAMES:
            raise TypeError(f"Param: unknown kind {kind!r} (use one of float, int, bool, str, Vec3, Entity, Group)")
        self.kind = kind
        self.default = default
        self.doc = doc
        self.choices = tuple(choices) if choices is not None else None
        self._choice = values.Choice(*self.choices) if choices is not None else None
        self.optional = optional
        self.name = None

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def describe(self) -> str:
        d = "required" if self.required else f"default {self.default!r}"
        return f"{self.name}: {_KIND_NAMES[self.kind]} ({d})"

    def coerce(self, ctx, value, explicit: bool):
        """The parameter's value for ``value`` by the value kinds of
        ``bbglue.values``: TypeError (wrong kind) or ValueError (NaN, infinite,
        not a choice) saying what was expected."""
        if value is None and (self.optional or not explicit):
            return None
        kind = _VALUE_KINDS.get(self.kind)
        out = kind(value) if kind is not None else self._resolve(ctx, value, explicit)
        return out if self._choice is None else self._choice(out)

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
