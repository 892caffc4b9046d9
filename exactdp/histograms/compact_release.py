"""The release file of a CompactHistogram (Algorithm 8.2): exact JSON, sealed and validated.

:func:`release_body` writes a :class:`~exactdp.histograms.compact.CompactRelease` as JSON
(every number a decimal string or ``"p/q"``); :func:`release_json` adds the SHA-256
``integrity`` field (:mod:`exactdp.histograms.release_file`).  :func:`release_fields`
(behind :meth:`CompactRelease.from_json <exactdp.histograms.compact.CompactRelease.from_json>`)
checks the digest first, then validates every field and **recomputes** every derived one --
the sampler and its ``d``, the field, the node embedding, the Theorem 8.6 parameters
(:func:`construction_sampler`, :func:`theorem_8_6_level`), and the command line's accuracy
guarantees (:func:`guarantees`) -- refusing the file with the name of the field that
disagrees.  The public parameters a release records (:class:`SamplerSpec`,
:func:`node_sublevel`) are defined here, below :mod:`exactdp.histograms.compact`.
The digest detects corruption and editing; it is not an authentication (anyone can
recompute it), which is why the derived fields are recomputed as well.

Version ``"3"``: the integrity digest and the recomputed guarantees (version 2 had
neither; version 1 read ``x`` as ``T^{-1}(x)`` in the whole field).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import gmpy2

from exactdp.certified import ceil_log2
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.accuracy import ceil_scaled_ln
from exactdp.histograms.fields import MAX_LEVEL, VanLintField, level_for_bits
from exactdp.histograms.release_file import (
    InvalidReleaseError,
    check_input,
    check_keys,
    check_seal,
    check_spent,
    seal,
)
from exactdp.params import (
    ExactDPError,
    ParameterError,
    ParameterTypeError,
    inverse_integer,
    positive_int,
)

if TYPE_CHECKING:
    from exactdp.histograms.compact import CompactRelease

__all__ = [
    "ALGORITHM",
    "FORMAT",
    "VERSION",
    "SamplerSpec",
    "construction_sampler",
    "guarantees",
    "node_sublevel",
    "release_body",
    "release_fields",
    "release_json",
    "theorem_8_6_epsilon_prime",
    "theorem_8_6_level",
]

#: The ``"format"`` tag of the JSON form of a
#: :class:`~exactdp.histograms.compact.CompactRelease`.
FORMAT = "exactdp/compact-histogram"


#: 2: nodes embedded through the subfield K (version 1 used T^{-1}(x) in L);
#: 3: the integrity digest and the recomputed guarantees.
VERSION = "3"


@dataclass(frozen=True)
class SamplerSpec:
    """The public description of the counting mechanism of a release: ``GeoSample_{n,eps}``
    (Algorithm 4.8) or ``FastSample_{n,eps,gamma}`` (Algorithm 4.11)."""

    name: str
    epsilon: Fraction
    gamma: Fraction | None = None

    def __post_init__(self) -> None:
        if self.name not in ("FastSample", "GeoSample"):
            raise ParameterError(f"sampler name = {self.name!r} must be 'FastSample' or "
                                 f"'GeoSample'")
        object.__setattr__(self, "epsilon", inverse_integer(self.epsilon, "sampler epsilon"))
        if self.name == "FastSample":
            if self.gamma is None:
                raise ParameterError("FastSample needs gamma")
            object.__setattr__(self, "gamma", inverse_integer(self.gamma, "sampler gamma"))
        elif self.gamma is not None:
            raise ParameterError("GeoSample takes no gamma")

    def __str__(self) -> str:
        gamma = "" if self.gamma is None else f", gamma={self.gamma}"
        return f"{self.name}(eps={self.epsilon}{gamma})"

    @classmethod
    def of(cls, mechanism: InverseCDFSampler) -> SamplerSpec:
        """The spec of a GeoSample or FastSample instance."""
        if isinstance(mechanism, FastSample):
            return cls("FastSample", mechanism.epsilon, mechanism.gamma)
        if isinstance(mechanism, GeoSample):
            return cls("GeoSample", mechanism.epsilon)
        raise ParameterTypeError(f"only GeoSample and FastSample releases can be described "
                                 f"publicly, not {mechanism!r}")

    def build(self, n: int) -> InverseCDFSampler:
        if self.name == "FastSample":
            return FastSample(n, self.epsilon, self.gamma)
        return GeoSample(n, self.epsilon)


def theorem_8_6_epsilon_prime(epsilon: object) -> Fraction:
    """``eps' = 1 / ceil(10 / (9 eps))`` (Theorem 8.6); for ``eps = 1/m``: ``1/ceil(10m/9)``."""
    m = inverse_integer(epsilon, "epsilon").denominator
    return Fraction(1, (10 * m + 8) // 9)


def theorem_8_6_level(universe_size: int, d: int, epsilon: object) -> int:
    """``l = ceil(log3(ceil(log2 max{|X|, 30 d / eps}) / 2))`` (proof of Theorem 8.6), so that
    ``d0 = 2**(2 * 3**l) >= max{|X|, 30 d / eps}``; integer arithmetic only."""
    m = inverse_integer(epsilon, "epsilon").denominator
    return level_for_bits(ceil_log2(max(positive_int(universe_size, "universe size M"),
                                        30 * d * m)))


def node_sublevel(field_: VanLintField, universe_size: int, n: int) -> int:
    """The level ``k`` of the subfield ``K`` holding the interpolation nodes: the least with
    ``|K| >= max(|X|, n + 1)`` (capped at ``d0``), so that ``K`` holds ``T^{-1}(x) = x - 1``
    for every ``x`` in ``X`` and the padding points ``0..n``.  Any injection of ``X`` into
    the field serves Lemma 8.1; this one keeps the nodes in a small subfield, where the
    native arithmetic works (:mod:`exactdp.histograms.native`)."""
    return field_.sublevel_for(max(universe_size, min(n + 1, field_.order)))


def construction_sampler(construction: str, universe_size: int, n: int, epsilon: Fraction,
                         beta0: Fraction | None) -> InverseCDFSampler:
    """The counting mechanism ``M`` of a construction: Theorem 8.6's
    ``FastSample_{n,eps',gamma}`` (``construction="theorem_8_6"``, ``eps'`` =
    :func:`theorem_8_6_epsilon_prime`, ``gamma = beta0 / (2|X|)``) or Figure 6's
    ``GeoSample_{n,eps'}`` (``"geosample"``); what
    :meth:`~exactdp.histograms.compact.CompactHistogram.theorem_8_6` and ``with_geosample``
    build, and what a release file of theirs is checked against."""
    eps_prime = theorem_8_6_epsilon_prime(epsilon)
    if construction == "theorem_8_6":
        if beta0 is None:
            raise ParameterError("construction 'theorem_8_6' needs beta0")
        return FastSample(n, eps_prime, Fraction(1, 2 * beta0.denominator * universe_size))
    if construction != "geosample":
        raise ParameterError(f"construction = {construction!r} must be 'theorem_8_6' or "
                             f"'geosample'")
    return GeoSample(n, eps_prime)

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


def release_fields(obj: object) -> tuple[Any, ...]:
    """Check the digest, then validate everything: structure, numbers, parameters, their
    consistency, and the derived fields (recomputed); the arguments of
    :class:`~exactdp.histograms.compact.CompactRelease` (what
    :meth:`~exactdp.histograms.compact.CompactRelease.from_json` builds)."""
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
    _check_guarantees(top, expected, construction, eps, beta0, size)
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
    return (size, n, level, tuple(coefficients), mech, eps, beta0, construction)


def _check_construction(construction: str, size: int, n: int, eps: Fraction | None,
                        beta0: Fraction | None, spec: SamplerSpec,
                        level: int) -> InverseCDFSampler:
    """The sampler the construction gives with the recorded parameters (recomputed), checked
    against the recorded sampler and field level."""
    if eps is None:
        raise InvalidReleaseError(f"construction {construction!r} needs epsilon")
    if construction == "theorem_8_6" and beta0 is None:
        raise InvalidReleaseError("construction 'theorem_8_6' needs beta0")
    try:
        expected = construction_sampler(construction, size, n, eps, beta0)
        want_level = theorem_8_6_level(size, expected.d, eps)
    except ExactDPError as exc:
        raise InvalidReleaseError(f"epsilon/beta0 rejected: {exc}") from None
    want = SamplerSpec.of(expected)
    if want != spec:
        raise InvalidReleaseError(f"sampler {spec} does not match {construction} with epsilon = "
                                  f"{eps}, beta0 = {beta0}, |X| = {size}: expected {want}")
    if want_level != level:
        raise InvalidReleaseError(f"field level {level} does not match {construction} "
                                  f"(expected level {want_level})")
    return expected


def _check_guarantees(top: Mapping[str, Any], expected: InverseCDFSampler | None,
                      construction: str, eps: Fraction | None, beta0: Fraction | None,
                      size: int) -> None:
    """The command line's ``beta`` and ``guarantees``: recomputed and compared."""
    if "guarantees" not in top and "beta" not in top:
        return
    if "guarantees" not in top or "beta" not in top or expected is None:
        raise InvalidReleaseError("guarantees and beta come together, and only with the "
                                  "theorem_8_6 or geosample construction")
    beta = _fraction(top, "beta", "release", below_one=True)
    expected_beta0 = beta0 if construction == "theorem_8_6" else None
    if construction == "theorem_8_6" and beta != expected_beta0:
        raise InvalidReleaseError(f"beta = {beta} differs from beta0 = {expected_beta0}")
    if top["guarantees"] != guarantees(eps, size, expected, beta):
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




def guarantees(epsilon: Fraction | None, universe_size: int, mech: InverseCDFSampler,
               beta: Fraction) -> dict[str, Any]:
    """The accuracy guarantees a release states: Theorem 8.6 (ii)/(iii) at ``beta = beta0``
    (FastSample ``mech``) and Figure 6 (GeoSample), with ``a`` computed exactly; Theorem 8.3
    (i) for privacy."""
    eps = Fraction(1) if epsilon is None else epsilon
    size = Fraction(universe_size)
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
