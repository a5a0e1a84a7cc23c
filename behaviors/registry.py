"""Behaviours by name: the decorator, the entry-point group, and ``create``.

Scenes name behaviours; only registered ones can be created, so a scene never
runs code that is not registered. Third-party packages register theirs with
``@register("name")`` in a module that the entry-point group ``ivp.behaviors``
names (docs/behaviors.md has a complete example)::

    [project.entry-points."ivp.behaviors"]
    my_spinner = "my_pkg.behaviours:Spinner"
"""

from __future__ import annotations

import os
import tomllib
from importlib.metadata import EntryPoint, entry_points

from bbglue.values import did_you_mean

from .api import Behavior, manager_of
from .params import declared_params

ENTRY_POINT_GROUP = "ivp.behaviors"

_registry = {}


def register(name: str):
    """Class decorator: register a Behavior subclass under ``name``."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"register: a behaviour name must be a non-empty string, got {name!r}")

    def deco(cls):
        if not (isinstance(cls, type) and issubclass(cls, Behavior)):
            raise TypeError(f"register({name!r}): {cls!r} is not a Behavior subclass")
        old = _registry.get(name)
        if old is not None and old is not cls and _qualname(old) != _qualname(cls):
            raise ValueError(f"register: the name {name!r} is already taken by {_qualname(old)}")
        cls.registered_name = name
        _registry[name] = cls
        return cls

    return deco


def _qualname(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _source_entry_points(group: str) -> dict:
    """The entry points of ``group`` this source tree's pyproject.toml declares
    (a checkout run without ``pip install -e .``, or whose install predates a
    new plug-in)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyproject.toml")
    try:
        with open(path, "rb") as fh:
            project = tomllib.load(fh).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    declared = project.get("entry-points", {}).get(group, {})
    return {name: EntryPoint(name, value, group) for name, value in declared.items()}


def plugin_entry_points(group: str) -> dict:
    """Name -> entry point of a plug-in group: the installed ones, then those
    of the source tree (Ballance's are among them, declared in pyproject.toml
    like a third-party package's)."""
    return {**_source_entry_points(group), **{ep.name: ep for ep in entry_points(group=group)}}


def _entry_points() -> dict:
    """Entry points of the group ``ivp.behaviors``."""
    return plugin_entry_points(ENTRY_POINT_GROUP)


def names() -> list:
    """Every registered behaviour name (registered and entry points), sorted;
    no entry point is loaded."""
    return sorted(set(_registry) | set(_entry_points()))


def lookup(name: str, where: str = "<python>"):
    """The class registered as ``name`` (loading its entry point if needed)."""
    cls = _registry.get(name)
    if cls is not None:
        return cls
    ep = _entry_points().get(name)
    if ep is None:
        raise ValueError(f"{where}: unknown behaviour {name!r}{did_you_mean(name, names())}")
    try:
        obj = ep.load()
    except Exception as exc:
        raise ValueError(f"{where}: the entry point {ep.value!r} of behaviour {name!r} "
                         f"failed to load: {type(exc).__name__}: {exc}") from exc
    if name in _registry:              # the module registered it with @register
        return _registry[name]
    if not (isinstance(obj, type) and issubclass(obj, Behavior)):
        raise ValueError(f"{where}: the entry point {ep.value!r} of behaviour {name!r} is not a Behavior subclass")
    return register(name)(obj)


def describe(name: str) -> list:
    """One line per parameter of a behaviour: name, kind, default."""
    return [p.describe() for p in declared_params(lookup(name)).values()]


def create(ctx, name: str, entity=None, params=None, where: str = "<python>"):
    """Build the behaviour ``name`` on ``entity`` (an entity, its name, or None for
    the scene) with ``params`` and attach it to the context; ValueError naming
    ``where`` for an unknown name, parameter or entity, or an ill-typed value."""
    cls = lookup(name, where)
    params = dict(params or {})
    decl = declared_params(cls)
    for k in params:
        if k not in decl:
            known = ", ".join(decl) or "none"
            raise ValueError(f"{where}: behaviour {name!r} has no parameter {k!r}{did_you_mean(k, decl)} "
                             f"(parameters: {known})")
    if isinstance(entity, str):
        try:
            entity = ctx.get(entity)
        except KeyError as e:
            raise ValueError(f"{where}: behaviour {name!r}: {e.args[0]}") from None
    try:
        behavior = cls(ctx, entity, **params)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where}: {e}") from None
    return manager_of(ctx).attach(behavior)
