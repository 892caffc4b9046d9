"""A recording randomness source shared by the tests (strict-time and draw-count checks)."""

from __future__ import annotations

import random

from exactdp.randomness import RandomSource


class RecordingSource(RandomSource):
    """Records the domain size ``d`` of every ``uniform(d)`` in :attr:`sizes`; answers with a
    seeded Mersenne Twister (tests only)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.sizes: list[int] = []

    def uniform(self, d: int) -> int:
        self.sizes.append(d)
        return self.rng.randrange(d) + 1
