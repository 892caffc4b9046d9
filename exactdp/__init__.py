"""exactdp: exact-arithmetic, strict-time differential privacy on finite computers.

An implementation of Balcer & Vadhan, *Differential Privacy on Finite Computers*, with
integers and rationals only, and a checker that computes the exact output distribution of
the implementation and verifies the paper's claims on it.
"""

from exactdp.counting import FastSample, GeometricMechanism, GeoSample
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

__version__ = "0.1.0"

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
