"""The engine's layout (issue 39): no state at module level but the spec's
process-global RNG, read from ivp/'s source with ast."""

import ast
from pathlib import Path

IVP = Path(__file__).resolve().parent.parent / "ivp"
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "discard", "setdefault",
            "popitem"}
# the module-level names a function may change: the RNG's seed, global by the
# spec (10.1), and the registry of compiled kernels, filled as modules import
ALLOWED = {("rng.py", "_seed"), ("jit.py", "KERNELS")}


def modules():
    return sorted(IVP.rglob("*.py"))


def module_names(tree) -> set:
    out = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        out.update(t.id for t in targets if isinstance(t, ast.Name))
    return out


def module_state_writes(path: Path) -> set:
    """(file, name) of each module-level name that a function of the file
    rebinds (global), stores into or calls a mutating method of."""
    tree = ast.parse(path.read_text())
    names = module_names(tree)
    out = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Global):
                out.update((path.name, n) for n in node.names)
            elif (isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store)
                  and isinstance(node.value, ast.Name) and node.value.id in names):
                out.add((path.name, node.value.id))
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in MUTATORS and isinstance(node.func.value, ast.Name)
                  and node.func.value.id in names):
                out.add((path.name, node.func.value.id))
    return out


def test_no_function_of_ivp_changes_module_level_state_but_the_rng():
    writes = set().union(*map(module_state_writes, modules()))
    assert writes == ALLOWED


def test_the_scan_sees_a_module_level_counter(tmp_path):
    src = "_n = [0]\nseen = []\ndef f():\n    _n[0] += 1\n    seen.append(1)\n"
    path = tmp_path / "ivp_layout_probe.py"
    path.write_text(src)
    assert module_state_writes(path) == {("ivp_layout_probe.py", "_n"), ("ivp_layout_probe.py", "seen")}
