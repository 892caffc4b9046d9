"""Lemma 8.4: the empty-bin sampler M0 of Algorithm 8.5."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.certified import exp_lower_bound_at_least
from exactdp.checker import counting_distribution
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler, TabulatedMechanism
from exactdp.explore import explore
from exactdp.histograms.compact import EmptyBinSampler
from exactdp.histograms.fields import MAX_LEVEL, VanLintField
from exactdp.params import ParameterError
from exactdp.proofs.balcer_vadhan._compact import ENUMERATE_D0, m0_distribution, m0_thresholds

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
Checks.  The thresholds T_z = max{u0 : f(u0) <= F_M(z)} are derived in the proof from f's
definition ((q+1)u if r != 0 and u <= r, else qu + r, at u = F_M(z) read off M), never from
the sampler's own cdf, which is compared with them.  (i) M0 is called on every u0 where
the row says "every u0".  Elsewhere (huge d0) the block argument: by Algorithm 8.5, M0 =
M(0, f(.)) with f non-decreasing and M(0, .) non-decreasing (Theorem 4.7 iv / 4.10 v rows)
is constant = z on each block (T_{z-1}, T_z], so it is non-decreasing; M0 is called at both
ends of every non-empty block and at both ends of f's pieces, and must return the block's z.
That argument trusts M0 = M(0, f(.)) strictly inside the blocks of a huge field (no finite
set of calls can check a black box there); the enumerated cases, including GF(2^18), check
it on every u0.  (ii), (iii): M0's distribution (every u0, or the confirmed blocks) is
compared with M(0, U)'s (read off M); the ratio bounds are certified with rational bounds
on e^x.  (v): S_v's sampler is run under the exploring source and compared with the
uniform distribution on the u0 that M0 maps to v."""


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


def _field(d0: int) -> str:
    return f"GF({d0})" if d0 <= 64 else f"GF(2^{d0.bit_length() - 1})"


@dataclass(frozen=True)
class _Spec:
    family: str  # "table", "GeoSample" or "FastSample"
    params: str  # the mechanism's parameters, e.g. "(2, 1/3)"
    mech: InverseCDFSampler
    d0: int
    enumerate: bool  # call M0 on every u0 (else the block argument)
    text: str


#: GeoSample (n, eps) whose M0 on GF(2^18) the quick grid enumerates (the full grid: all).
_ENUMERATE_2_18_QUICK = {(2, Fraction(1)), (3, Fraction(1, 3))}
_MAX_D = {False: 4, True: 9}


def _cases(full: bool) -> list[_Spec]:
    """Every table row for c = 0 with n <= 2 and d <= 4 (full: 9), every d0 in
    [ceil(4d/3), 4d + 3]; GeoSample n <= 3, eps in {1, 1/2, 1/3} on GF(64) (where d0 >= 4d/3),
    GF(2^18) and GF(2^54); FastSample on the two smallest fields with d0 >= 4d/3."""
    out = []
    for n in (1, 2):
        for d in range(1, _MAX_D[full] + 1):
            for row in _rows(n, d):
                table = TabulatedMechanism([row] * (n + 1))
                for d0 in range(-(-4 * d // 3), 4 * d + 4):
                    out.append(_Spec("table", str(list(row)), table, d0, True,
                                      f"table F_0={list(row)}"))
    for n in (1, 2, 3):
        for eps in (Fraction(1), Fraction(1, 2), Fraction(1, 3)):
            geo = GeoSample(n, eps)
            for level in (1, 2, 3):
                d0 = VanLintField(level).order
                if 3 * d0 >= 4 * geo.d:
                    every = d0 <= ENUMERATE_D0 or (
                        level == 2 and (full or (n, eps) in _ENUMERATE_2_18_QUICK))
                    out.append(_Spec("GeoSample", f"({n}, {eps})", geo, d0, every,
                                      f"GeoSample(n={n}, eps={eps})"))
    fasts = [(1, Fraction(1), Fraction(1, 2)), (2, Fraction(1, 2), Fraction(1, 4))]
    if full:
        fasts += [(3, Fraction(1), Fraction(1, 10)), (5, Fraction(1, 3), Fraction(1, 100))]
    for n, eps, gamma in fasts:
        fmech = FastSample(n, eps, gamma)
        level = next(lv for lv in range(MAX_LEVEL + 1)
                     if 3 * VanLintField(lv).order >= 4 * fmech.d)
        for lv in (level, level + 1):
            d0 = VanLintField(lv).order
            out.append(_Spec("FastSample", f"({n}, {eps}, {gamma})", fmech, d0, False,
                             f"FastSample(n={n}, eps={eps}, gamma={gamma})"))
    return out


@dataclass(frozen=True)
class _Case:
    spec: _Spec
    n: int
    d: int
    d0: int
    sampler: EmptyBinSampler
    p: dict[int, Fraction]  # dist(M(0, U)), read off M
    p0: dict[int, Fraction]  # dist(M0(U0)), read off M0
    monotone: bool  # every u0 seen non-decreasing, or every block end confirmed
    cdf_ok: bool  # EmptyBinSampler.cdf == T_z (derived from Algorithm 8.5) for every z
    mass_ok: bool  # M0's distribution puts T_z - T_{z-1} values u0 on z
    blocks: int  # non-empty blocks (T_{z-1}, T_z]

    @property
    def text(self) -> str:
        return self.spec.text


_RESULTS: dict[bool, list[_Case]] = {}


def _evaluate(full: bool) -> list[_Case]:
    """One record per case: M's and M0's distributions and the facts checked."""
    if full in _RESULTS:
        return _RESULTS[full]
    out = []
    for spec in _cases(full):
        mech, d0 = spec.mech, spec.d0
        sampler = EmptyBinSampler(mech, d0)
        p = {z: w for z, w in counting_distribution(mech, 0).items() if w}
        p0, monotone, _ = m0_distribution(sampler, d0 if spec.enumerate else 0)
        ts = m0_thresholds(sampler)
        cdf_ok = all(sampler.cdf(z) == t for z, t in enumerate(ts))
        cumulative = Fraction(0)
        mass_ok = True
        for z, t in enumerate(ts):
            cumulative += p0.get(z, Fraction(0)) * d0
            mass_ok = mass_ok and cumulative == t
        blocks = sum(1 for z, t in enumerate(ts) if t > (ts[z - 1] if z else 0))
        out.append(_Case(spec, mech.n, mech.d, d0, sampler, p, p0, monotone, cdf_ok, mass_ok,
                         blocks))
    _RESULTS[full] = out
    return out


def _join(items: list[str]) -> str:
    return ", ".join(dict.fromkeys(items))


def _families(specs: list[_Spec]) -> str:
    """GeoSample / FastSample settings grouped by the fields they ran on."""
    parts = []
    for family, names in (("GeoSample", "(n, eps)"), ("FastSample", "(n, eps, gamma)")):
        fields: dict[str, list[str]] = {}
        for s in specs:
            if s.family == family:
                fields.setdefault(s.params, []).append(_field(s.d0))
        groups: dict[str, list[str]] = {}
        for params, fs in fields.items():
            groups.setdefault(_join(fs), []).append(params)
        if groups:
            parts.append(f"{family} {names} = " + "; ".join(
                f"{_join(ps)} on {fs}" for fs, ps in groups.items()))
    return "; ".join(parts)


def _tables(full: bool) -> str:
    tables = len({s.params for s in _cases(full) if s.family == "table"})
    return (f"{tables} tables (every c=0 CDF row with n in {{1,2}}, d <= {_MAX_D[full]}) x "
            f"every d0 in [ceil(4d/3), 4d+3]")


def _grid(full: bool) -> str:
    return f"{_tables(full)}; {_families(_cases(full))}"


def check_i(full: bool) -> ClaimReport:
    certs = []
    results = _evaluate(full)
    for r in results:
        how = "every u0" if r.spec.enumerate else (
            f"block argument: both ends of {r.blocks} blocks and of f's pieces")
        certs.append(Certificate(
            "Lemma 8.4 (i)", f"M0 for {r.text}", {"d": r.d, "d0": r.d0}, how, None,
            "M0 non-decreasing; cdf and distribution match T_z of Algorithm 8.5",
            r.monotone and r.cdf_ok and r.mass_ok,
            {"monotone": r.monotone, "cdf_method_matches": r.cdf_ok,
             "masses_match": r.mass_ok}))
    enumerated = [r.spec for r in results if r.spec.enumerate and r.spec.family != "table"]
    blockwise = [r.spec for r in results if not r.spec.enumerate]
    fails = sum(1 for c in certs if not c.verdict)
    grid = (f"M0 called on every u0: {_tables(full)}; {_families(enumerated)}.  Block argument "
            f"(M0 called at both ends of every block and of f's pieces): {_families(blockwise)}")
    return ClaimReport(
        "Lemma 8.4 (i)", grid,
        f"{len(certs) - fails} of {len(certs)} samplers non-decreasing with cdf == T_z "
        f"(T_z derived from Algorithm 8.5 and F_M)",
        "M0 non-decreasing; F_M0(z) = T_z = max{u0 : f(u0) <= F_M(z)}", certs)


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
        # M0 on every u0 of the small fields, called once here for every v below
        m0 = list(map(sampler, range(1, d0 + 1))) if d0 <= 1 << 12 else []
        for v in r.p0:
            lo, hi = sampler.preimage(v)
            ok = ok and sampler(lo) == v and sampler(hi) == v
            ok = ok and (lo == 1 or sampler(lo - 1) < v) and (hi == d0 or sampler(hi + 1) > v)
            if d0 <= 1 << 12:
                got = explore(partial(sampler.sample_preimage, v))
                members = [u0 for u0, z in enumerate(m0, 1) if z == v]
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
