"""Theorem 4.10 on the fast path: FastSample's native search and batches equal the Python search."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

import gmpy2

from exactdp import fastsample, native_samplers
from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import FastSample, inverse_cdf_search
from exactdp.proofs._strict_time import coins, compare
from exactdp.proofs.balcer_vadhan._counting import each_fast, fast_grid_text
from exactdp.randomness import RandomSource

CLAIM = "Theorem 4.10 (fast path)"
STATEMENT = """FastSample's native paths compute Algorithm 4.11's M(c, u) = min{z : F_c(z) >= u}:
(i) the C search (exactdp/_samplers_native.c, es_search), (ii) the one-pass C reduction and
search of SystemSource batches (es_sample: u = (r mod d) + 1 from K + 63 random bits r; and
es_sample1, the one C call of FastSample.sample) and
(iii) the Python gmpy2 searches (search_cdf over the window table; and the two searches a
mechanism falls back to when its tables would be too big -- no window: _gmp_cdf over the power
table, no power table either: FastSample.cdf with powers computed on demand) all return the
reference search's output -- the binary search over the paper's F (FastSample.cdf, Python
integers) -- for every c and every u in [d]_+; (iv) sample_many's operation trace depends only on the batch's length and the
public parameters (not on the counts nor the coins)."""
PROOF_IDEA = """The Python searches decide every round by a test that equals "F_c(mid) >= u"
when its arithmetic is right, and each test is a threshold in u, so every path is fixed on
each interval (F_c(z-1), F_c(z)] where the reference output is z.  Induction on the rounds: if
a round's test differed from F(mid) >= u for some reachable u, it would differ at u = F(mid)
or u = F(mid) + 1, which are both ends of intervals; so equality at both ends of every
interval, for every c, gives equality on all of [d]_+.  The C search decides its rounds on
q = floor((u - 1)/d') alone (thresholds in u at the k d' + 1) and then makes one exact
comparison at the F thresholds (the C file's search_one proves the output equal to the
reference for every u); both kinds of threshold are among the points checked.  The fallback searches only run where
a table would exceed NATIVE_TABLE_BYTES or POWER_TABLE_BITS (n near 10^6 and beyond), far
outside any exhaustive grid, so the row forces them: it rebuilds each mechanism with those
budgets set to 0 (restored afterwards), checks that the rebuilt one has no native table and no
window (and no power table for the last path), and calls it M(c, u) -- the dispatch a release
takes there (at both ends of every interval: their rounds are threshold tests too).  Checks, on the verify grid of Theorem 4.10 (every c): all three paths at both ends of
every non-empty interval (es_sample fed r = u - 1, accepted with q = 0), plus, to test the
arithmetic itself (limb carries, the division), u at the multiples k d' and k d' + 1 where
the C tests switch and 64 random u per mechanism; the reduction at 256 random r per d against
Python's divmod, and r = 0, r = d - 1, r = d, the largest accepted r and the smallest rejected
r; (iv) traces (draw sizes, recorded rounds, native calls, profiler-seen F evaluations) of
sample_many over every count vector in {0, n//2, n}^2 on fixed coins."""


def _endpoint_us(cdf: list[int]) -> list[tuple[int, int]]:
    """``(u, z)`` for both ends of every non-empty interval ``(F_c(z-1), F_c(z)]``, from
    ``cdf = [F_c(0), ..., F_c(n)]``."""
    out, prev = [], 0
    for z, f in enumerate(cdf):
        if f > prev:
            out += [(prev + 1, z), (f, z)]
        prev = f
    return out


def _reference(cdf: list[int], u: int) -> int:
    """The reference search: :func:`inverse_cdf_search` over the paper's ``F_c`` (the values
    of ``FastSample.cdf``, computed once per ``c``: ``cdf[z] = F_c(z)``)."""
    return inverse_cdf_search(cdf.__getitem__, len(cdf) - 1, u)


def _raw(mech: FastSample, us: list[int]) -> bytes:
    """``r = u - 1`` per draw (accepted, since ``floor(r / d) = 0``), in es_sample's layout."""
    return native_samplers.to_limbs([u - 1 for u in us], native_samplers.limbs(mech.d) + 1)


@contextmanager
def _budgets(table_bytes: int, power_bits: int) -> Iterator[None]:
    """FastSample's table budgets set to these values while the block runs (restored after):
    a mechanism built inside takes the search its size would take beyond the real budgets."""
    old = fastsample.NATIVE_TABLE_BYTES, fastsample.POWER_TABLE_BITS
    fastsample.NATIVE_TABLE_BYTES, fastsample.POWER_TABLE_BITS = table_bytes, power_bits
    try:
        yield
    finally:
        fastsample.NATIVE_TABLE_BYTES, fastsample.POWER_TABLE_BITS = old


#: The forced fallbacks: (name, NATIVE_TABLE_BYTES, POWER_TABLE_BITS, has a power table).
FALLBACKS = [("gmpy2 fallback (no window)", 0, fastsample.POWER_TABLE_BITS, True),
             ("cdf fallback (no window, no power table)", 0, 0, False)]
_FORCED_NAMES = {name for name, *_ in FALLBACKS}


def _forced(mech: FastSample, c: int, us: list[int]) -> dict[str, list[int] | str]:
    """``M(c, u)`` for every ``u`` on the mechanism rebuilt under each budget of
    :data:`FALLBACKS` (or, if the rebuilt one still has a table it should not, the reason)."""
    out: dict[str, list[int] | str] = {}
    for name, table_bytes, power_bits, powers in FALLBACKS:
        with _budgets(table_bytes, power_bits):
            forced = FastSample(mech.n, mech.epsilon, mech.gamma)
            if forced._native is not None or forced._window is not None \
                    or (forced._powers is not None) != powers:
                out[name] = "the rebuilt mechanism did not take this path"
                continue
            out[name] = [forced(c, u) for u in us]
    return out


def _paths_agree(mech: FastSample, rng: random.Random) -> tuple[bool, int, dict[str, object]]:
    """Every path at every test point; ``(ok, points, first witness)``."""
    table = mech._native
    points = 0
    d_prime = mech.d_prime
    extra = sorted({u for k in range(1, (mech.n + 1) * mech.gamma.denominator + 1,
                                    max(1, (mech.n + 1) * mech.gamma.denominator // 16))
                    for u in (k * d_prime, k * d_prime + 1) if 1 <= u <= mech.d}
                   | {rng.randrange(1, mech.d + 1) for _ in range(64)})
    for c in range(mech.n + 1):
        cdf = [mech.cdf(c, z) for z in range(mech.n + 1)]
        cases = _endpoint_us(cdf) + [(u, _reference(cdf, u)) for u in extra]
        us = [u for u, _ in cases]
        want = [z for _, z in cases]
        found = {"python": [inverse_cdf_search(partial(mech.search_cdf, c), mech.n,
                                               gmpy2.mpz(u)) for u in us]}
        if table is not None:
            found["native"] = native_samplers.search(table, [c] * len(us), native_samplers.to_limbs(
                us, table.width))
            found["native one-pass"] = native_samplers.sample(table, [c] * len(us),
                                                              _raw(mech, us))
            found["native one-draw"] = [table.sample_one(c, _raw(mech, [u])) for u in us]
        ends = len(_endpoint_us(cdf))  # the Python fallbacks: both ends suffice (above)
        for name, got_or_why in _forced(mech, c, us[:ends]).items():
            if isinstance(got_or_why, str):
                return False, points, {"path": name, "c": c, "problem": got_or_why}
            found[name] = got_or_why
        points += sum(len(got) for got in found.values())
        for name, got in found.items():
            size = ends if name in _FORCED_NAMES else len(us)
            for u, z, g in zip(us[:size], want[:size], got, strict=True):
                if g != z:
                    return False, points, {"path": name, "c": c, "u_bits": u.bit_length(),
                                           "u_mod_2^64": u % 2**64, "reference": z, "got": g}
    return True, points, {}


def _reduce_agrees(d: int, rng: random.Random) -> tuple[bool, dict[str, object]]:
    """The native reduction against Python's divmod on random and boundary r."""
    bits = d.bit_length()
    m = (1 << (bits + 63)) // d
    rs = [rng.getrandbits(bits + 63) for _ in range(256)] + [
        r for r in (0, d - 1, d, m * d - 1, m * d) if r < 1 << (bits + 63)]
    width = native_samplers.limbs(d)
    us, ok = native_samplers.reduce(d, native_samplers.to_limbs(rs, width + 1), len(rs))
    for e, r in enumerate(rs):
        q, rem = divmod(r, d)
        got = int.from_bytes(us[e * width * 8:(e + 1) * width * 8], "little")
        if bool(ok[e]) != (q < m) or (q < m and got != rem + 1):
            return False, {"d_bits": bits, "r_index": e, "accepted": bool(ok[e]),
                           "should_accept": q < m}
    return True, {}


def check_equal(full: bool) -> ClaimReport:
    rng = random.Random(4010)
    certs: list[Certificate] = []
    native = native_samplers.status()
    for mech in each_fast(full):
        ok, points, witness = _paths_agree(mech, rng)
        if native_samplers.available():
            red_ok, red_witness = _reduce_agrees(mech.d, rng)
            ok, witness = ok and red_ok, witness or red_witness
        certs.append(Certificate(
            CLAIM + " (i)-(iii)", repr(mech), {"n": mech.n, "epsilon": mech.epsilon,
                                               "gamma": mech.gamma, "t": mech.t},
            f"every c; {points} (path, c, u) points; {native}", None,
            "native, one-pass, gmpy2 and forced fallback searches == reference search", ok,
            witness))
    used = "native and Python" if native_samplers.available() else "Python only (" + native + ")"
    return ClaimReport(
        CLAIM + " (i)-(iii)", fast_grid_text(full) + f"; paths: {used}, and the two "
        "fallback searches forced (table budgets 0)",
        f"{sum(c.verdict for c in certs)}/{len(certs)} mechanisms with every path equal",
        "equal outputs at both ends of every interval, every c", certs)


def _batch(mech: FastSample, counts: list[int], source: RandomSource) -> list[int]:
    return mech.sample_many(counts, source)


def check_batch_time(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for mech in [m for m in each_fast(full) if m.n <= (32 if full else 8)]:
        ends = sorted({0, mech.n // 2, mech.n})
        inputs = [(f"counts={[a, b]}", partial(_batch, mech, [a, b])) for a in ends for b in ends]
        cmp = compare(inputs, coins(full), across_coins=True)
        certs.append(Certificate(
            CLAIM + " (iv)", repr(mech), {"n": mech.n}, f"{len(inputs)} count vectors of "
            f"length 2, coins {', '.join(coins(full))}", cmp.trace_length,
            "one operation trace for every batch of the same length", cmp.ok,
            {"first_difference": cmp.mismatch} if cmp.mismatch else {}))
    return ClaimReport(CLAIM + " (iv)", f"{len(certs)} FastSample mechanisms (n <= 8 quick)",
                       f"{sum(c.verdict for c in certs)}/{len(certs)} with one trace",
                       "the trace of sample_many depends only on len(counts)", certs)


CHECKS = [check_equal, check_batch_time]
