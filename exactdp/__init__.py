"""exactdp: exact-arithmetic, strict-time differential privacy on finite computers.

An implementation of Balcer & Vadhan, *Differential Privacy on Finite Computers*, with
integers and rationals only, and a checker that computes the exact output distribution of
the implementation and verifies the paper's claims on it.
"""

import os
import sys
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from exactdp.fastsample import FastSample
    from exactdp.geometric import GeometricMechanism
    from exactdp.geosample import GeoSample
    from exactdp.params import (
        DomainError,
        ExactDPError,
        FloatParameterError,
        NotInverseIntegerError,
        ParameterError,
        ParameterTypeError,
        ResourceLimitError,
    )
    from exactdp.randomness import RandomSource, SeededSource, SystemSource

# The public names are imported on first use (PEP 562), so that ``import exactdp.cli`` is
# fast and the command's Ctrl-C handling is in place before the heavy imports run.
_WHERE = {
    "FastSample": "exactdp.fastsample",
    "GeometricMechanism": "exactdp.geometric",
    "GeoSample": "exactdp.geosample",
    **dict.fromkeys(("DomainError", "ExactDPError", "FloatParameterError",
                     "NotInverseIntegerError", "ParameterError", "ParameterTypeError",
                     "ResourceLimitError"), "exactdp.params"),
    **dict.fromkeys(("RandomSource", "SeededSource", "SystemSource"), "exactdp.randomness"),
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'exactdp' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__version__ = "0.1.0"


class _SourceProofs:
    """Finds ``exactdp.proofs`` in a source checkout, where the executable proofs are the
    top-level folder ``proofs/`` beside this package (installed, setuptools puts that folder at
    ``exactdp/proofs``, and this finder is not used)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> Any:
        if fullname != "exactdp.proofs":
            return None
        from importlib.util import spec_from_file_location

        return spec_from_file_location(fullname, os.path.join(self.folder, "__init__.py"),
                                       submodule_search_locations=[self.folder])


_HERE = os.path.dirname(os.path.abspath(__file__))
_SOURCE = os.path.join(os.path.dirname(_HERE), "proofs")
if (not os.path.isdir(os.path.join(_HERE, "proofs"))
        and os.path.isfile(os.path.join(_SOURCE, "__init__.py"))
        and not any(isinstance(f, _SourceProofs) for f in sys.meta_path)):
    sys.meta_path.insert(0, _SourceProofs(_SOURCE))  # type: ignore[arg-type]

__all__ = [
    "DomainError",
    "ExactDPError",
    "FastSample",
    "FloatParameterError",
    "GeoSample",
    "GeometricMechanism",
    "NotInverseIntegerError",
    "ParameterError",
    "ParameterTypeError",
    "RandomSource",
    "ResourceLimitError",
    "SeededSource",
    "SystemSource",
]
