"""Benchmark the truncated-squaring back ends of exactdp.histograms.polymul.

One step of ApproxConvExp (Algorithm 6.16) squares a vector of ``t`` coefficients of
``b`` bits.  PureSparseHistogram over |X| = 2**64 has ``b ~ n * log2(3 * 2**64) ~ 65.6 n``
(s = (n^2+2n)|X|/delta, Algorithm 6.21 with delta of Algorithm 6.9) and ``t`` up to the
largest power of two below 2(n+1).  Usage::

    python tests/benchmarks/bench_polymul.py            # the table in polymul's docstring
    python tests/benchmarks/bench_polymul.py --quick    # small sizes only

Prints seconds (best of 3) per back end; '-' = skipped (the Python-int path is too slow
at the big sizes).  Every back end's result is checked equal to the first one's.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from functools import partial

from exactdp.histograms.polymul import BACKENDS, truncated_square

SIZES = [(16, 6600), (128, 6600), (128, 19700), (512, 19700), (1024, 65700)]
PYTHON_MAX_BITS = 128 * 19700


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    assert best is not None
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only t * b <= 128 * 6600")
    args = parser.parse_args()
    rng = random.Random(2024)
    print(f"{'t':>5} {'b':>6} " + " ".join(f"{name:>7}" for name in BACKENDS))
    for t, bits in SIZES:
        if args.quick and t * bits > 128 * 6600:
            continue
        vec = [rng.getrandbits(bits) for _ in range(t)]
        cells = []
        reference = None
        for name in BACKENDS:
            if name == "python" and t * bits > PYTHON_MAX_BITS:
                cells.append(f"{'-':>7}")
                continue
            out = truncated_square(vec, t, backend=name)
            if reference is None:
                reference = out
            assert out == reference, f"back end {name} disagrees"
            took = best_of(partial(truncated_square, vec, t, backend=name))
            cells.append(f"{took:7.4f}")
        print(f"{t:>5} {bits:>6} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
