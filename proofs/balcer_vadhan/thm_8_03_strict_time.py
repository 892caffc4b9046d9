"""Theorem 8.3 (iv), strict mode: CompactHistogram's operations depend on the data only through
the documented conditional draws."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms import native
from exactdp.histograms.compact import CompactHistogram, CompactRelease
from exactdp.histograms.data import Dataset
from exactdp.proofs._strict_time import Coins, Trace, coins, compare, datasets
from exactdp.randomness import InverseCDFDraw, RandomSource
from exactdp.trace import record

CLAIM = "Theorem 8.3 (iv) (strict time)"
STATEMENT = """CompactHistogram (Algorithm 8.2) with strict_time=True (the default) makes, for every
dataset D in X^n (n, |X| public), the same operations except one documented dependence
(class docstring): each of the n + 1 points of B = A + padding makes one inverse-CDF draw
over the common domain [d d0]_+ (M(c_x, .) on A, M0 on the padding) and one draw
uniform(|S_v|) whose domain is the size of the preimage S_v of the value v drawn (and
released) at that point; the interpolation is the same computation for every D.  Note: B
contains A, so the sequence of the |S_v| follows the released values at the points of A."""
PROOF_IDEA = """Every point of B is treated alike; the padding scan covers [0, n] whole.  Check:
the operation trace of the sampling path (draw domains, recorded search rounds, profiler-
seen calls of the CDFs, of M0's preimage arithmetic and of the field operations of the pure
interpolation) on the same fixed coins (u = 1, u = max, seeded) is EQUAL for every dataset of
a grid varying |A|, the count profile and where A lies, once each conditional draw -- the
events from a draw's value v to the following uniform draw -- is replaced by one marker,
after checking that the uniform draw's domain is exactly |S_v| = |{u0 : M0(u0) = v}|;
with the pure and (when built) native arithmetic.  The fast mode (strict_time=False) must
give DIFFERENT traces on the same datasets (the comparison's power)."""


class _ValueCoins(Coins):
    """Fixed coins that also mark the value of every inverse-CDF draw in the trace."""

    def inverse_cdf(self, draw: InverseCDFDraw) -> int:
        z = draw.search(self.uniform(draw.d))
        record("value", z)
        return z


def _normaliser(ch: CompactHistogram, wrong: list[str]) -> Callable[[Trace, Any], Trace]:
    """Replace each conditional draw (from a ``("value", v)`` marker to the next uniform draw)
    by ``("S_v draw",)``, recording in ``wrong`` any draw whose domain is not ``|S_v|``."""

    def normalise(trace: Trace, out: Any) -> Trace:
        result: list[tuple[object, ...]] = []
        pending: int | None = None
        for event in trace:
            if event[0] == "value":
                pending = int(event[1])  # type: ignore[call-overload]
                continue
            if pending is None:
                result.append(event)
            elif event[0] == "uniform":
                lo, hi = ch.empty.preimage(pending)
                if event[1] != hi - lo + 1:
                    wrong.append(f"v = {pending}: uniform({event[1]}), |S_v| = {hi - lo + 1}")
                result.append(("S_v draw",))
                pending = None
        if pending is not None:
            wrong.append(f"v = {pending}: no conditional draw followed")
        return tuple(result)

    return normalise


def _grid(full: bool) -> list[tuple[str, Callable[[bool, str], CompactHistogram]]]:
    def fixed(size: int, mech: InverseCDFSampler, level: int) -> Callable[..., CompactHistogram]:
        return lambda strict, arith: CompactHistogram(size, mech, level, strict_time=strict,
                                                      arithmetic=arith)

    out = [("|X|=8, GeoSample(2, 1), GF(2^6)", fixed(8, GeoSample(2, 1), 1)),
           ("|X|=3, GeoSample(3, 1), GF(2^6)", fixed(3, GeoSample(3, 1), 1)),
           ("|X|=2^64, GeoSample(3, 1), GF(2^162)", fixed(2**64, GeoSample(3, 1), 4))]
    if full:
        out += [("|X|=2^64, Theorem 8.6 (n=2, eps=1/10, beta0=2^-20)",
                 lambda strict, arith: CompactHistogram.theorem_8_6(
                     2**64, 2, Fraction(1, 10), Fraction(1, 2**20), strict_time=strict,
                     arithmetic=arith)),
                ("|X|=64, FastSample(2, 1, 1/2), GF(2^162)",
                 fixed(64, FastSample(2, 1, Fraction(1, 2)), 4))]
    return out


def _release(ch: CompactHistogram, rows: tuple[int, ...], source: RandomSource) -> CompactRelease:
    return ch.release(Dataset.of(ch.universe, rows), source)


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    total = 0
    ariths = ["pure", "native"] if native.available() else ["pure"]
    for label, make in _grid(full):
        for arith in ariths:
            ch = make(True, arith)
            data = datasets(ch.n, ch.universe.size, full)
            wrong: list[str] = []
            inputs = [(str(rows), partial(_release, ch, rows)) for rows in data]
            cmp = compare(inputs, coins(full), _normaliser(ch, wrong), coins_class=_ValueCoins)
            total += cmp.runs
            certs.append(Certificate(
                CLAIM, repr(ch), {"setting": label, "arithmetic": arith},
                f"{len(data)} datasets x {len(coins(full))} coin streams", cmp.trace_length,
                "identical traces up to the conditional draws, each of domain |S_v|",
                cmp.ok and not wrong,
                {**({"first_difference": cmp.mismatch} if cmp.mismatch else {}),
                 **({"wrong_domains": wrong[:3]} if wrong else {})}))
        fast = make(False, "pure")
        data = datasets(fast.n, fast.universe.size, full)
        cmp = compare([(str(rows), partial(_release, fast, rows)) for rows in data],
                      coins(full)[:1], _normaliser(fast, []), coins_class=_ValueCoins)
        total += cmp.runs
        certs.append(Certificate(
            CLAIM + ": power", repr(fast), {"setting": label, "strict_time": False},
            f"{len(data)} datasets", None,
            "with strict_time=False the traces differ with |A| (the check can fail)",
            not cmp.ok, {"first_difference": cmp.mismatch}))
    strict = [c for c in certs if "arithmetic" in c.parameters]
    return ClaimReport(
        CLAIM, f"{'; '.join(label for label, _ in _grid(full))}; arithmetic "
        f"{' and '.join(ariths)}; every count profile of n rows placed low and high; coins "
        f"u = 1, u = max, seeded ({total} traced runs)",
        f"{sum(c.verdict for c in strict)}/{len(strict)} settings with one trace per coin "
        f"stream up to the |S_v| draws (all of domain |S_v|)",
        "identical operation traces except the documented |S_v|", certs)
