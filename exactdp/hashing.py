"""Hash families drawn through the ``uniform(d)`` source and released with what they hash.

ALP (Aumüller, Lebeda & Pagh; ALP-short = paper 003, Algorithm 1; ALP-full = paper 000, Algorithms 2
and 4) stores bit ``b`` of entry ``i`` in row ``h_b(i)`` of column ``b`` of an ``s x m`` bit
matrix, with ``h_1, ..., h_m : [d] -> [s]`` drawn independently from a universal family
*before* and independently of the data, and released with the sketch.  Privacy holds for every
fixed seed (the privacy ratio is the same conditioned
on the hash functions), so the checker may take the maximum over all seeds of a small family.

Two families, both with keys ``i`` in ``[d]_+ = {1, ..., d}`` and rows in ``[s]_+``:

* :class:`CarterWegman` -- ``h_{a,b}(i) = ((a*i + b) mod P) mod s + 1`` over a public prime
  ``P > d`` with ``a`` uniform on ``[P-1]_+`` and ``b`` uniform on ``{0, ..., P-1}`` (Carter &
  Wegman 1979; ALP-short ref. 3): universal (collision probability at most ``1/s``).
  A seed costs exactly 2 draws, ``uniform(P - 1)`` and ``uniform(P)``.
* :class:`TableHash` -- the fully random family for tiny ``d``: the seed is the table of ``d``
  rows, ``d`` draws of ``uniform(s)``; every function ``[d] -> [s]`` has probability
  ``s^{-d}``.

Both implement the :class:`HashFamily` protocol: ``sample(source)``, ``row(seed, key)``,
``seeds()`` (every seed, for exhaustive checks), ``check_seed(seed)``, ``describe()`` (a dict
of ints and strings for serialising) and ``seed_draws`` (uniform draws per seed);
:func:`family_from_description` inverts ``describe()``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Protocol

import gmpy2
import sympy

from exactdp.params import DomainError, ParameterError, ParameterTypeError, ResourceLimitError
from exactdp.randomness import RandomSource

__all__ = [
    "MAX_ENUMERATED_SEEDS",
    "CarterWegman",
    "HashFamily",
    "HashSeed",
    "Seed",
    "TableHash",
    "TableSeed",
    "check_family",
    "default_prime",
    "family_from_description",
]

#: ``seeds()`` refuses to enumerate more seeds than this (exhaustive checks on tiny families).
MAX_ENUMERATED_SEEDS = 1 << 20
#: A table seed stores one row per key: refuse tables with more keys than this.
MAX_TABLE_UNIVERSE = 1 << 16


def _int(value: object, name: str, low: int) -> int:
    """``value`` as an int ``>= low`` (not a bool, not a float), else a typed error."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(f"{name} = {value!r:.60} must be an int >= {low}")
    if value < low:
        raise ParameterError(f"{name} = {value} must be an int >= {low}")
    return int(value)


def _show_int(v: int) -> str:
    """An int for an error message: in full if short, else by its bit length."""
    return str(v) if v.bit_length() <= 128 else f"an int of {v.bit_length()} bits"


@dataclass(frozen=True)
class HashSeed:
    """A Carter–Wegman seed ``(a, b)``: ``h(i) = ((a*i + b) mod P) mod s + 1``."""

    a: int
    b: int


@dataclass(frozen=True)
class TableSeed:
    """A fully random function ``[d] -> [s]``: ``table[i - 1]`` is the row of key ``i``."""

    table: tuple[int, ...]


Seed = HashSeed | TableSeed


class HashFamily(Protocol):
    """A family of functions ``[d]_+ -> [s]_+`` sampled through ``uniform(d)`` draws."""

    @property
    def rows(self) -> int: ...

    @property
    def universe(self) -> int: ...

    @property
    def seed_draws(self) -> int: ...

    def sample(self, source: RandomSource) -> Seed: ...

    def row(self, seed: Seed, key: int) -> int: ...

    def seeds(self) -> Iterator[Seed]: ...

    def check_seed(self, seed: object) -> Seed: ...

    def describe(self) -> dict[str, object]: ...


def check_family(family: object, name: str = "hashes") -> HashFamily:
    """``family`` if it is a :class:`CarterWegman` or :class:`TableHash`, else a typed error."""
    if not isinstance(family, (CarterWegman, TableHash)):
        raise ParameterTypeError(f"{name} = {family!r:.60} is not a hash family (pass "
                                 f"CarterWegman(prime, rows, universe) or TableHash(universe, "
                                 f"rows))")
    return family


def default_prime(universe: int) -> int:
    """The smallest prime ``P > universe`` (public, deterministic; ``gmpy2.next_prime`` is
    checked with ``sympy.isprime``, which is deterministic below ``2^64`` and BPSW above)."""
    p = int(gmpy2.next_prime(_int(universe, "universe", 1)))
    if not sympy.isprime(p):  # pragma: no cover - gmpy2 and sympy disagreeing
        raise ParameterError(f"next_prime({universe}) = {p} is not prime")
    return p


def _check_key(key: object, universe: int) -> int:
    if isinstance(key, bool) or not isinstance(key, int):
        raise ParameterTypeError(f"key = {key!r:.60} must be an int in [1, {universe}]")
    if not 1 <= key <= universe:
        raise DomainError(f"key = {_show_int(key)} is outside [1, d] with d = "
                          f"{_show_int(universe)}")
    return int(key)


@dataclass(frozen=True)
class CarterWegman:
    """The Carter–Wegman family ``h_{a,b}(i) = ((a*i + b) mod P) mod s + 1``.

    Preconditions (refused with :mod:`exactdp.params` errors): ``prime`` is a prime
    (``sympy.isprime``), ``rows = s >= 1``, ``prime >= s`` (every row is reachable) and
    ``prime > universe = d`` (distinct keys never collide modulo ``P``).  ``universe``
    defaults to ``prime - 1``.  Keys are ints in ``[1, d]``.

    Law: :meth:`sample` returns ``HashSeed(a, b)`` with ``a`` uniform on ``[1, P-1]`` and
    ``b`` uniform on ``[0, P-1]``, independent; exactly 2 draws, ``uniform(P-1)`` then
    ``uniform(P)``.  For distinct keys ``i != j`` the collision probability
    ``Pr[h(i) = h(j)]`` is at most ``1/s`` (universality).
    """

    prime: int
    rows: int
    universe: int = None  # type: ignore[assignment]  # None: prime - 1

    def __post_init__(self) -> None:
        p = _int(self.prime, "prime", 2)
        s = _int(self.rows, "rows", 1)
        d = p - 1 if self.universe is None else _int(self.universe, "universe", 1)
        if p.bit_length() > 4096:
            raise ResourceLimitError(f"prime has {p.bit_length()} bits; at most 4096 are "
                                     f"supported")
        if not sympy.isprime(p):
            raise ParameterError(f"prime = {_show_int(p)} is not a prime (Carter-Wegman "
                                 f"hashing needs a prime modulus)")
        if p <= d:
            raise ParameterError(f"prime = {_show_int(p)} must exceed the universe size "
                                 f"d = {_show_int(d)} (keys 1..d must be distinct mod P)")
        if p < s:
            raise ParameterError(f"prime = {_show_int(p)} must be >= rows = {s} (else rows "
                                 f"above P are never used)")
        object.__setattr__(self, "universe", d)

    @property
    def seed_draws(self) -> int:
        """Uniform draws per seed: 2."""
        return 2

    def sample(self, source: RandomSource) -> HashSeed:
        """``HashSeed(uniform(P-1), uniform(P) - 1)``: 2 draws, data-independent."""
        a = source.uniform(self.prime - 1)
        b = source.uniform(self.prime) - 1
        return HashSeed(a, b)

    def row(self, seed: Seed, key: int) -> int:
        """``((a*key + b) mod P) mod s + 1`` for a key in ``[1, d]``."""
        if not isinstance(seed, HashSeed):
            raise ParameterTypeError(f"seed = {seed!r:.60} is not a HashSeed")
        k = _check_key(key, self.universe)
        return (seed.a * k + seed.b) % self.prime % self.rows + 1

    def seeds(self) -> Iterator[HashSeed]:
        """Every seed ``(a, b)``, ``a`` in ``[1, P-1]``, ``b`` in ``[0, P-1]``: ``P(P-1)`` of
        them, each of probability ``1/(P(P-1))``; refused above ``MAX_ENUMERATED_SEEDS``."""
        count = self.prime * (self.prime - 1)
        if count > MAX_ENUMERATED_SEEDS:
            raise ResourceLimitError(f"CarterWegman(prime={_show_int(self.prime)}) has "
                                     f"{_show_int(count)} seeds; at most "
                                     f"{MAX_ENUMERATED_SEEDS} are enumerated")
        for a in range(1, self.prime):
            for b in range(self.prime):
                yield HashSeed(a, b)

    def check_seed(self, seed: object) -> HashSeed:
        """``seed`` if it is a ``HashSeed`` with ``1 <= a < P`` and ``0 <= b < P``."""
        if not isinstance(seed, HashSeed):
            raise ParameterTypeError(f"seed = {seed!r:.60} is not a HashSeed")
        for name, v, low in (("a", seed.a, 1), ("b", seed.b, 0)):
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v < self.prime:
                raise DomainError(f"hash seed {name} = {v!r:.60} must be an int in "
                                  f"[{low}, P - 1] with P = {_show_int(self.prime)}")
        return seed

    def describe(self) -> dict[str, object]:
        return {"family": "carter-wegman", "prime": self.prime, "rows": self.rows,
                "universe": self.universe}


@dataclass(frozen=True)
class TableHash:
    """The fully random family ``[d] -> [s]`` for tiny ``d``: the seed is the
    table of rows ``(h(1), ..., h(d))``.

    Preconditions: ``universe = d >= 1`` (at most ``MAX_TABLE_UNIVERSE``), ``rows = s >= 1``.
    Law: :meth:`sample` draws ``uniform(s)`` for keys ``1, ..., d`` in order (exactly ``d``
    draws), so every function has probability ``s^{-d}``; distinct keys collide with
    probability exactly ``1/s``.
    """

    universe: int
    rows: int

    def __post_init__(self) -> None:
        d = _int(self.universe, "universe", 1)
        _int(self.rows, "rows", 1)
        if d > MAX_TABLE_UNIVERSE:
            raise ResourceLimitError(f"TableHash: universe = {_show_int(d)} exceeds "
                                     f"{MAX_TABLE_UNIVERSE} (a seed stores one row per key; "
                                     f"use CarterWegman)")

    @property
    def seed_draws(self) -> int:
        """Uniform draws per seed: ``d``."""
        return self.universe

    def sample(self, source: RandomSource) -> TableSeed:
        """``TableSeed((uniform(s), ..., uniform(s)))`` with ``d`` draws."""
        return TableSeed(tuple(source.uniform(self.rows) for _ in range(self.universe)))

    def row(self, seed: Seed, key: int) -> int:
        """``table[key - 1]`` for a key in ``[1, d]``."""
        if not isinstance(seed, TableSeed):
            raise ParameterTypeError(f"seed = {seed!r:.60} is not a TableSeed")
        return seed.table[_check_key(key, self.universe) - 1]

    def seeds(self) -> Iterator[TableSeed]:
        """All ``s^d`` tables, each of probability ``s^{-d}``; refused above
        ``MAX_ENUMERATED_SEEDS``."""
        count = self.rows ** self.universe if self.universe < 64 else MAX_ENUMERATED_SEEDS + 1
        if count > MAX_ENUMERATED_SEEDS:
            raise ResourceLimitError(f"TableHash(universe={self.universe}, rows={self.rows}) "
                                     f"has more than {MAX_ENUMERATED_SEEDS} seeds")
        for table in product(range(1, self.rows + 1), repeat=self.universe):
            yield TableSeed(table)

    def check_seed(self, seed: object) -> TableSeed:
        """``seed`` if it is a ``TableSeed`` of ``d`` rows in ``[1, s]``."""
        if not isinstance(seed, TableSeed) or not isinstance(seed.table, tuple):
            raise ParameterTypeError(f"seed = {seed!r:.60} is not a TableSeed")
        if len(seed.table) != self.universe:
            raise DomainError(f"table seed has {len(seed.table)} rows; need d = "
                              f"{self.universe}")
        for i, r in enumerate(seed.table, start=1):
            if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= self.rows:
                raise DomainError(f"table seed row of key {i} = {r!r:.40} must be an int in "
                                  f"[1, {self.rows}]")
        return seed

    def describe(self) -> dict[str, object]:
        return {"family": "table", "universe": self.universe, "rows": self.rows}


def family_from_description(desc: Mapping[str, object]) -> CarterWegman | TableHash:
    """The family that ``describe()`` described (for reading a released sketch back):
    ``{"family": "carter-wegman", "prime", "rows", "universe"}`` or
    ``{"family": "table", "universe", "rows"}``; anything else is a typed error."""
    if not isinstance(desc, Mapping):
        raise ParameterTypeError(f"hash family description {desc!r:.60} must be a mapping")
    kind = desc.get("family")
    expected = {"carter-wegman": {"family", "prime", "rows", "universe"},
                "table": {"family", "universe", "rows"}}
    if kind not in expected:
        raise ParameterError(f"hash family = {kind!r:.40} must be 'carter-wegman' or 'table'")
    keys = set(desc)
    if keys != expected[str(kind)]:
        raise ParameterError(f"hash family {kind} needs exactly the fields "
                             f"{sorted(expected[str(kind)])}, got {sorted(map(str, keys))}")
    if kind == "table":
        return TableHash(desc["universe"], desc["rows"])  # type: ignore[arg-type]
    return CarterWegman(desc["prime"], desc["rows"], desc["universe"])  # type: ignore[arg-type]
