# The tables pass wrong types on purpose (a bool for an int, a list for a Dataset, ...):
# mypy: disable-error-code="arg-type, call-arg, list-item, misc, return-value, type-var"
"""Domain tables of ``def_2_04_domains`` for the histogram algorithms (Sections 5, 6, 8 and
the order statistics of Section 6.2).

Every guard (``if bad: raise``) of ``exactdp/histograms/basic.py``, ``sparse.py``,
``orderstats.py`` and ``compact.py`` has its cases here: inputs just outside the domain and
the boundary values just inside it, with results computed here independently.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from exactdp.checker import FixedSource
from exactdp.counting import FastSample, GeometricMechanism, GeoSample, TabulatedMechanism
from exactdp.explore import explore
from exactdp.histograms import basic, compact, native
from exactdp.histograms.basic import BasicHistogram, StabilityHistogram, check_mechanism
from exactdp.histograms.compact import (
    CompactHistogram,
    CompactRelease,
    EmptyBinSampler,
    SamplerSpec,
)
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.orderstats import (
    BinomialDraw,
    approx_bin_sample,
    approx_conv_exp,
    approx_ord_sample,
    cdf_values,
    ord_sample,
)
from exactdp.histograms.release_file import InvalidReleaseError
from exactdp.histograms.sparse import (
    KEEP_HEAVY_LIMIT,
    KH_PRIME_MAX_BITS,
    SPARSE_MAX_S_BITS,
    KeepHeavy,
    KHPrime,
    PureSparseHistogram,
    SparseHistogram,
    keep_heaviest,
)
from exactdp.params import (
    DomainError,
    ParameterError,
    ParameterTypeError,
    ResourceLimitError,
)
from exactdp.proofs.balcer_vadhan._domains import Accept, Case, Refuse, min_z, under

__all__ = ["BASIC_SPARSE", "COMPACT", "ORDER_STATISTICS", "native_cases"]

F = Fraction
ROWS = ((1, 3, 4), (0, 1, 4), (0, 0, 4))
T = TabulatedMechanism(ROWS)  # n = 2, d = 4
T2 = TabulatedMechanism([[1, 2], [0, 2]])  # n = 1, d = 2 (2 bits)
U3 = Universe(3)


def _data(size: int, rows: list[int]) -> Dataset:
    return Dataset.of(Universe(size), rows)


BASIC_SPARSE: list[Case] = [
    # check_mechanism: an inverse-CDF counting mechanism over the dataset's n
    Refuse("check_mechanism", "the ideal GeometricMechanism (no integer CDF)",
           lambda: check_mechanism(GeometricMechanism(2, F(1, 2))), ParameterTypeError,
           ("mechanism = ",)),
    Refuse("check_mechanism", "dataset = a list", lambda: check_mechanism(T, [1, 2]),
           ParameterTypeError, ("Dataset",)),
    Refuse("check_mechanism", "a dataset of n = 3 rows for n = 2", lambda: check_mechanism(
        T, _data(3, [1, 2, 3])), ParameterError, ("n = 3 rows", "n = 2")),
    Accept("check_mechanism", "no dataset; a dataset of n = 2 rows", lambda: [
        check_mechanism(T) is T, check_mechanism(T, _data(3, [1, 2])) is T], [True, True]),
    # BasicHistogram (Algorithm 5.1): a Universe, |A| <= MAX_BASIC_BINS, same universe
    Refuse("BasicHistogram", "universe = 3 (an int)", lambda: BasicHistogram(T, 3),
           ParameterTypeError, ("universe = 3",)),
    Refuse("BasicHistogram", "|X| = limit + 1 (MAX_BASIC_BINS lowered to 3)", under(
        basic, "MAX_BASIC_BINS", 3, lambda: BasicHistogram(T, Universe(4))),
        ResourceLimitError, ("|X| = 4", "limit 3")),
    Accept("BasicHistogram", "|X| = limit (MAX_BASIC_BINS lowered to 3)", under(
        basic, "MAX_BASIC_BINS", 3, lambda: BasicHistogram(T, U3).elements), (1, 2, 3)),
    Refuse("BasicHistogram", "|A| = limit + 1 (lowered to 3)", under(
        basic, "MAX_BASIC_BINS", 3, lambda: BasicHistogram(T, Universe(9), [1, 2, 3, 4])),
        ResourceLimitError, ("|A| = 4",)),
    Accept("BasicHistogram", "|A| = limit (lowered to 3)", under(
        basic, "MAX_BASIC_BINS", 3, lambda: BasicHistogram(T, Universe(9), [3, 1, 2, 1])
        .elements), (1, 2, 3)),
    Refuse("BasicHistogram.release", "a dataset over [1, 4] for X = [1, 3]", lambda:
           BasicHistogram(T, U3).release(_data(4, [1, 2])), ParameterError, ("universe",)),
    Accept("BasicHistogram.release", "D = (1, 1), draws u = 1, d, 1: (x, M(c_x, u_x))",
           lambda: BasicHistogram(T, U3).release(_data(3, [1, 1]), FixedSource(1, 4, 1)).bins,
           ((1, min_z(ROWS[2], 1)), (2, min_z(ROWS[0], 4)), (3, min_z(ROWS[0], 1)))),
    # StabilityHistogram (Algorithm 5.4): a Universe, threshold b an int >= 0
    Refuse("StabilityHistogram", "universe = 3 (an int)", lambda: StabilityHistogram(T, 3, 0),
           ParameterTypeError, ("universe = 3",)),
    *(Refuse("StabilityHistogram", f"threshold {b!r}", lambda b=b: StabilityHistogram(
        T, U3, b), ParameterError, ("threshold b = ",)) for b in (True, F(1), -1)),
    Accept("StabilityHistogram", "b = 0 and 1: 2 Pr[M(1, U) > b] = 2 (d - F_1(b)) / d",
           lambda: [StabilityHistogram(T, U3, b).certified_delta() for b in (0, 1)],
           [F(2 * (4 - ROWS[1][b]), 4) for b in (0, 1)]),
    # keep_heaviest (Algorithm 6.1 steps 2-3): at least n + 1 candidates
    Refuse("keep_heaviest", "n = 2, two candidates", lambda: keep_heaviest(
        U3, 2, [(1, 2), (2, 1)], "KeepHeavy"), ParameterError, ("2 candidates", "n + 1 = 3")),
    Accept("keep_heaviest", "n = 2, three candidates: those above the third heaviest",
           lambda: keep_heaviest(U3, 2, [(3, 0), (1, 2), (2, 1)], "KeepHeavy").bins,
           ((1, 2), (2, 1))),
    # KeepHeavy (Algorithm 6.1): n + 1 <= |X| <= KEEP_HEAVY_LIMIT
    Refuse("KeepHeavy", "universe = 3 (an int)", lambda: KeepHeavy(T, 3),
           ParameterTypeError, ("universe = 3",)),
    Refuse("KeepHeavy", "|X| = KEEP_HEAVY_LIMIT + 1", lambda: KeepHeavy(
        T, Universe(KEEP_HEAVY_LIMIT + 1)), ResourceLimitError, (f"limit {KEEP_HEAVY_LIMIT}",)),
    Accept("KeepHeavy", "|X| = KEEP_HEAVY_LIMIT", lambda: KeepHeavy(
        T, Universe(KEEP_HEAVY_LIMIT)).universe.size, KEEP_HEAVY_LIMIT),
    Refuse("KeepHeavy", "|X| = n = 2", lambda: KeepHeavy(T, Universe(2)), ParameterError,
           ("n + 1 = 3", "|X| = 2")),
    Accept("KeepHeavy", "|X| = n + 1 = 2 for GeoSample(1, 1), D = (1,), u = 1 then d: "
                        "M(1, 1) = 0 < M(0, d) = n, so bin 2 alone is heavier than the second",
           lambda: KeepHeavy(GeoSample(1, 1), Universe(2)).release(
               _data(2, [1]), FixedSource(1, GeoSample(1, 1).d)).bins, ((2, 1),)),
    # KH' (Algorithm 6.4): |X| log2 d <= KH_PRIME_MAX_BITS
    Accept("KHPrime", "|X| * 2 bits = KH_PRIME_MAX_BITS exactly (d = 2)", lambda: KHPrime(
        T2, Universe(KH_PRIME_MAX_BITS // 2)).universe.size, KH_PRIME_MAX_BITS // 2),
    Refuse("KHPrime", "one element more", lambda: KHPrime(
        T2, Universe(KH_PRIME_MAX_BITS // 2 + 1)), ResourceLimitError,
        (f"limit {KH_PRIME_MAX_BITS}",)),
    # SparseHistogram (Algorithm 6.21): s = (n^2 + 2n)|X|/delta of at most SPARSE_MAX_S_BITS
    Accept("SparseHistogram", "s = 8 * 8 * 2^b with exactly SPARSE_MAX_S_BITS bits",
           lambda: SparseHistogram(T, Universe(8), F(1, 2**(SPARSE_MAX_S_BITS - 7))).s,
           64 * 2**(SPARSE_MAX_S_BITS - 7)),
    Refuse("SparseHistogram", "s of SPARSE_MAX_S_BITS + 1 bits", lambda: SparseHistogram(
        T, Universe(8), F(1, 2**(SPARSE_MAX_S_BITS - 6))), ResourceLimitError,
        (f"limit {SPARSE_MAX_S_BITS}",)),
    # PureSparseHistogram (Algorithm 6.9): beta_1 < 1; M at most (eps/2, 0)-DP
    Refuse("PureSparseHistogram", "beta_1 = 1", lambda: PureSparseHistogram(
        GeoSample(2, 1), Universe(5), 1, 1), ParameterError, ("beta_1 = 1",)),
    Refuse("PureSparseHistogram", "GeoSample(eps = 1/2) with epsilon = 1/4", lambda:
           PureSparseHistogram(GeoSample(2, F(1, 2)), Universe(5), F(1, 4), F(1, 2)),
           ParameterError, ("epsilon = 1/4",)),
    Accept("PureSparseHistogram", "beta_1 = 1/2, the mechanism's eps equal to epsilon; "
                                  "delta = eps/3 beta_1 (1/(3|X|))^n", lambda: [
        PureSparseHistogram(m, Universe(5), F(1, 2), F(1, 2)).delta
        for m in (GeoSample(2, F(1, 2)), T)], [F(1, 2) / 3 * F(1, 2) * F(1, 15)**2] * 2),
    Refuse("PureSparseHistogram.theorem_6_11", "beta0 = 1 (refused: stricter than the "
                                               "theorem, see the row's note)", lambda:
           PureSparseHistogram.theorem_6_11(Universe(5), 2, 1, 1), ParameterError,
           ("beta0",)),
    Refuse("PureSparseHistogram.theorem_6_11", "counting = 'laplace'", lambda:
           PureSparseHistogram.theorem_6_11(Universe(5), 2, 1, F(1, 2), "laplace"),
           ParameterError, ("counting = 'laplace'",)),
    Accept("PureSparseHistogram.theorem_6_11", "beta0 = 1/2: beta_1 = beta0/4; FastSample's "
                                               "gamma = beta0/(8|X|)", lambda: [
        (h.beta1, getattr(h.mechanism, "gamma", None))
        for h in (PureSparseHistogram.theorem_6_11(Universe(5), 2, 1, F(1, 2), c)
                  for c in ("geosample", "fastsample"))], [(F(1, 8), None), (F(1, 8), F(1, 80))]),
]


def _binomial_cdf(trials: int, num: int, den: int, cap: int) -> list[int]:
    """``d Pr[min(Bin(trials, num/den), cap) <= k]``, k = 0..cap, d = den^trials (lowest
    terms first), from the binomial sum."""
    from math import gcd
    g = gcd(num, den)
    num, den = num // g, den // g
    out = [sum(comb(trials, j) * num**j * (den - num)**(trials - j) for j in range(k + 1))
           for k in range(cap)]
    return out + [den**trials]


ORDER_STATISTICS: list[Case] = [
    # cdf_values (Proposition 6.6): n, d ints >= 1; F: [n] -> [d]_+ non-decreasing, F(n) = d
    Refuse("cdf_values", "n = True", lambda: cdf_values(lambda z: 2, True, 2),
           ParameterTypeError, ("n = True",)),
    Refuse("cdf_values", "n = 0", lambda: cdf_values(lambda z: 2, 0, 2), ParameterError,
           ("n = 0",)),
    Refuse("cdf_values", "d = 0", lambda: cdf_values(lambda z: 0, 1, 0), ParameterError,
           ("d = 0",)),
    Refuse("cdf_values", "F(0) = True", lambda: cdf_values(lambda z: (True, 2)[z], 1, 2),
           ParameterTypeError, ("F(0) = True",)),
    Refuse("cdf_values", "F(0) = 1 as a Fraction", lambda: cdf_values(
        lambda z: (F(1), 2)[z], 1, 2), ParameterTypeError, ("F(0) = ",)),
    Refuse("cdf_values", "F(0) = 0 (not in [d]_+)", lambda: cdf_values(
        lambda z: (0, 2)[z], 1, 2), DomainError, ("F(0) = 0",)),
    Refuse("cdf_values", "F decreasing", lambda: cdf_values(lambda z: (2, 1, 4)[z], 2, 4),
           DomainError, ("F(1) = 1",)),
    Refuse("cdf_values", "F above d", lambda: cdf_values(lambda z: (1, 5, 4)[z], 2, 4),
           DomainError, ("F(1) = 5",)),
    Refuse("cdf_values", "F(n) < d", lambda: cdf_values(lambda z: (1, 2, 3)[z], 2, 4),
           DomainError, ("F(n) = F(2) = 3",)),
    Accept("cdf_values", "n = 1, d = 1; F = (1, 1, 4); F = (4, 4, 4)", lambda: [
        cdf_values(lambda z: 1, 1, 1), cdf_values(lambda z: (1, 1, 4)[z], 2, 4),
        cdf_values(lambda z: 4, 2, 4)], [[1, 1], [1, 1, 4], [4, 4, 4]]),
    # ord_sample (Algorithm 6.7): m an int >= n + 1
    Refuse("ord_sample", "m = True", lambda: ord_sample(lambda z: (1, 2)[z], 1, 2, True),
           ParameterTypeError, ("m = True",)),
    Refuse("ord_sample", "m = n = 1", lambda: ord_sample(lambda z: (1, 2)[z], 1, 2, 1),
           ParameterError, ("m = 1", "n + 1 = 2")),
    Accept("ord_sample", "m = n + 1 = 2, F = (1, 2): both of two fair draws, sorted down",
           lambda: explore(lambda s: ord_sample(lambda z: (1, 2)[z], 1, 2, 2, s)),
           {(0, 0): F(1, 4), (1, 0): F(1, 2), (1, 1): F(1, 4)}),
    # BinomialDraw: trials, cap >= 0; 0 <= num <= den; den >= 1
    *(Refuse("BinomialDraw", f"(trials, num, den, cap) = {a}", lambda a=a: BinomialDraw(*a),
             ParameterError, ("BinomialDraw needs",))
      for a in ((-1, 1, 2, 1), (1, 1, 2, -1), (1, -1, 2, 1), (1, 3, 2, 1), (1, 0, 0, 1))),
    Accept("BinomialDraw", "trials = 0, cap = 0, num = 0, num = den, den = 1", lambda: [
        list(map(BinomialDraw(*a).cdf, range(a[3] + 1))) for a in (
            (0, 1, 3, 2), (2, 1, 3, 0), (2, 0, 3, 2), (2, 3, 3, 2), (2, 1, 1, 2),
            (2, 1, 3, 2))],
        [_binomial_cdf(0, 1, 3, 2), [1], _binomial_cdf(2, 0, 3, 2), _binomial_cdf(2, 3, 3, 2),
         _binomial_cdf(2, 1, 1, 2), _binomial_cdf(2, 1, 3, 2)]),
    # approx_conv_exp (Algorithm 6.16, Proposition 6.15): s, i >= 1; a in [s]^t, t >= 1
    Refuse("approx_conv_exp", "a = ()", lambda: approx_conv_exp([], 1, 4), ParameterError,
           ("t >= 1",)),
    Refuse("approx_conv_exp", "a[0] = True", lambda: approx_conv_exp([True], 1, 4),
           ParameterTypeError, ("a[0] = True",)),
    Refuse("approx_conv_exp", "a[0] = 1 as a Fraction", lambda: approx_conv_exp([F(1)], 1, 4),
           ParameterTypeError, ("a[0] = ",)),
    *(Refuse("approx_conv_exp", f"a[1] = {x} with s = 4", lambda x=x: approx_conv_exp(
        [0, x], 1, 4), DomainError, (f"a[1] = {x}",)) for x in (-1, 5)),
    Refuse("approx_conv_exp", "i = 0", lambda: approx_conv_exp([1], 0, 4), ParameterError,
           ("i = 0",)),
    Refuse("approx_conv_exp", "s = 0", lambda: approx_conv_exp([0], 1, 0), ParameterError,
           ("s = 0",)),
    Refuse("approx_conv_exp", "exponent_rounds = 1 < bitlen(i = 2)", lambda: approx_conv_exp(
        [1, 3], 2, 4, exponent_rounds=1), ParameterError, ("exponent_rounds = 1",)),
    Accept("approx_conv_exp", "a = (s, 0), (0, s) at i = 1; (1, 3) at i = 2: floor((1, 6)/4)"
                              "; i = 0 with no rounds", lambda: [
        approx_conv_exp([4, 0], 1, 4), approx_conv_exp([0, 4], 1, 4),
        approx_conv_exp([1, 3], 2, 4), approx_conv_exp([1, 3], 2, 4, exponent_rounds=2),
        approx_conv_exp([1, 3], 0, 4, exponent_rounds=0)],
        [[4, 0], [0, 4], [1 // 4, 6 // 4], [1 // 4, 6 // 4], [4, 0]]),
    # approx_bin_sample (Algorithm 6.18, Proposition 6.17): q, s >= 1, s >= m, p in [q]
    Refuse("approx_bin_sample", "p = q + 1", lambda: approx_bin_sample(2, 4, 3, 4, 3),
           DomainError, ("p = 4",)),
    Refuse("approx_bin_sample", "s = m - 1", lambda: approx_bin_sample(2, 1, 2, 1, 2),
           ParameterError, ("s = 1", "m = 2")),
    Refuse("approx_bin_sample", "m = -1", lambda: approx_bin_sample(-1, 1, 2, 4, 2),
           ParameterError, ("m = -1",)),
    Refuse("approx_bin_sample", "pad_t = t - 1", lambda: approx_bin_sample(
        2, 1, 2, 4, 2, padded=True, pad_t=1), ParameterError, ("pad_t = 1",)),
    Accept("approx_bin_sample", "p = q (Bin(2, 1) = 2), p = 0, m = 0, s = m, pad_t = t",
           lambda: [explore(lambda s, a=a, k=k: approx_bin_sample(*a, source=s, **k))
                    for a, k in (((2, 3, 3, 4, 3), {}), ((2, 0, 3, 4, 3), {}),
                                 ((0, 1, 2, 4, 2), {}), ((2, 1, 2, 2, 2), {}),
                                 ((2, 3, 3, 4, 3), {"padded": True, "pad_t": 3}))],
           lambda ds: (ds[0] == {2: 1} and ds[1] == {0: 1} and ds[2] == {0: 1}
                       and set(ds[3]) <= {0, 1, 2} and ds[4] == {2: 1})),
    # approx_ord_sample (Algorithm 6.20, Proposition 6.19): m >= n + 1, s >= m, max_m >= m
    Refuse("approx_ord_sample", "s = m - 1", lambda: approx_ord_sample(
        lambda z: (1, 2)[z], 1, 2, 3, 2), ParameterError, ("s = 2", "m = 3", "6.19")),
    Refuse("approx_ord_sample", "m = n", lambda: approx_ord_sample(
        lambda z: (1, 2)[z], 1, 2, 1, 4), ParameterError, ("m = 1",)),
    Refuse("approx_ord_sample", "max_m = m - 1", lambda: approx_ord_sample(
        lambda z: (1, 2)[z], 1, 2, 3, 4, padded=True, max_m=2), ParameterError,
        ("max_m = 2",)),
    Accept("approx_ord_sample", "s = m = n + 1 and max_m = m, F = (d, d): all zeros",
           lambda: [explore(lambda s, p=p: approx_ord_sample(
               lambda z: 2, 1, 2, 2, 2, s, padded=p, max_m=2)) for p in (False, True)],
           [{(0, 0): 1}, {(0, 0): 1}]),
]

T3 = TabulatedMechanism([[2, 3], [0, 3]])  # n = 1, d = 3: level 0 (d0 = 4) is big enough
T3N2 = TabulatedMechanism([[1, 2, 3], [0, 2, 3], [0, 1, 3]])  # n = 2, d = 3
T3N3 = TabulatedMechanism([[1, 2, 3, 3]] * 4)  # n = 3, d = 3
T3N4 = TabulatedMechanism([[1, 2, 3, 3, 3]] * 5)  # n = 4, d = 3


def _algorithm_8_5_f(d0: int, d: int) -> list[int]:
    """Algorithm 8.5 step 2: the first ``r (q + 1)`` values of ``[d0]_+`` go ``q + 1`` at a
    time to ``1, 2, ...``, the rest ``q`` at a time (``d0 = q d + r``), listed in order."""
    q, r = divmod(d0, d)
    return [u for u in range(1, r + 1) for _ in range(q + 1)] + [
        u for u in range(r + 1, d + 1) for _ in range(q)]


def _preimage_by_definition(v: int) -> tuple[int, int]:
    """``S_v = {u0 : M(0, f(u0)) = v}`` for ``T3`` (``F_0 = (2, 3)``) and ``d0 = 4``, as an
    interval ``(min, max)``."""
    us = [u0 for u0, u in enumerate(_algorithm_8_5_f(4, 3), 1) if min_z((2, 3), u) == v]
    return min(us), max(us)


def _conditioned() -> tuple[int, int]:
    h = CompactHistogram(Universe(4), T3N2, 0).sample_conditioned({1: 0, 4: 2})
    return h.evaluate(1), h.evaluate(4)


def native_cases() -> tuple[list[Case], str]:
    """The cases of ``arithmetic = 'native'`` for the path this machine runs, and a note for
    the row's grid.  With the compiled kernel: its 8-word boundary (nodes in GF(2^486) served,
    GF(2^1458) refused).  Without it (no C compiler, ``EXACTDP_NATIVE=0``): asking for
    ``'native'`` must be refused with the kernel's status, even where the boundary would allow
    it; the boundary itself is then not exercised, and the note says so."""
    if native.available():
        return [
            Refuse("CompactHistogram", "arithmetic = 'native' for nodes in GF(2^1458)",
                   lambda: CompactHistogram(Universe(2**487), T3, 6, arithmetic="native"),
                   ParameterError, ("GF(2^1458)",)),
            Accept("CompactHistogram", "arithmetic = 'native' for nodes in GF(2^486) (8 words)",
                   lambda: CompactHistogram(Universe(2**163), T3, 5,
                                            arithmetic="native").uses_native, True),
        ], "native kernel: " + native.status()
    return [
        Refuse("CompactHistogram", f"arithmetic = 'native' for nodes in GF(2^{2 * 3**level}) "
                                   "without the compiled kernel",
               lambda level=level, bits=bits: CompactHistogram(Universe(2**bits), T3, level,
                                                               arithmetic="native"),
               ParameterError, ("arithmetic = 'native'", f"GF(2^{2 * 3**level})",
                                native.status()))
        for level, bits in ((5, 163), (6, 487))
    ] + [
        Accept("CompactHistogram", "arithmetic = 'auto' without the compiled kernel: the pure "
                                   "path", lambda: CompactHistogram(
                                       Universe(2**163), T3, 5).uses_native, False),
    ], ("native kernel " + native.status().split(" (")[0]
        + ": its 8-word boundary not exercised, the pure path checked")


COMPACT: list[Case] = [
    # SamplerSpec: GeoSample (no gamma) or FastSample (a gamma)
    Refuse("SamplerSpec", "name = 'Laplace'", lambda: SamplerSpec("Laplace", F(1)),
           ParameterError, ("sampler name = 'Laplace'",)),
    Refuse("SamplerSpec", "FastSample without gamma", lambda: SamplerSpec("FastSample", F(1)),
           ParameterError, ("needs gamma",)),
    Refuse("SamplerSpec", "GeoSample with a gamma", lambda: SamplerSpec(
        "GeoSample", F(1), F(1, 2)), ParameterError, ("takes no gamma",)),
    Accept("SamplerSpec", "GeoSample(eps = 1), FastSample(eps = 1, gamma = 1/2)", lambda: [
        str(SamplerSpec("GeoSample", F(1))), str(SamplerSpec("FastSample", F(1), F(1, 2))),
        type(SamplerSpec("FastSample", F(1), F(1, 2)).build(2)) is FastSample],
        ["GeoSample(eps=1)", "FastSample(eps=1, gamma=1/2)", True]),
    # EmptyBinSampler (Lemma 8.4, Algorithm 8.5): a counting mechanism, d0 >= 4d/3
    Refuse("EmptyBinSampler", "mechanism = 3", lambda: EmptyBinSampler(3, 4),
           ParameterTypeError, ("mechanism = 3",)),
    Refuse("EmptyBinSampler", "d = 3, d0 = 3 < 4d/3", lambda: EmptyBinSampler(T3, 3),
           ParameterError, ("d0 >= 4d/3", "d0 = 3")),
    Accept("EmptyBinSampler", "d = 3, d0 = 4 = 4d/3: f of Algorithm 8.5 on [d0]_+",
           lambda: EmptyBinSampler(T3, 4),
           lambda e: [e.f(u) for u in range(1, 5)] == _algorithm_8_5_f(4, 3)),
    *(Refuse("EmptyBinSampler.f", f"u0 = {u!r}", lambda u=u: EmptyBinSampler(T3, 4).f(u),
             err, (f"u0 = {u!r}" if err is ParameterTypeError else f"u0 = {u}",))
      for u, err in ((True, ParameterTypeError), (F(1), ParameterTypeError),
                     (0, DomainError), (5, DomainError))),
    Accept("EmptyBinSampler.f", "u0 = 1 and d0 = 8 (d = 3: q = 2, r = 2)",
           lambda: EmptyBinSampler(T3, 8), lambda e: [e.f(1), e.f(8)] == [
               _algorithm_8_5_f(8, 3)[0], _algorithm_8_5_f(8, 3)[-1]]),
    Refuse("EmptyBinSampler.preimage", "v = 0 of probability 0 (F_0 = (0, 3))", lambda:
           EmptyBinSampler(TabulatedMechanism([[0, 3], [0, 3]]), 4).preimage(0), DomainError,
           ("probability 0",)),
    Accept("EmptyBinSampler.preimage", "S_0 = [1, 3] and the one-point S_1 = [4, 4]",
           lambda: [EmptyBinSampler(T3, 4).preimage(v) for v in (0, 1)],
           [_preimage_by_definition(v) for v in (0, 1)]),
    # CompactHistogram (Algorithm 8.2): d0 >= |X|; strict mode d0 >= n + 1; arithmetic
    Refuse("CompactHistogram", "|X| = 5 > d0 = 4", lambda: CompactHistogram(
        Universe(5), T3, 0), ParameterError, ("|X| = 5",)),
    Refuse("CompactHistogram", "strict, n + 1 = 5 > d0 = 4", lambda: CompactHistogram(
        Universe(4), T3N4, 0), ParameterError, ("n + 1 = 5",)),
    Accept("CompactHistogram", "|X| = d0 = 4; strict with n + 1 = d0; n + 1 > d0 when not "
                               "strict", lambda: [CompactHistogram(Universe(4), m, 0,
                                                                   strict_time=s).n
                                                  for m, s in ((T3, True), (T3N3, True),
                                                               (T3N4, False))], [1, 3, 4]),
    Refuse("CompactHistogram", "arithmetic = 'fast'", lambda: CompactHistogram(
        Universe(4), T3, 0, arithmetic="fast"), ParameterError, ("arithmetic = 'fast'",)),
    Accept("CompactHistogram.with_geosample", "|X| = 4, n = 1, eps = 1 needs level 2 "
                                              "(30 d/eps' = 540 <= 2^(2*3^2)); MAX_LEVEL "
                                              "lowered to 2", under(
        compact, "MAX_LEVEL", 2, lambda: CompactHistogram.with_geosample(
            Universe(4), 1, 1).field.level), 2),
    Refuse("CompactHistogram.with_geosample", "MAX_LEVEL lowered to 1", under(
        compact, "MAX_LEVEL", 1, lambda: CompactHistogram.with_geosample(Universe(4), 1, 1)),
        ResourceLimitError, ("level 2",)),
    Refuse("CompactHistogram.release", "dataset = a list", lambda: CompactHistogram(
        Universe(4), T3, 0).release([1]), ParameterTypeError, ("Dataset",)),
    Refuse("CompactHistogram.release", "n = 2 rows for n = 1", lambda: CompactHistogram(
        Universe(4), T3, 0).release(_data(4, [1, 2])), ParameterError, ("n = 2 rows",)),
    Refuse("CompactHistogram.release", "a dataset over [1, 3] for X = [1, 4]", lambda:
           CompactHistogram(Universe(4), T3, 0).release(_data(3, [2])), ParameterError,
           ("universe [1, 3]",)),
    Accept("CompactHistogram.release", "D = (4,): n + 1 coefficients, every h_x in [0, n]",
           lambda: CompactHistogram(Universe(4), T3, 0).release(_data(4, [4])),
           lambda r: (len(r.coefficients) == 2
                      and {r.evaluate(x) for x in range(1, 5)} <= {0, 1})),
    Refuse("CompactHistogram.sample_conditioned", "n + 1 = 3 values for n = 2", lambda:
           CompactHistogram(Universe(4), T3N2, 0).sample_conditioned({1: 0, 2: 0, 3: 0}),
           ParameterError, ("at most n = 2",)),
    Accept("CompactHistogram.sample_conditioned", "n = 2 values at x = 1 and x = |X|: "
                                                  "h_x equals them (Lemma 8.1 iv)",
           _conditioned, (0, 2)),
    # CompactRelease: n + 1 coefficients; evaluate at x in [1, M]
    Refuse("CompactRelease", "n = 1 with one coefficient", lambda: CompactRelease(
        4, 1, 0, (0,), T3), InvalidReleaseError, ("n + 1 = 2", "got 1")),
    Accept("CompactRelease", "the constant polynomial 0 (n + 1 = 2 coefficients): the same "
                             "h_x at x = 1..4", lambda: len({CompactRelease(
                                 4, 1, 0, (0, 0), T3).evaluate(x) for x in range(1, 5)}), 1),
    *(Refuse("CompactRelease.evaluate", f"x = {x!r}", lambda x=x: CompactRelease(
        4, 1, 0, (0, 0), T3).evaluate(x), err,
        (f"x = {x!r}" if err is ParameterTypeError else f"x = {x}",))
      for x, err in ((True, ParameterTypeError), (F(1), ParameterTypeError),
                     (0, DomainError), (5, DomainError))),
]
