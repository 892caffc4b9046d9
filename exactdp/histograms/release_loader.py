"""Loading any release file exactdp writes, for ``exactdp query``: a CompactHistogram release
(:meth:`CompactRelease.from_json <exactdp.histograms.compact.CompactRelease.from_json>`) or the
JSON report of a basic, stability or pure-sparse release
(:func:`~exactdp.histograms.release_file.check_histogram_report`), told apart by its
``format``; both checked (digest) and validated before any query is answered.
"""

from __future__ import annotations

from typing import Any

from exactdp.files import DEFAULT_MAX_BYTES, read_text
from exactdp.histograms.compact import FORMAT, CompactRelease
from exactdp.histograms.release import HISTOGRAM_FORMAT
from exactdp.histograms.release_file import (
    InvalidReleaseError,
    LoadedRelease,
    check_histogram_report,
    check_input,
    parse_release,
)

__all__ = ["load_release", "loaded_from_json"]


def load_release(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> LoadedRelease:
    """Read, check and validate the release file at ``path`` (compact or histogram)."""
    text = read_text(path, "release", max_bytes)
    try:
        return loaded_from_json(parse_release(text, path), path)
    except InvalidReleaseError as exc:
        name = "standard input" if path == "-" else repr(path)
        message = str(exc)
        if name not in message:
            message = f"release {name}: {message}"
        raise InvalidReleaseError(message) from None


def loaded_from_json(obj: dict[str, Any], path: str = "<text>") -> LoadedRelease:
    """A parsed release (compact or histogram report), checked and validated."""
    fmt = obj.get("format")
    if fmt == FORMAT:
        compact = CompactRelease.from_json(obj)
        return LoadedRelease("compact", compact.universe_size, compact.n,
                             check_input(obj, compact.n), compact.evaluate)
    if fmt == HISTOGRAM_FORMAT:
        return check_histogram_report(obj)
    raise InvalidReleaseError(f"release {path!r} has format = {str(fmt)[:40]!r}: expected "
                              f"{FORMAT!r} or {HISTOGRAM_FORMAT!r} (a file written "
                              f"by 'exactdp histogram')")
