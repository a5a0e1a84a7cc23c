"""Flat copies of object graphs without recursion (DESIGN "Numbers": all
engine state is plain data reachable from the Environment).

``flatten(root)`` makes a table of records, one per object, references as
indices into it; ``build(table)`` makes a new graph from a table;
``deep_copy(root)`` is both. An explicit work list walks them, so a chain of
10,000 links costs no Python stack (``copy.deepcopy`` fails on a bowl of 100
balls). Records (tuples of plain data when ``portable``):

    ("v", atom)                 None, bool, int, float, str, or a tuple of those
    ("b", bytes)
    ("t" | "l" | "s" | "f", [refs])   tuple, list, set, frozenset
    ("d", [k0, v0, k1, v1 ...])  dict (insertion order kept)
    ("g", "module:qualname")   a class or module-level function (the object
                                itself when not portable, or a shared instance)
    ("m", ref, name)            a bound method of a copied object
    ("o", "module:qualname", ref)   an instance: ``cls.__new__`` and its state
    ("a", dtype, shape, bytes)  a numpy array;  ("n", dtype, bytes) a numpy scalar
    ("L", tuple(items))         in process: a list of atoms in one record
    ("D", keys, values, links)  in process: a dict of atom keys

A portable table names classes and functions, which ``build`` resolves
through ``resolve``. ``state_hash(root)`` hashes a canonical table: floats
by their bits, sets of atoms sorted, sets of objects by their size only
(a set's order is the process's), arrays by a digest of their bytes.
"""

from __future__ import annotations

import hashlib
import importlib
import types
from itertools import chain

import numpy as np

ATOMS = (type(None), bool, int, float, str)
_ATOM_TYPES = frozenset(ATOMS)
_UNBUILT = object()
_ATOM_OR_TUPLE = _ATOM_TYPES | {tuple}
_STRING_KEYS = "d$"            # a dict whose keys are all strings: filled before object states
_ATOM_LIST = "L"               # a list of atoms, held in the record (in-process tables only)
_ATOM_KEYS = "D"               # a dict whose keys are atoms, held in the record (in-process tables only)


def _is_atom_tuple(x) -> bool:
    return all(type(c) in _ATOM_TYPES for c in x)


def _holds_atoms_only(x) -> bool:
    """Whether every item of a list (key of a dict) is an atom or a tuple of atoms:
    the type checks run in C (map, chain) when all are atoms or all tuples."""
    kinds = set(map(type, x))
    if kinds <= _ATOM_TYPES:
        return True
    if not kinds <= _ATOM_OR_TUPLE:
        return False
    if kinds == {tuple}:
        return set(map(type, chain.from_iterable(x))) <= _ATOM_TYPES
    return all(type(c) is not tuple or _is_atom_tuple(c) for c in x)


class SnapshotError(TypeError):
    """An object that a snapshot cannot hold, with the path that reached it."""


def import_name(name: str):
    """The object ``module:qualname`` names (imports the module)."""
    module, _, qual = name.partition(":")
    obj = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


class _Flattener:
    def __init__(self, portable: bool, canonical: bool = False, share: tuple = ()):
        self.portable = portable or canonical
        self.canonical = canonical
        self.share = frozenset(share)
        self.index = {}          # id(obj) -> record index
        self.records = []
        self.objects = []        # record index -> object; keeps made states alive, so ids stay unique
        self.origin = []         # record index -> (parent index, label), for error paths
        self.pending = []

    def ref(self, x, parent: int, label):
        """The record index of ``x``; in a canonical table an atom is written in
        place (which string or tuple object holds a value is no part of the state)."""
        if self.canonical and (type(x) in _ATOM_TYPES or (type(x) is tuple and _is_atom_tuple(x))):
            return ("v", x)
        i = self.index.get(id(x))
        if i is None:
            i = len(self.records)
            self.index[id(x)] = i
            self.records.append(None)
            self.objects.append(x)
            self.origin.append((parent, label))
            self.pending.append(i)
        return i

    def path(self, i: int) -> str:
        parts = []
        while i >= 0:
            parent, label = self.origin[i]
            parts.append(str(label) if parent < 0 else f"[{label!r}]" if not isinstance(label, str)
                         else f".{label}")
            i = parent
        return "".join(reversed(parts))

    def refuse(self, i: int, why: str):
        x = self.objects[i]
        raise SnapshotError(f"snapshot: {self.path(i)} ({type(x).__name__} {x!r:.80}): {why}")

    def run(self, root, label: str) -> list:
        self.ref(root, -1, label)
        while self.pending:
            i = self.pending.pop()
            self.records[i] = self.encode(self.objects[i], i)
        return self.records

    def global_record(self, x, i: int):
        if not self.portable:
            return ("g", x)
        if self.canonical:
            return ("g", f"{getattr(x, '__module__', '?')}:{getattr(x, '__qualname__', repr(x))}")
        try:
            name = f"{x.__module__}:{x.__qualname__}"
            ok = import_name(name) is x
        except (AttributeError, ImportError, TypeError):
            ok = False
        if not ok:
            self.refuse(i, "only module-level classes and functions can be saved (not a lambda, "
                           "a closure or a local function)")
        return ("g", name)

    def encode(self, x, i: int):
        t = type(x)
        ref = self.ref
        if t in _ATOM_TYPES:
            return ("v", x)
        if t is tuple:
            if _is_atom_tuple(x):
                return ("v", x)
            return ("t", [ref(c, i, k) for k, c in enumerate(x)])
        if t is list:
            if not self.portable and _holds_atoms_only(x):
                return (_ATOM_LIST, tuple(x))
            return ("l", [ref(c, i, k) for k, c in enumerate(x)])
        if t is dict:
            if not self.portable and _holds_atoms_only(x):
                keys, values = tuple(x), list(x.values())
                links = tuple(n for n, v in enumerate(values) if type(v) not in _ATOM_TYPES)
                for n in links:
                    values[n] = ref(values[n], i, keys[n])
                return (_ATOM_KEYS, keys, tuple(values), links)
            out = []
            for k, v in x.items():
                out.append(ref(k, i, "<key>"))
                out.append(ref(v, i, k))
            return (_STRING_KEYS if all(type(k) is str for k in x) else "d", out)
        if (t is set or t is frozenset) and self.canonical:
            if all(type(c) in _ATOM_TYPES for c in x):
                return ("S", tuple(sorted(x, key=repr)))
            return ("S#", len(x))
        if t is set or t is frozenset:
            return ("s" if t is set else "f", [ref(c, i, "<item>") for c in x])
        if t is bytes:
            return ("b", x)
        if t is np.ndarray:
            if x.dtype.hasobject:
                self.refuse(i, "numpy arrays of Python objects cannot be saved")
            data = x.tobytes()
            return ("a", x.dtype.str, x.shape, hashlib.sha256(data).hexdigest() if self.canonical else data)
        if isinstance(x, np.generic):
            return ("n", x.dtype.str, x.tobytes())
        if isinstance(x, type) or t is types.FunctionType or t is types.ModuleType:
            return self.global_record(x, i)
        if t is types.MethodType or (t is types.BuiltinMethodType
                                     and not isinstance(x.__self__, (types.ModuleType, type(None)))):
            return ("m", ref(x.__self__, i, "__self__"), x.__name__)
        if t is types.BuiltinFunctionType:
            return self.global_record(x, i)
        return self.encode_instance(x, t, i)

    def encode_instance(self, x, t, i: int):
        if t in self.share:
            return ("g", x)
        prepare = getattr(t, "_before_snapshot", None)
        if prepare is not None:                 # e.g. a core on loan to the lane comes back first
            prepare(x)
            t = type(x)
        if t.__reduce_ex__ is not object.__reduce_ex__ or t.__reduce__ is not object.__reduce__:
            self.refuse(i, "its class defines its own pickling (__reduce__), which snapshots do not run")
        try:
            state = x.__getstate__()
        except TypeError as exc:
            self.refuse(i, str(exc))
        return ("o", self.global_record(t, i)[1], self.ref(state, i, "<state>"))


def flatten(root, portable: bool = False, label: str = "root", share: tuple = ()) -> list:
    """The table of the graph reachable from ``root`` (its record 0); SnapshotError
    naming the path to an object it cannot hold. Instances of the classes in
    ``share`` are kept by reference (not in a portable table)."""
    if portable and share:
        raise ValueError("snapshot: a portable table cannot share objects (they would not reach a file)")
    return _Flattener(portable, share=share).run(root, label)


def state_hash(root) -> str:
    """A digest of everything reachable from ``root`` (the canonical table, see
    the module docstring): equal for two states that are the same to the bit,
    in any process."""
    return hashlib.sha256(repr(_Flattener(False, canonical=True).run(root, "root")).encode()).hexdigest()


def _shell(r, resolve):
    k = r[0]
    if k == "v" or k == "b":
        return r[1]
    if k == "l":
        return []
    if k == _ATOM_LIST:
        return list(r[1])
    if k == _ATOM_KEYS:
        return dict(zip(r[1], r[2]))        # the links are set by _fill
    if k == "d" or k == _STRING_KEYS:
        return {}
    if k == "s":
        return set()
    if k == "g":
        return resolve(r[1]) if isinstance(r[1], str) else r[1]
    if k == "o":
        cls = resolve(r[1]) if isinstance(r[1], str) else r[1]
        return cls.__new__(cls)
    if k == "a":
        return np.frombuffer(r[3], dtype=np.dtype(r[1])).reshape(r[2]).copy()
    if k == "n":
        return np.frombuffer(r[2], dtype=np.dtype(r[1]))[0]
    return _UNBUILT            # "t", "f", "m": built from their parts


def _build_immutable(records, objs, i: int) -> None:
    """Tuples, frozensets and bound methods, after their parts (post-order, no recursion;
    a cycle always passes through a mutable object, whose shell exists)."""
    stack = [i]
    while stack:
        j = stack[-1]
        if objs[j] is not _UNBUILT:
            stack.pop()
            continue
        r = records[j]
        parts = [r[1]] if r[0] == "m" else r[1]
        missing = [c for c in parts if objs[c] is _UNBUILT]
        if missing:
            stack.extend(missing)
            continue
        if r[0] == "t":
            objs[j] = tuple(objs[c] for c in parts)
        elif r[0] == "f":
            objs[j] = frozenset(objs[c] for c in parts)
        else:
            objs[j] = getattr(objs[r[1]], r[2])
        stack.pop()


def _fill(r, obj, objs) -> None:
    k = r[0]
    if k == "l":
        obj.extend(objs[c] for c in r[1])
    elif k == "d" or k == _STRING_KEYS:
        refs = r[1]
        for n in range(0, len(refs), 2):
            obj[objs[refs[n]]] = objs[refs[n + 1]]
    elif k == "s":
        obj.update(objs[c] for c in r[1])
    elif k == _ATOM_KEYS:
        keys, values = r[1], r[2]
        for n in r[3]:
            obj[keys[n]] = objs[values[n]]


def _set_state(obj, state) -> None:
    """The inverse of object.__getstate__ (or the class's own __setstate__)."""
    if hasattr(type(obj), "__setstate__"):
        obj.__setstate__(state)
        return
    if isinstance(state, tuple):
        state, slots = state
        for k, v in slots.items():
            object.__setattr__(obj, k, v)
    if state:
        obj.__dict__.update(state)


def build(records: list, resolve=import_name):
    """A new graph from a table; returns the object of record 0. Dicts with string
    (in-process: atom) keys are filled first, then the objects get their state, then the other sets
    and dicts (whose keys may hash by an object's state)."""
    objs = [_shell(r, resolve) for r in records]
    for i, r in enumerate(records):
        if objs[i] is _UNBUILT:
            _build_immutable(records, objs, i)
    for i, r in enumerate(records):
        if r[0] == "l" or r[0] == _STRING_KEYS or r[0] == _ATOM_KEYS:
            _fill(r, objs[i], objs)
    for i, r in enumerate(records):
        if r[0] == "o":
            _set_state(objs[i], objs[r[2]])
    for i, r in enumerate(records):
        if r[0] == "d" or r[0] == "s":
            _fill(r, objs[i], objs)
    return objs[0]


def deep_copy(root):
    """An exact copy of everything reachable from ``root`` (like copy.deepcopy,
    classes and functions shared), at any depth of linking."""
    return build(flatten(root))
