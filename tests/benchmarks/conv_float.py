"""The paper's Algorithm 1 ("Fourier Mechanism", Fawaz, Muthukrishnan & Nikolov, paper 002, §4)
in numpy floating point: the baseline that ``bench_convolution.py`` and ``conv_experiments.py``
time and compare against exactdp's exact mechanisms.

This is NOT part of exactdp (numpy is not a runtime dependency, and floats are refused in every
sampling path of the library): it is what a straightforward implementation of the paper looks
like, kept here only to measure what exactness costs.

Algorithm 1 as printed (with the ``h^ = F_N x`` typo read as ``F_N h``)::

    gamma = 2 ln(1/delta) ||h^||_1 / (eps^2 N)
    x^ = F_N x ;  h^ = F_N h                       (unitary DFT, F[m,n] = N^-1/2 e^{-2 pi i mn/N})
    z_i = Lap(sqrt(gamma / |h^_i|)) if |h^_i| > 0 else 0
    y~ = F_N^H (sqrt(N) h^ . (x^ + z))

**Which noise on complex coefficients.**  Read literally (a real ``Lap`` added to the complex
``x^_i``) the imaginary parts are released without noise and the mechanism is not DP at all
(CONV.md §5 P2).  Implemented here is the notes' repair that keeps eq. 5 exactly: real Laplace
noise of scale ``b_i`` on each real coordinate of the real-Fourier basis (``sqrt 2 Re x^_m`` and
``sqrt 2 Im x^_m`` for ``0 < m < N/2``; ``x^_0`` and ``x^_{N/2}`` are real and get one real
``Lap(b_i)``), and the conjugate coefficient ``x^_{N-m}`` gets the conjugate noise (``rfft`` /
``irfft`` keep the output real).  The complex noise on ``x^_m`` is then ``(z_c - i z_s)/sqrt 2``
with ``E|.|^2 = 2 b_m^2``: the same as the paper's ``E|z|^2 = 2b^2``, so the MSE is exactly eq. 5,
``4 ln(1/delta) ||h^||_1^2 / (eps^2 N)``.  Privacy of the repair needs the composition to be taken
per neighbouring pair (each ``x_n`` moves the pair ``(c_m, s_m)`` by ``sqrt(2/N)(cos, sin)``, which
costs ``sum eps^2 = 2/(N b_m^2)``, like the paper's two conjugate coefficients) and the P1 fix of
the composition theorem (``accounting="zcdp"`` below); ``accounting="paper"`` is the printed
calibration, for reproduction only.

On ``Z_2^d`` (XOR convolution, §5.4) the transform is the real Walsh-Hadamard transform and no
repair is needed: :func:`algorithm1_xor`.

Floating point makes this mechanism unprovable as run (Mironov 2012: the low bits of float
Laplace samples leak the input); that is the point of the comparison.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["FloatRelease", "algorithm1_cyclic", "algorithm1_xor", "eq5_mse", "fwht_float",
           "zcdp_epsilon0"]

#: ``|h^_i| <= ZERO_TOL * max |h^|`` is treated as ``h^_i = 0`` (floats cannot tell).
ZERO_TOL = 1e-12


@dataclass
class FloatRelease:
    """The float output and the wall-clock split of one release (seconds)."""

    y: Any  # numpy array
    transform: float
    noise: float
    reconstruction: float
    kept: int  # number of coefficients with |h^_i| > 0 (noise draws, counting pairs as 2)

    @property
    def total(self) -> float:
        return self.transform + self.noise + self.reconstruction


def zcdp_epsilon0(epsilon: float, delta: float) -> float:
    """The ``eps'`` with ``eps' + eps'^2/(4L) = eps`` (CONV.md §1.2: via zCDP the calibration
    at ``eps'`` is ``(eps, delta)``-DP): ``eps' = 2L(sqrt(1 + eps/L) - 1)``, ``L = ln(1/delta)``."""
    L = math.log(1 / delta)
    return 2 * L * (math.sqrt(1 + epsilon / L) - 1)


def _eps(epsilon: float, delta: float, accounting: str) -> float:
    if accounting == "paper":
        return epsilon
    if accounting == "zcdp":
        return zcdp_epsilon0(epsilon, delta)
    raise ValueError(f"accounting {accounting!r} must be 'paper' or 'zcdp'")


def eq5_mse(hhat_l1: float, n: int, epsilon: float, delta: float) -> float:
    """The paper's eq. 5, ``4 ln(1/delta) ||h^||_1^2 / (eps^2 N)``, in floats."""
    return 4 * math.log(1 / delta) * hhat_l1**2 / (epsilon**2 * n)


def fwht_float(a: Any) -> Any:
    """Unnormalised Walsh-Hadamard transform (``W``, ``W^2 = N I``) of a length-2^d array."""
    v = np.asarray(a, dtype=np.float64)
    n = v.shape[0]
    h = 1
    while h < n:
        blocks = v.reshape(-1, 2, h)
        v = np.stack((blocks[:, 0, :] + blocks[:, 1, :], blocks[:, 0, :] - blocks[:, 1, :]),
                     axis=1).reshape(n)
        h *= 2
    return v


def algorithm1_cyclic(x: Any, h: Any, epsilon: float, delta: float, rng: Any,
                      accounting: str = "paper") -> FloatRelease:
    """Algorithm 1 for circular convolution on ``Z_N`` (float FFT, the P2 repair above)."""
    eps = _eps(epsilon, delta, accounting)
    n = len(x)
    t0 = time.perf_counter()
    spec_x = np.fft.rfft(np.asarray(x, dtype=np.float64))  # sqrt(N) x^_m, m = 0..N/2
    lam = np.fft.rfft(np.asarray(h, dtype=np.float64))     # lambda_m = sqrt(N) h^_m
    t1 = time.perf_counter()
    absh = np.abs(lam) / math.sqrt(n)                      # |h^_m|
    twice = np.full(absh.shape[0], 2.0)                    # m and N - m both counted
    twice[0] = 1.0
    if n % 2 == 0:
        twice[-1] = 1.0
    l1 = float((twice * absh).sum())
    gamma = 2 * math.log(1 / delta) * l1 / (eps**2 * n)
    keep = absh > ZERO_TOL * absh.max()
    b = np.zeros_like(absh)
    b[keep] = np.sqrt(gamma / absh[keep])
    real = rng.laplace(0.0, 1.0, absh.shape[0]) * b
    imag = rng.laplace(0.0, 1.0, absh.shape[0]) * b
    imag[0] = 0.0
    if n % 2 == 0:
        imag[-1] = 0.0
        z = (real - 1j * imag) / math.sqrt(2)
        z[0], z[-1] = real[0], real[-1]
    else:
        z = (real - 1j * imag) / math.sqrt(2)
        z[0] = real[0]
    t2 = time.perf_counter()
    y = np.fft.irfft(lam * (spec_x + math.sqrt(n) * z), n=n)
    t3 = time.perf_counter()
    draws = int(keep.sum() + (twice[keep] == 2).sum())
    return FloatRelease(y, t1 - t0, t2 - t1, t3 - t2, draws)


def algorithm1_xor(x: Any, h: Any, epsilon: float, delta: float, rng: Any,
                   accounting: str = "paper") -> FloatRelease:
    """Algorithm 1 for XOR convolution on ``Z_2^d`` (§5.4): ``F = W/sqrt N``, float WHT."""
    eps = _eps(epsilon, delta, accounting)
    n = len(x)
    t0 = time.perf_counter()
    c = fwht_float(x)        # W x = sqrt(N) x^
    lam = fwht_float(h)      # W h = sqrt(N) h^
    t1 = time.perf_counter()
    absh = np.abs(lam) / math.sqrt(n)
    gamma = 2 * math.log(1 / delta) * float(absh.sum()) / (eps**2 * n)
    keep = absh > ZERO_TOL * absh.max()
    b = np.zeros_like(absh)
    b[keep] = np.sqrt(gamma / absh[keep])
    noisy = c + math.sqrt(n) * rng.laplace(0.0, 1.0, n) * b
    t2 = time.perf_counter()
    y = fwht_float(lam * noisy) / n
    t3 = time.perf_counter()
    return FloatRelease(y, t1 - t0, t2 - t1, t3 - t2, int(keep.sum()))
