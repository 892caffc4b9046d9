"""The draws a counting mechanism hands to a random source (split out of
:mod:`exactdp.counting`, which re-exports both classes).

:class:`CDFDraw` is one inverse-CDF draw at a count (``RandomSource.inverse_cdf``: the
exploring source branches on its ``cdf``, other sources call its ``search``);
:class:`CountBatch` is a batch of them sharing one ``d`` (``RandomSource.inverse_cdf_many``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from exactdp.counting import InverseCDFSampler

__all__ = ["CDFDraw", "CountBatch"]


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
    def search_raw(self) -> Callable[[bytes], list[int]] | None:
        raw = self.mechanism.raw_search()
        return None if raw is None else partial(raw, self.counts)
