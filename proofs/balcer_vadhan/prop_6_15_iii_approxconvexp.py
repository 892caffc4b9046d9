"""Proposition 6.15 iii: the l1 error of ApproxConvExp is at most t(i-1)/s."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.histograms.orderstats import approx_conv_exp
from exactdp.proofs.balcer_vadhan._orderstats import bounded_vectors, exact_convolution_power

CLAIM = "Proposition 6.15 iii"
STATEMENT = """For i, s, t in N_+ and a in [s]^t with ||a||_1 <= s:
|| ApproxConvExp_{s,t}(a, i)/s - *^(i)(a)/s^i ||_1 <= (t/s)(i - 1)."""
PROOF_IDEA = """Each flooring step loses less than 1 per entry (t/s in l1 after scaling), and
x*x - y*y = (x + y)*(x - y) with ||x + y||_1 <= 2 doubles the error carried from
ACE(a, floor(i/2)): e(i) <= t/s + 2 e(floor(i/2)) <= (t/s)(i-1).  Check: the exact l1
distance between the implementation's output and the exact truncated i-fold convolution
(Definition 6.12, schoolbook), for every a of the grid; worst ratio error / bound."""


def _grid(full: bool) -> tuple[list[int], range, range]:
    if full:
        return [1, 2, 3, 5, 7, 10, 16], range(1, 5), range(1, 40)
    return [1, 2, 3, 5, 7], range(1, 4), range(1, 14)


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    s_values, t_range, i_range = _grid(full)
    worst_ratio = Fraction(0)
    worst_at: dict[str, object] = {}
    cases = 0
    for s in s_values:
        for t in t_range:
            ok = True
            local = Fraction(0)
            for a in bounded_vectors(s, t):
                for i in i_range:
                    cases += 1
                    d = approx_conv_exp(a, i, s)
                    exact = exact_convolution_power(a, i)
                    scale = s ** (i - 1)
                    error = Fraction(sum(abs(x * scale - y) for x, y in zip(d, exact)), s**i)
                    bound = Fraction(t * (i - 1), s)
                    if error > bound:
                        ok = False
                    if bound and error / bound > local:
                        local = error / bound
                        if local > worst_ratio:
                            worst_ratio = local
                            worst_at = {"s": s, "t": t, "a": str(a), "i": i,
                                        "error": str(error), "bound": str(bound)}
            certs.append(Certificate(
                CLAIM, "approx_conv_exp (Algorithm 6.16)",
                {"s": s, "t": t, "i": f"1..{i_range[-1]}"},
                "every a in [s]^t with ||a||_1 <= s", local, "error/bound <= 1", ok))
    return ClaimReport(
        CLAIM, f"s in {s_values}, t <= {t_range[-1]}, i <= {i_range[-1]}, every a with "
        f"||a||_1 <= s ({cases} runs)",
        f"max error/bound {brief(worst_ratio)} at {worst_at}", "<= 1: error <= t(i-1)/s",
        certs)
