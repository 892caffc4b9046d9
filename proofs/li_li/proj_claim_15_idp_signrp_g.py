"""Theorem 6.1: iDP-SignRP-G (Algorithm 9) and its OPORP
variant are (eps, delta)-iDP at u whenever the noise release x_A + G is (eps, delta)-DP at
the sensitivity of x_A; checked on the implementation's exact law, frozen at every reference."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import hockey_stick
from exactdp.neighbours import vector_neighbours, vectors
from exactdp.noise_tables import NoiseTable, discrete_gaussian_table
from exactdp.projections.check import check_idp, explored_law
from exactdp.projections.idp_gauss import IDPSignOPORPG, IDPSignRPG
from exactdp.proofs.li_li._proj import NOTES_PLAN, cert

CLAIM = "Li & Li Thm 6.1: iDP-SignRP-G (Alg 9) and iDP-SignOPORP-G are (eps, delta)-iDP"
STATEMENT = """Theorem 6.1: Algorithm 9 (A = {j : |x_j| <= beta max_i |W_ij|} by Algorithm 10, Gaussian
noise G on x_A calibrated to Delta_2 of x_A, release sign(x_j) outside A and sign(x_j + G_j)
inside) is (eps, delta)-iDP at u: for every neighbour u' both Pr[M(u) in O] <= e^eps
Pr[M(u') in O] + delta and the reverse, the parameters A and G being those computed at u.
Section 6 replaces the dense projection by OPORP (iDP-SignOPORP).  Here e^eps = R = 2 and
delta = 1/6; the noise is a discrete Gaussian table q^(z^2) on [-4, 4]."""
PROOF_IDEA = """From the implementation: IDPSignRPG.calibrate(u, W, 1, noise_for) (W the 3 x 3 ±1 matrix of
the iDP-RR row) and IDPSignOPORPG.calibrate(u, plan, 1, noise_for) (the reference plan (2,0,3,1), (1,-1,-1,1), p = 4,
k = 2); noise_for(Delta_2^2) takes the first q in (1/2, 2/3, 3/4, 4/5, 5/6, 9/10) whose
Delta_2^2-fold product table has exact delta(R) <= 1/6 at the all-ones shift (every ±1 shift
has the same delta by symmetry).  At every reference u (quick: {-1..1}^p, full: {-2..2}^p)
the implementation's law on u and on each one-coordinate neighbour (exploring source) must
equal the closed form (bit j in A is +1 with Pr[G >= -x_j]), the checker's frozen delta(R)
over both directions must be <= the exact delta(R) of the noise release x_A + G over the same
pairs (computed here from the table's pmf), and that <= 1/6.  The row prints how many
references had a non-empty A (a non-trivial bound); it must be > 0."""

RATIO = Fraction(2)
TARGET = Fraction(1, 6)
TAIL = 4
QS = (Fraction(1, 2), Fraction(2, 3), Fraction(3, 4), Fraction(4, 5), Fraction(5, 6),
      Fraction(9, 10))
W = ((1, 1, 1), (1, 1, 1), (-1, 1, -1))
BETA = 1

Law = dict[Any, Fraction]


@cache
def table(q: Fraction) -> NoiseTable:
    return discrete_gaussian_table(q, TAIL)


def noise_release_law(x: tuple[int, ...], noise: NoiseTable) -> Law:
    """The law of ``x + G`` for independent ``G_j`` with the table's pmf (closed form)."""
    law: Law = {}
    items = list(noise.law().items())
    for zs in product(items, repeat=len(x)):
        out = tuple(xj + z for xj, (z, _) in zip(x, zs))
        pr = Fraction(1)
        for _, pz in zs:
            pr *= pz
        law[out] = law.get(out, Fraction(0)) + pr
    return law


@cache
def product_delta(q: Fraction, dims: int) -> Fraction:
    """Exact ``delta(R)`` of the ``dims``-fold product table at the all-ones shift."""
    t = table(q)
    return hockey_stick(noise_release_law((0,) * dims, t), noise_release_law((1,) * dims, t),
                        RATIO)


@cache
def shift_delta(noise: NoiseTable, shift: tuple[int, ...]) -> Fraction:
    """Exact ``delta(R)`` of ``x + G`` against ``x + shift + G`` (the same for every ``x``:
    the noise is added)."""
    return hockey_stick(noise_release_law((0,) * len(shift), noise),
                        noise_release_law(shift, noise), RATIO)


def noise_for(sensitivity_sq: int) -> NoiseTable:
    """The first table of ``QS`` whose ``Delta_2^2``-fold product meets ``delta(R) <= 1/6``
    (±1 rows and beta = 1: the shifts of ``x_A`` are ±1 in each of ``Delta_2^2`` places)."""
    for q in QS:
        if product_delta(q, sensitivity_sq) <= TARGET:
            return table(q)
    raise ValueError(f"no table in QS meets delta <= {TARGET} at Delta_2^2 = {sensitivity_sq}")


def sign_law(x: tuple[int, ...], active: frozenset[int], noise: NoiseTable | None) -> Law:
    """Closed form of the frozen release: ``sign(x_j)`` (+1 at 0) outside ``A``; inside,
    +1 with ``Pr[G >= -x_j]``."""
    law: Law = {(): Fraction(1)}
    for j, xj in enumerate(x):
        if noise is not None and j in active:
            up = sum((p for z, p in noise.law().items() if z >= -xj), Fraction(0))
            bit = {1: up, -1: 1 - up}
        else:
            bit = {-1 if xj < 0 else 1: Fraction(1)}
        law = {o + (b,): p * pb for o, p in law.items() for b, pb in bit.items() if pb}
    return law


def family_certificate(name: str, p: int, c: int, calibrate: Callable[[tuple[int, ...]], Any],
                       x_of: Callable[[tuple[int, ...]], tuple[int, ...]]) -> Certificate:
    """Frozen iDP at every reference of ``{-c..c}^p``: explored law = closed form, sign
    delta <= noise delta <= TARGET."""
    explored: dict[tuple[Any, ...], Law] = {}
    mechs: dict[tuple[int, ...], Any] = {}

    def mech_at(u: tuple[int, ...]) -> Any:
        if u not in mechs:
            mechs[u] = calibrate(u)
        return mechs[u]

    def law_factory(ref: tuple[int, ...]) -> Callable[[tuple[int, ...]], Law]:
        mech = mech_at(ref)

        def law(v: tuple[int, ...]) -> Law:
            key = (x_of(v), mech.active, mech.noise)
            if key not in explored:
                explored[key] = explored_law(mech.sample, v)
            return explored[key]
        return law

    worst_sign, worst_noise, nontrivial, failures = Fraction(0), Fraction(0), 0, []
    worst_at: tuple[int, ...] | None = None
    for u in vectors(p, -c, c, BETA).points:
        mech = mech_at(u)
        nbrs = vector_neighbours(u, -c, c, BETA)
        rep = check_idp(law_factory, u, nbrs, RATIO)
        law = law_factory(u)
        closed_ok = all(law(v) == sign_law(x_of(v), mech.active, mech.noise)
                        for v in (u, *nbrs))
        sign_delta = rep.delta.delta if rep.delta else Fraction(0)
        noise_delta = Fraction(0)
        if mech.active:
            nontrivial += 1
            idx = sorted(mech.active)
            xu = x_of(u)
            for v in nbrs:
                xv = x_of(v)
                shift = tuple(xv[j] - xu[j] for j in idx)
                noise_delta = max(noise_delta, shift_delta(mech.noise, shift),
                                  shift_delta(mech.noise, tuple(-d for d in shift)))
        if not (closed_ok and sign_delta <= noise_delta <= TARGET):
            failures.append(u)
        if sign_delta > worst_sign:
            worst_sign, worst_at = sign_delta, u
        worst_noise = max(worst_noise, noise_delta)
    ok = not failures and nontrivial > 0
    return cert(f"{CLAIM} ({name})", f"{name}.calibrate(u, ..., beta=1, noise_for)",
                {"R": RATIO, "delta": TARGET, "beta": BETA, "T": TAIL},
                f"every u in {{-{c}..{c}}}^{p} with its one-coordinate neighbours, both "
                f"directions", worst_sign,
                "sign delta(R) <= noise-release delta(R) <= 1/6 at every reference", ok,
                {"worst_reference": worst_at, "worst_noise_release_delta": worst_noise,
                 "references_with_nonempty_A": nontrivial, "failing_references": failures[:3]},
                note=f"{nontrivial} references had a non-empty A (non-trivial bound)")


def signrp_certificate(full: bool) -> Certificate:
    from exactdp.projections.exact import projections
    return family_certificate("IDPSignRPG", 3, 2 if full else 1,
                              lambda u: IDPSignRPG.calibrate(u, W, BETA, noise_for),
                              lambda v: projections(v, W))


def oporp_certificate(full: bool) -> Certificate:
    from exactdp.projections.exact import oporp_projections
    plan = NOTES_PLAN
    return family_certificate("IDPSignOPORPG", 4, 2 if full else 1,
                              lambda u: IDPSignOPORPG.calibrate(u, plan, BETA, noise_for),
                              lambda v: oporp_projections(v, plan.perm, plan.w, plan.k))


def check(full: bool) -> ClaimReport:
    certs = [signrp_certificate(full), oporp_certificate(full)]
    return ClaimReport(CLAIM, f"R = 2, delta = 1/6, beta = 1, C = {2 if full else 1}",
                       f"worst sign delta {brief(certs[0].worst)} (SignRP), {brief(certs[1].worst)} "
                       f"(OPORP); {certs[0].note}; {certs[1].note}",
                       "<= the noise release's delta <= 1/6", certs)
