"""The ALP sketch file (exactdp.sparse_vectors.sketch_file): exact round trips, and every kind
of damaged or edited file refused with a one-line typed error naming the field."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from gmpy2 import mpz
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.files import InputFileError
from exactdp.hashing import CarterWegman, HashSeed, TableHash
from exactdp.histograms.release_file import seal
from exactdp.params import ExactDPError, ParameterError, ParameterTypeError
from exactdp.randomness import SeededSource
from exactdp.sparse_vectors.alp import ALP, ALPParams, ALPSketch, tight_bound
from exactdp.sparse_vectors.approx import (
    ApproxThresholdALP,
    ApproxThresholdParams,
    approx_threshold,
)
from exactdp.sparse_vectors.combined import ThresholdALP, ThresholdALPSketch
from exactdp.sparse_vectors.sketch_file import (
    FORMAT,
    KIND_ALP,
    KIND_APPROX,
    KIND_THRESHOLD,
    KINDS,
    THRESHOLD_FORMAT,
    InvalidSketchError,
    dumps,
    from_json,
    load_sketch,
    loads,
    sketch_body,
    sketch_json,
)
from exactdp.sparse_vectors.threshold import ThresholdParams, minimal_threshold

REQUEST = {"constructor": "from_paper", "epsilon": "1", "alpha": "3", "beta": "30"}


def _sketch(rows: int = 21, universe: int = 1000, seed: int = 7) -> Any:
    params = ALPParams.from_paper(1, 3, 30, rows, 4, universe)
    return ALP(params).project({3: 10, 17: 2, 999: 31}, SeededSource(seed))


def _doc(sketch: Any = None, **fields: Any) -> dict[str, Any]:
    sk = _sketch() if sketch is None else sketch
    defaults: dict[str, Any] = {"request": REQUEST, "input_file": "x.csv", "seeded": True}
    return sketch_json(sk, **(defaults | fields))


def _reseal(doc: dict[str, Any]) -> str:
    return json.dumps(seal(doc), indent=2)


# --------------------------------------------------------------------------- round trips

@st.composite
def sketches(draw: st.DrawFn) -> Any:
    variant = draw(st.sampled_from(["paper", "unscaled", "histogram-tight"]))
    eps = Fraction(draw(st.integers(1, 6)), draw(st.integers(1, 4)))
    beta = Fraction(draw(st.integers(1, 40)), draw(st.integers(1, 3)))
    rows = draw(st.integers(1, 13))
    k = draw(st.integers(1, 5))
    universe = draw(st.sampled_from([1, 2, 7, 100, 2**64, 2**127 - 1]))
    grid = draw(st.integers(1, 4)) if variant != "histogram-tight" else 1
    if variant == "paper":
        alpha = Fraction(draw(st.integers(1, 9)), draw(st.integers(1, 3)))
        params = ALPParams.from_paper(eps, alpha, beta, rows, k, universe, grid)
    elif variant == "unscaled":
        params = ALPParams.unscaled(eps, beta, rows, k, universe, grid)
    else:
        params = ALPParams.histogram_tight(tight_bound(eps), draw(st.integers(1, 4)), beta,
                                           rows, k, universe)
    hashes = None
    if universe <= 7 and draw(st.booleans()):
        hashes = TableHash(universe, rows)
    keys = draw(st.lists(st.integers(1, universe), unique=True, max_size=k))
    x = {key: draw(st.integers(0, 200)) for key in keys}
    return ALP(params, hashes).project(x, SeededSource(draw(st.integers(0, 2**32))))


@settings(max_examples=60, deadline=None)
@given(sketch=sketches())
def test_round_trip_is_exact(sketch: Any) -> None:
    text = dumps(sketch)
    back = loads(text)
    assert back == sketch
    assert back.bits == sketch.bits and back.seeds == sketch.seeds
    assert back.hashes.describe() == sketch.hashes.describe()
    for key in {1, sketch.params.universe, (sketch.params.universe + 1) // 2}:
        assert back.estimate(key) == sketch.estimate(key)
    assert dumps(back) == text  # canonical: writing what was read gives the same bytes
    # Every number in the file is a string (no float, no JSON number).
    json.loads(text, parse_int=_no_number, parse_float=_no_number)


def _no_number(text: str) -> None:
    raise AssertionError(f"a JSON number {text} in the sketch file")


def test_file_layout_and_cli_fields(tmp_path: Path) -> None:
    sk = _sketch()
    doc = _doc(sk)
    assert doc["format"] == FORMAT and doc["version"] == "1"
    assert doc["params"] == {"variant": "paper", "scale": "1/3", "flip": "1/5",
                             "columns": "10", "rows": "21", "sparsity": "4",
                             "universe": "1000", "grid": "1"}
    assert doc["guarantee"]["epsilon_cert"] == "1"
    assert doc["hash"] == {"family": "carter-wegman", "prime": "1009", "rows": "21",
                           "universe": "1000"}
    assert doc["seeds"] == [[str(s.a), str(s.b)] for s in sk.seeds]
    data = base64.b64decode("".join(doc["bits"]["data"]))
    assert len(data) == (21 * 10 + 7) // 8
    # cell (a, b) is bit (b - 1)*s + (a - 1), little-endian within bytes
    for a, b in [(1, 1), (21, 1), (5, 7), (21, 10)]:
        j = (b - 1) * 21 + (a - 1)
        assert data[j // 8] >> (j % 8) & 1 == sk.cell(a, b)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    loaded = load_sketch(str(path))
    assert loaded.sketch == sk and loaded.seeded is True and loaded.request == REQUEST


def test_long_bit_strings_are_cut_into_chunks() -> None:
    params = ALPParams.from_paper(1, 3, 30, 4000, 2, 10**6)  # 40000 cells: 5000 bytes
    sk = ALP(params).project({5: 3}, SeededSource(3))
    doc = sketch_json(sk)
    chunks = doc["bits"]["data"]
    assert [len(c) for c in chunks] == [4096, 6668 - 4096]  # 4 * ceil(5000/3) = 6668
    assert loads(json.dumps(doc)) == sk
    doc["bits"]["data"] = ["".join(chunks)]  # the same characters, cut differently
    with pytest.raises(InvalidSketchError, match="cut into strings of 4096"):
        loads(_reseal(doc))


def test_tight_variant_records_its_integer_ratio() -> None:
    bound = tight_bound(1)
    params = ALPParams.histogram_tight(bound, 3, 30, 11, 2, 50)
    sk = ALP(params).project({1: 4}, SeededSource(1))
    doc = sketch_json(sk, request={"constructor": "histogram_tight", "epsilon": "1",
                                   "alpha": "3", "beta": "30", "bound": str(bound)})
    assert Fraction(doc["guarantee"]["integer_unit_ratio"]) == bound
    assert from_json(json.loads(json.dumps(doc))).sketch == sk
    # a bound above e^eps cannot have been drawn for that eps
    doc["request"]["bound"] = "2719/1000"
    with pytest.raises(InvalidSketchError, match="request.bound"):
        loads(_reseal(doc))


def test_writing_a_request_that_does_not_match_is_refused() -> None:
    with pytest.raises(InvalidSketchError, match="columns"):
        sketch_json(_sketch(), request={**REQUEST, "beta": "31"})


# --------------------------------------------------------------------------- refused files

def _edit(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(doc: dict[str, Any]) -> None:
        target = doc
        for p in path[:-1]:
            target = target[p]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return apply


_DELETE = object()


@pytest.mark.parametrize(("edit", "words"), [
    (_edit(["params", "rows"], 21), "params.rows"),
    (_edit(["params", "rows"], "021"), "params.rows"),
    (_edit(["params", "rows"], "22"), "hash.rows"),
    (_edit(["params", "scale"], "2/6"), "params.scale"),
    (_edit(["params", "scale"], "0.5"), "params.scale"),
    (_edit(["params", "flip"], "0"), "flip"),
    (_edit(["params", "flip"], "2/3"), "flip"),
    (_edit(["params", "variant"], "fast"), "params.variant"),
    (_edit(["params", "extra"], "1"), "params has an unknown field 'extra'"),
    (_edit(["params", "grid"], _DELETE), "params lacks the field 'grid'"),
    (_edit(["params", "columns"], "9" * 30), "cells"),
    (_edit(["params", "universe"], "9" * 3000), "params.universe"),
    (_edit(["guarantee", "epsilon_cert"], "1/2"), "guarantee.epsilon_cert"),
    (_edit(["guarantee", "statement"], "trust me"), "guarantee.statement"),
    (_edit(["hash", "prime"], "1007"), "prime"),
    (_edit(["hash", "prime"], "997"), "prime"),
    (_edit(["hash", "family"], "md5"), "hash.family"),
    (_edit(["hash", "universe"], "999"), "hash.universe"),
    (_edit(["seeds"], []), "seeds has 0 entries"),
    (_edit(["seeds", 3], ["5"]), "seeds[3]"),
    (_edit(["seeds", 3, 0], "0"), "seeds[3]"),
    (_edit(["seeds", 3, 1], "1009"), "seeds[3]"),
    (_edit(["seeds", 3, 1], "-1"), "seeds[3][1]"),
    (_edit(["seeds", 3, 1], 5), "seeds[3][1]"),
    (_edit(["bits", "count"], "211"), "bits.count"),
    (_edit(["bits", "encoding"], "hex"), "bits.encoding"),
    (_edit(["bits", "order"], "row major"), "bits.order"),
    (_edit(["bits", "data"], ["AAAA"]), "bits.data has 4 characters"),
    (_edit(["bits", "data"], ["!" * 36]), "bits.data is not base64"),
    (_edit(["bits", "data"], 5), "bits.data"),
    (_edit(["bits", "data"], "A" * 36), "bits.data must be a list"),
    (_edit(["bits", "data"], [5]), "bits.data must be a list"),
    (_edit(["request", "epsilon"], "2"), "request"),
    (_edit(["request", "epsilon"], "0.5"), "request.epsilon"),
    (_edit(["request", "constructor"], "magic"), "request.constructor"),
    (_edit(["request", "constructor"], ["from_paper"]), "request.constructor"),
    (_edit(["request", "delta"], "1/2"), "request has an unknown field 'delta'"),
    (_edit(["seeded"], "no"), "seeded"),
    (_edit(["input", "file"], 3), "input.file"),
    (_edit(["surprise"], "1"), "the sketch has an unknown field 'surprise'"),
    (_edit(["algorithm"], "ALP"), "algorithm"),
    (_edit(["seeds"], _DELETE), "lacks the field 'seeds'"),
])
def test_edited_files_are_refused_naming_the_field(edit: Callable[[dict[str, Any]], None],
                                                   words: str) -> None:
    doc = _doc()
    edit(doc)
    with pytest.raises(InvalidSketchError) as exc:
        loads(_reseal(doc))  # resealed: the validation itself must catch it
    message = str(exc.value)
    assert "\n" not in message and isinstance(exc.value, ExactDPError)
    assert words in message, message


def test_padding_bits_and_non_canonical_base64_are_refused() -> None:
    sk = _sketch(rows=21)  # 210 cells: 2 padding bits in the last byte
    doc = _doc(sk)
    data = bytearray(sk.bits)
    data[-1] |= 0x80
    doc["bits"]["data"] = [base64.b64encode(bytes(data)).decode()]
    with pytest.raises(InvalidSketchError, match="beyond the 210 cells"):
        loads(_reseal(doc))
    sk2 = _sketch(rows=22)  # 220 cells = 28 bytes: base64 ends in '=='
    doc = _doc(sk2)
    (text,) = doc["bits"]["data"]
    assert text.endswith("==")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    i = alphabet.index(text[-3])
    assert i % 16 == 0  # the canonical spelling leaves the 4 unused low bits 0
    # setting an unused bit spells the same bytes non-canonically: two files, one sketch
    doc["bits"]["data"] = [text[:-3] + alphabet[i + 1] + "=="]
    assert base64.b64decode(doc["bits"]["data"][0]) == sk2.bits
    with pytest.raises(InvalidSketchError, match="canonical"):
        loads(_reseal(doc))


def test_digest_version_format_duplicates_floats() -> None:
    doc = _doc()
    text = json.dumps(doc)
    with pytest.raises(InvalidSketchError, match="integrity check"):
        loads(text.replace('"seeded": true', '"seeded": false'))
    no_seal = {k: v for k, v in doc.items() if k != "integrity"}
    with pytest.raises(InvalidSketchError, match="no integrity field"):
        loads(json.dumps(no_seal))
    with pytest.raises(InvalidSketchError, match="version"):
        loads(_reseal({**doc, "version": "2"}))
    with pytest.raises(InvalidSketchError, match="format"):
        loads(_reseal({**doc, "format": "exactdp-compact-histogram"}))
    with pytest.raises(InvalidSketchError, match="appears twice"):
        loads(text.replace('"seeded": true', '"seeded": true, "seeded": true'))
    with pytest.raises(InvalidSketchError, match="not exact"):
        loads(text.replace('"seeded": true', '"seeded": 1.0'))
    with pytest.raises(InvalidSketchError, match="nests"):
        loads("[" * 100 + "]" * 100)
    with pytest.raises(InvalidSketchError, match="JSON object"):
        loads("[1]")
    with pytest.raises(InvalidSketchError, match="not valid JSON"):
        loads(text[:-5])
    with pytest.raises(ParameterTypeError, match="str"):
        loads(text.encode())  # type: ignore[arg-type]


def test_huge_and_missing_files(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_doc()))
    with pytest.raises(InputFileError, match="larger than 100 bytes"):
        load_sketch(str(path), max_bytes=100)
    with pytest.raises(InputFileError, match="cannot read"):
        load_sketch(str(tmp_path / "missing.json"))
    path.write_text(json.dumps(_doc()).replace('"seeded": true', '"seeded": false'))
    with pytest.raises(InvalidSketchError, match=f"sketch {str(path)!r}: .*integrity"):
        load_sketch(str(path))


def test_table_hash_seeds_are_checked() -> None:
    params = ALPParams.from_paper(1, 1, 3, 3, 2, 4)
    sk = ALP(params, TableHash(4, 3)).project({2: 1}, SeededSource(2))
    doc = sketch_json(sk)
    assert doc["hash"] == {"family": "table", "universe": "4", "rows": "3"}
    assert loads(json.dumps(doc)) == sk
    doc["seeds"][0][1] = "4"  # row 4 of 3
    with pytest.raises(InvalidSketchError, match=r"seeds\[0\]"):
        loads(_reseal(doc))
    doc["seeds"][0] = ["1", "2"]  # 2 rows for d = 4 keys
    with pytest.raises(InvalidSketchError, match=r"seeds\[0\] must be a list of d = 4"):
        loads(_reseal(doc))


def test_a_custom_prime_round_trips_and_is_checked() -> None:
    params = ALPParams.from_paper(1, 3, 9, 5, 2, 100)
    family = CarterWegman(101, 5, 100)
    sk = ALP(params, family).project({7: 3}, seeds=[HashSeed(1, 0)] * 3,
                                     source=SeededSource(0))
    assert loads(dumps(sk)) == sk
    doc = sketch_json(sk)
    doc["hash"]["prime"] = "2"  # below the universe
    with pytest.raises(InvalidSketchError, match="hash: prime"):
        loads(_reseal(doc))


# --------------------------------------------------------------------------- Threshold ALP

def _threshold_sketch(kind: str = KIND_THRESHOLD, seed: int = 1) -> Any:
    """eps1 = eps2 = 1, alpha = 3, s = 11, k = 4, d = 200, hi = 100: r = 1/2; t = 8 (pure:
    r^8/(3/2) = 1/384 <= 1/200 < r^7/(3/2) = 1/192) or t = 11 (delta = 1/1000: r^10/(3/2) =
    1/1536 <= 1/1000 < r^9/(3/2) = 1/768); m = ceil(t/3) = 3 or 4."""
    x = {3: 50, 17: 2, 199: 31}
    if kind == KIND_APPROX:
        return ApproxThresholdALP.from_paper(1, 1, "1/1000", 3, 11, 4, 200, 100).project(
            x, SeededSource(seed))
    return ThresholdALP.from_paper(1, 1, 3, 11, 4, 200, 100).project(x, SeededSource(seed))


def _threshold_request(kind: str) -> dict[str, str]:
    extra = {"delta": "1/1000"} if kind == KIND_APPROX else {}
    return {"constructor": "from_paper", "eps1": "1", "eps2": "1", "alpha": "3", **extra}


def _threshold_doc(kind: str = KIND_THRESHOLD) -> dict[str, Any]:
    return sketch_json(_threshold_sketch(kind), kind=kind, request=_threshold_request(kind),
                       input_file="x.csv", seeded=True)


@st.composite
def threshold_sketches(draw: st.DrawFn) -> tuple[str, Any]:
    kind = draw(st.sampled_from([KIND_THRESHOLD, KIND_APPROX]))
    eps1 = Fraction(draw(st.integers(1, 6)), draw(st.integers(1, 4)))
    eps2 = Fraction(draw(st.integers(1, 6)), draw(st.integers(1, 4)))
    rows = draw(st.integers(1, 9))
    k = draw(st.integers(1, 4))
    d = draw(st.sampled_from([1, 2, 7, 60]))
    r = 1 / (1 + eps1)
    if kind == KIND_APPROX:
        t = approx_threshold(r, Fraction(1, draw(st.integers(2, 10**6))))
    else:
        t = minimal_threshold(r, d)
    hi = t + draw(st.integers(0, 40))
    thr: Any = (ApproxThresholdParams(r, t, hi, d, k) if kind == KIND_APPROX
                else ThresholdParams(r, t, hi, d))
    variant = draw(st.sampled_from(["paper", "unscaled", "histogram-tight"]))
    shape = (rows, k, d)
    if variant == "paper":
        alpha = Fraction(draw(st.integers(1, 9)), draw(st.integers(1, 3)))
        alp = ALPParams.from_paper(eps2, alpha, thr.t, *shape)
    elif variant == "unscaled":
        alp = ALPParams.unscaled(eps2, thr.t, *shape)
    else:
        alp = ALPParams.histogram_tight(tight_bound(eps2), draw(st.integers(1, 4)), thr.t,
                                        *shape)
    hashes = TableHash(d, rows) if d <= 7 and draw(st.booleans()) else None
    mech: Any = (ApproxThresholdALP if kind == KIND_APPROX else ThresholdALP)(thr, alp, hashes)
    keys = draw(st.lists(st.integers(1, d), unique=True, max_size=k))
    x = {key: draw(st.integers(0, hi)) for key in keys}
    return kind, mech.project(x, SeededSource(draw(st.integers(0, 2**32))))


@settings(max_examples=40, deadline=None)
@given(drawn=threshold_sketches())
def test_threshold_round_trip_is_exact(drawn: tuple[str, Any]) -> None:
    kind, sketch = drawn
    text = dumps(sketch, kind=kind)
    loaded = from_json(json.loads(text))
    back = loaded.sketch
    assert loaded.kind == kind and loaded.request is None and loaded.seeded is False
    assert isinstance(back, ThresholdALPSketch) and back == sketch
    assert back.threshold == sketch.threshold and back.released == sketch.released
    assert back.sketch.bits == sketch.sketch.bits and back.sketch.seeds == sketch.sketch.seeds
    for key in range(1, sketch.threshold.d + 1):  # every key: exact Fractions
        assert back.estimate(key) == sketch.estimate(key)
    assert dumps(back, kind=kind) == text
    json.loads(text, parse_int=_no_number, parse_float=_no_number)


def test_threshold_file_layout_and_guarantee() -> None:
    sk = _threshold_sketch()
    doc = _threshold_doc()
    assert doc["format"] == THRESHOLD_FORMAT and doc["kind"] == KIND_THRESHOLD
    assert doc["threshold"] == {"r": "1/2", "t": "8", "hi": "100", "d": "200"}
    assert doc["released"]["pairs"] == [[str(k), str(v)] for k, v in sk.released]
    g = doc["guarantee"]
    assert Fraction(g["threshold_ratio"]) == 2  # 1/r = 1 + eps1
    assert Fraction(g["alp_epsilon_cert"]) == 1  # eps2
    assert Fraction(g["epsilon_bound"]) == Fraction(1) + Fraction(1)  # eps1 + eps2
    assert Fraction(g["false_positive"]) == Fraction(1, 384)
    assert doc["alp"]["params"]["columns"] == "3"  # ceil(t eps2/alpha) = ceil(8/3)
    assert doc["alp"] == sketch_body(sk.sketch)  # the ALP part exactly as an ALP file
    loaded = from_json(json.loads(json.dumps(doc)))
    assert loaded.sketch == sk and loaded.kind == KIND_THRESHOLD and loaded.seeded is True
    assert loaded.request == _threshold_request(KIND_THRESHOLD)
    approx = _threshold_doc(KIND_APPROX)
    assert approx["threshold"] == {"r": "1/2", "t": "11", "hi": "100", "d": "200",
                                   "sparsity": "4"}
    assert Fraction(approx["guarantee"]["delta"]) == Fraction(1, 1536) <= Fraction(1, 1000)
    assert Fraction(approx["guarantee"]["epsilon_bound"]) == 2
    assert approx["alp"]["params"]["columns"] == "4"  # ceil(11/3)
    assert loads(json.dumps(approx)) == _threshold_sketch(KIND_APPROX)


def test_threshold_estimates_follow_algorithm_8() -> None:
    sk = _threshold_sketch()
    back = loads(dumps(sk))
    released = dict(sk.released)
    assert released  # keys 3 (50) and 199 (31) are far above t = 8 at this seed
    for key in range(1, 201):
        expected = Fraction(released[key]) if key in released else sk.sketch.estimate(key)
        assert back.estimate(key) == expected


def test_loading_dispatches_on_the_kind(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_threshold_doc()))
    with pytest.raises(InvalidSketchError, match="kind = 'threshold-alp': this reader takes "
                                                 "only 'alp'"):
        load_sketch(str(path))  # the default: ALP sketches only (the query command)
    loaded = load_sketch(str(path), kinds=KINDS)
    assert loaded.kind == KIND_THRESHOLD and loaded.sketch == _threshold_sketch()
    assert isinstance(loads(dumps(_sketch())), ALPSketch)
    with pytest.raises(InvalidSketchError, match="kind = 'alp'"):
        loads(dumps(_sketch()), kinds=(KIND_THRESHOLD, KIND_APPROX))


@pytest.mark.parametrize(("kind", "edit", "words"), [
    (KIND_THRESHOLD, _edit(["kind"], "magic"), "kind = 'magic' must be one of"),
    (KIND_THRESHOLD, _edit(["kind"], "alp"), "kind = 'alp' must be one of"),
    (KIND_THRESHOLD, _edit(["kind"], KIND_APPROX), "algorithm"),
    (KIND_THRESHOLD, _edit(["kind"], _DELETE), "kind = None"),
    (KIND_THRESHOLD, _edit(["kind"], ["threshold-alp"]), "kind = ['threshold-alp'] must"),
    (KIND_THRESHOLD, _edit(["format"], FORMAT), "the sketch lacks the field 'bits'"),
    (KIND_THRESHOLD, _edit(["version"], "2"), "version"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 0, 1], "7"),
     "value 7 of key 3 is below the threshold t = 8"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 0, 1], "101"), "above hi = 100"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 0, 0], "0"), "key 0 is outside [1, d]"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 1, 0], "201"), "key 201 is outside [1, d]"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 1, 0], "3"), "strictly increasing"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 0, 1], "49.0"), r"released.pairs\[0\]\[1\]"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 0, 1], 49), r"released.pairs\[0\]\[1\]"),
    (KIND_THRESHOLD, _edit(["released", "pairs", 0], ["3"]), r"released.pairs\[0\] must be"),
    (KIND_THRESHOLD, _edit(["released", "count"], "3"), "released.count = 3"),
    (KIND_THRESHOLD, _edit(["released", "pairs"], {}), "released.pairs must be a list"),
    (KIND_THRESHOLD, _edit(["threshold", "r"], "0.5"), "threshold.r"),
    (KIND_THRESHOLD, _edit(["threshold", "r"], "2/4"), "threshold.r"),
    (KIND_THRESHOLD, _edit(["threshold", "r"], "1"), "threshold: r = 1 must lie"),
    (KIND_THRESHOLD, _edit(["threshold", "r"], "2/3"), "guarantee.threshold_ratio"),
    (KIND_THRESHOLD, _edit(["threshold", "t"], "10"), "beta := t = 10: m = ceil"),
    (KIND_THRESHOLD, _edit(["threshold", "t"], "9"), "guarantee.false_positive"),
    (KIND_THRESHOLD, _edit(["threshold", "t"], str(2**21)), "threshold.t"),
    (KIND_THRESHOLD, _edit(["threshold", "hi"], "7"), "threshold: hi = 7 must be >= t"),
    (KIND_THRESHOLD, _edit(["threshold", "d"], "199"), "threshold.d = 199 differs"),
    (KIND_THRESHOLD, _edit(["threshold", "sparsity"], "4"), "threshold has an unknown field"),
    (KIND_THRESHOLD, _edit(["guarantee", "epsilon_bound"], "3"), "guarantee.epsilon_bound"),
    (KIND_THRESHOLD, _edit(["guarantee", "false_positive"], "1/200"),
     "guarantee.false_positive"),
    (KIND_THRESHOLD, _edit(["guarantee", "threshold_ratio"], "3/2"),
     "guarantee.threshold_ratio"),
    (KIND_THRESHOLD, _edit(["guarantee", "alp_epsilon_cert"], "1/2"),
     "guarantee.alp_epsilon_cert"),
    (KIND_THRESHOLD, _edit(["guarantee", "delta"], "0"), "guarantee has an unknown field"),
    (KIND_THRESHOLD, _edit(["guarantee", "statement"], "trust me"), "guarantee.statement"),
    (KIND_THRESHOLD, _edit(["request", "eps1"], "2"), "request gives r = 1/(1 + eps1) = 1/3"),
    (KIND_THRESHOLD, _edit(["request", "alpha"], "2"), "alp.params.scale"),
    (KIND_THRESHOLD, _edit(["request", "eps1"], "1.0"), "request.eps1"),
    (KIND_THRESHOLD, _edit(["request", "delta"], "1/2"), "request has an unknown field"),
    (KIND_THRESHOLD, _edit(["request", "constructor"], "unscaled"), "request.constructor"),
    (KIND_THRESHOLD, _edit(["alp", "params", "rows"], 11), "alp: params.rows"),
    (KIND_THRESHOLD, _edit(["alp", "params", "rows"], "12"), "alp: hash.rows"),
    (KIND_THRESHOLD, _edit(["alp", "params", "grid"], "2"), "alp.params.grid = 2: Threshold"),
    (KIND_THRESHOLD, _edit(["alp", "params", "universe"], "100"), "alp.params.universe = 100"),
    (KIND_THRESHOLD, _edit(["alp", "seeds", 0, 0], "0"), r"alp: seeds\[0\]"),
    (KIND_THRESHOLD, _edit(["alp", "guarantee", "epsilon_cert"], "2"),
     "alp: guarantee.epsilon_cert"),
    (KIND_THRESHOLD, _edit(["alp", "bits", "count"], "34"), "alp: bits.count"),
    (KIND_THRESHOLD, _edit(["alp", "format"], THRESHOLD_FORMAT), "alp: format"),
    (KIND_THRESHOLD, _edit(["alp", "integrity"], {}), "alp: the ALP part has an unknown"),
    (KIND_THRESHOLD, _edit(["alp", "seeded"], True), "alp: the ALP part has an unknown"),
    (KIND_THRESHOLD, _edit(["alp"], _DELETE), "the sketch lacks the field 'alp'"),
    (KIND_THRESHOLD, _edit(["seeded"], "yes"), "seeded"),
    (KIND_APPROX, _edit(["kind"], KIND_THRESHOLD), "algorithm"),
    (KIND_APPROX, _edit(["threshold", "sparsity"], "5"), "threshold.sparsity = 5 differs"),
    (KIND_APPROX, _edit(["threshold", "sparsity"], _DELETE), "lacks the field 'sparsity'"),
    (KIND_APPROX, _edit(["guarantee", "delta"], "1/1000"), "guarantee.delta"),
    (KIND_APPROX, _edit(["guarantee", "false_positive"], "0"), "guarantee has an unknown"),
    (KIND_APPROX, _edit(["guarantee", "epsilon_bound"], "1"), "guarantee.epsilon_bound"),
    (KIND_APPROX, _edit(["request", "delta"], "1/2000"), "not the smallest integer t"),
    (KIND_APPROX, _edit(["request", "delta"], "1"), "request.delta = 1 must lie in"),
    (KIND_APPROX, _edit(["request", "delta"], _DELETE), "request lacks the field 'delta'"),
    (KIND_APPROX, _edit(["released", "pairs", 0, 1], "10"), "below the threshold t = 11"),
])
def test_edited_threshold_files_are_refused(kind: str, edit: Callable[[dict[str, Any]], None],
                                            words: str) -> None:
    doc = _threshold_doc(kind)
    edit(doc)
    with pytest.raises(InvalidSketchError) as exc:
        loads(_reseal(doc))  # resealed: the validation itself must catch it
    message = str(exc.value)
    assert "\n" not in message and isinstance(exc.value, ExactDPError)
    # patterns with an escape are regular expressions, the others plain text
    assert (re.search(words, message) if "\\" in words else words in message), message


def test_threshold_seal_duplicates_and_floats() -> None:
    text = json.dumps(_threshold_doc())
    edited = text.replace('"t": "8"', '"t": "9"')
    assert edited != text
    with pytest.raises(InvalidSketchError, match="integrity check"):
        loads(edited)
    with pytest.raises(InvalidSketchError, match="not exact"):
        loads(text.replace('"seeded": true', '"seeded": 0.5'))
    with pytest.raises(InvalidSketchError, match="appears twice"):
        loads(text.replace('"t": "8"', '"t": "8", "t": "8"'))


def test_too_many_released_keys_for_the_korolova_threshold() -> None:
    sk = _threshold_sketch(KIND_APPROX)
    doc = _threshold_doc(KIND_APPROX)
    pairs = [[str(key), "20"] for key in (1, 2, 5, 6, 7)]  # 5 keys, k = 4
    doc["released"] = {"count": "5", "pairs": pairs}
    with pytest.raises(InvalidSketchError, match="released has 5 keys; .* at most k = 4"):
        loads(_reseal(doc))
    many = ThresholdALPSketch(sk.threshold, tuple((k, 20) for k in (1, 2, 5, 6, 7)), sk.sketch)
    with pytest.raises(InvalidSketchError, match="at most k = 4"):
        sketch_json(many, kind=KIND_APPROX)
    assert loads(dumps(many)) == many  # the pure Threshold releases any number of keys


def test_writing_threshold_sketches_is_checked() -> None:
    sk = _threshold_sketch()
    with pytest.raises(ParameterError, match="kind = 'alp'"):
        sketch_json(sk, kind=KIND_ALP)
    with pytest.raises(ParameterError, match="kind = 'threshold-alp'"):
        sketch_json(_sketch(), kind=KIND_THRESHOLD)
    with pytest.raises(InvalidSketchError, match="request"):
        sketch_json(sk, request={**_threshold_request(KIND_THRESHOLD), "eps2": "2"})
    # ALP not run with beta := t: refused (Algorithm 7 fixes beta = t)
    thr = ThresholdParams.for_epsilon(1, 200, 100)
    other = ThresholdALP(thr, ALPParams.from_paper(1, 3, 30, 11, 4, 200)).project(
        {3: 5}, SeededSource(2))
    with pytest.raises(InvalidSketchError, match=r"beta := t = 8: m = ceil\(t \* scale\) = 3"):
        sketch_json(other)
    # a threshold above the minimal one is a valid release, but not what from_paper draws
    bigger = ThresholdParams(thr.r, 12, 100, 200)
    sk12 = ThresholdALP(bigger, ALPParams.from_paper(1, 3, 12, 11, 4, 200)).project(
        {3: 5}, SeededSource(2))
    assert loads(dumps(sk12)) == sk12
    with pytest.raises(InvalidSketchError, match="t = 12 is not the smallest"):
        sketch_json(sk12, request=_threshold_request(KIND_THRESHOLD))


def test_long_exact_numbers_are_written_and_checked() -> None:
    """eps1 = 1/1000: r = 1000/1001 and t in the thousands, so false_positive = r^t/(1 + r)
    has tens of thousands of digits (beyond Python's 4300-digit int-to-str limit): still
    written exactly and recomputed on loading."""
    thr = ThresholdParams.for_epsilon(Fraction(1, 1000), 50, 10**4)
    assert thr.r == Fraction(1000, 1001) and thr.t > 3000
    alp = ALPParams.from_paper(1, 300, thr.t, 3, 2, 50)
    sk = ThresholdALP(thr, alp).project({7: 9000}, SeededSource(5))
    doc = sketch_json(sk, request={"constructor": "from_paper", "eps1": "1/1000", "eps2": "1",
                                   "alpha": "300"})
    text = doc["guarantee"]["false_positive"]
    num, den = text.split("/")
    assert len(num) > 4300
    # r^t/(1 + r) = 1000^t/(1001^(t-1) * 2001), in lowest terms (2001 = 3*23*29, 1001 = 7*11*13)
    assert mpz(num) == mpz(1000) ** thr.t and mpz(den) == mpz(1001) ** (thr.t - 1) * 2001
    assert loads(json.dumps(doc)) == sk
    doc["guarantee"]["false_positive"] = "2" + text[1:]  # 1000^t begins with 1
    assert doc["guarantee"]["false_positive"] != text
    with pytest.raises(InvalidSketchError, match="guarantee.false_positive"):
        loads(_reseal(doc))
    doc["threshold"]["r"] = "1/" + "3" * 2000  # r^t would have > 2^24 bits
    with pytest.raises(InvalidSketchError, match="2\\^24 bits"):
        loads(_reseal(doc))


def test_a_derived_number_beyond_4300_digits_is_a_typed_error() -> None:
    """scale with 2499 digits and flip = 1/(10^2497 - 1) are each short enough to read, but
    epsilon_cert = scale (1 - 2 flip)/flip has ~5000 digits: Python's int-to-str limit used to
    turn this file into a ValueError (an internal error); now it is recomputed and refused."""
    doc = _doc()
    del doc["request"]
    doc["params"]["scale"] = "9" * 2499
    doc["params"]["flip"] = "1/" + "9" * 2497
    with pytest.raises(InvalidSketchError, match="guarantee.epsilon_cert"):
        loads(_reseal(doc))
