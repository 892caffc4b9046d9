"""The one source of randomness: ``uniform(d)``, uniform on ``[d]_+ = {1, ..., d}``.

Balcer & Vadhan (Sec. 2.4) assume an oracle that, given ``d``, returns a uniformly random
integer in ``[d]_+``.  Every sampler in exactdp draws through a :class:`RandomSource`,
which is passed in, never global.

Two higher-level draws are part of the interface so that the checker's exploring source
(:class:`exactdp.explore.ExploringSource`) can branch on them with exact weights instead
of enumerating ``u``:

* :meth:`RandomSource.inverse_cdf` -- draw ``u = uniform(d)`` and return the smallest
  ``z`` with ``F(z) >= u`` (Lemma 2.13); the exploring source branches once per output
  ``z`` with weight ``(F(z) - F(z-1)) / d``.
* :meth:`RandomSource.bernoulli` -- ``uniform(den) <= num``; the exploring source
  branches twice.

Both default implementations reduce to :meth:`uniform`, so a source only has to supply
``uniform``.  Batches: :meth:`RandomSource.uniform_many` draws ``k`` independent values
(default: ``k`` calls of ``uniform``; :class:`SystemSource`: one OS read for the whole batch),
and :meth:`RandomSource.inverse_cdf_many` runs ``k`` inverse-CDF draws sharing one ``d`` (the
exploring source branches on each as it does for :meth:`RandomSource.inverse_cdf`).
"""

from __future__ import annotations

import random
import secrets
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, overload

import gmpy2

from exactdp import native_samplers
from exactdp.params import DomainError, ParameterTypeError

__all__ = [
    "SPLIT_TOP_BITS",
    "ByteSource",
    "CallableSource",
    "InverseCDFBatch",
    "InverseCDFDraw",
    "NotForReleaseWarning",
    "RandomSource",
    "SeededSource",
    "SplitDraw",
    "SystemSource",
    "UniformBatch",
    "check_batch_size",
    "check_bernoulli",
    "check_domain_size",
    "check_source",
    "default_source",
    "plain_byte_source",
    "split_inverse_cdf",
]


class InverseCDFDraw(Protocol):
    """What :meth:`RandomSource.inverse_cdf` needs: outputs ``[0..n]``, integer CDF ``F``
    with ``F(n) = d``, and the (fixed-round) search ``u -> min{z : F(z) >= u}``."""

    @property
    def n(self) -> int: ...

    @property
    def d(self) -> int: ...

    def cdf(self, z: int) -> int: ...

    def search(self, u: int) -> int: ...


class InverseCDFBatch(Protocol):
    """What :meth:`RandomSource.inverse_cdf_many` needs: ``len(batch)`` inverse-CDF draws over
    one ``[d]_+``; draw ``i`` alone (:meth:`draw`, for sources that branch on each draw) and
    all the searches at once for given ``u`` values (:meth:`search_all`)."""

    @property
    def d(self) -> int: ...

    def __len__(self) -> int: ...

    def draw(self, i: int) -> InverseCDFDraw: ...

    def search_all(self, us: Sequence[int]) -> list[int]: ...

    @property
    def search_raw(self) -> Callable[[bytes], list[int]] | None:
        """None, or a function of ``raw`` (``len(batch)`` random numbers of ``limbs(d) + 1``
        little-endian 64-bit limbs) giving draw ``e``'s output for ``u = (r_e mod d) + 1``,
        ``r_e`` number ``e`` below ``2**(K + 63)`` (``K`` the bit length of ``d``), or ``-1``
        where ``floor(r_e / d) >= floor(2**(K + 63) / d)`` (a rejected draw): the one-pass
        native path of :meth:`SystemSource.inverse_cdf_many`."""


class UniformBatch(Sequence[int]):
    """``k`` draws in ``[d]_+`` packed as little-endian numbers of ``words`` 64-bit limbs
    (what :meth:`SystemSource.uniform_many` returns when the native kernels are built: the
    native searches read :attr:`data` directly, with no Python int per draw)."""

    def __init__(self, d: int, data: bytes, words: int) -> None:
        size = words * native_samplers.LIMB_BYTES
        if words < native_samplers.limbs(d) or len(data) % size:
            raise DomainError(f"a batch of {len(data)} bytes is not whole numbers of {words} "
                              f"limbs, or {words} limbs cannot hold d = {d}")
        self.d, self.data, self.words = d, data, words
        self._size = size

    def __len__(self) -> int:
        return len(self.data) // self._size

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> list[int]: ...

    def __getitem__(self, i: int | slice) -> int | list[int]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        k = len(self)
        if not -k <= i < k:
            raise IndexError(f"draw {i} of a batch of {k}")
        i %= k
        return int.from_bytes(self.data[i * self._size:(i + 1) * self._size], "little")

    def __iter__(self) -> Iterator[int]:
        size = self._size
        return (int.from_bytes(self.data[i:i + size], "little")
                for i in range(0, len(self.data), size))


def check_batch_size(k: object) -> int:
    """Validate a batch size ``k >= 0`` (the number of draws of a batch)."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise ParameterTypeError(f"batch size k = {k!r:.60} must be an int >= 0")
    if k < 0:
        raise DomainError(f"batch size k = {k} must be >= 0")
    return k


def check_domain_size(d: object) -> int:
    """Validate a draw domain size ``d >= 1``."""
    if isinstance(d, bool) or not isinstance(d, int):
        raise ParameterTypeError(f"uniform(d): d = {d!r} must be an int >= 1")
    if d < 1:
        raise DomainError(f"uniform(d): d = {d} must be >= 1")
    return d


class RandomSource:
    """Base class of randomness sources.  Subclasses implement :meth:`uniform`."""

    def uniform(self, d: int) -> int:
        """Return an integer uniformly distributed on ``{1, ..., d}``."""
        raise NotImplementedError

    def inverse_cdf(self, draw: InverseCDFDraw) -> int:
        """Inverse-transform sampling (Lemma 2.13): ``draw.search(uniform(draw.d))``; for a
        draw that offers ``certified_search`` (``lazy_low_bits``) over a ``d`` of more than
        ``2 * SPLIT_TOP_BITS`` bits, the same output from :func:`split_inverse_cdf`, which
        draws ``u``'s low bits only when its leading bits do not decide the output."""
        if getattr(draw, "lazy_low_bits", False) and draw.d.bit_length() > 2 * SPLIT_TOP_BITS:
            return split_inverse_cdf(self, draw)  # type: ignore[arg-type]
        return draw.search(_checked_draw(self, draw.d))

    def bernoulli(self, num: int, den: int) -> bool:
        """True with probability exactly ``num/den``: ``uniform(den) <= num``."""
        check_bernoulli(num, den)
        return _checked_draw(self, den) <= num

    def uniform_many(self, d: int, k: int) -> Sequence[int]:
        """``k`` independent draws uniform on ``[d]_+`` (the distribution of ``k`` calls of
        :meth:`uniform`, which is what this default does)."""
        check_domain_size(d)
        return [_checked_draw(self, d) for _ in range(check_batch_size(k))]

    def inverse_cdf_many(self, batch: InverseCDFBatch) -> list[int]:
        """``len(batch)`` independent inverse-CDF draws: ``batch.search_all`` of
        ``uniform_many(batch.d, len(batch))`` -- or, for a source that overrides
        :meth:`inverse_cdf` (the exploring source, sources that mark or charge each draw),
        :meth:`inverse_cdf` once per draw, so that the override sees every draw."""
        if type(self).inverse_cdf is not RandomSource.inverse_cdf:
            return [self.inverse_cdf(batch.draw(i)) for i in range(len(batch))]
        d, k = batch.d, len(batch)
        us = self.uniform_many(d, k)
        if type(us) is not list and isinstance(us, UniformBatch):  # an ABC check: not for lists
            if us.d != d or len(us) != k:
                raise DomainError(f"{type(self).__name__}.uniform_many({d}, {k}) returned a "
                                  f"batch of {len(us)} draws in [1, {us.d}]")
        else:
            us = list(us)
            if len(us) != k:
                raise DomainError(f"{type(self).__name__}.uniform_many({d}, {k}) returned "
                                  f"{len(us)} draws")
            for u in us:
                if type(u) is int and 1 <= u <= d:
                    continue  # the common case, without the isinstance calls
                if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= d:
                    raise DomainError(f"{type(self).__name__}.uniform_many({d}, {k}) returned "
                                      f"{u!r:.60}, outside [1, {d}]")
        return batch.search_all(us)


def check_bernoulli(num: object, den: object) -> None:
    """The coin ``bernoulli(num, den)`` of every source (the exploring one too, so that the
    checker never certifies a coin a release would refuse): ints with ``0 <= num <= den``
    and ``den >= 1``."""
    for name, v in (("num", num), ("den", den)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ParameterTypeError(f"bernoulli: {name} = {v!r:.60} must be an int (the "
                                     f"probability is exactly num/den)")
    if not 0 <= num <= den or den < 1:  # type: ignore[operator]
        raise DomainError(f"bernoulli: need 0 <= num <= den and den >= 1, got {num}/{den}")


def _checked_draw(source: RandomSource, d: int) -> int:
    """``source.uniform(d)``, refusing a value outside ``[d]_+`` (a user's subclass may
    return anything; the inverse-CDF search would turn it into a wrong output silently)."""
    u = source.uniform(d)
    if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= d:
        raise DomainError(f"{type(source).__name__}.uniform({d}) returned {u!r:.60}, outside "
                          f"[1, {d}]: a RandomSource must return an int in [1, d]")
    return u


class SplitDraw(InverseCDFDraw, Protocol):
    """An inverse-CDF draw that can often name its output from an interval of ``u``:
    ``certified_search(u)`` is ``search(u)`` or None (undecided), never anything else."""

    @property
    def lazy_low_bits(self) -> bool: ...

    def certified_search(self, u: int) -> int | None: ...


#: Leading bits of ``u`` drawn first by :func:`split_inverse_cdf`.
SPLIT_TOP_BITS = 512


def split_inverse_cdf(source: RandomSource, draw: SplitDraw,
                      top_bits: int = SPLIT_TOP_BITS) -> int:
    """``draw.search(u)`` for ``u`` uniform on ``[d]_+``, drawing ``u``'s low bits only when
    its leading bits leave the output open.

    With ``k = max(0, bitlen(d) - top_bits)``, ``B = 2^k`` and ``d = H B + r``
    (``0 <= r < B``), write ``u - 1 = a B + b``: draw ``a`` uniform on ``[0, H]``
    (``uniform(H + 1)``).  For ``a < H`` the block ``u in [a B + 1, (a + 1) B]`` is decided
    when ``certified_search`` names the same output at both of its ends, or 0 at its top end
    -- every inverse-CDF search ``u -> min{z : F(z) >= u}`` is non-decreasing in ``u`` and
    at least 0, so then every ``u`` of the block gives that output and ``b`` is not needed.
    Otherwise draw ``b`` uniform on ``[0, B - 1]`` (``uniform(B)``); ``a = H`` with ``b >= r`` is rejected and the whole draw
    starts again (probability ``(B - r)/((H + 1) B) < 2^(1 - top_bits)`` per round); any
    other ``(a, b)`` returns ``draw.search(a B + b + 1)``.

    Exactness: each accepted ``(a, b)`` has probability ``1/((H + 1) B)``, and the accepted
    pairs are in one-to-one correspondence with ``u - 1 = a B + b in [0, d - 1]``, so ``u``
    is uniform on ``[d]_+`` and the output is ``search(u)`` for it -- whether or not ``b`` was
    drawn.  Checked for every ``(a, b)`` on small grids with small ``top_bits`` in
    ``proofs/balcer_vadhan/prop_6_17_split_draw.py``.

    Randomness and time: one ``uniform(H + 1)`` (``H`` has ``top_bits`` bits) per round; a
    ``uniform(B)`` only when the block is undecided (or ``a = H``).  Both domains are
    functions of ``d`` alone; whether ``b`` is drawn depends on the coins (through ``u``'s
    block) and on the draw's parameters, as the number of rounds of rejection sampling does.
    """
    d = draw.d
    k = max(0, d.bit_length() - top_bits)
    full = d >> k  # H; r and B are formed only when b is drawn
    while True:
        a = _checked_draw(source, full + 1) - 1
        if a < full:  # the block's ends as mpz: Python shifts of n-bit ints cost O(n) each
            z = draw.certified_search(gmpy2.mpz(a + 1) << k)  # the block's top end first:
            if z == 0 or (z is not None  # 0 there is 0 on the whole block
                          and z == draw.certified_search((gmpy2.mpz(a) << k) + 1)):
                return z
        u = (a << k) + _checked_draw(source, 1 << k)  # a B + b + 1
        if u <= d:  # i.e. a < H, or a = H and b < r
            return draw.search(u)


#: What to pass as ``source=``, said in every error about a wrong one.
_EXPECTED_SOURCE = ("an exactdp RandomSource, e.g. SystemSource() (the OS CSPRNG, for "
                    "releases), SeededSource(seed) (reproducible, not for releases) or "
                    "CallableSource(f) wrapping a function uniform(d) -> int in [1, d]; or None "
                    "for the default SystemSource()")


def check_source(source: object, name: str = "source") -> RandomSource:
    """``source`` if it is a usable :class:`RandomSource`, else a typed error saying what
    to pass.  A :class:`random.Random`, an int seed, a string or the class itself (without
    parentheses) is refused: exactdp draws only through ``uniform(d)`` on ``[d]_+``.
    """
    if isinstance(source, RandomSource):
        if type(source).uniform is RandomSource.uniform:
            raise ParameterTypeError(f"{name} = {source!r:.60}: {type(source).__name__} does "
                                     f"not implement uniform(d); pass {_EXPECTED_SOURCE}")
        return source
    if isinstance(source, type) and issubclass(source, RandomSource):
        raise ParameterTypeError(f"{name} = the class {source.__name__}, not an instance; "
                                 f"pass {source.__name__}(...) (e.g. SystemSource())")
    hint = ""
    if isinstance(source, random.Random):
        hint = " (for a seeded random.Random, pass SeededSource(seed) instead)"
    elif isinstance(source, (int, str, bytes)) and not isinstance(source, bool):
        hint = f" (to seed, pass SeededSource({source!r:.40}))"
    raise ParameterTypeError(f"{name} = {source!r:.60} has type {type(source).__name__}; pass "
                             f"{_EXPECTED_SOURCE}{hint}")


class ByteSource(RandomSource):
    """A source whose randomness is a stream of uniform bytes, :meth:`random_bytes`: the OS
    CSPRNG (:class:`SystemSource`) or a keystream keyed from it
    (:class:`exactdp.keystream.KeystreamSource`).  Every draw is exact given uniform bytes:

    * :meth:`uniform` -- rejection on whole bytes: ``ceil(K/8)`` bytes (``K`` the bit length
      of ``d``) read as a little-endian number, its bits from ``K`` on cleared, accepted iff it
      is below ``d`` (probability above 1/2), else read again;
    * :meth:`uniform_many` and :meth:`inverse_cdf_many` -- ``K + 63`` bits per draw, reduced
      modulo ``d`` and accepted iff below the largest multiple of ``d`` (see
      :meth:`uniform_many`); a rejected draw (probability below ``2**-62``) is redrawn by
      :meth:`uniform`.

    The number of bytes read depends on ``d``, on the batch size and on the bytes themselves
    (the rejections), never on anything else; the lazy draws of FastSample
    (:meth:`exactdp.fastsample.FastSample.sample_many`) say what theirs depends on.
    """

    def random_bytes(self, k: int) -> bytes:
        """``k`` independent uniform bytes."""
        raise NotImplementedError

    def uniform(self, d: int) -> int:
        k = check_domain_size(d).bit_length()
        size, mask = (k + 7) // 8, (1 << k) - 1
        while True:
            r = int.from_bytes(self.random_bytes(size), "little") & mask
            if r < d:
                return r + 1

    def uniform_many(self, d: int, k: int) -> Sequence[int]:
        """``k`` draws from ONE read of :meth:`random_bytes`: ``K + 63`` random bits ``r`` per
        draw (``K`` the bit length of ``d``), ``u = (r mod d) + 1``, accepted iff
        ``r < floor(2**(K+63) / d) d`` -- exactly uniform on ``[d]_+``; a rejected draw
        (probability below ``2**-62``) is replaced by :meth:`uniform`.  A
        :class:`UniformBatch` when the native kernels are built, else a list."""
        check_domain_size(d)
        k = check_batch_size(k)
        width = native_samplers.limbs(d)
        size = (width + 1) * native_samplers.LIMB_BYTES
        raw = self.random_bytes(k * size)
        if native_samplers.available():
            data, ok = native_samplers.reduce(d, raw, k)
            if b"\0" not in ok:
                return UniformBatch(d, data, width)
            patched = bytearray(data)
            step = width * native_samplers.LIMB_BYTES
            for e in (e for e, good in enumerate(ok) if not good):
                patched[e * step:(e + 1) * step] = self.uniform(d).to_bytes(step, "little")
            return UniformBatch(d, bytes(patched), width)
        mask = (1 << (d.bit_length() + 63)) - 1
        m1 = (1 << (d.bit_length() + 63)) // d - 1
        out = []
        for e in range(k):
            q, rem = divmod(int.from_bytes(raw[e * size:(e + 1) * size], "little") & mask, d)
            out.append(rem + 1 if q <= m1 else self.uniform(d))
        return out

    def inverse_cdf_many(self, batch: InverseCDFBatch) -> list[int]:
        """With a batch that has a lazy native path (``batch.lazy_raw``, FastSample): the
        leading bits of every draw from ONE read, the rest only for the rare undecided draws
        (see :mod:`exactdp.lazy_draws`).  Else, with a native one-pass path
        (``batch.search_raw``): ONE read for the whole batch, reduced and searched without
        leaving C -- the same draws as :meth:`uniform_many` makes (a rejected one redrawn by
        :meth:`uniform`); otherwise the default."""
        lazy = getattr(batch, "lazy_raw", None)
        if lazy is not None:
            return lazy(self)  # type: ignore[no-any-return]
        search_raw = batch.search_raw
        if search_raw is None:
            return super().inverse_cdf_many(batch)
        d, k = batch.d, len(batch)
        raw = self.random_bytes(k * (native_samplers.limbs(d) + 1) * native_samplers.LIMB_BYTES)
        out = search_raw(raw)
        if -1 in out:
            for e in [e for e, z in enumerate(out) if z == -1]:
                out[e] = batch.draw(e).search(self.uniform(d))
        return out


class SystemSource(ByteSource):
    """The default: the operating system's CSPRNG via :mod:`secrets`.

    ``secrets.randbelow`` is exact for any ``d`` (rejection sampling on ``d.bit_length()``
    random bits); its number of rejection rounds is random but independent of every
    private input (it depends only on ``d`` and the coins).  Batches read
    ``secrets.token_bytes`` (:class:`ByteSource`).
    """

    def random_bytes(self, k: int) -> bytes:
        return secrets.token_bytes(k)

    def uniform(self, d: int) -> int:
        return secrets.randbelow(check_domain_size(d)) + 1

    def __repr__(self) -> str:
        return "SystemSource()"


def plain_byte_source(source: object) -> ByteSource | None:
    """``source`` when it is exactly a :class:`SystemSource` or a keystream source (their
    batches may take the native one-pass and lazy paths), else None: a subclass that marks,
    counts or replaces draws must see every draw through its own methods."""
    if type(source) in _PLAIN_BYTE_SOURCES:
        return source  # type: ignore[return-value]
    return None


#: The exact types :func:`plain_byte_source` accepts (the keystream module adds its class).
_PLAIN_BYTE_SOURCES: set[type] = {SystemSource}


class NotForReleaseWarning(UserWarning):
    """Emitted when a seeded (reproducible, predictable) source is created."""


class SeededSource(RandomSource):
    """A reproducible source for examples and tests.  **Not for releases**: anyone who
    knows the seed knows the noise, so outputs made with it protect nobody.

    Uses :class:`random.Random` (Mersenne Twister), whose ``randrange`` is exactly uniform
    for every ``d`` (rejection on ``getrandbits``).
    """

    def __init__(self, seed: int | str | bytes) -> None:
        # None would seed from the OS (not reproducible); a float or other hashable object
        # is accepted by random.Random but hashed in ways that are easy to get wrong.
        if isinstance(seed, bool) or not isinstance(seed, (int, str, bytes)):
            raise ParameterTypeError(
                f"seed = {seed!r:.60} has type {type(seed).__name__}; pass an int, a str or "
                f"bytes (SeededSource is for reproducible examples; for releases pass "
                f"SystemSource() or nothing)")
        warnings.warn("SeededSource is predictable: use it for examples and tests, "
                      "never to release data", NotForReleaseWarning, stacklevel=2)
        self.seed = seed
        self._rng = random.Random(seed)

    def uniform(self, d: int) -> int:
        return self._rng.randrange(check_domain_size(d)) + 1

    def __repr__(self) -> str:
        return f"SeededSource({self.seed!r})  # NOT FOR RELEASES"


class CallableSource(RandomSource):
    """Wrap a plain function ``uniform(d) -> int`` as a source."""

    def __init__(self, fn: Callable[[int], int]) -> None:
        if not callable(fn) or isinstance(fn, type):
            raise ParameterTypeError(f"CallableSource(fn): fn = {fn!r:.60} must be a function "
                                     f"uniform(d) -> int in [1, d]")
        self._fn = fn

    def uniform(self, d: int) -> int:
        u = self._fn(check_domain_size(d))
        if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= d:
            raise DomainError(f"random source returned {u!r}, outside [1, {d}]")
        return u


def default_source(source: RandomSource | None = None) -> RandomSource:
    """``source`` itself (checked by :func:`check_source`: where a source enters a sampler),
    or a fresh :class:`SystemSource` when it is None."""
    if source is None:
        return SystemSource()
    if isinstance(source, RandomSource) and type(source).uniform is not RandomSource.uniform:
        return source  # what check_source returns for it, without the call
    return check_source(source)
