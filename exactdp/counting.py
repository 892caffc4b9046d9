"""Counting-query mechanisms ``M: [n] x [d]_+ -> [n]`` (Balcer & Vadhan, Section 4): the
public face of the modules that hold them, re-exporting their names.

Notation: ``[n] = {0, ..., n}``, ``[d]_+ = {1, ..., d}``; ``eps``, ``gamma`` in
``N^{-1}``.  Logarithms in the paper are base 2; ``ceil(log2 x)`` for an integer ``x`` is
``(x - 1).bit_length()``.

* :class:`GeometricMechanism` -- the ideal clamped two-sided geometric (Algorithm 4.5),
  parameterised by its exact ratio ``alpha = e**(-1/s)`` (:mod:`exactdp.geometric`).
* :class:`GeoSample` -- Algorithm 4.8: inverse-transform sampling of the clamped geometric
  with ``eps~ = 2 ln(1 + 2**-k)``, integer CDF with common denominator ``d``; its fast paths,
  a table of ``F`` and :class:`PowerWalk`, beside it (:mod:`exactdp.geosample`).
* :class:`FastSample` -- Algorithm 4.11: truncated geometric mixed with uniform; its CDF
  needs integers of ``O~(1/eps) log(n/gamma)`` bits instead of ``O(n log(1/eps))``; its
  fast paths beside it, the native search among them (:mod:`exactdp.fastsample`).
* :func:`inverse_cdf_search` -- the one binary search all of them share; it runs exactly
  ``n.bit_length()`` rounds whatever ``c`` and ``u`` are; :class:`InverseCDFSampler`, their
  base class, with ``sample_many(counts, source)`` -- independent draws at many counts, one
  ``uniform_many`` per batch -- and the draws handed to a random source
  (:mod:`exactdp.inverse_cdf`).

Every sampler is a deterministic function ``M(c, u)``, non-decreasing in ``u``; its output
distribution for ``U ~ Unif([d]_+)`` is ``Pr[M(c, U) <= z] = F_c(z) / d``.

The tuning constants (``BATCH_CHUNK``, ``POWER_TABLE_BITS``, ``NATIVE_TABLE_BYTES``, ...) are
read where they are defined: change them there, not here.
"""

from __future__ import annotations

from exactdp.fastsample import FastSample, TruncatedGeoSample
from exactdp.geometric import GeometricMechanism, geosample_k
from exactdp.geosample import GEO_STEP_BITS, GEO_TABLE_BITS, GEO_TABLE_MAX_N, GeoSample, PowerWalk
from exactdp.inverse_cdf import (
    MAX_INTEGER_BITS,
    CDFDraw,
    CountBatch,
    InverseCDFSampler,
    TabulatedMechanism,
    inverse_cdf_search,
    search_rounds,
)

__all__ = [
    "GEO_STEP_BITS",
    "GEO_TABLE_BITS",
    "GEO_TABLE_MAX_N",
    "MAX_INTEGER_BITS",
    "CDFDraw",
    "CountBatch",
    "FastSample",
    "GeoSample",
    "GeometricMechanism",
    "InverseCDFSampler",
    "PowerWalk",
    "TabulatedMechanism",
    "TruncatedGeoSample",
    "geosample_k",
    "inverse_cdf_search",
    "search_rounds",
]
