"""exactdp.files' JSON nesting count: brackets inside strings never count (the string
pattern is the unrolled form of '"(?:[^"\\\\]|\\\\.)*"'; checked here against that plain form
and against json's own parse)."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from exactdp.files import _STRING, _depth

_PLAIN = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


@given(st.text(alphabet='"\\ab{}[]\n', max_size=30))
def test_unrolled_string_pattern_matches_the_plain_one(text: str) -> None:
    assert _STRING.sub('""', text) == _PLAIN.sub('""', text)


def _nesting(value: object) -> int:
    """Depth of a parsed JSON value, computed from the value (not from the text)."""
    if isinstance(value, dict):
        return 1 + max((_nesting(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_nesting(v) for v in value), default=0)
    return 0


_json = st.recursive(st.text(alphabet='"\\[]{}x', max_size=5) | st.integers(),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(alphabet='"[{x', max_size=3), inner, max_size=3),
                     max_leaves=12)


@given(_json)
def test_depth_counts_only_structural_brackets(value: object) -> None:
    assert _depth(json.dumps(value)) == _nesting(value)


def test_depth_of_a_multi_megabyte_string() -> None:
    """A sketch file's bit string is megabytes long (the per-character pattern took ~1.3 s
    and ~600 MB on one such string; the unrolled one ~0.06 s)."""
    assert _depth(json.dumps({"bits": "x" * 5_000_000 + "[[[{"})) == 1
