"""Example: test YOUR differentially private mechanism against exactdp's exact oracle.

Copy this file into your project's ``tests/`` directory (find it with
``python -c "import exactdp.examples, os; print(os.path.dirname(exactdp.examples.__file__))"``),
replace the block between the BEGIN/END markers with your mechanism, and run ``pytest``.
It needs ``pip install 'exactdp[test]'`` (exactdp and hypothesis) and nothing else.

Your mechanism must take its randomness from the ``source`` argument (an
``exactdp.randomness.RandomSource``): ``source.bernoulli(num, den)`` is True with
probability exactly ``num/den``, ``source.uniform(d)`` is uniform on ``1..d``.  In
production pass ``None`` (or ``exactdp.SystemSource()``, the OS CSPRNG); in these tests
exactdp passes a source that explores every possible draw, so the distributions compared
below are exact, and the tests cannot flake.

Every hypothesis test here sets ``deadline=None``: an exact check explores every path of
draws, and its time varies with the example (and with the machine's load) while saying
nothing about correctness; hypothesis's default 200 ms deadline would turn a slow but
correct example into a failure (``DeadlineExceeded``, or ``Flaky`` when the rerun is
faster).  Bound the work instead, through the mechanism's size (``N`` below).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings

from exactdp import GeometricMechanism, SeededSource
from exactdp.randomness import RandomSource
from exactdp.testing import (
    assert_pure_dp,
    assert_same_distribution,
    assert_strict_time,
    counts,
    neighbouring_counts,
)

# --- BEGIN my mechanism (replace this block with your own implementation) -------------------
N = 6                   # counts lie in [0, N]
ALPHA = Fraction(2, 3)  # noise ratio: Pr[noise = k] proportional to ALPHA**|k|
CLAIMED_EPSILON = Fraction(1, 2)  # what we promise: (1/2, 0)-DP, since 1/ALPHA = 3/2 <= e^(1/2)


def my_noisy_count(c: int, source: RandomSource) -> int:
    """c plus two-sided geometric noise, clamped to [0, N].

    Magnitude M: Pr[M = 0] = (1 - a)/(1 + a) and Pr[M = k | M >= k] = 1 - a for k >= 1
    (memoryless); a magnitude of N or more clamps to an end either way, so the loop stops
    there.  Then a fair sign.
    """
    magnitude = 0
    if not source.bernoulli(1, 5):          # (1 - 2/3) / (1 + 2/3) = 1/5
        magnitude = 1
        while magnitude < N and not source.bernoulli(1, 3):   # 1 - 2/3 = 1/3
            magnitude += 1
    sign = 1 if source.bernoulli(1, 2) else -1
    return min(max(c + sign * magnitude, 0), N)
# --- END my mechanism ----------------------------------------------------------------------


REFERENCE = GeometricMechanism(N, ALPHA)   # exactdp's exact clamped geometric


@settings(deadline=None)  # exact exploration: time varies, correctness does not (see top)
@given(counts(N))
def test_exact_distribution_matches_reference(c: int) -> None:
    reference = dict(enumerate(REFERENCE.distribution(c)))
    assert_same_distribution(lambda source: my_noisy_count(c, source), reference)


def test_pure_dp_on_all_neighbouring_counts() -> None:
    worst = assert_pure_dp(my_noisy_count, [(c, c + 1) for c in range(N)], CLAIMED_EPSILON)
    assert worst.ratio is not None and worst.ratio <= 1 / ALPHA
    # The same claim as an exact ratio bound (for a ln(r)-DP claim, whose epsilon is
    # irrational, this is the only exact form): Pr[M(c) = o] <= (3/2) Pr[M(c') = o].
    assert_pure_dp(my_noisy_count, [(c, c + 1) for c in range(N)], ratio_bound=1 / ALPHA)


def test_running_time_does_not_depend_on_the_count() -> None:
    # The sequence of draws may be random (the magnitude loop), but its distribution must
    # be the same for every count: otherwise the running time leaks the count.
    assert_strict_time(my_noisy_count, range(N + 1))


@settings(max_examples=10, deadline=None)
@given(neighbouring_counts(N))
def test_pure_dp_hypothesis(pair: tuple[int, int]) -> None:
    assert_pure_dp(my_noisy_count, [pair], CLAIMED_EPSILON)


@pytest.mark.filterwarnings("ignore::exactdp.randomness.NotForReleaseWarning")
def test_samples_with_real_randomness_are_consistent() -> None:
    # Sampling mode: 2000 draws, exact binomial tests; a correct mechanism fails with
    # probability at most 1e-6 (and never with this fixed seed).
    source = SeededSource(2018)
    reference = dict(enumerate(REFERENCE.distribution(3)))
    assert_same_distribution(lambda s: my_noisy_count(3, s), reference, draws=2000,
                             source=source)
