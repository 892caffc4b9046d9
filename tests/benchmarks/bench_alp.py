"""Benchmark: exact ALP (exactdp.sparse_vectors) against OpenDP 0.16's ``make_alp_queryable``.

Plain script (not collected by pytest)::

    python tests/benchmarks/bench_alp.py                     # k = 10^3, 10^4, 10^5
    python tests/benchmarks/bench_alp.py --quick             # k = 100, 1000 (a few seconds)
    python tests/benchmarks/bench_alp.py --k 1000000 --opendp-max-k 1000000   # minutes
    python tests/benchmarks/bench_alp.py --json              # JSON only, on stdout

Both libraries run in this one process, one after the other for each ``k``, on the same
input: ``k`` distinct keys drawn uniformly from ``[1, 2^62]`` and integer values ``X`` uniform
on ``{0, ..., beta}``.  Parameters (the paper's Algorithm 4 = [S] Algorithm 1):

* ``eps = 1`` (OpenDP ``scale = 1.0``), ``alpha = 3`` (so ``p = 1/(alpha + 2) = 1/5``; OpenDP's
  ``alpha`` is an integer), ``beta = 87`` (OpenDP ``value_limit``; ``m = ceil(beta eps /
  alpha) = 29`` hash functions / columns on both sides);
* the same collision bound ``1/size_factor`` (default 10, [S] Figure 3's ``s = 10k``):

  - exactdp stores the paper's ``s x m`` matrix with ``s = size_factor * k`` rows; column ``b``
    holds at most ``k`` ones, so a cell is hit by a collision with probability ``<= k/s``;
  - OpenDP stores one array of ``S = 2^ceil(log2(size_factor * total_limit * eps / alpha))``
    bits shared by all ``m`` hash functions.  ``total_limit`` is ``k * beta``: the
    data-independent bound on ``sum x_i`` that a k-sparse input with values ``<= beta`` can
    reach (OpenDP's docs: "an upper bound if the true total is private").  At most
    ``sum y_i <= k m`` of the ``S`` bits are set, so the collision bound is again
    ``<= k m / S <= 1/size_factor``, and ``S`` is ``s * m`` rounded up to a power of two
    (``s m <= S < 2 s m``).

  So both sides flip the same kind of coin on about the same number of cells; the table shows
  both cell counts and the time per cell.
* exactdp draws from :class:`~exactdp.randomness.SystemSource` (the OS CSPRNG), OpenDP from its
  own CSPRNG.  OpenDP samples its hash functions when the measurement is built; exactdp's
  ``project`` draws its ``m`` Carter-Wegman seeds itself (``2m`` draws), inside the timing.

Columns: projection time (wall and CPU of this process, since the machine is shared), per-query
time (median over ``--queries`` keys, half in the input and half not), and space: the bits the
exactdp sketch holds (its cell store plus the released seeds) against ``s*m`` plus ``2m``
seeds of ``bit_length(P)`` bits each; OpenDP's ``S`` cells (held as one byte each, a Rust
``Vec<bool>``) plus ``m`` seeds of two 64-bit words.  Ratios are exactdp / OpenDP.

Timings are wall-clock readings printed as measured; nothing here enters a sampling path.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, TypeVar

from exactdp.randomness import SystemSource
from exactdp.sparse_vectors.alp import ALP, ALPParams

KEY_BITS = 62
UNIVERSE = 2**KEY_BITS
T = TypeVar("T")


@dataclass
class Row:
    """One line of the table (one ``k``)."""

    k: int
    s: int
    m: int
    cells_exactdp: int
    cells_opendp: int | None
    project_wall_exactdp: float
    project_cpu_exactdp: float
    project_wall_opendp: float | None
    project_cpu_opendp: float | None
    query_us_exactdp: float
    query_us_opendp: float | None
    space_bits_exactdp: int
    space_bits_paper: int
    space_bits_opendp_logical: int | None
    file_bits_exactdp: int | None
    space_bits_opendp_memory: int | None

    @property
    def project_ratio(self) -> float | None:
        if self.project_wall_opendp is None:
            return None
        return self.project_wall_exactdp / self.project_wall_opendp

    @property
    def query_ratio(self) -> float | None:
        if self.query_us_opendp is None:
            return None
        return self.query_us_exactdp / self.query_us_opendp


def _timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    gc.collect()
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def _median_us(fn: Callable[[int], object], keys: list[int]) -> float:
    times = []
    for key in keys:
        t0 = time.perf_counter()
        fn(key)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def opendp_available() -> bool:
    try:
        import opendp.prelude  # noqa: F401
    except ImportError:
        return False
    return True


def opendp_cells(k: int, beta: int, alpha: int, epsilon: int, size_factor: int) -> int:
    """OpenDP 0.16's projection size: ``2^ceil(log2(size_factor * total * scale / alpha))``
    with ``total = k * beta`` (make_alp_state in rust/src/measurements/alp/mod.rs; the float
    product is truncated to an integer before the power of two is taken).  Computed here with
    integers, which agrees with OpenDP's f64 computation whenever ``size_factor * k * beta *
    eps / alpha`` is not within rounding of a power of two."""
    v = size_factor * k * beta * epsilon // alpha
    return 1 << max(0, (v - 1).bit_length())


def run_opendp(x: dict[int, int], k: int, args: argparse.Namespace,
               qkeys: list[int]) -> tuple[float, float, float, int]:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain = dp.map_domain(dp.atom_domain(T=dp.u64), dp.atom_domain(T=dp.u32))
    metric = dp.l01inf_distance(dp.absolute_distance(T=dp.u32))
    meas = dp.m.make_alp_queryable(domain, metric, scale=float(args.epsilon),
                                   total_limit=k * args.beta, value_limit=args.beta,
                                   size_factor=args.size_factor, alpha=args.alpha)
    queryable, wall, cpu = _timed(lambda: meas(x))
    q_us = _median_us(queryable, qkeys)
    return wall, cpu, q_us, opendp_cells(k, args.beta, args.alpha, args.epsilon,
                                         args.size_factor)


def sketch_cell_bits(sketch: Any) -> int:
    """Bits the sketch's cell store occupies: 8 per byte for ``bytes``, the bit length (rounded
    up to whole 64-bit words, as CPython stores it in 30-bit digits: close enough) for an int."""
    bits = sketch.bits
    if isinstance(bits, (bytes, bytearray)):
        return 8 * len(bits)
    if isinstance(bits, int):
        return bits.bit_length()
    return 8 * sys.getsizeof(bits)


def run_exactdp(x: dict[int, int], k: int, args: argparse.Namespace,
                qkeys: list[int]) -> tuple[float, float, float, int, int, int, int, int | None]:
    s = args.size_factor * k
    params = ALPParams.from_paper(Fraction(args.epsilon), Fraction(args.alpha),
                                  Fraction(args.beta), s, k, UNIVERSE)
    alp = ALP(params)
    source = SystemSource()
    sketch, wall, cpu = _timed(lambda: alp.project(x, source))
    q_us = _median_us(sketch.estimate, qkeys)
    m = params.columns
    prime_bits = _prime_bits(alp, sketch)
    paper_bits = s * m + 2 * m * prime_bits
    held = sketch_cell_bits(sketch) + 2 * m * prime_bits
    return wall, cpu, q_us, s, m, held, paper_bits, file_bits(sketch)


def file_bits(sketch: Any) -> int | None:
    """Bits of the sketch's validated file (:mod:`exactdp.sparse_vectors.sketch_file`: JSON,
    cells in base64, seeds in decimal, SHA-256 seal), if that module is present."""
    try:
        from exactdp.sparse_vectors.sketch_file import dumps
    except ImportError:
        return None
    return 8 * len(dumps(sketch).encode("utf-8"))


def _prime_bits(alp: Any, sketch: Any) -> int:
    """``bit_length(P)`` of the Carter-Wegman prime (from the hash family's description)."""
    hashes = getattr(alp, "hashes", None)
    prime = getattr(hashes, "prime", None)
    if prime is None:
        prime = max(max(seed.a, seed.b) for seed in sketch.seeds) + 1
    return int(prime).bit_length()


def bench(ks: list[int], args: argparse.Namespace, log: Callable[[str], None]) -> list[Row]:
    rows = []
    have_opendp = opendp_available() and not args.no_opendp
    for k in ks:
        rng = random.Random(args.seed + k)
        keys = rng.sample(range(1, UNIVERSE + 1), k)
        x = {key: rng.randint(0, args.beta) for key in keys}
        nq = min(args.queries, 2 * k)
        qkeys = keys[: nq // 2] + [rng.randrange(1, UNIVERSE + 1) for _ in range(nq - nq // 2)]
        ex = run_exactdp(x, k, args, qkeys)
        log(f"k = {k}: exactdp projection {ex[0]:.2f} s, query {ex[2]:.1f} us")
        od: tuple[float, float, float, int] | None = None
        if have_opendp and k <= args.opendp_max_k:
            od = run_opendp(x, k, args, qkeys)
            log(f"k = {k}: OpenDP projection {od[0]:.2f} s, query {od[2]:.1f} us")
        rows.append(Row(
            k=k, s=ex[3], m=ex[4], cells_exactdp=ex[3] * ex[4],
            cells_opendp=None if od is None else od[3],
            project_wall_exactdp=ex[0], project_cpu_exactdp=ex[1],
            project_wall_opendp=None if od is None else od[0],
            project_cpu_opendp=None if od is None else od[1],
            query_us_exactdp=ex[2], query_us_opendp=None if od is None else od[2],
            space_bits_exactdp=ex[5], space_bits_paper=ex[6],
            space_bits_opendp_logical=None if od is None else od[3] + 128 * ex[4],
            space_bits_opendp_memory=None if od is None else 8 * od[3] + 128 * ex[4],
            file_bits_exactdp=ex[7],
        ))
    return rows


def _f(v: float | None, fmt: str, unit: str = "") -> str:
    return "-" if v is None else format(v, fmt) + unit


def print_table(rows: list[Row], args: argparse.Namespace) -> None:
    print(f"ALP projection, eps = {args.epsilon}, alpha = {args.alpha} (p = 1/{args.alpha + 2}), "
          f"beta = {args.beta}, s = {args.size_factor}k rows (OpenDP size_factor "
          f"{args.size_factor}, total_limit = k*beta), keys uniform in [1, 2^{KEY_BITS}]")
    print("| k | s x m (exactdp cells) | OpenDP cells S | projection exactdp | OpenDP | ratio "
          "| CPU exactdp | OpenDP | ratio | ns/cell exactdp | OpenDP | query exactdp | OpenDP | ratio | exactdp bits "
          "| s*m + seeds | ratio | file bits | OpenDP bits (S + seeds) |")
    print("|" + "---|" * 19)
    for r in rows:
        ns_ex = 1e9 * r.project_wall_exactdp / r.cells_exactdp
        ns_od = (None if r.cells_opendp is None or r.project_wall_opendp is None
                 else 1e9 * r.project_wall_opendp / r.cells_opendp)
        cpu_ratio = (None if r.project_cpu_opendp is None
                     else r.project_cpu_exactdp / r.project_cpu_opendp)
        print(f"| {r.k} | {r.s} x {r.m} = {r.cells_exactdp} | {_f(r.cells_opendp, 'd')} "
              f"| {r.project_wall_exactdp:.3f} s | {_f(r.project_wall_opendp, '.3f', ' s')} "
              f"| {_f(r.project_ratio, '.2f')} | {r.project_cpu_exactdp:.3f} s "
              f"| {_f(r.project_cpu_opendp, '.3f', ' s')} | {_f(cpu_ratio, '.2f')} "
              f"| {ns_ex:.0f} | {_f(ns_od, '.0f')} "
              f"| {r.query_us_exactdp:.1f} us | {_f(r.query_us_opendp, '.1f', ' us')} "
              f"| {_f(r.query_ratio, '.2f')} | {r.space_bits_exactdp} | {r.space_bits_paper} "
              f"| {r.space_bits_exactdp / r.space_bits_paper:.3f} "
              f"| {_f(r.file_bits_exactdp, 'd')} "
              f"| {_f(r.space_bits_opendp_logical, 'd')} |")
    if len(rows) > 1:
        base = rows[0]
        growth = ", ".join(
            f"k={r.k}: {r.project_wall_exactdp / base.project_wall_exactdp:.1f}x time for "
            f"{r.k // base.k}x k" for r in rows[1:])
        print(f"exactdp projection growth vs k={base.k}: {growth}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="k = 100 and 1000, 200 queries")
    ap.add_argument("--k", type=int, nargs="+", default=None,
                    help="sparsities (default 1000 10000 100000)")
    ap.add_argument("--opendp-max-k", type=int, default=100_000,
                    help="largest k given to OpenDP (its k = 10^6 projection takes minutes)")
    ap.add_argument("--no-opendp", action="store_true", help="exactdp only")
    ap.add_argument("--queries", type=int, default=4000, help="keys timed per k")
    ap.add_argument("--epsilon", type=int, default=1)
    ap.add_argument("--alpha", type=int, default=3)
    ap.add_argument("--beta", type=int, default=87)
    ap.add_argument("--size-factor", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2024, help="seed of the *input* (keys, values)")
    ap.add_argument("--json", action="store_true", help="JSON only, on stdout")
    args = ap.parse_args(argv)
    if args.k is None:
        args.k = [100, 1000] if args.quick else [1000, 10_000, 100_000]
    if args.quick:
        args.queries = min(args.queries, 200)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rows = bench(args.k, args, log)
    if args.json:
        out = {
            "parameters": {"epsilon": args.epsilon, "alpha": args.alpha, "beta": args.beta,
                           "size_factor": args.size_factor, "key_bits": KEY_BITS,
                           "opendp": opendp_available() and not args.no_opendp},
            "rows": [asdict(r) | {"project_ratio": r.project_ratio,
                                  "query_ratio": r.query_ratio} for r in rows],
        }
        json.dump(out, sys.stdout, indent=1)
        print()
    else:
        print_table(rows, args)
    return 0


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
