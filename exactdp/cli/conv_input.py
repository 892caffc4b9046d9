"""What ``exactdp convolve`` and ``exactdp check convolution`` read: the public filter ``h``, the
public domain of the private vector ``x``, and the file holding ``x``.

* ``--filter H``: comma-separated exact numbers (``1,1,0,0``, ``1/2,1/4``, ``0.5,1e-1``), or
  ``@FILE`` naming a file of such numbers separated by commas, spaces or line ends (``#`` starts a
  comment line).  Its length is the length ``N`` of the convolution.
* ``--domain``: ``histograms:n=N`` (``x >= 0`` integers with ``||x||_1 <= n``: a histogram of at
  most ``n`` events) or ``box:m=M`` (every ``x_i`` in ``[0, m]``).  The domain is public: the noise
  is clamped to the range of each transformed row over it, so it must hold for every input.
* ``FILE`` (the private ``x``): one non-negative integer per line, plain ASCII decimal (``0``,
  ``17``; no sign, exponent or leading zeros), ``N`` lines; blank lines and lines starting with
  ``#`` are skipped; a final newline is optional, CRLF line ends are fine.

Every violation is a one-line error naming the file and line (nothing is drawn before the whole
input has been read and checked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from exactdp.files import InputFileError, read_text
from exactdp.params import DomainError, ExactDPError, ParameterError, positive_int, to_fraction

if TYPE_CHECKING:  # the library loads only when a convolution command runs
    from exactdp.convolution.domain import Domain

__all__ = ["DomainSpec", "parse_domain", "parse_filter", "read_vector"]

_PLAIN = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_DOMAIN = re.compile(r"(histograms):n=(\S+)|(box):m=(\S+)", re.ASCII)
#: Refuse a filter or input with more entries than this (2^24: 16 million).
MAX_LENGTH = 2**24
_MAX_FIELD = 200


def _show(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


@dataclass(frozen=True)
class DomainSpec:
    """``histograms`` (``||x||_1 <= bound``, ``x >= 0``) or ``box`` (``0 <= x_i <= bound``)."""

    kind: str
    bound: int

    def describe(self) -> str:
        if self.kind == "histograms":
            return (f"histograms:n={self.bound} (non-negative integer vectors with "
                    f"||x||_1 <= {self.bound})")
        return f"box:m={self.bound} (integer vectors with every entry in [0, {self.bound}])"

    def build(self, length: int) -> Domain:
        """The library's ``Domain`` of this kind for vectors of ``length`` entries."""
        from exactdp.convolution.domain import Domain

        if self.kind == "histograms":
            return Domain.histograms(length, self.bound)
        return Domain.box(length, self.bound)

    def contains(self, x: list[int]) -> str | None:
        """None if ``x`` lies in the domain, else why not (one phrase)."""
        if self.kind == "histograms":
            total = sum(x)
            if total > self.bound:
                return f"||x||_1 = {total} exceeds n = {self.bound}"
            return None
        for i, v in enumerate(x):
            if v > self.bound:
                return f"entry {i} is {v} > m = {self.bound}"
        return None


def parse_domain(text: str) -> DomainSpec:
    match = _DOMAIN.fullmatch(text.strip())
    if not match:
        raise ParameterError(f"--domain = {_show(text)} must be 'histograms:n=N' (x >= 0 with "
                             f"||x||_1 <= N) or 'box:m=M' (0 <= x_i <= M)")
    if match.group(1):
        return DomainSpec("histograms", positive_int(match.group(2), "--domain histograms:n"))
    return DomainSpec("box", positive_int(match.group(4), "--domain box:m"))


def parse_filter(text: str, max_bytes: int) -> tuple[Fraction, ...]:
    """The public filter ``h`` of ``--filter`` (a list, or ``@FILE``), as exact Fractions."""
    if text.startswith("@"):
        path = text[1:]
        body = read_text(path, "--filter file", max_bytes)
        fields: list[tuple[str, str]] = []
        for number, raw in enumerate(body.split("\n"), 1):
            line = raw.removesuffix("\r")
            if line.strip().startswith("#"):
                continue
            for field in re.split(r"[,\s]+", line.strip()):
                if field:
                    fields.append((field, f"--filter file {path!r} line {number}"))
        if not fields:
            raise InputFileError(f"--filter file {path!r} holds no numbers")
    else:
        parts = text.split(",")
        fields = [(p.strip(), f"--filter entry {i}") for i, p in enumerate(parts)]
        for field, where in fields:
            if not field:
                raise ParameterError(f"{where} is empty in --filter = {_show(text)} (give "
                                     f"comma-separated numbers such as '1,1,0,0')")
    if len(fields) > MAX_LENGTH:
        raise ParameterError(f"--filter has {len(fields)} entries, more than {MAX_LENGTH}")
    out = []
    for field, where in fields:
        if len(field) > _MAX_FIELD:
            raise ParameterError(f"{where} has {len(field)} characters; an entry this long "
                                 f"cannot be meant")
        try:
            out.append(to_fraction(field, where))
        except ExactDPError as exc:
            raise ParameterError(str(exc)) from None
    return tuple(out)


def read_vector(path: str, max_bytes: int) -> list[int]:
    """The private ``x``: one plain non-negative decimal integer per line (see module doc)."""
    name = "standard input" if path == "-" else repr(path)
    text = read_text(path, "input", max_bytes)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    x: list[int] = []
    for number, raw in enumerate(lines, 1):
        here = f"input {name} line {number}"
        line = raw.removesuffix("\r")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if len(stripped) > _MAX_FIELD:
            raise InputFileError(f"{here} has {len(stripped)} characters; a count this long "
                                 f"cannot be meant")
        if not _PLAIN.fullmatch(stripped):
            if stripped.startswith("-") and _PLAIN.fullmatch(stripped[1:]):
                raise DomainError(f"{here}: {_show(stripped)} is negative; entries are "
                                  f"counts >= 0")
            raise InputFileError(f"{here} = {_show(stripped)} is not a plain non-negative "
                                 f"decimal integer (ASCII digits, no sign, exponent, "
                                 f"fraction or leading zeros)")
        x.append(int(stripped))
        if len(x) > MAX_LENGTH:
            raise InputFileError(f"input {name} has more than {MAX_LENGTH} entries")
    if not x:
        raise InputFileError(f"input {name} holds no entries (one non-negative integer per "
                             f"line)")
    return x
