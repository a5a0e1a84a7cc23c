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

import os

try:
    if os.environ.get("IVP_JIT", "1") == "0":
        raise ImportError("IVP_JIT=0")
    import numba
    from numba.core import event as numba_event
except ImportError:
    numba = None

ENABLED = numba is not None

KERNELS = []                    # the compiled kernels (numba dispatchers; not the inline helpers)


def kernel(fn=None, *, inline: bool = False):
    """The function compiled (numba present) or itself (plain Python).
    ``inline``: a small helper that takes arrays, merged into its callers at
    compile time (no per-call reference counting of the arrays)."""
    if fn is None:
        return lambda f: kernel(f, inline=inline)
    if numba is None:
        return fn
    compiled = numba.njit(cache=True, fastmath=False, nogil=True, inline="always" if inline else "never")(fn)
    if not inline:
        KERNELS.append(compiled)
        compiled.get_call_template = _one_version(compiled.get_call_template)
    return compiled


def _one_version(get_call_template):
    """A kernel called from another kernel with a constant argument (a flag,
    a context's kind) is compiled for the argument's type, not once more for
    each constant (numba types a constant as its literal value): the same
    operations either way, a second compile of the whole callee saved."""
    unliteral = numba.types.unliteral

    def one(args, kws):
        return get_call_template(tuple(unliteral(a) for a in args), {k: unliteral(v) for k, v in kws.items()})
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
    """How many kernels have no compiled copy in numba's disk cache yet (no
    index file where numba keeps theirs: the __pycache__ beside their source,
    or under ``NUMBA_CACHE_DIR``): the first run after an install compiles them."""
    return sum(1 for k in KERNELS if not _cached(k))


def _cached(k) -> bool:
    """Whether kernel ``k``'s cache index exists. It is found through numba's
    private cache objects: a numba laid out otherwise counts as cached (no
    notice, no progress line) rather than failing the run."""
    try:
        return os.path.exists(k._cache._cache_file._index_path)
    except AttributeError:
        return True


def watch_compiles(say) -> None:
    """From now on, ``say(n, name)`` after the n-th kernel of KERNELS this
    process compiles (numba's compile events; a kernel loaded from the disk
    cache is no compile; numba's own helpers are not counted): the progress
    line of a first run."""
    if numba is None:
        return
    done = [0]

    class Compiled(numba_event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            if ev.data["dispatcher"] in KERNELS:
                done[0] += 1
                say(done[0], ev.data["dispatcher"].py_func.__qualname__)

    numba_event.register("numba:compile", Compiled())
