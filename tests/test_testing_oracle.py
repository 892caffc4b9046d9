"""exactdp.testing: oracle assertions (pass and fail with readable witnesses), hypothesis
strategies (valid parameters, neighbouring datasets), and the shipped example test file
(passes for a correct mechanism, fails readably for a broken one)."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import exactdp.examples
from exactdp.certified import Interval
from exactdp.counting import FastSample, GeometricMechanism, GeoSample
from exactdp.randomness import RandomSource, SeededSource
from exactdp.testing import (
    OracleAssertionError,
    assert_approx_dp,
    assert_pure_dp,
    assert_same_distribution,
    counts,
    datasets,
    epsilons,
    exact_distribution,
    fastsample_params,
    gammas,
    geometric_params,
    geosample_params,
    neighbouring_counts,
    neighbouring_datasets,
    universes,
)

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- assertions


def randomized_response(bit: int, source: RandomSource) -> int:
    """Keep the bit with probability 3/4: ratio exactly 3 (ln 3 ~ 1.0986)."""
    return bit if source.bernoulli(3, 4) else 1 - bit


def test_exact_distribution_and_same_distribution_pass() -> None:
    assert exact_distribution(lambda s: randomized_response(1, s)) == {0: Fraction(1, 4),
                                                                       1: Fraction(3, 4)}
    assert_same_distribution(lambda s: randomized_response(1, s),
                             {0: Fraction(1, 4), 1: Fraction(3, 4)})
    assert_same_distribution(lambda s: randomized_response(1, s),
                             {0: Interval(Fraction(1, 5), Fraction(1, 3)),
                              1: Interval(Fraction(2, 3), Fraction(4, 5))})


def test_same_distribution_failure_message_shows_the_witness() -> None:
    with pytest.raises(OracleAssertionError) as info:
        assert_same_distribution(lambda s: randomized_response(1, s),
                                 {0: Fraction(1, 3), 1: Fraction(2, 3)})
    msg = str(info.value)
    assert "Pr[sampler = 0] = 1/4, reference 1/3" in msg
    assert "statistical distance 1/12" in msg


def test_same_distribution_sampling_mode() -> None:
    geo = GeoSample(4, Fraction(1, 2))
    ref = dict(enumerate(geo.ideal().distribution(2)))
    assert_same_distribution(lambda s: geo.sample(2, s), ref, draws=2000,
                             source=SeededSource(1))
    wrong = dict(enumerate(GeometricMechanism(4, Fraction(1, 2)).distribution(2)))
    with pytest.raises(OracleAssertionError, match="inconsistent with the reference"):
        assert_same_distribution(lambda s: geo.sample(2, s), wrong, draws=2000,
                                 source=SeededSource(1))
    with pytest.raises(OracleAssertionError, match="reference probability 0"):
        assert_same_distribution(lambda s: 9, ref, draws=10, source=SeededSource(1))


def test_pure_dp_pass_and_fail() -> None:
    pairs = [(0, 1)]
    worst = assert_pure_dp(randomized_response, pairs, Fraction(11, 10))  # e^1.1 > 3
    assert worst.ratio == 3
    with pytest.raises(OracleAssertionError) as info:
        assert_pure_dp(randomized_response, pairs, Fraction(109, 100))  # e^1.09 < 3
    msg = str(info.value)
    assert "not (109/100, 0)-DP" in msg and "ratio 3" in msg and "Pr[M(" in msg


def test_pure_dp_infinite_loss_message() -> None:
    with pytest.raises(OracleAssertionError, match="ratio infinite"):
        assert_pure_dp(lambda x, s: x, [(0, 1)], 5)


def test_approx_dp_pass_and_fail() -> None:
    # randomized response with ratio 3 is (0, 1/2)-DP: delta(0) = 3/4 - 1/4
    assert assert_approx_dp(randomized_response, [(0, 1)], 0, Fraction(1, 2)) == Fraction(1, 2)
    with pytest.raises(OracleAssertionError) as info:
        assert_approx_dp(randomized_response, [(0, 1)], 0, Fraction(1, 3))
    assert "hockey-stick divergence at e^(0) is exactly 1/2" in str(info.value)
    # and at eps = ln 3 (approximately: 11/10 > ln 3) delta is 0
    assert assert_approx_dp(randomized_response, [(0, 1)], Fraction(11, 10), 0) == 0


def test_assertions_reject_bad_arguments() -> None:
    from exactdp.params import ParameterError

    with pytest.raises(ParameterError):
        assert_pure_dp(randomized_response, [], 1)
    with pytest.raises(ParameterError):
        assert_approx_dp(randomized_response, [(0, 1)], 1, 2)
    with pytest.raises(ParameterError):
        assert_same_distribution(lambda s: 0, {0: Fraction(1)}, draws=5, alpha=0)


# ---------------------------------------------------------------- strategies


@given(geosample_params())
def test_geosample_params_are_valid(kw: dict) -> None:  # type: ignore[type-arg]
    geo = GeoSample(**kw)
    assert geo.epsilon.numerator == 1 and 1 <= geo.n <= 16


@given(fastsample_params())
def test_fastsample_params_are_valid_and_small(kw: dict) -> None:  # type: ignore[type-arg]
    fast = FastSample(**kw)
    assert fast.gamma < 1 and fast.d.bit_length() < 4000


@given(geometric_params())
def test_geometric_params_are_valid(kw: dict) -> None:  # type: ignore[type-arg]
    mech = GeometricMechanism(**kw)
    assert sum(mech.distribution(0)) == 1


@given(epsilons(), gammas(), counts(5), neighbouring_counts(5))
def test_parameter_strategies(eps: Fraction, gamma: Fraction, c: int,
                              pair: tuple[int, int]) -> None:
    assert eps.numerator == 1 and gamma.numerator == 1 and gamma <= Fraction(1, 2)
    assert 0 <= c <= 5 and pair[1] == pair[0] + 1 and 0 <= pair[0] < 5


@given(universes(), st.data())
def test_datasets_use_the_universe(universe: tuple[int, ...], data: st.DataObject) -> None:
    d = data.draw(datasets(universe, max_size=5))
    assert len(d) <= 5 and set(d) <= set(universe)


@given(neighbouring_datasets(max_size=5))
def test_add_remove_neighbours_differ_by_one_element(pair: tuple[tuple, tuple]) -> None:  # type: ignore[type-arg]
    d, e = pair
    assert len(e) == len(d) + 1
    assert any(e[:i] + e[i + 1:] == d for i in range(len(e)))


@given(neighbouring_datasets(universe=("a", "b", "c"), relation="substitute"))
def test_substitution_neighbours(pair: tuple[tuple, tuple]) -> None:  # type: ignore[type-arg]
    d, e = pair
    assert len(d) == len(e) >= 1
    assert sum(x != y for x, y in zip(d, e, strict=True)) == 1


# ---------------------------------------------------------------- the example file

EXAMPLE = Path(exactdp.examples.__file__).resolve().parent / "test_example_oracle.py"
BEGIN, END = "# --- BEGIN my mechanism", "# --- END my mechanism"


def _run_example(tmp_path: Path, replacement: str | None) -> subprocess.CompletedProcess[str]:
    text = EXAMPLE.read_text(encoding="utf-8")
    if replacement is not None:
        start = text.index(BEGIN)
        stop = text.index("\n", text.index(END))
        text = text[:start] + replacement + text[stop:]
    target = tmp_path / "test_copied_example.py"
    target.write_text(text, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(target)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_example_file_passes_for_a_correct_mechanism(tmp_path: Path) -> None:
    result = _run_example(tmp_path, None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 passed" in result.stdout


BROKEN = '''# --- BEGIN my mechanism (a broken port: the zero-noise probability is wrong)
N = 6
ALPHA = Fraction(2, 3)
CLAIMED_EPSILON = Fraction(1, 2)


def my_noisy_count(c: int, source: RandomSource) -> int:
    magnitude = 0
    if not source.bernoulli(1, 3):          # BUG: should be 1/5
        magnitude = 1
        while magnitude < N and not source.bernoulli(1, 3):
            magnitude += 1
    sign = 1 if source.bernoulli(1, 2) else -1
    return min(max(c + sign * magnitude, 0), N)
# --- END my mechanism'''


def test_example_file_fails_readably_for_a_broken_mechanism(tmp_path: Path) -> None:
    result = _run_example(tmp_path, BROKEN)
    assert result.returncode == 1
    out = result.stdout
    assert "4 failed, 1 passed" in out  # the broken port still runs in input-free time
    assert "OracleAssertionError: the sampler's exact distribution differs" in out
    assert "Pr[sampler = 0] = " in out and "reference" in out
    assert "not (1/2, 0)-DP: inputs x = " in out and "Pr[M(" in out and "ratio 3" in out
