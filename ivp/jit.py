"""Compiled kernels (issue 11): the hot loops of the engine, written once over
arrays and plain floats.

With numba installed they are compiled (``njit``, cached on disk, so only the
first run after an install pays the compile); without it, or with the
environment variable ``IVP_JIT=0``, the same functions run as plain Python.
Both paths give bit-identical results: no fast-math (no reassociation, no
fused multiply-add), the same order of operations, IEEE doubles and a
correctly rounded square root either way.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import types

try:
    if os.environ.get("IVP_JIT", "1") == "0":
        raise ImportError("IVP_JIT=0")
    import numba
    from numba.core import event as numba_event
except ImportError:
    numba = None

ENABLED = numba is not None

KERNELS = []                    # the compiled kernels (numba dispatchers)


def _called_from_python(path: str) -> frozenset:
    """The kernels (``module:qualname``) that ``first_run_kernels.txt``
    beside this file names: the default scene calls them from Python (and
    may from kernels too), so calling kernels link their own version, not a
    callee copy, which would compile the body a second time."""
    try:
        with open(path, encoding="utf-8") as f:
            return frozenset(line.split("(", 1)[0] for line in f)
    except OSError:
        return frozenset()


CALLED_FROM_PYTHON = _called_from_python(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "first_run_kernels.txt"))


def kernel(fn):
    """The function compiled (numba present) or itself (plain Python).

    A kernel is two numba dispatchers of one function: the one returned,
    called from Python, and its ``callee``, which calling kernels link (the
    kernel itself when :data:`CALLED_FROM_PYTHON` names it): it has no Python
    wrapper for every caller to link and optimize again; neither has a C
    wrapper. Not ``inline="always"`` (which lowers the body again at every
    call site): LLVM inlines the short ones into the linked caller."""
    if numba is None:
        return fn
    options = dict(cache=True, fastmath=False, nogil=True, no_cfunc_wrapper=True)
    compiled = numba.njit(inline="never", **options)(fn)
    if f"{fn.__module__}:{fn.__qualname__}" in CALLED_FROM_PYTHON:
        callee = compiled
    else:
        callee = numba.njit(inline="never", no_cpython_wrapper=True, **options)(_callee_of(fn))
    for d in {compiled, callee}:
        _stamp_sources(d, fn.__code__.co_filename)
    compiled.callee = callee
    compiled.get_call_template = _one_version(compiled, callee)
    compiled.get_overload = lambda args: type(callee).get_overload(_linked(compiled, callee, args), args)
    KERNELS.append(compiled)
    return compiled


def _linked(compiled, callee, args):
    """The dispatcher whose version for ``args`` a calling kernel links: the
    kernel's own when Python has called it with those types already, or
    when numba's disk cache holds it (the first run's second compiler
    compiled it) and the callee has no such version yet; else its callee.
    A body compiled once, not once per dispatcher."""
    args = tuple(args)
    if args in compiled.overloads or (args not in callee.overloads and _on_disk(compiled, args)):
        return compiled
    return callee


def _stamp_sources(d, path: str) -> None:
    """Join numba's stamp of dispatcher ``d``'s cache index (its own source
    file's time and size) with :func:`sources_digest` of ``path``: numba
    checks only the kernel's own file, so a caller kept its linked copy of a
    callee whose file changed (a ``git pull`` in an editable install); now any
    change to a file the kernel's module imports, at any depth, makes the
    index stale and the kernel is compiled again."""
    try:
        f = d._cache._cache_file
        f._source_stamp = (f._source_stamp, sources_digest(path))
    except AttributeError:
        pass


_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)


@functools.lru_cache(maxsize=None)
def sources_digest(path: str) -> str:
    """SHA-256 of the module at ``path`` and of every module of its own
    top-level package that it imports, at any depth (``from .x import y``,
    ``from ..x import y``, ``from . import x``, ``from pkg.x import y``)."""
    root = os.path.dirname(os.path.abspath(path))
    while os.path.exists(os.path.join(os.path.dirname(root), "__init__.py")):
        root = os.path.dirname(root)
    seen, todo = set(), [os.path.abspath(path)]
    while todo:
        here = todo.pop()
        if here not in seen:
            seen.add(here)
            todo.extend(_imported(here, root))
    h = hashlib.sha256()
    for f in sorted(seen):
        h.update(os.path.relpath(f, root).encode())
        with open(f, "rb") as src:
            h.update(hashlib.sha256(src.read()).digest())
    return h.hexdigest()


def _imported(path: str, root: str) -> list:
    """The files of the package at ``root`` that the module at ``path`` imports."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = []
    for dots, name, names in _IMPORT.findall(text):
        if dots:
            base = os.path.dirname(path)
            for _ in range(len(dots) - 1):
                base = os.path.dirname(base)
        elif name.split(".")[0] == os.path.basename(root):
            base = os.path.dirname(root)
        else:
            continue
        where = os.path.join(base, *name.split(".")) if name else base
        modules = [os.path.join(where, n + ".py") for n in re.findall(r"(\w+)(?:[ \t]+as[ \t]+\w+)?", names)]
        modules = [m for m in modules if os.path.isfile(m)] or [where + ".py", os.path.join(where, "__init__.py")]
        found += [m for m in modules if os.path.isfile(m)]
    return found


def _on_disk(d, args) -> bool:
    """Whether numba's disk cache holds dispatcher ``d``'s version for
    ``args`` (read through numba's private cache objects, as :func:`_cached`;
    laid out otherwise: no)."""
    try:
        return d._cache._index_key(args, d.targetctx.codegen()) in d._cache._cache_file._load_index()
    except AttributeError:
        return False


def _callee_of(fn):
    """A copy of ``fn`` named ``<name>.callee``: its own symbols and its own
    entries in numba's disk cache (which keys a kernel's versions by its
    name and argument types, not by its wrappers)."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = f"{fn.__qualname__}.callee"
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def _one_version(compiled, callee):
    """The typing of a call from another kernel (``get_call_template``), to
    the version :func:`_linked` picks. A kernel called with a constant
    argument (a flag, a context's kind) is compiled for the argument's type,
    not once more for each constant (numba types a constant as its literal
    value): the same operations either way, a second compile of the whole
    callee saved."""
    unliteral = numba.types.unliteral

    def one(args, kws):
        args = tuple(unliteral(a) for a in args)
        return type(callee).get_call_template(_linked(compiled, callee, args), args,
                                              {k: unliteral(v) for k, v in kws.items()})
    return one


def compiling(frame) -> bool:
    """Whether the Python stack at ``frame`` is in numba: a kernel compiled,
    or loaded from the disk cache, at its first call (the hook watchdog,
    ``behaviors.api.hook_watchdog``, does not count that time against a hook).
    A compiled kernel running has no Python frame, so it never counts here."""
    while frame is not None:
        if frame.f_globals.get("__name__", "").split(".")[0] == "numba":
            return True
        frame = frame.f_back
    return False


def uncached_kernels() -> int:
    """How many kernels have no fresh compiled copy in numba's disk cache
    (no index, or a stale one, where numba keeps theirs, for the kernel or
    its callee: the __pycache__ beside their source, or under
    ``NUMBA_CACHE_DIR``): the first run after an install or an update
    compiles them."""
    return sum(1 for k in KERNELS if not _cached(k))


def _cached(k) -> bool:
    """Whether kernel ``k``'s cache index, or its callee's, is fresh."""
    return _indexed(k) or _indexed(k.callee)


def _indexed(d) -> bool:
    """Whether dispatcher ``d``'s cache index holds versions for today's
    sources (:func:`_stamp_sources`). It is read through
    numba's private cache objects: a numba laid out otherwise counts as
    cached (no notice, no progress line) rather than failing the run."""
    try:
        return bool(d._cache._cache_file._load_index())
    except AttributeError:
        return True


def watch_compiles(say) -> None:
    """From now on, ``say(here, there, name)`` after each new version of a
    kernel (or callee) this process gets: ``here`` counts those it compiled,
    ``there`` those it loaded from the disk cache where the second compiler
    (:mod:`ivp.precompile`) put them during this run. A first run's progress."""
    if numba is None:
        return
    dispatchers = {d for k in KERNELS for d in (k, k.callee)}
    done = {"here": 0, "there": 0}

    def tell(where, dispatcher):
        done[where] += 1
        say(done["here"], done["there"], dispatcher.py_func.__name__)

    class Compiled(numba_event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            if ev.data["dispatcher"] in dispatchers:
                tell("here", ev.data["dispatcher"])

    def counted(d, load):
        def load_overload(sig, target_context):
            got = load(sig, target_context)
            if got is not None:
                tell("there", d)
            return got
        return load_overload

    for d in dispatchers:
        if not _indexed(d):
            d._cache.load_overload = counted(d, d._cache.load_overload)
    numba_event.register("numba:compile", Compiled())
