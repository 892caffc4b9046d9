"""Convolution strict time : the operation trace of a
release does not depend on the private x."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import partial
from typing import Any

from exactdp.certificate import Certificate, ClaimReport
from exactdp.convolution.domain import Domain
from exactdp.convolution.groups import circulant
from exactdp.convolution.mechanism import WalshFourierMechanism
from exactdp.convolution.transforms import real_fourier_rounded
from exactdp.proofs._strict_time import coins, compare, traced
from exactdp.proofs.convolution._conv_mech import strategy_mechanism, walsh_mechanism
from exactdp.randomness import RandomSource
from exactdp.trace import record

CLAIM = "Conv strict time (identical traces across x)"
STATEMENT = """A release of the Walsh-Fourier and integer-strategy mechanisms makes exactly |I| draws
uniform(D_j), in a public order (the kept rows grouped by sampler, RowNoise.draw_order), with D_j
fixed by the public (r_j, lo_j, hi_j), each followed by a search of (hi_j - lo_j).bit_length()
rounds; the transform (fixed-schedule fwht or
T x) and the reconstruction have fixed schedules: the same operation trace for every x of the
domain."""
PROOF_IDEA = """proofs/_strict_time: the trace (every uniform(d), every recorded event such as
fwht-round and search rounds, every profiler-seen CDF evaluation) of mech.release(x, coins) on
the same coins (all-lowest, all-highest, seeded) must be identical for every x of the domain
(histograms with empty, one-hot, spread and full inputs); the number of uniform draws must equal
the number of kept rows.  Power: a sentinel mechanism with one extra recorded step per
non-zero coordinate must be caught."""


def _release(mech: Any, x: Sequence[int], source: RandomSource) -> object:
    return mech.release(x, source).y


class _Leaky(WalshFourierMechanism):
    """A Walsh mechanism that records one extra step per non-zero x_k (a sentinel)."""

    def coefficients(self, x: Sequence[int]) -> list[int]:
        for v in x:
            if v:
                record("step")
        return super().coefficients(x)


def _mechs(full: bool) -> list[tuple[str, Any, list[tuple[int, ...]]]]:
    f = Fraction
    w, ew = walsh_mechanism([3, 1, 1, 0, 0, 2, 0, 1], [f(2), f(3, 2), f(5, 4), f(4, 3), f(7, 4),
                                                       f(6, 5)], "histograms", 2)
    z5 = real_fourier_rounded(5, 2)
    s, es = strategy_mechanism(z5, circulant([3, 1, 0, 0, 1]), [f(2)] * 5, "histograms", 2)
    out = [("Walsh N=8, ||x||_1 <= 2", w, ew), ("rounded Z_5, ||x||_1 <= 2", s, es)]
    if full:
        w16, e16 = walsh_mechanism([1] * 4 + [0] * 12, [f(3, 2)] * 4, "histograms", 1)
        out.append(("Walsh N=16 (4 kept rows), ||x||_1 <= 1", w16, e16))
    return out


def check(full: bool) -> ClaimReport:
    certs = []
    for name, mech, elems in _mechs(full):
        inputs = elems if full else elems[:: max(1, len(elems) // 12)] + [elems[-1]]
        cmp = compare([(str(x), partial(_release, mech, x)) for x in inputs], coins(full))
        trace, _ = traced(partial(_release, mech, inputs[-1]), "seed:1")
        draws = sum(1 for e in trace if e[0] == "uniform")
        ok = cmp.ok and draws == len(mech.rows) == mech.draws
        certs.append(Certificate(CLAIM, f"{name}: {mech!r}", {"kept_rows": len(mech.rows)},
                                 f"{len(inputs)} inputs x {len(coins(full))} coin streams", draws,
                                 "identical traces; draws = kept rows", ok,
                                 {"first_difference": cmp.mismatch} if cmp.mismatch else {}))
    leaky = _Leaky([3, 1, 1, 0], Domain.histograms(4, 2), Fraction(2))
    lin = [(0, 0, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0)]
    lcmp = compare([(str(x), partial(_release, leaky, x)) for x in lin], coins(False)[:1])
    certs.append(Certificate(CLAIM + ": power", "leaky Walsh sentinel", {}, "3 inputs", None,
                             "traces differ", not lcmp.ok))
    return ClaimReport(CLAIM, f"{len(certs) - 1} mechanisms, inputs of every support size",
                       "draws " + ", ".join(str(c.worst) for c in certs[:-1]),
                       "one trace per coin stream; = kept rows; sentinel caught", certs)
