"""The first run after an install compiles the kernels (ivp.jit): the count
of kernels numba's disk cache does not hold yet, and the line the ``ivp``
commands print then (issue 11: a minute of silence otherwise)."""

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ivp import jit
from scenes import cli

ROOT = Path(__file__).resolve().parent.parent
HALF_AND_CALLER = textwrap.dedent("""
    from ivp.jit import kernel

    @kernel
    def half(x):
        return 0.5 * x

    @kernel
    def caller(x):
        return half(x) + 1.0
""")


@pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: nothing is compiled")
def test_a_kernel_counts_as_uncached_until_its_first_call_writes_the_cache(tmp_path, monkeypatch):
    src = tmp_path / "fresh_kernels.py"
    src.write_text(textwrap.dedent("""
        from ivp.jit import kernel

        @kernel
        def twice(x):
            return 2.0 * x
    """))
    monkeypatch.setattr(jit, "KERNELS", [])
    spec = importlib.util.spec_from_file_location("fresh_kernels", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert jit.KERNELS == [mod.twice]
    said = []
    jit.watch_compiles(lambda here, there, name: said.append((here, there, name)))
    assert jit.uncached_kernels() == 1
    assert mod.twice(1.5) == 3.0
    assert jit.uncached_kernels() == 0
    assert said == [(1, 0, "twice")]
    assert any(p.suffix == ".nbi" for p in (tmp_path / "__pycache__").iterdir())


@pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: nothing is compiled")
def test_a_kernel_called_with_constants_is_compiled_once_for_their_types(tmp_path, monkeypatch):
    """A flag passed as True and as False, and an int constant inside a
    tuple, give the callee one version (bool, float64, tuple of int and
    float), not one per constant (numba's literal types); called from a
    kernel only, the version is its callee's (no Python wrapper), and the
    kernel itself has none."""
    src = tmp_path / "constant_kernels.py"
    src.write_text(textwrap.dedent("""
        from ivp.jit import kernel

        @kernel
        def scaled(x, flag, ctx):
            return (2.0 * x if flag else x) + ctx[0] * ctx[1]

        @kernel
        def caller(x):
            return scaled(x, True, (4, 0.5)) + scaled(x, False, (3, 0.25))
    """))
    monkeypatch.setattr(jit, "KERNELS", [])
    spec = importlib.util.spec_from_file_location("constant_kernels", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.caller(1.5) == 3.0 + 2.0 + 1.5 + 0.75
    t = jit.numba.types
    assert mod.scaled.callee.signatures == [(t.float64, t.boolean, t.Tuple((t.int64, t.float64)))]
    assert mod.scaled.signatures == []


@pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: nothing is compiled")
def test_a_caller_links_the_version_python_compiled_else_the_callee_without_wrapper(tmp_path, monkeypatch):
    """``half`` called from Python first: ``caller`` links that version (its
    callee copy is not compiled). ``third``, called from kernels only: its
    callee copy, which has no Python wrapper, is the one compiled."""
    src = tmp_path / "linked_kernels.py"
    src.write_text(textwrap.dedent("""
        from ivp.jit import kernel

        @kernel
        def half(x):
            return 0.5 * x

        @kernel
        def third(x):
            return x / 3.0

        @kernel
        def caller(x):
            return half(x) + third(x)
    """))
    monkeypatch.setattr(jit, "KERNELS", [])
    spec = importlib.util.spec_from_file_location("linked_kernels", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.half(3.0) == 1.5
    assert mod.caller(3.0) == 2.5
    t = jit.numba.types
    assert mod.half.signatures == [(t.float64,)] and mod.half.callee.signatures == []
    assert mod.third.signatures == [] and mod.third.callee.signatures == [(t.float64,)]
    assert mod.third.callee.overloads[(t.float64,)].fndesc.llvm_cpython_wrapper_name not in \
        {f.name for f in mod.third.callee.overloads[(t.float64,)].library.get_defined_functions()}


@pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: nothing is compiled")
def test_a_caller_links_the_version_another_process_left_in_the_disk_cache(tmp_path, monkeypatch):
    """Another process (the first run's second compiler) called ``half``
    from Python: its version is in the disk cache, so a caller here loads
    and links it rather than compile the body again as the callee copy."""
    (tmp_path / "cached_kernels.py").write_text(HALF_AND_CALLER)
    subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
                    "import cached_kernels as m; assert m.half(3.0) == 1.5"], cwd=ROOT, check=True)
    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cached_kernels", raising=False)
    mod = importlib.import_module("cached_kernels")
    assert mod.caller(3.0) == 2.5
    assert mod.half.callee.signatures == []
    assert sum(mod.half._cache_hits.values()) == 1 and sum(mod.half._cache_misses.values()) == 0


@pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: nothing is compiled")
def test_a_kernel_listed_as_called_from_python_is_compiled_once_whoever_calls_first(tmp_path, monkeypatch):
    """``half`` is in the list of kernels called from Python: a kernel
    calling it first links its own version, which the later call from
    Python then finds (one compile, no callee copy)."""
    src = tmp_path / "listed_kernels.py"
    src.write_text(HALF_AND_CALLER)
    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.setattr(jit, "CALLED_FROM_PYTHON", frozenset({"listed_kernels:half"}))
    spec = importlib.util.spec_from_file_location("listed_kernels", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.caller(3.0) == 2.5
    assert mod.half(3.0) == 1.5
    assert mod.half.callee is mod.half and mod.caller.callee is not mod.caller
    assert mod.half.signatures == [(jit.numba.types.float64,)]
    assert sum(mod.half._cache_misses.values()) == 1


def test_the_notice_is_given_when_most_kernels_are_to_be_compiled(monkeypatch):
    monkeypatch.setattr(jit, "ENABLED", True)
    monkeypatch.setattr(jit, "KERNELS", [("a.py", "f")] * 10)
    monkeypatch.setattr(jit, "uncached_kernels", lambda: 6)
    assert cli.compile_notice() == cli.COMPILE_NOTICE.format(n=6)
    assert "first run only" in cli.compile_notice()
    monkeypatch.setattr(jit, "uncached_kernels", lambda: 5)
    assert cli.compile_notice() is None
    monkeypatch.setattr(jit, "ENABLED", False)
    monkeypatch.setattr(jit, "uncached_kernels", lambda: 10)
    assert cli.compile_notice() is None


def test_a_numba_without_the_cache_layout_counts_as_cached_not_as_an_error(monkeypatch):
    """uncached_kernels reads numba's private cache objects; a release laid
    out otherwise must cost the notice, never the run."""
    class Bare:                                        # a dispatcher with no _cache
        pass
    monkeypatch.setattr(jit, "KERNELS", [Bare(), Bare()])
    assert jit.uncached_kernels() == 0


def test_the_progress_line_comes_every_step_and_says_who_compiled():
    lines = [cli.progress_line(n, 0, "k") for n in range(1, 2 * cli.PROGRESS_STEP + 1)]
    assert [n for n, line in enumerate(lines, 1) if line] == [cli.PROGRESS_STEP, 2 * cli.PROGRESS_STEP]
    assert lines[cli.PROGRESS_STEP - 1] == f"ivp: compiling kernels, {cli.PROGRESS_STEP} compiled (last: k)"
    assert cli.progress_line(cli.PROGRESS_STEP - 4, 4, "k") == \
        f"ivp: compiling kernels, {cli.PROGRESS_STEP} ready: {cli.PROGRESS_STEP - 4} compiled here, 4 by the " \
        "second process (last: k)"


@pytest.mark.skipif(not jit.ENABLED, reason="numba is not installed: nothing is compiled")
def test_the_progress_counts_what_this_process_compiles_and_what_the_other_left_in_the_cache(tmp_path,
                                                                                            monkeypatch):
    """Three kernels, none cached when the watch starts; another process (the
    second compiler) then compiles ``half``. ``caller`` links ``half`` from
    the cache (by the other process) and compiles ``third``'s callee and
    itself here: the counts are numba's own misses and hits, 2 and 1."""
    src = tmp_path / "watched_kernels.py"
    src.write_text(HALF_AND_CALLER.replace("return half(x) + 1.0", "return half(x) + third(x)") +
                   "\n@kernel\ndef third(x):\n    return x / 3.0\n")
    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "watched_kernels", raising=False)
    mod = importlib.import_module("watched_kernels")
    said = []
    jit.watch_compiles(lambda here, there, name: said.append((here, there, name)))
    subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
                    "import watched_kernels as m; assert m.half(3.0) == 1.5"], cwd=ROOT, check=True)
    assert mod.caller(3.0) == 2.5
    assert said == [(0, 1, "half"), (1, 1, "third"), (2, 1, "caller")]
    dispatchers = {d for k in jit.KERNELS for d in (k, k.callee)}
    assert sum(sum(d._cache_misses.values()) for d in dispatchers) == 2
    assert sum(sum(d._cache_hits.values()) for d in dispatchers) == 1


def test_ivp_run_says_nothing_of_compiling_once_the_cache_is_warm():
    """This process's kernels are cached once the suite has run any scene;
    the command then prints no notice (the first run's own line is shown by
    the test above)."""
    subprocess.run([sys.executable, "-m", "viewer.cli", "run", "--quiet", "--seconds", "0.2"], cwd=ROOT,
                   capture_output=True, text=True, check=True)
    out = subprocess.run([sys.executable, "-m", "viewer.cli", "run", "--quiet", "--seconds", "0.2"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    assert "compiling the engine" not in out.stderr
