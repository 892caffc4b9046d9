"""The sketch file of an ALP sketch: exact JSON, sealed with a digest, validated on load.

An :class:`~exactdp.sparse_vectors.alp.ALPSketch` (Aumüller, Lebeda & Pagh, full version
Algorithm 4 = short version Algorithm 1) is the released pair ``(h, z~)``: ``m`` hash functions
and an ``s x m`` matrix of noisy bits, together with the public parameters that say how to read
it (Algorithm 5).  :func:`sketch_json` writes it as JSON::

    {"format": "exactdp-alp-sketch", "version": "1", "algorithm": ...,
     "params": {"variant", "scale", "flip", "columns", "rows", "sparsity", "universe", "grid"},
     "guarantee": {"epsilon_cert", "statement"},
     "hash": {"family": "carter-wegman", "prime", "rows"},
     "seeds": [["a", "b"], ...],                      # m seeds, in column order
     "bits": {"count", "order", "encoding", "data"},  # s*m bits, base64 strings
     "request": {...}, "input": {"file"}, "seeded": false,   # recorded by the command line
     "integrity": {"sha256", "note"}}

Every number is a decimal string (``"p/q"`` for the rationals ``scale`` and ``flip``), so no
float is ever written or read.  The bits: cell ``(a, b)`` (row ``a`` in ``[1, s]``, column
``b`` in ``[1, m]``) is bit ``i = (b - 1)*s + (a - 1)`` of the ``ceil(s*m/8)`` bytes, bit
``i % 8`` of byte ``i // 8`` (little-endian), base64 with padding, cut into a list of strings
of 4096 characters (the last one shorter); the unused high bits of the last byte are 0.

:func:`from_json` checks the version and the digest (the rules of
:mod:`exactdp.histograms.release_file`), then validates every field -- types, sizes, the bit
count and the length of the data, every seed inside its family's range -- and **recomputes**
every derived field: ``epsilon_cert`` from ``scale`` and ``flip``, the hash family from the
parameters, and, when the command line recorded its request, the parameters themselves
(``columns = ceil(beta*eps/alpha)``, ...).  A file that disagrees anywhere is refused with a
one-line :class:`InvalidSketchError` naming the field.  The digest detects corruption and
editing; it is not an authentication (anyone can recompute it), which is why derived fields
are recomputed too.  What no loader can check is that the bits were drawn honestly.

Threshold ALP (ALP-full Algorithms 7/8, :class:`~exactdp.sparse_vectors.combined.ThresholdALP`;
the ``(eps, delta)`` version of ALP-short Theorem 4.2, :mod:`exactdp.sparse_vectors.approx`) is
written as ``{"format": "exactdp-threshold-alp-sketch", "version", "kind": "threshold-alp" |
"approx-threshold-alp", "algorithm", "threshold": {"r", "t", "hi", "d"[, "sparsity"]},
"released": {"count", "pairs": [["key", "value"], ...]}, "guarantee": {...}, "alp": <the
ALP sketch body above, without integrity>, "integrity"}``.  On loading: keys strictly
increasing in ``[1, d]``, values in ``[t, hi]``, at most ``k`` of them for the Korolova
threshold; ALP run with ``beta := t`` (``m = ceil(t * scale)``), grid 1, one universe; the
ALP part validated as an ALP file (errors prefixed ``alp:``); the guarantee recomputed
(``1/r``, ``epsilon_cert``, ``epsilon_bound = 1/r - 1 + epsilon_cert``, ``false_positive =
r^t/(1 + r)`` or ``delta = r^(t-1)/(1 + r)``); a recorded ``from_paper`` request re-derives
``r``, the minimal ``t`` and the ALP parameters.  :func:`from_json` dispatches on the format
and kind; the ALP half lives in :mod:`exactdp.sparse_vectors.alp_sketch_file`, the Threshold
half in :mod:`exactdp.sparse_vectors.threshold_sketch_file`.
What the seal alone protects (no loader can recompute them): the bits, the seeds, the
released values, ``hi`` and ``k``.
"""


from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from exactdp.files import DEFAULT_MAX_BYTES, read_text
from exactdp.histograms.release_file import (
    InvalidReleaseError,
    check_keys,
    check_seal,
    parse_release,
    seal,
)
from exactdp.params import ParameterError, ParameterTypeError
from exactdp.sparse_vectors.alp_sketch_file import (
    _CLI_KEYS,
    _KEYS,
    _THRESHOLD_KINDS,
    ALGORITHM,
    BIT_ORDER,
    FORMAT,
    KIND_ALP,
    KIND_APPROX,
    KIND_THRESHOLD,
    KINDS,
    THRESHOLD_FORMAT,
    VERSION,
    InvalidSketchError,
    LoadedSketch,
    _alp_from_body,
    _check_request,
    _cli_fields,
    _request,
    _short,
    _spent,
    guarantee,
    sketch_body,
)
from exactdp.sparse_vectors.threshold_sketch_file import (
    check_threshold_request,
    threshold_from_json,
    threshold_sketch_body,
)

__all__ = [
    "ALGORITHM",
    "BIT_ORDER",
    "FORMAT",
    "KINDS",
    "KIND_ALP",
    "KIND_APPROX",
    "KIND_THRESHOLD",
    "THRESHOLD_FORMAT",
    "VERSION",
    "InvalidSketchError",
    "LoadedSketch",
    "dumps",
    "from_json",
    "guarantee",
    "load_sketch",
    "loads",
    "sketch_body",
    "sketch_json",
]


def sketch_json(sketch: Any, *, kind: str | None = None,
                request: Mapping[str, str] | None = None,
                input_file: str | None = None, seeded: bool | None = None,
                spent: bool = False) -> dict[str, Any]:
    """:func:`sketch_body` (an ALPSketch) or :func:`threshold_sketch_body` (a
    ThresholdALPSketch) with the command line's optional fields, sealed with its SHA-256
    digest.  ``kind``: ``"alp"`` or None for an ALPSketch; ``"threshold-alp"`` (the default:
    :class:`~exactdp.sparse_vectors.combined.ThresholdALP`) or ``"approx-threshold-alp"``
    (:class:`~exactdp.sparse_vectors.approx.ApproxThresholdALP`, whose sketches are
    ThresholdALPSketches too: only the caller knows which mechanism drew it) for a
    ThresholdALPSketch.  ``request`` is checked now (a request that does not give these
    parameters is a bug of the caller, refused before anything is written).  ``spent``
    (ALPSketch with a request only): record :meth:`ALPParams.spend` against the request's
    epsilon under ``"spent"``."""
    from exactdp.sparse_vectors.combined import ThresholdALPSketch

    if isinstance(sketch, ThresholdALPSketch):
        kind = KIND_THRESHOLD if kind is None else kind
        if not isinstance(kind, str) or kind not in _THRESHOLD_KINDS:
            raise ParameterError(f"kind = {_short(kind)}: a ThresholdALPSketch is written as "
                                 f"{KIND_THRESHOLD!r} or {KIND_APPROX!r}")
        body = threshold_sketch_body(sketch, kind)
        if request is not None:
            body["request"] = dict(request)
            check_threshold_request(body["request"], kind, sketch.threshold,
                                    sketch.sketch.params)
    else:
        if kind not in (None, KIND_ALP):
            raise ParameterError(f"kind = {_short(kind)}: an ALPSketch is written as "
                                 f"{KIND_ALP!r}")
        body = sketch_body(sketch)
        if request is not None:
            body["request"] = dict(request)
            _check_request(body["request"], sketch.params)
        if spent:
            if request is None:
                raise ParameterError("spent is recorded against a request: pass request")
            body["spent"] = _spent(sketch.params, body["request"])
    if input_file is not None:
        body["input"] = {"file": input_file}
    if seeded is not None:
        body["seeded"] = bool(seeded)
    return seal(body)


def dumps(sketch: Any, **fields: Any) -> str:
    """The sketch file's text (:func:`sketch_json`, indented)."""
    import json

    return json.dumps(sketch_json(sketch, **fields), indent=2) + "\n"


def load_sketch(path: str, max_bytes: int = DEFAULT_MAX_BYTES,
                kinds: Collection[str] = (KIND_ALP,)) -> LoadedSketch:
    """Read, check and validate the sketch file at ``path`` (``"-"``: standard input).
    Only the ``kinds`` given are accepted: by default ALP sketches alone (what
    ``exactdp sparse-vector query`` reads); pass :data:`KINDS` for every kind."""
    text = read_text(path, "sketch", max_bytes)
    name = "standard input" if path == "-" else repr(path)
    try:
        return from_json(parse_release(text, path, "sketch"), kinds)
    except InvalidReleaseError as exc:
        message = str(exc)
        if name not in message:
            message = f"sketch {name}: {message}"
        raise InvalidSketchError(message) from None


def loads(text: str, path: str = "<text>", kinds: Collection[str] = KINDS) -> Any:
    """The sketch in ``text`` -- an ALPSketch or a ThresholdALPSketch, as its file says --
    (parsed with bounded depth, no floats, no duplicate keys, then :func:`from_json`)."""
    if not isinstance(text, str):
        raise ParameterTypeError(f"the sketch text is a {type(text).__name__}; pass a str "
                                 f"(decode the file as UTF-8, e.g. exactdp.files.read_text)")
    try:
        return from_json(parse_release(text, path, "sketch"), kinds).sketch
    except InvalidReleaseError as exc:
        raise InvalidSketchError(str(exc)) from None


def from_json(obj: object, kinds: Collection[str] = KINDS) -> LoadedSketch:
    """Check the format (and ``kind``), the version and the digest, then validate every field
    and recompute every derived one.  Dispatches on the kind: an ``exactdp-alp-sketch`` gives
    an :class:`~exactdp.sparse_vectors.alp.ALPSketch`, an ``exactdp-threshold-alp-sketch`` a
    :class:`~exactdp.sparse_vectors.combined.ThresholdALPSketch`.  A kind not in ``kinds`` is
    refused (a reader that only knows ALP sketches)."""
    if not isinstance(obj, dict):
        raise InvalidSketchError("the sketch must be a JSON object")
    fmt = obj.get("format")
    kind: Any = KIND_ALP
    if fmt == THRESHOLD_FORMAT:
        kind = obj.get("kind")
        if not isinstance(kind, str) or kind not in _THRESHOLD_KINDS:
            raise InvalidSketchError(f"kind = {_short(kind)} must be one of "
                                     f"{', '.join(map(repr, _THRESHOLD_KINDS))}")
    elif fmt != FORMAT:
        raise InvalidSketchError(f"format = {_short(fmt)}: expected {FORMAT!r} or "
                                 f"{THRESHOLD_FORMAT!r} (a file written by 'exactdp "
                                 f"sparse-vector project' or exactdp.sparse_vectors."
                                 f"sketch_file)")
    if kind not in kinds:
        raise InvalidSketchError(f"kind = {kind!r}: this reader takes only "
                                 f"{', '.join(map(repr, kinds))} sketches")
    if obj.get("version") != VERSION:
        raise InvalidSketchError(f"version = {_short(obj.get('version'))}: only version "
                                 f"{VERSION!r} is understood")
    check_seal(obj)
    if kind != KIND_ALP:
        return threshold_from_json(obj, kind)
    check_keys(obj, _KEYS, _CLI_KEYS, "the sketch")
    sketch = _alp_from_body(obj)
    request = None
    if "request" in obj:
        request = _request(obj["request"], sketch.params)
    if "spent" in obj and (request is None or obj["spent"] != _spent(sketch.params, request)):
        raise InvalidSketchError("field 'spent' does not match the recorded parameters and "
                                 "request; the file was edited")
    seeded = _cli_fields(obj)
    return LoadedSketch(sketch, request, seeded)
