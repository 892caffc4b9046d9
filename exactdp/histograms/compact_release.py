"""The release file of a CompactHistogram (Algorithm 8.2): exact JSON, sealed and validated.

:func:`release_body` writes a :class:`~exactdp.histograms.compact.CompactRelease` as JSON
(every number a decimal string or ``"p/q"``); :func:`release_json` adds the SHA-256
``integrity`` field (:mod:`exactdp.histograms.release_file`).  :func:`from_json` checks the
digest first, then validates every field and **recomputes** every derived one -- the sampler
and its ``d``, the field, the node embedding, the Theorem 8.6 parameters, and the command
line's accuracy guarantees -- refusing the file with the name of the field that disagrees.
The digest detects corruption and editing; it is not an authentication (anyone can
recompute it), which is why the derived fields are recomputed as well.

Version ``"3"``: the integrity digest and the recomputed guarantees (version 2 had
neither; version 1 read ``x`` as ``T^{-1}(x)`` in the whole field).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import gmpy2

from exactdp.counting import GeoSample
from exactdp.histograms.accuracy import ceil_scaled_ln
from exactdp.histograms.compact import (
    FORMAT,
    VERSION,
    CompactHistogram,
    CompactRelease,
    SamplerSpec,
    node_sublevel,
)
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.fields import MAX_LEVEL, VanLintField
from exactdp.histograms.release_file import (
    InvalidReleaseError,
    check_input,
    check_keys,
    check_seal,
    check_spent,
    parse_release,
    seal,
)
from exactdp.params import ExactDPError, ParameterError, ParameterTypeError, inverse_integer
from exactdp.randomness import RandomSource

__all__ = [
    "FORMAT",
    "VERSION",
    "CompactRelease",
    "from_json",
    "loads",
    "release_body",
    "release_json",
    "release_report",
]

ALGORITHM = "CompactHistogram (Balcer & Vadhan, Algorithm 8.2)"
_KEYS = {"format", "version", "algorithm", "construction", "universe_size", "n", "epsilon",
         "beta0", "sampler", "field", "nodes", "coefficients", "integrity"}
#: Fields the command line adds (optional in a release made with the library).
_CLI_KEYS = {"beta", "guarantees", "input", "seeded", "spent"}

_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_EMBEDDING = ("x in X is the node sum_q b_q t^(q*{s}) where x - 1 = sum_q b_q 2^q: x - 1 read "
              "in GF(2^(2*3^{k})) = GF(2)[z]/(van Lint) and z -> t^{s}")




def release_body(rel: CompactRelease) -> dict[str, Any]:
    """The exact JSON form of ``rel`` without its integrity field."""
    spec = rel.sampler
    return {
        "format": FORMAT,
        "version": VERSION,
        "algorithm": ALGORITHM,
        "construction": rel.construction,
        "universe_size": str(rel.universe_size),
        "n": str(rel.n),
        "epsilon": None if rel.epsilon is None else str(rel.epsilon),
        "beta0": None if rel.beta0 is None else str(rel.beta0),
        "sampler": {"name": spec.name, "epsilon": str(spec.epsilon),
                    "gamma": None if spec.gamma is None else str(spec.gamma),
                    "d": gmpy2.mpz(rel.mechanism.d).digits(10)},
        "field": {"level": str(rel.level), "degree": str(rel.field.degree),
                  "modulus": rel.field.modulus_text()},
        "nodes": {"subfield_level": str(rel.sublevel),
                  "embedding": _EMBEDDING.format(k=rel.sublevel,
                                                 s=3 ** (rel.level - rel.sublevel))},
        "coefficients": [gmpy2.mpz(c).digits(10) for c in rel.coefficients],
    }


def release_json(rel: CompactRelease) -> dict[str, Any]:
    """:func:`release_body` sealed with its SHA-256 digest."""
    return seal(release_body(rel))


def loads(text: str, path: str = "<text>") -> CompactRelease:
    """Parse (bounded depth, no floats, no duplicate keys) and :func:`from_json`."""
    if not isinstance(text, str):
        raise ParameterTypeError(f"the release text is a {type(text).__name__}; pass a str "
                                 f"(decode the file as UTF-8, e.g. exactdp.files.read_text)")
    return from_json(parse_release(text, path))


def from_json(obj: object) -> CompactRelease:
    """Check the digest, then validate everything: structure, numbers, parameters, their
    consistency, and the derived fields (recomputed)."""
    top = _mapping(obj, "release")
    if top.get("format") != FORMAT:
        raise InvalidReleaseError(f"format = {top.get('format')!r}: expected {FORMAT!r}")
    if top.get("version") != VERSION:
        raise InvalidReleaseError(f"version = {top.get('version')!r}: only version "
                                  f"{VERSION!r} is understood (version '1' read x as "
                                  f"T^-1(x) in the whole field, version '2' had no integrity "
                                  f"digest; release again)")
    check_seal(top)
    check_keys(top, _KEYS, _CLI_KEYS, "the release")
    if top["algorithm"] != ALGORITHM:
        raise InvalidReleaseError(f"algorithm = {str(top['algorithm'])[:40]!r}: expected "
                                  f"{ALGORITHM!r}")
    size = _positive(top, "universe_size")
    n = _positive(top, "n")
    construction = top.get("construction")
    if construction not in ("theorem_8_6", "geosample", "custom"):
        raise InvalidReleaseError(f"construction = {construction!r} must be "
                                  f"'theorem_8_6', 'geosample' or 'custom'")
    eps = _optional_fraction(top, "epsilon")
    beta0 = _optional_fraction(top, "beta0")
    samp = _mapping(top.get("sampler"), "sampler")
    check_keys(samp, {"name", "epsilon", "gamma", "d"}, set(), "sampler")
    fld = _mapping(top.get("field"), "field")
    check_keys(fld, {"level", "degree", "modulus"}, set(), "field")
    level = _natural(fld, "level", "field.level")
    if level > MAX_LEVEL:
        raise InvalidReleaseError(f"field.level = {level} exceeds the supported "
                                  f"{MAX_LEVEL}")
    field_ = VanLintField(level)
    if _natural(fld, "degree", "field.degree") != field_.degree:
        raise InvalidReleaseError(f"field.degree = {fld.get('degree')} does not match level "
                                  f"{level} (degree 2*3^{level} = {field_.degree})")
    if fld.get("modulus") != field_.modulus_text():
        raise InvalidReleaseError(f"field.modulus = {fld.get('modulus')!r}; level {level} "
                                  f"has modulus {field_.modulus_text()!r}")
    try:
        spec = SamplerSpec(str(samp.get("name")), _fraction(samp, "epsilon", "sampler"),
                           None if samp.get("gamma") is None
                           else _fraction(samp, "gamma", "sampler"))
        mech = spec.build(n)
    except ExactDPError as exc:
        raise InvalidReleaseError(f"sampler parameters rejected: {exc}") from None
    if _natural(samp, "d", "sampler.d") != mech.d:
        raise InvalidReleaseError(f"sampler.d does not equal the d of {spec.name} with "
                                  f"these parameters")
    d0 = field_.order
    if d0 < size:
        raise InvalidReleaseError(f"d0 = 2^{field_.degree} < |X| = {size}")
    if 3 * d0 < 4 * mech.d:
        raise InvalidReleaseError(f"d0 = 2^{field_.degree} < 4d/3: Lemma 8.4 fails")
    expected = None
    if construction != "custom":
        expected = _check_construction(construction, size, n, eps, beta0, spec, level)
    _check_guarantees(top, expected, construction)
    if "spent" in top and eps is None:
        raise InvalidReleaseError("spent needs the recorded epsilon")
    check_spent(top)
    check_input(top, n)
    raw = top.get("coefficients")
    if not isinstance(raw, list):
        raise InvalidReleaseError("coefficients must be a list of decimal strings")
    if len(raw) != n + 1:
        raise InvalidReleaseError(f"coefficients has {len(raw)} entries; a polynomial of "
                                  f"degree <= n = {n} needs n + 1 = {n + 1}")
    nodes = _mapping(top.get("nodes"), "nodes")
    check_keys(nodes, {"subfield_level", "embedding"}, set(), "nodes")
    sublevel = node_sublevel(field_, size, n)
    if _natural(nodes, "subfield_level", "nodes.subfield_level") != sublevel:
        raise InvalidReleaseError(f"nodes.subfield_level = {nodes.get('subfield_level')}; "
                                  f"|X| = {size}, n = {n} and level {level} give {sublevel}")
    stride = 3 ** (level - sublevel)
    if nodes.get("embedding") != _EMBEDDING.format(k=sublevel, s=stride):
        raise InvalidReleaseError(f"nodes.embedding = {nodes.get('embedding')!r}; expected "
                                  f"{_EMBEDDING.format(k=sublevel, s=stride)!r}")
    coefficients = []
    for i, text in enumerate(raw):
        c = _decimal(text, f"coefficients[{i}]")
        if c >= d0:
            raise InvalidReleaseError(f"coefficients[{i}] is not an element of "
                                      f"GF(2^{field_.degree}): it must be < 2^{field_.degree}")
        coefficients.append(c)
    return CompactRelease(size, n, level, tuple(coefficients), mech, eps, beta0, construction)




def _check_construction(construction: str, size: int, n: int, eps: Fraction | None,
                        beta0: Fraction | None, spec: SamplerSpec,
                        level: int) -> CompactHistogram:
    if eps is None:
        raise InvalidReleaseError(f"construction {construction!r} needs epsilon")
    try:
        if construction == "theorem_8_6":
            if beta0 is None:
                raise InvalidReleaseError("construction 'theorem_8_6' needs beta0")
            expected = CompactHistogram.theorem_8_6(size, n, eps, beta0)
        else:
            expected = CompactHistogram.with_geosample(size, n, eps)
    except InvalidReleaseError:
        raise
    except ExactDPError as exc:
        raise InvalidReleaseError(f"epsilon/beta0 rejected: {exc}") from None
    want = SamplerSpec.of(expected.mechanism)
    if want != spec:
        raise InvalidReleaseError(f"sampler {spec} does not match {construction} with epsilon = "
                                  f"{eps}, beta0 = {beta0}, |X| = {size}: expected {want}")
    if expected.field.level != level:
        raise InvalidReleaseError(f"field level {level} does not match {construction} "
                                  f"(expected level {expected.field.level})")
    return expected


def _check_guarantees(top: Mapping[str, Any], expected: CompactHistogram | None,
                      construction: str) -> None:
    """The command line's ``beta`` and ``guarantees``: recomputed and compared."""
    if "guarantees" not in top and "beta" not in top:
        return
    if "guarantees" not in top or "beta" not in top or expected is None:
        raise InvalidReleaseError("guarantees and beta come together, and only with the "
                                  "theorem_8_6 or geosample construction")
    beta = _fraction(top, "beta", "release", below_one=True)
    if construction == "theorem_8_6" and beta != expected.beta0:
        raise InvalidReleaseError(f"beta = {beta} differs from beta0 = {expected.beta0}")
    if top["guarantees"] != _guarantees(expected, beta):
        raise InvalidReleaseError(f"field 'guarantees' does not match what {construction} "
                                  f"gives with the recorded epsilon, beta, |X| and n; the "
                                  f"file was edited")


def _mapping(obj: object, name: str) -> Mapping[str, Any]:
    if not isinstance(obj, dict):
        raise InvalidReleaseError(f"{name} must be a JSON object")
    return obj


def _decimal(value: object, name: str) -> int:
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
        shown = value if not isinstance(value, str) or len(value) < 40 else value[:37] + "..."
        raise InvalidReleaseError(f"{name} = {shown!r} must be a non-negative integer written "
                                  f"as a decimal string without sign, spaces or leading zeros")
    return int(gmpy2.mpz(value))


def _natural(obj: Mapping[str, Any], key: str, name: str) -> int:
    return _decimal(obj.get(key), name)


def _positive(obj: Mapping[str, Any], key: str) -> int:
    v = _natural(obj, key, key)
    if v < 1:
        raise InvalidReleaseError(f"{key} = {v} must be >= 1")
    return v


def _fraction(obj: Mapping[str, Any], key: str, where: str,
              below_one: bool = False) -> Fraction:
    value = obj.get(key)
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]+(/[0-9]+)?", value):
        raise InvalidReleaseError(f"{where}.{key} = {str(value)[:40]!r} must be a string "
                                  f"'p/q'")
    try:
        q = inverse_integer(value, f"{where}.{key}", below_one=below_one)
    except ExactDPError as exc:
        raise InvalidReleaseError(str(exc)) from None
    if str(q) != value:
        raise InvalidReleaseError(f"{where}.{key} = {value!r} must be written {str(q)!r}")
    return q


def _optional_fraction(obj: Mapping[str, Any], key: str) -> Fraction | None:
    return None if obj.get(key) is None else _fraction(obj, key, "release")


# --------------------------------------------------------------------------- command line

def release_report(universe: Universe, epsilon: object, beta0: object, counting: str,
                   dataset: Dataset, source: RandomSource | None = None) -> dict[str, Any]:
    """``exactdp histogram --algorithm compact``: Theorem 8.6 (``counting="fastsample"``) or
    the GeoSample variant, released on ``dataset``; the JSON form of the release plus
    ``beta`` and the accuracy guarantees at it (recomputed and compared by
    :func:`from_json`), sealed.  Callers that add fields (``input``, ``seeded``) seal again
    (:func:`exactdp.histograms.release_file.seal`)."""
    beta = inverse_integer(beta0, "beta", below_one=True)
    if counting == "fastsample":
        ch = CompactHistogram.theorem_8_6(universe, dataset.n, epsilon, beta)
    elif counting == "geosample":
        ch = CompactHistogram.with_geosample(universe, dataset.n, epsilon)
    else:
        raise ParameterError(f"counting = {counting!r} must be 'fastsample' or 'geosample'")
    out = release_body(ch.release(dataset, source))
    out["beta"] = str(beta)
    out["guarantees"] = _guarantees(ch, beta)
    return seal(out)


def _guarantees(ch: CompactHistogram, beta: Fraction) -> dict[str, Any]:
    """Theorem 8.6 (ii)/(iii) at ``beta = beta0`` (FastSample) and Figure 6 (GeoSample),
    with ``a`` computed exactly; Theorem 8.3 (i) for privacy."""
    eps = Fraction(1) if ch.epsilon is None else ch.epsilon
    size = Fraction(ch.universe.size)
    mech = ch.mechanism
    if not isinstance(mech, GeoSample):
        per_query = {"beta": str(beta), "a": str(ceil_scaled_ln(5 / eps, 2 / beta)),
                     "claim": "Theorem 8.6 (ii): a = ceil(5/eps ln(2/beta)), beta >= 2 gamma"}
        simultaneous = {"beta": str(beta),
                        "a": str(ceil_scaled_ln(5 / eps, 2 * size / beta)),
                        "claim": "Theorem 8.6 (iii) (simultaneous, as in Figure 6): "
                                 "a = ceil(5/eps ln(2|X|/beta)), beta >= beta0"}
    else:
        a_m = mech.paper_accuracy(beta)
        a_s = mech.paper_accuracy(beta / size)
        per_query = {"beta": str(beta), "a": str(a_m),
                     "claim": "Theorem 8.3 (ii) with GeoSample's a = ceil(2/eps~ ln(1/beta))"}
        simultaneous = {"beta": str(beta), "a": str(a_s),
                        "claim": "Theorem 8.3 (iii) at beta/|X|"}
    return {"privacy": f"({eps}, 0)-DP (Theorem 8.3 i with Lemma 8.4: eps' + 3d/d0 <= eps)",
            "per_query": per_query, "simultaneous": simultaneous}
