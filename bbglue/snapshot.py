"""Whole-game snapshot files: a context (entities, groups, managers, behaviours,
building blocks, the physics manager and its IVP world) and the RNG seed, saved
and loaded in another process (docs/ck-api.md, "Snapshots").

The file is JSON, one document::

    {"format": "ivp-ballance-snapshot", "version": 1, "rng_seed": 12345,
     "records": [["o", "bbglue.context:CKContext", 1], ["d$", [2, 3, ...]], ...]}

``records`` is the flat table of ``ivp.snapshot`` (record 0 is the context):
numbers (floats in their round-trip decimal, so to the bit), strings, lists of
record indices, bytes in base64, and classes and functions by
``module:qualname``. Loading runs no code from the file: it imports the named
modules only when they lie in the allowed packages (ivp, bbglue, behaviors, and
those the caller adds, such as a behaviour plug-in's), makes each instance with
``cls.__new__`` and gives it its saved fields. A snapshot may hold module-level
functions and bound methods of saved objects; it refuses lambdas, closures and
local functions (name the path to them), and objects whose class pickles itself.
A file of another format or version is refused: a snapshot is read by the
version of the project that wrote it.
"""

from __future__ import annotations

import base64
import json

from ivp import rng
from ivp.snapshot import SnapshotError, build, flatten, import_name, state_hash

FORMAT = "ivp-ballance-snapshot"
VERSION = 1
PACKAGES = ("ivp", "bbglue", "behaviors")
_BYTES_AT = {"b": 1, "a": 3, "n": 2}          # record kind -> the index of its bytes


def _to_json(r):
    k = r[0]
    if k in _BYTES_AT:
        i = _BYTES_AT[k]
        return [*r[:i], base64.b64encode(r[i]).decode("ascii"), *r[i + 1:]]
    return list(r)


def _from_json(r, where: str):
    k = r[0]
    if k in _BYTES_AT:
        i = _BYTES_AT[k]
        r = [*r[:i], base64.b64decode(r[i]), *r[i + 1:]]
        if k == "a":
            r[2] = tuple(r[2])
    elif k == "v" and isinstance(r[1], list):
        r = ["v", tuple(r[1])]
    elif k == "m" and r[2].startswith("__"):
        raise SnapshotError(f"{where}: the method name {r[2]!r} is not allowed")
    return tuple(r)


def save(ctx, path) -> None:
    """Write the snapshot of ``ctx`` (SnapshotError naming what it cannot hold)."""
    records = flatten(ctx, portable=True, label="context")
    doc = {"format": FORMAT, "version": VERSION, "rng_seed": rng.get_seed(),
           "records": [_to_json(r) for r in records]}
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, separators=(",", ":"))


def _resolver(packages, where: str):
    def resolve(name: str):
        module = name.partition(":")[0]
        top = module.split(".")[0]
        if top == "builtins":
            obj = import_name(name)
            if isinstance(obj, type):
                return obj
        elif top in packages:
            return import_name(name)
        raise SnapshotError(f"{where}: {name!r} is outside the allowed packages ({', '.join(packages)})")
    return resolve


def load(path, packages=()):
    """The context saved in ``path``, with the RNG seed it had; ``packages``
    adds top-level packages whose classes the file may name."""
    where = str(path)
    with open(path, encoding="utf-8") as fh:
        try:
            doc = json.load(fh)
        except json.JSONDecodeError as exc:
            raise SnapshotError(f"{where}: not a snapshot file ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SnapshotError(f"{where}: not an {FORMAT} file")
    if doc.get("version") != VERSION:
        raise SnapshotError(f"{where}: snapshot version {doc.get('version')!r}; this version reads {VERSION}")
    records = [_from_json(r, where) for r in doc["records"]]
    ctx = build(records, _resolver(tuple(PACKAGES) + tuple(packages), where))
    rng.set_seed(doc["rng_seed"])
    return ctx


def game_hash(ctx) -> str:
    """A digest of the whole state of ``ctx`` and the RNG seed (ivp.snapshot.state_hash)."""
    return state_hash((ctx, rng.get_seed()))


__all__ = ["FORMAT", "VERSION", "SnapshotError", "save", "load", "game_hash"]
