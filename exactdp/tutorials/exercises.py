"""Checks for the tutorials' exercises: each computes the right answer from exactdp itself.

A tutorial poses an exercise, shows a solution in a ``Solution`` box, and calls one of these
checks on it; the check prints ``correct: ...`` or raises :class:`WrongAnswer` saying what is
wrong (so a wrong solution makes the tutorial, and the test that runs it, fail).  The checks
never hold the answer as a typed number: they compute it from the implementation (an exact
distribution, a threshold search, an exhaustive enumeration), so a reader who changes the
exercise's parameters gets a check that still means something.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

__all__ = ["WrongAnswer", "check_attack", "check_equal", "check_function"]


class WrongAnswer(AssertionError):
    """An exercise's answer is wrong; the message says how."""


def check_equal(what: str, answer: object, expected: object) -> None:
    """``answer == expected`` (both computed, the expected value from exactdp)."""
    if isinstance(answer, float) or isinstance(expected, float):
        raise WrongAnswer(f"{what}: give an exact value (int or Fraction), not the float "
                          f"{answer!r}")
    if answer != expected:
        raise WrongAnswer(f"{what}: your answer {answer!r} is not right; try again "
                          f"(the check computes the answer from exactdp)")
    print(f"correct: {what} = {answer}")


def check_function(what: str, answer: Callable[..., Any], expected: Callable[..., Any],
                   arguments: Iterable[tuple[Any, ...]]) -> None:
    """``answer(*a) == expected(*a)`` for every ``a`` in ``arguments``."""
    count = 0
    for args in arguments:
        got, want = answer(*args), expected(*args)
        if isinstance(got, float):
            raise WrongAnswer(f"{what}{args}: give an exact value (int or Fraction), not the "
                              f"float {got!r}")
        if got != want:
            raise WrongAnswer(f"{what}{args}: your answer {got!r} is not right "
                              f"(the check computes it from exactdp)")
        count += 1
    print(f"correct: {what} on all {count} arguments checked")


def check_attack(attack: Callable[[Any], Any], release: Callable[[Any, Any], Any],
                 secrets: tuple[Any, Any], source: Any, trials: int,
                 at_least: Fraction) -> None:
    """An attacker that sees ``release(secret, source)`` and names the secret (or says None).

    The check draws the secret with a fair coin ``trials`` times; the attacker must never
    name the wrong secret (an attack on privacy that is sometimes wrong proves nothing
    about one release) and must name it in at least the fraction ``at_least`` of trials.
    """
    right = 0
    for _ in range(trials):
        secret = secrets[source.uniform(2) - 1]
        guess = attack(release(secret, source))
        if guess is None:
            continue
        if guess != secret:
            raise WrongAnswer(f"the attack named {guess!r} when the secret was {secret!r}")
        right += 1
    if right < at_least * trials:
        raise WrongAnswer(f"the attack named the secret in {right} of {trials} trials; "
                          f"at least {at_least} of them are possible")
    print(f"correct: never wrong, and the secret named in at least {at_least} of {trials} "
          f"trials")

