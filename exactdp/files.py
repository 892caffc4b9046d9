"""Reading inputs and writing outputs without losing or misreading anything.

Every file exactdp reads or writes goes through this module, so that the rules hold
everywhere:

* **Reads are capped.**  :func:`read_text` reads at most ``max_bytes`` bytes (a symlink to
  ``/dev/zero`` or a 100 GB file is refused with the cap and how to raise it, not read until
  memory runs out), decodes strict UTF-8 (an invalid byte is reported with its byte offset
  and line), and drops one leading byte-order mark.
* **JSON is bounded.**  :func:`parse_json` refuses nesting deeper than ``max_depth`` before
  parsing (no ``RecursionError``), refuses ``NaN``/``Infinity`` and float literals (exactdp
  writes every number as a decimal string), and reports syntax errors by line and column.
* **Writes are atomic and never clobber.**  :class:`OutputPath` is checked *before* any
  randomness is drawn (the directory exists and is writable, the target is not a directory,
  an existing file needs ``force``); :meth:`OutputPath.write` writes a temporary file in the
  same directory, flushes it to disk and renames it over the target with :func:`os.replace`,
  so a full disk or an interrupt leaves the old file intact and no partial file behind.
"""

from __future__ import annotations

import errno
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from exactdp.params import ExactDPError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "InputFileError",
    "OutputFileError",
    "OutputPath",
    "OutputWriteError",
    "parse_json",
    "read_bytes",
    "read_text",
    "recording_writes",
]

#: Default cap on one input file (1 GiB); the command line's ``--max-input-bytes`` raises it.
DEFAULT_MAX_BYTES = 1 << 30
#: Default cap on JSON nesting; exactdp's own files nest at most 4 deep.
DEFAULT_MAX_DEPTH = 64

_CHUNK = 1 << 20


class InputFileError(ExactDPError, ValueError):
    """An input file cannot be read, is too large, is not UTF-8 or is malformed."""


class OutputFileError(ExactDPError, ValueError):
    """An output path cannot be written (checked before any work, or failed while writing)."""


class OutputWriteError(OutputFileError):
    """Writing an output failed after the work was done (a full disk, an I/O error): the
    command line says whether a release was drawn and lost."""


def _name(path: str) -> str:
    return "standard input" if path == "-" else repr(path)


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def read_bytes(path: str, what: str = "input", max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of ``path`` (``"-"``: standard input), at most ``max_bytes`` of them."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or "\x00" in path:
        raise InputFileError(f"{what} {path!r:.60} must be a file name (a str without NUL "
                             f"bytes) or '-' for standard input")
    if path != "-" and os.path.isdir(path):
        raise InputFileError(f"{what} {_name(path)} is a directory, not a file")
    try:
        if path == "-":
            return _read_capped(sys.stdin.buffer, path, what, max_bytes)
        with open(path, "rb") as fh:
            return _read_capped(fh, path, what, max_bytes)
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {_name(path)}: {_why(exc)}") from None


def _read_capped(fh: BinaryIO, path: str, what: str, max_bytes: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = fh.read(min(_CHUNK, max_bytes + 1 - total))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        total += len(chunk)
        if total > max_bytes:
            raise InputFileError(
                f"{what} {_name(path)} is larger than {max_bytes} bytes, the limit on one "
                f"input file; raise it with --max-input-bytes if this file is meant")


def read_text(path: str, what: str = "input", max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The text of ``path`` as strict UTF-8, one leading byte-order mark removed."""
    return decode_utf8(read_bytes(path, what, max_bytes), path, what)


def decode_utf8(data: bytes, path: str, what: str = "input") -> str:
    """Strict UTF-8; an invalid byte is reported with its byte offset and line number."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFileError(
            f"{what} {_name(path)} is not UTF-8: byte {data[exc.start]:#04x} at byte offset "
            f"{exc.start} (line {line}) {exc.reason}") from None
    return text.removeprefix("\ufeff")


# Unrolled ("normal* (special normal*)*"): the same strings as '"(?:[^"\\]|\\.)*"', but
# one regex step per run of ordinary characters instead of one per character (20x faster
# and no backtracking stack growth on a multi-megabyte string).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def _depth(text: str) -> int:
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def _no_float(text: str) -> Any:
    raise ValueError(f"the number {text} is not exact; exactdp writes numbers as strings")


def parse_json(text: str, path: str, what: str = "input",
               max_depth: int = DEFAULT_MAX_DEPTH,
               object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """``json.loads`` with a nesting limit, no floats, no NaN/Infinity, and clear errors;
    ``object_pairs_hook`` as in :func:`json.loads` (an :class:`ExactDPError` it raises
    passes through unchanged)."""
    depth = _depth(text)
    if depth > max_depth:
        raise InputFileError(f"{what} {_name(path)} nests {depth} levels deep; at most "
                             f"{max_depth} are accepted")
    try:
        return json.loads(text, parse_float=_no_float, parse_constant=_no_float,
                          object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{what} {_name(path)} is not valid JSON: {exc.msg} at line "
                             f"{exc.lineno}, column {exc.colno}") from None
    except ExactDPError:
        raise
    except ValueError as exc:
        raise InputFileError(f"{what} {_name(path)}: {exc}") from None
    except RecursionError:  # the depth scan makes this unreachable; kept as a last guard
        raise InputFileError(f"{what} {_name(path)} nests too deeply") from None


def _mode(target: Path) -> int:
    """The permissions a plain ``open(target, "w")`` would give: the existing file's when it
    is replaced, otherwise 0o666 less the umask (``mkstemp`` alone would give 0o600)."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def no_space(directory: Path) -> bool:
    """Whether the file system holding ``directory`` has no free block for us (checked
    before any work: a write there would fail after the work was done)."""
    try:
        vfs = os.statvfs(directory)
    except OSError:
        return False
    free = vfs.f_bfree if os.geteuid() == 0 else vfs.f_bavail
    return vfs.f_blocks > 0 and free == 0


#: The logs of the active :func:`recording_writes` blocks (innermost last).
_WRITE_LOGS: list[list[Path]] = []


@contextmanager
def recording_writes() -> Iterator[list[Path]]:
    """A list that collects, in order, every file an :class:`OutputPath` puts in place
    (renamed over its target) inside the block: a command that stops or fails after some of
    its files were written can then say which, instead of "nothing was written"."""
    log: list[Path] = []
    _WRITE_LOGS.append(log)
    try:
        yield log
    finally:
        for i in range(len(_WRITE_LOGS) - 1, -1, -1):
            if _WRITE_LOGS[i] is log:
                del _WRITE_LOGS[i]
                break


@dataclass(frozen=True)
class OutputPath:
    """A file to be written, checked up front; ``OutputPath.check(path, force)``.

    Check it before drawing any randomness: a release whose output cannot be written must
    not be drawn at all (drawing it again later would spend the privacy budget twice).
    """

    path: Path
    force: bool = False

    @classmethod
    def check(cls, path: str, force: bool = False, what: str = "--output") -> OutputPath:
        if path == "" or path == "-":
            raise OutputFileError(f"{what} {path!r}: give a file name (the JSON goes to "
                                  f"standard output with --json)")
        if "\x00" in path:
            raise OutputFileError(f"{what} {path!r} contains a NUL byte; give a file name")
        if path.endswith(("/", os.sep)) or os.path.basename(path) in (".", ".."):
            # Path() would drop the slash and write a *file* named like the directory.
            raise OutputFileError(f"{what} {path!r} names a directory; give a file name")
        target = Path(path)
        if target.is_dir():
            raise OutputFileError(f"{what} {path!r} is a directory; give a file name")
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.exists():
            raise OutputFileError(f"{what} {path!r}: directory {str(parent)!r} does not exist")
        if not parent.is_dir():
            raise OutputFileError(f"{what} {path!r}: {str(parent)!r} is not a directory")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputFileError(f"{what} {path!r}: directory {str(parent)!r} is not "
                                  f"writable")
        if os.path.lexists(target) and not force:
            raise OutputFileError(f"{what} {path!r} exists; pass --force to replace it "
                                  f"(nothing was written)")
        if os.path.lexists(target) and not target.is_file():
            raise OutputFileError(f"{what} {path!r} exists and is not a regular file")
        if no_space(parent):
            raise OutputFileError(f"{what} {path!r}: no space left on the device of "
                                  f"{str(parent)!r} (nothing was run or drawn)")
        return cls(target, force)

    def write(self, text: str) -> None:
        """Write ``text`` (UTF-8) atomically: temporary file, fsync, rename over the target."""
        self.write_stream([text])

    def write_bytes(self, data: bytes) -> None:
        """Write ``data`` (a picture, say) atomically, as :meth:`write` does text."""
        self.write_stream([data])

    def write_stream(self, pieces: Iterable[str | bytes]) -> None:
        """Write the pieces as they come (memory does not grow with their number), then
        rename atomically; an error or interrupt while producing them leaves no file."""
        parent = self.path.parent if str(self.path.parent) else Path(".")
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp",
                                       dir=parent)
            os.fchmod(fd, _mode(self.path))
            with os.fdopen(fd, "wb") as fh:
                for piece in pieces:
                    fh.write(piece if isinstance(piece, bytes) else piece.encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
            if not self.force and os.path.lexists(self.path):
                raise OutputFileError(f"{self.path} appeared while writing; pass --force to "
                                      f"replace it (nothing was written)")
            os.replace(tmp, self.path)
            tmp = None
            for log in _WRITE_LOGS:
                log.append(self.path)
        except OSError as exc:
            hint = " (the disk is full)" if exc.errno == errno.ENOSPC else ""
            raise OutputWriteError(f"cannot write {str(self.path)!r}: {_why(exc)}{hint}; "
                                  f"any existing file there is unchanged") from None
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
