"""Executable proofs: one module per theorem or lemma of the papers.

Each module states its claim (``CLAIM``, ``STATEMENT``), sketches the proof in prose
(``PROOF_IDEA``), and has ``check(full: bool) -> ClaimReport`` that checks the claim
exhaustively and exactly on a parameter grid (a small grid when ``full`` is False, the
``--full`` grid otherwise), on the implementation itself, returning certificates.  A module
whose claim has several parts lists one such function per part in ``CHECKS`` instead.

The modules are grouped by paper: ``balcer_vadhan`` (Balcer & Vadhan, *Differential Privacy
on Finite Computers*), ``alp`` (Aumüller, Lebeda & Pagh, *Differentially Private Sparse
Vectors with Low Error, Optimal Space, and Fast Access*), ``li_li`` (Li & Li, *Differential
Privacy with Random Projections and Sign Random Projections*), ``convolution`` (Fawaz,
Muthukrishnan & Nikolov, *Nearly Optimal Private Convolution*), and ``audit`` (claims about
exactdp's own audit machinery); the helpers shared by several
papers sit beside them (``_strict_time``, ``_histograms``, ``_brute_force``).
``exactdp verify`` runs every check found in these folders, in the papers' order of the
module names (``kind_S_NN_topic``, whatever the folder), one row each.  Installed, this folder
is the package ``exactdp.proofs``.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import traceback
from collections.abc import Callable
from types import ModuleType

from exactdp.certificate import ClaimReport

__all__ = ["checks_of", "discover", "load", "run_check"]


def _paper_order(name: str) -> tuple[int, int, str]:
    """Sort ``thm_4_07_geosample`` as (4, 7): kind_section_number_rest; appendix ``a`` last."""
    parts = name.split("_")
    try:
        section = 100 if parts[1] == "a" else int(parts[1])
        number = int(parts[2])
    except (IndexError, ValueError):
        return (1000, 0, name)
    return (section, number, name)


def _module_names() -> list[str]:
    """The qualified names of the proof modules: the public modules of this package and of
    its public subpackages (one level: the papers' folders)."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        if not info.ispkg:
            found.append(f"{__name__}.{info.name}")
            continue
        group = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(f"{group.__name__}.{sub.name}" for sub in pkgutil.iter_modules(group.__path__)
                     if not sub.name.startswith("_") and not sub.ispkg)
    return found


def discover() -> list[ModuleType]:
    """The proof modules of this package, in the paper's order (``kind_S_NN_topic``) of their
    own names (the folder does not change the order).

    A module that fails to import is represented by a stand-in whose one check raises the
    import error, so that ``exactdp verify`` reports it as a FAIL row and runs the rest."""
    names = sorted(_module_names(), key=lambda q: _paper_order(q.rsplit(".", 1)[-1]))
    return [load(name) for name in names]


def load(qualified: str) -> ModuleType:
    """Import the proof module ``qualified`` (e.g. ``exactdp.proofs.balcer_vadhan.thm_4_07_geosample``), or a stand-in
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


def run_check(check: object, full: bool) -> ClaimReport:
    """Run one proof check; an exception becomes a failed :class:`ClaimReport` naming it
    (with no certificates, so its verdict is FAIL)."""
    try:
        report = check(full)  # type: ignore[operator]
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of a check is its FAIL row
        module = getattr(check, "__module__", "?")
        claim = str(getattr(check, "CLAIM", None)
                    or getattr(sys.modules.get(module), "CLAIM", module))
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return ClaimReport(claim=f"{claim} [{getattr(check, '__name__', 'check')}]",
                           grid="(the check raised before finishing)",
                           worst=f"{type(exc).__name__}: {exc} (at {where.filename}:"
                                 f"{where.lineno})",
                           bound="the check must finish", certificates=())
    if not isinstance(report, ClaimReport):
        return ClaimReport(claim=str(getattr(check, "__module__", "?")), grid="",
                           worst=f"the check returned {type(report).__name__}",
                           bound="a ClaimReport", certificates=())
    return report
