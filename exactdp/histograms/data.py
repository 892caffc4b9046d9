"""The histogram data model (Balcer & Vadhan, Sections 2.1, 2.2 and 2.4).

* :class:`Universe` -- the data universe ``X = [M]_+ = {1, ..., M}`` for any positive
  integer ``M`` (``2**64``, ``2**128``, ...).  Section 2.4: "we assume the data universe is
  indexed so we can view X = [m]_+".
* :class:`Dataset` -- ``D in X^n``: a finite, non-empty sequence of elements of ``X``; ``n``
  (its length) is public, as in the paper's model.  :meth:`Dataset.counts` computes the point
  functions ``c_x(D) = |{i : D_i = x}|`` of every ``x`` with ``c_x(D) > 0`` in one pass.
* :class:`Histogram` -- a released partial vector (Section 2.2.1): pairs ``(x, count)`` with
  each ``x`` at most once, **sorted by x** (footnote 4: the order in which bins are released
  must not depend on the data, so the only order ever released is the universe's own), and
  counts in ``[0, n]``.  Unlisted elements have count 0.
* :func:`encode_label` / :func:`decode_label` -- the injective map from strings and byte
  strings into a universe, so real identifiers can be fed in.

Encoding of labels.  A byte string ``b = b_1 ... b_L`` is mapped to the positive integer

    ``x(b) = 1 + sum_{i=1}^{L} (b_i + 1) * 256**(L - i)``

(bijective base-256 numeration, shifted by one so that the empty string is 1).  This is a
**bijection** between all byte strings and the positive integers that orders strings by
length, then lexicographically; strings of length ``<= L`` fill exactly
``[1, (256**(L+1) - 1)/255]``.  A label is therefore accepted in ``X = [M]_+`` iff
``x(b) <= M``; otherwise :class:`LabelTooLongError` says how large ``M`` must be.  With
``M = 2**64`` every byte string of length at most 7 fits (and some of length 8).  Text is
encoded as UTF-8 first, which is itself injective, so distinct strings never collide.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Integral
from typing import Any

from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    positive_int,
)

__all__ = [
    "CountedDataset",
    "Dataset",
    "EmptyDatasetError",
    "Histogram",
    "LabelTooLongError",
    "Universe",
    "decode_label",
    "encode_label",
    "label_capacity",
]


class EmptyDatasetError(ParameterError):
    """A dataset must have at least one row (the paper's ``D in X^n`` has ``n >= 1``)."""


class LabelTooLongError(DomainError):
    """A label's code ``x(b)`` exceeds the universe size ``M``."""


def _element(x: object, name: str) -> int:
    """An element candidate as a plain ``int``.

    Only integers are elements: ``int`` and other :class:`numbers.Integral` types (numpy's
    integer types).  A float is refused even when integral (``1.9`` must never become ``1``,
    and ``2.0`` is refused too, so no float ever reaches the data); ``bool``, strings,
    ``Fraction`` and numpy floats are refused as well -- each with a
    :class:`~exactdp.params.ParameterTypeError` naming the value.
    """
    if isinstance(x, bool) or not isinstance(x, Integral):
        hint = ("use Dataset.from_labels or encode_label for text labels"
                if isinstance(x, (str, bytes)) else
                "convert it exactly yourself; exactdp never rounds an element")
        raise ParameterTypeError(f"{name} = {x!r} ({type(x).__name__}) is not an integer "
                                 f"element of the universe [1, M]; {hint}")
    return int(x)


def _count(c: object, n: int, x: int) -> int:
    if isinstance(c, bool) or not isinstance(c, Integral):
        raise ParameterTypeError(f"count {c!r} ({type(c).__name__}) of element {x} must be "
                                 f"an integer in [0, n]")
    if not 0 <= int(c) <= n:
        raise DomainError(f"count {c} of element {x} is outside [0, n] with n = {n}")
    return int(c)


@dataclass(frozen=True)
class Universe:
    """The data universe ``X = [M]_+ = {1, ..., M}``; ``M = size`` is any positive integer.

    ``len()`` is deliberately not defined (Python caps it at ``sys.maxsize`` and ``M`` may be
    ``2**128``); use :attr:`size`.
    """

    size: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", positive_int(self.size, "universe size M"))

    def __contains__(self, x: object) -> bool:
        return (not isinstance(x, bool) and isinstance(x, Integral)
                and 1 <= int(x) <= self.size)

    def check(self, x: object, name: str = "element") -> int:
        """``x`` as an ``int`` if it lies in ``[1, M]``; :class:`DomainError` otherwise."""
        v = _element(x, name)
        if not 1 <= v <= self.size:
            raise DomainError(f"{name} = {_show_int(v)} is outside the universe X = [1, M] "
                              f"with M = {_show_int(self.size)}")
        return v

    def elements(self) -> range:
        """``range(1, M + 1)`` (lazy: fine for any ``M``, but iterate only small ones)."""
        return range(1, self.size + 1)

    def encode(self, label: str | bytes, name: str = "label") -> int:
        """The element coding ``label`` (see the module docstring); refused if ``> M``."""
        return encode_label(label, self.size, name=name)

    def __str__(self) -> str:
        return f"[1, {_show_int(self.size)}]"


def _show_int(v: int) -> str:
    """``v`` in decimal when short, otherwise its bit length (exactly true either way, and
    never beyond CPython's 4300-digit ``str(int)`` limit)."""
    if v.bit_length() <= 128:
        return str(v)
    if v & (v - 1) == 0:
        return f"2**{v.bit_length() - 1}"
    return f"an integer of {v.bit_length()} bits"


def _show_label(label: object) -> str:
    """``repr`` of a label, cut to about 40 characters (error messages stay one line)."""
    if isinstance(label, (str, bytes, bytearray)):
        head = 40
        while len(repr(label[:head])) > 48:  # escapes such as '\\xff' take 4 characters
            head //= 2
        if head >= len(label):
            return repr(label)
        unit = "chars" if isinstance(label, str) else "bytes"
        return repr(label[:head]) + f"... ({len(label)} {unit})"
    text = repr(label)
    return text if len(text) <= 60 else text[:40] + "..."


def encode_label(label: str | bytes, universe_size: int, *, name: str = "label") -> int:
    """``x(b) = 1 + sum_i (b_i + 1) 256**(L-i)`` for ``b`` = ``label`` (UTF-8 for ``str``).

    Injective (indeed a bijection from all byte strings onto the positive integers); raises
    :class:`LabelTooLongError` when ``x(b) > universe_size``.  Linear time in the label's
    length: ``x(b) = 1 + int(b) + (256**L - 1)/255`` (``int(b)`` the big-endian value of the
    bytes), and a label whose length alone rules it out (``x(b) > 256**(L-1) >= M``) is
    refused before any big integer is built.  ``name`` names the label in error messages.

    >>> encode_label(b"", 10), encode_label(b"\\x00", 10), encode_label("a", 1000)
    (1, 2, 99)
    """
    if isinstance(label, str):
        try:
            data = label.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise DomainError(f"{name} = {_show_label(label)} is not valid Unicode text: "
                              f"character {exc.start + 1} is {label[exc.start]!r} (a lone "
                              f"surrogate cannot be encoded as UTF-8)") from None
    elif isinstance(label, (bytes, bytearray)):
        data = bytes(label)
    else:
        raise ParameterTypeError(f"{name} = {_show_label(label)} ({type(label).__name__}) "
                                 f"must be str or bytes")
    size = positive_int(universe_size, "universe size M")
    length = len(data)
    if length > 64 and 8 * (length - 1) >= size.bit_length():
        # x(b) > 256**(L-1) = 2**(8(L-1)) >= 2**bitlen(M) > M: refused without building x.
        raise LabelTooLongError(
            f"{name} = {_show_label(label)} of {length} bytes does not fit in the universe "
            f"[1, M] with M = {_show_int(size)}: M holds every label of at most "
            f"{label_capacity(size)} bytes, and this label's code exceeds "
            f"2**{8 * (length - 1)}, so pass a universe size of at least its code "
            f"(2**{8 * length + 1} suffices)")
    x = 1 + int.from_bytes(data, "big") + int.from_bytes(b"\x01" * length, "big")
    if x > size:
        raise LabelTooLongError(
            f"{name} = {_show_label(label)} of {length} bytes codes to {_show_int(x)}, "
            f"outside the universe [1, M] with M = {_show_int(size)}; M holds every label "
            f"of at most {label_capacity(size)} bytes: pass a universe size of at least "
            + (str(x) if x.bit_length() <= 128 else
               f"its code, an integer of {x.bit_length()} bits (2**{x.bit_length()} suffices)"))
    return x


def decode_label(x: int) -> bytes:
    """The inverse of :func:`encode_label`: the byte string coded by ``x >= 1``."""
    v = _element(x, "x")
    if v < 1:
        raise DomainError(f"x = {v} must be >= 1")
    v -= 1
    out = bytearray()
    while v > 0:
        digit = (v - 1) % 256  # bijective base 256: digits 1..256 stand for bytes 0..255
        out.append(digit)
        v = (v - 1) // 256
    return bytes(reversed(out))


def label_capacity(universe_size: int) -> int:
    """The largest ``L`` such that every byte string of length ``<= L`` fits in ``[1, M]``,
    i.e. with ``top(L) = (256**(L+1) - 1)/255 <= M``.  Since ``top(L) > 2**(8L)`` the answer
    is at most ``(bitlen(M) - 1) // 8``, and since ``top(L) < 2**(8L+1)`` it is at least that
    minus one: at most two big-integer comparisons, whatever ``M``."""
    size = positive_int(universe_size, "universe size M")
    length = (size.bit_length() - 1) // 8
    while length > 0 and (256 ** (length + 1) - 1) // 255 > size:
        length -= 1
    return length


@dataclass(frozen=True)
class Dataset:
    """``D in X^n``: a non-empty sequence of elements of ``universe`` (Section 2.1).

    Rows are validated on construction (every row an integer in ``[1, M]``).  Two datasets
    are neighbours when they have the same length and differ in exactly one row.
    """

    universe: Universe
    rows: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.universe, Universe):
            raise ParameterTypeError(f"universe = {self.universe!r} must be a Universe")
        if isinstance(self.rows, Mapping):
            raise ParameterTypeError(
                f"rows = {_show_label(self.rows)} is a mapping; pass the rows themselves (a "
                f"sequence of integer elements, one per row), or use Histogram.from_counts "
                f"for a mapping element -> count")
        if isinstance(self.rows, (str, bytes)) or not isinstance(self.rows, Iterable):
            raise ParameterTypeError(f"rows = {self.rows!r} must be a sequence of integer "
                                     f"elements (use Dataset.from_labels for text labels)")
        rows = tuple(self.rows)
        if not rows:
            raise EmptyDatasetError("the dataset is empty: the paper's datasets D in X^n "
                                    "have n >= 1 rows")
        size = self.universe.size
        if set(map(type, rows)) == {int} and 1 <= min(rows) and max(rows) <= size:
            object.__setattr__(self, "rows", rows)  # plain ints in [1, M]: nothing to convert
            return
        clean: list[int] = []
        for i, x in enumerate(rows):
            if type(x) is not int:
                x = _element(x, f"row {i + 1}")
            if not 1 <= x <= size:
                raise DomainError(f"row {i + 1} = {_show_int(x)} is outside the universe "
                                  f"X = [1, M] with M = {_show_int(size)}")
            clean.append(x)
        object.__setattr__(self, "rows", tuple(clean))

    @classmethod
    def of(cls, universe: Universe | int, rows: Iterable[object]) -> Dataset:
        """Build from a universe (or its size) and an iterable of integer rows -- or one
        column of numpy, pandas, polars, pyarrow or DuckDB, validated and counted vectorised
        (:func:`exactdp.column_input.count_column`: a :class:`CountedDataset`,
        with no Python object per row)."""
        u = universe if isinstance(universe, Universe) else Universe(universe)
        from exactdp import column_input

        if cls is Dataset and column_input.is_column(rows):
            counted = column_input.count_column(rows, u.size)
            if not counted[0]:
                raise EmptyDatasetError("the column is empty: the paper's datasets D in X^n "
                                        "have n >= 1 rows")
            return CountedDataset.from_sorted(u, *counted)
        return cls(u, rows)  # type: ignore[arg-type]  # validated in __post_init__

    @classmethod
    def from_labels(cls, universe: Universe | int, labels: Iterable[str | bytes]) -> Dataset:
        """Build from string or byte-string identifiers via :func:`encode_label`."""
        u = universe if isinstance(universe, Universe) else Universe(universe)
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Iterable):
            raise ParameterTypeError(f"labels = {labels!r} must be a sequence of str or bytes "
                                     f"labels (a single string would be read character by "
                                     f"character)")
        return cls(u, tuple(u.encode(label, f"label {i + 1}")
                            for i, label in enumerate(labels)))

    @property
    def n(self) -> int:
        return len(self.rows)

    def counts(self) -> dict[int, int]:
        """``{x: c_x(D)}`` for every ``x`` with ``c_x(D) > 0`` -- one pass over the rows.

        The keys are the set ``A = {x : c_x(D) > 0}`` of Algorithms 5.4, 6.4 and 6.21
        (in order of first occurrence).  The pass is made once per dataset (the rows are
        immutable); each call returns a new dict.
        """
        return dict(self._counts)

    @cached_property
    def _counts(self) -> tuple[tuple[int, int], ...]:
        return tuple(Counter(self.rows).items())

    def count(self, x: int) -> int:
        """``c_x(D)`` for one element."""
        v = self.universe.check(x, "x")
        return sum(1 for r in self.rows if r == v)

    def __iter__(self) -> Iterator[int]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def _plain_bins(n: object, bins: object, size: int) -> bool:
    """Whether ``n`` is an ``int >= 1`` and ``bins`` a tuple of pairs ``(x, c)`` of plain
    ints, ``x`` strictly increasing in ``[1, size]``, ``c`` in ``[0, n]``: what
    :class:`Histogram` checks, decided without conversions (False: the full checks run,
    and raise the typed error if one fails)."""
    if type(n) is not int or n < 1 or type(bins) is not tuple:
        return False
    prev = 0
    for pair in bins:
        if type(pair) is not tuple or len(pair) != 2:
            return False
        x, c = pair
        if type(x) is not int or type(c) is not int or not prev < x or not 0 <= c <= n:
            return False
        prev = x
    return prev <= size


@dataclass(frozen=True)
class Histogram:
    """A released partial vector: ``bins = ((x_1, c_1), ...)`` with ``x_1 < x_2 < ...``.

    Invariants (checked): every ``x`` in the universe, strictly increasing (so each element
    appears at most once and the order is the universe's, never the data's -- footnote 4),
    every count an integer in ``[0, n]``.  ``count(x)`` is 0 for unlisted elements.

    ``algorithm`` names the algorithm that was run (e.g. ``"PureSparseHistogram"``) and
    ``fallback`` says, when not None, that it released through another algorithm instead and
    why (e.g. the paper's ``|X| < 2n + 1`` fallback to BasicHistogram, whose guarantees then
    apply; ``exactdp histogram`` reports that one as ``released_by``).  Both depend only on public values
    (``M``, ``n`` and the parameters), never on the data.
    """

    universe: Universe
    n: int
    bins: tuple[tuple[int, int], ...]
    algorithm: str = ""
    fallback: str | None = None
    _index: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.universe, Universe):
            raise ParameterTypeError(f"universe = {self.universe!r} must be a Universe")
        if _plain_bins(self.n, self.bins, self.universe.size):
            # the same checks passed on plain ints and tuples: nothing to convert
            object.__setattr__(self, "_index", tuple([x for x, _ in self.bins]))
            return
        if isinstance(self.n, bool) or not isinstance(self.n, Integral):
            raise ParameterTypeError(f"n = {self.n!r} must be a positive int")
        n = positive_int(int(self.n), "n")
        bins: list[tuple[int, int]] = []
        prev = 0
        for i, pair in enumerate(self.bins):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ParameterTypeError(f"bin {i + 1} = {pair!r} must be a pair (x, count)")
            x = _element(pair[0], f"element of bin {i + 1}")
            c = _count(pair[1], n, x)
            if x <= prev:
                raise DomainError(f"histogram bins must be strictly increasing in x (each "
                                  f"element at most once, sorted); got {x} after {prev}")
            bins.append((x, c))
            prev = x
        if bins and bins[-1][0] > self.universe.size:
            raise DomainError(f"element {bins[-1][0]} is outside the universe "
                              f"[1, {self.universe.size}]")
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "bins", tuple(bins))
        object.__setattr__(self, "_index", tuple(x for x, _ in bins))

    @classmethod
    def from_counts(cls, universe: Universe, n: int, counts: Mapping[int, int],
                    algorithm: str = "", fallback: str | None = None) -> Histogram:
        """Sort ``counts`` by element (the only order a release may use) and validate."""
        if not isinstance(counts, Mapping):
            raise ParameterTypeError(
                f"counts = {_show_label(counts)} ({type(counts).__name__}) must be a mapping "
                f"element -> count, such as Dataset.counts() returns")
        if all(type(x) is int for x in counts):  # plain int keys, distinct: sort the pairs
            return cls(universe, n, tuple(sorted(counts.items())), algorithm, fallback)
        pairs = [(_element(x, "element"), c) for x, c in counts.items()]
        return cls(universe, n, tuple(sorted(pairs, key=lambda pair: pair[0])), algorithm,
                   fallback)

    def count(self, x: int) -> int:
        """The released count of ``x`` (0 if ``x`` is not listed)."""
        v = self.universe.check(x, "x")
        i = bisect_left(self._index, v)
        if i < len(self._index) and self._index[i] == v:
            return self.bins[i][1]
        return 0

    def as_dict(self) -> dict[int, int]:
        return dict(self.bins)

    def nonzero(self) -> tuple[tuple[int, int], ...]:
        """The bins with a positive count (the partial vector's meaningful entries)."""
        return tuple(b for b in self.bins if b[1] > 0)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return iter(self.bins)

    def __len__(self) -> int:
        return len(self.bins)

    def to_json(self, labels: bool = False) -> dict[str, Any]:
        """JSON-safe form: numbers as decimal strings; with ``labels``, each element's
        decoded label too (UTF-8 text when it decodes, else hex)."""
        rows: list[dict[str, Any]] = []
        for x, c in self.bins:
            row: dict[str, Any] = {"element": str(x), "count": str(c)}
            if labels:
                raw = decode_label(x)
                try:
                    row["label"] = raw.decode("utf-8")
                except UnicodeDecodeError:
                    row["label_hex"] = raw.hex()
            rows.append(row)
        return {"universe_size": str(self.universe.size), "n": str(self.n),
                "algorithm": self.algorithm, "fallback": self.fallback, "bins": rows}


class CountedDataset(Dataset):
    """``D in X^n`` given by its counts ``{x: c_x(D)}`` (only ``x`` with ``c_x(D) > 0``).

    The releases read it exactly as they read the rows: ``n``, ``universe`` and
    :meth:`counts` (which lists the elements in increasing order, whatever engine counted
    them, so a seeded release does not depend on a ``GROUP BY``'s order).  Validated on
    construction: every element an ``int`` in ``[1, M]``, every count an ``int >= 1``, and
    the counts summing to ``n`` when ``n`` is given.
    """

    _tally: tuple[tuple[int, int], ...]
    _n: int

    def __init__(self, universe: Universe, counts: Mapping[int, int],
                 n: int | None = None) -> None:
        if not isinstance(universe, Universe):
            raise ParameterTypeError(f"universe = {universe!r} must be a Universe")
        if not isinstance(counts, Mapping):
            raise ParameterTypeError(f"counts ({type(counts).__name__}) must be a mapping "
                                     f"element -> count")
        if not counts:
            raise ParameterError("the counts are empty: the paper's datasets D in X^n have "
                                 "n >= 1 rows")
        keys, values = list(counts), list(counts.values())
        plain = all(type(x) is int for x in keys) and all(type(c) is int for c in values)
        if not (plain and 1 <= min(keys) and max(keys) <= universe.size
                and min(values) >= 1):
            clean: dict[int, int] = {}
            for x, c in counts.items():
                v = universe.check(x, "element")
                if isinstance(c, bool) or not isinstance(c, Integral) or c < 1:
                    raise ParameterError(f"count {c!r} of element {x} must be a positive "
                                         f"integer (elements with count 0 are left out)")
                clean[v] = int(c)
            counts = clean
            values = list(clean.values())
        total = sum(values)
        if n is not None and positive_int(n, "n") != total:
            raise ParameterError(f"the counts sum to {total} but n = {n}: they must sum to "
                                 f"the number of rows")
        object.__setattr__(self, "universe", universe)
        object.__setattr__(self, "rows", ())
        object.__setattr__(self, "_tally", tuple(sorted(counts.items())))
        object.__setattr__(self, "_n", total)

    @classmethod
    def from_sorted(cls, universe: Universe, elements: list[int], counts: list[int]) -> CountedDataset:
        """The dataset of ``elements`` (increasing ints in ``[1, M]``) with ``counts`` (ints
        ``>= 1``), as :func:`exactdp.column_input.column_dataset` makes them after its
        vectorised validation; checked again here in O(len) comparisons (no per-element
        conversion), refused with the constructor's errors otherwise."""
        ok = (len(elements) == len(counts) and len(elements) > 0
              and set(map(type, elements)) == {int} and set(map(type, counts)) == {int}
              and 1 <= elements[0] and elements[-1] <= universe.size and min(counts) >= 1
              and all(map(int.__lt__, elements, elements[1:])))
        if not ok:
            return cls(universe, dict(zip(elements, counts, strict=True)))
        out = cls.__new__(cls)
        object.__setattr__(out, "universe", universe)
        object.__setattr__(out, "rows", ())
        object.__setattr__(out, "_tally", tuple(zip(elements, counts, strict=True)))
        object.__setattr__(out, "_n", sum(counts))
        return out

    @property
    def n(self) -> int:
        return self._n

    def counts(self) -> dict[int, int]:
        """``{x: c_x(D)}`` in increasing ``x`` (a fresh dict)."""
        return dict(self._tally)

    def count(self, x: int) -> int:
        """``c_x(D)`` for one element (0 if absent)."""
        return dict(self._tally).get(self.universe.check(x, "x"), 0)

    def __iter__(self) -> Iterator[int]:
        """The rows in increasing order (one equivalent dataset; lazy)."""
        for x, c in self._tally:
            for _ in range(c):
                yield x

    def __len__(self) -> int:
        return self._n

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CountedDataset):
            return NotImplemented
        return (self.universe, self._tally) == (other.universe, other._tally)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"CountedDataset(universe={self.universe}, n={self._n}, "
                f"distinct={len(self._tally)})")
