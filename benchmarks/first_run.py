"""Benchmark: the first ``ivp run`` after an install (issue 39 "First run").

Runs ``ivp run SCENE --quiet`` in a child process whose numba disk cache is
an empty temporary folder (``NUMBA_CACHE_DIR``), then once more on the
filled cache, and prints both wall times, the seconds numba spent
compiling (CPU seconds of the run's thread: steady on a loaded machine; a
wait for the second compiler's kernel is not counted), and the kernels that cost the most: *own* seconds are a kernel's
compile less the kernels it compiled on the way (its callees), *LLVM* the
part of its own seconds spent optimizing and linking machine code (a caller
re-optimizes the code of every callee linked into it), and *copies*: in
how many other kernels' libraries a kernel's code is linked.

    python benchmarks/first_run.py [SCENE ...] [--top 15] [--one-core] [--write-list] [--unused]

A first run compiles on two cores when it can (``ivp.precompile``);
``--one-core`` measures it without the second compiler. ``--unused`` also
runs the scene with the kernels as plain Python (``IVP_JIT=0``, the compiled
paths taken, every kernel counting its calls; minutes) and lists the kernels
the first run compiles that the run never calls, with their compile seconds.

A scene is a bundled name or a level file (default: the bundled default
scene, which is the sample level).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)                # this checkout's ivp, not an installed one


def child(scene: str, out: str, one_core: bool) -> None:
    """Run the scene under numba's compile events; write the per-kernel
    CPU seconds (inclusive, own, own LLVM) and the wall time to ``out``."""
    from numba.core import event

    from ivp import jit, precompile
    stack = []                      # [name, start, child seconds, llvm seconds, llvm start, llvm depth]
    kernels = {}
    roots = []                      # precompile lines of the kernels compiled at a call from Python

    class Compiles(event.Listener):
        def on_start(self, ev):
            if ev.kind == "numba:compile":
                if ev.data["dispatcher"] in jit.KERNELS:       # called from Python, or listed (jit.CALLED_FROM_PYTHON)
                    roots.append(precompile.line(ev.data["dispatcher"], ev.data["args"]))
                d = ev.data["dispatcher"].py_func
                stack.append([f"{d.__module__}.{d.__qualname__}", time.thread_time(), 0.0, 0.0, 0.0, 0])
            elif stack:
                if stack[-1][5] == 0:
                    stack[-1][4] = time.thread_time()
                stack[-1][5] += 1

        def on_end(self, ev):
            if ev.kind == "numba:compile":
                name, t0, inner, llvm, _, _ = stack.pop()
                took = time.thread_time() - t0
                k = kernels.setdefault(name, [0.0, 0.0, 0.0, 0])
                k[0] += took
                k[1] += took - inner
                k[2] += llvm
                k[3] += 1
                if stack:
                    stack[-1][2] += took
            elif stack and stack[-1][5] > 0:
                stack[-1][5] -= 1
                if stack[-1][5] == 0:
                    stack[-1][3] += time.thread_time() - stack[-1][4]

    if one_core:
        precompile.LIST = ""        # no list: no second compiler
    listener = Compiles()
    event.register("numba:compile", listener)
    event.register("numba:llvm_lock", listener)
    from viewer.cli import main
    t0 = time.perf_counter()
    code = main(["run", scene, "--quiet"])
    wall = time.perf_counter() - t0
    with open(out, "w") as f:
        json.dump({"code": code, "wall": wall, "own_cpu": time.process_time(), "kernels": kernels, "roots": roots,
                   "copies": copies(jit.KERNELS)}, f)


def copies(kernels) -> dict:
    """For each kernel version compiled in this process (a kernel and its
    callee copy apart): in how many other compiled libraries its code is
    linked, re-optimized and emitted again (a caller links the whole tree
    of its callees)."""
    names = {}
    for k in kernels:
        for d in (k, getattr(k, "callee", None)):
            for cres in (d.overloads.values() if d is not None else ()):
                if not cres.library._disable_inspection:      # compiled here, not loaded from the cache
                    fn = d.py_func
                    names[cres.library] = f"{fn.__module__}.{fn.__qualname__}"
    tree = {}

    def linked(lib):
        if lib not in tree:
            tree[lib] = set()
            for sub in lib._linking_libraries:
                tree[lib] |= {sub} | linked(sub)
        return tree[lib]
    count = dict.fromkeys(names.values(), 0)
    for lib in names:
        for sub in linked(lib):
            if sub in names:
                count[names[sub]] += 1
    return count


def count_child(scene: str, out: str) -> None:
    """Run the scene with the kernels as plain Python but on the paths the
    compiled engine takes (``jit.ENABLED`` set before the engine is imported),
    each kernel counting its calls; write
    ``{module.qualname: calls}`` to ``out``."""
    import functools
    import importlib.util

    spec = importlib.util.spec_from_file_location("ivp.jit", os.path.join(ROOT, "ivp", "jit.py"))
    jit = importlib.util.module_from_spec(spec)     # before the package: its modules decorate at import
    sys.modules["ivp.jit"] = jit
    spec.loader.exec_module(jit)
    assert not jit.ENABLED, "run with IVP_JIT=0"
    calls = {}

    def kernel(fn):
        name = f"{fn.__module__}.{fn.__qualname__}"
        calls[name] = 0

        @functools.wraps(fn)
        def counted(*args, **kws):
            calls[name] += 1
            return fn(*args, **kws)
        return counted

    jit.kernel = kernel
    jit.ENABLED = True              # the compiled engine's paths (the lane, controller runs, broadphase kernels)
    from ivp import precompile
    precompile.LIST = ""            # no second compiler
    from viewer.cli import main
    code = main(["run", scene, "--quiet"])
    with open(out, "w") as f:
        json.dump({"code": code, "calls": calls}, f)


def count_calls(scene: str) -> dict:
    """The kernels' calls in a plain-Python run of the scene (:func:`count_child`)
    and the run's summary lines (``summary``)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    run = subprocess.run([sys.executable, __file__, "--count", scene, out], cwd=ROOT,
                         env=dict(os.environ, IVP_JIT="0"), check=True, stdout=subprocess.PIPE, text=True)
    got = json.load(open(out))
    os.unlink(out)
    got["summary"] = _summary(run.stdout)
    return got


def _summary(stdout: str) -> list:
    """A run's printed summary without its wall time (the same bits give the same lines)."""
    return [line for line in stdout.splitlines() if not line.startswith("wall time")]


def measure(scene: str, cache: str, one_core: bool) -> dict:
    """One ``ivp run`` of the scene in a child process on the given cache
    folder, timed from the process start (imports included)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t0 = time.perf_counter()
    cpu0 = _children_cpu()
    run = subprocess.run([sys.executable, __file__, "--child", scene, out, str(int(one_core))], cwd=ROOT, env=env,
                         check=True, stdout=subprocess.PIPE, text=True)
    got = json.load(open(out))
    os.unlink(out)
    got["summary"] = _summary(run.stdout)
    got["process"] = time.perf_counter() - t0
    got["cpu"] = _children_cpu() - cpu0
    return got


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (user + system): on a
    loaded machine a steadier measure than the wall time."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def report(scene: str, top: int, one_core: bool, write_list: bool, unused: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="ivp-first-run-") as cache:
        cold = measure(scene, cache, one_core or write_list)
        warm = measure(scene, cache, one_core)
    if write_list:
        from ivp.precompile import LIST
        with open(LIST, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in cold["roots"]))
        print(f"wrote {len(cold['roots'])} lines to {LIST}")
    ks = cold["kernels"]
    own = sum(k[1] for k in ks.values())
    llvm = sum(k[2] for k in ks.values())
    print(f"{scene}: first run {cold['process']:.1f} s wall, {cold['cpu']:.1f} s CPU ({cold['own_cpu']:.1f} s in the run's "
          f"process; compiling {own:.1f} s: "
          f"{sum(k[3] for k in ks.values())} versions of {len(ks)} kernels, LLVM {llvm:.1f} s of it); "
          f"warm run {warm['process']:.1f} s wall, {warm['cpu']:.1f} s CPU, "
          f"{sum(k[3] for k in warm['kernels'].values())} compiled")
    linked = cold["copies"]
    print(f"  kernel code linked into other kernels' libraries {sum(linked.values())} times "
          f"({sum(1 for n in linked.values() if n)} of {len(linked)} kernels; 'copies' below)")
    print(f"  {'kernel':60s} {'own s':>7s} {'LLVM s':>7s} {'incl. s':>8s} versions copies")
    for name, (incl, mine, ll, n) in sorted(ks.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {name:60s} {mine:7.2f} {ll:7.2f} {incl:8.2f} {n:8d} {linked.get(name, 0):6d}")
    if unused:
        counted = count_calls(scene)
        if counted["summary"] != cold["summary"]:
            raise SystemExit(f"{scene}: the plain-Python run ended otherwise than the compiled run:\n"
                             + "\n".join(counted["summary"] + ["--"] + cold["summary"]))
        print_unused(ks, counted["calls"])


def print_unused(compiled: dict, calls: dict) -> None:
    """The kernels compiled at the first run (``compiled``: name to inclusive,
    own, LLVM seconds and versions) that the run never calls (``calls``: name
    to calls in the plain-Python run); numba's own helpers are not counted."""
    never = {n: k for n, k in compiled.items() if calls.get(n, -1) == 0}
    ran = sum(1 for n in compiled if calls.get(n, 0) > 0)
    own = sum(k[1] for k in compiled.values())
    lost = sum(k[1] for k in never.values())
    print(f"  {ran} compiled kernels called, {len(never)} never called: {lost:.1f} s of the {own:.1f} s own compile")
    print(f"  {'never called':60s} {'own s':>7s} {'LLVM s':>7s} {'incl. s':>8s} versions")
    for name, (incl, mine, ll, n) in sorted(never.items(), key=lambda kv: -kv[1][1]):
        print(f"  {name:60s} {mine:7.2f} {ll:7.2f} {incl:8.2f} {n:8d}")


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4] == "1")
        return
    if len(sys.argv) == 4 and sys.argv[1] == "--count":
        count_child(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenes", nargs="*", default=["sample_level"], help="bundled scenes or level files")
    ap.add_argument("--top", type=int, default=15, help="how many kernels to list (default 15)")
    ap.add_argument("--one-core", action="store_true", help="no second compiler (ivp.precompile)")
    ap.add_argument("--write-list", action="store_true",
                    help="write ivp/first_run_kernels.txt: the kernels the first scene's run calls from Python, "
                         "in the order of their first call (its first run is then without the second compiler)")
    ap.add_argument("--unused", action="store_true",
                    help="also list the compiled kernels the run never calls (a plain-Python run: minutes)")
    args = ap.parse_args()
    for i, scene in enumerate(args.scenes):
        report(scene, args.top, args.one_core, args.write_list and i == 0, args.unused)


if __name__ == "__main__":
    main()
