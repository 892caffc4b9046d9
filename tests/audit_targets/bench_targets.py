"""Mechanisms written the way libraries and textbooks write them (labels as outputs, noisy
counts past the input range), each with its law derived by hand in the comment."""

import random


class BinaryRR:
    """diffprivlib-style: labels in, labels out, the generator an attribute.  Keeps the label
    when randrange(4) < 3: P(keep) = 3/4, worst ratio 3."""

    def __init__(self, value0="no", value1="yes"):
        self.value0, self.value1 = value0, value1
        self._rng = random.Random()

    def randomise(self, value):
        label, other = (self.value1, self.value0) if value else (self.value0, self.value1)
        return label if self._rng.randrange(4) < 3 else other


class BinaryRRBug(BinaryRR):
    """``<=`` where ``<`` was meant: always keeps, infinite loss."""

    def randomise(self, value):
        label, other = (self.value1, self.value0) if value else (self.value0, self.value1)
        return label if self._rng.randrange(4) <= 3 else other


def _noise(rng):  # {-1, 0, 1} with 1/4, 1/2, 1/4
    return (0, 0, 1, -1)[rng.randrange(4)]


def noisy_count_wide(c, rng):
    """c + z1 + z2 clamped to [-1, c + 2] for counts 0..1 (outputs -1..3, past the inputs):
    c = 0 never gives 3 (z <= 2), c = 1 gives 3 with P(z = 2) = 1/16: infinite loss."""
    return min(max(c + _noise(rng) + _noise(rng), -1), c + 2)


def noisy_count_wide_private(c, rng):
    """c + z1 + z2 clamped to [-1, 2] for counts 0..1: z = z1 + z2 has P(-2..2) =
    (1, 4, 6, 4, 1) / 16; c = 0 gives -1, 0, 1, 2 with (5, 6, 4, 1) / 16, c = 1 with
    (1, 4, 6, 5) / 16: worst ratio 5 (output 2 or -1: 5/16 over 1/16)."""
    return min(max(c + _noise(rng) + _noise(rng), -1), 2)


class NpBinary:
    """diffprivlib keeps a numpy RandomState as ``self._rng``: keep w.p. 3/4, ratio 3."""

    def __init__(self):
        import numpy as np

        self._rng = np.random.RandomState()

    def randomise(self, value):
        return value if self._rng.random_sample() < 0.75 else 1 - value


def rr_module(bit):
    """Module-level random, one argument: keep w.p. 3/4, ratio 3."""
    return bit if random.random() < 0.75 else 1 - bit


def rr_uniform(bit, rng):
    """``uniform(0, 4) < 3`` iff ``4 u < 3`` iff ``u < 3/4`` (4 u is exact): ratio 3."""
    return bit if rng.uniform(0, 4) < 3 else 1 - bit


def rr_uniform_fifths(bit, rng):
    """``uniform(0, 5) < 4``: keep w.p. #{j : fl(5 j / 2^53) < 4} / 2^53, near 4/5."""
    return bit if rng.uniform(0, 5) < 4 else 1 - bit


def rr_uniform_shifted(bit, rng):
    """``uniform(-1.5, 2.5) >= 1.5`` flips: ``-1.5 + 4 u >= 1.5`` iff ``u >= 3/4``: ratio 3."""
    return 1 - bit if rng.uniform(-1.5, 2.5) >= 1.5 else bit


def rr_uniform_rounded(bit, rng):
    """The value rounded (not only compared): keep when round(4 u) < 3, near 5/8."""
    return bit if round(rng.uniform(0, 4)) < 3 else 1 - bit


def rr_uniform_reversed(bit, rng):
    """``uniform(4, 0)``: decreasing in u, keep when 4 - 4 u > 1 iff u < 3/4: ratio 3."""
    return bit if rng.uniform(4, 0) > 1 else 1 - bit


def noisy_max_laplace(prng, queries, epsilon):
    """StatDP's noisy max with continuous Laplace noise (numpy Generator first)."""
    import numpy as np

    return int((np.asarray(queries, dtype=np.float64)
                + prng.laplace(scale=2.0 / epsilon, size=len(queries))).argmax())


def noisy_max_laplace_unused(prng, queries, epsilon):
    """The noise drawn and not added: the argmax of the queries, infinite loss."""
    import numpy as np

    prng.laplace(scale=2.0 / epsilon, size=len(queries))
    return int(np.asarray(queries).argmax())


def bounded_sum(data, rng):
    """Records clipped to [0, 1], summed, noise z1 + z2 (P(-2..2) = (1, 4, 6, 4, 1) / 16),
    clamped to [0, 2]: sums 0 and 1 give output 2 with 1/16 and 5/16, worst ratio 5.  The
    loop runs once per record: under add-remove its length shows the dataset's size."""
    s = sum(min(max(x, 0), 1) for x in data)
    return min(max(s + _noise(rng) + _noise(rng), 0), 2)
