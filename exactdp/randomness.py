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
``uniform``.
"""

from __future__ import annotations

import random
import secrets
import warnings
from collections.abc import Callable
from typing import Protocol

from exactdp.params import DomainError, ParameterTypeError

__all__ = [
    "CallableSource",
    "InverseCDFDraw",
    "NotForReleaseWarning",
    "RandomSource",
    "SeededSource",
    "SystemSource",
    "check_domain_size",
    "default_source",
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
        """Inverse-transform sampling (Lemma 2.13): ``draw.search(uniform(draw.d))``."""
        return draw.search(self.uniform(draw.d))

    def bernoulli(self, num: int, den: int) -> bool:
        """True with probability exactly ``num/den``: ``uniform(den) <= num``."""
        if not 0 <= num <= den:
            raise DomainError(f"bernoulli: need 0 <= num <= den, got {num}/{den}")
        return self.uniform(den) <= num


class SystemSource(RandomSource):
    """The default: the operating system's CSPRNG via :mod:`secrets`.

    ``secrets.randbelow`` is exact for any ``d`` (rejection sampling on ``d.bit_length()``
    random bits); its number of rejection rounds is random but independent of every
    private input (it depends only on ``d`` and the coins).
    """

    def uniform(self, d: int) -> int:
        return secrets.randbelow(check_domain_size(d)) + 1

    def __repr__(self) -> str:
        return "SystemSource()"


class NotForReleaseWarning(UserWarning):
    """Emitted when a seeded (reproducible, predictable) source is created."""


class SeededSource(RandomSource):
    """A reproducible source for examples and tests.  **Not for releases**: anyone who
    knows the seed knows the noise, so outputs made with it protect nobody.

    Uses :class:`random.Random` (Mersenne Twister), whose ``randrange`` is exactly uniform
    for every ``d`` (rejection on ``getrandbits``).
    """

    def __init__(self, seed: int | str | bytes) -> None:
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
        self._fn = fn

    def uniform(self, d: int) -> int:
        u = self._fn(check_domain_size(d))
        if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u <= d:
            raise DomainError(f"random source returned {u!r}, outside [1, {d}]")
        return u


def default_source(source: RandomSource | None = None) -> RandomSource:
    """``source`` itself, or a fresh :class:`SystemSource` when it is None."""
    return SystemSource() if source is None else source
