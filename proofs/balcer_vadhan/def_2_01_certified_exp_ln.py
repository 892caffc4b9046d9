"""Definition 2.1's e^eps, exactly: every certified bound on e^x and ln x brackets the truth."""

from __future__ import annotations

from fractions import Fraction
from math import comb

from exactdp.binomial import lower_tail, upper_tail
from exactdp.certificate import Certificate, ClaimReport
from exactdp.certified import (
    ceil_log_ratio,
    compare_exp,
    exp_interval,
    exp_lower_bound_at_least,
    ln_interval,
)
from exactdp.histograms.accuracy import ceil_scaled_ln

CLAIM = "Definition 2.1: certified e^x and ln x bounds"
STATEMENT = """Every privacy and accuracy claim compares a rational with e^eps or ln x (Definition
2.1; Theorems 4.7, 5.3, 6.8, 8.3, 8.6; Lemma 3.2).  The library's certified bounds must
bracket the true value -- exactdp.certified.exp_interval(x, bits) = [lo, hi] with
lo <= e^x <= hi, ln_interval likewise, compare_exp, exp_lower_bound_at_least, ceil_log_ratio,
exactdp.histograms.accuracy.ceil_scaled_ln and the audit's binomial tails
(exactdp.binomial.upper_tail / lower_tail) -- so that rounding errs only on the safe side."""
PROOF_IDEA = """An oracle written separately from exactdp.certified (no shared code): for
0 <= y <= 1/2, the Taylor partial sum S_N(y) <= e^y and e^y <= 1/A(y), A(y) the alternating
series of e^-y stopped after a negative term (a lower bound, its terms decreasing); larger
y by exact repeated squaring, negative x by 1/e^-x; all in exact Fractions, with N chosen
so the enclosure is 2^-(bits + 64) tight.  A claimed lo is accepted when lo <= oracle lower
bound, a claimed hi when hi >= oracle upper bound (else the oracle is refined, and a bound
on the wrong side of the truth is a FAIL).  ln x in [lo, hi] iff e^lo <= x <= e^hi.  The
integer answers are checked by their definitions: base^a >= x > base^(a-1), and
e^((a-1)/c) < x <= e^(a/c) for a = ceil(c ln x).  The binomial tails against the exact
rational tail sums."""


# ---------------------------------------------------------------- the oracle (own code)

def _series_bounds(p: int, q: int, work: int) -> tuple[int, int]:
    """For ``0 <= y = p/q <= 1/2``: integers ``(L, U)`` with ``L / 2^work <= e^y <= U / 2^work``.

    ``L``: the Taylor series of ``e^y`` (positive terms), each term rounded down.  ``U``:
    ``1 / A`` with ``A <= e^-y`` the alternating series of ``e^-y`` stopped after a negative
    term (its terms decrease, so that partial sum is below ``e^-y``), positive terms
    rounded down and negative ones up.  ``y^k / k! <= 2^-k`` bounds the terms needed."""
    one = 1 << work
    lower, term_lo, term_hi, alt = 0, one, one, 0
    k = 0
    while True:
        lower += term_lo
        alt += term_lo if k % 2 == 0 else -term_hi
        if k % 2 == 1 and k > work + 4:  # stopped after a negative term, terms < 2^-work
            break
        term_lo = term_lo * p // (q * (k + 1))
        term_hi = -((-term_hi * p) // (q * (k + 1)))
        k += 1
    return lower, -((-one * one) // alt)


def exp_enclosure(x: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """``(L, U)`` with ``L <= e^x <= U`` and ``U - L`` about ``2^-bits e^x`` or less."""
    x = Fraction(x)
    if x < 0:
        lo, hi = exp_enclosure(-x, bits + 4)
        return 1 / hi, 1 / lo
    squarings = 0
    while x / (1 << squarings) > Fraction(1, 2):
        squarings += 1
    y = x / (1 << squarings)
    work = bits + 2 * squarings + 16 + 2 * int(x).bit_length()
    low, high = _series_bounds(y.numerator, y.denominator, work)
    for _ in range(squarings):  # (e^y)^2 = e^{2y}, bounds squared and rounded outwards
        low, high = (low * low) >> work, -((-high * high) >> work)
    return Fraction(low, 1 << work), Fraction(high, 1 << work)


def exp_sign(x: Fraction, r: Fraction, bits: int = 80) -> int:
    """Sign of ``e^x - r`` by the oracle (never 0 for ``x != 0``: e^x is irrational)."""
    x, r = Fraction(x), Fraction(r)
    if x == 0:
        return (1 > r) - (1 < r)
    while True:
        lo, hi = exp_enclosure(x, bits)
        if r < lo:
            return 1
        if r > hi:
            return -1
        if bits > 1 << 14:
            raise ArithmeticError(f"oracle could not separate e^{x} from {r}")
        bits *= 2


# ---------------------------------------------------------------- the grids

def _xs(full: bool) -> list[Fraction]:
    base = [Fraction(1, 1000), Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3),
            Fraction(1), Fraction(3, 2), Fraction(2), Fraction(5), Fraction(10), Fraction(37, 3),
            Fraction(1, 2**200 + 1), Fraction(9, 20)]
    if full:
        base += [Fraction(k, 7) for k in range(1, 50)] + [Fraction(40), Fraction(1, 10**12)]
    return [Fraction(0), *base, *(-x for x in base)]


_BITS_QUICK = [4, 8, 30, 64, 200]
_BITS_FULL = [1, 2, 3, 4, 5, 8, 13, 30, 64, 100, 200, 400]


def _ln_args(full: bool) -> list[Fraction]:
    base = [Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(1), Fraction(3, 2),
            Fraction(2), Fraction(3), Fraction(10), Fraction(1000), Fraction(2**64 + 1),
            Fraction(1, 2**64), 1 + Fraction(1, 2**60), Fraction(20), Fraction(10**6)]
    if full:
        base += [Fraction(k, 13) for k in range(1, 60)]
    return base


def _check_exp(full: bool) -> Certificate:
    bad: list[str] = []
    runs = 0
    for x in _xs(full):
        for bits in _BITS_FULL if full else _BITS_QUICK:
            box = exp_interval(x, bits)
            runs += 1
            if exp_sign(x, box.lo) < 0:
                bad.append(f"exp_interval({x}, {bits}).lo > e^x")
            if exp_sign(x, box.hi) > 0:
                bad.append(f"exp_interval({x}, {bits}).hi < e^x")
        # compare_exp and exp_lower_bound_at_least at rationals just either side of e^x
        if x != 0:
            lo, hi = exp_enclosure(x, 120)
            for r in (lo, hi, lo - Fraction(1, 2**100), hi + Fraction(1, 2**100)):
                runs += 1
                if compare_exp(x, r) != exp_sign(x, r):
                    bad.append(f"compare_exp({x}, {r}) wrong")
            witness = exp_lower_bound_at_least(x, lo)
            if not lo <= witness or exp_sign(x, witness) < 0:
                bad.append(f"exp_lower_bound_at_least({x}, .) = {witness} is not <= e^x")
    return Certificate(CLAIM, "exactdp.certified: exp_interval, compare_exp, "
                       "exp_lower_bound_at_least", {"x": len(_xs(full))},
                       f"{runs} bounds and decisions", len(bad),
                       "lo <= e^x <= hi; decisions equal the oracle's", not bad,
                       {"wrong": bad[:5]})


def _check_ln(full: bool) -> Certificate:
    bad: list[str] = []
    runs = 0
    for x in _ln_args(full):
        for bits in _BITS_FULL if full else _BITS_QUICK:
            box = ln_interval(x, bits)
            runs += 1
            if exp_sign(box.lo, x) > 0:  # e^lo > x: lo > ln x
                bad.append(f"ln_interval({x}, {bits}).lo > ln x")
            if exp_sign(box.hi, x) < 0:
                bad.append(f"ln_interval({x}, {bits}).hi < ln x")
    return Certificate(CLAIM, "exactdp.certified.ln_interval", {"x": len(_ln_args(full))},
                       f"{runs} bounds", len(bad), "lo <= ln x <= hi (e^lo <= x <= e^hi)",
                       not bad, {"wrong": bad[:5]})


def _check_integer_answers(full: bool) -> Certificate:
    bad: list[str] = []
    runs = 0
    bases = [Fraction(3, 2), 1 + Fraction(1, 2**6), Fraction(2), Fraction(10, 9), Fraction(7)]
    targets = [Fraction(20), Fraction(1000), Fraction(3, 2), Fraction(8), Fraction(10**6),
               Fraction(2**20)]
    for base in bases:
        for x in targets:
            a = ceil_log_ratio(x, base)
            runs += 1
            if not (base**a >= x and (a == 0 or base ** (a - 1) < x)):
                bad.append(f"ceil_log_ratio({x}, {base}) = {a}")
    scales = [Fraction(9, 2), Fraction(2), Fraction(1, 3), Fraction(45), Fraction(10**6)]
    for c in scales:
        for x in [*targets, Fraction(1, 2), Fraction(1, 10**6), Fraction(2**64), Fraction(1)]:
            a = ceil_scaled_ln(c, x)
            runs += 1
            # a = ceil(c ln x)  <=>  e^((a-1)/c) < x <= e^(a/c)
            if not (exp_sign(Fraction(a - 1) / c, x) < 0 and exp_sign(Fraction(a) / c, x) >= 0):
                bad.append(f"ceil_scaled_ln({c}, {x}) = {a}")
    return Certificate(CLAIM, "ceil_log_ratio, accuracy.ceil_scaled_ln", {}, f"{runs} answers",
                       len(bad), "base^a >= x > base^(a-1); e^((a-1)/c) < x <= e^(a/c)",
                       not bad, {"wrong": bad[:5]})


def _check_binomial_tails(full: bool) -> Certificate:
    bad: list[str] = []
    runs = 0
    ks = [1, 2, 5, 13, 40] + ([100, 300] if full else [])
    ps = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 1000), Fraction(999, 1000), Fraction(2, 7)]
    for big_k in ks:
        for p in ps:
            pmf = [comb(big_k, j) * p**j * (1 - p) ** (big_k - j) for j in range(big_k + 1)]
            xs = sorted({0, 1, big_k // 3, big_k // 2, big_k - 1, big_k}) if not full \
                else range(big_k + 1)
            for x in xs:
                runs += 2
                up, low = upper_tail(big_k, p, x), lower_tail(big_k, p, x)
                if not up.lo <= sum(pmf[x:], Fraction(0)) <= up.hi:
                    bad.append(f"upper_tail({big_k}, {p}, {x}) = {up}")
                if not low.lo <= sum(pmf[:x + 1], Fraction(0)) <= low.hi:
                    bad.append(f"lower_tail({big_k}, {p}, {x}) = {low}")
    return Certificate(CLAIM, "exactdp.binomial: upper_tail, lower_tail", {"K": ks},
                       f"{runs} tails", len(bad), "lo <= exact tail <= hi", not bad,
                       {"wrong": bad[:5]})


def check(full: bool) -> ClaimReport:
    certs = [_check_exp(full), _check_ln(full), _check_integer_answers(full),
             _check_binomial_tails(full)]
    wrong = sum(int(c.worst or 0) for c in certs)  # type: ignore[call-overload]
    return ClaimReport(
        CLAIM, f"{len(_xs(full))} x for e^x (incl. +-2^-200, +-37/3), {len(_ln_args(full))} x "
        f"for ln x, bits in {_BITS_FULL if full else _BITS_QUICK}; ceil_log_ratio, "
        f"ceil_scaled_ln; binomial tails for K <= {100 if full else 40}",
        f"{wrong} bounds on the wrong side of the truth",
        "0: every bound brackets the true value (independent Taylor oracle, exact)", certs)
