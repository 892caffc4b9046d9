"""Executable proofs of Balcer & Vadhan, *Differential Privacy on Finite Computers*: the
counting samplers, mixing, the histograms (basic, stable, sparse, order statistics, compact)
and the checker."""
