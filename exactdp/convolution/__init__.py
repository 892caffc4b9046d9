"""Exact private convolution (Fawaz, Muthukrishnan & Nikolov, "Nearly Optimal Private
Convolution").

The paper's Algorithm 1 adds Laplace noise to Fourier coefficients; on a finite computer the
noise is discrete, so the linear map before the noise must be an integer matrix ``T`` (the
integral factorization lemma).  This package provides:

* :mod:`~exactdp.convolution.groups` -- exact circular (``Z_N``) and XOR (``Z_2^d``) convolution;
* :mod:`~exactdp.convolution.transforms` -- the integer fast Walsh-Hadamard transform (fixed
  schedule), the certified rounded real-Fourier strategy, the Hartley matrix at ``N = 4``;
* :mod:`~exactdp.convolution.domain` -- the public input domains (histograms, box);
* :mod:`~exactdp.convolution.strategy` -- integer strategies ``T`` with ``G = H T^-1`` exact;
* :mod:`~exactdp.convolution.rows` -- the rows' clamped geometric noise (shared samplers);
* :mod:`~exactdp.convolution.mechanism` -- the mechanisms (Walsh-Fourier = Algorithm 1 on
  ``Z_2^d`` exactly; the general integer-strategy mechanism);
* :mod:`~exactdp.convolution.gaussian` -- the same mechanisms with discrete Gaussian noise
  (:mod:`~exactdp.convolution.gaussian_rows`: its law and certified accounting);
* :mod:`~exactdp.convolution.cyclic` -- circular convolution on ``Z_N`` (rounded real-Fourier,
  Walsh, Hartley strategies; "auto" = smallest exact MSE bound at equal privacy);
* :mod:`~exactdp.convolution.linear` -- linear convolution by zero padding (§5.3);
* :mod:`~exactdp.convolution.tree` -- the Fenwick-tree baseline for running sums (§5.2);
* :mod:`~exactdp.convolution.filters` -- the window, decay and Hodrick-Prescott filters (§5.3).
"""

from exactdp.convolution.accounting import (
    CompositionViolation,
    PrivacyProfile,
    find_composition_violation,
)
from exactdp.convolution.calibration import Calibration, calibrate, mse_gain
from exactdp.convolution.cyclic import CyclicFourierMechanism
from exactdp.convolution.domain import Domain
from exactdp.convolution.filters import decay, hodrick_prescott, window
from exactdp.convolution.gaussian import (
    GaussianStrategyMechanism,
    GaussianWalshMechanism,
    compare_noise,
    gaussian_cyclic,
)
from exactdp.convolution.groups import (
    circulant,
    circular_convolve,
    xor_circulant,
    xor_convolve,
    xor_convolve_direct,
)
from exactdp.convolution.linear import LinearConvolutionMechanism, linear_convolve
from exactdp.convolution.mechanism import (
    ConvolutionRelease,
    IntegerStrategyMechanism,
    WalshFourierMechanism,
)
from exactdp.convolution.strategy import IntegerStrategy
from exactdp.convolution.transforms import fwht, hartley4, real_fourier_rounded, walsh_matrix
from exactdp.convolution.tree import tree_mechanism

__all__ = [
    "Calibration",
    "CompositionViolation",
    "ConvolutionRelease",
    "CyclicFourierMechanism",
    "Domain",
    "GaussianStrategyMechanism",
    "GaussianWalshMechanism",
    "IntegerStrategy",
    "IntegerStrategyMechanism",
    "LinearConvolutionMechanism",
    "PrivacyProfile",
    "WalshFourierMechanism",
    "calibrate",
    "circulant",
    "circular_convolve",
    "compare_noise",
    "decay",
    "find_composition_violation",
    "fwht",
    "gaussian_cyclic",
    "hartley4",
    "hodrick_prescott",
    "linear_convolve",
    "mse_gain",
    "real_fourier_rounded",
    "tree_mechanism",
    "walsh_matrix",
    "window",
    "xor_circulant",
    "xor_convolve",
    "xor_convolve_direct",
]
