"""The engine's layout (issue 39), read from ivp/'s source with ast: no state
at module level but the spec's process-global RNG, no import circle, no
import inside a function."""

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


# --- imports ---------------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = path.relative_to(IVP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path):
    """(module imported, line, whether inside a function) of each import of
    the file; ``from P import n`` names P.n when that is a module."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    known = {module_name(p) for p in modules()}
    tree = ast.parse(path.read_text())
    inside = {id(n) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(fn) if n is not fn}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, id(node) in inside
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield (full if full in known else base), node.lineno, id(node) in inside


def import_graph() -> dict:
    """module -> the ivp modules it imports, module level and in functions;
    importing a.b.c imports the packages a and a.b first, so they count
    too, but for the importer's own packages (already being imported)."""
    names = {module_name(p): p for p in modules()}
    graph = {}
    for name, path in names.items():
        out = set()
        for target, _, _ in imports(path):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                x = ".".join(parts[:i])
                if x in names and name != x and not name.startswith(x + "."):
                    out.add(x)
        graph[name] = out
    return graph


def a_cycle(graph: dict):
    """One import circle of the graph as a list of modules, or None."""
    state = {}
    for start in sorted(graph):
        if start in state:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = "open"
        while stack:
            node, edges = stack[-1]
            nxt = next(edges, None)
            if nxt is None:
                state[node] = "done"
                stack.pop()
                path.pop()
            elif state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = "open"
                stack.append((nxt, iter(sorted(graph[nxt]))))
                path.append(nxt)
    return None


def test_ivp_has_no_import_circle():
    assert a_cycle(import_graph()) is None


def test_the_cycle_search_finds_a_circle():
    assert a_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert a_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_module_of_ivp_imports_inside_a_function():
    """numba, which may be absent, is imported at jit.py's module level."""
    inside = [(p.name, target, line) for p in modules() for target, line, in_function in imports(p)
              if in_function]
    assert inside == []


# the bottom layers of ivp/, lowest first: a module imports none of a layer
# above its own; every module not named here is above them all
LAYERS = [
    ("ivp.fp", "ivp.jit", "ivp.rng", "ivp.states", "ivp.umath", "ivp.kmath", "ivp.state"),  # numbers, the tables
    ("ivp.step.kernels",),                                          # the dynamics kernels over the tables' rows
]


def layer(name: str) -> int:
    for i, names in enumerate(LAYERS):
        if any(name == n or name.startswith(n + ".") for n in names):
            return i
    return len(LAYERS)


def upward(graph: dict) -> list:
    """(importer, imported) of each import of a layer above the importer's."""
    return sorted((a, b) for a, out in graph.items() for b in out if layer(b) > layer(a))


def test_the_tables_and_the_step_kernels_import_nothing_above_them():
    assert upward(import_graph()) == []


def test_the_layer_check_sees_an_upward_import():
    graph = {"ivp.state.bodies": {"ivp.step.kernels"}, "ivp.step.kernels": {"ivp.core", "ivp.state.layout"},
             "ivp.core": {"ivp.step.kernels"}}
    assert upward(graph) == [("ivp.state.bodies", "ivp.step.kernels"), ("ivp.step.kernels", "ivp.core")]


# --- size ------------------------------------------------------------------------------

MAX_LINES = 700


def test_no_module_of_ivp_is_over_700_lines():
    long = {str(p.relative_to(IVP)): n for p in modules()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}, long
