"""Closed forms for ALP (Aumüller, Lebeda & Pagh, paper 003), written apart from ``alp.py``.

Nothing here imports the implementation (``exactdp.sparse_vectors.alp``, ``exactdp.hashing``):
these are the closed-form formulas of the privacy proof and the estimator, re-derived and
written once more, so that the proofs can compare them with
the law the implementation produces under :func:`exactdp.explore.explore`.

The mechanism (ALP-projection, ALP-full Algorithm 4 = ALP-short Algorithm 1, exact form):
an input ``x`` is a map ``key -> X`` with ``x_key = X / g`` (``g`` the public grid); with the
scale ``c`` each entry becomes ``y = min(RandRound(X c / g), m)``; bit ``b`` of entry ``key``
(``b <= y``) is OR-ed into cell ``(h_b(key), b)`` of an ``s x m`` matrix; every cell then goes
through randomized response with flip probability ``p``.  Given the hash functions:

* each entry's ``y`` has two-point support ``{floor(r), floor(r) + 1}`` (``r = X c / g``), so
  only ONE cell per entry is random (column ``floor(r) + 1``), entries are independent, and so
  the ``s m`` pre-noise bits ``z_{a,b}`` are independent with
  ``pi_{a,b} = 1 - prod_{key: h_b(key) = a} (1 - Pr[b <= y_key])``;
* ``Pr[z~_{a,b} = 1 | x, h] = p + (1 - 2p) pi_{a,b}`` and the law of the released bits is the
  product of the cells' Bernoulli laws (:func:`product_law`);
* the worst ratio ``max_o Pr[o | x] / Pr[o | x']`` of two such products is the product over
  cells of ``max(u/v, (1-u)/(1-v))`` (:func:`pair_ratio`; brute force over all ``2^(s m)``
  outputs in :func:`brute_force_ratio`).

Outputs are encoded as an ``int`` bitmask, cell ``(a, b)`` (1-based row ``a``, column ``b``)
at bit ``(b - 1) s + (a - 1)`` (:func:`cell_index`).  The estimator's closed forms (Equation 1,
the reconstructed Lemma 4.15 tail, the exact MAE of the Figure 3 experiment) enumerate the
``2^m`` column patterns one key reads.  All arithmetic is on ints and Fractions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product
from typing import Any

from exactdp.params import DomainError, ParameterError, ResourceLimitError

__all__ = [
    "MAX_CELLS",
    "Spec",
    "bit_probability",
    "brute_force_ratio",
    "cell_index",
    "cell_probabilities",
    "column_factor",
    "cw_row",
    "e1_mae",
    "eq1_bound",
    "error_law",
    "expected_error",
    "l1_units",
    "neighbour_pairs",
    "pair_ratio",
    "pattern_estimates",
    "product_law",
    "sparse_inputs",
    "tail_bound",
    "tail_probability",
    "unary_estimate",
    "worst_over_column_maps",
]

#: Largest ``s m`` for which :func:`product_law` / :func:`brute_force_ratio` enumerate outputs.
MAX_CELLS = 16

Input = Mapping[int, int]
Table = Mapping[int, Sequence[int]]


@dataclass(frozen=True)
class Spec:
    """The public parameters the law depends on: scale ``c``, flip probability ``p``,
    ``m`` columns, ``s`` rows, grid ``g`` (inputs ``x = X / g``)."""

    scale: Fraction
    flip: Fraction
    columns: int
    rows: int
    grid: int = 1

    def __post_init__(self) -> None:
        if not (isinstance(self.scale, Fraction) and isinstance(self.flip, Fraction)):
            raise ParameterError("Spec: scale and flip must be Fractions")
        if self.scale <= 0:
            raise ParameterError(f"Spec: scale c = {self.scale} must be positive")
        if not 0 < self.flip <= Fraction(1, 2):
            raise ParameterError(f"Spec: flip p = {self.flip} must lie in (0, 1/2]")
        for name in ("columns", "rows", "grid"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ParameterError(f"Spec: {name} = {v!r} must be a positive int")

    @classmethod
    def of(cls, params: Any) -> Spec:
        """The spec of any object with ``scale, flip, columns, rows, grid`` (an ALPParams)."""
        return cls(Fraction(params.scale), Fraction(params.flip), int(params.columns),
                   int(params.rows), int(params.grid))

    @property
    def epsilon_cert(self) -> Fraction:
        """``c (1 - 2p) / p``: the ratio bound is ``e^(eps_cert ||x - x'||_1)``."""
        return self.scale * (1 - 2 * self.flip) / self.flip

    @property
    def cells(self) -> int:
        return self.rows * self.columns


def cw_row(a: int, b: int, prime: int, rows: int, key: int) -> int:
    """Carter-Wegman ``h_{a,b}(key) = ((a key + b) mod P) mod s``, 1-based."""
    return (a * key + b) % prime % rows + 1


def cell_index(a: int, b: int, rows: int) -> int:
    """Bit position of cell ``(a, b)`` in an output bitmask: ``(b - 1) s + (a - 1)``."""
    return (b - 1) * rows + (a - 1)


def _units(spec: Spec, big_x: int) -> tuple[int, Fraction]:
    """``(floor(r), frac(r))`` for ``r = X c / g``."""
    if isinstance(big_x, bool) or not isinstance(big_x, int) or big_x < 0:
        raise DomainError(f"entry X = {big_x!r} must be an int >= 0 (x = X / g)")
    r = big_x * spec.scale / spec.grid
    whole = r.numerator // r.denominator
    return whole, r - whole


def bit_probability(spec: Spec, big_x: int, b: int) -> Fraction:
    """``Pr[b <= y]`` for ``y = min(RandRound(X c / g), m)`` and a column ``b`` in ``[1, m]``."""
    whole, frac = _units(spec, big_x)
    if b <= whole:
        return Fraction(1)
    return frac if b == whole + 1 else Fraction(0)


def cell_probabilities(spec: Spec, table: Table, x: Input) -> dict[tuple[int, int], Fraction]:
    """``Pr[z~_{a,b} = 1 | x, h] = p + (1 - 2p) pi_{a,b}`` for every cell.

    ``table[key]`` lists the rows ``(h_1(key), ..., h_m(key))``; entries with ``X = 0`` set
    no bit and need no row."""
    p = spec.flip
    miss = {(a, b): Fraction(1) for b in range(1, spec.columns + 1)
            for a in range(1, spec.rows + 1)}
    for key, big_x in x.items():
        if big_x == 0:
            continue
        rows = table[key]
        if len(rows) != spec.columns:
            raise ParameterError(f"table[{key}] has {len(rows)} rows, not m = {spec.columns}")
        for b in range(1, spec.columns + 1):
            a = rows[b - 1]
            if not 1 <= a <= spec.rows:
                raise DomainError(f"h_{b}({key}) = {a} is outside [1, {spec.rows}]")
            miss[(a, b)] *= 1 - bit_probability(spec, big_x, b)
    return {cell: p + (1 - 2 * p) * (1 - q) for cell, q in miss.items()}


def _check_cells(spec: Spec) -> None:
    if spec.cells > MAX_CELLS:
        raise ResourceLimitError(f"s m = {spec.cells} cells: 2^{spec.cells} outputs is more "
                                 f"than this enumeration's limit 2^{MAX_CELLS}")


def product_law(spec: Spec, table: Table, x: Input) -> dict[int, Fraction]:
    """The exact law of the released bits given the hash functions: the product over the
    ``s m`` cells of Bernoulli(``p + (1 - 2p) pi``), as ``{bitmask: probability}``."""
    _check_cells(spec)
    law = {0: Fraction(1)}
    for (a, b), u in cell_probabilities(spec, table, x).items():
        bit = 1 << cell_index(a, b, spec.rows)
        nxt: dict[int, Fraction] = {}
        for o, w in law.items():
            nxt[o | bit] = w * u
            nxt[o] = w * (1 - u)
        law = nxt
    return dict(sorted(law.items()))


def _cell_max(u: Fraction, v: Fraction) -> tuple[Fraction, int]:
    up, down = u / v, (1 - u) / (1 - v)
    return (up, 1) if up >= down else (down, 0)


def pair_ratio(spec: Spec, table: Table, x: Input, x2: Input) -> tuple[Fraction, int]:
    """``max_o Pr[o | x] / Pr[o | x2]`` and an output attaining it: by independence of the
    cells, the product of ``max(u/v, (1-u)/(1-v))`` over cells."""
    us, vs = cell_probabilities(spec, table, x), cell_probabilities(spec, table, x2)
    ratio, out = Fraction(1), 0
    for cell, u in us.items():
        r, bit = _cell_max(u, vs[cell])
        ratio *= r
        out |= bit << cell_index(*cell, spec.rows)
    return ratio, out


def brute_force_ratio(spec: Spec, table: Table, x: Input, x2: Input) -> tuple[Fraction, int]:
    """The same maximum by enumerating all ``2^(s m)`` outputs of the two product laws."""
    law, law2 = product_law(spec, table, x), product_law(spec, table, x2)
    best, arg = Fraction(0), -1
    for o, w in law.items():
        r = w / law2[o]
        if r > best:
            best, arg = r, o
    return best, arg


def column_factor(spec: Spec, rows_of: Mapping[int, int], x: Input, x2: Input,
                  b: int) -> Fraction:
    """Column ``b``'s part of :func:`pair_ratio` when ``h_b = rows_of`` (key -> row): the
    cells of different columns depend on different hash functions, so the worst ratio over
    independently drawn ``h_1..h_m`` is the product of the columns' worsts."""
    p = spec.flip
    miss = [{a: Fraction(1) for a in range(1, spec.rows + 1)} for _ in range(2)]
    for side, vec in enumerate((x, x2)):
        for key, big_x in vec.items():
            if big_x:
                miss[side][rows_of[key]] *= 1 - bit_probability(spec, big_x, b)
    out = Fraction(1)
    for a in range(1, spec.rows + 1):
        u = p + (1 - 2 * p) * (1 - miss[0][a])
        v = p + (1 - 2 * p) * (1 - miss[1][a])
        out *= _cell_max(u, v)[0]
    return out


def worst_over_column_maps(spec: Spec, maps: Sequence[Mapping[int, int]], x: Input,
                           x2: Input) -> tuple[Fraction, tuple[int, ...]]:
    """The worst ratio of ``(x, x2)`` over every choice of ``h_1..h_m`` from ``maps`` (each a
    key -> row map; one per seed of the family), with the index of the worst map per column."""
    ratio, choice = Fraction(1), []
    for b in range(1, spec.columns + 1):
        best, arg = Fraction(0), -1
        for j, rows_of in enumerate(maps):
            f = column_factor(spec, rows_of, x, x2, b)
            if f > best:
                best, arg = f, j
        ratio *= best
        choice.append(arg)
    return ratio, tuple(choice)


# --------------------------------------------------------------------------- domains

def sparse_inputs(universe: int, sparsity: int, max_units: int) -> list[dict[int, int]]:
    """Every vector over keys ``1..d`` with at most ``k`` non-zero entries, each ``X`` in
    ``[0, max_units]`` (grid units), as ``{key: X}`` of its non-zero entries."""
    out: list[dict[int, int]] = []
    for size in range(min(sparsity, universe) + 1):
        for keys in combinations(range(1, universe + 1), size):
            for values in product(range(1, max_units + 1), repeat=size):
                out.append(dict(zip(keys, values)))
    return out


def l1_units(x: Input, x2: Input) -> int:
    """``g ||x - x2||_1`` (the l1 distance in grid units)."""
    return sum(abs(x.get(k, 0) - x2.get(k, 0)) for k in set(x) | set(x2))


def neighbour_pairs(inputs: Sequence[Input], grid: int,
                    radius: Fraction = Fraction(1)) -> Iterator[tuple[Input, Input]]:
    """Ordered pairs ``x != x2`` with ``||x - x2||_1 <= radius`` (both orders)."""
    for x in inputs:
        for x2 in inputs:
            d = l1_units(x, x2)
            if 0 < d <= radius * grid:
                yield x, x2


# --------------------------------------------------------------------------- estimator

def unary_estimate(bits: Sequence[int]) -> Fraction:
    """ALP-full Algorithm 3 core: the average of all argmax positions ``n in [0, m]`` of the walk
    ``f(n) = sum_{a <= n} (2 b_a - 1)`` (``f(0) = 0``)."""
    f, best, positions = 0, 0, [0]
    for n, bit in enumerate(bits, start=1):
        f += 2 * bit - 1
        if f > best:
            best, positions = f, [n]
        elif f == best:
            positions.append(n)
    return Fraction(sum(positions), len(positions))


def pattern_estimates(m: int, estimator: Callable[[Sequence[int]], Fraction] | None = None
                      ) -> list[tuple[int, Fraction]]:
    """``(pattern, estimator(bits))`` for every ``pattern`` in ``[0, 2^m)`` (bit ``b - 1`` of
    ``pattern`` is the bit read in column ``b``); default :func:`unary_estimate`."""
    est = unary_estimate if estimator is None else estimator
    return [(w, est(tuple((w >> i) & 1 for i in range(m)))) for w in range(1 << m)]


def error_law(p: Fraction, m: int, y: int, collision: Fraction = Fraction(0),
              estimates: Sequence[tuple[int, Fraction]] | None = None
              ) -> dict[Fraction, Fraction]:
    """The exact law of ``y~ - y`` for a key with ``y`` in ``[0, m]``: column bits ``b <= y``
    are 1 and flipped with probability ``p``; bits ``b > y`` are 0, OR-ed with an independent
    Bernoulli(``collision``) (the collision model, an ASSUMPTION), then
    flipped.  Enumerates the ``2^m`` patterns."""
    if not 0 <= y <= m:
        raise DomainError(f"y = {y} must lie in [0, m = {m}]")
    u0 = p + (1 - 2 * p) * collision
    # p = pn/pd, 1 - p = qn/pd, u0 = un/ud, 1 - u0 = vn/ud: every pattern's weight is an
    # integer numerator over the common denominator pd^y ud^(m-y) (exact; one Fraction per
    # error value at the end)
    pn, pd = p.numerator, p.denominator
    un, ud = u0.numerator, u0.denominator
    pw_q, pw_p = [(pd - pn)**j for j in range(m + 1)], [pn**j for j in range(m + 1)]
    pw_u, pw_v = [un**j for j in range(m + 1)], [(ud - un)**j for j in range(m + 1)]
    den = pd**y * ud**(m - y)
    low = (1 << y) - 1
    law: dict[Fraction, int] = {}
    for w, est in estimates if estimates is not None else pattern_estimates(m):
        ones_low = (w & low).bit_count()
        ones_high = (w >> y).bit_count()
        weight = (pw_q[ones_low] * pw_p[y - ones_low]
                  * pw_u[ones_high] * pw_v[m - y - ones_high])
        err = est - y
        law[err] = law.get(err, 0) + weight
    return {err: Fraction(num, den) for err, num in law.items()}


def expected_error(p: Fraction, m: int, y: int,
                   collision: Fraction = Fraction(0)) -> tuple[Fraction, Fraction]:
    """``(E|y~ - y|, E[y~ - y])`` in y-units (Equation 1 bounds the first)."""
    law = error_law(p, m, y, collision)
    return (sum((abs(e) * w for e, w in law.items()), Fraction(0)),
            sum((e * w for e, w in law.items()), Fraction(0)))


def tail_probability(p: Fraction, m: int, y: int, t: Fraction) -> Fraction:
    """``Pr[|y~ - y| >= t]`` (no collisions)."""
    return sum((w for e, w in error_law(p, m, y).items() if abs(e) >= t), Fraction(0))


def eq1_bound(p: Fraction) -> Fraction:
    """Equation 1 (ALP-full §4.3, as recovered from the quoted ``(8 eps + 8)/eps^2``): ``8 p q / (q - p)^2``."""
    q = 1 - p
    return 8 * p * q / (q - p) ** 2


def tail_bound(p: Fraction, t: Fraction) -> Fraction:
    """Lemma 4.15 as reconstructed: ``(2/(q-p)) (4pq)^ceil(t/2)``."""
    q = 1 - p
    half = -((-Fraction(t)) // 2)  # ceil(t / 2)
    return 2 / (q - p) * (4 * p * q) ** int(half)


def e1_mae(p: Fraction, scale: Fraction, beta: int, m: int, collision: Fraction = Fraction(0),
           estimator: Callable[[Sequence[int]], Fraction] | None = None) -> Fraction:
    """The exact MAE of the Figure 3 experiment: ``E|x~ - x|`` (x-units, ``x~ = y~ / c``) for ``x``
    uniform on the
    integers ``[0, beta]``, ``y = min(RandRound(x c), m)``, under the collision model of
    :func:`error_law` (``estimator``: the unary estimator to use, default :func:`unary_estimate`)."""
    estimates = pattern_estimates(m, estimator)
    laws = {y: error_law(p, m, y, collision, estimates) for y in range(m + 1)}
    total = Fraction(0)
    for x in range(beta + 1):
        r = x * scale
        whole = r.numerator // r.denominator
        for y, w in ((whole, 1 - (r - whole)), (whole + 1, r - whole)):
            if w == 0:
                continue
            yc = min(y, m)
            total += w * sum((abs((yc + e) / scale - x) * v for e, v in laws[yc].items()),
                             Fraction(0))
    return total / (beta + 1)
