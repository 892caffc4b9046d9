"""Generator methods and helpers the facades do not model are usage refusals (audit
black-box), never a broken mechanism; ``random.choices`` is patched with ``random``."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import types
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.audit import facades, whitebox_audit
from exactdp.audit.facade_choices import choose, prepared, threshold
from exactdp.audit.facade_numpy import NumpyFacade
from exactdp.audit.facades import FacadeRefusal, facade_mechanism
from exactdp.audit.log_clock import private_log_time

np = pytest.importorskip("numpy")  # the [test] extra has no numpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rr_binomial(bit: int, rng: Any) -> int:
    return bit if rng.binomial(1, 0.75) else 1 - bit


def rr_module_binomial(bit: int, rng: Any) -> int:
    return bit if np.random.binomial(1, 0.75) else 1 - bit


def audit(f: Any, rng: str, **kw: Any) -> Any:
    return whitebox_audit(facade_mechanism(f, rng, **kw), inputs=range(2),
                          claimed_epsilon="ln 3", kind="source", hash_seeds=0)


@pytest.mark.parametrize("rng", ["numpy", "numpy-legacy"])
def test_an_unmodelled_generator_method_is_refused(rng: str) -> None:
    with pytest.raises(FacadeRefusal, match=r"binomial.*black-box"):
        audit(rr_binomial, rng)
    with pytest.raises(FacadeRefusal, match=r"permutation.*black-box"):
        audit(lambda bit, g: int(g.permutation(2)[0]) ^ bit, rng)


def test_the_module_function_is_refused_too() -> None:
    original = np.random.binomial
    with pytest.raises(FacadeRefusal, match=r"binomial.*black-box"):
        audit(rr_module_binomial, "numpy-legacy", patch_modules=[np.random])
    assert np.random.binomial is original


def test_without_the_refusal_the_mechanism_was_broken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The planted gap: no refusal for an unmodelled method -> AttributeError, BROKEN."""
    monkeypatch.delattr(NumpyFacade, "__getattr__")
    assert audit(rr_binomial, "numpy").verdict == "broken"


def test_a_missing_private_or_unknown_attribute_is_still_an_attribute_error() -> None:
    g = NumpyFacade.__new__(NumpyFacade)
    assert not hasattr(g, "no_such_method") and not hasattr(g, "_private")
    assert callable(g.binomial) and not hasattr(g, "get_state")


def choices_weighted(bit: int) -> int:
    return random.choices([bit, 1 - bit], weights=[3, 1])[0]


def test_random_choices_is_patched_like_the_instance_method(
        monkeypatch: pytest.MonkeyPatch) -> None:
    module = audit(lambda bit, g: choices_weighted(bit), "random", patch_modules=[random])
    method = audit(lambda bit, g: g.choices([bit, 1 - bit], weights=[3, 1])[0], "random")
    for report in (module, method):
        assert report.verdict == "pass"
        assert report.worst is not None and report.worst.ratio == 3
    planted = dict(facades.MODULE_FUNCTIONS)  # the gap: choices not patched -> an escape
    planted["random"] = tuple(f for f in planted["random"] if f != "choices")
    monkeypatch.setattr(facades, "MODULE_FUNCTIONS", planted)
    escaped = audit(lambda bit, g: choices_weighted(bit), "random", patch_modules=[random])
    assert escaped.verdict == "broken" and escaped.findings[0].kind == "escaped"


def seeds_a_generator(bit: int, random_state: Any = None) -> int:
    rng = np.random.default_rng(random_state)
    return bit if rng.random() < 0.75 else 1 - bit


def checks_random_state(bit: int, seed: Any = None) -> int:
    """sklearn's check_random_state, as it reads: real generators only."""
    if not isinstance(seed, (np.random.RandomState, np.random.Generator)):
        raise ValueError(  # noqa: TRY004 - as sklearn raises it
            f"{seed!r} cannot be used to seed a numpy.random.RandomState instance")
    return bit


def test_a_facade_handed_to_a_seeding_helper_is_refused() -> None:
    with pytest.raises(FacadeRefusal, match="takes only a real one") as info:
        audit(seeds_a_generator, "numpy")
    assert " at 0x" not in str(info.value)  # no address: the same text on every run
    with pytest.raises(FacadeRefusal, match="numpy RandomState"):
        audit(checks_random_state, "numpy-legacy")
    other = audit(lambda bit, g: int("x") if g.random() < 0.5 else bit, "numpy")
    assert other.verdict == "broken"  # an error not naming the facade: the code's own


def test_a_half_imported_logging_is_not_the_log_record_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """logging's module body reads the clock before LogRecord exists: that read is an
    escape, not an AttributeError out of the guard."""
    monkeypatch.setitem(sys.modules, "logging", types.ModuleType("logging"))
    assert private_log_time(sys._getframe()) is False


def test_importing_logging_inside_the_mechanism_is_a_clock_escape(tmp_path: Any) -> None:
    (tmp_path / "lazy_logging.py").write_text(
        "def rr(bit, rng):\n"
        "    import logging\n"
        "    logging.getLogger('x').debug('draw')\n"
        "    return bit if rng.random() < 0.75 else 1 - bit\n")
    done = subprocess.run(
        [sys.executable, "-m", "exactdp.cli", "audit", "lazy_logging:rr", "--kind",
         "whitebox", "--rng", "random", "--claimed-epsilon", "ln 3", "--inputs", "0..1"],
        check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), ROOT])})
    assert done.returncode == 3, done.stderr
    assert "clock read" in done.stdout and "AttributeError" not in done.stdout


class _Fixed(random.Random):
    """CPython's Random whose random() returns the given double."""

    def __init__(self, u: float) -> None:
        super().__init__(0)
        self.u = u

    def random(self) -> float:
        return self.u


_WEIGHTS = [None, [3, 1], [1, 2, 3.3], [0.1, 0.2, 0.7], [Fraction(1, 3), 2, Fraction(5, 7)],
            [0, 5, 0, 1e-300, 2]]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(_WEIGHTS), st.integers(1, 7), st.integers(0, 2**53 - 1),
       st.integers(-2, 2))
def test_choices_takes_cpythons_index_at_every_double(weights: Any, n: int, j: int,
                                                      shift: int) -> None:
    """The index equals CPython's for doubles at and around every threshold and at random
    doubles (the planted off-by-one below fails this comparison)."""
    population = list(range(len(weights) if weights is not None else n))
    cum, total = prepared(len(population), weights, None, 1)
    points = [j] + [int(math.ldexp(threshold(total, w), 53)) + shift
                    for w in (cum if cum is not None else range(1, n + 1))]
    for b in points:
        if 0 <= b < 2**53:
            u = math.ldexp(b, -53)
            assert choose(u, population, cum, total) == _Fixed(u).choices(population, weights)[0]


def test_choices_compares_as_bisect_does_even_with_nan() -> None:
    cum = [float("nan"), 1, 2]
    for j in (0, 2**52, 2**53 - 1):
        u = math.ldexp(j, -53)
        expected = _Fixed(u).choices([0, 1, 2], cum_weights=cum)[0]
        assert choose(u, [0, 1, 2], *prepared(3, None, cum, 1)) == expected


def test_choices_thresholds_off_by_one_are_caught() -> None:
    weights = [1, 2, 3.3]
    cum, total = prepared(3, weights, None, 1)
    b = int(math.ldexp(threshold(total, cum[0]), 53))
    u = math.ldexp(b - 1, -53)  # the last double below the first threshold: index 0
    assert _Fixed(u).choices([0, 1, 2], weights)[0] == 0 == choose(u, [0, 1, 2], cum, total)
    assert choose(math.ldexp(b - 2, -53), [0, 1, 2], cum, total) == 0  # planted b - 1: wrong
    assert _Fixed(math.ldexp(b, -53)).choices([0, 1, 2], weights)[0] == 1  # b itself: 1


def test_random_choices_is_exact_and_passes() -> None:
    """Weighted RR by random.choices: the exact law (3/4, 1/4), PASS at ln 3, FAIL at ln 2."""
    report = audit(lambda bit, g: choices_weighted(bit), "random", patch_modules=[random])
    assert report.verdict == "pass" and report.distributions[0] == {
        0: Fraction(3, 4), 1: Fraction(1, 4)}
    tight = whitebox_audit(facade_mechanism(lambda bit, g: g.choices([bit, 1 - bit], [3, 1])[0],
                                            "random"), inputs=range(2), claimed_epsilon="ln 2",
                           kind="source", hash_seeds=0)
    assert tight.verdict == "violation"
    zero = audit(lambda bit, g: g.choices([0, 1], [0, 0])[0], "random")  # CPython's error
    assert zero.verdict == "broken" and "Total of weights" in zero.findings[0].message


@pytest.mark.parametrize(("real", "legacy"), [(np.random.Generator, False),
                                              (np.random.RandomState, True)])
def test_every_numpy_draw_is_modelled_or_refused(real: type, legacy: bool) -> None:
    from exactdp.audit.facade_numpy import LegacyNumpyFacade

    facade = (LegacyNumpyFacade if legacy else NumpyFacade).__new__(
        LegacyNumpyFacade if legacy else NumpyFacade)
    state = {"seed", "get_state", "set_state", "spawn", "bit_generator"}
    for name in dir(real):
        if not name.startswith("_") and name not in state and callable(getattr(real, name)):
            assert callable(getattr(facade, name)), name  # modelled, or a refusing callable
