"""The first run's second core (issue 39 "First run"): while a run compiles
the kernels it calls, a child process compiles the same kernels from the
other end of the list into numba's disk cache, from which the run loads them.

The list (``first_run_kernels.txt``, written by ``benchmarks/first_run.py
--write-list``) names the kernels the default scene calls from Python, in
the order of their first call, with their argument types. A stale line is
skipped: it costs time, never a result. The processes share the cache under
:class:`Locks`."""

from __future__ import annotations

import atexit
import contextlib
import importlib
import os
import re
import subprocess
import sys
import tempfile
import zlib

try:
    import fcntl
except ImportError:                 # not POSIX: no lock, so no second process
    fcntl = None

from . import jit

LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "first_run_kernels.txt")
_LINE = re.compile(r"^([\w.]+):(\w+)\((.*)\)$")


def parse_types(text: str, module=None) -> tuple:
    """The numba types of ``text``, numba's own spelling of an argument
    list (``float64, bool, array(float64, 2d, C), UniTuple(float64 x 3),
    Tuple(int64, float64)``, and a named tuple class of ``module`` by its
    name); a ValueError for anything else."""
    types = jit.numba.types
    if not text.strip():
        return ()
    names = {"array": lambda dtype, ndim, layout: types.Array(dtype, ndim, layout),
             "UniTuple": types.UniTuple, "Tuple": lambda *items: types.Tuple(items),
             "bool": types.boolean, "float64": types.float64, "int64": types.int64,
             "C": "C", "A": "A", "F": "F"}
    for name, cls in (vars(module) if module is not None else {}).items():
        if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields"):
            names[name] = lambda *items, cls=cls: types.NamedTuple(items, cls)
    expr = re.sub(r"\b(\d)d\b", r"\1", re.sub(r" x (\d+)\)", r", \1)", text))
    try:
        got = eval(f"({expr},)", {"__builtins__": {}}, names)
    except Exception as exc:
        raise ValueError(f"argument types {text!r}: {exc}") from None
    if not all(isinstance(t, types.Type) for t in got):
        raise ValueError(f"argument types {text!r}: not all are types")
    return got


def line(dispatcher, args) -> str:
    """The list's line for a kernel compiled for ``args`` (numba types)."""
    fn = dispatcher.py_func
    return f"{fn.__module__}:{fn.__qualname__}({', '.join(str(a) for a in args)})"


def listed(path: str = LIST) -> list:
    """The (kernel, argument types) of the list's lines that still name a
    kernel of ``jit.KERNELS`` and types numba knows; the others skipped."""
    out = []
    for text in open(path, encoding="utf-8").read().splitlines():
        m = _LINE.match(text.strip())
        if m is None:
            continue
        try:
            module = importlib.import_module(m.group(1))
            k = getattr(module, m.group(2))
            args = parse_types(m.group(3), module)
        except (ImportError, AttributeError, ValueError):
            continue
        if k in jit.KERNELS:
            out.append((k, args))
    return out


def compile_listed(lock_path: str, path: str = LIST) -> None:
    """The second compiler: compile the listed kernels, the last line first,
    into numba's disk cache (a kernel the cache holds already is loaded, not
    compiled)."""
    kernels = listed(path)
    locks = Locks(lock_path)
    for k, args in reversed(kernels):
        try:
            k.compile(args)
        except jit.numba.core.errors.NumbaError:   # a stale line: the run compiles what it needs
            continue
    locks.close()


class Locks:
    """POSIX byte-range locks on one file the run and its second compiler
    share: byte 0 while numba saves to its disk cache (two saves of one
    kernel at once could mix two versions' entries), and a byte per kernel
    while a process compiles it: the other waits, then loads it from the
    cache. Kernels do not call each other in a circle, so neither do the
    waits; should the system find one, the kernel compiles without its lock."""

    def __init__(self, path: str):
        IndexDataCacheFile = jit.numba.core.caching.IndexDataCacheFile
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)   # one descriptor: closing any drops the locks
        save = IndexDataCacheFile.save
        locks = self

        def save_locked(cache_file, key, data):
            with locks.taken(0):
                save(cache_file, key, data)
        IndexDataCacheFile.save = save_locked
        for k in jit.KERNELS:
            k.compile = self._locked(k, k.compile)
            if k.callee is not k:
                k.callee.compile = self._locked(k.callee, k.callee.compile)

    @contextlib.contextmanager
    def taken(self, byte: int):
        """The byte locked for the block, once no other process has it."""
        try:
            fcntl.lockf(self.fd, fcntl.LOCK_EX, 1, byte)
            got = True
        except OSError:             # a circle of waits (EDEADLK): go on without the lock
            got = False
        try:
            yield
        finally:
            if got:
                fcntl.lockf(self.fd, fcntl.LOCK_UN, 1, byte)

    def _locked(self, k, compile):
        byte = kernel_byte(k)

        def compile_locked(sig):
            if isinstance(sig, tuple) and sig in k.overloads:
                return compile(sig)
            with self.taken(byte):
                return compile(sig)
        return compile_locked

    def close(self) -> None:
        os.close(self.fd)


def kernel_byte(k) -> int:
    """The byte of the lock file that stands for kernel ``k``: one of 2**32
    by its name (two kernels sharing one would cost a needless wait, or a
    compile without the lock, never a wrong cache entry)."""
    fn = k.py_func
    return 1 + zlib.crc32(f"{fn.__module__}:{fn.__qualname__}".encode())


def start_second_compiler() -> bool:
    """Start the second compiler (a child process running
    :func:`compile_listed`) when there is a second core for it, the list,
    and POSIX locks; it is stopped when this process exits, and the lock
    file deleted. Whether it started."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if not jit.ENABLED or cores < 2 or not os.path.exists(LIST) or fcntl is None:
        return False
    fd, lock_path = tempfile.mkstemp(prefix="ivp-compile-", suffix=".lock")
    os.close(fd)
    locks = Locks(lock_path)
    child = subprocess.Popen([sys.executable, "-m", "ivp.precompile", lock_path], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             cwd=os.path.dirname(os.path.dirname(LIST)))

    def stop():
        if child.poll() is None:
            child.terminate()
            child.wait()
        locks.close()
        os.unlink(lock_path)
    atexit.register(stop)
    return True


if __name__ == "__main__":
    compile_listed(sys.argv[1])
