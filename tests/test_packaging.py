"""Packaging: every package folder is in pyproject's package list, the proofs install as
``exactdp.proofs`` (never a top-level ``proofs``), and the licence pyproject names ships."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _pyproject() -> dict:  # type: ignore[type-arg]
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _package_folders(root: Path, name: str) -> set[str]:
    """``name`` for ``root`` and a dotted name for every folder under it with an __init__.py."""
    return {".".join([name, *p.parent.relative_to(root).parts])
            for p in root.rglob("__init__.py") if "__pycache__" not in p.parts}


def test_every_package_folder_is_listed_and_proofs_map_into_exactdp() -> None:
    setuptools = _pyproject()["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    folders = _package_folders(REPO / "exactdp", "exactdp") | _package_folders(
        REPO / "proofs", "exactdp.proofs")
    assert listed == folders, (f"add to pyproject's packages: {sorted(folders - listed)}; "
                               f"remove: {sorted(listed - folders)}")
    assert setuptools["package-dir"] == {"exactdp.proofs": "proofs"}
    assert all(p == "exactdp" or p.startswith("exactdp.") for p in listed)


def test_the_licence_ships() -> None:
    project = _pyproject()["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "the exactdp authors" in text


def test_the_proofs_import_as_part_of_exactdp() -> None:
    from exactdp import proofs
    from exactdp.proofs import balcer_vadhan

    assert proofs.__name__ == "exactdp.proofs"
    assert Path(balcer_vadhan.__file__).parent.parent == Path(proofs.__file__).parent
    names = [m.__name__ for m in proofs.discover()]
    leaves = [n.rsplit(".", 1)[-1] for n in names]
    assert len(set(leaves)) == len(leaves), "two proof modules share a name (--only, order)"
    assert all(n.startswith("exactdp.proofs.") for n in names)


#: Packages that only extras bring ([plot], [notebook], [docs], [scale], [audit], ...): a test
#: file must not import them at module level, or ``pip install '.[test]'`` then ``pytest``
#: stops at collection; such tests skip with ``pytest.importorskip``.
OPTIONAL = {"numpy", "matplotlib", "marimo", "duckdb", "dask", "distributed", "sklearn",
            "sphinx", "myst_parser", "furo", "pandas", "pyarrow", "opendp", "diffprivlib",
            "pydp", "tmlt", "scipy", "flint"}


def module_level_optional_imports(text: str) -> list[tuple[int, str]]:
    """``(line, module)`` of the module-level imports of :data:`OPTIONAL` packages in
    ``text`` (a ``try:`` block's imports are guarded, so they do not count)."""
    found = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [(node.lineno, n) for n in names if n.split(".")[0] in OPTIONAL]
    return found


def test_the_test_extra_collects_without_the_optional_packages() -> None:
    pyproject = _pyproject()["project"]
    assert sorted(pyproject["optional-dependencies"]["test"]) == ["hypothesis>=6", "pytest>=7"]
    offenders = [f"{path.relative_to(REPO)}:{line}: import {name}"
                 for path in sorted((REPO / "tests").glob("test_*.py"))
                 for line, name in module_level_optional_imports(path.read_text("utf-8"))]
    assert not offenders, ("use pytest.importorskip for these (the [test] extra has none "
                           "of them):\n" + "\n".join(offenders))


def test_the_optional_import_scan_finds_a_planted_import() -> None:
    planted = "import os\nimport numpy as np\nfrom matplotlib import pyplot\n"
    guarded = "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n"
    assert module_level_optional_imports(planted) == [(2, "numpy"), (3, "matplotlib")]
    assert module_level_optional_imports(guarded) == []
