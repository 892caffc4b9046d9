"""Histograms over huge universes (Balcer & Vadhan, Sections 5, 6 and Appendix A).

Support code: :mod:`exactdp.histograms.orderstats` (OrdSample, ApproxConvExp,
ApproxBinSample, ApproxOrdSample), :mod:`exactdp.histograms.distinct` (DistinctSample),
:mod:`exactdp.histograms.polymul` (big-integer polynomial multiplication).
"""
