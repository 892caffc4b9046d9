"""Algorithm 7 as printed computes L_j = ceil(|x_j|/(beta max_i |W_ij|)) on the SCALED
projection x = W^T u/sqrt(k), while its proof uses the unscaled w_j^T u: still private, but
every level is about sqrt(k) times too small (less utility).  A zero column of W makes the
printed division undefined; the projection is then 0 and the bit a fair coin."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import ClaimReport
from exactdp.neighbours import vectors
from exactdp.projections.exact import projections
from exactdp.projections.signs import DPSignRPSmooth
from exactdp.proofs.li_li._proj import BASE, RHO, Law, cert, laws_of, report, worst_text

CLAIM = "Li & Li Alg 7 level on x/sqrt(k): private but sqrt(k) too coarse; zero column"
SLIP = ('Algorithm 7 divides the scaled projection W^T u/sqrt(k) by beta max_i |W_ij|, while its '
        'proof uses the unscaled one: private, but levels sqrt(k) times too small.')
STATEMENT = """W = ((1,1,1,1), (1,-1,1,-1), (1,1,-1,-1)) (p = 3, k = 4, sqrt(k) = 2), beta = 1, L_max = 3,
rho = 3/2, u in {-2..2}^3.  Proof's level L_j = ceil(|w_j^T u|/beta) (max_i |W_ij| = 1);
printed level ceil(|w_j^T u|/(2 beta)).  Both are rho^k-DP; the printed keep probabilities
are never larger and strictly smaller where |w_j^T u| >= 2.  With a zero column
(W = ((1,0),(1,0),(-1,0))) the printed level divides by 0; the projection is identically 0
and the bit is a fair coin at every u."""
PROOF_IDEA = """The implementation's DPSignRPSmooth (unscaled) and the printed reading (the same class with
units 2 beta max_i |W_ij|) explored at every point of {-2..2}^3: the checker's worst ratio
over one-coordinate pairs <= rho^4 for both; each bit's marginal keep probability from the
explored laws must equal a^L/(a^L + b^L) at the proof's level ceil(|w_j^T u|/beta)
(computed here, not by the implementation) for the implementation, and must fall short of
it somewhere for the printed reading.  Zero column: the implementation runs, and bit 1's
marginal is 1/2 at every point."""

W = ((1, 1, 1, 1), (1, -1, 1, -1), (1, 1, -1, -1))
W_ZERO = ((1, 0), (1, 0), (-1, 0))
C, BETA, L_MAX, SQRT_K = 2, 1, 3, 2


class PrintedSmooth(DPSignRPSmooth):
    """Algorithm 7 as printed: the level of the scaled projection, i.e. units sqrt(k) beta."""

    @property
    def units(self) -> tuple[int, ...]:
        return tuple(SQRT_K * unit for unit in super().units)


def keep_marginal(law: Law, j: int, sign: int) -> Fraction:
    return sum((pr for out, pr in law.items() if out[j] == sign), Fraction(0))


def proof_keep(xj: int) -> Fraction:
    level = min(-(-abs(xj) // BETA), L_MAX)
    return Fraction(BASE.a**level, BASE.a**level + BASE.b**level)


def keep_gaps(laws: dict[tuple[int, ...], Law]) -> tuple[int, int, Fraction]:
    """(bits equal to the proof's keep, bits below it, mean keep over x_j != 0)."""
    equal = below = 0
    total, count = Fraction(0), 0
    for u, law in laws.items():
        for j, xj in enumerate(projections(u, W)):
            if xj == 0:
                continue
            got = keep_marginal(law, j, 1 if xj > 0 else -1)
            equal += got == proof_keep(xj)
            below += got < proof_keep(xj)
            total, count = total + got, count + 1
    return equal, below, total / count


def check(full: bool) -> ClaimReport:
    rel = vectors(3, -C, C, BETA)
    bound = RHO ** len(W[0])
    params = {"rho": RHO, "beta": BETA, "L_max": L_MAX, "k": len(W[0])}
    certs = []
    stats = {}
    for label, cls, paper in (("unscaled, the proof's", DPSignRPSmooth, False),
                              ("printed, scaled by 1/sqrt(k)", PrintedSmooth, True)):
        laws = laws_of(cls(W, BETA, BASE, L_MAX), rel.points)
        rep = report(laws, rel)
        equal, below, mean = stats[label] = keep_gaps(laws)
        bits = equal + below
        if paper:
            ok = rep.pure(bound) and below > 0
            text = f"<= rho^4 = {bound}; keep below the proof's at {below} of {bits} bits"
        else:
            ok = rep.pure(bound) and equal == bits
            text = f"<= rho^4 = {bound}; keep = the proof's at all {bits} bits"
        certs.append(cert(f"{CLAIM} ({label})", f"{cls.__name__}(W 3x4, beta=1, 3/2, L_max=3)",
                          params, f"{rep.pairs} ordered one-coordinate pairs of {{-2..2}}^3",
                          worst_text(rep), text, ok,
                          {"ratio_witness": rep.worst.to_json(), "mean_keep": mean,
                           "bits_below_proof": below}))
    zlaws = laws_of(DPSignRPSmooth(W_ZERO, BETA, BASE, L_MAX), rel.points)
    coin = all(keep_marginal(law, 1, 1) == Fraction(1, 2) for law in zlaws.values())
    zrep = report(zlaws, rel)
    certs.append(cert(f"{CLAIM} (zero column)", "DPSignRPSmooth(W with a zero column)",
                      params, f"{len(zlaws)} points of {{-2..2}}^3", worst_text(zrep),
                      "bit 1 a fair coin everywhere; ratio <= rho^2",
                      coin and zrep.pure(RHO**2), {"ratio_witness": zrep.worst.to_json()}))
    means = ", ".join(f"{label.split(',')[0]} {s[2]}" for label, s in stats.items())
    return ClaimReport(CLAIM, "W 3x4 (+-1), {-2..2}^3, beta = 1, L_max = 3, rho = 3/2",
                       f"worst {certs[0].worst} / {certs[1].worst}; mean keep {means}",
                       "both <= rho^4; printed keep below the proof's (slip shown)", certs)
