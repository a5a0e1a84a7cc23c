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
except ImportError:
    numba = None

ENABLED = numba is not None

KERNELS = []                    # the compiled kernels' (source file, qualified name)


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
        KERNELS.append((fn.__code__.co_filename, fn.__qualname__))
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
    """How many kernels have no compiled copy in numba's disk cache yet (an
    index ``<module>.<name>-<line>.py<version>.nbi`` in the __pycache__
    beside their source): the first run after an install compiles them."""
    out = 0
    listed = {}
    for path, name in KERNELS:
        folder = os.path.join(os.path.dirname(path), "__pycache__")
        if folder not in listed:
            try:
                listed[folder] = os.listdir(folder)
            except OSError:
                listed[folder] = []
        prefix = f"{os.path.splitext(os.path.basename(path))[0]}.{name}-"
        if not any(f.startswith(prefix) and f.endswith(".nbi") for f in listed[folder]):
            out += 1
    return out
