"""ALP sketch files, the ALP half of :mod:`exactdp.sparse_vectors.sketch_file` (where the
format is documented and whose readers and writers dispatch here or to
:mod:`exactdp.sparse_vectors.threshold_sketch_file`): the constants of the format, the body of
an ALP sketch, and the validation of its fields, shared by both halves.
"""


from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from exactdp.histograms.release_file import (
    InvalidReleaseError,
    check_keys,
    decimal,
)
from exactdp.params import ExactDPError

if TYPE_CHECKING:
    from exactdp.sparse_vectors.alp_params import ALPParams

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
    "guarantee",
    "sketch_body",
]

FORMAT = "exactdp-alp-sketch"
#: The format of the Threshold ALP releases; their ``kind`` field says which one.
THRESHOLD_FORMAT = "exactdp-threshold-alp-sketch"
KIND_ALP = "alp"
KIND_THRESHOLD = "threshold-alp"
KIND_APPROX = "approx-threshold-alp"
KINDS = (KIND_ALP, KIND_THRESHOLD, KIND_APPROX)
_THRESHOLD_KINDS = (KIND_THRESHOLD, KIND_APPROX)
VERSION = "1"
ALGORITHM = ("ALP-projection (Aumüller, Lebeda & Pagh: full version Algorithm 4, short "
             "version Algorithm 1); read with ALP-estimator (Algorithm 5 / Algorithm 2)")
BIT_ORDER = ("cell (a, b), row a in [1, s], column b in [1, m], is bit i = (b - 1)*s + "
             "(a - 1): bit i % 8 of byte i // 8")
ENCODING = "base64, cut into strings of 4096 characters"
#: Characters per string of ``bits.data`` (3072 bytes): short strings keep the JSON reader's
#: string scan fast and small.
CHUNK = 4096
STATEMENT = ("for any two non-negative vectors x, x' over [1, universe] and every set S of "
             "sketches, Pr[sketch(x) in S] <= e^(epsilon_cert * ||x - x'||_1) * "
             "Pr[sketch(x') in S], for every choice of the hash functions; epsilon_cert = "
             "scale * (1 - 2*flip) / flip exactly")
TIGHT_STATEMENT = ("histogram-tight variant, integer values only (grid 1): for two integer "
                   "vectors that differ by 1 in one key, Pr[sketch(x) in S] <= "
                   "integer_unit_ratio * Pr[sketch(x') in S], with integer_unit_ratio = 1 + "
                   "epsilon_cert = the bound L <= e^eps the sketch was drawn for")
VARIANTS = ("paper", "unscaled", "histogram-tight")

_KEYS = {"format", "version", "algorithm", "params", "guarantee", "hash", "seeds", "bits",
         "integrity"}
#: Fields the command line adds (absent from a sketch file written with the library alone).
_CLI_KEYS = {"request", "input", "seeded", "spent"}
_PARAM_KEYS = {"variant", "scale", "flip", "columns", "rows", "sparsity", "universe", "grid"}
_FRACTION = re.compile(r"(0|[1-9][0-9]*)(?:/([1-9][0-9]*))?")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
#: The universe may be at most 2^4096 (as ``--universe-size``); a prime just above it.
_MAX_UNIVERSE_BITS = 1 << 12


class InvalidSketchError(InvalidReleaseError):
    """A sketch file is malformed, fails its integrity check or is inconsistent."""


@dataclass(frozen=True)
class LoadedSketch:
    """A validated sketch file: the sketch, and what the command line recorded with it
    (``request``: the parameters asked for; ``seeded``: drawn with ``--seed``, not for
    release); ``kind`` is ``"alp"`` (``sketch`` an ALPSketch), ``"threshold-alp"`` or
    ``"approx-threshold-alp"`` (``sketch`` a ThresholdALPSketch)."""

    sketch: Any
    request: Mapping[str, str] | None
    seeded: bool
    kind: str = KIND_ALP


# --------------------------------------------------------------------------- writing

def _chunks(text: str) -> list[str]:
    return [text[i:i + CHUNK] for i in range(0, len(text), CHUNK)]


def _exact(q: Any) -> str:
    """``str(Fraction(q))`` for an int, Fraction or gmpy2 ``mpq``, without Python's 4300-digit limit
    on int-to-str conversion (gmpy2 writes the digits)."""
    import gmpy2

    num, den = gmpy2.mpz(q.numerator), gmpy2.mpz(q.denominator)
    return num.digits() if den == 1 else f"{num.digits()}/{den.digits()}"


def guarantee(params: Any) -> dict[str, str]:
    """The ``guarantee`` field: ``epsilon_cert = c(1 - 2p)/p`` and what it means (ALP-full
    Lemmas 4.1, 4.12), and for the histogram-tight variant its ratio on integer unit
    changes, ``1 + epsilon_cert = L``."""
    out = {"epsilon_cert": _exact(params.epsilon_cert), "statement": STATEMENT}
    if params.variant == "histogram-tight":
        out["integer_unit_ratio"] = _exact(1 + params.epsilon_cert)
        out["integer_statement"] = TIGHT_STATEMENT
    return out


def sketch_body(sketch: Any) -> dict[str, Any]:
    """The exact JSON form of an ALPSketch, without its integrity field."""
    p = sketch.params
    cells = p.rows * p.columns
    return {
        "format": FORMAT,
        "version": VERSION,
        "algorithm": ALGORITHM,
        "params": {"variant": p.variant, "scale": _exact(p.scale), "flip": _exact(p.flip),
                   "columns": str(p.columns), "rows": str(p.rows),
                   "sparsity": str(p.sparsity), "universe": str(p.universe),
                   "grid": str(p.grid)},
        "guarantee": guarantee(p),
        "hash": _describe(_family(sketch)),
        "seeds": [_seed_json(seed) for seed in sketch.seeds],
        "bits": {"count": str(cells), "order": BIT_ORDER, "encoding": ENCODING,
                 "data": _chunks(base64.b64encode(sketch.bits).decode("ascii"))},
    }


# --------------------------------------------------------------------------- reading


def _cli_fields(obj: Mapping[str, Any]) -> bool:
    """Validate the optional ``input`` field; the ``seeded`` flag (false when absent)."""
    if "input" in obj:
        inp = _mapping(obj["input"], "input")
        check_keys(inp, {"file"}, set(), "input")
        if not isinstance(inp["file"], str):
            raise InvalidSketchError("input.file must be a string")
    seeded = obj.get("seeded", False)
    if not isinstance(seeded, bool):
        raise InvalidSketchError(f"seeded = {_short(seeded)} must be true or false")
    return seeded


def _alp_from_body(obj: Mapping[str, Any]) -> Any:
    """The ALPSketch of a sketch body (format, version and keys already checked): every
    field validated, the guarantee recomputed."""
    if obj["algorithm"] != ALGORITHM:
        raise InvalidSketchError(f"algorithm = {_short(obj['algorithm'])}: expected "
                                 f"{ALGORITHM!r}")
    params = _params(obj["params"])
    recorded = _mapping(obj["guarantee"], "guarantee")
    expected = guarantee(params)
    check_keys(recorded, set(expected), set(), "guarantee")
    for key, text in expected.items():
        if recorded[key] != text:
            raise InvalidSketchError(f"guarantee.{key} = {_short(recorded[key])}, but the "
                                     f"parameters give {_short(text)}; the file was edited")
    family = _hash_family(obj["hash"], params)
    seeds = _seeds(obj["seeds"], params, family)
    bits = _bits(obj["bits"], params)
    from exactdp.sparse_vectors.alp import ALPSketch

    try:
        return ALPSketch(params, family, seeds, bits)
    except ExactDPError as exc:
        raise InvalidSketchError(f"the sketch is inconsistent: {exc}") from None


# --------------------------------------------------------------------------- fields

def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 43 else text[:40] + "..."


def _mapping(value: object, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidSketchError(f"{name} must be a JSON object")
    return value


def _fraction(value: object, name: str) -> Fraction:
    """``"p/q"`` in lowest terms with ``q > 1``, or ``"p"``: exactly as ``str(Fraction)``."""
    if not isinstance(value, str) or not _FRACTION.fullmatch(value) or len(value) > 2500:
        raise InvalidSketchError(f"{name} = {_short(value)} must be a non-negative rational "
                                 f"written as a string 'p/q' or 'p' (no floats)")
    q = Fraction(value)
    if str(q) != value:
        raise InvalidSketchError(f"{name} = {value!r} must be written {str(q)!r}")
    return q


def _natural(value: object, name: str, minimum: int = 1) -> int:
    if isinstance(value, str) and len(value) > 2500:
        raise InvalidSketchError(f"{name} has {len(value)} digits; far too many")
    try:
        return decimal(value, name, minimum)
    except InvalidReleaseError as exc:
        raise InvalidSketchError(str(exc)) from None


def _params(value: object) -> Any:
    from exactdp.sparse_vectors.alp import ALPParams

    raw = _mapping(value, "params")
    check_keys(raw, _PARAM_KEYS, set(), "params")
    variant = raw["variant"]
    if variant not in VARIANTS:
        raise InvalidSketchError(f"params.variant = {_short(variant)} must be one of "
                                 f"{', '.join(VARIANTS)}")
    scale = _fraction(raw["scale"], "params.scale")
    flip = _fraction(raw["flip"], "params.flip")
    universe = _natural(raw["universe"], "params.universe")
    if universe > 1 << _MAX_UNIVERSE_BITS:
        raise InvalidSketchError(f"params.universe is beyond 2^{_MAX_UNIVERSE_BITS}")
    ints = {name: _natural(raw[name], f"params.{name}")
            for name in ("columns", "rows", "sparsity", "grid")}
    try:
        return ALPParams(scale=scale, flip=flip, universe=universe, variant=str(variant),
                         **ints)
    except ExactDPError as exc:
        raise InvalidSketchError(f"params: {exc}") from None


def _family(sketch: Any) -> Any:
    return sketch.hashes


def _describe(family: Any) -> dict[str, str]:
    return {k: str(v) for k, v in family.describe().items()}


def _seed_json(seed: Any) -> list[str]:
    from exactdp.hashing import HashSeed

    if isinstance(seed, HashSeed):
        return [str(seed.a), str(seed.b)]
    return [str(r) for r in seed.table]


def _hash_family(value: object, params: Any) -> Any:
    """The released family, rebuilt from its description (a prime is re-checked) and
    checked against the parameters (its universe and rows are theirs)."""
    from exactdp.hashing import family_from_description

    raw = _mapping(value, "hash")
    kind = raw.get("family")
    if kind not in ("carter-wegman", "table"):
        raise InvalidSketchError(f"hash.family = {_short(kind)} must be 'carter-wegman' or "
                                 f"'table'")
    fields = {"carter-wegman": {"family", "prime", "rows", "universe"},
              "table": {"family", "rows", "universe"}}[kind]
    check_keys(raw, fields, set(), "hash")
    nums = {key: _natural(raw[key], f"hash.{key}", 1) for key in sorted(fields - {"family"})}
    if nums["rows"] != params.rows:
        raise InvalidSketchError(f"hash.rows = {nums['rows']} differs from params.rows = "
                                 f"{params.rows}")
    if nums["universe"] < params.universe:
        raise InvalidSketchError(f"hash.universe = {nums['universe']} is below "
                                 f"params.universe = {params.universe}: some keys have no row")
    if nums.get("prime", 0).bit_length() > 4 + _MAX_UNIVERSE_BITS:
        raise InvalidSketchError("hash.prime is far larger than the universe needs")
    try:
        return family_from_description({"family": kind, **nums})
    except ExactDPError as exc:
        raise InvalidSketchError(f"hash: {exc}") from None


def _seeds(value: object, params: Any, family: Any) -> tuple[Any, ...]:
    from exactdp.hashing import CarterWegman, HashSeed, TableSeed

    if not isinstance(value, list):
        raise InvalidSketchError("seeds must be a list with one seed per column")
    if len(value) != params.columns:
        raise InvalidSketchError(f"seeds has {len(value)} entries; m = params.columns = "
                                 f"{params.columns} hash functions were released")
    cw = isinstance(family, CarterWegman)
    size = 2 if cw else family.universe
    seeds: list[Any] = []
    for b, raw in enumerate(value):
        where = f"seeds[{b}]"
        if not isinstance(raw, list) or len(raw) != size:
            raise InvalidSketchError(
                f"{where} must be " + ("a pair [a, b] of decimal strings" if cw else
                                       f"a list of d = {size} rows (decimal strings)"))
        numbers = [_natural(v, f"{where}[{i}]", 0) for i, v in enumerate(raw)]
        seed = HashSeed(*numbers) if cw else TableSeed(tuple(numbers))
        try:
            seeds.append(family.check_seed(seed))
        except ExactDPError as exc:
            raise InvalidSketchError(f"{where}: {exc}") from None
    return tuple(seeds)


def _bits(value: object, params: Any) -> bytes:
    raw = _mapping(value, "bits")
    check_keys(raw, {"count", "order", "encoding", "data"}, set(), "bits")
    cells = params.rows * params.columns
    if raw["count"] != str(cells):
        raise InvalidSketchError(f"bits.count = {_short(raw['count'])}; an s x m sketch has "
                                 f"s*m = {cells} bits")
    if raw["order"] != BIT_ORDER:
        raise InvalidSketchError(f"bits.order = {_short(raw['order'])}; expected "
                                 f"{BIT_ORDER!r}")
    if raw["encoding"] != ENCODING:
        raise InvalidSketchError(f"bits.encoding = {_short(raw['encoding'])}; expected "
                                 f"{ENCODING!r}")
    chunks = raw["data"]
    size = (cells + 7) // 8
    expected = 4 * ((size + 2) // 3)
    if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
        raise InvalidSketchError("bits.data must be a list of base64 strings")
    data = "".join(chunks)
    if len(data) != expected:
        raise InvalidSketchError(f"bits.data has {len(data)} characters; {cells} bits are "
                                 f"{size} bytes, {expected} characters of base64")
    if not _BASE64.fullmatch(data):
        raise InvalidSketchError("bits.data is not base64 (A-Z, a-z, 0-9, +, /, then at most "
                                 "two '=')")
    try:
        raw_bytes = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidSketchError("bits.data is not valid base64") from None
    if len(raw_bytes) != size or base64.b64encode(raw_bytes).decode("ascii") != data:
        raise InvalidSketchError(f"bits.data does not decode to exactly {size} bytes in the "
                                 f"canonical base64 form")
    if chunks != _chunks(data):
        raise InvalidSketchError(f"bits.data must be cut into strings of {CHUNK} characters "
                                 f"(the last one shorter)")
    if cells % 8 and raw_bytes[-1] >> (cells % 8):
        raise InvalidSketchError(f"bits.data sets bits beyond the {cells} cells (the unused "
                                 f"high bits of the last byte must be 0)")
    return raw_bytes


def _spent(params: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """The ``"spent"`` object of a sketch drawn for ``request`` (its epsilon the budget)."""
    return dict(params.spend(_positive_fraction(request["epsilon"], "request.epsilon"))
                .to_json())


def _request(value: object, params: Any) -> dict[str, str]:
    raw = _mapping(value, "request")
    _check_request(raw, params)
    return {k: str(v) for k, v in raw.items()}


_REQUEST_FIELDS = {"from_paper": ("epsilon", "alpha", "beta"),
                   "unscaled": ("epsilon", "beta"),
                   "histogram_tight": ("epsilon", "alpha", "beta", "bound")}


def _check_request(raw: Mapping[str, Any], params: Any) -> None:
    """The recorded request must give exactly the recorded parameters: ``from_paper``
    (``epsilon, alpha, beta``), ``unscaled`` (``epsilon, beta``) or ``histogram_tight``
    (``epsilon, alpha, beta, bound``: ``n = alpha/epsilon`` a whole number and
    ``bound <= e^epsilon``, decided exactly by :func:`exactdp.certified.compare_exp`)."""
    from exactdp.certified import compare_exp
    from exactdp.sparse_vectors.alp import ALPParams

    constructor = raw.get("constructor")
    if not isinstance(constructor, str) or constructor not in _REQUEST_FIELDS:
        raise InvalidSketchError(f"request.constructor = {_short(constructor)} must be one of "
                                 f"{', '.join(_REQUEST_FIELDS)}")
    fields = _REQUEST_FIELDS[constructor]
    check_keys(raw, {"constructor", *fields}, set(), "request")
    v = {k: _positive_fraction(raw[k], f"request.{k}") for k in fields}
    shape = (params.rows, params.sparsity, params.universe)
    try:
        if constructor == "from_paper":
            expected = ALPParams.from_paper(v["epsilon"], v["alpha"], v["beta"], *shape,
                                            params.grid)
        elif constructor == "unscaled":
            expected = ALPParams.unscaled(v["epsilon"], v["beta"], *shape, params.grid)
        else:
            unit = v["alpha"] / v["epsilon"]
            if unit.denominator != 1:
                raise InvalidSketchError(f"request: alpha/epsilon = {unit} must be a whole "
                                         f"number for histogram_tight")
            if max(len(raw["epsilon"]), len(raw["bound"])) > 200 or \
                    compare_exp(v["epsilon"], v["bound"]) < 0:
                raise InvalidSketchError(f"request.bound = {_short(raw['bound'])} must be a "
                                         f"rational <= e^epsilon")
            expected = ALPParams.histogram_tight(v["bound"], unit.numerator, v["beta"],
                                                 *shape)
    except InvalidSketchError:
        raise
    except ExactDPError as exc:
        raise InvalidSketchError(f"the recorded request cannot have been drawn: {exc}"
                                 ) from None
    _request_matches(expected, params, "params.")


def _request_matches(expected: ALPParams, params: ALPParams, where: str) -> None:
    """The parameters the recorded request re-derives must be the ones in the file."""
    for name in ("variant", "scale", "flip", "columns", "grid"):
        if getattr(expected, name) != getattr(params, name):
            raise InvalidSketchError(f"{where}{name} = {getattr(params, name)} but the "
                                     f"recorded request gives {getattr(expected, name)}; the "
                                     f"file was edited")


def _positive_fraction(value: object, name: str) -> Fraction:
    q = _fraction(value, name)
    if q <= 0:
        raise InvalidSketchError(f"{name} = {q} must be positive")
    return q

