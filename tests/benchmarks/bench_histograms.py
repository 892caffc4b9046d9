"""Benchmarks for the histogram algorithms (plain script; pytest does not collect it).

    python tests/benchmarks/bench_histograms.py                  # everything
    python tests/benchmarks/bench_histograms.py --sizes 100,300 --skip-stability
    python tests/benchmarks/bench_histograms.py --skip-pure --stability-rows 100000
    python tests/benchmarks/bench_histograms.py --profile --sizes 300

* PureSparseHistogram (Algorithm 6.9) with FastSample (Theorem 6.11 / Figure 5 parameters:
  gamma = beta/(8|X|), beta_1 = beta/4), |X| = 2^64, eps = 1/10, beta = 1/20, n rows for
  each n in --sizes.  Timed: one release through the SparseHistogram branch (the branch
  taken with probability 1 - beta_1; the other branch costs O(n) draws).
* StabilityHistogram (Algorithm 5.4, Theorem 5.6 parameters), n = 10^6 rows over 2^64,
  eps = 1/10, delta = 10^-6, beta0 = 1/20, padded (strict time: n draws), OS CSPRNG,
  against OpenDP's ``count_by`` + ``laplace_threshold`` on the same rows (u64 = row - 1)
  at (eps, delta) = (1/10, 10^-6) for replace-one neighbours (symmetric distance 2: scale
  20, the least threshold with delta <= 10^-6), in ONE process, interleaved (the order
  alternates between repetitions), with the ratio of the medians.  Timed on both sides:
  from the Python list of rows to the released histogram (exactdp: Dataset.of + release;
  OpenDP: the measurement called on the list); building the mechanisms is reported apart.

PureSparse data: a few heavy hitters plus uniformly random 64-bit identifiers (seeded), and
a seeded source, so that runs are reproducible; release_s is the median of three releases
of one mechanism (seeds 1-3; the first, which builds the mechanism's tables, is also shown as
first_release_s).  Each PureSparse measurement runs in a child process with a timeout (--timeout seconds); a run that exceeds it is reported as
"> timeout".  The machine may be shared: compare ratios, not seconds.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import subprocess
import sys
import time
import warnings
from fractions import Fraction
from itertools import pairwise
from math import log  # display of measured growth only
from pathlib import Path
from statistics import median

EPSILON = Fraction(1, 10)
BETA = Fraction(1, 20)
DELTA = Fraction(1, 10**6)
UNIVERSE = 2**64


def _rows(n: int, seed: int = 2024) -> list[int]:
    rng = random.Random(seed)
    heavy = [rng.randrange(1, UNIVERSE + 1) for _ in range(5)]
    rows = []
    for i in range(n):
        if i % 2 == 0:
            rows.append(heavy[(i // 2) % len(heavy)])
        else:
            rows.append(rng.randrange(1, UNIVERSE + 1))
    return rows


def _one_pure(n: int, profile: bool) -> dict[str, object]:
    from exactdp.histograms import Dataset, PureSparseHistogram, Universe
    from exactdp.randomness import SeededSource

    universe = Universe(UNIVERSE)
    data = Dataset.of(universe, _rows(n))
    start = time.perf_counter()
    alg = PureSparseHistogram.theorem_6_11(universe, n, EPSILON, BETA, "fastsample")
    built = time.perf_counter()
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    hist = alg.sparse.release(data, SeededSource(1))
    if prof:
        prof.disable()
    done = time.perf_counter()
    again = []  # two more releases of the same mechanism (its tables already built)
    for seed in (2, 3):
        t0 = time.perf_counter()
        alg.sparse.release(data, SeededSource(seed))
        again.append(time.perf_counter() - t0)
    out: dict[str, object] = {
        "algorithm": "PureSparseHistogram (SparseHistogram branch), FastSample", "n": n,
        "setup_s": round(built - start, 3), "first_release_s": round(done - built, 3),
        "release_s": round(median([done - built, *again]), 3),
        "bins": len(hist), "s_bits": alg.sparse.s.bit_length(), "t": alg.mechanism.t}  # type: ignore[attr-defined]
    if prof:
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(
            "approx_ord_sample|approx_bin_sample|approx_conv_exp|_product|floor_divide|"
            "noisy_counts|distinct_sample|inverse_cdf_search")
        out["profile"] = text.getvalue()
    return out


def _opendp_stability() -> tuple[object, int, str]:
    """OpenDP's count_by + laplace_threshold at (1/10, 10^-6) for replace-one neighbours."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=dp.u64)), dp.symmetric_distance()

    def make(threshold: int) -> object:
        return space >> dp.t.then_count_by(TV=dp.u32) >> dp.m.then_laplace_threshold(
            scale=20.0, threshold=threshold)

    lo, hi = 1, 1 << 14  # the least threshold whose delta at d_in = 2 is <= 10^-6
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if make(mid).map(2)[1] <= 1e-6:  # type: ignore[attr-defined]
            hi = mid
        else:
            lo = mid
    meas = make(hi)
    return meas, hi, str(meas.map(2))  # type: ignore[attr-defined]


def _stability(n: int, reps: int) -> None:
    """exactdp and OpenDP interleaved in this process; prints each run and the ratio."""

    from exactdp.histograms import Dataset, StabilityHistogram, Universe

    rows = _rows(n)
    rows_u64 = [r - 1 for r in rows]
    universe = Universe(UNIVERSE)
    start = time.perf_counter()
    alg = StabilityHistogram.theorem_5_6(universe, n, EPSILON, DELTA, BETA)
    setup = time.perf_counter() - start
    start = time.perf_counter()
    meas, threshold, privacy = _opendp_stability()
    setup_odp = time.perf_counter() - start
    print(f"# StabilityHistogram n = {n}: exactdp b = {alg.threshold}, FastSample t = "
          f"{alg.mechanism.t}, setup {setup:.2f} s; OpenDP threshold {threshold}, "  # type: ignore[attr-defined]
          f"map(2) = {privacy}, setup {setup_odp:.2f} s", flush=True)

    def ours() -> tuple[float, int]:
        t0 = time.perf_counter()
        hist = alg.release(Dataset.of(universe, rows))
        return time.perf_counter() - t0, len(hist)

    def theirs() -> tuple[float, int]:
        t0 = time.perf_counter()
        out = meas(rows_u64)  # type: ignore[operator]
        return time.perf_counter() - t0, len(out)

    times: dict[str, list[float]] = {"exactdp": [], "opendp": []}
    for rep in range(reps):
        order = [("exactdp", ours), ("opendp", theirs)]
        for name, fn in order if rep % 2 == 0 else order[::-1]:
            secs, bins = fn()
            times[name].append(secs)
            print(json.dumps({"rep": rep, "impl": name, "n": n, "release_s": round(secs, 3),
                              "bins": bins}), flush=True)
    ratio = median(times["exactdp"]) / median(times["opendp"])
    print(f"# StabilityHistogram / OpenDP (median of {reps}): "
          f"{median(times['exactdp']):.2f} s / {median(times['opendp']):.2f} s = x{ratio:.2f} "
          f"(target <= 2: {'met' if ratio <= 2 else 'missed'})", flush=True)


def _child(kind: str, n: int, timeout: float, profile: bool) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--one", kind, str(n)] + (["--profile"] if profile else [])
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # run from a checkout without installing
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if "PYTHONPATH" in env else "")
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True,
                             env=env)
    except subprocess.TimeoutExpired:
        return {"algorithm": kind, "n": n, "release_s": f"> {timeout:g} (timeout)"}
    return json.loads(res.stdout)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="1000,3000,10000")
    p.add_argument("--stability-rows", type=int, default=10**6)
    p.add_argument("--stability-reps", type=int, default=3)
    p.add_argument("--skip-stability", action="store_true")
    p.add_argument("--skip-pure", action="store_true")
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--profile", action="store_true")
    p.add_argument("--one", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    if args.one:
        n = int(args.one[1])
        print(json.dumps(_one_pure(n, args.profile)))
        return 0
    print(f"# {sys.version.split()[0]}, eps = {EPSILON}, beta = {BETA}, |X| = 2^64")
    results = []
    if not args.skip_pure:
        for n in (int(x) for x in args.sizes.split(",")):
            r = _child("pure", n, args.timeout, args.profile)
            results.append(r)
            prof = r.pop("profile", None)
            print(json.dumps(r), flush=True)
            if prof:
                print(prof, flush=True)
        timed = [(int(str(r["n"])), float(str(r["release_s"]))) for r in results
                 if not str(r["release_s"]).startswith(">")]
        for (n1, t1), (n2, t2) in [*pairwise(timed), *([(timed[0], timed[-1])]
                                                       if len(timed) > 2 else [])]:
            print(f"# growth n={n1}->{n2}: time x{t2 / t1:.1f}, "
                  f"exponent {log(t2 / t1) / log(n2 / n1):.2f}")
        at = dict(timed)
        if 3000 in at:
            print(f"# PureSparse n = 3000: median release {at[3000]:.3f} s (target <= 0.3 s: "
                  f"{'met' if at[3000] <= 0.3 else 'missed'})")
        if 1000 in at and 10000 in at:
            grow = log(at[10000] / at[1000]) / log(10)
            print(f"# PureSparse growth 10^3 -> 10^4: n^{grow:.2f} (target <= n^1.5: "
                  f"{'met' if grow <= 1.5 else 'missed'})")
    if not args.skip_stability:
        _stability(args.stability_rows, args.stability_reps)
    return 0


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
