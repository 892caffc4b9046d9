"""The tree baseline for running sums (paper 002 §5.2 compares Algorithm 1 with tree
mechanisms), as an integer-strategy mechanism.

Running sums ``s_k = x_0 + ... + x_k`` (``k < N``) are the map ``H = P`` (lower-triangular
ones).  The binary (Fenwick) tree strategy ``T`` has one row per node ``i = 1 .. N``
covering the counts ``(i - lowbit(i), i]`` (1-based): integer, lower-triangular with a unit
diagonal (so invertible with ``T^-1`` integer), each count lies in at most
``floor(log2 N) + 1`` nodes, and each running sum ``s_k`` is the sum of ``popcount(k + 1)``
nodes.  Noise is the same clamped geometric per node as everywhere in
:mod:`exactdp.convolution` (:class:`~exactdp.convolution.mechanism.IntegerStrategyMechanism`),
so the tree's privacy is exact (pure ratio ``max_n prod_j r_j^|T_jn|``, exact ``delta(R)``) and
it is calibrated to ``(epsilon, delta)`` like the Fourier mechanism: the two are compared at
equal, exact privacy.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from exactdp.convolution.domain import Domain
from exactdp.convolution.mechanism import IntegerStrategyMechanism, RatioSpec
from exactdp.convolution.rows import unclamped_second_moment
from exactdp.convolution.strategy import IntegerStrategy
from exactdp.params import ParameterError

__all__ = ["fenwick_matrix", "output_mse_bound", "prefix_matrix", "tree_mechanism"]


def fenwick_matrix(n: int) -> list[list[int]]:
    """``T[i-1][k] = 1`` iff ``i - lowbit(i) <= k < i`` (nodes ``i = 1 .. n``, counts ``k``
    0-based)."""
    if n < 1:
        raise ParameterError(f"N = {n} must be >= 1")
    return [[1 if i - (i & -i) <= k < i else 0 for k in range(n)] for i in range(1, n + 1)]


def prefix_matrix(n: int) -> list[list[int]]:
    """The running sums: ``P[k][j] = 1`` iff ``j <= k``."""
    if n < 1:
        raise ParameterError(f"N = {n} must be >= 1")
    return [[1 if j <= k else 0 for j in range(n)] for k in range(n)]


def tree_mechanism(n: int, domain: Domain, ratios: RatioSpec = None, **options: Any
                   ) -> IntegerStrategyMechanism:
    """Private running sums of ``x`` (length ``n``) by the Fenwick tree with clamped geometric
    noise per node; ``ratios`` or ``epsilon``/``delta`` (and the calibration options of
    :class:`~exactdp.convolution.mechanism.IntegerStrategyMechanism`; shape ``"uniform"``
    is the classic tree, one budget per node)."""
    if domain.N != n:
        raise ParameterError(f"the domain has N = {domain.N} but the running sums have "
                             f"N = {n}")
    options.setdefault("shape", "uniform")
    strategy = IntegerStrategy(fenwick_matrix(n), prefix_matrix(n), "fenwick-tree")
    return IntegerStrategyMechanism(strategy, domain, ratios, **options)


def output_mse_bound(mech: IntegerStrategyMechanism, outputs: Sequence[int]) -> Fraction:
    """Definition 5's sup over ``x`` (no clamping) of the mean squared error over the chosen
    output coordinates only: ``|K|^-1 sum_{k in K} sum_j G_kj^2 2 r_j/(r_j - 1)^2`` (rows
    ``j`` the kept ones); e.g. the running sums ``k < N`` of the zero-padded Fourier
    mechanism of §5.2, whose other outputs are not running sums."""
    if not outputs:
        raise ParameterError("outputs is empty")
    strat = mech.strategy
    var = [unclamped_second_moment(r) for r in mech.ratios]
    total = Fraction(0)
    for k in outputs:
        for j, v in zip(mech.rows, var, strict=True):
            g = strat.G(k, j)
            if g:
                total += g * g * v
    return total / len(outputs)
