"""Convolution noise: the shared ClampedGeometric sampler has exactly
the clamped two-sided geometric law with ratio ``a/b`` -- the Lemma 4.9 analogue of paper 004
for any rational ratio, read off the implementation's own ``M(c, u)``."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import (
    enumerate_distribution,
    statistical_distance,
    threshold_distribution,
    worst_neighbour_ratio,
)
from exactdp.convolution.rows import TabulatedClampedGeometric
from exactdp.counting import GeoSample
from exactdp.noise import ClampedGeometric
from exactdp.proofs.convolution._conv import clamped_geometric_law

CLAIM = "Conv noise: ClampedGeometric law (Lemma 4.9 analogue)"
STATEMENT = """For every rational ratio alpha = a/b in (0, 1), public output range [lo, hi] and centre range
[centre_lo, centre_hi], exactdp.noise.ClampedGeometric's M(c, u) on u uniform in [D]_+ has
exactly the law of clamp(c + Z, lo, hi) with Pr[Z = z] = (1 - alpha)/(1 + alpha) alpha^|z|
(Algorithm 4.8 of Balcer & Vadhan with (2^k, 2^k + 1) -> (a, b)); its integer
CDF is D times the clamped geometric CDF (the Lemma 4.9 analogue); centres one apart are
exactly 1/alpha-indistinguishable; at alpha = 2^k/(2^k + 1) it is GeoSample.  The convolution
releases' fast sampler (exactdp.convolution.rows.TabulatedClampedGeometric: the CDF integers in
one table built by exact multiplications and divisions, read by the same fixed-round search)
has exactly the same law and the same integers, read off its own search."""
PROOF_IDEA = """Lemma 4.9's proof carries over verbatim: F_c(z) = a^(c-v) b^(N+1-(c-v)) below the centre and
D - a^(v-c+1) b^(N-(v-c)) from it, i.e. D r^|j|/(1+r) and D(1 - r^(j+1)/(1+r)).  Check: for every
centre c, the law of the implementation's M(c, .) by the checker's threshold search (and by
enumerating every u when D <= 4096) must equal the law computed independently in proofs/convolution/_conv
(point masses (1-alpha)/(1+alpha) alpha^|v-c| inside, both tails in closed form) with TV = 0;
cdf(c, z) must equal D * Pr[clamp(c + Z) <= lo + z]; the worst ratio over adjacent centres
must be exactly 1/alpha; GeoSample(n, eps) and ClampedGeometric(2^k/(2^k+1), 0, n) must have
identical laws.  Every config with centre range [lo, hi] and lo < hi is checked a second time
on the tabulated sampler (its law by its own M(c, u), its search_cdf against D * CDF).  Power:
tests/test_conv_proofs.py plants a CDF off by one unit, and one table entry off by one."""

# (ratio, lo, hi, centre_lo, centre_hi)
Config = tuple[Fraction, int, int, int | None, int | None]


def _grid(full: bool) -> list[Config]:
    f = Fraction
    out: list[Config] = [
        (f(1, 2), 0, 4, None, None), (f(2, 3), -3, 3, None, None),
        (f(3, 5), 0, 5, -1, 6), (f(1, 4), -2, 2, None, None), (f(5, 7), 0, 3, None, None),
        (f(32, 33), 0, 3, None, None), (f(76, 77), -12, 12, None, None),
    ]
    if full:
        out += [(f(8, 9), -4, 4, None, None), (f(99, 100), 0, 6, None, None),
                (f(1, 3), 0, 8, -2, 10), (f(4, 7), -5, 2, -5, 2), (f(2, 5), 3, 3, 1, 5),
                (f(7, 8), 0, 7, 3, 4), (f(5637, 5711), -40, 40, None, None)]
    return out


def _tabulable(cfg: Config) -> bool:
    """Configs the rows' tabulated sampler serves: centre range = output range, ``lo < hi``."""
    _, lo, hi, centre_lo, centre_hi = cfg
    return centre_lo is None and centre_hi is None and lo < hi


def config_certificate(ratio: Fraction, lo: int, hi: int, centre_lo: int | None,
                       centre_hi: int | None, tabulated: bool = False) -> Certificate:
    mech = (TabulatedClampedGeometric(ratio, lo, hi) if tabulated
            else ClampedGeometric(ratio, lo, hi, centre_lo, centre_hi))
    r = 1 / ratio
    worst_tv = Fraction(0)
    cdf_ok = True
    laws = []
    for c in range(mech.centre_lo, mech.centre_hi + 1):
        expected = {v - lo: p for v, p in clamped_geometric_law(r, lo, hi, c).items()}
        found = threshold_distribution(mech, c)
        worst_tv = max(worst_tv, statistical_distance(found, expected))
        if mech.d <= 4096:
            worst_tv = max(worst_tv, statistical_distance(enumerate_distribution(mech, c),
                                                          expected))
        acc = Fraction(0)
        for z in range(mech.n + 1):
            acc += expected[z]
            cdf_ok = cdf_ok and mech.cdf(c, z) == acc * mech.d == int(mech.search_cdf(c, z))
        laws.append(found)
    ratio_ok = True
    worst = None
    if len(laws) > 1 and mech.n >= 1:
        worst = worst_neighbour_ratio(laws).ratio
        ratio_ok = worst == r
    ok = worst_tv == 0 and cdf_ok and ratio_ok
    return Certificate(
        CLAIM, repr(mech), {"ratio": ratio, "lo": lo, "hi": hi, "D": mech.d},
        f"every centre in [{mech.centre_lo}, {mech.centre_hi}]", worst_tv,
        f"TV = 0; cdf = D * CDF; adjacent-centre ratio = {r}", ok,
        {"adjacent_centre_ratio": worst, "cdf_equal": cdf_ok})


def _geosample_certificate() -> Certificate:
    geo = GeoSample(3, Fraction(1, 16))       # k = 5: ratio 32/33
    cg = ClampedGeometric(Fraction(2 ** geo.k, 2 ** geo.k + 1), 0, 3)
    tv = max(statistical_distance(threshold_distribution(geo, c), threshold_distribution(cg, c))
             for c in range(4))
    same_d = geo.d == cg.d
    return Certificate(CLAIM + ": GeoSample instance", f"{geo!r} vs {cg!r}",
                       {"k": geo.k}, "every centre", tv, "TV = 0 and the same D",
                       tv == 0 and same_d, {"same_D": same_d})


def check(full: bool) -> ClaimReport:
    grid = _grid(full)
    certs = [config_certificate(*cfg) for cfg in grid]
    fast = [config_certificate(*cfg, tabulated=True) for cfg in grid if _tabulable(cfg)]
    certs += fast
    certs.append(_geosample_certificate())
    worst = max(Fraction(c.worst) for c in certs)  # type: ignore[arg-type]
    ratios = ", ".join(brief(cfg[0]) for cfg in grid)
    return ClaimReport(CLAIM, f"ratios {ratios}; every centre of each range; {len(fast)} "
                              f"again on the tabulated sampler; GeoSample k = 5",
                       f"max TV {brief(worst)}", "TV = 0, cdf = D * CDF, ratio 1/alpha", certs)
