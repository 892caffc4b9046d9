"""Tests of exactdp.counting: GeoSample (Alg. 4.8), FastSample (Alg. 4.11), the ideal
GeometricMechanism (Alg. 4.5) and the shared inverse-CDF search.

Every expected value here is derived independently of the code under test:

* ``k``, ``t``, ``d'``, ``d`` from the paper's formulas typed afresh, with the logarithms
  replaced by brute-force searches (least ``k`` with ``2**k >= 2/eps``, ...);
* the clamped geometric from the CDF ``F_Z`` of Section 4.1 with ``e**(1/s) = e**(eps~/2)
  = 1 + 2**-k`` (Theorem 4.7), clamped as in Algorithm 4.5;
* FastSample's distribution from Lemma 4.12's probability mass function of ``Z'`` (the
  geometric's pmf of Section 4.1, the tail mass ``Pr[|Z - c| > t]`` as one minus the kept
  mass) mixed with the uniform distribution.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exactdp.checker import counting_distribution, exact_accuracy
from exactdp.counting import (
    FastSample,
    GeometricMechanism,
    GeoSample,
    InverseCDFSampler,
    TruncatedGeoSample,
    geosample_k,
    inverse_cdf_search,
    search_rounds,
)
from exactdp.params import (
    DomainError,
    FloatParameterError,
    NotInverseIntegerError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.randomness import CallableSource, SeededSource
from exactdp.trace import recording

# ---------------------------------------------------------------- independent paper formulas


def k_brute(m: int) -> int:
    """k = ceil(log2(2/eps)) for eps = 1/m: the least k with 2**k >= 2m."""
    k = 0
    while 2**k < 2 * m:
        k += 1
    return k


def ceil_log2_brute(x: Fraction) -> int:
    """The least integer L >= 0 with 2**L >= x."""
    L = 0
    while 2**L < x:
        L += 1
    return L


def rounds_brute(n: int) -> int:
    """Binary search over [n] (n + 1 values) needs the least r with 2**r >= n + 1."""
    return ceil_log2_brute(Fraction(n + 1))


def geo_cdf_section_4_1(c: int, z: int, x: Fraction) -> Fraction:
    """F_Z(z) of c + Geo(s), Section 4.1, written with x = e**(1/s)."""
    if z <= c:
        return x / (x + 1) * x ** (-(c - z))
    return 1 - 1 / (x + 1) * x ** (-(z - c))


def geo_pmf_section_4_1(c: int, z: int, x: Fraction) -> Fraction:
    """f_Z(z) = (x - 1)/(x + 1) * x**(-|z - c|), Section 4.1, with x = e**(1/s)."""
    return (x - 1) / (x + 1) * x ** (-abs(z - c))


def clamped_geometric(n: int, c: int, x: Fraction) -> list[Fraction]:
    """Algorithm 4.5: c + Geo(s) clamped to [0, n], from F_Z: Pr[0] = F_Z(0),
    Pr[n] = 1 - F_Z(n - 1), Pr[z] = F_Z(z) - F_Z(z - 1) in between."""
    out = []
    for z in range(n + 1):
        upper = Fraction(1) if z == n else geo_cdf_section_4_1(c, z, x)
        lower = Fraction(0) if z == 0 else geo_cdf_section_4_1(c, z - 1, x)
        out.append(upper - lower)
    return out


def geosample_expected(n: int, m: int, c: int) -> list[Fraction]:
    """Theorem 4.7 i: GeoSample_{n,1/m}(c, U) ~ GeometricMechanism_{n, eps~}(c) with
    eps~ = 2 ln(1 + 2**-k), i.e. e**(1/s) = e**(eps~/2) = 1 + 2**-k."""
    return clamped_geometric(n, c, 1 + Fraction(1, 2 ** k_brute(m)))


def fast_params(n: int, m: int, g: int) -> tuple[int, int, int]:
    """Algorithm 4.11 step 1: (k, L, t) with L the inner ceil(log(...)), eps = 1/m,
    gamma = 1/g."""
    eps, gamma = Fraction(1, m), Fraction(1, g)
    k = k_brute(m)
    L = ceil_log2_brute(8 * (n + 1) * (1 - gamma) / (eps * gamma))
    t = math.ceil(Fraction(9, 2) / eps * L) - 1
    return k, L, t


def truncated_expected(n: int, m: int, g: int, c: int) -> list[Fraction]:
    """Lemma 4.12 i: Z' clamped to [0, n], from Z' 's probability mass function."""
    k, _, t = fast_params(n, m, g)
    x = 1 + Fraction(1, 2**k)
    pmf = {z: geo_pmf_section_4_1(c, z, x) for z in range(c - t, c + t + 1)}
    pmf[c] += 1 - sum(pmf.values())  # Pr[Z = c] + Pr[|Z - c| > t]
    out = [Fraction(0)] * (n + 1)
    for z, p in pmf.items():
        out[min(max(z, 0), n)] += p
    return out


def fastsample_expected(n: int, m: int, g: int, c: int) -> list[Fraction]:
    """Lemma 4.12 ii: with probability 1 - gamma Z' clamped, else uniform on [n]."""
    gamma = Fraction(1, g)
    return [(1 - gamma) * p + gamma / (n + 1) for p in truncated_expected(n, m, g, c)]


def as_list(dist: dict[int, Fraction], n: int) -> list[Fraction]:
    return [dist.get(z, Fraction(0)) for z in range(n + 1)]


@cache
def geo(n: int, m: int) -> GeoSample:
    return GeoSample(n, Fraction(1, m))


@cache
def fast(n: int, m: int, g: int) -> FastSample:
    return FastSample(n, Fraction(1, m), Fraction(1, g))


def test_independent_formulas_sanity() -> None:
    # The test's own formulas: total mass 1, and the paper's worked numbers.
    assert k_brute(1) == 1 and k_brute(2) == 2 and k_brute(3) == 3 and k_brute(4) == 3
    assert sum(clamped_geometric(5, 2, Fraction(3, 2))) == 1
    assert sum(truncated_expected(6, 2, 4, 3)) == 1
    # eps = 1, gamma = 1/2, n = 4: L = ceil(log2(8*5*(1/2)/(1/2))) = ceil(log2 40) = 6,
    # t = ceil(9/2 * 6) - 1 = 26.
    assert fast_params(4, 1, 2) == (1, 6, 26)


small_n = st.integers(min_value=1, max_value=10)
small_m = st.integers(min_value=1, max_value=12)
small_g = st.integers(min_value=2, max_value=16)

# ---------------------------------------------------------------- k and the search


@given(st.one_of(st.integers(min_value=1, max_value=10**6),
                 st.integers(min_value=1, max_value=2**300)))
def test_geosample_k_vs_brute_force(m: int) -> None:
    if m < 10**6:
        assert geosample_k(Fraction(1, m)) == k_brute(m)
    k = geosample_k(Fraction(1, m))
    assert 2**k >= 2 * m > 2 ** (k - 1)


@given(st.integers(min_value=1, max_value=300))
def test_search_rounds_vs_brute_force(n: int) -> None:
    assert search_rounds(n) == rounds_brute(n)


@given(st.lists(st.integers(min_value=0, max_value=5), min_size=2, max_size=40), st.data())
def test_inverse_cdf_search_vs_brute_force(masses: list[int], data: st.DataObject) -> None:
    masses[-1] += 1  # F(n) >= 1
    table = [sum(masses[: z + 1]) for z in range(len(masses))]
    n = len(table) - 1
    u = data.draw(st.integers(min_value=1, max_value=table[-1]))
    calls: list[int] = []

    def cdf(z: int) -> int:
        calls.append(z)
        return table[z]

    assert inverse_cdf_search(cdf, n, u) == min(z for z in range(n + 1) if table[z] >= u)
    assert len(calls) == rounds_brute(n)


# ---------------------------------------------------------------- GeoSample


@given(small_n, small_m)
def test_geosample_k_and_d(n: int, m: int) -> None:
    mech = geo(n, m)
    k = k_brute(m)
    assert mech.k == k
    assert mech.d == (2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1)  # Algorithm 4.8 step 1
    assert mech.alpha == Fraction(2**k, 2**k + 1)
    assert mech.privacy_ratio == 1 + Fraction(1, 2**k)


@given(small_n, small_m, st.data())
def test_geosample_cdf_is_clamped_geometric_cdf(n: int, m: int, data: st.DataObject) -> None:
    # Lemma 4.9: F(z) in [d] and F(z)/d = CDF of c + Geo(2/eps~) clamped to [0, n].
    mech = geo(n, m)
    c = data.draw(st.integers(min_value=0, max_value=n))
    x = 1 + Fraction(1, 2 ** k_brute(m))
    assert mech.cdf(c, -1) == 0
    assert mech.cdf(c, n) == mech.d
    assert mech.cdf(c, n + 3) == mech.d
    prev = 0
    for z in range(n):
        f = mech.cdf(c, z)
        assert type(f) is int
        assert prev <= f <= mech.d
        assert Fraction(f, mech.d) == geo_cdf_section_4_1(c, z, x)
        prev = f


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("n", [1, 2, 3, 6, 9])
def test_geosample_distribution_equals_clamped_geometric(n: int, m: int) -> None:
    # Theorem 4.7 i, on the implementation (distribution read off M by the checker).
    mech = geo(n, m)
    for c in range(n + 1):
        dist = counting_distribution(mech, c)
        assert sum(dist.values()) == 1
        assert as_list(dist, n) == geosample_expected(n, m, c)


@pytest.mark.parametrize(("n", "m"), [(1, 1), (4, 2), (7, 8)])
def test_geosample_worst_ratio_is_one_plus_two_to_minus_k(n: int, m: int) -> None:
    # Computed from the independent formulas: max over neighbours c, c+1 (both orders)
    # and outcomes; the implementation's distribution equals those (test above).
    dists = [geosample_expected(n, m, c) for c in range(n + 1)]
    worst = max(dists[a][z] / dists[b][z] for c in range(n) for a, b in ((c, c + 1), (c + 1, c))
                for z in range(n + 1))
    assert worst == 1 + Fraction(1, 2 ** k_brute(m))
    assert worst == geo(n, m).privacy_ratio


@given(small_n, small_m, st.data())
def test_geosample_outputs_in_range_and_monotone_in_u(n: int, m: int,
                                                      data: st.DataObject) -> None:
    mech = geo(n, m)
    c = data.draw(st.integers(min_value=0, max_value=n))
    u1 = data.draw(st.integers(min_value=1, max_value=mech.d))
    u2 = data.draw(st.integers(min_value=u1, max_value=mech.d))
    z1, z2 = mech(c, u1), mech(c, u2)
    assert type(z1) is int
    assert 0 <= z1 <= z2 <= n
    # and M(c, u) is the least z with F(z) >= u (Algorithm 4.8 step 3), checked directly
    assert mech.cdf(c, z1) >= u1 and (z1 == 0 or mech.cdf(c, z1 - 1) < u1)


@pytest.mark.parametrize(("n", "m"), [(1, 1), (3, 1), (4, 2), (5, 1), (7, 1), (8, 1)])
def test_geosample_cdf_evaluations_exact_for_every_c_and_u(n: int, m: int) -> None:
    # Strict time (Theorem 4.7 ii): exactly ceil(log2(n+1)) evaluations of F for every
    # (c, u) -- all of them, enumerated.
    mech = geo(n, m)
    assert mech.d <= 5 * 3**7
    expected = rounds_brute(n)
    for c in range(n + 1):
        for u in range(1, mech.d + 1):
            with recording() as events:
                mech(c, u)
            assert events.count(("cdf",)) == expected


@given(small_n, small_m, st.data())
def test_scaled_cdf_at_zero(n: int, m: int, data: st.DataObject) -> None:
    # Definition 4.3: F_M(z) = d * Pr[M(0, U) <= z].
    mech = geo(n, m)
    dist = counting_distribution(mech, 0)
    z = data.draw(st.integers(min_value=0, max_value=n))
    assert mech.scaled_cdf_at_zero(z) == mech.d * sum(dist[y] for y in range(z + 1))


def test_sample_uses_one_draw_of_size_d() -> None:
    mech = geo(5, 2)
    seen: list[int] = []

    def fixed(d: int) -> int:
        seen.append(d)
        return 1234 % d + 1

    out = mech.sample(3, CallableSource(fixed))
    assert seen == [mech.d]
    assert out == mech(3, 1234 % mech.d + 1)


def test_sample_default_source_in_range() -> None:
    mech = geo(10, 3)
    assert all(0 <= mech.sample(c) <= 10 for c in range(11))


def test_geometric_mechanism_ideal_matches_geosample() -> None:
    mech = geo(6, 4)
    ideal = mech.ideal()
    assert ideal == GeometricMechanism.for_geosample(6, Fraction(1, 4))
    for c in range(7):
        assert list(ideal.distribution(c)) == geosample_expected(6, 4, c)


# ---------------------------------------------------------------- GeometricMechanism


def _distribution_is_pmf() -> bool:
    """distribution() is pmf() at every (c, z), and cdf() their running sums (z in [-1, n+1])."""
    for n in range(1, 9):
        for a in (Fraction(1, 3), Fraction(2, 3), Fraction(16, 17), Fraction(5, 8)):
            mech = GeometricMechanism(n, a)
            for c in range(n + 1):
                pmf = tuple(mech.pmf(c, z) for z in range(n + 1))
                cdf = [sum(pmf[:z + 1], Fraction(0)) for z in range(-1, n + 2)]
                if (mech.distribution(c) != pmf
                        or [mech.cdf(c, z) for z in range(-1, n + 2)] != cdf):
                    return False
    return True


@pytest.mark.parametrize(("old", "new"), [
    ("out[n] = Fraction(pp[n - c] * q,", "out[n] = Fraction(pp[n - c] * p,"),
    ("inner, ends = q - p, q + p", "inner, ends = q - p, q + p + (p == 5)"),
    ("pp[j], qq[j] = pp[j - 1] * p, qq[j - 1] * q", "pp[j], qq[j] = pp[j - 1] * p, qq[j - 1] * p"),
    ("j = c - z if z < c else z - c + 1", "j = c - z if z < c else z - c"),
    ("num, den = p**j * q, q**j * (q + p)", "num, den = p**j * q, q**j * (q + p + (c == 2))"),
])
def test_geometric_mechanism_distribution_is_its_pmf(old: str, new: str) -> None:
    """distribution() and cdf() (integer powers) equal pmf() (Fraction powers) and its running
    sums at every (c, z); the comparison fails on planted bugs in either."""
    from test_checker_mutants import planted

    assert _distribution_is_pmf()
    name = "distribution" if "pp" in old or "inner" in old or "out[" in old else "cdf"
    with planted(GeometricMechanism, name, old, new):
        assert not _distribution_is_pmf()


@given(small_n, st.fractions(min_value=Fraction(1, 1000), max_value=Fraction(999, 1000),
                             max_denominator=1000), st.data())
def test_geometric_mechanism_vs_section_4_1(n: int, alpha: Fraction, data: st.DataObject) -> None:
    mech = GeometricMechanism(n, alpha)
    c = data.draw(st.integers(min_value=0, max_value=n))
    expected = clamped_geometric(n, c, 1 / alpha)  # alpha = e**(-1/s)
    assert list(mech.distribution(c)) == expected
    assert sum(mech.distribution(c)) == 1
    running = Fraction(0)
    for z in range(n + 1):
        running += expected[z]
        assert mech.cdf(c, z) == running
        assert mech.pmf(c, z) == expected[z]
    assert mech.cdf(c, -1) == 0 and mech.pmf(c, -1) == 0 and mech.pmf(c, n + 1) == 0


@pytest.mark.parametrize("alpha", [0, 1, 2, Fraction(-1, 2), "3/2"])
def test_geometric_mechanism_bad_alpha(alpha: object) -> None:
    with pytest.raises(ParameterError, match="alpha"):
        GeometricMechanism(3, alpha)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", ["5", Fraction(5), 5])
def test_geometric_mechanism_normalises_n(n: object) -> None:
    mech = GeometricMechanism(n, Fraction(1, 2))  # type: ignore[arg-type]
    assert type(mech.n) is int and mech.n == 5
    assert list(mech.distribution(2)) == clamped_geometric(5, 2, Fraction(2))


def test_geometric_mechanism_bad_inputs() -> None:
    with pytest.raises(FloatParameterError):
        GeometricMechanism(3, 0.5)  # type: ignore[arg-type]
    with pytest.raises(ParameterError):
        GeometricMechanism(0, Fraction(1, 2))
    with pytest.raises(DomainError):
        GeometricMechanism(3, Fraction(1, 2)).pmf(4, 0)


# ---------------------------------------------------------------- FastSample


@given(st.integers(min_value=1, max_value=10**6), small_m, st.integers(min_value=2, max_value=2**50))
def test_fastsample_k_t_vs_paper(n: int, m: int, g: int) -> None:
    mech = FastSample(n, Fraction(1, m), Fraction(1, g))
    k, L, t = fast_params(n, m, g)
    assert (mech.k, mech.log_term, mech.t) == (k, L, t)


@given(small_n, st.integers(min_value=1, max_value=6), small_g)
def test_fastsample_d_prime_and_d_vs_paper(n: int, m: int, g: int) -> None:
    mech = fast(n, m, g)
    k, _, t = fast_params(n, m, g)
    d_prime = (2 ** (k + 1) + 1) * (2**k + 1) ** t
    d = (n + 1) * d_prime / Fraction(1, g)
    assert d.denominator == 1
    assert mech.d_prime == d_prime
    assert mech.d == d
    assert mech.truncated().d == d_prime


@given(small_n, st.integers(min_value=1, max_value=6), small_g, st.data())
def test_fastsample_cdfs_lemma_4_12(n: int, m: int, g: int, data: st.DataObject) -> None:
    mech = fast(n, m, g)
    gamma = Fraction(1, g)
    c = data.draw(st.integers(min_value=0, max_value=n))
    trunc = truncated_expected(n, m, g, c)
    prev_f, prev_fp, cum = 0, 0, Fraction(0)
    for z in range(n + 1):
        fp, f = mech.truncated_cdf(c, z), mech.cdf(c, z)
        # Lemma 4.12 i: F'(z) in [d'], F'/d' is the CDF of Z' clamped to [0, n]
        assert prev_fp <= fp <= mech.d_prime
        cum += trunc[z]
        assert Fraction(fp, mech.d_prime) == cum
        # Lemma 4.12 ii: F(z)/d = gamma (z+1)/(n+1) + (1 - gamma) F'(z)/d', exactly
        assert prev_f <= f <= mech.d
        assert Fraction(f, mech.d) == (gamma * Fraction(z + 1, n + 1)
                                       + (1 - gamma) * Fraction(fp, mech.d_prime))
        prev_f, prev_fp = f, fp
    assert mech.cdf(c, n) == mech.d and mech.truncated_cdf(c, n) == mech.d_prime
    assert mech.cdf(c, -1) == 0


@pytest.mark.parametrize(("n", "m", "g"), [(1, 1, 2), (4, 1, 2), (5, 2, 4), (8, 4, 3), (3, 8, 1024)])
def test_fastsample_distribution_equals_lemma_4_12_mixture(n: int, m: int, g: int) -> None:
    mech = fast(n, m, g)
    trunc = mech.truncated()
    for c in range(n + 1):
        dist = counting_distribution(mech, c)
        assert sum(dist.values()) == 1
        assert as_list(dist, n) == fastsample_expected(n, m, g, c)
        assert as_list(counting_distribution(trunc, c), n) == truncated_expected(n, m, g, c)


@pytest.mark.parametrize("c", [0, 1, 30, 50, 70, 99, 100])
def test_fastsample_truncation_inside_range(c: int) -> None:
    # n = 100, eps = 1, gamma = 1/2 gives t = 44 < n: all four cases of F' occur.
    n, m, g = 100, 1, 2
    assert fast_params(n, m, g)[2] == 44
    mech = fast(n, m, g)
    dist = counting_distribution(mech, c)
    assert as_list(dist, n) == fastsample_expected(n, m, g, c)
    # outside [c - t, c + t] only the uniform part remains
    for z in range(n + 1):
        if abs(z - c) > 44:
            assert dist[z] == Fraction(1, 2) / (n + 1)


@given(small_n, st.integers(min_value=1, max_value=6), small_g, st.data())
def test_fastsample_outputs_in_range_monotone_and_rounds(n: int, m: int, g: int,
                                                         data: st.DataObject) -> None:
    mech = fast(n, m, g)
    c = data.draw(st.integers(min_value=0, max_value=n))
    u1 = data.draw(st.integers(min_value=1, max_value=mech.d))
    u2 = data.draw(st.integers(min_value=u1, max_value=mech.d))
    with recording() as events:
        z1 = mech(c, u1)
    assert events.count(("cdf",)) == rounds_brute(n)
    z2 = mech(c, u2)
    assert 0 <= z1 <= z2 <= n
    assert mech.cdf(c, z1) >= u1 and (z1 == 0 or mech.cdf(c, z1 - 1) < u1)


@given(st.integers(min_value=1, max_value=3000), st.data())
def test_rounds_for_every_c_and_u_large_n(n: int, data: st.DataObject) -> None:
    mech = fast(n, 2, 8)
    c = data.draw(st.integers(min_value=0, max_value=n))
    f = mech.cdf(c, c)
    u = data.draw(st.sampled_from([1, 2, mech.d // 3, mech.d - 1, mech.d, f, min(f + 1, mech.d)]))
    with recording() as events:
        mech(c, u)
    assert events == [("cdf",)] * rounds_brute(n)


# ---------------------------------------------------------------- eps~ (Theorem 4.7)


def ln1p_bounds(h: Fraction, terms: int = 8) -> tuple[Fraction, Fraction]:
    """Exact bounds on ln(1 + h), 0 < h <= 1/2: consecutive partial sums of the alternating
    series h - h**2/2 + h**3/3 - ... bracket it."""
    total, sums = Fraction(0), []
    for i in range(1, terms + 1):
        total += (-1) ** (i + 1) * h**i / i
        sums.append(total)
    return min(sums[-2:]), max(sums[-2:])


@given(st.one_of(st.integers(min_value=1, max_value=10**9), st.just(2**200 + 1),
                 st.integers(min_value=1, max_value=2**300)))
def test_eps_tilde_in_four_ninths_eps_to_eps(m: int) -> None:
    # Theorem 4.7: eps~ = 2 ln(1 + 2**-k) lies in (4/9 eps, eps], eps = 1/m.
    k = geosample_k(Fraction(1, m))
    assert 2**k >= 2 * m > 2 ** (k - 1)
    lo, hi = ln1p_bounds(Fraction(1, 2**k))
    assert 2 * lo > Fraction(4, 9 * m)
    assert 2 * hi <= Fraction(1, m)


# ---------------------------------------------------------------- huge parameters


def test_geosample_too_large_refused_quickly() -> None:
    start = time.perf_counter()
    with pytest.raises(ResourceLimitError, match="bits"):
        GeoSample(10**9, Fraction(1, 10))
    assert time.perf_counter() - start < 1


HUGE_M = 2**200 + 1  # eps = 1/(2**200 + 1)


def test_huge_epsilon_k_and_t_exact() -> None:
    start = time.perf_counter()
    g = 2**40
    mech = FastSample(10**6, Fraction(1, HUGE_M), Fraction(1, g))
    assert mech.k == 202 == k_brute(HUGE_M)
    # L = ceil(log2(8 (n+1) (g - 1) m)) and t = ceil(9 m L / 2) - 1, typed from the paper.
    L = ceil_log2_brute(Fraction(8 * (10**6 + 1) * (g - 1) * HUGE_M))
    assert mech.t == math.ceil(Fraction(9 * HUGE_M * L, 2)) - 1
    assert fast_params(10**6, HUGE_M, g)[2] == mech.t
    geo_mech = GeoSample(3, Fraction(1, HUGE_M))
    assert geo_mech.k == 202
    assert time.perf_counter() - start < 2


def test_huge_epsilon_geosample_exact_and_samples() -> None:
    mech = GeoSample(3, Fraction(1, HUGE_M))
    assert mech.d == (2**203 + 1) * (2**202 + 1) ** 2
    for c in range(4):
        assert as_list(counting_distribution(mech, c), 3) == geosample_expected(3, HUGE_M, c)
    with pytest.warns(UserWarning):
        src = SeededSource(7)
    draws = [mech.sample(c, src) for c in range(4) for _ in range(5)]
    assert all(0 <= z <= 3 for z in draws)


def test_huge_epsilon_fastsample_refuses_d_prime_quickly() -> None:
    mech = FastSample(3, Fraction(1, HUGE_M), Fraction(1, 2))
    for action in (lambda: mech.d_prime, lambda: mech.d, lambda: mech.cdf(1, 1),
                   lambda: mech.sample(1), lambda: mech(1, 1)):
        start = time.perf_counter()
        with pytest.raises(ResourceLimitError, match="bits"):
            action()
        assert time.perf_counter() - start < 1


# ---------------------------------------------------------------- accuracy (Thm 4.7, 4.10)


def least_power(base: Fraction, target: Fraction) -> int:
    a, power = 0, Fraction(1)
    while power < target:
        power *= base
        a += 1
    return a


@given(small_m, st.fractions(min_value=Fraction(1, 10**4), max_value=1, max_denominator=10**4))
def test_geosample_paper_accuracy_vs_brute_force(m: int, beta: Fraction) -> None:
    k = k_brute(m)
    # a = ceil(2/eps~ ln(1/beta)) with 2/eps~ = 1/ln(1 + 2**-k): least a with
    # ((2**k + 1)/2**k)**a >= 1/beta.
    assert geo(3, m).paper_accuracy(beta) == least_power(Fraction(2**k + 1, 2**k), 1 / beta)


@given(small_m, small_g, st.fractions(min_value=Fraction(1, 10**4), max_value=1,
                                      max_denominator=10**4))
def test_fastsample_paper_accuracy_vs_brute_force(m: int, g: int, beta: Fraction) -> None:
    gamma = Fraction(1, g)
    mech = FastSample(3, Fraction(1, m), gamma)
    k = k_brute(m)
    if beta <= gamma:
        with pytest.raises(ParameterError, match="gamma"):
            mech.paper_accuracy(beta)
        return
    expected = least_power(Fraction(2**k + 1, 2**k), 1 / (beta - gamma))
    assert mech.paper_accuracy(beta) == expected


@pytest.mark.parametrize(("n", "m"), [(6, 1), (9, 2), (8, 4)])
@pytest.mark.parametrize("beta", [Fraction(1, 2), Fraction(1, 10), Fraction(1, 100)])
def test_paper_accuracy_is_valid_for_geosample(n: int, m: int, beta: Fraction) -> None:
    # Theorem 4.7 i: (a, beta)-accuracy with the paper's a, so the exact least a is <= it.
    mech = geo(n, m)
    dists = [dict(enumerate(geosample_expected(n, m, c))) for c in range(n + 1)]
    assert exact_accuracy(dists, beta).a <= mech.paper_accuracy(beta)


@pytest.mark.parametrize("beta", [Fraction(1, 2), Fraction(1, 5)])
def test_paper_accuracy_is_valid_for_fastsample(beta: Fraction) -> None:
    n, m, g = 8, 2, 16
    mech = fast(n, m, g)
    dists = [dict(enumerate(fastsample_expected(n, m, g, c))) for c in range(n + 1)]
    assert exact_accuracy(dists, beta).a <= mech.paper_accuracy(beta)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: GeoSample(3, 0.5), FloatParameterError),
        (lambda: GeoSample(3, Fraction(2, 3)), NotInverseIntegerError),
        (lambda: GeoSample(3, 2), NotInverseIntegerError),
        (lambda: GeoSample(3, 0), ParameterError),
        (lambda: GeoSample(0, 1), ParameterError),
        (lambda: GeoSample(-2, 1), ParameterError),
        (lambda: GeoSample(2.0, 1), FloatParameterError),
        (lambda: GeoSample("2.5", 1), ParameterError),
        (lambda: GeoSample(True, 1), ParameterTypeError),
        (lambda: FastSample(3, 1, 1), ParameterError),
        (lambda: FastSample(3, 1, 2), ParameterError),
        (lambda: FastSample(3, 1, 0.5), FloatParameterError),
        (lambda: FastSample(3, 0.5, Fraction(1, 2)), FloatParameterError),
        (lambda: FastSample(3, 1, Fraction(2, 3)), NotInverseIntegerError),
        (lambda: FastSample(0, 1, Fraction(1, 2)), ParameterError),
    ],
)
def test_bad_construction(make: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        make()  # type: ignore[operator]


def test_gamma_one_message() -> None:
    # Paper slip (Algorithm 4.11 takes gamma in N^{-1}, which contains 1): for gamma = 1
    # the argument of t's logarithm, 8(n+1)(1 - gamma)/(eps gamma), is 0, so t is
    # undefined.  The implementation requires gamma < 1 and says why.
    assert 8 * (3 + 1) * (1 - Fraction(1)) / (Fraction(1) * Fraction(1)) == 0
    with pytest.raises(ParameterError, match="gamma = 1"):
        FastSample(3, 1, 1)


@pytest.mark.parametrize("mech", [GeoSample(4, Fraction(1, 2)), FastSample(4, 1, Fraction(1, 2))])
def test_bad_call_arguments(mech: InverseCDFSampler) -> None:
    d = mech.d
    for c in (-1, 5):
        with pytest.raises(DomainError, match="c = "):
            mech(c, 1)
        with pytest.raises(DomainError):
            mech.sample(c)
        with pytest.raises(DomainError):
            mech.draw(c)
    for c_bad in (True, 1.0, Fraction(1)):
        with pytest.raises(ParameterTypeError):
            mech(c_bad, 1)  # type: ignore[arg-type]
    for u in (0, -1, d + 1):
        with pytest.raises(DomainError, match="u = "):
            mech(2, u)
    for u_bad in (True, 1.0, Fraction(1)):
        with pytest.raises(ParameterTypeError, match="u = "):
            mech(2, u_bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("beta", [0, -1, 2, Fraction(3, 2)])
def test_bad_beta(beta: object) -> None:
    with pytest.raises(ParameterError, match="beta"):
        geo(3, 1).paper_accuracy(beta)
    with pytest.raises(ParameterError, match="beta"):
        fast(3, 1, 2).paper_accuracy(beta)


def test_float_beta() -> None:
    with pytest.raises(FloatParameterError):
        geo(3, 1).paper_accuracy(0.1)


def test_truncated_geosample_is_z_prime() -> None:
    mech = fast(5, 2, 4)
    trunc = mech.truncated()
    assert isinstance(trunc, TruncatedGeoSample)
    assert trunc.n == 5 and trunc.d == mech.d_prime
    for c in range(6):
        assert [trunc.cdf(c, z) for z in range(6)] == [mech.truncated_cdf(c, z) for z in range(6)]


@pytest.mark.parametrize(("n", "m", "g"), [(3, 1, 2), (6, 2, 4), (5, 3, 8)])
def test_fastsample_without_power_table(n: int, m: int, g: int,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # Large t computes powers on demand instead of from a table: same exact CDF.
    from exactdp import fastsample

    assert fast(n, m, g)._powers is not None  # the default path uses the table
    monkeypatch.setattr(fastsample, "POWER_TABLE_BITS", 0)
    mech = FastSample(n, Fraction(1, m), Fraction(1, g))
    assert mech._powers is None  # and this one does not
    for c in range(n + 1):
        cum = Fraction(0)
        for z, p in enumerate(truncated_expected(n, m, g, c)):
            cum += p
            assert Fraction(mech.truncated_cdf(c, z), mech.d_prime) == cum
