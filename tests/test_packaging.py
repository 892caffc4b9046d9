"""Packaging: every package folder is in pyproject's package list, the proofs install as
``exactdp.proofs`` (never a top-level ``proofs``), and the licence pyproject names ships."""

from __future__ import annotations

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
