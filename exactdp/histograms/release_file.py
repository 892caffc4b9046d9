"""Release files: their integrity digest, and loading any release for ``exactdp query``.

Every release file exactdp writes (a CompactHistogram release, and the JSON report of a
basic, stability or pure-sparse release) carries an ``integrity`` field::

    "integrity": {"sha256": "<64 hex digits>", "note": INTEGRITY_NOTE}

whose digest is the SHA-256 of the **canonical** JSON of every other field
(:func:`canonical_bytes`: keys sorted, no spaces, ASCII only), so re-indenting the file does
not matter but any change of content does.  :func:`check_seal` recomputes it on load.

This detects corruption and editing of the file.  It is **not** an authentication: anyone
can edit a file and recompute the digest.  So a loader also recomputes every derived field
(guarantees, parameters, lower bounds, the field and sampler of a compact release, ...) from
the public values the file records and refuses a file where one disagrees, naming the field
(:func:`check_histogram_report`; :meth:`CompactRelease.from_json
<exactdp.histograms.compact.CompactRelease.from_json>`).  What no loader can check is that
the released noise itself was drawn honestly.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.files import InputFileError, parse_json
from exactdp.histograms.data import Histogram, Universe, decode_label
from exactdp.params import ExactDPError, ParameterError

__all__ = [
    "INTEGRITY_NOTE",
    "InvalidReleaseError",
    "LoadedRelease",
    "canonical_bytes",
    "check_histogram_report",
    "check_input",
    "check_keys",
    "check_seal",
    "parse_release",
    "seal",
]

INTEGRITY_NOTE = ("sha256 is the SHA-256 of the canonical JSON of every other field (keys "
                  "sorted, no spaces, ASCII): it detects corruption and editing of this file; "
                  "it is not an authentication (anyone can recompute it)")

_HEX = re.compile(r"[0-9a-f]{64}")
_DECIMAL = re.compile(r"0|[1-9][0-9]*")


class InvalidReleaseError(ParameterError):
    """A release file is malformed, fails its integrity check or is inconsistent."""


# --------------------------------------------------------------------------- the digest

def canonical_bytes(obj: Mapping[str, Any]) -> bytes:
    """The canonical JSON of ``obj`` without its ``integrity`` field."""
    body = {k: v for k, v in obj.items() if k != "integrity"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def seal(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` with its ``integrity`` field (re)computed."""
    out = {k: v for k, v in obj.items() if k != "integrity"}
    out["integrity"] = {"sha256": hashlib.sha256(canonical_bytes(out)).hexdigest(),
                        "note": INTEGRITY_NOTE}
    return out


def check_seal(obj: Mapping[str, Any]) -> None:
    """Refuse ``obj`` unless its ``integrity`` field matches its content."""
    integrity = obj.get("integrity")
    if not isinstance(integrity, dict):
        raise InvalidReleaseError("the release has no integrity field (a SHA-256 digest of "
                                  "its content); it was not written by this exactdp, or it "
                                  "was edited: release again")
    if set(integrity) != {"sha256", "note"} or integrity.get("note") != INTEGRITY_NOTE:
        raise InvalidReleaseError("integrity must be exactly {\"sha256\": ..., \"note\": ...} "
                                  "as exactdp writes it; the file was edited")
    digest = integrity["sha256"]
    if not isinstance(digest, str) or not _HEX.fullmatch(digest):
        raise InvalidReleaseError("integrity.sha256 must be 64 lowercase hex digits")
    actual = hashlib.sha256(canonical_bytes(obj)).hexdigest()
    if not hmac.compare_digest(actual, digest):
        raise InvalidReleaseError(f"the release fails its integrity check: its content has "
                                  f"SHA-256 {actual[:16]}..., the file records "
                                  f"{digest[:16]}...; it was corrupted or edited after the "
                                  f"release (nothing in it can be trusted: release again)")


def parse_release(text: str, path: str = "<text>",
                  what: str = "release") -> dict[str, Any]:
    """Parse a release's JSON: bounded depth, no floats, no duplicate keys (a second value of
    a key would be invisible to a reader but not to the parser), a JSON object."""
    try:
        obj = parse_json(text, path, what, object_pairs_hook=_no_duplicates)
    except InputFileError as exc:
        raise InvalidReleaseError(str(exc)) from None
    if not isinstance(obj, dict):
        raise InvalidReleaseError(f"{what} {path!r} must be a JSON object")
    return obj


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise InvalidReleaseError(f"the key {key[:40]!r} appears twice in one object; "
                                      f"the file was edited")
        seen[key] = value
    return seen


# --------------------------------------------------------------------------- shared fields

def decimal(value: object, name: str, minimum: int = 0) -> int:
    """A non-negative integer written as a decimal string without sign or leading zeros."""
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
        shown = value if not isinstance(value, str) or len(value) < 40 else value[:37] + "..."
        raise InvalidReleaseError(f"{name} = {shown!r} must be a non-negative integer written "
                                  f"as a decimal string without sign, spaces or leading zeros")
    import gmpy2

    v = int(gmpy2.mpz(value))
    if v < minimum:
        raise InvalidReleaseError(f"{name} = {v} must be >= {minimum}")
    return v


def check_input(obj: Mapping[str, Any], n: int) -> str | None:
    """The optional ``input`` and ``seeded`` fields the command line records; returns the
    recorded data format (``"integers"`` or ``"labels"``), None when not recorded."""
    seeded = obj.get("seeded", False)
    if not isinstance(seeded, bool):
        raise InvalidReleaseError(f"seeded = {seeded!r} must be true or false")
    if "input" not in obj:
        return None
    inp = obj["input"]
    if not isinstance(inp, dict) or set(inp) != {"file", "format", "rows"}:
        raise InvalidReleaseError("input must be an object with exactly file, format, rows")
    if not isinstance(inp["file"], str):
        raise InvalidReleaseError("input.file must be a string")
    if inp["format"] not in ("integers", "labels"):
        raise InvalidReleaseError(f"input.format = {inp['format']!r} must be 'integers' or "
                                  f"'labels'")
    if decimal(inp["rows"], "input.rows") != n:
        raise InvalidReleaseError(f"input.rows = {inp['rows']} differs from n = {n}")
    return str(inp["format"])


def check_keys(obj: Mapping[str, Any], required: set[str], optional: set[str],
               what: str) -> None:
    """Refuse a missing required field or an unknown one (an edited file)."""
    missing = sorted(required - set(obj))
    if missing:
        raise InvalidReleaseError(f"{what} lacks the field {missing[0]!r}")
    extra = sorted(set(obj) - required - optional)
    if extra:
        raise InvalidReleaseError(f"{what} has an unknown field {extra[0][:40]!r}")


# --------------------------------------------------------------------------- spent

def spent_of(report: Mapping[str, Any], requested: Fraction) -> dict[str, Any]:
    """The ``"spent"`` object (:mod:`exactdp.spend`) of a release report -- basic,
    stability, pure-sparse or compact -- made for the budget ``requested``: the paper's eps
    (and delta) the report records, with the theorem that gives it."""
    from exactdp.spend import histogram_spend

    if "request" in report:
        req = report["request"]
        eps = Fraction(req["epsilon"])
        delta = None if req["delta"] is None else Fraction(req["delta"])
        theorem = f"{report['paper']} ({report['released_by']})"
    else:
        eps, delta = Fraction(report["epsilon"]), None
        theorem = "Algorithm 8.2, Theorem 8.6 (CompactHistogram)"
    kind = "(eps, 0)-DP" if delta is None else "(eps, delta)-DP"
    return histogram_spend(eps, delta, requested,
                           f"{theorem}: the whole release is {kind}").to_json()


def check_spent(report: Mapping[str, Any]) -> None:
    """The optional ``"spent"`` field the command line adds: its budget must be one the
    recorded eps is chosen for (eps = 1/ceil(1/budget)), and every other field must be what
    :func:`spent_of` gives."""
    if "spent" not in report:
        return
    spent = report["spent"]
    asked = spent.get("requested_epsilon") if isinstance(spent, dict) else None
    if not isinstance(asked, str) or not re.fullmatch(r"[1-9][0-9]*(/[1-9][0-9]*)?", asked):
        raise InvalidReleaseError("spent.requested_epsilon must be a positive fraction 'p/q'")
    requested = Fraction(asked)
    eps = Fraction(report["request"]["epsilon"] if "request" in report else report["epsilon"])
    if requested > 1 or Fraction(1, -((-requested.denominator) // requested.numerator)) != eps:
        raise InvalidReleaseError(f"spent.requested_epsilon = {asked}: the recorded eps = "
                                  f"{eps} is not the largest 1/m within it; the file was "
                                  f"edited")
    if spent != spent_of(report, requested):
        raise InvalidReleaseError("field 'spent' does not match the recorded eps and delta; "
                                  "the file was edited")


# --------------------------------------------------------------------------- histogram reports

_REPORT_KEYS = {"format", "version", "algorithm", "universe_size", "n", "request", "paper",
                "released_by", "fallback", "mechanism", "parameters", "guarantees",
                "lower_bounds", "notes", "histogram", "integrity"}


@dataclass(frozen=True)
class LoadedRelease:
    """A validated release of any kind, ready for ``exactdp query``: ``count(x)`` is the
    released noisy count of ``x`` in ``[1, universe_size]`` (0 for an element a sparse
    release does not list: Section 2.2.1's partial vectors)."""

    kind: str
    universe_size: int
    n: int
    recorded_format: str | None
    count: Callable[[int], int]


def check_histogram_report(obj: Mapping[str, Any]) -> LoadedRelease:
    """Validate the report of a basic, stability or pure-sparse release: its digest, its
    structure, the released bins, and every derived field recomputed from the recorded
    request (:func:`exactdp.histograms.release.plan`)."""
    from exactdp.histograms import release as rel

    if obj.get("format") != rel.HISTOGRAM_FORMAT:
        raise InvalidReleaseError(f"format = {obj.get('format')!r}: expected "
                                  f"{rel.HISTOGRAM_FORMAT!r}")
    if obj.get("version") != rel.HISTOGRAM_VERSION:
        raise InvalidReleaseError(f"version = {obj.get('version')!r}: only version "
                                  f"{rel.HISTOGRAM_VERSION!r} is understood")
    check_seal(obj)
    check_keys(obj, _REPORT_KEYS, {"input", "seeded", "spent"}, "the release")
    algorithm = obj["algorithm"]
    if algorithm not in rel.ALGORITHMS:
        raise InvalidReleaseError(f"algorithm = {str(algorithm)[:40]!r} must be one of "
                                  f"{', '.join(sorted(rel.ALGORITHMS))}")
    size = decimal(obj["universe_size"], "universe_size", 1)
    n = decimal(obj["n"], "n", 1)
    req = _request(obj["request"], size)
    try:
        plan = rel.plan(algorithm, req, n)
    except ExactDPError as exc:
        raise InvalidReleaseError(f"the recorded request cannot have been released: {exc}"
                                  ) from None
    for name, expected in rel.derived_fields(algorithm, plan, req).items():
        if obj[name] != expected:
            raise InvalidReleaseError(f"field {name!r} does not match what {algorithm} gives "
                                      f"with the recorded universe_size, n and request; the "
                                      f"file was edited")
    check_spent(obj)
    fmt = check_input(obj, n)
    hist = _bins(obj["histogram"], Universe(size), n, fmt == "labels")
    _shape(hist, plan.released_by, plan.guarantee.threshold_b)
    return LoadedRelease(str(algorithm), size, n, fmt, hist.count)


def _request(obj: object, size: int) -> Any:
    from exactdp.histograms import release as rel
    from exactdp.params import inverse_integer

    if not isinstance(obj, dict):
        raise InvalidReleaseError("request must be a JSON object")
    check_keys(obj, {"epsilon", "beta", "delta", "counting"}, set(), "request")
    if obj["counting"] not in rel.COUNTING:
        raise InvalidReleaseError(f"request.counting = {str(obj['counting'])[:40]!r} must be "
                                  f"one of {', '.join(rel.COUNTING)}")
    values: dict[str, Fraction | None] = {}
    for key in ("epsilon", "beta", "delta"):
        value = obj[key]
        if value is None and key == "delta":
            values[key] = None
            continue
        if not isinstance(value, str) or not re.fullmatch(r"1/[1-9][0-9]*|1", value):
            raise InvalidReleaseError(f"request.{key} = {str(value)[:40]!r} must be a string "
                                      f"'1/m'")
        try:
            values[key] = inverse_integer(value, f"request.{key}",
                                          below_one=key != "epsilon")
        except ExactDPError as exc:
            raise InvalidReleaseError(str(exc)) from None
        if str(values[key]) != value:
            raise InvalidReleaseError(f"request.{key} = {value!r} must be written "
                                      f"{str(values[key])!r}")
    eps, beta = values["epsilon"], values["beta"]
    assert eps is not None and beta is not None  # only delta may be null (checked above)
    return rel.ReleaseRequest(Universe(size), eps, beta, values["delta"], str(obj["counting"]))


def _bins(rows: object, universe: Universe, n: int, labels: bool) -> Histogram:
    if not isinstance(rows, list):
        raise InvalidReleaseError("histogram must be a list of bins")
    pairs = []
    for i, row in enumerate(rows):
        where = f"histogram[{i}]"
        if not isinstance(row, dict):
            raise InvalidReleaseError(f"{where} must be a JSON object")
        label_keys = {"label", "label_hex"} & set(row)
        if set(row) - {"element", "count", "label", "label_hex"} or len(label_keys) != labels:
            raise InvalidReleaseError(f"{where} must have element, count"
                                      + (" and label (or label_hex)" if labels else
                                         " and no label (the input format is not labels)"))
        x = decimal(row["element"], f"{where}.element", 1)
        c = decimal(row["count"], f"{where}.count")
        if x > universe.size or c > n:
            raise InvalidReleaseError(f"{where} = ({x}, {c}) is outside [1, M] x [0, n]")
        if labels:
            raw = decode_label(x)
            try:
                expected = {"label": raw.decode("utf-8")}
            except UnicodeDecodeError:
                expected = {"label_hex": raw.hex()}
            if {k: row[k] for k in label_keys} != expected:
                raise InvalidReleaseError(f"{where}: the label does not match element {x}")
        pairs.append((x, c))
    try:
        return Histogram(universe, n, tuple(pairs))
    except ExactDPError as exc:
        raise InvalidReleaseError(f"histogram: {exc}") from None


def _shape(hist: Histogram, released_by: str, threshold: int | None) -> None:
    """What every output of the releasing algorithm looks like."""
    if released_by == "BasicHistogram":
        if len(hist) != hist.universe.size or (hist.bins and hist.bins[-1][0] != len(hist)):
            raise InvalidReleaseError("histogram: BasicHistogram lists every element of "
                                      "[1, M] exactly once")
    elif len(hist) > hist.n:
        raise InvalidReleaseError(f"histogram: {released_by} releases at most n = {hist.n} "
                                  f"bins, the file lists {len(hist)}")
    elif released_by == "StabilityHistogram" and threshold is not None:
        if any(c <= threshold for _, c in hist.bins):
            raise InvalidReleaseError(f"histogram: StabilityHistogram releases only counts "
                                      f"above b = {threshold}")
    elif any(c == 0 for _, c in hist.bins):
        raise InvalidReleaseError(f"histogram: {released_by} releases only positive counts")


# --------------------------------------------------------------------------- any release
