"""The inverse-CDF search every counting sampler shares (Balcer & Vadhan, Lemma 2.13), the
samplers' common base class, and the draws they hand to a random source.

* :func:`inverse_cdf_search` -- the one binary search of all of them; it runs exactly
  ``n.bit_length()`` rounds whatever ``c`` and ``u`` are.
* :class:`InverseCDFSampler` -- a counting mechanism given by an integer CDF,
  ``M(c, u) = min{z : F_c(z) >= u}``: the deterministic call, ``sample`` and ``sample_many``.
* :class:`TabulatedMechanism` -- one given by its CDF table (toys for exhaustive checks).
* :class:`CDFDraw` and :class:`CountBatch` -- one draw, and a batch of draws, as
  ``RandomSource.inverse_cdf`` and ``inverse_cdf_many`` take them (the exploring source branches
  on their ``cdf``, other sources call their ``search``).

Every sampler is a deterministic function ``M(c, u)``, non-decreasing in ``u``; its output
distribution for ``U ~ Unif([d]_+)`` is ``Pr[M(c, U) <= z] = F_c(z) / d``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from numbers import Integral
from typing import cast

import gmpy2

from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
    check_count,
)
from exactdp.randomness import RandomSource, default_source
from exactdp.trace import active

__all__ = [
    "BATCH_CHUNK",
    "MAX_INTEGER_BITS",
    "CDFDraw",
    "CountBatch",
    "InverseCDFSampler",
    "TabulatedMechanism",
    "check_outcome",
    "count_list",
    "guard_bits",
    "inverse_cdf_search",
    "record_native_search",
    "search_rounds",
]

#: Refuse to build integers longer than this many bits (about 32 MiB each): the paper's
#: ``d`` can be astronomically large for extreme parameters (FastSample with
#: ``eps = 2**-200`` has ``t`` near ``2**203``); ``k`` and ``t`` stay exact regardless.
MAX_INTEGER_BITS = 1 << 28

#: ``sample_many`` draws and searches its counts in chunks of this many (one
#: ``uniform_many`` each: memory stays near ``BATCH_CHUNK log2(d) / 8`` bytes).
BATCH_CHUNK = 1 << 13

_MPZ = type(gmpy2.mpz(0))

#: The trace event of one search round (one tuple, appended once per round).
_CDF_EVENT = ("cdf",)


def search_rounds(n: int) -> int:
    """Rounds of :func:`inverse_cdf_search` over ``[n]``: ``ceil(log2(n + 1))``."""
    return n.bit_length()


def inverse_cdf_search(cdf: Callable[[int], int], n: int, u: int) -> int:
    """The smallest ``z`` in ``[n]`` with ``cdf(z) >= u`` (Lemma 2.13 by binary search).

    Preconditions: ``cdf`` non-decreasing on ``[n]`` and ``cdf(n) >= u``.
    Time: exactly ``search_rounds(n)`` rounds and one ``cdf`` evaluation per round, for
    every ``u`` -- the loop never exits early (strict time).  Each round
    is recorded as the trace event ``("cdf",)``.
    """
    if type(u) is not int and type(u) is not _MPZ and (  # the common draws: no ABC check
            isinstance(u, bool) or not isinstance(u, Integral)):
        raise ParameterTypeError(f"u = {u!r:.60} must be an int (a draw from [d]_+)")
    lo, hi = 0, n  # invariant: the answer lies in [lo, hi]
    events = active()
    for _ in range(n.bit_length()):  # search_rounds(n), without the call
        mid = (lo + hi) >> 1
        if events is not None:
            events.append(_CDF_EVENT)
        if cdf(mid) >= u:
            hi = mid
        else:
            lo = mid + 1
    return lo


def record_native_search(k: int, rounds: int) -> None:
    """The trace of ``k`` native searches of ``rounds`` rounds: one search records its rounds
    as the Python search does (one ``("cdf",)`` each), a batch of ``k != 1`` the one event
    ``("native_search", k, rounds)``."""
    events = active()
    if events is None:
        return
    if k == 1:
        events.extend([_CDF_EVENT] * rounds)
    else:
        events.append(("native_search", k, rounds))


def check_outcome(z: object) -> None:
    """An output ``z`` must be an int (not a bool): ``alpha**1.5`` is a float, and ``True``
    is not the outcome 1."""
    if isinstance(z, bool) or not isinstance(z, int):
        raise ParameterTypeError(f"z = {z!r:.60} must be an int")


def guard_bits(bits: int, what: str) -> None:
    """Refuse (:class:`~exactdp.params.ResourceLimitError`) to build ``what``, an integer of
    about ``bits`` bits, beyond :data:`MAX_INTEGER_BITS`."""
    if bits > MAX_INTEGER_BITS:
        raise ResourceLimitError(
            f"{what} would have about {bits} bits (> MAX_INTEGER_BITS = {MAX_INTEGER_BITS}); "
            f"choose a larger epsilon/gamma or a smaller n")


def count_list(counts: object) -> list[object]:
    """``counts`` as a list, refusing what is not a sequence of counts (a string, a dict)."""
    if isinstance(counts, (str, bytes, dict)) or not hasattr(counts, "__iter__"):
        raise ParameterTypeError(f"counts = {counts!r:.60} must be a sequence of ints")
    return list(counts)  # type: ignore[call-overload]


class InverseCDFSampler:
    """A counting mechanism given by an integer CDF: ``M(c, u) = min{z : F_c(z) >= u}``.

    Subclasses define ``n``, ``d`` and ``cdf(c, z)`` (non-decreasing in ``z``, ``0`` for
    ``z < 0`` and ``d`` for ``z >= n``).  This class supplies the deterministic call, the
    sampling entry point and the scaled CDF at 0 (Definition 4.3).
    """

    n: int

    @property
    def d(self) -> int:
        raise NotImplementedError

    def cdf(self, c: int, z: int) -> int:
        raise NotImplementedError

    def _check_cz(self, c: object, z: object) -> None:
        """``c`` in ``[n]`` and ``z`` an int: outside them the closed forms would leave the
        integers (a negative exponent gives a float), so refuse instead."""
        if type(c) is int and type(z) is int and 0 <= c <= self.n:
            return  # the common case, decided without the checks' calls
        check_count(c, self.n)
        check_outcome(z)

    def __call__(self, c: int, u: int) -> int:
        """``M(c, u)``: deterministic, non-decreasing in ``u``; ``u`` must lie in ``[d]_+``."""
        if not (type(c) is int and type(u) is int and 0 <= c <= self.n and 1 <= u <= self.d):
            c = self._check_call(c, u)  # anything but plain ints in range: refused or converted
        return self._search(c, u)

    def _check_call(self, c: object, u: object) -> int:
        """The checks of :meth:`__call__`: ``c`` in ``[n]`` (returned as an int) and ``u`` an
        int in ``[d]_+``, else the error naming the first that fails."""
        c = check_count(c, self.n)
        d = self.d
        if isinstance(u, bool) or not isinstance(u, int):
            raise ParameterTypeError(f"u = {u!r} must be an int in [1, d]")
        if not 1 <= u <= d:
            raise DomainError(f"u = {u} is outside [d]_+ = [1, {d}]")
        return c

    def search_cdf(self, c: int, z: int) -> int:
        """The ``F_c(z)``, ``z`` in ``[0, n]``, that the search evaluates: :meth:`cdf` here; a
        subclass may compute the same values faster (the proofs check equality on every
        ``(c, z)`` of their grids)."""
        return self.cdf(c, z)

    def _search(self, c: int, u: int) -> int:
        """``min{z : F_c(z) >= u}`` by :func:`inverse_cdf_search` over :meth:`search_cdf`."""
        return inverse_cdf_search(partial(self.search_cdf, c), self.n, u)

    def draw(self, c: int) -> CDFDraw:
        """The inverse-CDF draw at count ``c``, for ``RandomSource.inverse_cdf``."""
        if type(c) is int and 0 <= c <= self.n:  # what check_count accepts unchanged
            return CDFDraw(self, c)
        return CDFDraw(self, check_count(c, self.n))

    def sample(self, c: int, source: RandomSource | None = None) -> int:
        """Release ``M(c, U)`` with ``U = source.uniform(d)`` (default: the OS CSPRNG)."""
        return default_source(source).inverse_cdf(self.draw(c))

    def sample_many(self, counts: Sequence[int], source: RandomSource | None = None) -> list[int]:
        """``[M(c, U_c) for c in counts]`` with independent ``U_c`` uniform on ``[d]_+``: the
        distribution of ``[self.sample(c, source) for c in counts]``, drawn as one
        ``source.uniform_many(d, k)`` per chunk of ``k = BATCH_CHUNK`` counts (one OS read each
        with the default source) and the searches of :meth:`search_many`.  Strict time: the operations depend only on
        ``len(counts)`` and the public parameters (every search runs its full rounds)."""
        valid = self.check_counts(counts)
        src = default_source(source)
        out: list[int] = []
        for i in range(0, len(valid), BATCH_CHUNK):
            out += src.inverse_cdf_many(CountBatch(self, valid[i:i + BATCH_CHUNK]))
        return out

    def check_counts(self, counts: Sequence[int]) -> list[int]:
        """``counts`` as a list, each checked as :meth:`draw` checks one count (an int in
        ``[n]``; a subclass with its own :meth:`draw` applies its own rule)."""
        if (type(counts) is list and type(self).draw is InverseCDFSampler.draw
                and (not counts or (set(map(type, counts)) == {int}
                                    and 0 <= min(counts) and max(counts) <= self.n))):
            return list(counts)  # plain in-range ints (checked at C speed), as they are
        cs = count_list(counts)
        if type(self).draw is not InverseCDFSampler.draw:
            return [self.draw(c).c for c in cs]  # type: ignore[arg-type]
        if all(type(c) is int for c in cs):
            ints = cast(list[int], cs)
            if not ints or (0 <= min(ints) and max(ints) <= self.n):
                return ints
        return [check_count(c, self.n) for c in cs]

    def search_many(self, counts: Sequence[int], us: Sequence[int]) -> list[int]:
        """``[M(c, u) for c, u in zip(counts, us)]`` for validated counts and draws in
        ``[d]_+`` (the searches of :meth:`sample_many`)."""
        return [self._search(c, u) for c, u in zip(counts, us, strict=True)]

    def raw_search(self) -> Callable[[list[int], bytes], list[int]] | None:
        """None, or the one-pass native path ``(counts, raw) -> outputs`` of
        ``InverseCDFBatch.search_raw`` (see :mod:`exactdp.randomness`)."""
        return None

    def scaled_cdf_at_zero(self, z: int) -> int:
        """``F_M(z) = d * Pr[M(0, U) <= z]`` (Definition 4.3)."""
        return self.cdf(0, z)


class TabulatedMechanism(InverseCDFSampler):
    """A counting mechanism ``M: [n] x [d]_+ -> [n]`` given by its integer CDF table.

    ``table[c][z] = F_c(z) = |{u in [d]_+ : M(c, u) <= z}|`` for ``c, z`` in ``[n]``:
    non-decreasing in ``z``, with ``F_c(n) = d`` for every ``c``.  ``M(c, u)`` is the
    inverse-CDF search, so it is non-decreasing in ``u`` (the premise of Lemma 8.4).  Small
    toy mechanisms for exhaustive checks: e.g. Section 8 on tiny fields, where GeoSample's
    ``d`` is too big for ``d0 >= 4d/3``, and the checker's own tests.
    """

    def __init__(self, table: Sequence[Sequence[int]]) -> None:
        try:
            if isinstance(table, (str, bytes)):
                raise TypeError
            rows = [tuple(row) for row in table]
            if any(isinstance(row, (str, bytes)) for row in table):
                raise TypeError
        except TypeError:
            raise ParameterTypeError(f"table = {table!r:.60} must be a sequence of rows of "
                                     f"ints, F_c(0), ..., F_c(n) for c = 0..n") from None
        if len(rows) < 2:
            raise ParameterError("a tabulated mechanism needs rows for c = 0..n with n >= 1")
        n = len(rows) - 1
        d = rows[0][-1] if rows[0] else 0
        for c, row in enumerate(rows):
            if len(row) != n + 1:
                raise ParameterError(f"row c = {c} has {len(row)} entries; it needs n + 1 = "
                                     f"{n + 1} (F_c(0), ..., F_c(n))")
            prev = 0
            for z, f in enumerate(row):
                if isinstance(f, bool) or not isinstance(f, int) or f < prev:
                    raise ParameterError(f"F_{c}({z}) = {f!r} must be an int >= F_{c}({z - 1}) "
                                         f"= {prev}")
                prev = f
            if row[-1] != d or d < 1:
                raise ParameterError(f"F_{c}(n) = {row[-1]} must equal d = {d} >= 1 for every c")
        self.n = n
        self._d = d
        self.table = tuple(rows)

    def __repr__(self) -> str:
        return f"TabulatedMechanism({[list(r) for r in self.table]})"

    @property
    def d(self) -> int:
        return self._d

    def cdf(self, c: int, z: int) -> int:
        self._check_cz(c, z)
        if z < 0:
            return 0
        if z >= self.n:
            return self._d
        return self.table[c][z]


@dataclass(frozen=True)
class CDFDraw:
    """One inverse-CDF draw of ``mechanism`` at count ``c`` (see ``RandomSource.inverse_cdf``)."""

    mechanism: InverseCDFSampler
    c: int

    #: Not a split draw (``RandomSource.inverse_cdf`` asks; a class attribute, not a field).
    lazy_low_bits = False

    @property
    def n(self) -> int:
        return self.mechanism.n

    @property
    def d(self) -> int:
        return self.mechanism.d

    def cdf(self, z: int) -> int:
        return self.mechanism.cdf(self.c, z)

    def search(self, u: int) -> int:
        return self.mechanism(self.c, u)


class CountBatch:
    """Independent inverse-CDF draws of ``mechanism`` at ``counts`` (validated), for
    ``RandomSource.inverse_cdf_many``."""

    __slots__ = ("counts", "mechanism")

    def __init__(self, mechanism: InverseCDFSampler, counts: list[int]) -> None:
        self.mechanism, self.counts = mechanism, counts

    @property
    def d(self) -> int:
        return self.mechanism.d

    def __len__(self) -> int:
        return len(self.counts)

    def draw(self, i: int) -> CDFDraw:
        return self.mechanism.draw(self.counts[i])

    def search_all(self, us: Sequence[int]) -> list[int]:
        return self.mechanism.search_many(self.counts, us)

    @property
    def lazy_raw(self) -> Callable[[RandomSource], list[int]] | None:
        """None, or the lazy draws of the batch from a byte source (FastSample: see
        :mod:`exactdp.lazy_draws`)."""
        lazy = getattr(self.mechanism, "lazy_draws", None)
        f = None if lazy is None else lazy()
        return None if f is None else partial(f, self.counts)

    @property
    def search_raw(self) -> Callable[[bytes], list[int]] | None:
        raw = self.mechanism.raw_search()
        return None if raw is None else partial(raw, self.counts)
