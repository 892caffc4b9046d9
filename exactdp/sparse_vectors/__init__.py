"""Private sparse vectors: ALP (Aumüller, Lebeda & Pagh; papers 003 ALP-short and 000 ALP-full).

* :class:`ALPParams`, :class:`ALP` -- ALP-projection (ALP-short Algorithm 1 = ALP-full Algorithm 4;
  ALP-full Algorithm 2 when ``eps = 1``), exact and strict-time;
* :class:`ALPSketch`, :func:`unary_estimate` -- ALP-estimator (ALP-short Algorithm 2 = ALP-full
  Algorithm 5; ALP-full Algorithm 3);
* :class:`Threshold`, :class:`ThresholdParams`, :class:`PureSparseThreshold` -- ALP-full Algorithm 6
  with exact geometric noise; :class:`ThresholdALP`, :class:`ThresholdALPSketch` -- ALP-full
  Algorithms 7-8; :class:`ApproxThresholdALP`, :class:`KorolovaThreshold` -- ALP-short Theorem 4.2.

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
