"""Private sparse vectors: ALP (Aumüller, Lebeda & Pagh; papers 003 [S] and 000 [F]).

* :class:`ALPParams`, :class:`ALP` -- ALP-projection ([S] Algorithm 1 = [F] Algorithm 4;
  [F] Algorithm 2 when ``eps = 1``), exact and strict-time;
* :class:`ALPSketch`, :func:`unary_estimate` -- ALP-estimator ([S] Algorithm 2 = [F]
  Algorithm 5; [F] Algorithm 3);
* :class:`Threshold`, :class:`ThresholdParams`, :class:`PureSparseThreshold` -- [F] Algorithm 6
  with exact geometric noise; :class:`ThresholdALP`, :class:`ThresholdALPSketch` -- [F]
  Algorithms 7-8; :class:`ApproxThresholdALP`, :class:`KorolovaThreshold` -- [S] Theorem 4.2.

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
from exactdp.sparse_vectors.approx import (
    ApproxThresholdALP,
    ApproxThresholdParams,
    KorolovaThreshold,
)
from exactdp.sparse_vectors.combined import ThresholdALP, ThresholdALPSketch
from exactdp.sparse_vectors.threshold import (
    PureSparseThreshold,
    Threshold,
    ThresholdParams,
    minimal_threshold,
)

__all__ = [
    "ALP",
    "VARIANTS",
    "ALPParams",
    "ALPSketch",
    "ApproxThresholdALP",
    "ApproxThresholdParams",
    "KorolovaThreshold",
    "PureSparseThreshold",
    "Threshold",
    "ThresholdALP",
    "ThresholdALPSketch",
    "ThresholdParams",
    "argmax_positions",
    "embed",
    "minimal_threshold",
    "scaled_units",
    "sparse_input",
    "tight_bound",
    "unary_estimate",
]
