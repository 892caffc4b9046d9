"""Executable proofs: one module per theorem or lemma of the papers.

Each module states its claim (``CLAIM``, ``STATEMENT``), sketches the proof in prose
(``PROOF_IDEA``), and has ``check(full: bool) -> ClaimReport`` that checks the claim
exhaustively and exactly on a parameter grid (a small grid when ``full`` is False, the
``--full`` grid otherwise), on the implementation itself, returning certificates.  A module
whose claim has several parts lists one such function per part in ``CHECKS`` instead.

``exactdp verify`` runs every check found here, in module-name order, one row each.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

from exactdp.certificate import ClaimReport

__all__ = ["checks_of", "discover", "load"]


def _paper_order(name: str) -> tuple[int, int, str]:
    """Sort ``thm_4_07_geosample`` as (4, 7): kind_section_number_rest; appendix ``a`` last."""
    parts = name.split("_")
    try:
        section = 100 if parts[1] == "a" else int(parts[1])
        number = int(parts[2])
    except (IndexError, ValueError):
        return (1000, 0, name)
    return (section, number, name)


def discover() -> list[ModuleType]:
    """The proof modules of this package, in the paper's order (``kind_S_NN_topic``).

    A module that fails to import is represented by a stand-in whose one check raises the
    import error, so that ``exactdp verify`` reports it as a FAIL row and runs the rest."""
    names = sorted((m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")),
                   key=_paper_order)
    return [load(f"{__name__}.{name}") for name in names]


def load(qualified: str) -> ModuleType:
    """Import the proof module ``qualified`` (e.g. ``proofs.thm_4_07_geosample``), or a stand-in
    whose one check raises the import error (also used by ``exactdp verify --workers`` to load a
    claim's module again inside a worker process)."""
    name = qualified.rsplit(".", 1)[-1]
    try:
        return importlib.import_module(qualified)
    except Exception as exc:  # noqa: BLE001 - reported as the module's failed claim
        error = exc
    stand_in = ModuleType(qualified)
    stand_in.CLAIM = f"{name} (did not import)"  # type: ignore[attr-defined]

    def check(full: bool) -> ClaimReport:
        raise error

    check.__module__ = stand_in.__name__
    check.CLAIM = stand_in.CLAIM  # type: ignore[attr-defined]
    stand_in.check = check  # type: ignore[attr-defined]
    return stand_in


def checks_of(module: ModuleType) -> list[Callable[[bool], ClaimReport]]:
    """The module's ``CHECKS`` if it has them, else ``[module.check]``."""
    checks = getattr(module, "CHECKS", None)
    return list(checks) if checks is not None else [module.check]
