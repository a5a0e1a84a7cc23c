"""A kernel's disk cache is stale when any file its module imports changes.

numba stamps a kernel's cache with its own source file only, so a caller
loaded from the cache kept its linked copy of a callee whose file changed
(an editable install after ``git pull``). ``ivp.jit`` joins that stamp with
a digest of the module's imports within its package, at any depth."""

import os
import subprocess
import sys

from ivp import jit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CALLER = """from ivp.jit import kernel
from .callee import g


@kernel
def f():
    return g() + 0.5
"""


def _package(tmp_path, value: str):
    pkg = tmp_path / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(CALLER)
    (pkg / "callee.py").write_text(f"from ivp.jit import kernel\n\n\n@kernel\ndef g():\n    return {value}\n")
    return pkg


def _run(tmp_path) -> float:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]),
               NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", "import pkg.caller as c; print(c.f())"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return float(out.stdout)


def test_a_caller_loaded_from_the_cache_sees_its_callees_new_file(tmp_path):
    _package(tmp_path, "1.0")
    assert _run(tmp_path) == 1.5
    assert _run(tmp_path) == 1.5                 # from the cache
    _package(tmp_path, "2.0")                    # the callee's file alone changes, same size
    assert _run(tmp_path) == 2.5


def test_the_digest_follows_imports_and_nothing_else(tmp_path):
    pkg = _package(tmp_path, "1.0")
    (pkg / "other.py").write_text("X = 1\n")
    caller, callee = str(pkg / "caller.py"), str(pkg / "callee.py")
    before = jit.sources_digest(caller), jit.sources_digest(callee)
    jit.sources_digest.cache_clear()
    (pkg / "other.py").write_text("X = 2\n")       # imported by neither
    assert (jit.sources_digest(caller), jit.sources_digest(callee)) == before
    jit.sources_digest.cache_clear()
    _package(tmp_path, "2.0")
    assert jit.sources_digest(caller) != before[0] and jit.sources_digest(callee) != before[1]
    jit.sources_digest.cache_clear()
