"""Tests for exactdp.histograms.compact: Lemma 8.4's M0, Algorithm 8.2, the release object."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction
from functools import partial
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.counting import FastSample, GeoSample, TabulatedMechanism
from exactdp.explore import explore
from exactdp.histograms import compact_release
from exactdp.histograms.compact import (
    FORMAT,
    CompactHistogram,
    CompactRelease,
    EmptyBinSampler,
    InvalidReleaseError,
    SamplerSpec,
    theorem_8_6_epsilon_prime,
    theorem_8_6_level,
)
from exactdp.histograms.data import Dataset
from exactdp.histograms.fields import VanLintField
from exactdp.histograms.release_file import seal
from exactdp.params import (
    DomainError,
    ExactDPError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.proofs.balcer_vadhan import (
    lemma_8_01_family,
    lemma_8_04_empty_bin,
    thm_8_06_parameters,
)
from exactdp.proofs.balcer_vadhan._compact import (
    algorithm_8_5_threshold,
    m0_distribution,
    m0_thresholds,
)
from exactdp.randomness import CallableSource, RandomSource, SeededSource, default_source

RR3 = TabulatedMechanism([[2, 3], [1, 3]])        # n = 1, d = 3
U3 = TabulatedMechanism([[1, 2, 3]] * 3)           # n = 2, d = 3


# --------------------------------------------------------------------------- tabulated M

def test_tabulated_mechanism_is_its_table() -> None:
    m = TabulatedMechanism([[3, 5], [1, 5]])
    assert (m.n, m.d) == (1, 5)
    assert [m(0, u) for u in range(1, 6)] == [0, 0, 0, 1, 1]
    assert [m(1, u) for u in range(1, 6)] == [0, 1, 1, 1, 1]
    assert m.cdf(0, -1) == 0 and m.cdf(1, 7) == 5


@pytest.mark.parametrize("table", [
    [[1, 2]],                      # only c = 0
    [[1, 2], [1]],                 # short row
    [[2, 1], [1, 1]],              # decreasing
    [[1, 2], [1, 3]],              # different d
    [[0, 0], [0, 0]],              # d = 0
    [[1, True], [1, 1]],           # bool entry
])
def test_tabulated_mechanism_rejects_bad_tables(table: list[list[int]]) -> None:
    with pytest.raises(ParameterError):
        TabulatedMechanism(table)


# --------------------------------------------------------------------------- Lemma 8.4

@given(st.integers(1, 40), st.integers(0, 200))
def test_f_splits_d0_into_blocks_of_q_and_q_plus_one(d: int, extra: int) -> None:
    d0 = -(-4 * d // 3) + extra
    m = TabulatedMechanism([[d, d]] * 2)
    s = EmptyBinSampler(m, d0)
    q, r = divmod(d0, d)
    images = [s.f(u0) for u0 in range(1, d0 + 1)]
    assert images == sorted(images)                      # non-decreasing
    sizes = Counter(images)
    assert set(sizes) == set(range(1, d + 1))            # onto [d]_+
    assert all(sizes[u] == (q + 1 if u <= r else q) for u in range(1, d + 1))
    for u in range(d + 1):                               # the closed form of Lemma 8.4 v
        assert s.max_preimage(u) == max([0] + [u0 for u0, v in enumerate(images, 1) if v <= u])


def test_m0_is_m_at_zero_after_f() -> None:
    s = EmptyBinSampler(RR3, 4)  # q = 1, r = 1: f = 1, 1, 2, 3
    assert [s.f(u0) for u0 in range(1, 5)] == [1, 1, 2, 3]
    assert [s(u0) for u0 in range(1, 5)] == [0, 0, 0, 1]
    assert [s.cdf(z) for z in (-1, 0, 1, 5)] == [0, 3, 4, 4]
    assert s.preimage(0) == (1, 3) and s.preimage(1) == (4, 4)
    assert explore(partial(s.sample_preimage, 0)) == {1: Fraction(1, 3), 2: Fraction(1, 3),
                                                      3: Fraction(1, 3)}
    assert s.search(4) == 1 and s.d == 4


def test_m0_equals_m_when_d_divides_d0() -> None:
    g = GeoSample(1, 1)  # d = 5
    s = EmptyBinSampler(TabulatedMechanism([[4, 8], [2, 8]]), 64)
    counts = Counter(s(u0) for u0 in range(1, 65))
    assert counts == {0: 32, 1: 32}
    s2 = EmptyBinSampler(g, 15)
    c2 = Counter(s2(u0) for u0 in range(1, 16))
    assert Fraction(c2[0], 15) == Fraction(g.cdf(0, 0), g.d)


def test_empty_bin_sampler_errors() -> None:
    with pytest.raises(ParameterError, match="4d/3"):
        EmptyBinSampler(RR3, 3)
    with pytest.raises(ParameterTypeError):
        EmptyBinSampler("GeoSample", 64)  # type: ignore[arg-type]
    s = EmptyBinSampler(U3, 4)  # f = 1,1,2,3; M0 = 0,0,1,2
    for bad in (0, 5):
        with pytest.raises(DomainError):
            s(bad)
    with pytest.raises(ParameterTypeError):
        s.f(1.0)  # type: ignore[arg-type]
    z = EmptyBinSampler(TabulatedMechanism([[2, 2, 2]] * 3), 4)  # M(0, .) = 0 always
    with pytest.raises(DomainError, match="probability 0"):
        z.preimage(1)


# --------------------------------------------------------------------------- Theorem 8.6

def test_theorem_8_6_parameters() -> None:
    assert theorem_8_6_epsilon_prime(Fraction(1, 10)) == Fraction(1, 12)  # ceil(100/9) = 12
    assert theorem_8_6_epsilon_prime(1) == Fraction(1, 2)                 # ceil(10/9) = 2
    assert theorem_8_6_epsilon_prime("1/9") == Fraction(1, 10)            # ceil(90/9) = 10
    ch = CompactHistogram.theorem_8_6(2**64, 10**4, "1/10", Fraction(1, 2**20))
    fs = ch.mechanism
    assert isinstance(fs, FastSample)
    assert fs.epsilon == Fraction(1, 12) and fs.gamma == Fraction(1, 2**85)
    # log2(30 d / eps) is about 28710 bits: 2*3^8 = 13122 < 28710 <= 2*3^9 = 39366.
    assert 13122 < (300 * fs.d).bit_length() <= 39366
    assert ch.field.level == 9 == theorem_8_6_level(2**64, fs.d, Fraction(1, 10))
    assert ch.field.order >= 300 * fs.d
    # max(|X|, 30 d / eps) = 30 -> ceil(log2 30) = 5 bits -> least l with 2*3^l >= 5 is 1.
    assert theorem_8_6_level(5, 1, 1) == 1
    assert theorem_8_6_level(2**7, 1, 1) == 2  # 7 bits -> 2*3^2 = 18 >= 7 > 6


def test_theorem_8_6_refuses_unsupported_levels() -> None:
    with pytest.raises(ResourceLimitError, match="level"):
        CompactHistogram.theorem_8_6(2**64, 10, Fraction(1, 200), Fraction(1, 2**20))


def test_geosample_variant() -> None:
    ch = CompactHistogram.with_geosample(100, 3, Fraction(1, 2))
    assert isinstance(ch.mechanism, GeoSample)
    assert ch.mechanism.epsilon == Fraction(1, 3)  # 1/ceil(20/9)
    assert ch.field.order >= 60 * ch.mechanism.d
    assert ch.construction == "geosample"


# --------------------------------------------------------------------------- Algorithm 8.2

def test_constructor_preconditions() -> None:
    with pytest.raises(ParameterError, match=">= \\|X\\|"):
        CompactHistogram(5, RR3, 0)           # d0 = 4 < |X| = 5
    with pytest.raises(ParameterError, match="n \\+ 1"):
        CompactHistogram(4, TabulatedMechanism([[1, 2, 3, 3, 3]] * 5), 0)  # n = 4, d0 = 4
    CompactHistogram(4, TabulatedMechanism([[1, 2, 3, 3, 3]] * 5), 0, strict_time=False)
    with pytest.raises(ParameterError, match="4d/3"):
        CompactHistogram(4, GeoSample(1, 1), 0)  # d = 5 > 3
    with pytest.raises(ParameterTypeError):
        CompactHistogram(4, None, 0)  # type: ignore[arg-type]


def test_release_checks_the_dataset() -> None:
    ch = CompactHistogram(4, RR3, 0)
    with pytest.raises(ParameterError, match="n = 2 rows"):
        ch.release(Dataset.of(4, [1, 2]))
    with pytest.raises(ParameterError, match="universe"):
        ch.release(Dataset.of(3, [1]))
    with pytest.raises(ParameterTypeError):
        ch.release([1])  # type: ignore[arg-type]


def _coefficients(ch: CompactHistogram, data: Dataset, source: RandomSource) -> tuple[int, ...]:
    return ch.release(data, source).coefficients


@pytest.mark.parametrize("rows", [(1, 1), (1, 2), (2, 3), (3, 3)])
def test_strict_and_fast_modes_have_the_same_distribution(rows: tuple[int, ...]) -> None:
    data = Dataset.of(3, rows)
    strict = CompactHistogram(3, U3, 0, strict_time=True)
    fast = CompactHistogram(3, U3, 0, strict_time=False)
    assert explore(partial(_coefficients, strict, data)) == \
        explore(partial(_coefficients, fast, data))


def test_release_marginals_on_gf4() -> None:
    # RR3 on GF(4), X = [4]_+, D = (2,): h_2 ~ M(1, U) = (1/3, 2/3); the others ~ M0 = (3/4, 1/4).
    ch = CompactHistogram(4, RR3, 0)
    dist = explore(partial(_coefficients, ch, Dataset.of(4, [2])))
    for x in range(1, 5):
        marginal: dict[int, Fraction] = {}
        for coeffs, w in dist.items():
            v = ch._wrap(coeffs).evaluate(x)
            marginal[v] = marginal.get(v, Fraction(0)) + w
        want = {0: Fraction(1, 3), 1: Fraction(2, 3)} if x == 2 else \
            {0: Fraction(3, 4), 1: Fraction(1, 4)}
        assert marginal == want


def test_conditioned_sampler_prescribes_values() -> None:
    ch = CompactHistogram(4, U3, 0)
    rel = ch.sample_conditioned({1: 2, 4: 0}, SeededSource(5))
    assert rel.evaluate(1) == 2 and rel.evaluate(4) == 0
    with pytest.raises(ParameterError, match="at most"):
        ch.sample_conditioned({1: 0, 2: 0, 3: 0})
    with pytest.raises(DomainError):
        ch.sample_conditioned({9: 0})


class _Recorder(RandomSource):
    """Records every draw's kind and domain size; answers with a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.log: list[tuple[str, int]] = []

    def uniform(self, d: int) -> int:
        self.log.append(("uniform", d))
        return self.rng.randrange(d) + 1

    def inverse_cdf(self, draw: object) -> int:
        self.log.append(("inverse_cdf", draw.d))  # type: ignore[attr-defined]
        return draw.search(self.rng.randrange(draw.d) + 1)  # type: ignore[attr-defined]


def test_strict_mode_makes_the_same_draws_for_every_dataset() -> None:
    ch = CompactHistogram(2**64, GeoSample(4, 1), 4)  # d0 = 2^162
    logs = []
    for rows in ([5, 5, 5, 5], [1, 2, 3, 4], [2**64, 7, 7, 2**63]):
        rec = _Recorder(1)
        rel = ch.release(Dataset.of(2**64, rows), rec)
        kinds = [(kind, d if kind == "inverse_cdf" else None) for kind, d in rec.log]
        logs.append(kinds)
        assert len(rel.coefficients) == 5
    assert logs[0] == logs[1] == logs[2]
    d, d0 = ch.mechanism.d, ch.field.order
    assert logs[0] == [("inverse_cdf", d * d0), ("uniform", None)] * 5


def test_release_agrees_with_the_noisy_counts_it_drew() -> None:
    # With a source that always answers 1, M(c, 1) = 0 for every c, so every non-empty bin
    # must read 0; the result is still a polynomial of degree <= n.
    ch = CompactHistogram(2**64, GeoSample(3, 1), 4)
    data = Dataset.of(2**64, [10, 2**40, 2**40])
    rel = ch.release(data, CallableSource(lambda d: 1))
    assert rel.evaluate(10) == 0 and rel.evaluate(2**40) == 0
    assert len(rel.coefficients) == 4


def test_release_on_the_theorem_8_6_field() -> None:
    ch = CompactHistogram.theorem_8_6(2**64, 3, Fraction(1, 10), Fraction(1, 2**20))
    rng = random.Random(4)
    rows = [rng.randrange(1, 2**64 + 1) for _ in range(3)]
    rel = ch.release(Dataset.of(2**64, rows), SeededSource(9))
    assert rel.level == 9 and len(rel.coefficients) == 4
    assert all(0 <= c < 2**39366 for c in rel.coefficients)
    for x in rows + [1, 2**64]:
        assert 0 <= rel.evaluate(x) <= 3
    again = ch.release(Dataset.of(2**64, rows), SeededSource(9))
    assert again == rel


# --------------------------------------------------------------------------- the release

@pytest.fixture(scope="module")
def released() -> CompactRelease:
    ch = CompactHistogram.theorem_8_6(1000, 4, Fraction(1, 2), Fraction(1, 20))
    return ch.release(Dataset.of(1000, [3, 3, 999, 17]), SeededSource(2))


def test_evaluate_validates_x(released: CompactRelease) -> None:
    assert all(0 <= released.evaluate(x) <= 4 for x in (1, 3, 17, 999, 1000))
    for bad in (0, 1001):
        with pytest.raises(DomainError):
            released.evaluate(bad)
    for wrong in (True, "3", 3.0):
        with pytest.raises(ParameterTypeError):
            released.evaluate(wrong)  # type: ignore[arg-type]


def test_json_round_trip(released: CompactRelease) -> None:
    text = released.dumps()
    obj = json.loads(text)
    assert obj["format"] == FORMAT and obj["construction"] == "theorem_8_6"
    assert all(isinstance(c, str) for c in obj["coefficients"])
    back = CompactRelease.loads(text)
    assert back == released
    assert [back.evaluate(x) for x in range(1, 40)] == [released.evaluate(x)
                                                        for x in range(1, 40)]


def test_json_round_trip_big_field() -> None:
    ch = CompactHistogram.theorem_8_6(2**64, 2, Fraction(1, 10), Fraction(1, 2**20))
    rel = ch.release(Dataset.of(2**64, [2**64, 1]), SeededSource(3))
    back = CompactRelease.loads(rel.dumps())  # coefficients of ~11850 decimal digits
    assert back == rel and back.evaluate(2**64) == rel.evaluate(2**64)


def test_json_round_trip_geosample_and_custom() -> None:
    rel = CompactHistogram.with_geosample(50, 2, 1).release(Dataset.of(50, [7, 8]),
                                                            SeededSource(4))
    assert CompactRelease.loads(rel.dumps()) == rel
    custom = CompactHistogram(50, GeoSample(2, 1), 2).release(Dataset.of(50, [7, 8]),
                                                              SeededSource(4))
    back = CompactRelease.loads(custom.dumps())
    assert back == custom and back.construction == "custom"
    toy = CompactHistogram(4, RR3, 0).release(Dataset.of(4, [1]), SeededSource(1))
    with pytest.raises(ParameterTypeError, match="GeoSample and FastSample"):
        toy.dumps()


def _tampered(released: CompactRelease, change: object, reseal: bool = True) -> str:
    """The release's JSON with ``change`` applied; with ``reseal`` the editor also recomputed
    the SHA-256 digest (anyone can), so the field checks must catch the change."""
    obj = released.to_json()
    change(obj)  # type: ignore[operator]
    return json.dumps(seal(obj) if reseal else obj)


def _set(path: tuple[str, ...], value: object) -> object:
    def apply(obj: dict[str, object]) -> None:
        target = obj
        for key in path[:-1]:
            target = target[key]  # type: ignore[assignment]
        target[path[-1]] = value
    return apply


def _resample(obj: dict[str, object], eps: str, gamma: str) -> None:
    """Change the sampler's parameters consistently (with the matching d)."""
    sampler = obj["sampler"]
    assert isinstance(sampler, dict)
    sampler.update(epsilon=eps, gamma=gamma,
                   d=str(FastSample(int(str(obj["n"])), eps, gamma).d))


@pytest.mark.parametrize(("change", "message"), [
    (lambda o: o["coefficients"].pop(), "n \\+ 1"),
    (lambda o: o["coefficients"].append("0"), "n \\+ 1"),
    (_set(("coefficients",), "12"), "list"),
    (lambda o: o["coefficients"].__setitem__(0, str(2 ** int(o["field"]["degree"]))),
     "not an element"),
    (lambda o: o["coefficients"].__setitem__(1, "-5"), "decimal"),
    (lambda o: o["coefficients"].__setitem__(1, "007"), "leading zeros"),
    (lambda o: o["coefficients"].__setitem__(1, 7), "decimal string"),
    (_set(("format",), "something"), "format"),
    (_set(("version",), "1"), "version '1' read x"),
    (_set(("version",), "2"), "version '2' had no integrity"),
    (_set(("version",), "4"), "version"),
    (_set(("algorithm",), "BasicHistogram"), "algorithm"),
    (_set(("sampler", "extra"), "1"), "unknown field 'extra'"),
    (_set(("surprise",), "1"), "unknown field 'surprise'"),
    (_set(("epsilon",), "2/4"), "1/m|written"),
    (_set(("nodes", "subfield_level"), "1"), "subfield_level"),
    (_set(("nodes", "subfield_level"), "x"), "subfield_level"),
    (_set(("nodes", "embedding"), "x -> x"), "embedding"),
    (_set(("nodes",), None), "nodes"),
    (_set(("n",), "5"), "sampler.d"),
    (_set(("n",), "0"), ">= 1"),
    (_set(("universe_size",), "2000"), "does not match"),
    (_set(("universe_size",), str(2**1459)), "d0"),
    (_set(("epsilon",), "1/3"), "does not match"),
    (_set(("epsilon",), "2/3"), "1/m"),
    (_set(("epsilon",), None), "needs epsilon"),
    (_set(("beta0",), None), "needs beta0"),
    (_set(("beta0",), "1/21"), "does not match"),
    (_set(("construction",), "magic"), "construction"),
    (_set(("sampler", "epsilon"), "1/5"), "sampler.d"),
    (_set(("sampler", "gamma"), "1/5"), "sampler.d"),
    (lambda o: _resample(o, "1/2", "1/40000"), "does not match"),
    (lambda o: _resample(o, "1/3", "1/5"), "does not match"),
    (_set(("sampler", "gamma"), None), "gamma"),
    (_set(("sampler", "name"), "Laplace"), "FastSample"),
    (_set(("sampler", "d"), "12345"), "sampler.d"),
    (_set(("field", "level"), "3"), "level|4d/3"),
    (_set(("field", "level"), "11"), "exceeds"),
    (_set(("field", "degree"), "19"), "degree"),
    (_set(("field", "modulus"), "t^18 + t^3 + 1"), "modulus"),
    (_set(("field",), "GF(2^18)"), "JSON object"),
])
def test_tampered_releases_are_rejected(released: CompactRelease, change: object,
                                        message: str) -> None:
    with pytest.raises(InvalidReleaseError, match=message):
        CompactRelease.loads(_tampered(released, change))
    # Without recomputing the digest, the integrity check refuses the edit first.
    with pytest.raises(InvalidReleaseError, match="integrity|version|format"):
        CompactRelease.loads(_tampered(released, change, reseal=False))


def test_loader_rejects_non_json_and_non_objects() -> None:
    with pytest.raises(InvalidReleaseError, match="not valid JSON"):
        CompactRelease.loads("{")
    with pytest.raises(InvalidReleaseError, match="JSON object"):
        CompactRelease.loads("[1, 2]")


def test_release_requires_n_plus_one_coefficients() -> None:
    with pytest.raises(InvalidReleaseError):
        CompactRelease(10, 2, 1, (1, 2), GeoSample(2, 1))


def test_sampler_spec() -> None:
    assert SamplerSpec.of(GeoSample(3, "1/2")) == SamplerSpec("GeoSample", Fraction(1, 2))
    half, eighth = Fraction(1, 2), Fraction(1, 8)
    assert SamplerSpec("FastSample", half, eighth).build(3).d == FastSample(3, half, eighth).d
    assert str(SamplerSpec("FastSample", half, eighth)) == "FastSample(eps=1/2, gamma=1/8)"
    with pytest.raises(ParameterError):
        SamplerSpec("FastSample", half)
    with pytest.raises(ParameterError):
        SamplerSpec("GeoSample", half, eighth)
    with pytest.raises(ParameterError):
        SamplerSpec("Laplace", half)
    with pytest.raises(ParameterError):
        SamplerSpec("GeoSample", Fraction(2, 3))


@pytest.mark.parametrize("level", [0, 1])
def test_every_polynomial_is_reachable_with_equal_chance_without_data(level: int) -> None:
    # With A empty (sample_conditioned({})), the polynomial is uniform over all of them.
    mech = RR3 if level == 0 else GeoSample(1, 1)
    ch = CompactHistogram(min(4, 2 ** (2 * 3**level)), mech, level)
    dist = explore(lambda s: ch.sample_conditioned({}, s).coefficients)
    q = ch.field.order
    assert set(dist) == set(product(range(q), repeat=2))
    assert set(dist.values()) == {Fraction(1, q * q)}


# --------------------------------------------------------------------------- paper slips

def test_slip_lemma_8_1_iv_needs_points_outside_x_when_x_is_small() -> None:
    """Lemma 8.1 (iv) takes B inside X with |B| = n + 1, which needs |X| >= n + 1; the
    hypotheses only give d0 >= |X|.  Any n + 1 distinct field points do: here |X| = 2 < 4."""
    mech = TabulatedMechanism([[1, 2, 3, 3]] * 4)  # n = 3, d = 3 on GF(4)
    ch = CompactHistogram(2, mech, 0)
    data = Dataset.of(2, [2, 2, 2])
    dist = explore(partial(_coefficients, ch, data))
    for x, want in ((1, {0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}),   # M0
                    (2, {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)})):  # M(3)
        marginal: dict[int, Fraction] = {}
        for coeffs, w in dist.items():
            v = ch._wrap(coeffs).evaluate(x)
            marginal[v] = marginal.get(v, Fraction(0)) + w
        assert marginal == want


def test_slip_theorem_8_6_iii_is_the_simultaneous_bound() -> None:
    """Theorem 8.6 (iii) says per-query; it is (ii) at beta/|X| plus a union bound, i.e. the
    simultaneous guarantee of Figure 6 (as a per-query claim it would follow from (ii))."""
    from exactdp.histograms.accuracy import ceil_scaled_ln

    eps, size = Fraction(1, 10), 2**64
    ch = CompactHistogram.theorem_8_6(size, 1000, eps, Fraction(1, 2**20))
    gamma = ch.mechanism.gamma  # type: ignore[attr-defined]
    for beta in (Fraction(1, 2**20), Fraction(1, 100), Fraction(1, 2)):
        a_iii = ceil_scaled_ln(5 / eps, 2 * size / beta)
        a_ii_at_beta_over_x = ceil_scaled_ln(5 / eps, 2 / (beta / size))
        assert a_iii == a_ii_at_beta_over_x
        assert beta / size >= 2 * gamma  # (ii)'s condition holds exactly when beta >= beta0
        assert a_iii > ceil_scaled_ln(5 / eps, 2 / beta)  # strictly weaker as per-query


# --------------------------------------------------------------------------- proof rows can fail

_SPIKE_D0 = 1 << 18


class _Spiked(EmptyBinSampler):
    """M0 with values [0, 2, 0] at u0 = 12344..12346: a spike strictly inside a block."""

    def __call__(self, u0: int) -> int:
        return 2 if u0 == 12345 else super().__call__(u0)


def test_algorithm_8_5_threshold_is_max_preimage_of_f() -> None:
    # The proof's transcription against brute force over f's definition (not the sampler).
    for d in range(1, 8):
        for d0 in range(-(-4 * d // 3), 4 * d + 4):
            q, r = divmod(d0, d)

            def f(u0: int, q: int = q, r: int = r) -> int:
                return -(-u0 // (q + 1)) if r and u0 <= r * (q + 1) else -(-(u0 - r) // q)

            for u in range(d + 1):
                want = max([0] + [u0 for u0 in range(1, d0 + 1) if f(u0) <= u])
                assert algorithm_8_5_threshold(d, d0, u) == want


def test_m0_spike_inside_a_block_is_caught_by_enumeration() -> None:
    honest = EmptyBinSampler(GeoSample(2, 1), _SPIKE_D0)
    spiked = _Spiked(GeoSample(2, 1), _SPIKE_D0)
    assert [honest(u0) for u0 in (12344, 12345, 12346)] == [0, 0, 0]
    assert [spiked(u0) for u0 in (12344, 12345, 12346)] == [0, 2, 0]
    assert m0_thresholds(honest)[0] > 12346  # strictly inside the block of z = 0
    reading = m0_distribution(spiked, _SPIKE_D0)
    assert reading.enumerated and not reading.monotone


def test_m0_block_argument_checks_block_ends() -> None:
    mech = GeoSample(2, 1)
    d0 = 1 << 54
    honest = EmptyBinSampler(mech, d0)
    reading = m0_distribution(honest)
    assert not reading.enumerated and reading.monotone
    t0 = m0_thresholds(honest)[0]

    class EndOff(EmptyBinSampler):
        def __call__(self, u0: int) -> int:
            return 1 if u0 == t0 else super().__call__(u0)

    assert not m0_distribution(EndOff(mech, d0)).monotone
    # The block argument cannot see a spike strictly inside a block of a huge field.
    assert m0_distribution(_Spiked(mech, d0)).monotone


@pytest.fixture
def fresh_8_04(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lemma_8_04_empty_bin, "_RESULTS", {})


@pytest.mark.usefixtures("fresh_8_04")
def test_lemma_8_04_i_fails_on_a_spike_inside_a_block(monkeypatch: pytest.MonkeyPatch) -> None:
    original = EmptyBinSampler.__call__

    def spiked(self: EmptyBinSampler, u0: int) -> int:
        return 2 if self.d0 == _SPIKE_D0 and self.n >= 2 and u0 == 12345 else original(self, u0)

    monkeypatch.setattr(EmptyBinSampler, "__call__", spiked)
    report = lemma_8_04_empty_bin.check_i(False)
    assert not report.verdict
    bad = [c for c in report.certificates if not c.verdict]
    assert bad and all(c.parameters["d0"] == _SPIKE_D0 and c.domain == "every u0" for c in bad)


@pytest.mark.usefixtures("fresh_8_04")
def test_lemma_8_04_i_ii_v_fail_when_f_uses_blocks_of_q_plus_one_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Non-decreasing, but the last u gets whatever is left: wrong masses (and M0 != M when
    # d | d0), and the S_v intervals no longer match M0.
    def f(self: EmptyBinSampler, u0: int) -> int:
        return min(-(-u0 // (self.q + 1)), self.mechanism.d)

    monkeypatch.setattr(EmptyBinSampler, "f", f)
    assert not lemma_8_04_empty_bin.check_i(False).verdict
    assert not lemma_8_04_empty_bin.check_ii(False).verdict
    assert not lemma_8_04_empty_bin.check_v(False).verdict


@pytest.mark.usefixtures("fresh_8_04")
def test_lemma_8_04_iii_fails_when_the_bigger_blocks_come_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = EmptyBinSampler.f

    def mirrored(self: EmptyBinSampler, u0: int) -> int:
        return self.mechanism.d + 1 - original(self, self.d0 + 1 - u0)

    monkeypatch.setattr(EmptyBinSampler, "f", mirrored)
    assert not lemma_8_04_empty_bin.check_iii(False).verdict


@pytest.fixture
def fresh_8_01(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lemma_8_01_family, "_TABLES", {})


@pytest.mark.usefixtures("fresh_8_01")
def test_lemma_8_01_i_fails_when_evaluation_is_not_uniform(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = VanLintField.evaluate
    monkeypatch.setattr(VanLintField, "evaluate",
                        lambda self, c, x: 0 if x == 1 else original(self, c, x))
    assert not lemma_8_01_family.check_i(False).verdict


@pytest.mark.usefixtures("fresh_8_01")
def test_lemma_8_01_ii_fails_when_two_points_evaluate_alike(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # p(1) := p(0): every marginal stays uniform, but g_0 and g_1 are not independent.
    original = VanLintField.evaluate
    monkeypatch.setattr(VanLintField, "evaluate",
                        lambda self, c, x: original(self, c, 0 if x == 1 else x))
    assert lemma_8_01_family.check_i(False).verdict
    assert not lemma_8_01_family.check_ii(False).verdict


def test_lemma_8_01_iii_fails_on_a_reducible_modulus(monkeypatch: pytest.MonkeyPatch) -> None:
    original = VanLintField.__post_init__

    def post_init(self: VanLintField) -> None:
        original(self)
        if self.level == 1:
            object.__setattr__(self, "modulus", (1 << 6) | 1)  # t^6 + 1 = (t^3 + 1)^2

    monkeypatch.setattr(VanLintField, "__post_init__", post_init)
    report = lemma_8_01_family.check_iii(False)
    assert not report.verdict
    assert [c.parameters["level"] for c in report.certificates if not c.verdict] == [1]


def test_lemma_8_01_iv_fails_when_s_v_is_not_uniform(monkeypatch: pytest.MonkeyPatch) -> None:
    def skewed(self: EmptyBinSampler, v: int, source: RandomSource | None = None) -> int:
        lo, hi = self.preimage(v)  # never lo when |S_v| > 1
        return min(hi, lo + default_source(source).uniform(hi - lo + 1))

    monkeypatch.setattr(EmptyBinSampler, "sample_preimage", skewed)
    assert not lemma_8_01_family.check_iv(False).verdict


def test_theorem_8_6_fails_when_eps_prime_is_not_the_theorems(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # eps' = 1/ceil(10m/9) computed in the proof; an implementation using eps' = eps is caught.
    monkeypatch.setattr(compact_release, "theorem_8_6_epsilon_prime",
                        lambda eps: Fraction(1, Fraction(eps).denominator))
    report = thm_8_06_parameters.check(False)
    assert not report.verdict


# --------------------------------------------------------------------------- command line

def test_cli_release_and_query(tmp_path: pytest.TempPathFactory,
                               capsys: pytest.CaptureFixture[str]) -> None:
    from exactdp.cli import main

    data = tmp_path / "rows.txt"  # type: ignore[operator]
    data.write_text("3\n3\n999\n17\n")
    out = tmp_path / "rel.json"  # type: ignore[operator]
    assert main(["histogram", "--algorithm", "compact", "--universe-size", "1000",
                 "--epsilon", "1/2", "--beta", "1/20", "--seed", "1", "--quiet",
                 "--output", str(out), str(data)]) == 0
    obj = json.loads(out.read_text())
    assert obj["format"] == FORMAT and obj["seeded"] is True
    assert obj["guarantees"]["per_query"]["beta"] == "1/20"
    rel = CompactRelease.loads(out.read_text())
    capsys.readouterr()
    assert main(["query", str(out), "3", "17", "1000"]) == 0
    lines = capsys.readouterr().out.split()
    assert lines == ["3", str(rel.evaluate(3)), "17", str(rel.evaluate(17)),
                     "1000", str(rel.evaluate(1000))]
    assert main(["query", str(out), "1001"]) == 2
    assert "outside the universe" in capsys.readouterr().err
    obj["coefficients"][0] = "x"
    out.write_text(json.dumps(obj))
    assert main(["query", str(out), "3"]) == 2
    assert "integrity check" in capsys.readouterr().err
    out.write_text(json.dumps(seal(obj)))  # the digest recomputed: the field check refuses
    assert main(["query", str(out), "3"]) == 2
    assert "coefficients[0]" in capsys.readouterr().err
    assert main(["histogram", "--algorithm", "compact", "--universe-size", "1000",
                 "--epsilon", "1/2", "--delta", "1/100", "--quiet", str(data)]) == 2
    assert main(["query", str(tmp_path / "missing.json"), "3"]) == 2  # type: ignore[operator]


def test_with_coefficients_shares_the_parameters_and_checks_the_coefficients() -> None:
    """The histogram's own releases are built from a validated template: equal to a release
    built by the constructor, with its own evaluations (no coordinate table carried over),
    and coefficients outside the field still refused by the constructor's validation."""
    ch = CompactHistogram(5, GeoSample(2, Fraction(1)), 1)
    order = ch.field.order
    for coeffs in [(1, 2, 3), (order - 1, 0, 5)]:
        built = CompactRelease(5, 2, ch.field.level, coeffs, ch.mechanism)
        fast = ch._wrap(coeffs)
        assert fast == built
        assert [fast.evaluate(x) for x in range(1, 6)] == [built.evaluate(x) for x in range(1, 6)]
    first = ch._wrap((1, 2, 3))
    assert [first.evaluate(x) for x in range(1, 6)] == [
        ch._wrap((1, 2, 3)).evaluate(x) for x in range(1, 6)]
    with pytest.raises(ExactDPError):
        ch._wrap((order, 0, 0))
    with pytest.raises(ExactDPError):
        ch._wrap((1, 2))
