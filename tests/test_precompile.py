"""The first run's second compiler (ivp.precompile, issue 39 "First run"):
the list of kernels it compiles, and the locks under which it shares
numba's disk cache with the run."""

import importlib
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ivp import jit, precompile

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: nothing is compiled")


def test_numbas_spelling_of_argument_types_is_read_back():
    t = jit.numba.types
    got = precompile.parse_types("array(float64, 2d, C), int64, bool, UniTuple(UniTuple(float64 x 3) x 4), "
                                 "Tuple(float64, array(bool, 1d, C))")
    assert got == (t.Array(t.float64, 2, "C"), t.int64, t.boolean, t.UniTuple(t.UniTuple(t.float64, 3), 4),
                   t.Tuple((t.float64, t.Array(t.boolean, 1, "C"))))
    assert precompile.parse_types("") == ()
    for bad in ("array(float64, 2d", "complex128", "__import__('os')"):
        with pytest.raises(ValueError, match="argument types"):
            precompile.parse_types(bad)


def test_every_line_of_the_list_names_a_kernel_with_its_number_of_arguments():
    """A renamed kernel or a changed argument list makes the list stale: the
    second compiler then compiles nothing useful for it."""
    lines = Path(precompile.LIST).read_text().splitlines()
    kernels = precompile.listed()
    assert len(kernels) == len(lines) > 10
    for k, args in kernels:
        assert len(args) == len(inspect.signature(k.py_func).parameters), k.py_func.__qualname__


def test_stale_lines_are_skipped(tmp_path):
    listing = tmp_path / "list.txt"
    listing.write_text("ivp.step.kernels:gravity_rows_k(array(float64, 2d, C), array(int64, 1d, C), float64, "
                       "float64, float64)\n"
                       "ivp.step.kernels:no_such_kernel(float64)\n"
                       "ivp.no_such_module:k(float64)\n"
                       "ivp.step.kernels:gravity_rows_k(quaternion)\n"
                       "not a line\n")
    got = precompile.listed(str(listing))
    assert [k.py_func.__name__ for k, _ in got] == ["gravity_rows_k"]


def test_a_kernel_another_process_is_compiling_is_waited_for_then_loaded(tmp_path, monkeypatch):
    """The child holds the kernel's lock while it compiles; this process,
    asked for the same kernel meanwhile, waits and loads the child's copy
    from the disk cache instead of compiling it a second time."""
    from numba.core.caching import IndexDataCacheFile
    src = tmp_path / "shared_kernels.py"
    src.write_text(textwrap.dedent("""
        from ivp.jit import kernel

        @kernel
        def thrice(x):
            return 3.0 * x
    """))
    lock = tmp_path / "compile.lock"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from ivp import jit, precompile
        import shared_kernels as mod
        locks = precompile.Locks({str(lock)!r})
        with locks.taken(precompile.kernel_byte(mod.thrice)):
            print("held", flush=True)
            sys.stdin.readline()
            mod.thrice.compile((jit.numba.types.float64,))
    """)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "held\n"
    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.setattr(IndexDataCacheFile, "save", IndexDataCacheFile.save)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "shared_kernels", raising=False)
    mod = importlib.import_module("shared_kernels")
    locks = precompile.Locks(str(lock))
    child.stdin.write("go\n")
    child.stdin.flush()
    try:
        assert mod.thrice(2.0) == 6.0
    finally:
        locks.close()
        assert child.wait(timeout=120) == 0
    assert sum(mod.thrice._cache_hits.values()) == 1
    assert sum(mod.thrice._cache_misses.values()) == 0
