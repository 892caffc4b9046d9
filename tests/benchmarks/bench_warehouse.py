"""Histograms from a Parquet file through DuckDB: time and peak memory, split into counting
and release (README, "Histograms from files and warehouses"; issue 15 item 3).

    python tests/benchmarks/bench_warehouse.py generate 100000000 /tmp/rows_1e8.parquet
    /usr/bin/time -v python tests/benchmarks/bench_warehouse.py measure /tmp/rows_1e8.parquet stability
    python tests/benchmarks/bench_warehouse.py measure FILE none      # counting only

``generate`` writes N rows of 64-bit elements with DuckDB itself, ``x = 1 + floor(v^3 /
10^12)`` with ``v = hash(i) mod 10^6`` (a heavy head: element 1 has about 1 % of the rows;
about 615,000 distinct elements at 10^7 and 10^8 rows).  ``measure`` counts the column with
:func:`exactdp.histograms.warehouse.count_column` and releases with eps = 1/10, beta = 1/20
(stability: delta = 10^-6), M = 2^64, FastSample, OS randomness; the peak RSS is printed after
each step (``ru_maxrss`` is the process's peak so far).  Keep the files out of the repository.
"""

from __future__ import annotations

import argparse
import resource
import time
from fractions import Fraction


def _peak_mib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _current_mib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 2**20


def generate(n: int, out: str) -> None:
    import duckdb

    start = time.perf_counter()
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"COPY (SELECT 1 + (v * v * v) // 1000000000000 AS element FROM "
                f"(SELECT (hash(range) % 1000000)::BIGINT AS v FROM range({n}))) "
                f"TO '{out}' (FORMAT parquet)")
    print(f"generated {n} rows in {time.perf_counter() - start:.1f} s, peak RSS "
          f"{_peak_mib()} MiB")


def measure(path: str, algorithm: str) -> None:
    from exactdp.histograms.data import Universe
    from exactdp.histograms.release import ReleaseRequest, release
    from exactdp.histograms.warehouse import count_column
    from exactdp.randomness import SystemSource

    universe = Universe(2**64)
    t0 = time.perf_counter()
    counted = count_column(path, universe)
    t1 = time.perf_counter()
    print(f"count: n={counted.data.n} distinct={len(counted.data.counts())} duckdb "
          f"{counted.seconds:.1f} s, validate {counted.validate_seconds:.1f} s, total "
          f"{t1 - t0:.1f} s; peak RSS {_peak_mib()} MiB, current {_current_mib()} MiB",
          flush=True)
    if algorithm == "none":
        return
    delta = Fraction(1, 10**6) if algorithm == "stability" else None
    req = ReleaseRequest(universe, Fraction(1, 10), Fraction(1, 20), delta, "fastsample")
    report = release(algorithm, req, counted.data, SystemSource())
    print(f"release {algorithm}: {time.perf_counter() - t1:.1f} s, "
          f"{len(report['histogram'])} bins; peak RSS {_peak_mib()} MiB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate")
    g.add_argument("n", type=int)
    g.add_argument("out")
    m = sub.add_parser("measure")
    m.add_argument("file")
    m.add_argument("algorithm", choices=("stability", "pure-sparse", "basic", "none"))
    args = parser.parse_args()
    if args.command == "generate":
        generate(args.n, args.out)
    else:
        measure(args.file, args.algorithm)


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
