"""Lemma 8.4: the empty-bin sampler M0 of Algorithm 8.5."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import exp_lower_bound_at_least
from exactdp.checker import counting_distribution
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.explore import explore
from exactdp.histograms.compact import EmptyBinSampler, TabulatedMechanism
from exactdp.histograms.fields import VanLintField
from exactdp.params import ParameterError
from proofs._compact import m0_distribution

CLAIM = "Lemma 8.4"
STATEMENT = """Let M: [n] x [d]_+ -> [n] be deterministic with M(0, u) non-decreasing in u, and
d0 >= 4d/3.  Then M0(u0) = M(0, f(u0)) (Algorithm 8.5) satisfies: (i) M0 is non-decreasing;
(ii) e^{-2d/d0} Pr[M(0,U) = c] <= Pr[M0(U0) = c] <= e^{d/d0} Pr[M(0,U) = c] for all c, with
M0(U0) ~ M(0,U) when d divides d0; (iii) Pr[M0(U0) <= a] >= Pr[M(0,U) <= a] for all a;
(iv) time O~(log d0) + Time(M); (v) S_v = Unif{u0 : M0(u0) = v} can be sampled in time
O~(log d0) + O(Time(F_M))."""
PROOF_IDEA = """f maps the first r(q+1) values of [d0]_+ (d0 = qd + r) q+1 at a time and the rest
q at a time onto [d]_+, non-decreasingly; so every u has q or q+1 preimages, which gives
(ii) from (q+1)d/d0 <= 1 + d/d0 <= e^{d/d0} and qd/d0 >= 1 - d/d0 >= e^{-2d/d0} (d/d0 <=
3/4), and (iii) because the u with q+1 preimages are the smallest ones.  S_v is the
interval between max{u0 : f(u0) <= F_M(v-1)} + 1 and max{u0 : f(u0) <= F_M(v)}.
Checks: M0's distribution is read off M0 itself (every u0, or thresholds confirmed by calls
for huge d0) and compared with M(0, U)'s (read off M); the ratio bounds are certified with
rational bounds on e^x; S_v's sampler is run under the exploring source and compared with
the uniform distribution on the u0 that M0 maps to v."""


def _rows(n: int, d: int) -> Iterator[tuple[int, ...]]:
    """Every non-decreasing row F(0..n) with F(n) = d (a CDF table row for c = 0)."""
    if n == 0:
        yield (d,)
        return
    def rec(prefix: tuple[int, ...], lo: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == n:
            yield prefix + (d,)
            return
        for f in range(lo, d + 1):
            yield from rec(prefix + (f,), f)
    yield from rec((), 0)


def _cases(full: bool) -> Iterator[tuple[str, InverseCDFSampler, int]]:
    """(description, M, d0): every table row for c = 0 with n <= 2 and d <= D, and every
    d0 in [ceil(4d/3), 4d + 3]; GeoSample on GF(64) and bigger fields; FastSample on
    fields of level 3-4 (d0 = 2^54, 2^162)."""
    max_d = 9 if full else 4
    for n in (1, 2):
        for d in range(1, max_d + 1):
            for row in _rows(n, d):
                table = TabulatedMechanism([row] * (n + 1))
                for d0 in range(-(-4 * d // 3), 4 * d + 4):
                    yield f"table F_0={list(row)}", table, d0
    geos = [(n, Fraction(1, m)) for n in (1, 2, 3) for m in (1, 2, 3)]
    for n, eps in geos:
        geo = GeoSample(n, eps)
        for level in (1, 2, 3):
            d0 = VanLintField(level).order
            if 3 * d0 >= 4 * geo.d:
                yield f"GeoSample(n={n}, eps={eps})", geo, d0
    fasts = [(1, Fraction(1), Fraction(1, 2)), (2, Fraction(1, 2), Fraction(1, 4))]
    if full:
        fasts += [(3, Fraction(1), Fraction(1, 10)), (5, Fraction(1, 3), Fraction(1, 100))]
    for n, eps, gamma in fasts:
        fmech = FastSample(n, eps, gamma)
        for level in (3, 4):
            d0 = VanLintField(level).order
            if 3 * d0 >= 4 * fmech.d:
                yield f"FastSample(n={n}, eps={eps}, gamma={gamma})", fmech, d0


@dataclass(frozen=True)
class _Case:
    text: str
    n: int
    d: int
    d0: int
    sampler: EmptyBinSampler
    p: dict[int, Fraction]  # dist(M(0, U)), read off M
    p0: dict[int, Fraction]  # dist(M0(U0)), read off M0
    monotone: bool
    cdf_ok: bool  # EmptyBinSampler.cdf agrees with the distribution read off M0


_RESULTS: dict[bool, list[_Case]] = {}


def _evaluate(full: bool) -> list[_Case]:
    """One record per case: M's and M0's distributions and the facts checked."""
    if full in _RESULTS:
        return _RESULTS[full]
    out = []
    for text, mech, d0 in _cases(full):
        sampler = EmptyBinSampler(mech, d0)
        p = {z: w for z, w in counting_distribution(mech, 0).items() if w}
        p0, monotone = m0_distribution(sampler)
        cdf_ok = all(sampler.cdf(z) == d0 * sum((p0.get(y, Fraction(0)) for y in range(z + 1)),
                                                Fraction(0)) for z in range(mech.n + 1))
        out.append(_Case(text, mech.n, mech.d, d0, sampler, p, p0, monotone, cdf_ok))
    _RESULTS[full] = out
    return out


def _grid(full: bool) -> str:
    return (f"tables (c=0 rows) n<=2, d<={9 if full else 4}, every d0 in [4d/3, 4d+3]; "
            f"GeoSample n<=3, eps in {{1,1/2,1/3}} on GF(64), GF(2^18), GF(2^54); FastSample "
            f"{'4' if full else '2'} settings on GF(2^54), GF(2^162)")


def check_i(full: bool) -> ClaimReport:
    certs = []
    for r in _evaluate(full):
        certs.append(Certificate(
            "Lemma 8.4 (i)", f"M0 for {r.text}", {"d": r.d, "d0": r.d0},
            "every u0" if r.d0 <= 1 << 16 else "thresholds of every z", None,
            "M0 non-decreasing", r.monotone and r.cdf_ok, {"cdf_method_matches": r.cdf_ok}))
    return ClaimReport("Lemma 8.4 (i)", _grid(full), f"{len(certs)} samplers non-decreasing",
                       "M0 non-decreasing; F_M0 = max{u0 : f(u0) <= F_M} matches", certs)


def check_ii(full: bool) -> ClaimReport:
    """Per c: (q+1)d/d0 >= P0/P >= qd/d0 (the proof's counting), 1 + d/d0 >= P0/P >=
    1 - d/d0, and the certified P0/P <= e^{d/d0}, P/P0 <= e^{2d/d0}; P0 == P when d | d0."""
    certs = []
    hi: tuple[Fraction, str] = (Fraction(-2), "")  # max of (P0/P - 1) / (d/d0)
    lo: tuple[Fraction, str] = (Fraction(2), "")  # min of (P0/P - 1) / (d/d0)
    for r in _evaluate(full):
        d, d0, p, p0 = r.d, r.d0, r.p, r.p0
        q = d0 // d
        x = Fraction(d, d0)
        ok, witness = True, dict[str, object]()
        for c in range(r.n + 1):
            pc, p0c = p.get(c, Fraction(0)), p0.get(c, Fraction(0))
            if pc == 0:
                ok = ok and p0c == 0
                continue
            ratio = p0c / pc
            slack = (ratio - 1) / x
            where = f"{r.text}, d0={d0}, c={c}"
            if slack > hi[0]:
                hi = (slack, where)
            if slack < lo[0]:
                lo = (slack, where)
            counted = q * x <= ratio <= (q + 1) * x and 1 - x <= ratio <= 1 + x
            try:
                exp_lower_bound_at_least(x, ratio)
                exp_lower_bound_at_least(2 * x, 1 / ratio)
            except (ParameterError, ZeroDivisionError):
                counted = False
            if not counted:
                ok, witness = False, {"c": c, "ratio": ratio}
        if d0 % d == 0:
            ok = ok and p0 == p
            witness["equal_distributions"] = p0 == p
        certs.append(Certificate(
            "Lemma 8.4 (ii)", f"M0 for {r.text}", {"d": d, "d0": d0}, "c in [n]", None,
            "qd/d0 <= P0/P <= (q+1)d/d0; e^{-2d/d0} <= P0/P <= e^{d/d0}; P0 == P when d | d0",
            ok, witness))
    exact = sum(1 for r in _evaluate(full) if r.d0 % r.d == 0)
    return ClaimReport(
        "Lemma 8.4 (ii)", _grid(full),
        f"(P0/P - 1)/(d/d0) ranges over [{brief(lo[0])}, {brief(hi[0])}] (min at {lo[1]}; "
        f"max at {hi[1]}); {exact} cases with d | d0: P0 == P exactly",
        "1 - d/d0 <= P0/P <= 1 + d/d0, hence e^{-2d/d0} <= P0/P <= e^{d/d0} (also certified "
        "directly); equality when d | d0", certs)


def check_iii(full: bool) -> ClaimReport:
    certs = []
    smallest_gap: Fraction | None = None
    for r in _evaluate(full):
        p, p0 = r.p, r.p0
        ok = True
        for a in range(r.n + 1):
            gap = (sum((v for z, v in p0.items() if z <= a), Fraction(0))
                   - sum((v for z, v in p.items() if z <= a), Fraction(0)))
            ok = ok and gap >= 0
            if smallest_gap is None or gap < smallest_gap:
                smallest_gap = gap
        certs.append(Certificate(
            "Lemma 8.4 (iii)", f"M0 for {r.text}", {"d": r.d, "d0": r.d0}, "a in [n]",
            None, "Pr[M0 <= a] >= Pr[M(0) <= a]", ok))
    return ClaimReport("Lemma 8.4 (iii)", _grid(full),
                       f"min over cases and a of Pr[M0 <= a] - Pr[M(0) <= a] = {smallest_gap}",
                       ">= 0", certs)


def check_v(full: bool) -> ClaimReport:
    """S_v: explored sampler == uniform on M0's preimage of v (d0 <= 2^12); for larger d0
    the interval's end points are checked against M0 (M0(lo-1) < v = M0(lo) = M0(hi) <
    M0(hi+1))."""
    certs = []
    explored = 0
    for r in _evaluate(full):
        sampler = r.sampler
        d0 = sampler.d0
        ok = True
        for v in r.p0:
            lo, hi = sampler.preimage(v)
            ok = ok and sampler(lo) == v and sampler(hi) == v
            ok = ok and (lo == 1 or sampler(lo - 1) < v) and (hi == d0 or sampler(hi + 1) > v)
            if d0 <= 1 << 12:
                got = explore(partial(sampler.sample_preimage, v))
                members = [u0 for u0 in range(1, d0 + 1) if sampler(u0) == v]
                ok = ok and got == {u0: Fraction(1, len(members)) for u0 in members}
                explored += 1
        certs.append(Certificate(
            "Lemma 8.4 (v)", f"S_v for {r.text}", {"d": r.d, "d0": d0},
            "every v with Pr[M0 = v] > 0", None, "S_v == Unif{u0 : M0(u0) = v}", ok))
    return ClaimReport("Lemma 8.4 (v)", _grid(full),
                       f"{explored} samplers S_v explored exactly equal to uniform; "
                       f"interval end points confirmed by M0 on all",
                       "S_v = Unif{u0 : M0(u0) = v}, 1 draw + 2 F_M evaluations", certs)


CHECKS = [check_i, check_ii, check_iii, check_v]
