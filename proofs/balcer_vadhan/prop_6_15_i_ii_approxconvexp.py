"""Proposition 6.15 i-ii: ApproxConvExp stays in [s]^t with norm <= s, independently of t."""

from __future__ import annotations

from exactdp.certificate import Certificate, ClaimReport
from exactdp.histograms.orderstats import approx_conv_exp
from exactdp.proofs.balcer_vadhan._orderstats import bounded_vectors

CLAIM = "Proposition 6.15 i-ii"
STATEMENT = """For i, s, t in N_+ and a in [s]^t with ||a||_1 <= s, ApproxConvExp_{s,t}(a, i)
(Algorithm 6.16) (i) lies in [s]^t with ||.||_1 <= s, and (ii) does not depend on t: its
first t' < t entries equal ApproxConvExp_{s,t'}((a_0..a_{t'-1}), i)."""
PROOF_IDEA = """(i) by induction: ||b*b||_1 <= ||b||_1^2 and flooring only lowers entries.
(ii) by induction: entry k of a truncated convolution only reads entries 0..k.  Check: run
the implementation on every a in [s]^t with ||a||_1 <= s, every i and every t' < t of the
grid, exactly (integers)."""


def _grid(full: bool) -> tuple[range, range, range]:
    """(s values, t values, i values)."""
    if full:
        return range(1, 9), range(1, 5), range(1, 18)
    return range(1, 6), range(1, 4), range(1, 10)


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    s_range, t_range, i_range = _grid(full)
    total_range = total_tdep = cases = 0
    for s in s_range:
        for t in t_range:
            bad_range: list[str] = []
            bad_tdep: list[str] = []
            for a in bounded_vectors(s, t):
                for i in i_range:
                    cases += 1
                    d = approx_conv_exp(a, i, s)
                    if len(d) != t or any(not 0 <= x <= s for x in d) or sum(d) > s:
                        bad_range.append(f"a={a} i={i}: {d}")
                    for tp in range(1, t):
                        if approx_conv_exp(a[:tp], i, s) != d[:tp]:
                            bad_tdep.append(f"a={a} i={i} t'={tp}")
            total_range += len(bad_range)
            total_tdep += len(bad_tdep)
            certs.append(Certificate(
                CLAIM, "approx_conv_exp (Algorithm 6.16)",
                {"s": s, "t": t, "i": f"1..{i_range[-1]}"},
                "every a in [s]^t with ||a||_1 <= s", len(bad_range) + len(bad_tdep),
                "0 violations of (i) and (ii)", not bad_range and not bad_tdep,
                {"range": bad_range[:3], "t-dependence": bad_tdep[:3]}))
    return ClaimReport(
        CLAIM, f"s <= {s_range[-1]}, t <= {t_range[-1]}, i <= {i_range[-1]}, every a with "
        f"||a||_1 <= s ({cases} runs)",
        f"{total_range} range / {total_tdep} t-dependence violations",
        "0 and 0 (exact equality)", certs)
