"""No import cycles in ``exactdp`` (with its proofs, ``exactdp.proofs``).

The scan reads every module's imports with :mod:`ast`: module-level imports and imports inside
functions alike (a function-level import that closes a cycle is still a cycle, only deferred);
imports under ``if TYPE_CHECKING:`` are left out (they never run).  ``from package import
name`` is an edge to ``package.name`` when that is a module, else to ``package`` itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOTS = ((REPO / "exactdp", "exactdp"), (REPO / "proofs", "exactdp.proofs"))


def modules_of(roots: Iterable[tuple[Path, str]]) -> dict[str, Path]:
    """Every module under each ``(folder, package name)``: dotted name -> file."""
    found: dict[str, Path] = {}
    for folder, package in roots:
        for path in sorted(folder.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _imports(tree: ast.AST) -> Iterable[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree``, at any depth, except under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking_only(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def edges_of(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """``module -> the modules of ``modules`` it imports``."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    package = name if is_package else name.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}" if base else package
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:  # import a.b.c of a module a.b
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module (Tarjan's
    algorithm, iterative), each as ``[a, b, ..., a]``, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return sorted(_a_cycle(graph, component) for component in components)


def _a_cycle(graph: Mapping[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the first module of ``component`` (breadth-first)."""
    start = min(component)
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & component):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return [*reversed(path), start]
                if child not in parent:
                    parent[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # a component always has one


def test_no_import_cycles_in_exactdp_and_its_proofs() -> None:
    modules = modules_of(ROOTS)
    assert "exactdp.cli.verify" in modules and "exactdp.proofs" in modules
    found = cycles(edges_of(modules))
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def _plant(root: Path, files: Mapping[str, str]) -> list[tuple[Path, str]]:
    for relative, text in files.items():
        path = root / "toy" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return [(root / "toy", "toy")]


def test_the_scan_finds_a_planted_cycle_through_a_function_level_import(tmp_path: Path) -> None:
    """toy.a imports toy.sub.b at the top; b imports a inside a function (relative form):
    a cycle.  toy.c imports a only under TYPE_CHECKING: not an edge."""
    roots = _plant(tmp_path, {
        "__init__.py": "",
        "a.py": "from toy.sub import b\n",
        "sub/__init__.py": "",
        "sub/b.py": "def f():\n    from .. import a\n    return a\n",
        "c.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import toy.a\n"
                 "import toy.sub.b\n"),
    })
    graph = edges_of(modules_of(roots))
    assert graph["toy.c"] == {"toy.sub.b"}
    assert cycles(graph) == [["toy.a", "toy.sub.b", "toy.a"]]


def test_the_scan_finds_a_longer_cycle_through_a_package_and_reports_each_once(
        tmp_path: Path) -> None:
    """x -> y -> pkg (``from toy.pkg import name``, a name of the package) -> x, and a
    separate two-module cycle; an acyclic module beside them is not reported."""
    roots = _plant(tmp_path, {
        "__init__.py": "",
        "x.py": "import toy.y\n",
        "y.py": "from toy.pkg import THING\n",
        "pkg/__init__.py": "from toy.x import *\nTHING = 1\n",
        "p.py": "import toy.q\n",
        "q.py": "class C:\n    def m(self):\n        import toy.p\n",
        "free.py": "import toy.x\nimport toy.p\n",
    })
    assert cycles(edges_of(modules_of(roots))) == [
        ["toy.p", "toy.q", "toy.p"], ["toy.pkg", "toy.x", "toy.y", "toy.pkg"]]
