"""Benchmark: exactdp's exact private XOR convolution (paper 002's Algorithm 1 on ``Z_2^d``,
:class:`~exactdp.convolution.mechanism.WalshFourierMechanism`) against a numpy float FFT/WHT +
Laplace implementation of Algorithm 1 (``conv_float.py``), in the same process.

Plain script (not collected by pytest)::

    python tests/benchmarks/bench_convolution.py                 # N = 2^16, 2^20 + sweep
    python tests/benchmarks/bench_convolution.py --quick         # N = 2^8, 2^10 (seconds)
    python tests/benchmarks/bench_convolution.py --json          # JSON only, on stdout
    python tests/benchmarks/bench_convolution.py --cyclic 64,128 # + the O(N^2) cyclic release
    python tests/benchmarks/bench_convolution.py --filter both --sweep ""   # the README table

Workload: ``x`` a histogram of ``n = --events`` (default 1000) events placed uniformly at random
in ``N`` bins, domain ``histograms(N, n)``; ``h = (1, 1, 0, ..., 0)`` (a two-tap sum: half of the
Walsh eigenvalues are 2, half 0, so a release makes ``N/2`` noise draws) or ``--filter random``
(0/1 taps, almost every eigenvalue non-zero and many distinct ratios: ``~N`` draws from hundreds
of samplers), or ``--filter both``; ``eps = 1``, ``delta = 1e-6``.  Calibration
(``--accounting``, default zcdp, which is fast at large ``N``; ``exact`` is the library default)
is public set-up, timed separately; ``--ratio-grid`` (default ``reciprocal``: ratios
``1 + 1/m``, smaller ``D``; ``fractions`` is the library default).  The MSE cost of the grid is
measured in the same run: the mechanism's exact ``mse_bound`` over the one the other grid gives
(a calibration and an exact sum, untimed).

Columns: set-up (calibration + building the samplers; the CDF tables are built during the
release, class by class, and counted in noise), the release split into transform (``W x``,
fixed-schedule integer fast WHT), noise (one strict-time clamped geometric draw per kept row,
OS CSPRNG) and reconstruction (``W (lambda o c~) / N`` as exact Fractions); the float
Algorithm 1 on ``Z_2^d`` (WHT) and on ``Z_N`` (rfft, the P2 repair) with the same split.  The
sweep reports ``release / (N log2 N)`` and ``noise / draws``: flat columns mean the cost grows
as ``N log N`` plus the draws.

Timings are wall-clock readings printed as measured (the machine is shared), plus the CPU
seconds of this process for set-up + release (``time.process_time``: user + system, the OS
reads included; near the wall time of an unloaded machine, since the release is one thread);
nothing here enters a sampling path.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conv_float import algorithm1_cyclic, algorithm1_xor

from exactdp.convolution import Domain
from exactdp.convolution.calibration import calibrate, noise_cost
from exactdp.convolution.mechanism import WalshFourierMechanism
from exactdp.randomness import SystemSource

EPS, DELTA = Fraction(1), Fraction(1, 10**6)


def workload(n: int, events: int, kind: str, seed: int) -> tuple[list[int], list[int]]:
    rng = random.Random(seed * 1_000_003 + n)
    x = [0] * n
    for _ in range(events):
        x[rng.randrange(n)] += 1
    if kind == "pair":
        h = [1, 1] + [0] * (n - 2)
    else:
        h = [rng.randrange(2) for _ in range(n)]
        h[0] = 1
    return x, h


def exact_row(n: int, args: argparse.Namespace, kind: str) -> dict[str, Any]:
    x, h = workload(n, args.events, kind, args.seed)
    t0, c0 = time.perf_counter(), time.process_time()
    mech = WalshFourierMechanism(h, Domain.histograms(n, args.events), epsilon=EPS, delta=DELTA,
                                 accounting=args.accounting, ratio_grid=args.ratio_grid)
    setup = time.perf_counter() - t0
    release = mech.release(x, SystemSource(), timed=True)
    cpu = time.process_time() - c0
    s = release.seconds
    total = s["transform"] + s["noise"] + s["reconstruction"]
    other = "fractions" if args.ratio_grid == "reciprocal" else "reciprocal"
    squares = [v * v for v in mech.eigenvalues]
    other_cost = noise_cost(calibrate(mech.eigenvalues, EPS, DELTA, accounting=args.accounting,
                                      ratio_grid=other), squares)
    row: dict[str, Any] = {
        "filter": kind, "N": n, "draws": release.draws, "samplers": mech.noise.distinct,
        "tables": sum(mech.noise.tabulated), "D_bits_max": max(s.d.bit_length()
                                                               for s in mech.noise.classes),
        "setup_s": setup,
        "transform_s": s["transform"], "noise_s": s["noise"],
        "reconstruction_s": s["reconstruction"], "release_s": total,
        "setup_plus_release_s": setup + total, "setup_plus_release_cpu_s": cpu,
        "release_per_NlogN_ns": 1e9 * total / (n * max(1, int(math.log2(n)))),
        "noise_per_draw_us": 1e6 * s["noise"] / max(1, release.draws),
        "mse_bound": float(mech.mse_bound()),
        "mse_over_other_grid": float(mech.mse_bound() * n * n / other_cost),
    }
    try:
        import numpy as np
    except ImportError:
        return row
    rng = np.random.default_rng(args.seed)
    fx = algorithm1_xor(x, h, float(EPS), float(DELTA), rng, accounting="zcdp")
    fc = algorithm1_cyclic(x, h, float(EPS), float(DELTA), rng, accounting="zcdp")
    row.update({
        "float_xor_s": fx.total, "float_xor_split": [fx.transform, fx.noise, fx.reconstruction],
        "float_fft_s": fc.total, "float_fft_split": [fc.transform, fc.noise, fc.reconstruction],
        "exact_over_float_xor": total / fx.total,
    })
    return row


def cyclic_row(n: int, args: argparse.Namespace) -> dict[str, Any]:
    from exactdp.convolution.cyclic import CyclicFourierMechanism

    x, h = workload(n, args.events, args.filter, args.seed)
    t0 = time.perf_counter()
    mech = CyclicFourierMechanism(h, Domain.histograms(n, args.events), strategy="real-fourier",
                                  epsilon=EPS, delta=DELTA, accounting=args.accounting)
    setup = time.perf_counter() - t0
    release = mech.release(x, SystemSource(), timed=True)
    s = release.seconds
    return {"N": n, "setup_s": setup, "transform_s": s["transform"], "noise_s": s["noise"],
            "reconstruction_s": s["reconstruction"],
            "release_s": s["transform"] + s["noise"] + s["reconstruction"],
            "draws": release.draws}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", help="comma-separated log2 N of the main table")
    ap.add_argument("--sweep", help="comma-separated log2 N of the growth sweep")
    ap.add_argument("--cyclic", default="", help="comma-separated N for the cyclic release")
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--filter", choices=("pair", "random", "both"), default="pair")
    ap.add_argument("--ratio-grid", choices=("reciprocal", "fractions"), default="reciprocal")
    ap.add_argument("--accounting", default="zcdp", choices=("exact", "zcdp", "drv"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--out", help="also write the JSON here")
    args = ap.parse_args(argv)
    if args.quick:
        sizes = [8, 10]
        sweep = [6, 8, 10, 12]
    else:
        sizes = [16, 20]
        sweep = [10, 12, 14, 16, 18, 20]
    if args.sizes:
        sizes = [int(v) for v in args.sizes.split(",")]
    if args.sweep is not None:
        sweep = [int(v) for v in args.sweep.split(",") if v]

    def log(msg: str) -> None:
        if not args.json:
            print(msg, file=sys.stderr, flush=True)

    kinds = ["pair", "random"] if args.filter == "both" else [args.filter]
    rows = []
    for kind in kinds:
        for d in sizes:
            log(f"{kind} filter, N = 2^{d} ...")
            rows.append(exact_row(2**d, args, kind))
    growth = []
    for d in sweep:
        done = next((r for r in rows if r["N"] == 2**d and r["filter"] == kinds[0]), None)
        growth.append(done if done is not None else exact_row(2**d, args, kinds[0]))
    cyc = [cyclic_row(int(v), args) for v in args.cyclic.split(",") if v]
    doc = {"parameters": {"epsilon": str(EPS), "delta": str(DELTA), "events": args.events,
                          "filter": args.filter, "accounting": args.accounting,
                          "ratio_grid": args.ratio_grid},
           "rows": rows, "sweep": growth, "cyclic": cyc}
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(table(doc))
    return 0


def table(doc: dict[str, Any]) -> str:
    out = [("| filter | N | draws | samplers (tables) | set-up s | transform s | noise s | "
            "reconstruction s | release s | set-up + release s | float WHT Alg. 1 s | "
            "float FFT Alg. 1 s | exact / float WHT | MSE / other grid's | "
            "CPU s (set-up + release) |"),
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        out.append(f"| {r['filter']} | 2^{int(math.log2(r['N']))} | {r['draws']} | "
                   f"{r['samplers']} ({r['tables']}) | {r['setup_s']:.2f} | "
                   f"{r['transform_s']:.3f} | {r['noise_s']:.3f} | {r['reconstruction_s']:.3f} | "
                   f"{r['release_s']:.2f} | {r['setup_s'] + r['release_s']:.2f} | "
                   f"{r.get('float_xor_s', float('nan')):.4f} | "
                   f"{r.get('float_fft_s', float('nan')):.4f} | "
                   f"{r.get('exact_over_float_xor', float('nan')):.0f}x | "
                   f"{r['mse_over_other_grid']:.5f} | {r['setup_plus_release_cpu_s']:.2f} |")
    out += ["", "| N | release s | ns per N log2 N | noise us per draw |", "|---|---|---|---|"]
    for r in doc["sweep"]:
        out.append(f"| 2^{int(math.log2(r['N']))} | {r['release_s']:.3f} | "
                   f"{r['release_per_NlogN_ns']:.0f} | {r['noise_per_draw_us']:.1f} |")
    if doc["cyclic"]:
        out += ["", "| cyclic N | set-up s | transform s | noise s | reconstruction s | draws |",
                "|---|---|---|---|---|---|"]
        for r in doc["cyclic"]:
            out.append(f"| {r['N']} | {r['setup_s']:.2f} | {r['transform_s']:.3f} | "
                       f"{r['noise_s']:.3f} | {r['reconstruction_s']:.3f} | {r['draws']} |")
    return "\n".join(out)


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
