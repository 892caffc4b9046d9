"""Audit targets for the processor-time limit (``--max-seconds``): code that waits (wall
time, no processor time) and code that computes and swallows every exception."""

from __future__ import annotations

import random
import time


def rr_waits(c):
    """Randomized response at ln 3 on the parity of ``c`` that waits 0.03 s first, the
    same on every input."""
    time.sleep(0.03)
    return c % 2 if random.random() < 0.75 else 1 - c % 2


def rr_busy_swallowing(c):
    """Randomized response at ln 3 on the parity of ``c`` after some arithmetic that catches anything
    raised in it (``except BaseException``) and then returns 0."""
    keep = random.random() < 0.75
    try:
        total = 0
        for i in range(1_000_000):
            total += i
    except BaseException:  # noqa: BLE001 - planted: the code swallows whatever interrupts it
        return 0
    return c % 2 if keep else 1 - c % 2
