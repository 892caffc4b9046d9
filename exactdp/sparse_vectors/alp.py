"""ALP-projection, exact and strict-time (ALP-short Algorithm 1 = ALP-full Algorithm 4; ALP-full
Algorithm 2,
ALP1-projection, is the case ``eps = 1``).

Given the public :class:`ALPParams` ``(c, p, m, s, k, d, g)`` and a k-sparse input of
``(key, X)`` pairs (``x_key = X/g``), :meth:`ALP.project` makes, in this order:

1. the ``m`` hash seeds ``h_1..h_m`` (unless given): ``m * seed_draws`` draws (2m for
   Carter–Wegman), before and independently of the data;
2. :func:`scaled_units`: the input padded to exactly ``k`` pairs with dummies ``(0, 0)``, and
   for each padded pair ONE coin ``y = RandRound(X cn / (g cd))`` (:func:`exactdp.noise.
   rand_round`, ``c = cn/cd``), then ``y <- min(y, m)``: ``k`` draws;
3. :func:`embed`: for every padded pair and EVERY column ``b = 1..m``, cell ``(h_b(key), b)``
   is OR-ed with ``[b <= y]`` (a dummy writes nothing but costs the same): ``k*m`` steps;
4. randomized response with probability exactly ``p`` on ALL ``s*m`` cells
   (:mod:`exactdp.sparse_vectors.rr`): ``s*m`` draws (one per cell), or ``ceil(s*m/8192)``
   by blocks.

The number of draws and of loop steps depends only on the public parameters, the hash family
and the randomized-response path, never on the input (strict time; :meth:`ALP.draw_count`).

Which randomized-response path (``rr=`` of :meth:`ALP.project`): ``"cells"`` (one coin per
cell), ``"blocks"`` (one draw ``uniform(D^n)`` per block of cells, ``p = a/D`` with ``D <= 62``),
or ``"auto"`` (the default): ``"cells"`` when the source is an
:class:`~exactdp.explore.ExploringSource` (so the checker always sees the per-cell coins), when
``s*m < FAST_MIN_CELLS`` or when ``D > 62``; ``"blocks"`` otherwise.  Both paths have the same
law (every cell flips independently with probability exactly ``p``); the rule depends on public
data only (the source and the parameters).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from exactdp.explore import ExploringSource
from exactdp.hashing import CarterWegman, HashFamily, Seed, check_family
from exactdp.noise import rand_round
from exactdp.params import DomainError, ParameterError, ParameterTypeError
from exactdp.randomness import RandomSource, default_source
from exactdp.sparse_vectors.alp_params import VARIANTS, ALPParams, tight_bound
from exactdp.sparse_vectors.estimator import ALPSketch, argmax_positions, unary_estimate
from exactdp.sparse_vectors.rr import (
    MAX_BLOCK_BASE,
    block_draws,
    respond_blocks,
    respond_cells,
)

__all__ = [
    "ALP",
    "FAST_MIN_CELLS",
    "RR_PATHS",
    "VARIANTS",
    "ALPParams",
    "ALPSketch",
    "argmax_positions",
    "embed",
    "embed_cells",
    "scaled_units",
    "sparse_input",
    "tight_bound",
    "unary_estimate",
]

#: ``rr="auto"`` uses the block path from this many cells on (below it, one coin per cell).
FAST_MIN_CELLS = 4096
RR_PATHS = ("auto", "cells", "blocks")

Pairs = tuple[tuple[int, int], ...]


def sparse_input(params: ALPParams, x: object) -> Pairs:
    """``x`` validated and padded to exactly ``k`` pairs ``(key, X)``.

    ``x`` is a mapping ``{key: X}`` or a sequence of ``(key, X)`` pairs with distinct int
    keys in ``[1, d]`` and int values ``X >= 0`` in grid units (``x_key = X/g``).  Zero values
    are dropped; at most ``k`` non-zero pairs may remain; dummies ``(0, 0)`` fill up to ``k``.
    Anything else is a typed one-line error (nothing is drawn before this check).
    """
    d, k = params.universe, params.sparsity
    if type(x) is dict or isinstance(x, Mapping):
        items: Iterable[object] = x.items()
    elif isinstance(x, Sequence) and not isinstance(x, (str, bytes, bytearray)):
        items = x
    else:
        raise ParameterTypeError(f"x = {x!r:.60} must be a mapping {{key: X}} or a sequence "
                                 f"of (key, X) pairs")
    seen: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ParameterTypeError(f"x: entry {n} = {item!r:.60} must be a (key, X) pair")
        key, value = item
        if isinstance(key, bool) or not isinstance(key, int):
            raise ParameterTypeError(f"x: key {key!r:.60} (entry {n}) must be an int in "
                                     f"[1, {d}]")
        if not 1 <= key <= d:
            shown = key if key.bit_length() <= 128 else f"an int of {key.bit_length()} bits"
            raise DomainError(f"x: key {shown} (entry {n}) is outside [1, d] with d = {d}")
        if key in seen:
            raise DomainError(f"x: key {key} appears twice (keys must be distinct)")
        seen.add(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParameterTypeError(
                f"x: value {value!r:.60} of key {key} must be an int X >= 0 in grid units "
                f"(x = X/g with g = {params.grid}; floats and fractions are refused)")
        if value < 0:
            raise DomainError(f"x: value {value} of key {key} is negative (ALP takes "
                              f"non-negative vectors)")
        if value:
            pairs.append((key, int(value)))
    if len(pairs) > k:
        raise DomainError(f"x has {len(pairs)} non-zero entries; at most k = {k} are allowed "
                          f"(sparsity)")
    return tuple(pairs) + ((0, 0),) * (k - len(pairs))


def scaled_units(params: ALPParams, x: object, source: RandomSource) -> Pairs:
    """Step 1 of ALP-full Algorithm 4 (``x^ = eps x``, then ``y = RandRound(x^ / alpha)`` as in
    ALP-full Algorithm 2), exact: the ``k`` padded pairs ``(key, y)`` with
    ``y = min(RandRound(X cn / (g cd)), m)`` for ``c = cn/cd``.

    Law: independent over pairs; ``y = floor(r) + 1`` with probability exactly ``frac(r)``,
    else ``floor(r)``, for ``r = X c / g = x c``, then clamped to ``m``.  Draws: exactly ``k``
    coins ``bernoulli((X cn) mod (g cd), g cd)``, in pair order (a dummy draws too).
    """
    pairs = sparse_input(params, x)
    return _scaled(params, pairs, default_source(source))


def _scaled(params: ALPParams, pairs: Pairs, source: RandomSource) -> Pairs:
    cn, den = params.scale.numerator, params.scale.denominator * params.grid
    m = params.columns
    return tuple((key, min(rand_round(value * cn, den, source), m)) for key, value in pairs)


def embed_cells(params: ALPParams, hashes: HashFamily, seeds: Sequence[Seed],
                ys: Sequence[tuple[int, int]]) -> bytearray:
    """Step 2 of ALP-full Algorithm 2 as ``s*m`` characters ``'0'``/``'1'`` in cell order
    ``j = (b-1)*s + (a-1)``: ``z_{a,b} = 1`` iff some pair has ``b <= y`` and ``h_b(key) = a``.

    Every pair walks all ``m`` columns (``len(ys) * m`` steps; a dummy ``(0, y=0)`` hashes key
    1, or key 0 under Carter–Wegman, and ORs in 0).  ``y > m`` writes ``m`` ones (truncation).
    """
    s, m = params.rows, params.columns
    if len(seeds) != m:
        raise ParameterError(f"need m = {m} hash seeds, got {len(seeds)}")
    cells = bytearray(b"0" * (s * m))
    if isinstance(hashes, CarterWegman):
        prime = hashes.prime
        for col, seed in enumerate(seeds):
            a, b = seed.a, seed.b  # type: ignore[union-attr]
            base, bcol = col * s, col + 1
            for key, y in ys:
                cells[base + (a * key + b) % prime % s] |= bcol <= y
    else:
        for col, seed in enumerate(seeds):
            base, bcol = col * s, col + 1
            for key, y in ys:
                cells[base + hashes.row(seed, key or 1) - 1] |= bcol <= y
    return cells


def embed(params: ALPParams, seeds: Sequence[Seed], ys: Sequence[tuple[int, int]],
          hashes: HashFamily | None = None) -> frozenset[tuple[int, int]]:
    """The cells ``(row a, column b)`` (1-based) set to 1 by step 2 of ALP-full Algorithm 2 for the
    pairs ``ys = ((key, y), ...)`` (y already rounded; dummies ``(0, 0)`` allowed) under
    ``hashes`` (default: ``params.default_hashes()``).  ALP-short Figure 1: ``s = 5, m = 8, y = 5``
    and rows ``2,3,5,3,4,4,1,2`` set ``{(2,1), (3,2), (5,3), (3,4), (4,5)}``."""
    family = params.default_hashes() if hashes is None else hashes
    cells = embed_cells(params, family, seeds, ys)
    s = params.rows
    return frozenset((j % s + 1, j // s + 1) for j, ch in enumerate(cells) if ch == 0x31)


class ALP:
    """ALP-projection (ALP-short Algorithm 1 = ALP-full Algorithm 4; ALP1 = ALP-full Algorithm 2
    when
    ``eps = 1``) with exact parameters and a hash family (default: Carter–Wegman over the
    smallest prime above ``max(d, s)``).

    Preconditions: ``hashes.rows == s`` and ``hashes.universe >= d``.
    Law of :meth:`project` given the seeds: cells independent, ``Pr[z~_{a,b} = 1] =
    p + (1 - 2p) pi_{a,b}`` with ``pi_{a,b} = Pr[exists pair: b <= y, h_b(key) = a]``.  Privacy
    (fixed seeds, all ``x, x'``): ratio ``<= e^{eps_cert ||x - x'||_1}``
    with ``eps_cert = c(1-2p)/p`` (ALP-full Lemmas 4.1, 4.12).
    Time: exactly :meth:`draw_count` draws and ``O(k m + s m)`` steps for every input.
    """

    def __init__(self, params: ALPParams, hashes: HashFamily | None = None) -> None:
        if not isinstance(params, ALPParams):
            raise ParameterTypeError(f"params = {params!r:.60} must be ALPParams")
        family = params.default_hashes() if hashes is None else check_family(hashes)
        if family.rows != params.rows or family.universe < params.universe:
            raise ParameterError(f"hashes = {family.describe()} must map keys "
                                 f"1..{params.universe} to rows 1..{params.rows}")
        self.params = params
        self.hashes = family

    def __repr__(self) -> str:
        return f"ALP({self.params!r}, {self.hashes!r})"

    def draw_hashes(self, source: RandomSource | None = None) -> tuple[Seed, ...]:
        """The ``m`` seeds, drawn in column order: ``m * hashes.seed_draws`` draws."""
        src = default_source(source)
        return tuple(self.hashes.sample(src) for _ in range(self.params.columns))

    def rr_path(self, source: RandomSource, rr: str = "auto") -> str:
        """The randomized-response path :meth:`project` takes (see the module docstring)."""
        if rr not in RR_PATHS:
            raise ParameterError(f"rr = {rr!r:.40} must be one of {RR_PATHS}")
        small_base = self.params.flip.denominator <= MAX_BLOCK_BASE
        if rr == "blocks" and not small_base:
            raise ParameterError(f"rr = 'blocks' needs the denominator of flip = "
                                 f"{self.params.flip} to be <= {MAX_BLOCK_BASE}")
        if rr != "auto":
            return rr
        if (isinstance(source, ExploringSource) or not small_base
                or self.params.cells < FAST_MIN_CELLS):
            return "cells"
        return "blocks"

    def draw_count(self, *, seeds_drawn: bool = True, rr: str = "cells") -> int:
        """The exact number of uniform draws of :meth:`project` for every input:
        ``m * seed_draws`` (if seeds are drawn) ``+ k +`` (``s*m`` per cell, or
        ``ceil(s*m / 8192)`` by blocks).  ``rr`` is the resolved path (see :meth:`rr_path`)."""
        if rr not in ("cells", "blocks"):
            raise ParameterError(f"rr = {rr!r:.40} must be 'cells' or 'blocks' here")
        prm = self.params
        seeds = prm.columns * self.hashes.seed_draws if seeds_drawn else 0
        cells = prm.cells if rr == "cells" else block_draws(prm.cells)
        return seeds + prm.sparsity + cells

    def project(self, x: object, source: RandomSource | None = None,
                seeds: Sequence[Seed] | None = None, *, rr: str = "auto") -> ALPSketch:
        """``(h, z~) = ALP-projection(x)`` (ALP-full Algorithm 4 with ALP-full Algorithm 2 inside).

        ``x``: see :func:`sparse_input` (validated before any draw).  ``seeds``: the ``m``
        hash seeds, or None to draw them first from ``source`` (default SystemSource).
        """
        pairs = sparse_input(self.params, x)
        src = default_source(source)
        path = self.rr_path(src, rr)
        if seeds is None:
            chosen = self.draw_hashes(src)
        else:
            if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
                raise ParameterTypeError(f"seeds = {seeds!r:.60} must be a sequence of "
                                         f"{self.params.columns} hash seeds")
            if len(seeds) != self.params.columns:
                raise ParameterError(f"seeds: got {len(seeds)}, need m = "
                                     f"{self.params.columns}")
            chosen = tuple(self.hashes.check_seed(seed) for seed in seeds)
        ys = _scaled(self.params, pairs, src)
        z = embed_cells(self.params, self.hashes, chosen, ys)
        respond = respond_cells if path == "cells" else respond_blocks
        bits = respond(z, self.params.flip, src)
        return ALPSketch._built(self.params, self.hashes, chosen, bits)

