"""Release a histogram from a file of identifiers, with the guarantees that apply.

This is the library side of ``exactdp histogram``: reading a dataset (one element per line,
integers or string labels), building the algorithm with the paper's parameter choices,
releasing, and assembling the exact guarantees (Figures 3-5) and the lower bounds
(Theorems 7.1, 7.2) as JSON-safe data.

To add an algorithm (e.g. ``compact``), write a :data:`Runner` and add it to
:data:`ALGORITHMS`; the command line picks up the new choice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
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
from exactdp.histograms.sparse import PureSparseHistogram, fallback_reason
from exactdp.params import ParameterError, inverse_integer, positive_int
from exactdp.randomness import RandomSource

__all__ = [
    "ALGORITHMS",
    "COUNTING",
    "ReleaseRequest",
    "Runner",
    "parse_universe_size",
    "read_dataset",
    "release",
    "scientific_upper",
]

#: The counting mechanisms a histogram can use (Section 4).
COUNTING = ("fastsample", "geosample")

_INT_LINE = re.compile(r"^\s*\d+\s*$")
_POWER = re.compile(r"^\s*(\d+)\s*(?:\^|\*\*)\s*(\d+)\s*$")


def parse_universe_size(text: str) -> int:
    """``"18446744073709551616"``, ``"2^64"`` or ``"2**64"`` -> the integer ``M >= 1``."""
    match = _POWER.match(text)
    if match:
        base, exp = int(match.group(1)), int(match.group(2))
        if exp > 1 << 16:
            raise ParameterError(f"universe size {text!r}: exponent too large")
        return positive_int(base**exp, "universe size M")
    return positive_int(text, "universe size M")


def read_dataset(lines: Iterable[str], universe: Universe,
                 input_format: str = "auto") -> tuple[Dataset, str]:
    """Parse one element per line.

    ``input_format``: ``"integers"`` (each line a decimal integer in ``[1, M]``),
    ``"strings"`` (each line, without its line terminator, is a label coded by
    :func:`~exactdp.histograms.data.encode_label`), or ``"auto"``: integers when every line
    is a decimal integer, otherwise strings for **all** lines (mixing the two per line
    would make ``"5"`` and ``5`` collide).  Returns the dataset and the format used.
    """
    rows = [line.rstrip("\r\n") for line in lines]
    if input_format == "auto":
        input_format = "integers" if rows and all(_INT_LINE.match(r) for r in rows) else "strings"
    if input_format == "integers":
        values: list[int] = []
        for i, r in enumerate(rows, 1):
            if not _INT_LINE.match(r):
                raise ParameterError(f"line {i} = {r!r} is not a decimal integer (use the "
                                     f"strings input format for labels)")
            values.append(int(r))
        return Dataset.of(universe, values), "integers"
    if input_format == "strings":
        return Dataset.from_labels(universe, rows), "strings"
    raise ParameterError(f"input format {input_format!r} must be auto, integers or strings")


@dataclass(frozen=True)
class ReleaseRequest:
    """What a user asked for: parameters exactly as given (validated by the runners)."""

    universe: Universe
    epsilon: Fraction
    beta: Fraction
    delta: Fraction | None = None
    counting: str = "fastsample"
    progress: Progress | None = None


@dataclass(frozen=True)
class Outcome:
    """A release and what can be said about it (all derived from public values only)."""

    histogram: Histogram
    paper: str
    mechanism: InverseCDFSampler
    parameters: dict[str, Any]
    guarantee: Guarantee
    lower_bounds: dict[str, Any]
    notes: tuple[str, ...] = ()


Runner = Callable[[ReleaseRequest, Dataset, RandomSource], Outcome]


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
        raise ParameterError(f"{algorithm} is (epsilon, 0)-DP: --delta does not apply")


def _lower_bounds(req: ReleaseRequest, n: int, sparse: bool) -> dict[str, Any]:
    delta = Fraction(0) if req.delta is None else req.delta
    beta = min(req.beta, Fraction(1, 2))
    out: dict[str, Any] = {
        "note": "no (epsilon, delta)-DP histogram algorithm can beat these errors at this "
                "beta (certified: the real bound lies in the interval)",
        "per_query": theorem_7_1_per_query(req.epsilon, beta, delta, n).to_json()}
    if req.universe.size >= 2:
        out["simultaneous"] = theorem_7_1_simultaneous(req.epsilon, beta, delta, n,
                                                       req.universe.size).to_json()
    if sparse:
        out["per_query_sparse_outputs"] = theorem_7_2_sparse(
            req.epsilon, beta, delta, n, req.universe.size).to_json()
    return out


def run_basic(req: ReleaseRequest, data: Dataset, source: RandomSource) -> Outcome:
    """BasicHistogram over all of ``X`` (Algorithm 5.1; Theorem 5.3 for FastSample)."""
    _no_delta(req, "BasicHistogram")
    name = _counting_name(req)
    n = data.n
    mech: InverseCDFSampler
    if name == "FastSample":
        gamma = theorem_5_3_gamma(req.beta, req.universe)
        mech = FastSample(n, req.epsilon, gamma)
        params: dict[str, Any] = {"beta0": req.beta, "gamma": gamma}
    else:
        mech = GeoSample(n, req.epsilon)
        params = {}
    hist = BasicHistogram(mech, req.universe).release(data, source, req.progress)
    return Outcome(hist, "Algorithm 5.1, Theorems 5.2/5.3", mech, params,
                   figure_3(name, req.epsilon, req.beta, req.universe.size),
                   _lower_bounds(req, n, sparse=False))


def run_stability(req: ReleaseRequest, data: Dataset, source: RandomSource) -> Outcome:
    """StabilityHistogram (Algorithm 5.4) with Theorem 5.6's (FastSample) or Figure 4's
    (GeoSample) parameters; ``(eps, delta)``-DP."""
    if req.delta is None:
        raise ParameterError("stability is (epsilon, delta)-DP: pass --delta (e.g. 1/1000000)")
    delta = inverse_integer(req.delta, "delta", below_one=True)
    name = _counting_name(req)
    n = data.n
    if name == "FastSample":
        alg = StabilityHistogram.theorem_5_6(req.universe, n, req.epsilon, delta, req.beta)
    else:
        alg = StabilityHistogram.with_geosample(req.universe, n, req.epsilon, delta)
    certified = alg.certified_delta()
    if certified > delta:  # cannot happen with the paper's b; refuse rather than mislead
        raise ParameterError(f"2 Pr[M(1,U) > b] = {certified} exceeds delta = {delta}")
    notes = [(f"Theorem 5.5 i certifies (epsilon, {scientific_upper(certified)})-DP: "
              f"2 Pr[M(1, U) > b] computed exactly from the mechanism's integer CDF "
              f"(shown rounded up) is <= delta")]
    if alg.threshold >= n:
        notes.append(f"threshold b = {alg.threshold} >= n = {n}: noisy counts never exceed "
                     f"n, so every release is empty; more rows or a larger epsilon/delta "
                     f"are needed for any bin to be released")
    hist = alg.release(data, source, req.progress)
    params: dict[str, Any] = {"beta0": req.beta, "threshold_b": alg.threshold,
                              "certified_delta_at_most": scientific_upper(certified)}
    if isinstance(alg.mechanism, FastSample):
        params["gamma"] = alg.mechanism.gamma
    return Outcome(hist, "Algorithm 5.4, Theorems 5.5/5.6", alg.mechanism, params,
                   figure_4(name, req.epsilon, delta, req.beta, n),
                   _lower_bounds(req, n, sparse=True), tuple(notes))


def run_pure_sparse(req: ReleaseRequest, data: Dataset, source: RandomSource) -> Outcome:
    """PureSparseHistogram_{M,eps,beta/4} (Algorithm 6.9) with Theorem 6.11's parameters;
    BasicHistogram over ``X`` when ``|X| < 2n + 1`` (said in the output)."""
    _no_delta(req, "PureSparseHistogram")
    name = _counting_name(req)
    n = data.n
    alg = PureSparseHistogram.theorem_6_11(req.universe, n, req.epsilon, req.beta,
                                           req.counting)
    hist = alg.release(data, source)
    params: dict[str, Any] = {"beta0": req.beta, "beta_1": alg.beta1,
                              "delta_bits": alg.delta.denominator.bit_length(),
                              "s_bits": alg.sparse.s.bit_length()}
    if isinstance(alg.mechanism, FastSample):
        params["gamma"] = alg.mechanism.gamma
    if fallback_reason(req.universe, n) is not None:
        guarantee = figure_3(name, req.epsilon, req.beta, req.universe.size)
        return Outcome(hist, "Algorithm 6.9 (fallback: Algorithm 5.1)", alg.mechanism, params,
                       guarantee, _lower_bounds(req, n, sparse=False))
    return Outcome(hist, "Algorithm 6.9, Theorems 6.10/6.11", alg.mechanism, params,
                   figure_5(name, req.epsilon, req.beta, req.universe.size),
                   _lower_bounds(req, n, sparse=True))


#: ``--algorithm`` choices of ``exactdp histogram``.
ALGORITHMS: dict[str, Runner] = {
    "basic": run_basic,
    "stability": run_stability,
    "pure-sparse": run_pure_sparse,
}


def release(algorithm: str, req: ReleaseRequest, data: Dataset, source: RandomSource,
            labels: bool = False) -> dict[str, Any]:
    """Run ``ALGORITHMS[algorithm]`` and return the JSON-safe report."""
    if algorithm not in ALGORITHMS:
        raise ParameterError(f"algorithm {algorithm!r} must be one of "
                             f"{', '.join(sorted(ALGORITHMS))}")
    out = ALGORITHMS[algorithm](req, data, source)
    hist = out.histogram
    body = hist.to_json(labels=labels)
    return {
        "algorithm": algorithm,
        "paper": out.paper,
        "released_by": hist.algorithm,
        "fallback": hist.fallback,
        "universe_size": str(req.universe.size),
        "n": str(data.n),
        "mechanism": exact_json(_describe(out.mechanism)),
        "parameters": exact_json({"epsilon": req.epsilon, **out.parameters}),
        "histogram": body["bins"],
        "guarantees": out.guarantee.to_json(),
        "lower_bounds": out.lower_bounds,
        "notes": list(out.notes),
    }
