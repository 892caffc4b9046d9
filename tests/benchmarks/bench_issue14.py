"""All five speed targets of issue 14 in one run (plain script; pytest does not collect it).

    python tests/benchmarks/bench_issue14.py                 # everything, about 5-8 minutes
    python tests/benchmarks/bench_issue14.py --skip-verify   # targets 1-4 only

Runs, one after the other, on the same machine:

1-3. ``bench_samplers.py`` (GeoSample against OpenDP's bounded mode, FastSample against
     reading its bits from the OS, 10^6 draws against OpenDP's vector geometric);
4.   ``bench_histograms.py --sizes 1000,3000,10000`` (StabilityHistogram on 10^6 rows against
     OpenDP's count_by + laplace_threshold; PureSparseHistogram release times and growth);
5.   ``exactdp verify --quick`` in a child process, its CPU time (user + system) read from
     ``resource.getrusage(RUSAGE_CHILDREN)``.

Each part prints its own lines (ratios, with the targets); the load average is printed before
and after, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _run(args: list[str]) -> int:
    print(f"$ {' '.join(args)}", flush=True)
    return subprocess.call(args)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--skip-verify", action="store_true", help="skip target 5")
    p.add_argument("--stability-reps", default="3", help="repetitions of target 4a")
    args = p.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load average {_load()}",
          flush=True)
    status = _run([sys.executable, str(HERE / "bench_samplers.py")])
    status |= _run([sys.executable, str(HERE / "bench_histograms.py"), "--sizes",
                    "1000,3000,10000", "--stability-reps", args.stability_reps])
    if not args.skip_verify:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", "exactdp.cli", "verify", "--quick"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(f"5. exactdp verify --quick: exit {code}, CPU {cpu:.1f} s (user "
              f"{after.ru_utime - before.ru_utime:.1f} + system "
              f"{after.ru_stime - before.ru_stime:.1f}), wall {wall:.1f} s; target <= 30 s of "
              f"CPU: {'met' if cpu <= 30 and code == 0 else 'MISSED'}", flush=True)
        status |= code
    print(f"# done, load average {_load()}")
    return status


if __name__ == "__main__":
    import record

    raise SystemExit(record.run(main, __file__))
