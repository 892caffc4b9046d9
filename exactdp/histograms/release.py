"""Release a histogram from a file of identifiers, with the guarantees that apply.

This is the library side of ``exactdp histogram``: reading a dataset (one element per line,
integers or labels: :mod:`exactdp.histograms.datafile`), building the algorithm with the
paper's parameter choices, releasing, and assembling the exact guarantees (Figures 3-5) and
the lower bounds (Theorems 7.1, 7.2) as JSON-safe data.

Everything the report says besides the released bins is a function of public values only
(``M``, ``n`` and the requested parameters): :func:`plan` computes it without drawing
anything, so a loader can recompute it and refuse a file whose derived fields were edited
(:func:`exactdp.histograms.release_file.check_histogram_report`).

To add an algorithm, write a :data:`Planner` and add it to :data:`ALGORITHMS`; the command
line picks up the new choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.certificate import exact_json
from exactdp.counting import FastSample, GeoSample, InverseCDFSampler
from exactdp.histograms.accuracy import (
    Guarantee,
    figure_3,
    figure_4,
    figure_5,
    theorem_7_1_per_query,
    theorem_7_1_simultaneous,
    theorem_7_2_sparse,
)
from exactdp.histograms.basic import (
    BasicHistogram,
    Progress,
    StabilityHistogram,
    theorem_5_3_gamma,
)
from exactdp.histograms.data import Dataset, Histogram, Universe
from exactdp.histograms.datafile import FORMATS, parse_universe_size, read_dataset
from exactdp.histograms.sparse import PureSparseHistogram, fallback_reason
from exactdp.params import ParameterError, inverse_integer, positive_int
from exactdp.randomness import RandomSource

__all__ = [
    "ALGORITHMS",
    "COUNTING",
    "FORMATS",
    "HISTOGRAM_FORMAT",
    "Plan",
    "Planner",
    "ReleaseRequest",
    "parse_universe_size",
    "plan",
    "read_dataset",
    "release",
    "scientific_upper",
]

#: The counting mechanisms a histogram can use (Section 4).
COUNTING = ("fastsample", "geosample")

#: The ``"format"`` tag and version of the JSON of a basic, stability or pure-sparse release.
HISTOGRAM_FORMAT = "exactdp/histogram"
HISTOGRAM_VERSION = "1"


@dataclass(frozen=True)
class ReleaseRequest:
    """What a user asked for: parameters exactly as given (validated by the planners)."""

    universe: Universe
    epsilon: Fraction
    beta: Fraction
    delta: Fraction | None = None
    counting: str = "fastsample"
    progress: Progress | None = None

    def to_json(self) -> dict[str, Any]:
        """The request as recorded in a release (``progress`` is not part of it)."""
        return {"epsilon": str(self.epsilon), "beta": str(self.beta),
                "delta": None if self.delta is None else str(self.delta),
                "counting": self.counting}


Run = Callable[[Dataset, RandomSource, "Progress | None"], Histogram]


@dataclass(frozen=True)
class Plan:
    """An algorithm ready to run and everything that can be said about its release, all
    derived from public values only (``M``, ``n``, the request): ``released_by`` names the
    algorithm whose guarantees apply (BasicHistogram when PureSparseHistogram falls back),
    ``fallback`` says why, when it does."""

    paper: str
    released_by: str
    fallback: str | None
    mechanism: InverseCDFSampler
    parameters: dict[str, Any]
    guarantee: Guarantee
    lower_bounds: dict[str, Any]
    notes: tuple[str, ...]
    run: Run


Planner = Callable[[ReleaseRequest, int], Plan]


def scientific_upper(q: Fraction, digits: int = 3) -> str:
    """A short decimal ``>= q`` (rounded up to ``digits`` significant digits), for display of
    a bound: ``scientific_upper(Fraction(1, 3)) == "3.34e-1"``."""
    if q <= 0:
        return "0"
    exp = len(str(q.numerator)) - len(str(q.denominator))
    while Fraction(10) ** exp > q:
        exp -= 1
    while Fraction(10) ** (exp + 1) <= q:
        exp += 1
    scaled = q / Fraction(10) ** (exp - digits + 1)
    mantissa = -((-scaled.numerator) // scaled.denominator)
    if mantissa == 10**digits:
        mantissa, exp = 10 ** (digits - 1), exp + 1
    text = str(mantissa)
    return f"{text[0]}.{text[1:]}e{exp}"


def _describe(mech: InverseCDFSampler) -> dict[str, Any]:
    out: dict[str, Any] = {"name": type(mech).__name__, "n": mech.n,
                           "epsilon": getattr(mech, "epsilon", None)}
    if isinstance(mech, FastSample):
        out.update(gamma=mech.gamma, t=mech.t, d_bits=mech.d.bit_length())
    elif isinstance(mech, GeoSample):
        out.update(k=mech.k, d_bits=mech.d.bit_length())
    return out


def _counting_name(req: ReleaseRequest) -> str:
    if req.counting not in COUNTING:
        raise ParameterError(f"counting mechanism {req.counting!r} must be one of "
                             f"{', '.join(COUNTING)}")
    return "FastSample" if req.counting == "fastsample" else "GeoSample"


def _no_delta(req: ReleaseRequest, algorithm: str) -> None:
    if req.delta is not None:
        raise ParameterError(f"{algorithm} is (epsilon, 0)-DP: --delta does not apply "
                             f"(only stability takes --delta)")


def _lower_bounds(req: ReleaseRequest, n: int, sparse: bool) -> dict[str, Any]:
    delta = Fraction(0) if req.delta is None else req.delta
    beta = min(req.beta, Fraction(1, 2))
    out: dict[str, Any] = {
        "note": f"no ({req.epsilon}, {delta})-DP histogram algorithm can beat these errors "
                f"at beta = {beta} (certified: the real bound lies in the interval)",
        "per_query": theorem_7_1_per_query(req.epsilon, beta, delta, n).to_json()}
    if req.universe.size >= 2:
        out["simultaneous"] = theorem_7_1_simultaneous(req.epsilon, beta, delta, n,
                                                       req.universe.size).to_json()
    if sparse:
        out["per_query_sparse_outputs"] = theorem_7_2_sparse(
            req.epsilon, beta, delta, n, req.universe.size).to_json()
    return out


def plan_basic(req: ReleaseRequest, n: int) -> Plan:
    """BasicHistogram over all of ``X`` (Algorithm 5.1; Theorem 5.3 for FastSample)."""
    _no_delta(req, "BasicHistogram")
    name = _counting_name(req)
    mech: InverseCDFSampler
    if name == "FastSample":
        gamma = theorem_5_3_gamma(req.beta, req.universe)
        mech = FastSample(n, req.epsilon, gamma)
        params: dict[str, Any] = {"beta0": req.beta, "gamma": gamma}
    else:
        mech = GeoSample(n, req.epsilon)
        params = {}
    alg = BasicHistogram(mech, req.universe)
    return Plan("Algorithm 5.1, Theorems 5.2/5.3", "BasicHistogram", None, mech, params,
                figure_3(name, req.epsilon, req.beta, req.universe.size),
                _lower_bounds(req, n, sparse=False), (), alg.release)


def plan_stability(req: ReleaseRequest, n: int) -> Plan:
    """StabilityHistogram (Algorithm 5.4) with Theorem 5.6's (FastSample) or Figure 4's
    (GeoSample) parameters; ``(eps, delta)``-DP by Theorem 5.5 (i)."""
    if req.delta is None:
        raise ParameterError("stability is (epsilon, delta)-DP: pass --delta (e.g. 1/1000000)")
    delta = inverse_integer(req.delta, "delta", below_one=True)
    name = _counting_name(req)
    if name == "FastSample":
        alg = StabilityHistogram.theorem_5_6(req.universe, n, req.epsilon, delta, req.beta)
    else:
        alg = StabilityHistogram.with_geosample(req.universe, n, req.epsilon, delta)
    if not alg.delta_at_most(delta):  # cannot happen with the paper's b; refuse, not mislead
        raise ParameterError(f"2 Pr[M(1,U) > b] <= {alg.certified_delta_upper()} (rounded "
                             f"up) exceeds delta = {delta}")
    certified = alg.certified_delta_upper()
    b = alg.threshold
    if certified == 0:
        notes = [(f"threshold b = {b} >= n = {n}: noisy counts never exceed n, so every "
                 f"release is empty; more rows or a larger epsilon/delta are needed for any "
                 f"bin to be released")]
    else:
        notes = [(f"Theorem 5.5 (i) makes StabilityHistogram ({req.epsilon}, delta')-DP for "
                 f"every delta' >= 2 Pr[M(1, U) > b]; computed exactly from the mechanism's "
                 f"integer CDF, 2 Pr[M(1, U) > b] <= {scientific_upper(certified)} (rounded "
                 f"up) <= delta = {delta}, so this release is ({req.epsilon}, {delta})-DP")]
    params: dict[str, Any] = {"beta0": req.beta, "threshold_b": b,
                              "certified_delta_at_most": scientific_upper(certified)}
    if isinstance(alg.mechanism, FastSample):
        params["gamma"] = alg.mechanism.gamma
    return Plan("Algorithm 5.4, Theorems 5.5/5.6", "StabilityHistogram", None, alg.mechanism,
                params, figure_4(name, req.epsilon, delta, req.beta, n),
                _lower_bounds(req, n, sparse=True), tuple(notes), alg.release)


def plan_pure_sparse(req: ReleaseRequest, n: int) -> Plan:
    """PureSparseHistogram_{M,eps,beta/4} (Algorithm 6.9) with Theorem 6.11's parameters;
    BasicHistogram over ``X`` when ``|X| < 2n + 1`` -- then ``released_by`` is
    BasicHistogram, the guarantees are Figure 3's and ``fallback`` says why."""
    _no_delta(req, "PureSparseHistogram")
    name = _counting_name(req)
    alg = PureSparseHistogram.theorem_6_11(req.universe, n, req.epsilon, req.beta,
                                           req.counting)
    params: dict[str, Any] = {"beta0": req.beta, "beta_1": alg.beta1,
                              "delta_bits": alg.delta.denominator.bit_length(),
                              "s_bits": alg.sparse.s.bit_length()}
    if isinstance(alg.mechanism, FastSample):
        params["gamma"] = alg.mechanism.gamma

    def run(data: Dataset, source: RandomSource, progress: Progress | None) -> Histogram:
        return alg.release(data, source)

    reason = fallback_reason(req.universe, n)
    if reason is not None:
        return Plan("Algorithm 6.9 (fallback: Algorithm 5.1, Theorems 5.2/5.3)",
                    "BasicHistogram", reason, alg.mechanism, params,
                    figure_3(name, req.epsilon, req.beta, req.universe.size),
                    _lower_bounds(req, n, sparse=False), (), run)
    return Plan("Algorithm 6.9, Theorems 6.10/6.11", "PureSparseHistogram", None,
                alg.mechanism, params, figure_5(name, req.epsilon, req.beta, req.universe.size),
                _lower_bounds(req, n, sparse=True), (), run)


#: ``--algorithm`` choices of ``exactdp histogram`` (besides ``compact``).
ALGORITHMS: dict[str, Planner] = {
    "basic": plan_basic,
    "stability": plan_stability,
    "pure-sparse": plan_pure_sparse,
}


def plan(algorithm: str, req: ReleaseRequest, n: int) -> Plan:
    """The plan of ``ALGORITHMS[algorithm]`` for ``n`` rows: every refusal happens here,
    before anything is drawn."""
    if algorithm not in ALGORITHMS:
        raise ParameterError(f"algorithm {algorithm!r} must be one of "
                             f"{', '.join(sorted(ALGORITHMS))}")
    return ALGORITHMS[algorithm](req, positive_int(n, "n"))


def derived_fields(algorithm: str, p: Plan, req: ReleaseRequest) -> dict[str, Any]:
    """The report's fields that are functions of public values only (recomputed and
    compared when a release is loaded)."""
    return {
        "paper": p.paper,
        "released_by": p.released_by,
        "fallback": p.fallback,
        "mechanism": exact_json(_describe(p.mechanism)),
        "parameters": exact_json({"epsilon": req.epsilon, **p.parameters}),
        "guarantees": p.guarantee.to_json(),
        "lower_bounds": p.lower_bounds,
        "notes": list(p.notes),
    }


def release(algorithm: str, req: ReleaseRequest, data: Dataset, source: RandomSource,
            labels: bool = False) -> dict[str, Any]:
    """Plan ``algorithm``, run it on ``data`` and return the JSON-safe report (without the
    ``input``, ``seeded`` and ``integrity`` fields, which the caller adds:
    :func:`exactdp.histograms.release_file.seal`)."""
    p = plan(algorithm, req, data.n)
    hist = p.run(data, source, req.progress)
    body = hist.to_json(labels=labels)
    return {
        "format": HISTOGRAM_FORMAT,
        "version": HISTOGRAM_VERSION,
        "algorithm": algorithm,
        "universe_size": str(req.universe.size),
        "n": str(data.n),
        "request": req.to_json(),
        **derived_fields(algorithm, p, req),
        "histogram": body["bins"],
    }
