"""Release files as accounting records: what each spent, on which neighbours, and (where the
file names a mechanism whose law exactdp computes) its privacy loss.

Every release command writes its exact spend under ``"spent"``
(:meth:`exactdp.spend.Spend.to_json`): an expression ``"1/2"``, ``"ln(5/4)"``,
``"3*ln(1+2^-20)"`` and a ``delta``.  :func:`read_release` reads a release's JSON into a
:class:`Release`: the spend as exact terms (a rational part and ``coefficient * ln(ratio)``
parts), the neighbour relation the release's guarantee is stated for (releases about
different notions of neighbours do not compose into one guarantee), and for noisy counts
(``exactdp sample --json``: GeoSample, FastSample) the mechanism and the number of values,
so that the exact privacy-loss distribution of all of them can be composed
(:func:`counting_losses`).

>>> terms = parse_spend("3*ln(1+2^-2)")
>>> terms.logs, terms.rational
({Fraction(5, 4): Fraction(3, 1)}, Fraction(0, 1))
>>> str(basic_total([parse_spend("1/2"), parse_spend("ln(5/4)"), parse_spend("2*ln(5/4)")]))
'1/2 + 3*ln(5/4)'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactdp.certified import Interval, ln_interval
from exactdp.params import ParameterError, to_fraction

__all__ = ["MAX_PAIRS_COUNT", "Release", "ReleaseFormatError", "SpendTerms", "basic_total",
           "composed_losses", "countable", "counting_losses", "counting_parts", "parse_spend",
           "ratio_count_bound", "read_release"]


class ReleaseFormatError(ParameterError):
    """A file is not a release this accounting understands (named in the message)."""


_LN = re.compile(r"^(?:(?P<c>[0-9]+(?:/[0-9]+)?)\*)?ln\((?P<r>[^()]+)\)$")
_GEO = re.compile(r"^1\+2\^-(?P<k>[0-9]+)$")
_RATIONAL = re.compile(r"^[0-9]+(?:/[0-9]+)?$")


@dataclass(frozen=True)
class SpendTerms:
    """``rational + sum_r logs[r] * ln(r)`` and ``delta``, exactly."""

    rational: Fraction = Fraction(0)
    logs: dict[Fraction, Fraction] = field(default_factory=dict)
    delta: Fraction = Fraction(0)

    def interval(self, bits: int = 64) -> Interval:
        lo = hi = self.rational
        for r, c in self.logs.items():
            box = _ln_box(r, bits)
            lo += c * box.lo
            hi += c * box.hi
        return Interval(lo, hi)

    def __str__(self) -> str:
        parts = [str(self.rational)] if self.rational or not self.logs else []
        for r, c in sorted(self.logs.items()):
            parts.append(f"ln({_ratio_text(r)})" if c == 1 else f"{c}*ln({_ratio_text(r)})")
        return " + ".join(parts)


def _ratio_text(r: Fraction) -> str:
    """``1+2^-k`` for GeoSample's ratio when ``2^k`` is long (as the spend writes it)."""
    den = r.denominator
    if r.numerator == den + 1 and den & (den - 1) == 0 and den.bit_length() > 64:
        return f"1+2^-{den.bit_length() - 1}"
    return str(r)


def _ln_box(r: Fraction, bits: int) -> Interval:
    """``ln r`` within ``2**-bits``: ``[0, 2**-bits]`` for ``r = 1 + 2^-k`` with ``k >=
    bits`` (``0 < ln(1 + x) <= x``; no series on numbers of millions of bits), else
    :func:`exactdp.certified.ln_interval`."""
    den = r.denominator
    if r.numerator == den + 1 and den & (den - 1) == 0 and den.bit_length() - 1 >= bits:
        return Interval(Fraction(0), Fraction(1, 1 << bits))
    return ln_interval(r, bits)


#: Largest ``k`` of a ratio written ``1+2^-k`` (GeoSample's ``k`` is far below it).
MAX_GEO_K = 1 << 28


def parse_spend(text: object, delta: object = 0) -> SpendTerms:
    """The terms of a spend expression as :meth:`exactdp.spend.Spend.expression` writes it."""
    if not isinstance(text, str):
        raise ReleaseFormatError(f"spent epsilon = {text!r:.40} must be a string such as "
                                 f"'1/2' or '3*ln(5/4)'")
    d = to_fraction(delta, "spent delta")
    if _RATIONAL.match(text):
        return SpendTerms(Fraction(text), {}, d)
    m = _LN.match(text)
    if m is None:
        raise ReleaseFormatError(f"spent epsilon = {text!r:.60} is not an exact spend "
                                 f"('p/q', 'ln(r)' or 'c*ln(r)')")
    c = Fraction(m.group("c") or 1)
    r_text = m.group("r")
    g = _GEO.match(r_text)
    if g is not None:
        k = int(g.group("k")) if len(g.group("k")) < 12 else MAX_GEO_K + 1
        if k > MAX_GEO_K:
            raise ReleaseFormatError(f"spent epsilon: ratio 1+2^-{g.group('k')[:20]} has k > "
                                     f"{MAX_GEO_K}")
        r = object.__new__(Fraction)  # (2^k + 1)/2^k is in lowest terms: skip the gcd
        r._numerator, r._denominator = (1 << k) + 1, 1 << k  # type: ignore[attr-defined]
    elif _RATIONAL.match(r_text):
        r = Fraction(r_text)
    else:
        raise ReleaseFormatError(f"spent epsilon = {text!r:.60}: ratio {r_text!r:.40} is "
                                 f"not exact")
    if r < 1:
        raise ReleaseFormatError(f"spent epsilon = {text!r:.60}: the ratio must be >= 1")
    return SpendTerms(Fraction(0), {r: c} if r != 1 and c else {}, d)


def basic_total(spends: list[SpendTerms]) -> SpendTerms:
    """Basic composition: the epsilons add, the deltas add (exact terms, equal ratios
    merged)."""
    rational, delta = Fraction(0), Fraction(0)
    logs: dict[Fraction, Fraction] = {}
    for s in spends:
        rational += s.rational
        delta += s.delta
        for r, c in s.logs.items():
            logs[r] = logs.get(r, Fraction(0)) + c
    return SpendTerms(rational, logs, delta)


#: The neighbour relation each kind of release states its guarantee for (in words).
COUNTS = "counts: each release's true count changes by at most one"
RELATIONS = {
    "sample": COUNTS,
    "histogram": "datasets of n rows differing in one row",
    "convolve": "integer vectors with ||x - x'||_1 <= 1",
    "sparse-vector": "integer vectors with ||x - x'||_1 <= 1",
}


@dataclass(frozen=True)
class Release:
    """One release file: its ``kind`` (the command that wrote it), the neighbour
    ``relation`` its guarantee is for, its ``spend``, and for noisy counts the
    ``mechanism`` (rebuilt from the recorded parameters), ``n`` and the number of
    ``values``."""

    path: str
    kind: str
    relation: str
    spend: SpendTerms
    mechanism: Any = None
    values: int = 0
    note: str = ""


def _spent(doc: dict[str, Any], path: str) -> SpendTerms:
    spent = doc.get("spent")
    if not isinstance(spent, dict) or "epsilon" not in spent:
        raise ReleaseFormatError(f"{path}: no 'spent' object with an exact 'epsilon' (account "
                                 f"reads the JSON a release command writes)")
    try:
        return parse_spend(spent["epsilon"], spent.get("delta", "0"))
    except ReleaseFormatError as exc:
        raise ReleaseFormatError(f"{path}: {exc}") from None


def _counting(doc: dict[str, Any], path: str) -> tuple[Any, int, str]:
    from exactdp.fastsample import FastSample
    from exactdp.geosample import GeoSample

    values = doc.get("values")
    if not isinstance(values, list) or not values:
        raise ReleaseFormatError(f"{path}: a sample release needs its list of 'values'")
    try:
        n, eps = int(doc["n"]), Fraction(doc["paper_epsilon"])
        if doc["mechanism"] == "GeoSample":
            return GeoSample(n, eps), len(values), ""
        gamma = doc.get("gamma")
        if gamma is None:
            return None, len(values), "the file does not record FastSample's gamma"
        return FastSample(n, eps, Fraction(gamma)), len(values), ""
    except (KeyError, ValueError, TypeError) as exc:
        raise ReleaseFormatError(f"{path}: the sample release's parameters are incomplete "
                                 f"or not exact ({exc})") from None


def read_release(doc: object, path: str) -> Release:
    """The :class:`Release` of one parsed release file (``doc``: its JSON)."""
    if not isinstance(doc, dict):
        raise ReleaseFormatError(f"{path}: not a release (a JSON object with 'spent' is "
                                 f"expected)")
    spend = _spent(doc, path)
    fmt = str(doc.get("format", ""))
    if doc.get("mechanism") in ("GeoSample", "FastSample") and "values" in doc:
        mech, values, note = _counting(doc, path)
        return Release(path, "sample", COUNTS, spend, mech, values, note)
    if fmt.startswith("exactdp/") and "histogram" in fmt:
        return Release(path, "histogram", RELATIONS["histogram"], spend)
    if "alp-sketch" in fmt or "sketch" in fmt:
        return Release(path, "sparse-vector", RELATIONS["sparse-vector"], spend)
    if "guarantee" in doc and "noisy_coefficients" in doc:
        return Release(path, "convolve", RELATIONS["convolve"], spend)
    params = doc.get("parameters")
    if isinstance(params, dict) and str(params.get("command", "")).startswith("exactdp project"):
        beta = params.get("beta", "?")
        relation = (f"vectors: one coordinate of one vector moves by at most beta = {beta} "
                    f"grid steps")
        return Release(path, "project", relation, spend)
    raise ReleaseFormatError(f"{path}: not a release file of exactdp (sample, histogram, "
                             f"sparse-vector project, project or convolve with --json)")


#: The largest count range ``[0, n]`` whose neighbouring pairs are all examined exactly.
MAX_PAIRS_COUNT = 256
#: The most combinations of per-release losses composed exactly.
MAX_COMBINATIONS = 4096


def countable(releases: list[Release]) -> None:
    """Refuse releases whose exact figures are not computed: not noisy counts, counts whose
    law the file does not fix, or a range past :data:`MAX_PAIRS_COUNT`."""
    for rel in releases:
        if rel.kind != "sample" or rel.mechanism is None:
            why = rel.note or f"its law ({rel.kind}) is not computed by the accountant"
            raise ReleaseFormatError(f"{rel.path}: no exact privacy-loss distribution: {why}; "
                                     f"drop the exact figures (basic composition only)")
        if rel.mechanism.n > MAX_PAIRS_COUNT:
            raise ReleaseFormatError(f"{rel.path}: the counts range [0, {rel.mechanism.n}] has "
                                     f"{2 * rel.mechanism.n} ordered neighbouring pairs; the "
                                     f"exact figures examine every one, up to n = "
                                     f"{MAX_PAIRS_COUNT}")


def counting_parts(releases: list[Release]
                   ) -> list[tuple[tuple[tuple[int, int], ...], list[tuple[Any, int]]]]:
    """``[(pairs, [(loss_i, values_i), ...])]``: for every combination of distinct
    per-release losses, each release's exact loss of one value and its number of values,
    ``pairs[i]`` the ordered pair of neighbouring counts ``(c, c +- 1)`` in release ``i``'s
    range ``[0, n_i]`` that gives release ``i``'s part.

    The releases may count different things: one neighbouring dataset moves each count by
    at most one, in either direction, independently -- so every combination is examined
    (a count that does not move is never worse: composing with a further release cannot
    lower the hockey-stick divergence, which only falls under post-processing such as
    dropping that release)."""
    from itertools import product

    from exactdp.accounting.loss import PrivacyLoss, law_of

    countable(releases)
    options: list[dict[Any, tuple[int, int]]] = []
    size = 1
    for rel in releases:
        laws = [law_of(rel.mechanism, c) for c in range(rel.mechanism.n + 1)]
        distinct: dict[Any, tuple[int, int]] = {}
        for c in range(rel.mechanism.n):
            for a, b in ((c, c + 1), (c + 1, c)):
                distinct.setdefault(PrivacyLoss.from_laws(laws[a], laws[b]), (a, b))
        options.append(distinct)
        size *= len(distinct)
    if size > MAX_COMBINATIONS:
        raise ReleaseFormatError(f"{size} combinations of the releases' neighbouring pairs "
                                 f"(> {MAX_COMBINATIONS}); account for fewer releases at once")
    return [(tuple(pair for _, pair in combo),
             [(loss, releases[i].values) for i, (loss, _) in enumerate(combo)])
            for combo in product(*(list(o.items()) for o in options))]


def ratio_count_bound(parts: list[tuple[Any, int]], cap: int) -> int:
    """An upper bound on the distinct ratios of the exact composition of the ``(loss, k)``
    parts (``loss`` composed ``k`` times each), or ``cap + 1`` once it passes ``cap``: parts
    on one lattice ``offset * base**i`` add their exponents (``(slots - 1) k + 1`` ratios per
    base), a loss with ``m`` ratios on no lattice gives at most ``C(k + m - 1, m - 1)`` (the
    multisets of ``k`` of its ratios), and independent groups multiply."""
    from math import comb

    spans: dict[Any, int] = {}
    bound = 1
    for loss, k in parts:
        lattice = loss.lattice
        if lattice is not None:
            _, base, slots = lattice
            if base is not None:
                spans[base] = spans.get(base, 0) + (slots - 1) * k
            continue
        m = len(loss)
        bound *= comb(k + m - 1, m - 1) if m > 1 else 1
        if bound > cap:
            return cap + 1
    for span in spans.values():
        bound *= span + 1
        if bound > cap:
            return cap + 1
    return bound


def counting_losses(releases: list[Release]) -> list[tuple[tuple[tuple[int, int], ...], Any]]:
    """``[(pairs, loss)]``: the exact privacy loss of all the releases' values together for
    every combination of :func:`counting_parts`."""
    return composed_losses(counting_parts(releases))


def composed_losses(combos: list[tuple[tuple[tuple[int, int], ...], list[tuple[Any, int]]]]
                    ) -> list[tuple[tuple[tuple[int, int], ...], Any]]:
    """``[(pairs, loss)]``: each combination's parts composed exactly (each release's loss
    to the power of its number of values)."""
    from exactdp.accounting.compose import compose

    powers: dict[tuple[int, Any], Any] = {}
    out = []
    for pairs, parts in combos:
        composed = []
        for i, (loss, k) in enumerate(parts):
            if (i, loss) not in powers:
                powers[(i, loss)] = loss.power(k)
            composed.append(powers[(i, loss)])
        out.append((pairs, compose(*composed)))
    return out
