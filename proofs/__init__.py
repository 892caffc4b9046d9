"""Executable proofs: one module per theorem or lemma of the papers.

Each module states its claim (``CLAIM``, ``STATEMENT``), sketches the proof in prose
(``PROOF_IDEA``), and has ``check(full: bool) -> ClaimReport`` that checks the claim
exhaustively and exactly on a parameter grid (a small grid when ``full`` is False, the
``--full`` grid otherwise), on the implementation itself, returning certificates.

``exactdp verify`` runs every module found here, in name order.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["discover"]


def discover() -> list[ModuleType]:
    """The proof modules of this package, sorted by module name."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]
