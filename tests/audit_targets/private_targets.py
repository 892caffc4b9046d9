"""Private mechanisms that log, memoise or seed a generator with a constant (allowed by
the escape guards), and their escaping twins (stopped)."""

from __future__ import annotations

import io
import logging
import random
import time
from typing import Any

QUIET = logging.getLogger("exactdp-test-private")
QUIET.propagate = False  # only the handlers below (not a test runner's)
QUIET_HANDLER = logging.StreamHandler(io.StringIO())
QUIET.addHandler(QUIET_HANDLER)
QUIET.setLevel(logging.INFO)

TIMED_TEXT = io.StringIO()
TIMED = logging.getLogger("exactdp-test-timed")
TIMED.propagate = False
_timed = logging.StreamHandler(TIMED_TEXT)
_timed.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
TIMED.addHandler(_timed)
TIMED_HANDLER = _timed
TIMED.setLevel(logging.INFO)


class Keeper(logging.Handler):
    """A handler of the user's that keeps each record (and so its time)."""

    def __init__(self) -> None:
        super().__init__()
        self.last: Any = None

    def emit(self, record: logging.LogRecord) -> None:
        self.last = record


KEPT = Keeper()
HANDED = logging.getLogger("exactdp-test-handed")
HANDED.propagate = False
HANDED.addHandler(KEPT)
HANDED.setLevel(logging.INFO)


def _rr(c: int, rng: Any) -> int:
    return c if rng.randrange(4) != 0 else 1 - c  # ratio 3


def logged(c: int, rng: Any) -> int:
    QUIET.info("input %s", c)  # a record with a timestamp nobody reads back
    return _rr(c, rng)


def logged_time_read(c: int, rng: Any) -> int:
    TIMED.info("input %s", c)  # the time is written to a text the code reads
    return c if TIMED_TEXT.getvalue()[-2:-1] == "7" else _rr(c, rng)


def logged_record_read(c: int, rng: Any) -> int:
    HANDED.info("input %s", c)  # a handler of the code's keeps the record
    return c if int(KEPT.last.created * 1000) % 7 == 0 else _rr(c, rng)


_MEMO: dict[int, int] = {}


def memoised(c: int, rng: Any) -> int:
    if c not in _MEMO:
        _MEMO[c] = 1 - c  # a deterministic cache of a function of the input
    flip = _MEMO[c]
    return c if rng.randrange(4) != 0 else flip


_BY_DRAW: dict[int, bool] = {}


def memoised_by_draw(c: int, rng: Any) -> int:
    u = rng.randrange(4)
    if u not in _BY_DRAW:  # first filled on a path other than the input's first, by a call:
        _BY_DRAW[u] = min((u, 3)) != 0  # the cold run counts one more operation (the call)
    return c if _BY_DRAW[u] else 1 - c


_GROWING: dict[int, int] = {}


def growing(c: int, rng: Any) -> int:
    _GROWING[len(_GROWING)] = c  # one entry per call: a counter
    return c if len(_GROWING) % 1000 == 0 else _rr(c, rng)


_SEEN: dict[int, bool] = {}


def seen_before(c: int, rng: Any) -> int:
    first = c not in _SEEN  # the cache changes the output
    _SEEN[c] = True
    return c if first else _rr(c, rng)


def constant_seed(c: int, rng: Any) -> int:
    own = random.Random(42)  # a constant seed, made inside the call
    shift = own.randrange(4)
    return c if (rng.randrange(4) + shift) % 4 != 0 else 1 - c


def clock_seed(c: int, rng: Any) -> int:
    own = random.Random(time.time_ns())
    return c if own.random() < 0.001 else _rr(c, rng)


def input_seed(c: int, rng: Any) -> int:
    own = random.Random(c)  # the seed follows the input
    return c if own.random() < 0.001 else _rr(c, rng)


_KEPT_RNG = random.Random(42)


def kept_seeded(c: int, rng: Any) -> int:
    return c if _KEPT_RNG.random() < 0.001 else _rr(c, rng)  # seeded once, drawn across calls


def constant_seed_source(c: int, source: Any) -> int:
    """:func:`constant_seed` drawing from an exactdp source (``exactdp.testing``)."""
    shift = random.Random(42).randrange(4)
    return c if (source.uniform(4) - 1 + shift) % 4 != 0 else 1 - c


def clock_seed_source(c: int, source: Any) -> int:
    own = random.Random(time.time_ns())
    return c if own.random() < 0.001 else (c if source.uniform(4) != 1 else 1 - c)


_ORDER: dict[int, int] = {}


def first_input_leaks(c: int, rng: Any) -> int:
    """A memo of the order inputs came in: the first input of a process is released."""
    _ORDER.setdefault(c, len(_ORDER))
    return c if _ORDER[c] == 0 else _rr(c, rng)
