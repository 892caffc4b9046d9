"""Proposition 6.17: ApproxBinSample is within (m(t+1) - t)/s of min{Bin(m, p/q), t}."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import statistical_distance
from exactdp.explore import explore
from exactdp.histograms.orderstats import ApproxBinDraw, approx_bin_sample
from exactdp.proofs.balcer_vadhan._orderstats import binomial_min_pmf
from exactdp.randomness import RandomSource

CLAIM = "Proposition 6.17"
STATEMENT = """For m, q, s in N_+ with s >= m, t in N and p in [q]:
Delta(ApproxBinSample_{s,t}(m, p, q), min{Bin(m, p/q), t}) <= (m(t+1) - t)/s."""
PROOF_IDEA = """Replacing p/q by p'/s, p' = floor(sp/q), moves each of the m Bernoullis by < 1/s
(m/s in all); by Proposition 6.15 iii the approximate pmf d^(t)/s of Algorithm 6.18 is
within t(m-1)/s in l1 of the exact truncated convolution power, and Lemma 2.13 turns it
into a sampler.  Check: the exact output distribution of the implementation (explored:
its single draw u through inverse_cdf, one branch per output) against the binomial pmf;
for s <= 64 also the distribution of the sampling path itself (search(u) for every u,
including the certified shortcuts) and of padded mode, which must be identical."""

_SEARCH_LIMIT = 64


def _grid(full: bool) -> list[tuple[int, int, int, int]]:
    """(m, p, q, s) -- every t in [0, m + 1] is run for each."""
    out = []
    for m in range(10 if full else 6):  # m = 0: Bin(0, p) is the point mass at 0
        for q in ([1, 2, 3, 5, 7] if full else [1, 2, 5]):
            for p in range(q + 1):
                for s in sorted({m, m + 1, 2 * m + 1, 10 * m, 97 * m} - {0}):
                    out.append((m, p, q, s))
    return out


def _search_path(draw: ApproxBinDraw, source: RandomSource) -> int:
    """``RandomSource.inverse_cdf``'s own path, ``draw.search(uniform(s))``, even under the
    exploring source (which would otherwise branch on ``draw.cdf``)."""
    return RandomSource.inverse_cdf(source, draw)


def _enumerated(draw: ApproxBinDraw) -> dict[int, Fraction]:
    """The distribution of the sampling path: ``draw.search(u)`` for ``u`` uniform."""
    return explore(partial(_search_path, draw))


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_ratio = Fraction(0)
    worst_at: dict[str, object] = {}
    runs = 0
    for m, p, q, s in _grid(full):
        ok = True
        bad: list[str] = []
        local = Fraction(0)
        for t in range(m + 2):
            runs += 1
            dist = explore(partial(approx_bin_sample, m, p, q, s, t))
            gap = statistical_distance(dist, binomial_min_pmf(m, Fraction(p, q), t))
            # m = 0: the output must be exactly 0 (the proposition's bound is for m >= 1)
            bound = Fraction(m * (t + 1) - t, s) if m else Fraction(0)
            if gap > bound:
                ok = False
                bad.append(f"t={t}: {gap} > {bound}")
            if bound and gap / bound > local:
                local = gap / bound
                if local > worst_ratio:
                    worst_ratio = local
                    worst_at = {"m": m, "p/q": f"{p}/{q}", "s": s, "t": t,
                                "distance": str(gap), "bound": str(bound)}
            padded = explore(partial(approx_bin_sample, m, p, q, s, t, padded=True))
            if padded != dist:
                ok = False
                bad.append(f"t={t}: padded mode differs")
            if t > 0 and m > 0 and s <= _SEARCH_LIMIT:  # ApproxBinDraw needs m >= 1
                for shortcuts in (True, False):
                    draw = ApproxBinDraw(m, p, q, s, t, shortcuts=shortcuts)
                    if _enumerated(draw) != dist:
                        ok = False
                        bad.append(f"t={t}: search path (shortcuts={shortcuts}) differs")
        certs.append(Certificate(
            CLAIM, "approx_bin_sample (Algorithm 6.18)", {"m": m, "p": p, "q": q, "s": s},
            f"t in [0, {m + 1}]", local, "distance/bound <= 1", ok, {"failures": bad[:3]}))
    return ClaimReport(
        CLAIM, f"0 <= m <= {_grid(full)[-1][0]}, p/q with q in {{1,2,3,5,7}}"
        f"{'' if full else ' (quick: 1,2,5)'}, s in {{m, m+1, 2m+1, 10m, 97m}}, every t <= m+1 "
        f"({runs} distributions; sampling path and padded mode equal where s <= "
        f"{_SEARCH_LIMIT})", f"max distance/bound {brief(worst_ratio)} at {worst_at}",
        "<= 1: distance <= (m(t+1) - t)/s", certs)
