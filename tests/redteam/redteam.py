"""A red-team run of the ``exactdp`` command: a few hundred bad inputs and faults, each run
as its own process, every outcome classified.

Run it from the checkout's root::

    python tests/redteam/redteam.py [--jobs 2] [--verbose] [--only TEXT]

It prints one line per case that is not clean and a table of counts by class:

* ``clear``      -- the expected refusal: status 2, exactly one line on stderr, nothing on
  standard output (or a fault reported in one line with status 1 or 2; 130 for Ctrl-C);
* ``ok``         -- a run that was allowed to succeed and did (its oracle, if any, agreed);
* ``silent``     -- a wrong answer with status 0: a bad input accepted, or an output its
  oracle refutes (a tampered release answered, a NaN row dropped, ...);
* ``unclear``    -- a refusal that is not one line, or output on stdout with status 2;
* ``status``     -- an exit status outside the table for the case (4 included: ``status4``);
* ``traceback``  -- a Python traceback on stderr;
* ``hang``       -- more than the case's wall-clock bound (60 s, or its --max-seconds plus
  slack).

The cases are generated from one valid command line per command: each option's value is
replaced by malformed, huge, negative, NaN, ``1e10000`` and ``--x=--5`` forms; input files are
tampered, truncated, binary, or NPY files with huge integers in their header; standard output
is ``/dev/full`` or closed; ``--output`` points where nothing can be written; Ctrl-C arrives
mid-run; work is bounded by a small ``--max-seconds``.  The exit status is 0 when no case is
``silent``, ``status``, ``traceback`` or ``hang``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BAD_CLASSES = ("silent", "status4", "status", "traceback", "hang")
#: Processor-time bound of one case (the red team's "hang": 60 s, the default
#: --max-seconds, plus slack for start-up and the estimate); a case with its own
#: --max-seconds S gets S plus the same slack.
HANG_SECONDS = 75
#: Wall-clock bound of one case, whatever the load of the machine.
WALL_SECONDS = 300


@dataclass
class Case:
    """One run: ``expect`` is ``"refuse"`` (status 2, one line), ``"any"`` (a clean
    refusal or a success), ``"ok"`` (must succeed), ``"fault"`` (a write fault: status 1 or
    2, one line), ``"interrupt"`` (Ctrl-C: 130 or a finished run), ``"deadline"`` (stops
    within --max-seconds plus slack, status 1 or 2, or finishes)."""

    kind: str
    argv: list[str]
    expect: str
    stdout: str = "pipe"  # "pipe", "full" (/dev/full) or "closed"
    stdin: bytes | None = None
    sigint_after: float | None = None
    bound: float = HANG_SECONDS
    oracle: Callable[[str], str | None] | None = None
    seen: dict[str, object] = field(default_factory=dict)


# --------------------------------------------------------------------------- values

#: Values no numeric option accepts.
BAD_NUMBERS = ["-1", "nan", "NaN", "inf", "-inf", "1e10000", "-1e10000", "--5", "1/0", "abc",
               "", " ", "0x10", "1_0", "\u0661", "\uff12", "9" * 5000, "-" + "9" * 400,
               "1e", "1/", "/2", "1//2", "1.2.3", "++1", "1e-10000x"]
#: Values a positive option refuses, but whose meaning depends on the option.
EDGE_NUMBERS = ["0", "1e-10000", "1e-100", "9" * 400, "100000000", "1.5", "1e3", "-0"]
#: Options whose value may be any integer (seeds): only crashes are bad there.
SEEDS = {"--seed", "--plan-seed"}
#: Options with a bounded range, which 1e10000 (an exact integer) is outside; for the others
#: it is a valid, huge value: refused by a cap or run within bounds, never a crash or hang.
BOUNDED = {"--epsilon", "--delta", "--gamma", "--claimed-epsilon", "--beta"}
#: The commands whose --beta is an integer (a change of one coordinate, a grid value), not
#: a probability.
INTEGER_BETA = {"project-signs", "project-values", "sparse-project", "check-alp",
                "check-sign-oporp"}


def npy(header: str, body: bytes = b"") -> bytes:
    raw = header.encode("latin-1")
    if len(raw) > 0xFFFF:  # version 2.0: a 4-byte header length
        return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(raw)) + raw + body
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(raw)) + raw + body


TAMPERED_FILES: dict[str, bytes] = {
    "empty": b"",
    "binary": bytes(range(256)) * 4,
    "utf16": "1,2\n3,4\n".encode("utf-16"),
    "nul": b"1\x002\n",
    "nan-row": b"nan,nan,nan,nan\n1,2,3,4\n1,1,1,1\n",
    "inf": b"inf,1,1,1\n",
    "huge-int": b"9" * 100000 + b",1,1,1\n",
    "huge-exponent": b"1e10000,1,1,1\n",
    "ragged": b"1,2\n1,2,3\n",
    "long-line": b"1," * 200000 + b"1\n",
    "npy-huge-shape": npy("{'descr': '<i8', 'fortran_order': False, 'shape': ("
                          + "9" * 3_000_000 + ",), }"),
    "npy-huge-header-int": npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2, "
                               + "9" * 5000 + "), }"),
    "npy-float": npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }",
                     b"\x00" * 64),
    "npy-short-body": npy("{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }",
                          b"\x00" * 16),
    "npy-bad-magic": b"\x93NUMPY\x09\x00",
    "npy-len-ffff": b"\x93NUMPY\x01\x00\xff\xff",
    "json-deep": b"[" * 100000,
    "json-huge-number": b'{"n": ' + b"9" * 100000 + b"}",
}


# --------------------------------------------------------------------------- the cases

@dataclass
class Setup:
    """The work directory with the valid inputs every baseline reads."""

    work: Path
    files: dict[str, Path]
    counter: list[int] = field(default_factory=lambda: [0])

    def fresh(self, stem: str) -> str:
        """A path in the work directory that does not exist yet."""
        self.counter[0] += 1
        return str(self.work / f"{stem}-{self.counter[0]}")


def _exactdp(argv: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "exactdp.cli", *argv], cwd=ROOT,
                          capture_output=True, timeout=300, check=False, **kw)  # type: ignore[call-overload]


def make_setup(work: Path) -> Setup:
    files = {"h.txt": b"1\n3\n3\n5\n", "v.csv": b"1,2,3,4\n0,1,1,1\n-2,0,5,1\n",
             "sv.csv": b"1,5\n3,2\n", "c.txt": b"0\n1\n2\n1\n"}
    paths = {}
    for name, content in files.items():
        paths[name] = work / name
        paths[name].write_bytes(content)
    setup = Setup(work, paths)
    rel = work / "release.json"
    done = _exactdp(["histogram", str(paths["h.txt"]), "--algorithm", "basic",
                     "--universe-size", "8", "--epsilon", "1", "--seed", "1", "--quiet",
                     "--output", str(rel)])
    assert done.returncode == 0, done.stderr
    paths["release.json"] = rel
    sketch = work / "sketch.json"
    done = _exactdp(["sparse-vector", "project", str(paths["sv.csv"]), "--epsilon", "1",
                     "--beta", "4", "--rows", "4", "--sparsity", "4", "--universe-size", "16",
                     "--seed", "1", "--output", str(sketch), "--quiet"])
    assert done.returncode == 0, done.stderr
    paths["sketch.json"] = sketch
    for i in (1, 2):
        rec = work / f"sample{i}.json"
        done = _exactdp(["sample", "geosample", "--n", "8", "--epsilon", "1/2", "--count",
                         "3", "--seed", str(i), "--json", "--output", str(rec)])
        assert done.returncode == 0, done.stderr
        paths[f"sample{i}.json"] = rec
    results = work / "results.jsonl"
    done = _exactdp(["verify", "--only", "lemma_3_02", "--results", str(results)])
    assert done.returncode == 0, done.stderr
    paths["results.jsonl"] = results
    return setup


def baselines(s: Setup) -> dict[str, list[str]]:
    """One valid command line per command (``OUT`` is replaced by a fresh path)."""
    f = s.files
    return {
        "sample": ["sample", "geosample", "--n", "8", "--epsilon", "1/2", "--count", "3",
                   "--seed", "1", "--draws", "3"],
        "sample-fast": ["sample", "fastsample", "--n", "8", "--epsilon", "1/2", "--gamma",
                        "1/10", "--count", "3", "--seed", "1"],
        "distribution": ["distribution", "geosample", "--n", "8", "--epsilon", "1/2",
                         "--count", "3"],
        "check-geosample": ["check", "geosample", "--n", "4", "--epsilon", "1/4"],
        "check-fastsample": ["check", "fastsample", "--n", "4", "--epsilon", "1/4",
                             "--gamma", "1/10"],
        "check-alp": ["check", "alp", "--epsilon", "1", "--alpha", "1", "--rows", "1",
                      "--universe-size", "2", "--sparsity", "1"],
        "check-sign-oporp": ["check", "sign-oporp", "--epsilon", "1", "--rho", "3/2", "--p",
                             "2", "--k", "1", "--beta", "1", "--bound", "1"],
        "check-convolution": ["check", "convolution", "--group", "xor", "--filter",
                              "1,1,0,0", "--domain", "histograms:n=4", "--epsilon", "1",
                              "--delta", "1/1000"],
        "histogram": ["histogram", str(f["h.txt"]), "--algorithm", "basic", "--universe-size",
                      "8", "--epsilon", "1", "--seed", "1", "--quiet"],
        "query": ["query", str(f["release.json"]), "3"],
        "project-signs": ["project", "signs", str(f["v.csv"]), "--k", "2", "--epsilon", "1",
                          "--beta", "1", "--bound", "5", "--plan-seed", "1", "--seed", "2"],
        "project-values": ["project", "values", "--method", "rp", str(f["v.csv"]), "--k",
                           "2", "--epsilon", "1", "--beta", "1", "--bound", "5",
                           "--plan-seed", "1", "--seed", "2"],
        "sparse-project": ["sparse-vector", "project", str(f["sv.csv"]), "--epsilon", "1",
                           "--beta", "4", "--rows", "4", "--sparsity", "4", "--universe-size",
                           "16", "--seed", "1", "--quiet", "--output", "OUT"],
        "sparse-query": ["sparse-vector", "query", str(f["sketch.json"]), "1"],
        "convolve": ["convolve", "--group", "xor", "--filter", "1,1,0,0", "--domain",
                     "histograms:n=4", "--epsilon", "1", "--delta", "1/1000", "--seed", "1",
                     "--quiet", str(f["c.txt"])],
        "plot-loss": ["plot", "loss", "geosample", "--n", "4", "--epsilon", "1/2",
                      "--output", "OUT.png"],
        "plot-pmf": ["plot", "pmf", "geosample", "--n", "4", "--epsilon", "1/2", "--count",
                     "1", "--output", "OUT.svg"],
        "plot-accuracy": ["plot", "accuracy", "geosample", "--n", "4", "--epsilon", "1/2",
                          "--beta", "1/3", "--output", "OUT.png"],
        "account": ["account", str(f["sample1.json"]), str(f["sample2.json"])],
        "account-epsilon": ["account", str(f["sample1.json"]), str(f["sample2.json"]),
                            "--epsilon", "1/4", "--max-seconds", "30"],
        "account-delta": ["account", str(f["sample1.json"]), "--delta", "1/1000"],
        "account-ratio": ["account", str(f["sample2.json"]), "--ratio", "3/2"],
        "verify": ["verify", "--only", "lemma_3_02"],
        "tutorial": ["tutorial"],
    }


def _fill(argv: list[str], s: Setup) -> list[str]:
    out = []
    for a in argv:
        if a.startswith("OUT"):
            a = s.fresh("out") + a[3:]
        out.append(a)
    return out


def _options(argv: list[str]) -> list[tuple[int, str]]:
    """The (index, name) of every option that takes a value in ``argv``."""
    return [(i, a) for i, a in enumerate(argv[:-1])
            if a.startswith("--") and not argv[i + 1].startswith("--")
            and a not in ("--output", "--only", "--method", "--group", "--domain",
                          "--algorithm", "--filter", "--results")]


def value_cases(s: Setup) -> list[Case]:
    """Each option's value replaced by bad and edge values, in the ``--x=VALUE`` form."""
    cases = []
    m = 0
    for name, base in baselines(s).items():
        for i, opt in _options(base):
            m += 1  # two fixed bad values, two rotating ones and one edge value per option
            rotating = [BAD_NUMBERS[(2 * m + t) % len(BAD_NUMBERS)] for t in (0, 1)]
            for value in ["--5", "1e10000", *rotating, EDGE_NUMBERS[m % len(EDGE_NUMBERS)]]:
                bounded = opt in BOUNDED and not (opt == "--beta" and name in INTEGER_BETA)
                bad = value in BAD_NUMBERS and opt not in SEEDS and not (
                    value == "1e10000" and not bounded)
                if opt in SEEDS and value in ("-1", "--5", "-0", "1e3", "100000000"):
                    bad = False
                argv = base[:i] + [f"{opt}={value}"] + base[i + 2:]
                cases.append(Case(f"{name} {opt}", _fill(argv, s),
                                  "refuse" if bad else "any"))
    return cases


def _tamper_json(path: Path) -> bytes:
    """The file with one digit of a value changed (the digest no longer matches)."""
    text = path.read_text()
    doc = json.loads(text)
    flat = json.dumps(doc)
    for key in ('"count": "', '"3": "', '"values": ["'):
        at = flat.find(key)
        if at >= 0:
            j = at + len(key)
            digit = flat[j]
            if digit.isdigit():
                return (flat[:j] + str((int(digit) + 1) % 10) + flat[j + 1:]).encode()
    raise AssertionError(f"nothing to tamper in {path}")


def file_cases(s: Setup) -> list[Case]:
    """Input files tampered, truncated, binary or oversized, for every command that reads
    one."""
    b = baselines(s)
    cases = []
    readers = {"histogram": ("h.txt", 1), "project-signs": ("v.csv", 2),
               "project-values": ("v.csv", 4), "sparse-project": ("sv.csv", 2),
               "convolve": ("c.txt", -1), "query": ("release.json", 1),
               "sparse-query": ("sketch.json", 2), "account": ("sample1.json", 1)}
    for name, (valid, at) in readers.items():
        base = b[name]
        good = s.files[valid].read_bytes()
        variants = dict(TAMPERED_FILES)
        variants["truncated"] = good[: len(good) // 2]
        variants["one-byte"] = good[:1]
        if valid.endswith(".json"):
            variants["tampered"] = _tamper_json(s.files[valid])
            variants["not-an-object"] = b"[1, 2, 3]"
            variants["extra-field"] = json.dumps({**json.loads(good), "x": 1}).encode()
        for label, content in variants.items():
            path = Path(s.fresh(f"in-{label}") + (".npy" if label.startswith("npy") else
                                                  Path(valid).suffix))
            path.write_bytes(content)
            argv = list(base)
            argv[at if at >= 0 else len(argv) + at] = str(path)
            expect = "refuse"
            oracle = None
            if label == "nan-row" and name.startswith("project"):
                oracle = _rows_kept(3)
            if label == "long-line" and name.startswith("project"):
                expect = "any"  # one valid vector of 200001 coordinates
            if (label in ("huge-int", "long-line", "ragged", "inf", "truncated", "one-byte")
                    and name in ("histogram", "convolve")):
                expect = "any"
            if label in ("empty", "truncated") and name == "sparse-project":
                expect = "any"  # the zero vector, or a prefix that is itself a vector
            if label in ("tampered", "extra-field") and name == "account":
                expect = "any"  # a sample's JSON carries no digest; its values are not read
            cases.append(Case(f"{name} file {label}", _fill(argv, s), expect, oracle=oracle))
    return cases


def _rows_kept(rows: int) -> Callable[[str], str | None]:
    def oracle(out: str) -> str | None:
        got = [line for line in out.splitlines() if line and not line.startswith("#")]
        return None if len(got) == rows else f"released {len(got)} vectors for {rows} rows"
    return oracle


def verify_cases(s: Setup) -> list[Case]:
    """verify --results/--resume with tampered lines: never reused as passing."""
    good = s.files["results.jsonl"].read_text().splitlines()
    cases = []

    def variant(label: str, lines: list[str], expect: str = "any",
                oracle: Callable[[str], str | None] | None = None) -> None:
        path = Path(s.fresh(f"results-{label}") + ".jsonl")
        path.write_text("\n".join(lines) + "\n")
        cases.append(Case(f"verify --resume {label}", ["verify", "--only", "lemma_3_02",
                                                       "--results", str(path), "--resume"],
                          expect, oracle=oracle))

    first = json.loads(good[0]) if good else {}

    def edited(**changes: object) -> str:
        return json.dumps({**first, **changes})

    def reran(out: str) -> str | None:
        return None  # the stderr check below is what matters; stdout is the table

    variant("intact", good, "ok")
    variant("truncated-line", [g[: len(g) // 2] for g in good])
    variant("binary", ["\x00\xff" * 10])
    variant("grid-full", [edited(grid="full")], oracle=reran)
    variant("verdict-only", [json.dumps({"verdict": "pass"})])
    variant("forged-claim", [edited(claim="Forged claim that always passes")])
    variant("huge-number", [edited(ns="9" * 5000)])
    for line in good:
        doc = json.loads(line)
        if isinstance(doc.get("row"), dict):
            row = dict(doc["row"])
            row["verdict"] = "fail" if row.get("verdict") == "pass" else "pass"
            variant("verdict-flipped", [json.dumps({**doc, "row": row})])
            break
    return cases


def fault_cases(s: Setup) -> list[Case]:
    """Standard output full or closed, --output where nothing can be written."""
    b = baselines(s)
    cases = []
    printing = ["sample", "distribution", "check-geosample", "histogram", "query",
                "project-signs", "convolve", "account", "sparse-query", "check-alp",
                "tutorial"]
    for name in printing:
        for how in ("full", "closed"):
            cases.append(Case(f"{name} stdout {how}", _fill(b[name], s), "fault", stdout=how))
        cases.append(Case(f"{name} --json stdout full", _fill(b[name], s) + ["--json"]
                          if name not in ("tutorial",) else _fill(b[name], s), "fault",
                          stdout="full"))
    unwritable = ["/proc/exactdp-redteam.json", "/nonexistent/dir/x.json", "/", "",
                  "/dev/full"]
    for name in ["sample", "distribution", "histogram", "project-signs", "convolve",
                 "check-geosample", "account"]:
        for target in unwritable:
            cases.append(Case(f"{name} --output {target or 'empty'}",
                              _fill(b[name], s) + ["--output", target], "fault"))
    existing = s.files["h.txt"]
    cases.append(Case("histogram --output existing", _fill(b["histogram"], s)
                      + ["--output", str(existing)], "refuse"))
    cases.append(Case("plot --output existing", ["plot", "loss", "geosample", "--n", "4",
                                                 "--epsilon", "1/2", "--output",
                                                 str(existing)], "refuse"))
    cases.append(Case("figures --output file", ["figures", "--paper", "004", "--quick",
                                                "--output", str(existing)], "refuse"))
    cases.append(Case("tutorial --run --output unwritable",
                      ["tutorial", "geosample-from-scratch", "--run", "--output",
                       "/proc/exactdp-redteam"], "any"))
    return cases


def bounded_cases(s: Setup) -> list[Case]:
    """Work that must stop at --max-seconds (or be refused by its estimate), and Ctrl-C."""
    big = Path(s.fresh("big") + ".csv")
    big.write_text("".join(f"{i % 5},{-(i % 3)},1,0," * 16 + "1\n" for i in range(20000)))
    cases = [
        Case("distribution n=20000 --max-seconds 2",
             ["distribution", "geosample", "--n", "20000", "--epsilon", "1/2", "--count",
              "3", "--max-seconds", "2"], "deadline", bound=17),
        Case("check geosample n=3000 --max-seconds 2",
             ["check", "geosample", "--n", "3000", "--epsilon", "1/2", "--max-seconds", "2"],
             "deadline", bound=17),
        Case("project values 20000 rows --max-seconds 2",
             ["project", "values", "--method", "rp", str(big), "--k", "32", "--epsilon", "1",
              "--beta", "1", "--bound", "5", "--plan-seed", "1", "--seed", "1",
              "--max-seconds", "2"], "deadline", bound=17),
        Case("project signs --k 100000000",
             ["project", "signs", str(s.files["v.csv"]), "--k", "100000000", "--epsilon",
              "1", "--beta", "1", "--bound", "5"], "refuse"),
        Case("convolve N=2^14 --max-seconds 2",
             ["convolve", "--group", "xor", "--filter", ",".join(["1"] + ["0"] * 16383),
              "--domain", "histograms:n=4", "--epsilon", "1", "--delta", "1/1000", "--seed",
              "1", "--max-seconds", "2", str(s.files["c.txt"])], "deadline", bound=17),
        Case("histogram basic M=10^7 --max-seconds 2",
             ["histogram", str(s.files["h.txt"]), "--algorithm", "basic", "--universe-size",
              "1e7", "--epsilon", "1", "--seed", "1", "--quiet", "--max-seconds", "2"],
             "deadline", bound=17),
        Case("figures 004 --quick --max-seconds 1",
             ["figures", "--paper", "004", "--quick", "--quiet", "--max-seconds", "1",
              "--output", s.fresh("figs")], "deadline", bound=16),
        Case("sample 10^7 draws --max-seconds 2",
             ["sample", "geosample", "--n", "8", "--epsilon", "1", "--count", "3", "--draws",
              "10000000", "--seed", "1", "--max-seconds", "2"], "deadline", bound=17),
        Case("verify --max-seconds 1", ["verify", "--max-seconds", "1"], "deadline",
             bound=16),
        Case("workers huge", ["verify", "--only", "lemma_3_02", "--workers", "100000"],
             "refuse"),
        Case("tutorial run --max-seconds 1", ["tutorial", "geosample-from-scratch", "--run",
                                              "--max-seconds", "1"], "deadline", bound=16),
    ]
    for argv in (["verify", "--only", "thm_4_10"],
                 ["check", "geosample", "--n", "600", "--epsilon", "1/2",
                  "--max-seconds", "600"],
                 ["distribution", "geosample", "--n", "15000", "--epsilon", "1/2",
                  "--count", "1", "--max-seconds", "600"],
                 ["tutorial", "geosample-from-scratch", "--run"]):
        for after in (0.8, 2.5):
            cases.append(Case(f"ctrl-c after {after} s: {' '.join(argv[:2])}", argv,
                              "interrupt", sigint_after=after))
    return cases


def audit_cases(s: Setup) -> list[Case]:
    base = ["audit", "exactdp.counting:GeoSample(8, '1/2')", "--kind", "whitebox",
            "--claimed-epsilon", "1/4", "--inputs", "0..3"]
    cases = []
    for i, opt in _options(base):
        for value in BAD_NUMBERS[:12]:
            cases.append(Case(f"audit {opt}", base[:i] + [f"{opt}={value}"] + base[i + 2:],
                              "any"))
    for argv in (["audit"], ["audit", "no.such:thing", "--kind", "counting",
                             "--claimed-epsilon", "1", "--inputs", "0..3"],
                 ["audit", "os:system", "--kind", "nope", "--claimed-epsilon", "1",
                  "--inputs", "0..3"],
                 [*base, "--max-seconds=--5"], [*base, "--workers=0"],
                 [*base, "--inputs=3..0"], [*base, "--inputs=0..99999999999999"]):
        cases.append(Case("audit usage", argv, "refuse"))
    return cases


def all_cases(s: Setup) -> list[Case]:
    return (value_cases(s) + file_cases(s) + verify_cases(s) + fault_cases(s)
            + bounded_cases(s) + audit_cases(s))


# --------------------------------------------------------------------------- running

def run_case(case: Case) -> tuple[str, str]:
    """Run one case; its class and a short note."""
    stdout: object = subprocess.PIPE
    closer = None
    pass_fds: tuple[int, ...] = ()
    if case.stdout == "full":
        stdout = closer = open("/dev/full", "wb")  # noqa: SIM115 - closed below
    start = time.monotonic()
    code = None
    if case.stdout == "closed":
        code = ("import os, sys, runpy; os.close(1); sys.argv = ['exactdp', *sys.argv[1:]]; "
                "runpy.run_module('exactdp.cli', run_name='__main__')")
    timing = tempfile.NamedTemporaryFile(prefix="exactdp-redteam-", suffix=".time",  # noqa: SIM115
                                         delete=False)
    timing.close()
    cmd = ["/usr/bin/time", "-o", timing.name, "-f", "%U %S"] + (
        [sys.executable, "-c", code, *case.argv] if code
        else [sys.executable, "-m", "exactdp.cli", *case.argv])
    proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE if case.stdin else
                            subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE,
                            pass_fds=pass_fds, start_new_session=True)
    try:
        if case.sigint_after is not None:
            try:
                proc.wait(case.sigint_after)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGINT)  # the command; /usr/bin/time ignores it
        out, err = proc.communicate(case.stdin, timeout=WALL_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "hang", f"over {WALL_SECONDS} s of wall-clock time"
    finally:
        if closer is not None:
            closer.close()
    seconds = time.monotonic() - start
    try:
        user, system = Path(timing.name).read_text().split()[-2:]
        cpu = float(user) + float(system)
    except ValueError:
        cpu = seconds
    finally:
        os.unlink(timing.name)
    case.seen.update(rc=proc.returncode, seconds=round(seconds, 1), cpu=round(cpu, 1))
    if cpu > case.bound:
        return "hang", f"{cpu:.0f} s of processor time > {case.bound:.0f} s"
    text = err.decode("utf-8", "replace")
    lines = [line for line in text.splitlines() if line.strip()]
    stdout_text = (out or b"").decode("utf-8", "replace")
    rc = proc.returncode
    note = (lines[-1][:200] if lines else "")
    if "Traceback" in text:
        return "traceback", text.strip().splitlines()[-1][:200]
    if rc == 4:
        return "status4", note
    if case.expect == "refuse":
        if rc == 0:
            return "silent", "accepted: " + stdout_text[:120].replace("\n", " | ")
        if rc != 2:
            return "status", f"status {rc}: {note}"
        if len(lines) != 1 or stdout_text:
            return "unclear", f"{len(lines)} stderr lines / {len(stdout_text)} stdout chars"
        return "clear", note
    if case.expect in ("any", "ok"):
        if rc == 0:
            if case.oracle is not None:
                wrong = case.oracle(stdout_text)
                if wrong:
                    return "silent", wrong
            return "ok", ""
        if case.expect == "ok" or rc not in (1, 2):
            return "status", f"status {rc}: {note}"
        if rc == 2 and (lines[-1:] == [] or stdout_text):
            return "unclear", f"{len(lines)} stderr lines / {len(stdout_text)} stdout chars"
        return "clear", note
    if case.expect == "fault":
        if rc == 0:
            return "silent", "a write fault reported success"
        if rc not in (1, 2):
            return "status", f"status {rc}: {note}"
        if len(lines) < 1:
            return "unclear", "no line on stderr"
        return "clear", note
    if case.expect == "interrupt":
        if rc in (0, 130):
            if rc == 130 and len(lines) < 1:
                return "unclear", "interrupted without a line"
            return "clear" if rc == 130 else "ok", note
        return "status", f"status {rc}: {note}"
    if case.expect == "deadline":
        if rc in (1, 2) and lines:
            return "clear", note
        if rc == 0:
            return "ok", "finished within its limit"
        return "status", f"status {rc}: {note}"
    raise AssertionError(case.expect)


def run_all(cases: list[Case], jobs: int, verbose: bool) -> Counter[str]:
    counts: Counter[str] = Counter()
    with ThreadPoolExecutor(jobs) as pool:
        for case, (klass, note) in zip(cases, pool.map(run_case, cases), strict=True):
            counts[klass] += 1
            if verbose or klass in BAD_CLASSES or klass == "unclear":
                argv = " ".join(a if len(a) < 60 else a[:57] + "..." for a in case.argv)
                print(f"{klass:9} {case.kind}: exactdp {argv[:300]} -> {note}", flush=True)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="run only the cases whose kind contains this text")
    parser.add_argument("--verbose", action="store_true", help="print every case")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="exactdp-redteam-") as tmp:
        setup = make_setup(Path(tmp))
        cases = all_cases(setup)
        if args.only:
            cases = [c for c in cases if args.only in c.kind]
        start = time.monotonic()
        counts = run_all(cases, args.jobs, args.verbose)
    total = sum(counts.values())
    print(f"{total} cases in {time.monotonic() - start:.0f} s: "
          + ", ".join(f"{k} {counts[k]}" for k in ("clear", "ok", "unclear", *BAD_CLASSES)))
    return 1 if any(counts[k] for k in BAD_CLASSES) else 0


if __name__ == "__main__":
    sys.exit(main())
