"""The tutorials' exercises: every solution shown is run (by test_tutorials.py) and checked
by ``exactdp.tutorials.exercises``; here, a wrong solution planted into each exercise must
make its tutorial fail, and the checks must refuse wrong answers on their own.

Every exercise (a ``## Exercise`` heading) needs a planted wrong solution in ``PLANTS``, so
that an exercise whose check accepts anything cannot be added unnoticed.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from exactdp.tutorials import runner
from exactdp.tutorials.exercises import WrongAnswer, check_attack, check_equal, check_function
from exactdp.tutorials.runner import BlockFailed

#: (tutorial, exercise heading, text of the solution, a wrong solution in its place)
PLANTS = [
    ("float-attack-and-fixes", "Exercise: attack the scale-1 Laplace",
     "    return attack(y, 5, 6, mech=laplace_scale_1)",
     "    return 5 if y < 5.5 else 6"),
    ("timing-by-the-clock", "Exercise: the exact best output-only attacker",
     "    low = -(m // 2)   ", "    low = -(m // 2) + 1"),
    ("fastsample-and-mixing", "Exercise: the mixture's law",
     "+ gamma / (n + 1) for z", "+ gamma / n for z"),
    ("lower-bounds", "Exercise: Definition 4.2 by hand",
     "abs(z - c) <= a) < 1 - beta", "abs(z - c) < a) < 1 - beta"),
    ("the-checker-catches-a-slip", "Exercise: three draws",
     "true_11, bv18_11 = Fraction(1, 2), Fraction(21, 32)",
     "true_11, bv18_11 = Fraction(1, 2), Fraction(3, 4)"),
    ("sparse-vectors", "Exercise: the one-cell ratio",
     "    return Fraction(alpha + 1)", "    return Fraction(alpha + 2)"),
    ("projections-li-li", "Exercise: the keep probability",
     "    return Fraction(a**L, a**L + b**L)", "    return Fraction(a**L, a**L + b)"),
    ("convolution-fawaz", "Exercise: delta from the loss law",
     "            total += pr * (1 - R / ratio)", "            total += pr"),
    ("eps-delta-and-the-privacy-loss", "Exercise: delta at a ratio",
     "    return finite + loss.infinite_mass", "    return finite"),
    ("composition", "Exercise: compose two losses by hand",
     "(p_sum + pa * pb, q_sum + qa * qb)", "(p_sum + pa * pb, q_sum + qa * pb)"),
]

_EXERCISE = re.compile(r"^## (Exercise.*)$", re.MULTILINE)


def test_every_exercise_has_a_solution_a_check_and_a_plant() -> None:
    planted = {(name, heading) for name, heading, _, _ in PLANTS}
    for tutorial in runner.tutorials():
        text = tutorial.path.read_text(encoding="utf-8")
        for match in _EXERCISE.finditer(text):
            section = text[match.end():].split("\n## ", 1)[0]
            assert "<details><summary>Solution (click to open)</summary>" in section, (
                tutorial.name, match.group(1))
            assert "from exactdp.tutorials.exercises import check_" in section
            assert (tutorial.name, match.group(1)) in planted, (
                f"add a wrong solution for {tutorial.name}: {match.group(1)} to PLANTS")


@pytest.mark.parametrize(("name", "heading", "right", "wrong"), PLANTS,
                         ids=[p[0] for p in PLANTS])
def test_a_wrong_solution_fails_its_tutorial(name: str, heading: str, right: str, wrong: str,
                                             tmp_path: Path) -> None:
    tutorial = runner.find(name)
    text = tutorial.path.read_text(encoding="utf-8")
    assert f"## {heading}" in text
    assert text.count(right) == 1, f"the solution text {right!r} is not in {name} once"
    planted = runner.parse(text.replace(right, wrong), name, tutorial.path)
    with pytest.raises(BlockFailed, match="WrongAnswer"):
        runner.run(planted, tmp_path)


def test_check_equal_refuses_a_wrong_or_float_answer(capsys: pytest.CaptureFixture[str]) -> None:
    check_equal("x", Fraction(1, 3), Fraction(1, 3))
    assert capsys.readouterr().out == "correct: x = 1/3\n"
    with pytest.raises(WrongAnswer, match="not right"):
        check_equal("x", Fraction(1, 4), Fraction(1, 3))
    with pytest.raises(WrongAnswer, match="exact value"):
        check_equal("x", 0.5, Fraction(1, 2))


def test_check_function_names_the_first_wrong_argument() -> None:
    with pytest.raises(WrongAnswer, match=r"square\(3,\)"):
        check_function("square", lambda x: x * x if x < 3 else 0, lambda x: x * x,
                       [(x,) for x in range(5)])


class _Counter:
    """A source that cycles through 1, 2 (for the secret coin) and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def uniform(self, d: int) -> int:
        self.calls += 1
        return 1 + self.calls % d


def test_check_attack_refuses_an_attack_that_is_sometimes_wrong_or_rarely_sure() -> None:
    def release(c: int, source: _Counter) -> int:
        return c + source.uniform(3) - 2      # c - 1, c or c + 1

    def certain(y: int) -> int | None:       # y = 4 only from 5, y = 7 only from 6
        return 5 if y == 4 else 6 if y == 7 else None

    check_attack(certain, release, (5, 6), _Counter(), trials=60, at_least=Fraction(1, 10))
    with pytest.raises(WrongAnswer, match="when the secret was"):
        check_attack(lambda y: 5 if y <= 5 else 6, release, (5, 6), _Counter(), 60,
                     Fraction(1, 10))
    with pytest.raises(WrongAnswer, match="at least"):
        check_attack(certain, release, (5, 6), _Counter(), 60, Fraction(9, 10))
