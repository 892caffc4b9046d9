"""How wide the certified interval of a many-fold composition off the lattice is, and what it
costs: FastSample(n = 4, eps = 1/2, gamma = 1/100) on counts 0 and 1, ``k`` releases, the
interval around the exact ``delta`` at ``eps`` (``exactdp.accounting.grid.delta_interval``)
and around the exact ``epsilon`` at ``delta = 10**-6`` for lattices ``(1 + 2**-j)**e``, with
the processor time of building and composing both bounds.

Run: ``python tests/benchmarks/bench_accounting_grid.py [--quick] [--record]``.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from math import comb
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from exactdp.accounting import PrivacyLoss
from exactdp.accounting.grid import epsilon_interval, grid_bounds
from exactdp.fastsample import FastSample
from tests.benchmarks import record

DELTA = Fraction(1, 10**6)


def _e(q: Fraction, up: bool) -> str:
    """``q`` in scientific notation with 4 digits, rounded outward (``up``: upward)."""
    if q == 0:
        return "0"
    exp = 0
    while q >= 10:
        q /= 10
        exp += 1
    while q < 1:
        q *= 10
        exp -= 1
    digits = q * 1000
    n = -((-digits.numerator) // digits.denominator) if up else digits.numerator // digits.denominator
    if n >= 10000:
        n //= 10
        exp += 1
    text = str(n)
    return f"{text[0]}.{text[1:]}e{exp:+d}"


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    fast = FastSample(4, Fraction(1, 2), Fraction(1, 100))
    loss = PrivacyLoss.of(fast, 0, 1)
    ks = (100, 1000) if not quick else (100,)
    js = (8, 10, 12) if not quick else (8, 10)
    print(f"FastSample(4, 1/2, 1/100), counts 0 -> 1: {len(loss)} ratios on no common "
          f"lattice; the exact loss of k releases has up to C(k + 4, 4) atoms "
          f"({comb(1004, 4)} at k = 1000)")
    print()
    print("| k | lattice | delta(eps) lies in | width / upper | epsilon(1e-6) lies in | CPU s |")
    print("|---|---|---|---|---|---|")
    for k in ks:
        eps = Fraction(k, 20)
        for j in js:
            start = time.process_time()
            lower, upper = grid_bounds(loss, Fraction(2**j + 1, 2**j))
            lo_k, up_k = lower.power(k), upper.power(k)
            d_lo, d_hi = lo_k.delta(eps), up_k.delta(eps)
            box = epsilon_interval(lo_k, up_k, DELTA)
            cpu = time.process_time() - start
            width = "-" if d_hi == 0 else _e((d_hi - d_lo) / d_hi, True)
            e_text = "-" if box is None else f"[{_e(box.lo, False)}, {_e(box.hi, True)}]"
            print(f"| {k} | (1 + 2^-{j})^e | [{_e(d_lo, False)}, {_e(d_hi, True)}] at eps = "
                  f"{eps} | {width} | {e_text} | {cpu:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main, __file__))
