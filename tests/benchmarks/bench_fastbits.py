"""Random bits, lazy draws and columnar counting against their floors and peers, in ONE process.

    python tests/benchmarks/bench_fastbits.py                 # about 2-3 minutes on 2 cores
    python tests/benchmarks/bench_fastbits.py --reps 3 --rows 100000   # quicker
    python tests/benchmarks/bench_fastbits.py --record        # store results/bench_fastbits.md

Every comparison times its sides alternately (A, B, A, B, ...; the order flips every
repetition) in CPU seconds of this process (``time.process_time``) and prints the medians and
their ratio, with the target where there is one:

1. bits: ``os.urandom`` against the ChaCha20 keystream (``KeystreamSource.random_bytes``),
   MB/s in reads of 64 KiB and of 24 bytes (one lazy FastSample draw);
2. counting 10^6 rows of a numpy uint64 array (half five heavy hitters, half uniform over
   2^64): ``numpy.unique`` (the floor) against ``Dataset.of`` (validation, ``numpy.unique``
   and the counted dataset);
3. StabilityHistogram (Theorem 5.6: eps = 1/10, delta = 10^-6, beta = 1/20, padded to n
   draws) on those rows from the numpy array, keystream source, against OpenDP's
   ``count_by`` + ``laplace_threshold`` (replace-one neighbours: scale 20 and the least
   threshold with delta <= 10^-6) on the same rows (a list of u64: OpenDP's input type);
   then the release alone (the dataset counted beforehand) against its noise draws alone
   (``sample_many`` of n counts);
4. 10^6 FastSample draws (n = 100, eps = 1/10, gamma = 2^-40; ``sample_many`` of zeros,
   keystream and OS sources) against OpenDP's vector geometric of the same ratio 32/33, and
   diffprivlib's ``Geometric`` per draw (10^4 draws, scaled to 10^6);
5. GeoSample, one draw at n = 10^5, eps = 1/10, random counts, against OpenDP's bounded
   (constant-time) geometric of the same ratio;
6. PureSparseHistogram (Theorem 6.11, FastSample) at n = 10^4 rows over 2^64 (the rows of
   ``bench_histograms.py``), one release with the keystream source, medians of --reps.

Floats appear only here, to time and to give OpenDP and diffprivlib their scales.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]  # record.py, and this checkout's exactdp
import record

EPS = Fraction(1, 10)
DELTA = Fraction(1, 10**6)
BETA = Fraction(1, 20)
UNIVERSE = 2**64


def _cpu(f: Callable[[], object]) -> float:
    t0 = time.process_time()
    f()
    return time.process_time() - t0


def interleave(sides: dict[str, Callable[[], object]], reps: int) -> dict[str, float]:
    """The median CPU seconds of each side, timed alternately ``reps`` times (the order
    reversed every other repetition)."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for rep in range(reps):
        for name in names if rep % 2 == 0 else names[::-1]:
            times[name].append(_cpu(sides[name]))
    return {name: statistics.median(ts) for name, ts in times.items()}


def verdict(ratio: float, target: float, unit: str = "") -> str:
    return (f"target <= {target}{unit}: MET" if ratio <= target
            else f"target <= {target}{unit}: MISSED by {ratio / target:.2f}x")


def rows(n: int, seed: int = 2024) -> list[int]:
    rng = random.Random(seed)
    heavy = [rng.randrange(1, UNIVERSE + 1) for _ in range(5)]
    return [heavy[(i // 2) % 5] if i % 2 == 0 else rng.randrange(1, UNIVERSE + 1)
            for i in range(n)]


def bits(reps: int) -> None:
    from exactdp.keystream import KeystreamSource

    src = KeystreamSource()
    print("1. random bytes (MB/s of CPU time)")
    for size, count in ((1 << 16, 512), (24, 20000)):
        med = interleave({"os.urandom": lambda s=size, c=count: [os.urandom(s) for _ in range(c)],
                          "keystream": lambda s=size, c=count: [src.random_bytes(s)
                                                                for _ in range(c)]}, reps)
        mb = size * count / 1e6
        print(f"   reads of {size} B: os.urandom {mb / med['os.urandom']:.0f} MB/s, keystream "
              f"{mb / med['keystream']:.0f} MB/s (x{med['os.urandom'] / med['keystream']:.1f})")


def opendp_stability() -> tuple[Callable[[list[int]], object], int]:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=dp.u64)), dp.symmetric_distance()

    def make(threshold: int) -> object:
        return space >> dp.t.then_count_by(TV=dp.u32) >> dp.m.then_laplace_threshold(
            scale=20.0, threshold=threshold)

    lo, hi = 1, 1 << 14
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if make(mid).map(2)[1] <= 1e-6:  # type: ignore[attr-defined]
            hi = mid
        else:
            lo = mid
    return make(hi), hi  # type: ignore[return-value]


def counting_and_stability(n: int, reps: int) -> None:
    import numpy as np

    from exactdp.histograms import Dataset, StabilityHistogram, Universe
    from exactdp.keystream import KeystreamSource

    data_rows = rows(n)
    column = np.array(data_rows, dtype=np.uint64)
    universe = Universe(UNIVERSE)
    med = interleave({"numpy.unique": lambda: np.unique(column, return_counts=True),
                      "Dataset.of": lambda: Dataset.of(universe, column)}, reps)
    print(f"2. counting {n} rows ({len(np.unique(column))} distinct) from a numpy array: "
          f"numpy.unique {med['numpy.unique']:.3f} s, exactdp Dataset.of "
          f"{med['Dataset.of']:.3f} s (x{med['Dataset.of'] / med['numpy.unique']:.1f} the "
          f"floor)")
    alg = StabilityHistogram.theorem_5_6(universe, n, EPS, DELTA, BETA)
    counted = Dataset.of(universe, column)
    alg.release(counted, KeystreamSource())  # the mechanism's tables, built once
    meas, threshold = opendp_stability()
    u64 = [r - 1 for r in data_rows]
    med = interleave({
        "exactdp": lambda: alg.release(Dataset.of(universe, column), KeystreamSource()),
        "opendp": lambda: meas(u64)}, reps)
    ratio = med["exactdp"] / med["opendp"]
    print(f"3. StabilityHistogram, {n} rows from a numpy array (count + release, keystream): "
          f"{med['exactdp']:.3f} s; OpenDP count_by + laplace_threshold (threshold "
          f"{threshold}): {med['opendp']:.3f} s; ratio {ratio:.3f} ({verdict(ratio, 0.3)})")
    zeros = [0] * n
    med = interleave({"release": lambda: alg.release(counted, KeystreamSource()),
                      "draws": lambda: alg.mechanism.sample_many(zeros, KeystreamSource())},
                     reps)
    ratio = med["release"] / med["draws"]
    print(f"   release alone (counted beforehand) {med['release']:.3f} s; its {n} noise draws "
          f"alone {med['draws']:.3f} s; ratio {ratio:.2f} ({verdict(ratio, 5)})")


def fastsample_draws(batch: int, reps: int) -> None:
    import opendp.prelude as dp

    from exactdp.counting import FastSample
    from exactdp.keystream import KeystreamSource
    from exactdp.randomness import SystemSource

    dp.enable_features("contrib")
    fast = FastSample(100, EPS, Fraction(1, 2**40))
    fast.sample_many([0], SystemSource())
    scale = 1 / math.log((2**fast.k + 1) / 2**fast.k)
    vector = dp.m.make_geometric(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int),
                                 scale)
    zeros = [0] * batch
    med = interleave({"keystream": lambda: fast.sample_many(zeros, KeystreamSource()),
                      "os": lambda: fast.sample_many(zeros, SystemSource()),
                      "opendp": lambda: vector(zeros)}, reps)
    ratio = med["keystream"] / med["opendp"]
    print(f"4. {batch} FastSample draws (n = 100, gamma = 2^-40, log2 d = "
          f"{fast.d.bit_length()} bits): keystream {med['keystream']:.3f} s, OS "
          f"{med['os']:.3f} s; OpenDP vector geometric {med['opendp']:.3f} s; ratio "
          f"{ratio:.3f} ({verdict(ratio, 0.3)}); OS source / OpenDP "
          f"{med['os'] / med['opendp']:.3f}")
    fixed = FastSample(100, EPS, Fraction(1, 2**40))
    fixed.lazy_bits = False
    part = zeros[:batch // 10]
    t = statistics.median(_cpu(lambda: fixed.sample_many(part, KeystreamSource()))
                          for _ in range(3)) * 10
    print(f"   fixed bits (lazy_bits = False, all of u read): {t:.3f} s per {batch} draws "
          f"(keystream)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from diffprivlib.mechanisms import Geometric
        geo = Geometric(epsilon=math.log((2**fast.k + 1) / 2**fast.k), sensitivity=1)
        k = 10**4
        t = statistics.median(_cpu(lambda: [geo.randomise(0) for _ in range(k)])
                              for _ in range(3)) * batch / k
        print(f"   diffprivlib Geometric.randomise, one call per draw: {t:.2f} s per {batch} "
              f"draws (from {k}); exactdp / diffprivlib {med['keystream'] / t:.4f}")
    except ImportError as exc:
        print(f"   diffprivlib not importable here ({exc}); skipped")


def geosample_one(reps: int) -> None:
    import opendp.prelude as dp

    from exactdp.counting import GeoSample
    from exactdp.keystream import KeystreamSource

    dp.enable_features("contrib")
    n = 10**5
    geo = GeoSample(n, EPS)
    src = KeystreamSource()
    geo.sample(0, src)
    scale = 1 / math.log((2**geo.k + 1) / 2**geo.k)
    bounded = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale,
                                  bounds=(0, n))
    rng = random.Random(28)
    counts = [rng.randrange(n + 1) for _ in range(2 * reps * 5)]
    it_a, it_b = iter(counts), iter(counts)
    med = interleave({"exactdp": lambda: [geo.sample(next(it_a), src) for _ in range(5)],
                      "opendp": lambda: [bounded(next(it_b)) for _ in range(5)]}, 2 * reps)
    ratio = med["exactdp"] / med["opendp"]
    print(f"5. GeoSample one draw, n = 10^5, eps = 1/10 (log2 d = {geo.d.bit_length()} bits): "
          f"{med['exactdp'] / 5 * 1e3:.2f} ms; OpenDP bounded geometric "
          f"{med['opendp'] / 5 * 1e3:.2f} ms; ratio {ratio:.3f} ({verdict(ratio, 0.07)})")


def pure_sparse(reps: int) -> None:
    from exactdp.histograms import Dataset, PureSparseHistogram, Universe
    from exactdp.keystream import KeystreamSource

    n = 10**4
    universe = Universe(UNIVERSE)
    data = Dataset.of(universe, rows(n))
    t0 = time.process_time()
    alg = PureSparseHistogram.theorem_6_11(universe, n, EPS, BETA, "fastsample")
    alg.sparse.release(data, KeystreamSource())
    first = time.process_time() - t0
    t = statistics.median(_cpu(lambda: alg.sparse.release(data, KeystreamSource()))
                          for _ in range(reps))
    print(f"6. PureSparseHistogram n = 10^4 over 2^64 (SparseHistogram branch, keystream): "
          f"build + first release {first:.3f} s; then {t:.3f} s per release "
          f"({verdict(t, 0.4, ' s')})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="alternations per comparison")
    ap.add_argument("--rows", type=int, default=10**6, help="rows of 2 and 3")
    ap.add_argument("--batch", type=int, default=10**6, help="draws of 4")
    ap.add_argument("--only", choices=["1", "2", "4", "5", "6"], action="append",
                    help="run only these parts (2 also runs 3)")
    args = ap.parse_args()
    from exactdp import native_samplers

    print(f"native kernels: {native_samplers.status()}; lazy draws: "
          f"{'built' if native_samplers.lazy_available() else 'not built'}")
    parts: dict[str, Callable[[], None]] = {
        "1": lambda: bits(args.reps),
        "2": lambda: counting_and_stability(args.rows, args.reps),
        "4": lambda: fastsample_draws(args.batch, args.reps),
        "5": lambda: geosample_one(args.reps),
        "6": lambda: pure_sparse(args.reps),
    }
    for key, part in parts.items():
        if args.only is None or key in args.only:
            part()
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(record.run(main, __file__))
