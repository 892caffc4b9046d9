"""Samplers and mechanisms that return garbage, raise or misbehave in other ways."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

not_callable = 5


def identity(c: int) -> int:
    return c


def returns_none(c: int) -> None:
    return None


def returns_huge(c: int) -> int:
    return 10**6


def returns_giant(c: int) -> int:
    return 10**100_000


def returns_float(c: int) -> float:
    return 0.5 + c


def returns_nan(c: int) -> float:
    return float("nan")


def returns_list(c: int) -> list[int]:
    return [c]


def returns_bool(c: int) -> bool:
    return c % 2 == 0


def returns_str_sometimes(c: int) -> object:
    return str(c) if c == 3 else c


class _BadHash:
    def __hash__(self) -> int:
        raise RuntimeError("no hash for you")


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


def returns_bad_hash(c: int) -> object:
    return _BadHash()


def returns_bad_repr(c: int) -> object:
    return _BadRepr()


def calls_exit(c: int) -> int:
    sys.exit(0)


def raises_keyboard_interrupt(c: int) -> int:
    raise KeyboardInterrupt


def hangs(c: int) -> int:
    while True:
        pass


class EndlessBatch:
    def __call__(self, c: int) -> int:
        return c

    def batch(self, c: int, k: int) -> Iterator[int]:
        while True:
            yield c


class NoneBatch:
    def __call__(self, c: int) -> int:
        return c

    def batch(self, c: int, k: int) -> Any:
        return None


class RaisingProperty:
    @property
    def outputs(self) -> range:
        raise RuntimeError("outputs cannot be computed")

    def __call__(self, c: int) -> int:
        return c


raising_property = RaisingProperty()


def factory_raises(k: int) -> Any:
    raise ValueError(f"k = {k} is not supported")


def factory_hangs() -> Any:
    while True:
        pass


def factory(k: int) -> Any:
    return lambda c: min(c + k, 8)


def wb_none(c: int, u: int) -> None:
    return None


wb_none.d = 4  # type: ignore[attr-defined]


def wb_float(c: int, u: int) -> float:
    return float(c)


wb_float.d = 4  # type: ignore[attr-defined]


def wb_source_none(c: int, source: Any) -> None:
    source.uniform(2)


def prints(c: int) -> int:
    print("chatter from the audited code")
    return c
