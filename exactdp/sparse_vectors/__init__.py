"""Private sparse vectors: ALP (Aumüller, Lebeda & Pagh; papers 003 [S] and 000 [F]).

* :class:`ALPParams`, :class:`ALP` -- ALP-projection ([S] Algorithm 1 = [F] Algorithm 4;
  [F] Algorithm 2 when ``eps = 1``), exact and strict-time;
* :class:`ALPSketch`, :func:`unary_estimate` -- ALP-estimator ([S] Algorithm 2 = [F]
  Algorithm 5; [F] Algorithm 3).

Hash families live in :mod:`exactdp.hashing`; the shared coins in :mod:`exactdp.noise`.
"""

from exactdp.sparse_vectors.alp import (
    ALP,
    VARIANTS,
    ALPParams,
    ALPSketch,
    argmax_positions,
    embed,
    scaled_units,
    sparse_input,
    tight_bound,
    unary_estimate,
)

__all__ = [
    "ALP",
    "VARIANTS",
    "ALPParams",
    "ALPSketch",
    "argmax_positions",
    "embed",
    "scaled_units",
    "sparse_input",
    "tight_bound",
    "unary_estimate",
]
