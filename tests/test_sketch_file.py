"""The ALP sketch file (exactdp.sparse_vectors.sketch_file): exact round trips, and every kind
of damaged or edited file refused with a one-line typed error naming the field."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.files import InputFileError
from exactdp.hashing import CarterWegman, HashSeed, TableHash
from exactdp.histograms.release_file import seal
from exactdp.params import ExactDPError, ParameterTypeError
from exactdp.randomness import SeededSource
from exactdp.sparse_vectors.alp import ALP, ALPParams, tight_bound
from exactdp.sparse_vectors.sketch_file import (
    FORMAT,
    InvalidSketchError,
    dumps,
    from_json,
    load_sketch,
    loads,
    sketch_json,
)

REQUEST = {"constructor": "from_paper", "epsilon": "1", "alpha": "3", "beta": "30"}


def _sketch(rows: int = 21, universe: int = 1000, seed: int = 7) -> Any:
    params = ALPParams.from_paper(1, 3, 30, rows, 4, universe)
    return ALP(params).project({3: 10, 17: 2, 999: 31}, SeededSource(seed))


def _doc(sketch: Any = None, **fields: Any) -> dict[str, Any]:
    sk = _sketch() if sketch is None else sketch
    return sketch_json(sk, **({"request": REQUEST, "input_file": "x.csv", "seeded": True}
                              | fields))


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
