"""The exact law of an ALP estimate under the implementation's own hash family, collisions
included (ALP-full Lemmas 4.14 and 4.15, ALP-short Figure 3).

:func:`estimate_law` gives, for one key ``i`` of a k-sparse input ``x``, the joint law of
``(y_i, y~_i)`` -- the rounded units of ``i`` and the estimate in y-units -- when
:meth:`ALP.project <exactdp.sparse_vectors.alp.ALP.project>` draws its ``m`` seeds from its
hash family and :meth:`ALPSketch.estimate_units` reads ``i``.  It is computed from the
implementation's parts:

1. the law of the rounded pairs, :func:`~exactdp.sparse_vectors.alp_check.units_law` (the
   implementation's ``scaled_units``, explored);
2. for each column ``b``, the probability over the column's seed (every seed of the family,
   each equally likely) that cell ``(h_b(i), b)`` is 1 before randomized response, from the
   implementation's :func:`~exactdp.sparse_vectors.alp.embed_cells` run on that column
   alone with the pairs whose ``y >= b`` (the cell read by ``i`` in column ``b`` depends on
   ``h_b`` and on which keys are on in column ``b``, nothing else);
3. given the rounded pairs, the read bits are independent over columns (the seeds are drawn
   independently per column and randomized response flips every cell independently with
   probability ``p``: the sampler-exactness row), each 1 with probability
   ``p + (1 - 2p) pi_b``;
4. every one of the ``2^m`` patterns of read bits estimated by the implementation's
   :func:`~exactdp.sparse_vectors.estimator.unary_estimate`.

tests/test_alp_error.py checks the result against a plain exploration of ``project`` with
the seeds drawn from the source (every seed, every coin) on small configurations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

from exactdp.params import DomainError, ResourceLimitError
from exactdp.sparse_vectors.alp import ALP, embed_cells
from exactdp.sparse_vectors.alp_check import units_law
from exactdp.sparse_vectors.estimator import unary_estimate

__all__ = ["MAX_PATTERN_COLUMNS", "column_one_probability", "estimate_law",
           "x_error_law", "y_error_law"]

#: :func:`estimate_law` enumerates ``2^m`` read patterns: refused above this ``m``.
MAX_PATTERN_COLUMNS = 14

Law = dict[tuple[int, Fraction], Fraction]


class _Columns:
    """Seed counts of one configuration: for an on-set of keys, in how many seeds of one
    column the cell read by ``key`` is set (memoised)."""

    def __init__(self, alp: ALP, key: int) -> None:
        self.one = replace(alp.params, columns=1)
        self.hashes = alp.hashes
        self.seeds = list(alp.hashes.seeds())
        self.rows = [alp.hashes.row(seed, key) - 1 for seed in self.seeds]
        self.memo: dict[tuple[tuple[int, ...], frozenset[int]], int] = {}

    def hits(self, keys: tuple[int, ...], on: frozenset[int]) -> int:
        """Seeds (of one column) whose cell read by the key is 1 when the pairs ``keys`` (in
        the implementation's pair order) are embedded with ``y = 1`` for the keys in ``on``
        and ``y = 0`` for the others."""
        if (keys, on) not in self.memo:
            ys = tuple((k, int(k in on)) for k in keys)
            count = 0
            for seed, row in zip(self.seeds, self.rows):
                count += embed_cells(self.one, self.hashes, (seed,), ys)[row] == 0x31
            self.memo[keys, on] = count
        return self.memo[keys, on]


@lru_cache(maxsize=16)
def _columns(alp: ALP, key: int) -> _Columns:
    """The seed counts of ``(alp, key)``, shared by every input of one configuration."""
    return _Columns(alp, key)


def column_one_probability(alp: ALP, key: int, on: frozenset[int]) -> Fraction:
    """``pi = Pr[z_{h_b(key), b} = 1]`` before randomized response over one column's seed when
    exactly the keys ``on`` have ``y >= b`` (the implementation's ``embed_cells``)."""
    cols = _columns(alp, key)
    return Fraction(cols.hits(tuple(sorted(on)), frozenset(on)), len(cols.seeds))


def estimate_law(alp: ALP, x: Mapping[int, int], key: int) -> Law:
    """The exact joint law ``{(y_key, y~_key): probability}`` of the implementation's rounded
    units and estimate (y-units) of ``key`` when ``alp.project(x)`` draws its seeds (see the
    module docstring)."""
    prm = alp.params
    m = prm.columns
    if m > MAX_PATTERN_COLUMNS:
        raise ResourceLimitError(f"m = {m}: the law enumerates 2^m patterns (at most "
                                 f"m = {MAX_PATTERN_COLUMNS} here)")
    if not 1 <= key <= prm.universe:
        raise DomainError(f"key = {key} is outside [1, d] with d = {prm.universe}")
    cols = _columns(alp, key)
    n_seeds = len(cols.seeds)
    p = prm.flip
    estimates = [unary_estimate(tuple((w >> b) & 1 for b in range(m))) for w in range(1 << m)]
    law: Law = {}
    for ys, weight in units_law(prm, x).items():
        real = [(k, y) for k, y in ys if k]
        keys = tuple(k for k, _ in real)
        y_key = next((y for k, y in real if k == key), 0)
        ones = []
        for b in range(1, m + 1):
            on = frozenset(k for k, y in real if y >= b)
            pi = Fraction(cols.hits(keys, on), n_seeds)
            ones.append(p + (1 - 2 * p) * pi)
        probs = [Fraction(1)]
        for u in ones:  # pattern w: bit b-1 set iff column b read 1
            probs = [w * (1 - u) for w in probs] + [w * u for w in probs]
        for pattern, est in enumerate(estimates):
            pw = probs[pattern]
            if pw:
                k2 = (y_key, est)
                law[k2] = law.get(k2, Fraction(0)) + weight * pw
    return law


def y_error_law(law: Law) -> dict[Fraction, Fraction]:
    """``y~ - y`` in y-units (the error Lemma 4.15 bounds, rounding excluded)."""
    out: dict[Fraction, Fraction] = {}
    for (y, est), w in law.items():
        out[est - y] = out.get(est - y, Fraction(0)) + w
    return out


def x_error_law(law: Law, alp: ALP, value: int) -> dict[Fraction, Fraction]:
    """``x~ - x`` in the input's units (``x = value/g``, ``x~ = y~/c``; the error Lemma 4.14
    bounds, rounding included)."""
    prm = alp.params
    x = Fraction(value, prm.grid)
    out: dict[Fraction, Fraction] = {}
    for (_, est), w in law.items():
        e = est / prm.scale - x
        out[e] = out.get(e, Fraction(0)) + w
    return out
