"""Audit targets whose randomness escapes the exploration: each draws a value the audit does
not model (module ``random``, a generator of its own, numpy's globals or an unseeded
``default_rng()``, ``secrets``, ``os.urandom``, ``uuid4``, the clock, a call counter, values fixed
per process or object: ids, address-based and string hashes, process and thread ids, the
interpreter's counters; a random device or ``/proc`` read as a file, ``ssl``'s generator).

``make(route, shape, form)`` builds one: ``shape`` ``"rare"`` returns ``c`` when the escaped
value is below 1/1000 (infinite privacy loss, seen by an audit only on the runs where the
escaped value happens to be small) and otherwise a fair bit drawn from what the audit
passes in; ``"rr"`` is the float randomized response ``c if u < 0.75 else 1 - c`` with
``u`` the escaped value.  ``form``: ``"rng"`` for ``f(c, rng)`` (a facade), ``"source"`` for
``f(c, source)`` (an exactdp RandomSource), ``"bit"`` for a one-argument ``f(c)`` (module
randomness patched in).  (Floats here are the audited code's own.)"""

from __future__ import annotations

import _random
import datetime
import gc
import hashlib
import os
import posix
import random
import resource
import secrets
import ssl
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime as imported_datetime
from random import random as imported_random
from typing import Any

import numpy as np

ROUTES = ("random", "imported", "own", "own_inner", "system", "numpy", "default_rng",
          "secrets", "urandom", "uuid4", "clock", "clock_ns", "counter", "closure_counter",
          "datetime_now", "datetime_imported", "datetime_utcnow", "date_today", "time_ns",
          "monotonic_ns", "process_time", "thread_time", "uuid1", "getrandom",
          "seed_sequence", "seeded_from_clock", "id", "id_function", "hash_object",
          "hash_class", "getpid", "thread_ident", "native_id", "getrusage", "os_times",
          "dev_urandom", "proc_stat", "os_open", "ssl_rand", "gc_count", "allocated_blocks",
          "system_subclass", "tempfile", "hashlib_time", "random_state", "posix_urandom",
          "c_random", "readlink_pid", "repr_address", "id_in_hash")
#: under hash randomization (the default), a string's hash differs between processes
ROUTES += ("hash_str",) if sys.flags.hash_randomization else ()

_OWN = random.Random()
_CALLS = 0


class _Subclass(random.SystemRandom):
    """A SystemRandom subclass with its own bits (from os.urandom)."""

    def getrandbits(self, k: int) -> int:
        return int.from_bytes(os.urandom((k + 7) // 8), "big") >> (-k % 8)


class _ByAddress:
    """Hashed by its address, through a ``__hash__`` of its own."""

    def __hash__(self) -> int:
        return id(self) // 16


def _read_device(path: str, k: int) -> int:
    with open(path, "rb") as f:
        return f.read(k)[0]


def _os_read(path: str) -> int:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 1)[0]
    finally:
        os.close(fd)


def _counter() -> float:
    global _CALLS
    _CALLS += 1
    return 0.0 if _CALLS % 1000 == 0 else 0.5


def _closure_counter() -> Callable[[], float]:
    calls = 0

    def read() -> float:
        nonlocal calls
        calls += 1
        return 0.0 if calls % 1000 == 0 else 0.5
    return read


def escaped(route: str) -> Callable[[], float]:
    """A value in [0, 1) from the escape route ``route``."""
    return {
        "random": lambda: random.random(),
        "imported": lambda: imported_random(),
        "own": lambda: _OWN.random(),
        "own_inner": lambda: random.Random().random(),
        "system": lambda: random.SystemRandom().random(),
        "numpy": lambda: float(np.random.random()),
        "default_rng": lambda: float(np.random.default_rng().random()),
        "secrets": lambda: secrets.randbelow(1 << 53) / (1 << 53),
        "urandom": lambda: int.from_bytes(os.urandom(7), "big") / (1 << 56),
        "uuid4": lambda: (uuid.uuid4().int % (1 << 53)) / (1 << 53),
        "clock": lambda: time.time() % 1,
        "clock_ns": lambda: (time.perf_counter_ns() % 1000) / 1000,
        "counter": _counter,
        "closure_counter": _closure_counter(),
        "datetime_now": lambda: datetime.datetime.now().microsecond / 10**6,
        "datetime_imported": lambda: imported_datetime.now().microsecond / 10**6,
        "datetime_utcnow": lambda: datetime.datetime.utcnow().microsecond / 10**6,  # noqa: DTZ003
        "date_today": lambda: (datetime.date.today().toordinal() % 1000) / 1000,
        "time_ns": lambda: (time.time_ns() % 1000) / 1000,
        "monotonic_ns": lambda: (time.monotonic_ns() % 1000) / 1000,
        "process_time": lambda: time.process_time() % 1,
        "thread_time": lambda: time.thread_time() % 1,
        "uuid1": lambda: (uuid.uuid1().int % 1000) / 1000,
        "getrandom": lambda: int.from_bytes(os.getrandom(7), "big") / (1 << 56),
        "seed_sequence": lambda: (np.random.SeedSequence().entropy % 1000) / 1000,
        "seeded_from_clock": lambda: random.Random(time.time()).random(),
        "id": lambda: (id(object()) // 16 % 1000) / 1000,
        "id_function": lambda: (id(lambda: 0) // 16 % 1000) / 1000,
        "hash_object": lambda: (hash(object()) % 1000) / 1000,
        "hash_class": lambda: (hash(_Subclass) % 1000) / 1000,
        "hash_str": lambda: (hash("escape") % 1000) / 1000,
        "getpid": lambda: (os.getpid() % 1000) / 1000,
        "thread_ident": lambda: (threading.get_ident() // 64 % 1000) / 1000,
        "native_id": lambda: (threading.get_native_id() % 1000) / 1000,
        "getrusage": lambda: resource.getrusage(resource.RUSAGE_SELF).ru_utime % 1,
        "os_times": lambda: os.times().elapsed % 1,
        "dev_urandom": lambda: _read_device("/dev/urandom", 1) / 256,
        "proc_stat": lambda: (_read_device("/proc/self/stat", 1) % 7) / 7,
        "os_open": lambda: _os_read("/dev/urandom") / 256,
        "ssl_rand": lambda: ssl.RAND_bytes(1)[0] / 256,
        "gc_count": lambda: (gc.get_count()[0] % 100) / 100,
        "allocated_blocks": lambda: (sys.getallocatedblocks() % 1000) / 1000,
        "system_subclass": lambda: _Subclass().getrandbits(16) / (1 << 16),
        "tempfile": lambda: (ord(next(tempfile._get_candidate_names())[0]) % 16) / 16,
        "hashlib_time": lambda: hashlib.sha256(str(time.time_ns()).encode()).digest()[0] / 256,
        "random_state": lambda: float(np.random.RandomState().random_sample()),
        "posix_urandom": lambda: posix.urandom(1)[0] / 256,
        "c_random": lambda: _random.Random().random(),
        "readlink_pid": lambda: (int(os.readlink("/proc/self")) % 1000) / 1000,
        "repr_address": lambda: (int(repr(_OWN)[-5:-1], 16) % 1000) / 1000,
        "id_in_hash": lambda: (hash(_ByAddress()) % 1000) / 1000,
    }[route]


def make(route: str, shape: str = "rare", form: str = "rng") -> Callable[..., Any]:
    u = escaped(route)

    def bit_rng(rng: Any) -> int:
        return int(rng.randrange(2))

    def bit_source(source: Any) -> int:
        return int(source.uniform(2)) - 1

    def bit_module() -> int:
        return random.randrange(2)

    if form == "bit":
        def one(c: int) -> int:
            if shape == "rr":
                return c if u() < 0.75 else 1 - c
            return c if u() < 0.001 else bit_module()
        return one
    rest = bit_rng if form == "rng" else bit_source

    def f(c: int, rng: Any) -> int:
        if shape == "rr":
            return c if u() < 0.75 else 1 - c
        return c if u() < 0.001 else rest(rng)
    f.__qualname__ = f"{route}_{shape}_{form}"
    return f


def hidden(inner: Callable[[int, Any], Any], route: str, p: float) -> Callable[[int, Any], Any]:
    """``inner`` with a hidden escape: the escaped value is read on every call, and below
    ``p`` the output is replaced by the input."""
    u = escaped(route)

    def f(c: int, rng: Any) -> Any:
        out = inner(c, rng)
        return c if u() < p else out
    return f
