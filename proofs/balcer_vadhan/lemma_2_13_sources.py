"""Lemma 2.13 and Section 2.4's oracle, on the real sources: the draws a release makes.

``exactdp verify`` reads distributions off the implementation under the exploring source
(:mod:`exactdp.explore`), which *replaces* ``uniform``, ``bernoulli`` and ``inverse_cdf``:
``inverse_cdf`` branches on the draw's ``cdf`` and never runs its ``search``.  A release
runs the other code: ``RandomSource.bernoulli`` and ``RandomSource.inverse_cdf`` (one
``uniform(d)`` and the draw's ``search``) over :class:`SystemSource` or
:class:`SeededSource`.  These rows run that real code with every value of its randomness
and check that it has exactly the law the exploring source assigns it.
"""

from __future__ import annotations

import random
import secrets
import types
import warnings
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import partial
from typing import Any

from exactdp import randomness
from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import FastSample, GeoSample, TabulatedMechanism
from exactdp.explore import explore
from exactdp.histograms.empty_bin import EmptyBinSampler, _ScaledDraw
from exactdp.histograms.orderstats import ApproxBinDraw, BinomialDraw, FunctionDraw
from exactdp.params import DomainError, ExactDPError, ParameterTypeError
from exactdp.randomness import InverseCDFDraw, RandomSource

CLAIM = "Lemma 2.13 (real sources)"
STATEMENT = """For a finite integer CDF F with common denominator d (F(n) = d), the default
RandomSource.inverse_cdf, draw.search(U) with U ~ Unif([d]_+), has Pr[z] = (F(z) - F(z-1))/d
for every composite draw of the library (Lemma 2.13); RandomSource.bernoulli(num, den) is True
with probability exactly num/den; SystemSource, SeededSource and the byte sources'
ByteSource.uniform (KeystreamSource's draw: rejection on whole bytes) return U ~ Unif([d]_+)
exactly given uniform bits (the oracle of Section 2.4) and refuse a d that is not an int
>= 1."""
PROOF_IDEA = """inverse_cdf: F^{-1}(u) = min{z : F(z) >= u} takes the value z on the
F(z) - F(z-1) values u in (F(z-1), F(z)], so one uniform draw gives the law (Lemma 2.13);
bernoulli: exactly num of the den values u satisfy u <= num.  uniform: rejection sampling
on k = bit_length(d) random bits accepts r in [0, d) (each with probability 2^-k per
round), retries otherwise; rounds are i.i.d., so the output given acceptance is uniform.
Checks: run the real code (the base-class methods, even where a source overrides them) with
a scripted source that returns each u of [d]_+ in turn, count the outputs, and compare
exactly with the exploring source's law (explore), which also must equal (F(z)-F(z-1))/d
read off draw.cdf.  For the OS and seeded sources, run their uniform with the generator's
getrandbits replaced by an enumerator over every k-bit value in each of two rounds (the
secrets module's randbelow runs as it is, with a private generator: nothing global is
touched), weigh each path 2^-k per round, and require the law given acceptance to be
uniform on [1, d] exactly; then every bad d is refused with a typed error."""

#: Enumerate ``uniform(d)`` for ``d`` up to this (quick / full).
_MAX_D = (4096, 1 << 15)


# --------------------------------------------------------------------------- scripted u


class _Scripted(RandomSource):
    """Returns ``u`` to its one draw and remembers the domain sizes asked for."""

    def __init__(self, u: Any) -> None:
        self.u = u
        self.asked: list[int] = []

    def uniform(self, d: int) -> int:
        self.asked.append(d)
        return self.u


#: A float, only ever passed in to be refused.
_A_FLOAT = 2.0  # float-ok: passed in only to check that it is refused

def _real_law(run: Callable[[RandomSource], Any], d: int) -> tuple[dict[Any, Fraction], str]:
    """The law of ``run(source)`` when its single draw ``uniform(d)`` is uniform: every
    ``u`` in ``[d]_+`` once.  The second value names a problem ('' if none): a run that
    draws other than exactly once from ``[d]_+`` is not described by this enumeration."""
    counts: dict[Any, int] = {}
    for u in range(1, d + 1):
        src = _Scripted(u)
        out = run(src)
        if src.asked != [d]:
            return {}, f"u = {u}: the draws asked for domain sizes {src.asked}, not [{d}]"
        counts[out] = counts.get(out, 0) + 1
    return {k: Fraction(v, d) for k, v in counts.items()}, ""


# --------------------------------------------------------------------------- bernoulli


def _bernoulli_grid(full: bool) -> Iterator[tuple[int, int]]:
    top = 64 if full else 24
    for den in range(1, top + 1):
        for num in range(den + 1):
            yield num, den


def _real_bernoulli(num: int, den: int, source: RandomSource) -> bool:
    """The base class's ``bernoulli``, whatever the source overrides."""
    return RandomSource.bernoulli(source, num, den)


def _explored_bernoulli(num: int, den: int, source: RandomSource) -> bool:
    return source.bernoulli(num, den)


def check_bernoulli(full: bool) -> ClaimReport:
    """``RandomSource.bernoulli(num, den)`` over every ``u``: ``Pr[True] = num/den``."""
    bad: dict[str, Any] = {}
    cases = 0
    for num, den in _bernoulli_grid(full):
        cases += 1
        try:
            real, problem = _real_law(partial(_real_bernoulli, num, den), den)
            seen = explore(partial(_explored_bernoulli, num, den))
        except Exception as exc:  # noqa: BLE001 -- a raising draw is a failure of this row
            bad = {"num": num, "den": den, "error": f"{type(exc).__name__}: {exc}"}
            break
        want = {v: p for v, p in ((True, Fraction(num, den)), (False, 1 - Fraction(num, den)))
                if p}
        if problem or real != want or seen != want:
            bad = {"num": num, "den": den, "problem": problem, "real": real,
                   "exploring": seen, "expected": want}
            break
    refused = all(_refuses(partial(_real_bernoulli, num, den, _Scripted(u)), DomainError)
                  for num, den, u in ((3, 2, 1), (-1, 2, 1), (1, 2, 3), (1, 2, 0)))
    if not bad and not refused:
        bad = {"problem": "num outside [0, den], or a source's u outside [1, den], accepted"}
    top = 64 if full else 24
    cert = Certificate(
        CLAIM + ": bernoulli", "RandomSource.bernoulli", {"den": f"1..{top}"},
        f"{cases} (num, den), every u in [den]_+", None,
        "Pr[True] == num/den == exploring source's weight", not bad, bad)
    return ClaimReport(CLAIM + ": bernoulli", f"0 <= num <= den <= {top}, every u",
                       f"{cases} laws equal" if not bad else "a law differs",
                       "Pr[True] = num/den exactly", [cert])


# --------------------------------------------------------------------------- inverse_cdf


def _draws(full: bool) -> Iterator[tuple[str, InverseCDFDraw]]:
    """Every kind of composite draw the library hands to ``source.inverse_cdf``."""
    rng = random.Random(213)
    for n, m in ([(1, 1), (2, 1), (3, 2), (4, 2), (2, 4)] +
                 ([(5, 2), (3, 3), (6, 1)] if full else [])):
        mech = GeoSample(n, Fraction(1, m))
        for c in range(n + 1):
            yield f"GeoSample({n}, 1/{m}).draw({c})", mech.draw(c)
    # d far too large to enumerate: the ends of every interval (see check_inverse_cdf)
    for n, m, g in [(2, 1, 2), (8, 1, 2)] + ([(4, 2, 2), (5, 1, 4), (13, 1, 8)] if full else []):
        fast = FastSample(n, Fraction(1, m), Fraction(1, g))
        for c in range(n + 1):
            yield f"FastSample({n}, 1/{m}, 1/{g}).draw({c})", fast.draw(c)
    for n, m in [(16, 2)] + ([(32, 4), (64, 8)] if full else []):
        geo = GeoSample(n, Fraction(1, m))
        for c in sorted({0, n // 2, n}):
            yield f"GeoSample({n}, 1/{m}).draw({c})", geo.draw(c)
    for _ in range(12 if full else 6):
        n, d = rng.randint(1, 5), rng.randint(1, 40)
        rows = [sorted(rng.randint(0, d) for _ in range(n)) + [d] for _ in range(n + 1)]
        tab = TabulatedMechanism(rows)
        for c in range(n + 1):
            yield f"{tab!r}.draw({c})", tab.draw(c)
        fn_row = rows[0]
        yield (f"FunctionDraw({n}, {d}, {fn_row})",
               FunctionDraw(n, d, tuple(fn_row).__getitem__))
        for d0 in sorted({(4 * d + 2) // 3, 2 * d, 2 * d + 1}):
            empty = EmptyBinSampler(tab, d0)
            yield f"EmptyBinSampler({tab!r}, d0={d0})", empty
            if d * d0 <= _MAX_D[full]:
                yield f"_ScaledDraw(EmptyBinSampler, {d})", _ScaledDraw(empty, d, d * d0)
                yield (f"_ScaledDraw({tab!r}.draw(0), {d0})",
                       _ScaledDraw(tab.draw(0), d0, d * d0))
    for trials, num, den, cap in [(3, 1, 2, 3), (4, 1, 3, 2), (2, 0, 5, 2), (3, 5, 5, 4),
                                  (0, 1, 2, 0), (5, 2, 3, 6)]:
        yield f"BinomialDraw({trials}, {num}/{den}, cap {cap})", BinomialDraw(trials, num, den,
                                                                            cap)
    for m, p, q, s, t in [(2, 1, 2, 7, 2), (3, 1, 3, 31, 3), (4, 2, 5, 40, 5)]:
        for shortcuts in (True, False):
            yield (f"ApproxBinDraw({m}, {p}, {q}, {s}, {t}, shortcuts={shortcuts})",
                   ApproxBinDraw(m, p, q, s, t, shortcuts=shortcuts))


def _cdf_law(draw: InverseCDFDraw) -> dict[int, Fraction]:
    """``(F(z) - F(z-1)) / d`` for the ``z`` of positive mass, read off ``draw.cdf``."""
    out, prev = {}, 0
    for z in range(draw.n + 1):
        f = draw.cdf(z)
        if f > prev:
            out[z] = Fraction(f - prev, draw.d)
        prev = f
    return out


def _ends_law(draw: InverseCDFDraw, want: dict[int, Fraction]
              ) -> tuple[dict[int, Fraction], str]:
    """For ``d`` too large to enumerate: the real ``inverse_cdf`` at both ends of every
    interval ``(F(z-1), F(z)]`` of positive mass must give ``z``; then, if ``search`` is
    non-decreasing in ``u`` (a binary search over a non-decreasing ``F``), its law is
    ``want``, which is returned.  The second value names the first end that disagrees."""
    prev = 0
    for z in range(draw.n + 1):
        f = draw.cdf(z)
        for u in ((prev + 1, f) if f > prev else ()):
            src = _Scripted(u)
            got = RandomSource.inverse_cdf(src, draw)
            if got != z or src.asked != [draw.d]:
                return {}, f"search({u}) = {got} (asked {src.asked}); u is in (F({z - 1}), F({z})]"
        prev = f
    return dict(want), ""


def _real_inverse_cdf(draw: InverseCDFDraw, source: RandomSource) -> int:
    """The base class's ``inverse_cdf``: ``draw.search(uniform(draw.d))``."""
    return RandomSource.inverse_cdf(source, draw)


def _explored_inverse_cdf(draw: InverseCDFDraw, source: RandomSource) -> int:
    return source.inverse_cdf(draw)


def check_inverse_cdf(full: bool) -> ClaimReport:
    """``RandomSource.inverse_cdf(draw)`` (one ``uniform(d)``, then ``draw.search``) over
    every ``u`` has the exploring source's law, ``(F(z) - F(z-1)) / d``."""
    certs: list[Certificate] = []
    kinds: dict[str, int] = {}
    by_ends = 0
    for name, draw in _draws(full):
        kind = name.split("(")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
        bad: dict[str, Any] = {}
        enumerated = draw.d <= _MAX_D[full]
        by_ends += not enumerated
        try:
            want = _cdf_law(draw)
            if enumerated:
                real, problem = _real_law(partial(_real_inverse_cdf, draw), draw.d)
            else:
                real, problem = _ends_law(draw, want)
            seen = explore(partial(_explored_inverse_cdf, draw))
            if problem or real != want or seen != want or abs(sum(want.values()) - 1):
                bad = {"problem": problem,
                       "differs": sorted(str(z) for z in set(real) | set(want)
                                         if real.get(z) != want.get(z)),
                       "real": real, "exploring": seen, "cdf": want}
        except Exception as exc:  # noqa: BLE001 -- a raising draw is a failure of this row
            bad = {"error": f"{type(exc).__name__}: {exc}"}
        certs.append(Certificate(
            CLAIM + ": inverse_cdf", name, {"n": draw.n, "d": draw.d},
            f"every u in [1, {draw.d}]" if enumerated else
            "u = F(z-1)+1 and F(z) for every z (d too large to enumerate)", None,
            "law of search(U) == exploring source's == (F(z)-F(z-1))/d", not bad, bad))
    failures = sum(not c.verdict for c in certs)
    grid = ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items()))
    return ClaimReport(CLAIM + ": inverse_cdf", grid,
                       f"{len(certs)} draws ({len(certs) - by_ends} every u, {by_ends} interval "
                       f"ends), {failures} laws differ",
                       "Pr[search(U) = z] = (F(z) - F(z-1))/d exactly", certs)


# --------------------------------------------------------------------------- uniform


class _Capped(Exception):
    """The enumerated generator was asked for more rounds than the enumeration covers."""


#: Rounds of getrandbits enumerated per path (a rejection in round 1 reruns round 2).
_ROUNDS = 2


class _BitsPath:
    """``getrandbits(k)`` answers of one path: replays ``prefix``, then answers 0."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.taken: list[int] = []
        self.sizes: list[int] = []

    def getrandbits(self, k: int) -> int:
        i = len(self.taken)
        if i >= _ROUNDS:
            raise _Capped
        v = self.prefix[i] if i < len(self.prefix) else 0
        self.taken.append(v)
        self.sizes.append(k)
        return v


def _enumerate_bits(run: Callable[[_BitsPath], int], max_bits: int
                    ) -> tuple[dict[int, Fraction], Fraction, int]:
    """Every path of ``run`` over ``getrandbits`` answers (up to :data:`_ROUNDS` rounds):
    the accepted outputs with the probability of their paths, the capped mass, the paths."""
    # A path of s bits has weight 2^-s: count the paths per (output, s), sum once at the end.
    counts: dict[int | None, dict[int, int]] = {}
    stack: list[tuple[int, ...]] = [()]
    paths = 0
    while stack:
        path = _BitsPath(stack.pop())
        paths += 1
        try:
            value: int | None = run(path)
        except _Capped:
            value = None
        per = counts.setdefault(value, {})
        s = sum(path.sizes)
        per[s] = per.get(s, 0) + 1
        for i in range(len(path.prefix), len(path.taken)):
            if path.sizes[i] > max_bits:
                raise ExactDPError(f"getrandbits({path.sizes[i]}) asked: too many to enumerate")
            stack.extend(tuple(path.taken[:i]) + (v,) for v in range(1, 1 << path.sizes[i]))

    def mass(per: dict[int, int]) -> Fraction:
        top = max(per, default=0)
        return Fraction(sum(k << (top - s) for s, k in per.items()), 1 << top)

    out = {v: mass(per) for v, per in counts.items() if v is not None}
    return out, mass(counts.get(None, {})), paths


class _SystemBits(random.SystemRandom):
    """The OS generator's class with its bits taken from the current path."""

    path: _BitsPath

    def getrandbits(self, k: int) -> int:
        return self.path.getrandbits(k)


class _SeededBits(random.Random):
    """Mersenne Twister's class with its bits taken from the current path."""

    path: _BitsPath

    def getrandbits(self, k: int) -> int:
        return self.path.getrandbits(k)


def _system_runner() -> Callable[[int, _BitsPath], int]:
    """The real ``SystemSource.uniform`` (looked up now) running the real
    ``secrets.randbelow``, whose generator draws its bits from the path: both functions run
    as they are, with private globals, so nothing shared is patched."""
    gen = _SystemBits()
    randbelow = types.FunctionType(secrets.randbelow.__code__,
                                   {**secrets.randbelow.__globals__, "_sysrand": gen})
    method = randomness.SystemSource.uniform
    uniform = types.FunctionType(method.__code__, {**method.__globals__,
                                                   "secrets": types.SimpleNamespace(
                                                       randbelow=randbelow)})
    source = randomness.SystemSource()

    def run(d: int, path: _BitsPath) -> int:
        gen.path = path
        return int(uniform(source, d))

    return run


def _seeded_runner() -> Callable[[int, _BitsPath], int]:
    """The real ``SeededSource.uniform``, its ``random.Random`` drawing bits from the path."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", randomness.NotForReleaseWarning)
        source = randomness.SeededSource(0)
    gen = _SeededBits(0)
    source._rng = gen

    def run(d: int, path: _BitsPath) -> int:
        gen.path = path
        return source.uniform(d)

    return run


class _PathBytes(randomness.ByteSource):
    """A byte source whose bytes are the current path's answers, one ``getrandbits(8)`` per
    byte (little-endian): it runs the real ``ByteSource.uniform``, the keystream's draw.  A
    second read (a rejected round: every round reads the same way) caps the path, so that
    a draw branches 256 ways per byte once, not twice."""

    path: _BitsPath
    reads = 0

    def random_bytes(self, k: int) -> bytes:
        self.reads += 1
        if self.reads > 1:
            raise _Capped
        return bytes(self.path.getrandbits(8) for _ in range(k))


def _bytes_runner() -> Callable[[int, _BitsPath], int]:
    """``ByteSource.uniform`` (KeystreamSource's, looked up when it runs) over path bytes."""
    source = _PathBytes()

    def run(d: int, path: _BitsPath) -> int:
        source.path, source.reads = path, 0
        return source.uniform(d)

    return run


_SOURCES: dict[str, Callable[[], Callable[[int, _BitsPath], int]]] = {
    "SystemSource": _system_runner, "SeededSource": _seeded_runner,
    "KeystreamSource (ByteSource.uniform)": _bytes_runner}


def _domains(full: bool) -> list[int]:
    small = list(range(1, 41 if full else 21))
    edges = [31, 32, 33, 63, 64, 65] + ([127, 128, 129, 255, 256, 257] if full else [])
    return sorted(set(small + edges))


def _bad_domains_refused() -> str:
    """'' if every source refuses each bad ``d`` with the typed error, else what was not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", randomness.NotForReleaseWarning)
        sources = [randomness.SystemSource(), randomness.SeededSource(1),
                   randomness.CallableSource(lambda d: 1), _PathBytes()]
    for src in sources:
        for d, error in ((0, DomainError), (-1, DomainError), (-(2**70), DomainError),
                         (True, ParameterTypeError), (_A_FLOAT, ParameterTypeError),
                         ("3", ParameterTypeError), (None, ParameterTypeError)):
            if not _refuses(partial(src.uniform, d), error):  # type: ignore[arg-type]
                return f"{type(src).__name__}.uniform({d!r}) did not raise {error.__name__}"
    for u in (0, 4, True, _A_FLOAT):
        if not _refuses(partial(randomness.CallableSource(partial(_constant, u)).uniform, 3),
                        DomainError):
            return f"CallableSource accepted {u!r} from its function for d = 3"
        if not _refuses(partial(_real_inverse_cdf, _ThreeWay(), _Scripted(u)), DomainError):
            return f"inverse_cdf accepted u = {u!r} from a source for d = 3"
    return ""


def _constant(value: Any, d: int) -> Any:
    return value


class _ThreeWay:
    n, d = 2, 3

    def cdf(self, z: int) -> int:
        return z + 1

    def search(self, u: int) -> int:
        return u - 1


def _refuses(fn: Callable[[], object], error: type[Exception]) -> bool:
    try:
        fn()
    except error:
        return True
    except Exception:  # noqa: BLE001 -- any other exception is the wrong refusal
        return False
    return False


def check_uniform(full: bool) -> ClaimReport:
    """SystemSource/SeededSource ``uniform(d)``: given acceptance, exactly uniform on
    ``[1, d]`` over every ``getrandbits`` answer of two rounds; bad ``d`` refused."""
    certs: list[Certificate] = []
    domains = _domains(full)
    for name, runner in _SOURCES.items():
        uniform = runner()
        bad: dict[str, Any] = {}
        paths = 0
        for d in domains:
            try:
                law, capped, runs = _enumerate_bits(partial(uniform, d), 12)
            except Exception as exc:  # noqa: BLE001 -- a raising draw is a failure here
                bad = {"d": d, "error": f"{type(exc).__name__}: {exc}"}
                break
            paths += runs
            accepted = sum(law.values(), Fraction(0))
            conditional = {u: p / accepted for u, p in law.items()} if accepted else {}
            if not paths or accepted + capped != 1 or \
                    conditional != {u: Fraction(1, d) for u in range(1, d + 1)}:
                bad = {"d": d, "law_given_acceptance": conditional, "accepted": accepted}
                break
        refused = _bad_domains_refused()
        if not bad and refused:
            bad = {"problem": refused}
        certs.append(Certificate(
            CLAIM + ": uniform", name, {"d": f"{domains[0]}..{domains[-1]}"},
            f"{len(domains)} values of d, every getrandbits answer of {_ROUNDS} rounds "
            f"({paths} paths)", None, "uniform on [1, d] given acceptance; bad d refused",
            not bad, bad))
    failures = sum(not c.verdict for c in certs)
    return ClaimReport(CLAIM + ": uniform", f"d in {domains[0]}..{domains[-1]} "
                       f"({len(domains)} values), SystemSource, SeededSource and the byte "
                       f"sources' ByteSource.uniform (KeystreamSource)",
                       f"{failures} of {len(certs)} sources not exactly uniform",
                       "Pr[u] = 1/d for u in [1, d]", certs)


CHECKS = [check_bernoulli, check_inverse_cdf, check_uniform]
