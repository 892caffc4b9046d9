"""Histograms over huge universes (Balcer & Vadhan, Sections 5, 6 and Appendix A).

Data model: :mod:`exactdp.histograms.data` (``Universe`` = ``[M]_+``, ``Dataset``,
``Histogram`` sorted by element, label encoding).  Algorithms:
:mod:`exactdp.histograms.basic` (BasicHistogram, Alg 5.1; StabilityHistogram, Alg 5.4),
:mod:`exactdp.histograms.sparse` (KeepHeavy, Alg 6.1; KH', Alg 6.4; SparseHistogram,
Alg 6.21; PureSparseHistogram, Alg 6.9), :mod:`exactdp.histograms.compact` (Section 8:
CompactHistogram, Alg 8.2; the empty-bin sampler, Alg 8.5; the released polynomial,
CompactRelease) over :mod:`exactdp.histograms.fields` (GF(2^(2*3^l))).  Guarantees and lower
bounds:
:mod:`exactdp.histograms.accuracy` (Figures 3-5, Theorems 7.1-7.2).

Support code: :mod:`exactdp.histograms.orderstats` (OrdSample, ApproxConvExp,
ApproxBinSample, ApproxOrdSample), :mod:`exactdp.histograms.distinct` (DistinctSample),
:mod:`exactdp.histograms.polymul` (big-integer polynomial multiplication).
"""

from exactdp.histograms.accuracy import (
    Guarantee,
    LowerBound,
    ceil_scaled_ln,
    figure_3,
    figure_4,
    figure_5,
    theorem_7_1_per_query,
    theorem_7_1_simultaneous,
    theorem_7_2_sparse,
)
from exactdp.histograms.basic import BasicHistogram, StabilityHistogram
from exactdp.histograms.compact import (
    CompactHistogram,
    CompactRelease,
    EmptyBinSampler,
    InvalidReleaseError,
)
from exactdp.histograms.data import (
    Dataset,
    EmptyDatasetError,
    Histogram,
    LabelTooLongError,
    Universe,
    decode_label,
    encode_label,
)
from exactdp.histograms.distinct import distinct_sample
from exactdp.histograms.orderstats import (
    approx_bin_sample,
    approx_conv_exp,
    approx_ord_sample,
    ord_sample,
)
from exactdp.histograms.sparse import (
    KeepHeavy,
    KHPrime,
    PureSparseHistogram,
    SparseHistogram,
    uniform_sparse_histogram,
)

__all__ = [
    "BasicHistogram",
    "CompactHistogram",
    "CompactRelease",
    "Dataset",
    "EmptyBinSampler",
    "EmptyDatasetError",
    "Guarantee",
    "Histogram",
    "InvalidReleaseError",
    "KHPrime",
    "KeepHeavy",
    "LabelTooLongError",
    "LowerBound",
    "PureSparseHistogram",
    "SparseHistogram",
    "StabilityHistogram",
    "Universe",
    "approx_bin_sample",
    "approx_conv_exp",
    "approx_ord_sample",
    "ceil_scaled_ln",
    "decode_label",
    "distinct_sample",
    "encode_label",
    "figure_3",
    "figure_4",
    "figure_5",
    "ord_sample",
    "theorem_7_1_per_query",
    "theorem_7_1_simultaneous",
    "theorem_7_2_sparse",
    "uniform_sparse_histogram",
]
