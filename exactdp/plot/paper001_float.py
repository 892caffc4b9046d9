"""Float reference of the paper-001 mechanisms for the experiments (numpy, NOT exact, NOT private
on a finite computer): the paper's algorithms as printed, with ``e^eps`` and the continuous
Gaussian.  Used only as the labelled "float reference" beside the exact mechanisms of
:mod:`exactdp.projections` (the Gaussian rows, ``float DP-OPORP-G`` / ``float Raw-data-G``, and
``proj_experiments.py --float-reference``), never in the exact rows.  numpy and scipy (the
``[experiments]`` extra) are imported inside the functions.

Integer data ``X`` in ``{0..C}^p``, ``beta`` grid steps, Rademacher ``W`` / OPORP plan, unscaled
projections, a coin for a zero projection (§5 P4).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["dp_oporp", "gaussian_sigma", "oporp", "raw_data", "sign_oporp_smooth", "sign_rp_rr"]


def oporp(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 4: permute the p columns, multiply by a +-1 vector, sum k fixed-length bins."""
    import numpy as np

    p = x.shape[1]
    assert p % k == 0
    perm = rng.permutation(p)
    w = rng.choice(np.array([-1, 1]), size=p)
    return (x[:, perm] * w).reshape(len(x), k, p // k).sum(axis=2)


def _flip(signs: np.ndarray, keep_logit: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Keep each sign with probability e^l/(e^l + 1) (l = keep_logit); a 0 sign is a coin."""
    import numpy as np

    keep = rng.random(signs.shape) < 1.0 / (1.0 + np.exp(-keep_logit))
    coin = rng.choice(np.array([-1, 1]), size=signs.shape)
    s = np.where(signs == 0, coin, signs)
    return np.where(keep | (signs == 0), s, -s)


def sign_oporp_smooth(x: np.ndarray, eps: float, k: int, t: int, beta: int,
                      rng: np.random.Generator) -> np.ndarray:
    """Algorithm 8, smooth variant, repeated t times with k/t bins and eps/t each."""
    import numpy as np

    runs = []
    for _ in range(t):
        proj = oporp(x, k // t, rng)
        big_l = -(-np.abs(proj) // beta)  # ceil(|x_j| / beta), exact on integers
        runs.append(_flip(np.sign(proj), big_l * (eps / t), rng))
    return np.concatenate(runs, axis=1)


def sign_rp_rr(x: np.ndarray, eps: float, k: int, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 6 with N+ = k (pure eps, Remark 4.1), Rademacher W: eps/k per bit."""
    import numpy as np

    w = rng.choice(np.array([-1, 1]), size=(x.shape[1], k))
    proj = x @ w
    return _flip(np.sign(proj), np.full(proj.shape, eps / k), rng)


def gaussian_sigma(eps: float, delta: float, sens: float) -> float:
    """Theorem 3.5 (Balle & Wang's analytic Gaussian): the least sigma with
    Phi(D/2s - eps s/D) - e^eps Phi(-D/2s - eps s/D) <= delta, by bisection."""
    from scipy.stats import norm

    def excess(s: float) -> float:
        a, b = sens / (2 * s), eps * s / sens
        return norm.cdf(a - b) - math.exp(eps + norm.logcdf(-a - b)) - delta

    lo, hi = 1e-6 * sens, 1e6 * sens
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return hi


def dp_oporp(x: np.ndarray, eps: float, delta: float, k: int, beta: int,
             rng: np.random.Generator) -> np.ndarray:
    """Algorithm 5: OPORP plus N(0, sigma^2) per bin, sensitivity beta (one bin moves)."""
    proj = oporp(x, k, rng)
    return proj + rng.normal(0.0, gaussian_sigma(eps, delta, beta), proj.shape)


def raw_data(x: np.ndarray, eps: float, delta: float, beta: int,
             rng: np.random.Generator) -> np.ndarray:
    """Raw-data-G-OPT (Theorem 3.8): N(0, sigma^2) on every coordinate, sensitivity beta."""
    return x + rng.normal(0.0, gaussian_sigma(eps, delta, beta), x.shape)
