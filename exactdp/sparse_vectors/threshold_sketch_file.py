"""Threshold ALP sketch files: the half of :mod:`exactdp.sparse_vectors.sketch_file` for
the Threshold ALP releases (split off to keep modules small; the format is documented there).

Two kinds share the format ``exactdp-threshold-alp-sketch``:

* ``"threshold-alp"``: ALP-full Algorithm 7
(:class:`~exactdp.sparse_vectors.combined.ThresholdALP`):
  Threshold (ALP-full Algorithm 6) on every key, then ALP-projection with ``beta := t``; estimates
  by ALP-full Algorithm 8.  Guarantee (ALP-full Lemma 5.3): ratio ``(1/r) e^{epsilon_cert}`` on
  integer
  inputs at l1 distance 1.
* ``"approx-threshold-alp"``: ALP-short Theorem 4.2
  (:class:`~exactdp.sparse_vectors.approx.ApproxThresholdALP`): the Korolova threshold on the
  ``k`` padded support pairs, then ALP with ``beta := t``; ``(ln(1/r) + epsilon_cert,
  delta)`` with ``delta = r^(t-1)/(1 + r)`` exactly, under adding/removing one row.

Both release a :class:`~exactdp.sparse_vectors.combined.ThresholdALPSketch` (``approx.py`` has
no sketch class of its own), so the writer is told the kind; the reader learns it from the
file and returns it in :class:`~exactdp.sparse_vectors.sketch_file.LoadedSketch`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from exactdp.histograms.release_file import InvalidReleaseError, check_keys
from exactdp.params import ExactDPError
from exactdp.sparse_vectors.alp_sketch_file import (
    _CLI_KEYS,
    _KEYS,
    FORMAT,
    KIND_APPROX,
    KIND_THRESHOLD,
    THRESHOLD_FORMAT,
    VERSION,
    InvalidSketchError,
    LoadedSketch,
    _alp_from_body,
    _cli_fields,
    _exact,
    _fraction,
    _mapping,
    _natural,
    _positive_fraction,
    _request_matches,
    _short,
    sketch_body,
)

__all__ = [
    "APPROX_STATEMENT",
    "THRESHOLD_ALGORITHMS",
    "THRESHOLD_STATEMENT",
    "check_threshold_request",
    "threshold_from_json",
    "threshold_guarantee",
    "threshold_sketch_body",
]


THRESHOLD_ALGORITHMS = {
    KIND_THRESHOLD: (
        "Threshold ALP-projection (Aumüller, Lebeda & Pagh: full version Algorithm 7): "
        "Threshold (Algorithm 6, two-sided geometric noise of ratio r clamped to [t - 1, hi], "
        "on every key of [1, d]), then ALP-projection with beta := t; read with Threshold "
        "ALP-estimator (Algorithm 8)"),
    KIND_APPROX: (
        "(eps, delta) Threshold ALP (Aumüller, Lebeda & Pagh: short version Theorem 4.2): "
        "Korolova-style threshold (two-sided geometric noise of ratio r clamped to [t - 1, "
        "hi], on the k padded support pairs only), then ALP-projection with beta := t; read "
        "with Threshold ALP-estimator (full version Algorithm 8)"),
}
THRESHOLD_STATEMENT = (
    "for two integer vectors x, x' over [1, d] with entries in [0, hi] and ||x - x'||_1 <= 1, "
    "every choice of the hash functions and every set S of releases (v~, h, z~): "
    "Pr[release(x) in S] <= threshold_ratio * e^alp_epsilon_cert * Pr[release(x') in S] "
    "(Lemma 5.3: Threshold's ratio 1/r times ALP's), so epsilon = ln(threshold_ratio) + "
    "alp_epsilon_cert <= epsilon_bound = (threshold_ratio - 1) + alp_epsilon_cert (= eps1 + "
    "eps2 when r = 1/(1 + eps1)); a key of value 0 is released with probability "
    "false_positive = r^t/(1 + r)")
APPROX_STATEMENT = (
    "for two integer histograms x, x' over [1, d] with entries in [0, hi] that differ by "
    "adding or removing one row (one entry moves by 1), every choice of the hash functions "
    "and every set S of releases (v~, h, z~): Pr[release(x) in S] <= threshold_ratio * "
    "e^alp_epsilon_cert * Pr[release(x') in S] + delta, with delta = r^(t - 1)/(1 + r) (the "
    "probability that a new key of value 1 is released), so (epsilon, delta)-DP with epsilon "
    "= ln(threshold_ratio) + alp_epsilon_cert <= epsilon_bound = (threshold_ratio - 1) + "
    "alp_epsilon_cert (= eps1 + eps2 when r = 1/(1 + eps1))")
_THRESHOLD_KEYS = {"format", "version", "kind", "algorithm", "threshold", "released",
                   "guarantee", "alp", "integrity"}
#: ``r^t`` is computed on loading: refused when it would have more bits than this.
_MAX_POWER_BITS = 1 << 24
_THRESHOLD_REQUEST = {KIND_THRESHOLD: ("eps1", "eps2", "alpha"),
                      KIND_APPROX: ("eps1", "eps2", "delta", "alpha")}


def threshold_guarantee(threshold: Any, alp: Any, kind: str) -> dict[str, str]:
    """The ``guarantee`` field of a Threshold ALP release: ``threshold_ratio = 1/r``, ALP's
    ``epsilon_cert``, the rational ``epsilon_bound = (1/r - 1) + epsilon_cert >= ln(1/r) +
    epsilon_cert`` (``ln y <= y - 1``) and, for ``"threshold-alp"``, ``false_positive =
    r^t/(1 + r)`` (ALP-full Lemma 5.2) or, for ``"approx-threshold-alp"``, ``delta = r^(t-1)/(1 +
    r)`` (ALP-short Theorem 4.2; exact and attained, :mod:`exactdp.sparse_vectors.approx`)."""
    import gmpy2

    r, t = gmpy2.mpq(threshold.r), threshold.t  # gmpy2: fast gcd for large powers
    ratio = 1 / threshold.r
    out = {"threshold_ratio": _exact(ratio), "alp_epsilon_cert": _exact(alp.epsilon_cert),
           "epsilon_bound": _exact(ratio - 1 + alp.epsilon_cert)}
    if kind == KIND_APPROX:
        out["delta"] = _exact(r ** (t - 1) / (1 + r))
        out["statement"] = APPROX_STATEMENT
    else:
        out["false_positive"] = _exact(r ** t / (1 + r))
        out["statement"] = THRESHOLD_STATEMENT
    return out


def threshold_sketch_body(sketch: Any, kind: str = KIND_THRESHOLD) -> dict[str, Any]:
    """The exact JSON form of a ThresholdALPSketch (without its integrity field): the
    threshold parameters, the released ``v~`` as ``[key, value]`` pairs (increasing keys),
    the guarantee and the ALP part exactly as :func:`sketch_body` writes it."""
    thr, alp = sketch.threshold, sketch.sketch.params
    _check_combination(thr, alp, kind, len(sketch.released))
    threshold = {"r": _exact(thr.r), "t": str(thr.t), "hi": _exact(thr.hi), "d": str(thr.d)}
    if kind == KIND_APPROX:
        threshold["sparsity"] = str(alp.sparsity)
    return {
        "format": THRESHOLD_FORMAT,
        "version": VERSION,
        "kind": kind,
        "algorithm": THRESHOLD_ALGORITHMS[kind],
        "threshold": threshold,
        "released": {"count": str(len(sketch.released)),
                     "pairs": [[str(key), str(v)] for key, v in sketch.released]},
        "guarantee": threshold_guarantee(thr, alp, kind),
        "alp": sketch_body(sketch.sketch),
    }


def _check_combination(thr: Any, alp: Any, kind: str, released: int) -> None:
    """What ALP-full Algorithm 7 / ALP-short Theorem 4.2 fix: one universe, integer inputs (grid 1),
    ALP run with ``beta := t`` (``m = ceil(t * scale)`` for every variant), and, for the
    Korolova threshold, at most ``k`` released keys (only the support is noised)."""
    if thr.d != alp.universe:
        raise InvalidSketchError(f"threshold.d = {thr.d} differs from alp.params.universe = "
                                 f"{alp.universe}")
    if alp.grid != 1:
        raise InvalidSketchError(f"alp.params.grid = {alp.grid}: Threshold ALP takes integer "
                                 f"inputs (grid 1)")
    scaled = thr.t * alp.scale
    m = -(-scaled.numerator // scaled.denominator)
    if alp.columns != m:
        raise InvalidSketchError(f"alp.params.columns = {alp.columns}, but Threshold ALP runs "
                                 f"ALP with beta := t = {thr.t}: m = ceil(t * scale) = {m}")
    if kind == KIND_APPROX and released > alp.sparsity:
        raise InvalidSketchError(f"released has {released} keys; the Korolova threshold "
                                 f"releases at most k = {alp.sparsity} (only the support is "
                                 f"noised)")


def threshold_from_json(obj: Mapping[str, Any], kind: str) -> LoadedSketch:
    from exactdp.sparse_vectors.combined import ThresholdALPSketch

    check_keys(obj, _THRESHOLD_KEYS, _CLI_KEYS, "the sketch")
    if obj["algorithm"] != THRESHOLD_ALGORITHMS[kind]:
        raise InvalidSketchError(f"algorithm = {_short(obj['algorithm'])}: expected "
                                 f"{THRESHOLD_ALGORITHMS[kind]!r}")
    alp = _nested_alp(obj["alp"])
    thr = _threshold_params(obj["threshold"], kind, alp.params)
    released = _released(obj["released"], thr)
    _check_combination(thr, alp.params, kind, len(released))
    recorded = _mapping(obj["guarantee"], "guarantee")
    expected = threshold_guarantee(thr, alp.params, kind)
    check_keys(recorded, set(expected), set(), "guarantee")
    for key, text in expected.items():
        if recorded[key] != text:
            raise InvalidSketchError(f"guarantee.{key} = {_short(recorded[key])}, but the "
                                     f"parameters give {_short(text)}; the file was edited")
    request = None
    if "request" in obj:
        raw = _mapping(obj["request"], "request")
        check_threshold_request(raw, kind, thr, alp.params)
        request = {k: str(v) for k, v in raw.items()}
    seeded = _cli_fields(obj)
    try:
        sketch = ThresholdALPSketch(thr, released, alp)
    except ExactDPError as exc:
        raise InvalidSketchError(f"the sketch is inconsistent: {exc}") from None
    return LoadedSketch(sketch, request, seeded, kind)


def _nested_alp(value: object) -> Any:
    """The ALP part: validated exactly as an ALP sketch file, without its own seal or
    command-line fields (the outer file's seal covers it); errors are prefixed ``alp:``."""
    raw = _mapping(value, "alp")
    try:
        if raw.get("format") != FORMAT:
            raise InvalidSketchError(f"format = {_short(raw.get('format'))}: expected "
                                     f"{FORMAT!r}")
        if raw.get("version") != VERSION:
            raise InvalidSketchError(f"version = {_short(raw.get('version'))}: only version "
                                     f"{VERSION!r} is understood")
        check_keys(raw, _KEYS - {"integrity"}, set(), "the ALP part")
        return _alp_from_body(raw)
    except InvalidReleaseError as exc:
        raise InvalidSketchError(f"alp: {exc}") from None


def _threshold_params(value: object, kind: str, alp: Any) -> Any:
    from exactdp.sparse_vectors.threshold import MAX_THRESHOLD, ThresholdParams

    raw = _mapping(value, "threshold")
    fields = {"r", "t", "hi", "d"} | ({"sparsity"} if kind == KIND_APPROX else set())
    check_keys(raw, fields, set(), "threshold")
    r = _fraction(raw["r"], "threshold.r")
    t = _natural(raw["t"], "threshold.t")
    hi = _natural(raw["hi"], "threshold.hi")
    d = _natural(raw["d"], "threshold.d")
    if t > MAX_THRESHOLD:
        raise InvalidSketchError(f"threshold.t = {t} is above the largest threshold "
                                 f"{MAX_THRESHOLD} exactdp draws")
    if kind == KIND_APPROX:
        k = _natural(raw["sparsity"], "threshold.sparsity")
        if k != alp.sparsity:
            raise InvalidSketchError(f"threshold.sparsity = {k} differs from "
                                     f"alp.params.sparsity = {alp.sparsity}")
    try:
        thr = ThresholdParams(r, t, hi, d)
    except ExactDPError as exc:
        raise InvalidSketchError(f"threshold: {exc}") from None
    if t * (r.numerator.bit_length() + r.denominator.bit_length()) > _MAX_POWER_BITS:
        raise InvalidSketchError(f"threshold.t = {t} with r = {_short(raw['r'])}: r^t would "
                                 f"have more than 2^24 bits; refused")
    return thr


def _released(value: object, thr: Any) -> tuple[tuple[int, int], ...]:
    """``v~``: ``count`` and the ``[key, value]`` pairs, keys strictly increasing in ``[1,
    d]``, values in ``[t, hi]`` (Threshold releases exactly the values ``>= t``)."""
    raw = _mapping(value, "released")
    check_keys(raw, {"count", "pairs"}, set(), "released")
    count = _natural(raw["count"], "released.count", 0)
    pairs = raw["pairs"]
    if not isinstance(pairs, list):
        raise InvalidSketchError("released.pairs must be a list of [key, value] pairs")
    if len(pairs) != count:
        raise InvalidSketchError(f"released.count = {count}, but released.pairs has "
                                 f"{len(pairs)} pairs")
    out: list[tuple[int, int]] = []
    prev = 0
    for i, item in enumerate(pairs):
        where = f"released.pairs[{i}]"
        if not isinstance(item, list) or len(item) != 2:
            raise InvalidSketchError(f"{where} must be a pair [key, value] of decimal strings")
        key = _natural(item[0], f"{where}[0]", 0)
        v = _natural(item[1], f"{where}[1]", 0)
        if not 1 <= key <= thr.d:
            raise InvalidSketchError(f"{where}: key {key} is outside [1, d] = [1, {thr.d}]")
        if key <= prev:
            raise InvalidSketchError(f"{where}: key {key} follows key {prev}; keys must be "
                                     f"strictly increasing (each released once)")
        if v < thr.t:
            raise InvalidSketchError(f"{where}: value {v} of key {key} is below the threshold "
                                     f"t = {thr.t} (only values >= t are released)")
        if v > thr.hi:
            raise InvalidSketchError(f"{where}: value {v} of key {key} is above hi = "
                                     f"{thr.hi} (the noise is clamped to [t - 1, hi])")
        out.append((key, v))
        prev = key
    return tuple(out)


def check_threshold_request(raw: Mapping[str, Any], kind: str, thr: Any, alp: Any) -> None:
    """The recorded request ``from_paper`` must give exactly these parameters:
    ``r = 1/(1 + eps1)``; ``t`` the smallest integer ``>= 1`` with ``r^t/(1 + r) <= 1/d``
    (``"threshold-alp"``: ``ThresholdParams.for_epsilon``) or with ``r^(t-1)/(1 + r) <= delta``
    (``"approx-threshold-alp"``: ``approx_threshold``), recomputed here from the two
    inequalities at ``t`` and ``t - 1``; ALP = ``ALPParams.from_paper(eps2, alpha, beta=t)``."""
    import gmpy2

    from exactdp.sparse_vectors.alp import ALPParams

    constructor = raw.get("constructor")
    if constructor != "from_paper":
        raise InvalidSketchError(f"request.constructor = {_short(constructor)} must be "
                                 f"'from_paper'")
    fields = _THRESHOLD_REQUEST[kind]
    check_keys(raw, {"constructor", *fields}, set(), "request")
    for k in fields:
        if isinstance(raw[k], str) and len(raw[k]) > 200:
            raise InvalidSketchError(f"request.{k} has {len(raw[k])} characters; at most 200")
    v = {k: _positive_fraction(raw[k], f"request.{k}") for k in fields}
    r, t = gmpy2.mpq(thr.r), thr.t
    if thr.r != 1 / (1 + v["eps1"]):
        raise InvalidSketchError(f"threshold.r = {thr.r}, but the recorded request gives r = 1/(1 "
                                 f"+ eps1) = {1 / (1 + v['eps1'])}; the file was edited")
    if kind == KIND_APPROX:
        if v["delta"] >= 1:
            raise InvalidSketchError(f"request.delta = {v['delta']} must lie in (0, 1)")
        bound, shift, rule = gmpy2.mpq(v["delta"]), 1, "r^(t-1)/(1 + r) <= delta"
    else:
        bound, shift, rule = gmpy2.mpq(1, thr.d), 0, "r^t/(1 + r) <= 1/d"
    if r ** (t - shift) / (1 + r) > bound or (t > 1 and r ** (t - 1 - shift) / (1 + r) <= bound):
        raise InvalidSketchError(f"threshold.t = {t} is not the smallest integer t >= 1 with "
                                 f"{rule}, as the recorded request asks; the file was edited")
    try:
        expected = ALPParams.from_paper(v["eps2"], v["alpha"], t, alp.rows, alp.sparsity,
                                        alp.universe)
    except ExactDPError as exc:
        raise InvalidSketchError(f"the recorded request cannot have been drawn: {exc}"
                                 ) from None
    _request_matches(expected, alp, "alp.params.")
