"""The layers docs/architecture.md draws, checked on every import in tinyflow/ (those inside
functions too): each points down the layers or within its own, no modules import each other
in a circle, and an import deferred into a function only defers torch (saying so)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "tinyflow"

# Top to bottom: a module may import modules of its own layer and of the layers below.
LAYERS = [
    ("front end", ("tinyflow", "tinyflow.frontend", "tinyflow.distributed", "tinyflow.examples",
                   "tinyflow.datasets")),
    ("session", ("tinyflow.session",)),
    ("executor", ("tinyflow.executor",)),
    ("Lua bodies", ("tinyflow.lua_ops",)),
    ("op meaning", ("tinyflow.ops",)),
    ("graph layer", ("tinyflow.nnvm",)),
]
# Deferred imports allowed: of a module that imports torch (or lupa) at its top, so that
# building graphs does not, with a comment on the import's line that says so.
DEFERRED_FOR = ("torch", "lupa")


def _modules() -> dict:
    """``{dotted name: (path, is_package)}`` of every module in tinyflow/."""
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


MODULES = _modules()


def _typing_only(tree) -> set:
    """ids of the nodes under ``if TYPE_CHECKING:`` (annotations, never run)."""
    return {id(inner) for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)}


def _targets(name, package, node) -> list[str]:
    """The tinyflow modules an import statement loads."""
    if isinstance(node, ast.Import):
        wanted = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = name.split(".") if package else name.split(".")[:-1]
            parts = parts[:len(parts) - node.level + 1]
            base = ".".join(parts + ([node.module] if node.module else []))
        subs = [f"{base}.{alias.name}" for alias in node.names]
        wanted = [s for s in subs if s in MODULES]
        if len(wanted) < len(subs):
            wanted.append(base)
    found = []
    for target in wanted:
        while target not in MODULES and "." in target:
            target = target.rsplit(".", 1)[0]
        if target in MODULES and target.startswith("tinyflow"):
            found.append(target)
    return found


def _imports() -> list[tuple]:
    """``(module, target, line, deferred, source line)`` for every import of a tinyflow module."""
    found = []
    for name, (path, package) in MODULES.items():
        text = path.read_text()
        tree, lines = ast.parse(text), text.splitlines()
        skip = _typing_only(tree)
        in_function = {id(inner) for node in ast.walk(tree)
                       if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for inner in ast.walk(node)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skip:
                for target in _targets(name, package, node):
                    if target != name:
                        found.append((name, target, node.lineno, id(node) in in_function,
                                      lines[node.lineno - 1]))
    return found


IMPORTS = _imports()


def _layer(module: str) -> int:
    """The index in LAYERS of the layer holding ``module`` (its longest matching prefix)."""
    best, index = "", None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
                best, index = prefix, i
    assert index is not None, f"{module} is in no layer: add it to LAYERS"
    return index


def test_every_module_is_in_a_layer():
    for module in MODULES:
        _layer(module)


def test_every_import_points_down_the_layers():
    upward = [f"{module}:{line} imports {target} ({LAYERS[_layer(module)][0]} -> "
              f"{LAYERS[_layer(target)][0]})"
              for module, target, line, _, _ in IMPORTS if _layer(target) < _layer(module)]
    assert not upward, "imports pointing up the layers:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph = {}
    for module, target, *_ in IMPORTS:
        graph.setdefault(module, set()).add(target)
    cycles, order, low, stack, on_stack = [], {}, {}, [], set()

    def visit(start):  # Tarjan's strongly connected components, iteratively
        work = [(start, iter(sorted(graph.get(start, ()))))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], order[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))

    for module in sorted(MODULES):
        if module not in order:
            visit(module)
    assert not cycles, "modules importing each other in a circle: " + "; ".join(
        " <-> ".join(c) for c in cycles)


def _imports_at_top(module: str) -> set:
    path, _ = MODULES[module]
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_a_deferred_import_only_defers_torch():
    wrong = [f"{module}:{line} {text.strip()}" for module, target, line, deferred, text in IMPORTS
             if deferred and not (set(DEFERRED_FOR) & _imports_at_top(target)
                                  and any(word in text for word in DEFERRED_FOR))]
    assert not wrong, ("imports of tinyflow modules deferred into functions, other than one of "
                       "a module importing torch at its top, commented so:\n" + "\n".join(wrong))


@pytest.mark.parametrize("probe", ["tinyflow.nnvm.symbol", "tinyflow.frontend.api"])
def test_the_checks_see_imports(probe):
    """The walk finds the imports it judges (a check that finds nothing proves nothing)."""
    assert any(module == probe for module, *_ in IMPORTS)


def test_the_core_stands_without_the_optimisations():
    """No core module imports an optimisation pass: the optimisations are optional, run by name
    from the executor's pipeline (``Session(optimize=False)`` runs without them)."""
    optional = "tinyflow.nnvm.optimizations"
    wrong = [f"{module}:{line} imports {target}" for module, target, line, _, _ in IMPORTS
             if target.startswith(optional) and not module.startswith(optional)
             and module != "tinyflow.nnvm"]
    assert not wrong, "\n".join(wrong)


def test_the_host_memory_figure_is_read_through_its_module():
    # one point every host check reads and tests patch (nnvm/host_memory.py): a name imported
    # from it would keep the function a test replaced, and a second reader of /proc/meminfo
    # would be a figure no test's limit reaches
    readers = []
    for name, (path, _) in MODULES.items():
        text = path.read_text()
        if name != "tinyflow.nnvm.host_memory" and "/proc/meminfo\"" in text:
            readers.append(f"{name} reads /proc/meminfo")
        for node in ast.walk(ast.parse(text)):
            if (isinstance(node, ast.ImportFrom) and (node.module or "").endswith("host_memory")
                    and any(alias.name == "host_available_bytes" for alias in node.names)):
                readers.append(f"{name}:{node.lineno} imports host_available_bytes by name")
    assert not readers, readers
