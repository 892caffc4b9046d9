"""The white-box audit never computes a law from a run whose randomness escaped it: code that
draws from an entropy source the audit does not model, or keeps state between runs, stops
the audit (verdict broken, naming what escaped); code that draws only through what the audit
passes in is audited."""

from __future__ import annotations

import importlib.util
from typing import Any

from exactdp.audit import whitebox_audit
from exactdp.audit.facades import facade_mechanism
from exactdp.certificate import Certificate, ClaimReport
from exactdp.proofs.audit._programs import AUDITED, compiled

CLAIM = "Audit escape detection: unmodelled randomness or state stops a white-box audit"
STATEMENT = """A mechanism audited white-box (a facade or an exactdp source passed in) that also
reads an entropy source the audit does not model -- the random module's functions, a
random.Random or SystemRandom of its own, secrets, os.urandom, uuid4, the clocks, numpy's
global generator or an unseeded default_rng(), an object's id or address-based hash, the
process id, a random device read as a file -- or keeps state from one run to the next,
gets the verdict broken with a finding that names what escaped; never pass.  The same code
without the escape is audited as usual (pass or violation, never broken)."""
PROOF_IDEA = """Each escape route is a program written as people write it -- c with probability
about 1/1000 through the escaped value, else a fair bit drawn from the audit's generator
(infinite privacy loss that an audit blind to the escape would almost always pass) --
compiled from source under a file name outside exactdp (so that it is audited code however
exactdp is installed), and audited on inputs 0, 1 at claimed eps = 1: the verdict must be
broken and the finding must be an escape or a non-determinism naming the route.  Its twins
draw only from what the audit passes in and must not be broken.  numpy routes when numpy is
installed."""

#: Escape routes: (name, the escaped value in [0, 1) as source code, what the finding names).
ROUTES: tuple[tuple[str, str, str], ...] = (
    ("random module", "random.random()", "random.random()"),
    ("own random.Random", "_OWN.random()", "Random.random() on a random.Random"),
    ("SystemRandom", "random.SystemRandom().random()", "SystemRandom.random()"),
    ("secrets", "secrets.randbelow(1 << 20) / (1 << 20)", "secrets.randbelow()"),
    ("os.urandom", "os.urandom(1)[0] / 256", "os.urandom()"),
    ("uuid4", "(uuid.uuid4().int % 1024) / 1024", "uuid.uuid4()"),
    ("clock", "time.time() % 1", "time.time()"),
    ("clock (ns)", "(time.perf_counter_ns() % 1000) / 1000", "time.perf_counter_ns()"),
    ("object id", "(id(object()) // 16 % 1024) / 1024", "id()"),
    ("address hash", "(hash(object()) % 1024) / 1024", "hash() of a value"),
    ("process id", "(os.getpid() % 1024) / 1024", "os.getpid()"),
    ("random device", "open('/dev/urandom', 'rb').read(1)[0] / 256",
     "open() of a random device"),
)
NUMPY_ROUTES: tuple[tuple[str, str, str], ...] = (
    ("numpy global", "float(numpy.random.random())", "numpy.random.random()"),
    ("numpy default_rng()", "float(numpy.random.default_rng().random())",
     "default_rng() without a seed"),
)

_HEADER = """import os, random, secrets, time, uuid
_OWN = random.Random()
"""

_RARE = """
def program(c, rng):
    return c if ({value}) < 0.001 else rng.randrange(2)
"""

_COUNTER = """
_calls = [0]

def program(c, rng):
    _calls[0] += 1
    return c if _calls[0] % 2 else rng.randrange(2)
"""

_TWINS = {
    "fair bit": "def program(c, rng):\n    return rng.randrange(2)\n",
    "rare c through the facade": "def program(c, rng):\n"
                                 "    return c if rng.random() < 0.001 else rng.randrange(2)\n",
}


def program(source: str, numpy: bool = False) -> Any:
    """The function ``program`` of ``source`` (after the imports), compiled outside exactdp."""
    return compiled(_HEADER + ("import numpy\n" if numpy else "") + source)


def audit(fn: Any) -> Any:
    """The audit of one program, with no time limit: every program here returns at once,
    and a limit on wall-clock time would make the verdict depend on the machine's load (a
    call stalled past the limit is a ``timeout``, not the escape the row looks for)."""
    return whitebox_audit(facade_mechanism(fn, "random"), inputs=range(2), claimed_epsilon=1,
                          kind="source", outputs=range(2), time_limit=None,
                          hash_seed_check=False)  # the guards and re-runs alone


def _numpy() -> bool:
    return importlib.util.find_spec("numpy") is not None


def escape_certificate() -> Certificate:
    numpy = _numpy()
    routes = ROUTES + (NUMPY_ROUTES if numpy else ())
    cases = [(name, _RARE.format(value=value), named, name.startswith("numpy"))
             for name, value, named in routes]
    cases.append(("state kept between runs", _COUNTER, "re-run with the same draws", False))
    wrong = []
    for name, source, named, uses_numpy in cases:
        rep = audit(program(source, uses_numpy))
        kinds = [f.kind for f in rep.findings]
        text = " ".join(f.message for f in rep.findings)
        if rep.verdict != "broken" or not {"escaped", "nondeterministic"} & set(kinds) \
                or named not in text or (name != "state kept between runs"
                                         and f"<{AUDITED}>:" not in text):
            wrong.append({"route": name, "verdict": rep.verdict, "findings": kinds,
                          "message": text[:160]})
    return Certificate(f"{CLAIM} (escapes)", "whitebox_audit through a random facade",
                       {"routes": len(cases), "numpy": numpy},
                       f"{len(cases)} escape routes" + ("" if numpy else
                                                        " (numpy not installed: its 2 skipped)"),
                       len(wrong), "0 routes audited without stopping", not wrong,
                       {"wrong": wrong[:6]})


def twin_certificate() -> Certificate:
    wrong = []
    for name, source in _TWINS.items():
        rep = audit(program(source))
        if rep.verdict == "broken":
            wrong.append({"twin": name, "findings": [f.message[:160] for f in rep.findings]})
    return Certificate(f"{CLAIM} (no escape)", "whitebox_audit through a random facade",
                       {"twins": len(_TWINS)}, f"{len(_TWINS)} programs without an escape",
                       len(wrong), "0 stopped", not wrong, {"wrong": wrong})


def check(full: bool) -> ClaimReport:
    certs = [escape_certificate(), twin_certificate()]
    return ClaimReport(CLAIM, f"{certs[0].domain}; {certs[1].domain}",
                       f"{certs[0].worst} routes not stopped, {certs[1].worst} twins stopped",
                       "0, 0", certs)
