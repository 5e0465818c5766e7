"""The module graph of ``mqcn_model`` and ``mqcn_suite``: no import circle, no shared file name.

Read with the standard library only: :mod:`ast` over every ``.py`` file of both packages, so
nothing is imported to look at it.

What counts as an import (the rules the tests below apply):

* every ``import`` statement, at module level or inside a function (a *lazy* import). A lazy
  import still makes the importing module depend on the imported one; placing it in a function
  only hides a circle until the function runs, so it counts;
* except those under ``if TYPE_CHECKING:``, which never run (annotations only);
* ``from package import name`` is an edge to ``package.name`` when that is a module of the
  tree, else to ``package`` itself (``name`` is then an attribute of its ``__init__``);
  relative imports are resolved against the importing module's package;
* the implicit import of a parent package's ``__init__`` (``import a.b`` runs ``a/__init__``)
  is not an edge: a package's ``__init__`` that gathers its own submodules would otherwise
  close a circle with every one of them.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("mqcn_model", "mqcn_suite")


def module_files(package: str) -> dict[str, Path]:
    """Every module of ``package``: dotted name → file (``a/__init__.py`` is ``a``)."""
    modules: dict[str, Path] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


MODULES: dict[str, Path] = {
    name: path for package in PACKAGES for name, path in module_files(package).items()
}


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``: a block that never runs."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _runtime_imports(nodes: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement among ``nodes`` and inside them, lazy ones included, skipping
    the body of ``if TYPE_CHECKING:`` (its ``else`` runs, so it is read)."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _runtime_imports(node.orelse)
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield from _runtime_imports([child])


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The absolute package a ``from … import`` names, resolving its leading dots."""
    if not node.level:
        return node.module or ""
    is_package = MODULES[module].name == "__init__.py"
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(module: str) -> set[str]:
    """The modules of the tree that ``module`` imports (the edges of the graph)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"), str(MODULES[module]))
    found: set[str] = set()
    for node in _runtime_imports(tree.body):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
            continue
        source = _absolute(module, node)
        for alias in node.names:
            submodule = f"{source}.{alias.name}"
            found.add(submodule if submodule in MODULES else source)
    return {name for name in found if name in MODULES and name != module}


def graph() -> dict[str, set[str]]:
    """The import graph of both packages."""
    return {module: imports_of(module) for module in MODULES}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted.

    >>> circles({"a": {"b"}, "b": {"a"}, "c": {"a"}})
    [['a', 'b']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
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

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_reader_sees_lazy_relative_and_from_imports() -> None:
    """The graph reader itself: known edges of the tree are found (a guard that it reads)."""
    edges = graph()
    assert "mqcn_suite.exit_codes" in edges["mqcn_suite.selftest.mutation"]
    assert "mqcn_model" not in edges["mqcn_suite.exit_codes"]
    assert len(MODULES) > 100
    assert all(edges[module] <= set(MODULES) for module in MODULES)


def test_circles_finds_a_circle_through_three_modules() -> None:
    """The circle finder on a small graph: a three-module circle and a module outside it."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert circles(edges) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_either_package() -> None:
    """Issue 19 item 9: no module reaches itself again through its imports (lazy ones too)."""
    found = circles(graph())
    listed = "\n".join(" ↔ ".join(component) for component in found)
    assert not found, f"import circles (modules that import each other):\n{listed}"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_two_modules_share_a_file_name(package: str) -> None:
    """Each module is named after what it holds, so no two files of a package share a name."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in module_files(package).values():
        if path.name not in {"__init__.py", "__main__.py"}:
            by_name[path.name].append(str(path.relative_to(ROOT)))
    shared = {name: paths for name, paths in sorted(by_name.items()) if len(paths) > 1}
    assert not shared, f"{package}: file names used twice: {shared}"


def test_the_mutation_tool_sits_below_the_command_line() -> None:
    """selftest/ (the mutation tool) never imports the CLI layer (cli, commands/)."""
    edges = graph()
    upward = {
        (module, target)
        for module in edges
        if module.startswith("mqcn_suite.selftest")
        for target in edges[module]
        if target == "mqcn_suite.cli" or target.startswith("mqcn_suite.commands")
    }
    assert not upward, f"selftest imports the CLI layer: {sorted(upward)}"
