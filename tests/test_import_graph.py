"""No import circle inside symrmt and no import upwards between its layers, counting the imports made inside functions.

Every ``import`` and ``from ... import`` statement of every module is read (also inside functions,
methods and ``if TYPE_CHECKING:`` blocks), relative imports are resolved, and ``from package import
name`` counts as an import of the submodule ``package.name`` when there is one, else of the package.
The implicit import of a parent package by its submodules is not an edge (every package would
otherwise close a circle with its own ``__init__``). A function-local import is fine for a heavy
dependency (SymPy, matplotlib, a module of symrmt that loads one); it may never close a circle.

The layers are read from the one table that states them, "The layers" in docs/architecture.md: a module
may import its own layer and those below it, never one above, also inside a function.
"""
from __future__ import annotations

import ast
import pathlib
import re

import pytest

PACKAGE = pathlib.Path(__file__).parents[1] / "symrmt"
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def modules(root: pathlib.Path) -> dict[str, tuple[pathlib.Path, bool]]:
    """Dotted module name -> (file, whether it is a package's ``__init__``) for every module under ``root``."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def import_graph(root: pathlib.Path) -> dict[str, dict[str, int]]:
    """Module -> {imported module of the same tree: line of the first such import}."""
    known = modules(root)
    graph: dict[str, dict[str, int]] = {name: {} for name in known}
    for name, (path, package) in known.items():
        here = name if package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source
                           for alias in node.names]
            else:
                continue
            for target in targets:
                while target not in known and "." in target:   # symrmt.x.name -> symrmt.x
                    target = target.rpartition(".")[0]
                if target in known and target != name:
                    graph[name].setdefault(target, node.lineno)
    return graph


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def describe(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    return "; ".join(f"{a} -> {b} (line {graph[a][b]})" for a in component for b in graph[a] if b in component)


def test_symrmt_has_no_import_circle():
    graph = import_graph(PACKAGE)
    assert len(graph) > 100 and sum(map(len, graph.values())) > 300      # the walk saw the package
    found = circles(graph)
    assert not found, "import circles: " + " | ".join(describe(graph, c) for c in found)


def private_imports(root: pathlib.Path) -> list[str]:
    """``module:line name`` for each underscore name imported from another module of the package ``root``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level:
                found += [f"{path.relative_to(root.parent)}:{node.lineno} {alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
    return found


@pytest.mark.parametrize("package", ["nonlinearity", "simulation", "figures", "weights"])
def test_what_modules_share_is_public(package):
    """What one module of the package takes from another is public inside the package (no leading underscore)."""
    assert private_imports(PACKAGE / package) == []


def test_a_planted_private_import_is_caught(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    from .b import _hidden\n")
    assert private_imports(tmp_path / "pkg") == ["pkg/a.py:2 _hidden"]


def test_function_local_imports_are_edges():
    """The import inside nonlinearity.simulated's function (SymPy, through api) is seen."""
    assert "symrmt.nonlinearity.api" in import_graph(PACKAGE)["symrmt.nonlinearity.simulated"]


@pytest.mark.parametrize("where", ["top", "function", "type_checking"])
def test_a_planted_circle_is_caught(tmp_path, where):
    """Power: a circle through a relative import, hidden in a function or a TYPE_CHECKING block, is found."""
    package = tmp_path / "symrmt" / "inner"
    package.mkdir(parents=True)
    (tmp_path / "symrmt" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from .a import A\n")
    (package / "a.py").write_text("from .b import B\nA = 1\n")
    back = {"top": "from . import a\n",
            "function": "def f():\n    from ..inner.a import A\n    return A\n",
            "type_checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from symrmt.inner import a\n"}
    (package / "b.py").write_text(back[where] + "B = 2\n")
    graph = import_graph(tmp_path / "symrmt")
    assert circles(graph) == [["symrmt.inner.a", "symrmt.inner.b"]]
    (package / "b.py").write_text("B = 2\n")
    assert circles(import_graph(tmp_path / "symrmt")) == []


def layer_ranks(page: str) -> dict[str, int]:
    """Package (``symrmt.x``) -> the rank of its row in the table under "## The layers" (0 is the top)."""
    section = page[page.index("## The layers"):]
    end = section.find("\n## ", 1)
    section = section if end < 0 else section[:end]
    rows = [line for line in section.splitlines()
            if line.startswith("|") and not set(line) <= set("|- ") and not line.startswith("| layer ")]
    return {name: rank for rank, row in enumerate(rows) for name in re.findall(r"`(symrmt\.\w+)`", row.split("|")[2])}


def facade_imports(root: pathlib.Path) -> list[tuple[str, int, str]]:
    """(module, line, name) for each name a module imports from the root package itself (``from symrmt import x``)."""
    known = modules(root)
    found = []
    for name, (path, package) in known.items():
        here = name if package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                source = ".".join(here.split(".")[: len(here.split(".")) - node.level + 1]) if node.level else ""
                source = ".".join(filter(None, [source, node.module or ""]))
                if source == root.name:
                    found += [(name, node.lineno, alias.name) for alias in node.names
                              if f"{root.name}.{alias.name}" not in known]
    return found


def upward_imports(root: pathlib.Path, ranks: dict[str, int]) -> list[str]:
    """``module:line -> target`` for each import of a layer above the module's own, and each module without a layer.

    The root package (its ``__init__`` and ``__main__``) is the facade above every layer; from it a layer below the
    top may take only ``__version__``, which the root defines itself (any other name is an import of the layer that
    defines it, hidden behind the facade).
    """
    def rank(module: str) -> int | None:
        return ranks.get(".".join(module.split(".")[:2]))

    found = []
    for module, targets in sorted(import_graph(root).items()):
        if module in (root.name, f"{root.name}.__main__"):
            continue
        if rank(module) is None:
            found.append(f"{module}: in no layer of the table")
            continue
        found += [f"{module}:{line} -> {target}" for target, line in sorted(targets.items())
                  if target != root.name and rank(target) is not None and rank(target) < rank(module)]
    found += [f"{module}:{line} -> {root.name}.{name}" for module, line, name in facade_imports(root)
              if name != "__version__" and (rank(module) or 0) > 0]
    return found


def test_the_layers_are_written_once_and_cover_the_package():
    ranks = layer_ranks(ARCHITECTURE.read_text())
    assert len(set(ranks.values())) >= 10 and "symrmt.general" in ranks and "symrmt.inputs" not in ranks
    packages = {".".join(m.split(".")[:2]) for m in modules(PACKAGE)} - {"symrmt", "symrmt.__main__"}
    assert packages == set(ranks), f"packages without a layer: {packages - set(ranks)}; rows of no package: " \
                                   f"{set(ranks) - packages}"


def test_no_module_imports_a_layer_above_its_own():
    found = upward_imports(PACKAGE, layer_ranks(ARCHITECTURE.read_text()))
    assert not found, "imports upwards (docs/architecture.md, The layers): " + "; ".join(found)


PLANTED_PAGE = """## The layers

| layer | packages | what it knows |
| --- | --- | --- |
| top | `symrmt.high` | everything |
| bottom | `symrmt.low`, `symrmt.errors` | nothing above |

## Next
| x | `symrmt.other` | not a layer |
"""


@pytest.mark.parametrize("where", ["top", "function", "type_checking", "facade"])
def test_a_planted_upward_import_is_caught(tmp_path, where):
    """Power: an import of a higher layer, at the top, in a function, for type checking or behind the facade."""
    root = tmp_path / "symrmt"
    for package in ("high", "low"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
    (root / "__init__.py").write_text("__version__ = '1'\n")
    (root / "errors.py").write_text("")
    (root / "high" / "a.py").write_text("from ..low import b\nfrom .. import errors\n")
    ranks = layer_ranks(PLANTED_PAGE)
    assert ranks == {"symrmt.high": 0, "symrmt.low": 1, "symrmt.errors": 1}
    (root / "low" / "b.py").write_text("from symrmt import __version__\nfrom .. import errors\n")
    assert upward_imports(root, ranks) == []
    up = {"top": ("from ..high import a\n", "symrmt.low.b:1 -> symrmt.high.a"),
          "function": ("def f():\n    from symrmt.high.a import A\n", "symrmt.low.b:2 -> symrmt.high.a"),
          "type_checking": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import symrmt.high\n",
                            "symrmt.low.b:3 -> symrmt.high"),
          "facade": ("def f():\n    from .. import simulate\n", "symrmt.low.b:2 -> symrmt.simulate")}
    text, expected = up[where]
    (root / "low" / "b.py").write_text(text)
    assert upward_imports(root, ranks) == [expected]
    (root / "other.py").write_text("")
    assert "symrmt.other: in no layer of the table" in upward_imports(root, ranks)


#: ``# heavy: SymPy`` or ``# optional: safetensors`` on the line of an import made inside a function.
REASON = re.compile(r"#\s*(heavy|optional):\s*\w")


def unexplained_local_imports(root: pathlib.Path) -> list[str]:
    """``path:line`` of each import made inside a function whose first line gives no reason for being there.

    A function-local import is for deferring a heavy dependency (SymPy, SciPy, mpmath, Matplotlib, Numba, Dask,
    or a module of the package that loads one) or an optional one; it says which, in two words.
    """
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        lines = text.splitlines()
        for function in ast.walk(ast.parse(text, str(path))):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [f"{path.relative_to(root.parent)}:{node.lineno}" for node in ast.walk(function)
                          if isinstance(node, (ast.Import, ast.ImportFrom))
                          and not REASON.search(lines[node.lineno - 1])]
    return sorted(set(found))


def test_every_function_local_import_says_why():
    """Each import inside a function defers a heavy dependency or an optional one, and says which (issue 38 item 5).

    257 function-local imports had none when this check was written (2026-12-07); each was since moved to the top of
    its module or given its reason.
    """
    found = unexplained_local_imports(PACKAGE)
    assert not found, (f"{len(found)} function-local imports without '# heavy: NAME' or '# optional: NAME': move a "
                       f"light import to the top of its module, or say why it is deferred: " + ", ".join(found))


def test_a_planted_local_import_without_a_reason_is_caught(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("import os\n\n\ndef f():\n    import sympy  # heavy: SymPy\n"
                                           "    from . import b\n    import safetensors  # optional: safetensors\n")
    assert unexplained_local_imports(tmp_path / "pkg") == ["pkg/a.py:6"]
