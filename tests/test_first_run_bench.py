"""benchmarks/first_run.py's ``--unused`` table (issue 39 "First run"): the
kernels a first run compiles that the run never calls, and their seconds."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import first_run  # noqa: E402


def test_unused_lists_the_compiled_kernels_never_called(capsys):
    compiled = {                            # name: inclusive, own, LLVM seconds, versions
        "ivp.a.caller_k": [5.0, 3.0, 1.0, 1],
        "ivp.a.rare_k": [2.0, 1.5, 0.5, 1],
        "ivp.a.rarer_k": [0.25, 0.3, 0.1, 2],
        "numba.np.arrayobj.ol_np_empty.<locals>.impl": [0.5, 0.5, 0.2, 3],     # numba's helper: no count
    }
    calls = {"ivp.a.caller_k": 7, "ivp.a.rare_k": 0, "ivp.a.rarer_k": 0, "ivp.a.not_compiled_k": 0}
    first_run.print_unused(compiled, calls)
    out = capsys.readouterr().out.splitlines()
    # own seconds: 3 + 1.5 + 0.3 + 0.5 = 5.3; never called: 1.5 + 0.3 = 1.8
    assert out[0] == "  1 compiled kernels called, 2 never called: 1.8 s of the 5.3 s own compile"
    names = [line.split()[0] for line in out[2:]]
    assert names == ["ivp.a.rare_k", "ivp.a.rarer_k"]          # the costlier first; the one not compiled left out
    assert out[3].split()[1:] == ["0.30", "0.10", "0.25", "2"]
