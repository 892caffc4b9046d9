"""Paper 002 Lemma 1 (projection) on the implementation, and slip P9's index: Theorem 5 and its
proof read h^_K where h^_(K-1) is meant."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import worst_ratio
from exactdp.convolution.domain import Domain
from exactdp.convolution.lower_bounds import lemma2_walsh, spec_lb
from exactdp.convolution.mechanism import WalshFourierMechanism
from exactdp.explore import explore
from exactdp.proofs.convolution._conv import (
    direct_xor_convolve,
    histograms,
    neighbour_pairs,
    walsh_matrix,
)

CLAIM = "Conv Lemma 1 projection and Theorem 5's index"
SLIP = ("Theorem 5 and its proof use h^_K where h^_(K-1) is meant (h^_N does not exist, and on "
        "h = 1 the printed bound is 0).")
NOT_EXERCISABLE = {
    "Lemma 1's quantifier order (printed: one x for every P; proved: for every P an x)":
        "Theorem 6's lower bound holds for every algorithm with an unspecified constant C, so "
        "no finite computation can separate the two orders; the proof's order is the one used.",
}
STATEMENT = """Lemma 1: if A is (eps, delta)-DP for y = M x, then for every projection P, B(x) = P A(x) is
(eps, delta)-DP (post-processing) and ||P (A(x) - M x)|| <= ||A(x) - M x||, so a lower bound
for P M transfers to M.  Theorem 5: specLB(h) = max_{K=1..N} K^2 |h^_(K-1)|^2/(N log^2 N) (the
proof: |det B|^(1/K) >= C sqrt(K) |h^_(K-1)| for a K x K submatrix B of P H, P the top-K
singular directions); printed with h^_K, which is 0 beyond the last non-zero coefficient and
undefined at K = N."""
PROOF_IDEA = """Lemma 1: the implementation's WalshFourierMechanism (h = (3,1,1,0), ratios 2, 3/2, 5/4,
4/3) explored on every x of histograms(4, 1); for K = 1 .. 4, P = W_S^T W_S/N onto the top-K
Walsh eigenvectors (checked symmetric and idempotent here): the law of P A(x) (pushed here)
has worst ratio over every neighbouring pair <= that of A(x), which equals privacy().pure_ratio;
E||P(A(x) - Hx)||^2 <= E||A(x) - Hx||^2 for every x, exactly.  P9: on h = 1 (N = 4 .. 64) the
implementation's spec_lb equals max_K K^2 |h^_(K-1)|^2/(N log^2 N) computed here (= 1/log^2 N
> 0) while the printed max_{K<N} K^2 |h^_K|^2/(N log^2 N) is 0; the implementation's Lemma 2
rows give max |det B|^2 >= e^-K (K/N)^K prod_{i<K} lambda_(i)^2 (the h^_(K-1) form) at K = 1
(certified e)."""

H = [3, 1, 1, 0]
RATIOS = [Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(4, 3)]


def _projector(rows: list[int], n: int) -> list[list[Fraction]]:
    w = walsh_matrix(n)
    return [[Fraction(sum(w[j][a] * w[j][b] for j in rows), n) for b in range(n)]
            for a in range(n)]


def projection_certificate() -> Certificate:
    n = len(H)
    mech = WalshFourierMechanism(H, Domain.histograms(n, 1), RATIOS)
    elems = histograms(n, 1)
    laws = {x: explore(partial(mech.sample_with, x)) for x in elems}
    pairs = neighbour_pairs(elems)

    def worst(ls: dict) -> Fraction | None:  # type: ignore[type-arg]
        return worst_ratio([(x, ls[x], y, ls[y]) for x, y, _ in pairs]
                           + [(y, ls[y], x, ls[x]) for x, y, _ in pairs]).ratio

    base = worst(laws)
    ok = base is not None and base == mech.privacy().pure_ratio
    lam = [sum(a * b for a, b in zip(row, H)) for row in walsh_matrix(n)]
    order = sorted(range(n), key=lambda j: (-abs(lam[j]), j))
    shrink = Fraction(0)
    for k in range(1, n + 1):
        p = _projector(order[:k], n)
        proj_ok = (all(p[a][b] == p[b][a] for a in range(n) for b in range(n))
                   and [[sum(p[a][c] * p[c][b] for c in range(n)) for b in range(n)]
                        for a in range(n)] == p)
        pushed: dict = {}  # type: ignore[type-arg]
        for x, law in laws.items():
            hx = direct_xor_convolve(H, x)
            e_full = e_proj = Fraction(0)
            out: dict = {}  # type: ignore[type-arg]
            for y, q in law.items():
                py = tuple(sum(p[a][b] * y[b] for b in range(n)) for a in range(n))
                out[py] = out.get(py, Fraction(0)) + q
                err = [u - v for u, v in zip(y, hx, strict=True)]
                perr = [sum(p[a][b] * err[b] for b in range(n)) for a in range(n)]
                e_full += q * sum(v * v for v in err)
                e_proj += q * sum(v * v for v in perr)
            pushed[x] = out
            ok = ok and e_proj <= e_full
            if e_full:
                shrink = max(shrink, e_proj / e_full)
        wp = worst(pushed)
        ok = ok and proj_ok and wp is not None and base is not None and wp <= base
    return Certificate(CLAIM + ": Lemma 1", repr(mech), {"h": H, "ratios": RATIOS},
                       f"histograms({n}, 1), K = 1..{n}", shrink,
                       f"projected worst ratio <= {brief(base)} = pure ratio; projected "
                       "error <= error", ok, {"worst_ratio": base})


def index_certificate(n: int) -> Certificate:
    lam = [n] + [0] * (n - 1)                                  # W (1,...,1)
    sq = [Fraction(v * v, n) for v in lam]                     # |h^|^2
    log_n = n.bit_length() - 1
    fixed = max(k * k * sq[k - 1] for k in range(1, n + 1)) / (n * log_n ** 2)
    printed = max(k * k * sq[k] for k in range(1, n)) / (n * log_n ** 2)   # h^_N undefined
    impl = spec_lb([v * v for v in lam])
    rows = lemma2_walsh([1] * n) if n <= 8 else []
    lemma2_ok = all(r.bound_holds for r in rows)
    ok = impl == fixed == Fraction(1, log_n ** 2) and printed == 0 and lemma2_ok
    return Certificate(CLAIM + ": P9 index", "spec_lb, lemma2_walsh", {"N": n, "h": "1"},
                       "exact", printed, f"printed (h^_K) = 0 < specLB = {fixed} "
                       "(h^_(K-1), the implementation's)", ok, {"spec_lb": impl})


def check(full: bool) -> ClaimReport:
    certs = [projection_certificate()] + [index_certificate(n) for n in (4, 8, 16, 64)]
    return ClaimReport(CLAIM, "Walsh mechanism on histograms(4, 1), every top-K projection; "
                       "h = 1 at N = 4 .. 64", f"projected/full error <= "
                       f"{brief(Fraction(certs[0].worst), 3)}; printed specLB 0 on h = 1",  # type: ignore[arg-type]
                       "post-processing and contraction exact; h^_(K-1) form positive", certs)
