"""The integrity digest of release files (exactdp.histograms.release_file)."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from typing import Any

import pytest

from exactdp.histograms import release_file
from exactdp.histograms.compact import CompactHistogram, CompactRelease
from exactdp.histograms.data import Dataset, Universe
from exactdp.histograms.release import ReleaseRequest, release
from exactdp.histograms.release_file import (
    INTEGRITY_NOTE,
    InvalidReleaseError,
    canonical_bytes,
    check_histogram_report,
    check_seal,
    parse_release,
    seal,
)
from exactdp.histograms.release_loader import loaded_from_json
from exactdp.randomness import SeededSource


def test_the_digest_is_sha256_of_the_canonical_json() -> None:
    obj = {"b": ["1", {"y": None, "x": True}], "a": "\u00e9"}
    sealed = seal(obj)
    # Written out by hand: keys sorted, no spaces, ASCII escapes.
    text = b'{"a":"\\u00e9","b":["1",{"x":true,"y":null}]}'
    assert canonical_bytes(sealed) == text
    assert sealed["integrity"] == {"sha256": hashlib.sha256(text).hexdigest(),
                                   "note": INTEGRITY_NOTE}
    check_seal(sealed)
    # Key order and indentation do not matter; content does.
    check_seal(json.loads(json.dumps(dict(reversed(list(sealed.items()))), indent=3)))
    with pytest.raises(InvalidReleaseError, match="integrity check"):
        check_seal({**sealed, "a": "e"})
    assert "not an authentication" in INTEGRITY_NOTE


@pytest.mark.parametrize("integrity", [None, "abc", {"sha256": "0" * 64},
                                       {"sha256": "0" * 63, "note": INTEGRITY_NOTE},
                                       {"sha256": "A" * 64, "note": INTEGRITY_NOTE},
                                       {"sha256": "0" * 64, "note": "trust me"}])
def test_malformed_integrity_fields(integrity: object) -> None:
    obj: dict[str, Any] = {"a": "1"}
    if integrity is not None:
        obj["integrity"] = integrity
    with pytest.raises(InvalidReleaseError):
        check_seal(obj)


def test_parse_release_refuses_duplicate_keys_floats_and_deep_nesting() -> None:
    with pytest.raises(InvalidReleaseError, match="twice"):
        parse_release('{"a": {"k": "1", "k": "2"}}')
    with pytest.raises(InvalidReleaseError, match="not exact"):
        parse_release('{"a": 0.5}')
    with pytest.raises(InvalidReleaseError, match="nests"):
        parse_release("[" * 10_000 + "]" * 10_000)
    with pytest.raises(InvalidReleaseError, match="JSON object"):
        parse_release('["a"]')


def _report() -> dict[str, Any]:
    u = Universe(2**64)
    req = ReleaseRequest(u, Fraction(1, 2), Fraction(1, 20), Fraction(1, 1000), "geosample")
    data = Dataset.of(u, [7] * 60 + [1, 2, 3])
    return seal(release("stability", req, data, SeededSource(1)))


def test_a_histogram_report_round_trips() -> None:
    report = _report()
    loaded = check_histogram_report(report)
    assert loaded.kind == "stability" and loaded.n == 63 and loaded.recorded_format is None
    for x, c in ((b["element"], b["count"]) for b in report["histogram"]):
        assert loaded.count(int(x)) == int(c)
    assert loaded.count(2**64) == 0  # an unlisted element of a partial vector


@pytest.mark.parametrize(("path", "value", "words"), [
    (("request", "delta"), "1/999", "field"),
    (("request", "delta"), None, "--delta|delta"),
    (("request", "delta"), "2/2000", "1/m"),
    (("request", "counting"), "fastsample", "field"),
    (("n",), "64", "field"),
    (("universe_size",), "18446744073709551615", "field"),
    (("guarantees", "privacy"), "(1/2, 0)-DP", "'guarantees'"),
    (("parameters", "threshold_b"), "1", "'parameters'"),
    (("algorithm",), "basic", "does not match|fallback|refused|cannot"),
    (("version",), "2", "version"),
])
def test_resealed_edits_of_derived_fields_are_refused(path: tuple[str, ...], value: object,
                                                      words: str) -> None:
    report = json.loads(json.dumps(_report()))
    target = report
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(InvalidReleaseError, match=words):
        check_histogram_report(seal(report))


def test_a_loader_without_the_digest_check_would_accept_an_edit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The planted bug: with check_seal disabled, a flipped count loads -- so the digest is
    what refuses it (and test_class4 in test_histogram_issue9 fails on this bug)."""
    rel = CompactHistogram.theorem_8_6(100, 2, 1, Fraction(1, 20)).release(
        Dataset.of(100, [3, 4]), SeededSource(5))
    obj = rel.to_json()
    c = obj["coefficients"][0]
    obj["coefficients"][0] = c[:-1] + str((int(c[-1]) + 1) % 10)
    with pytest.raises(InvalidReleaseError, match="integrity"):
        loaded_from_json(json.loads(json.dumps(obj)))
    monkeypatch.setattr(release_file, "check_seal", lambda obj: None)
    import exactdp.histograms.compact_release as cr
    monkeypatch.setattr(cr, "check_seal", lambda obj: None)
    edited = CompactRelease.from_json(json.loads(json.dumps(obj)))
    assert edited.coefficients != rel.coefficients
