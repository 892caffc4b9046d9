"""The facades' continuous draws are the libraries' own: for the same underlying 53-bit
doubles, each modelled draw returns the bit-identical float (or int) that the real numpy
Generator / RandomState / np.random function or CPython's random.Random returns.  The
doubles are taken from a twin generator in the same state (numpy's next_double is
Generator.random() / RandomState.random_sample(); CPython's is Random.random()).  Each
planted wrong formula is caught by the same comparison."""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from exactdp.audit import facade_floats as ff
from exactdp.audit.facades import FacadeRefusal, LegacyNumpyFacade, NumpyFacade, RandomFacade

SEEDS = range(40)
TWO53 = 1 << 53


class Replay:
    """An engine whose 53-bit draws are a real generator's doubles (``j = x * 2^53``)."""

    def __init__(self, doubles: Callable[[], float]) -> None:
        self.doubles = doubles
        self.count = 0

    def draw(self, n: int) -> int:
        """``n = 2^53``: the next double; ``n = 2^53 - 1``: the next non-zero double, less
        one (the facade's draw of a double that is redrawn while 0)."""
        assert n in (TWO53, TWO53 - 1)
        while True:
            self.count += 1
            j = Fraction(self.doubles()) * TWO53
            assert j.denominator == 1
            if n == TWO53:
                return int(j)
            if j:
                return int(j) - 1


def _bits(x: Any) -> bytes:
    arr = np.asarray(x)
    if arr.dtype.kind == "f":
        return arr.astype(np.float64).tobytes()
    return struct.pack("<q", int(x)) if arr.ndim == 0 else arr.astype(np.int64).tobytes()


def _mismatches(real: Callable[[Any], Any], model: Callable[[Any], Any],
                make: Callable[[int], tuple[Any, Any]]) -> int:
    """How many seeds give different bits: ``real(gen)`` vs ``model(twin)``."""
    bad = 0
    for seed in SEEDS:
        gen, twin = make(seed)
        bad += _bits(real(gen)) != _bits(model(twin))
    return bad


def _generator(seed: int) -> tuple[Any, Any]:
    g = np.random.Generator(np.random.PCG64(seed))
    return g, NumpyFacade(Replay(np.random.Generator(np.random.PCG64(seed)).random))


def _legacy(seed: int) -> tuple[Any, Any]:
    return (np.random.RandomState(seed),
            LegacyNumpyFacade(Replay(np.random.RandomState(seed).random_sample)))


def _global(seed: int) -> tuple[Any, Any]:
    np.random.seed(seed)
    return np.random, LegacyNumpyFacade(Replay(np.random.RandomState(seed).random_sample))


def _python(seed: int) -> tuple[Any, Any]:
    return random.Random(seed), RandomFacade(Replay(random.Random(seed).random))  # type: ignore[arg-type]


NUMPY_DRAWS: list[tuple[str, Callable[[Any], Any]]] = [
    ("laplace", lambda g: g.laplace(1.5, 2.0)),
    ("laplace size", lambda g: g.laplace(scale=0.5, size=7)),
    ("laplace int args", lambda g: g.laplace(3, 1)),
    ("uniform", lambda g: g.uniform(-1.0, 3.0)),
    ("geometric", lambda g: g.geometric(0.4)),
    ("geometric size", lambda g: g.geometric(0.75, size=(2, 3))),
    ("geometric 1/3", lambda g: g.geometric(1 / 3)),
]
LEGACY_DRAWS: list[tuple[str, Callable[[Any], Any]]] = NUMPY_DRAWS + [
    ("exponential", lambda g: g.exponential(2.5)),
    ("exponential size", lambda g: g.exponential(size=5)),
    ("standard_exponential", lambda g: g.standard_exponential()),
    ("normal", lambda g: [g.normal(1.0, 3.0) for _ in range(5)]),  # the kept second value
    ("normal size", lambda g: g.normal(0.0, 2.0, size=5)),
    ("standard_normal", lambda g: [g.standard_normal() for _ in range(3)]),
    ("random_sample", lambda g: g.random_sample(4)),
]
PYTHON_DRAWS: list[tuple[str, Callable[[Any], Any]]] = [
    ("expovariate", lambda r: [r.expovariate(0.5) for _ in range(3)]),
    ("gauss", lambda r: [r.gauss(1.0, 2.0) for _ in range(5)]),
    ("normalvariate", lambda r: [r.normalvariate(0.0, 1.0) for _ in range(3)]),
    ("uniform", lambda r: r.uniform(2, 5)),
]


@pytest.mark.parametrize(("name", "draw"), NUMPY_DRAWS, ids=[n for n, _ in NUMPY_DRAWS])
def test_generator_draws_are_bit_identical(name: str, draw: Callable[[Any], Any]) -> None:
    assert _mismatches(draw, draw, _generator) == 0


@pytest.mark.parametrize(("name", "draw"), LEGACY_DRAWS, ids=[n for n, _ in LEGACY_DRAWS])
def test_randomstate_and_global_draws_are_bit_identical(name: str,
                                                        draw: Callable[[Any], Any]) -> None:
    assert _mismatches(draw, draw, _legacy) == 0
    assert _mismatches(draw, draw, _global) == 0


@pytest.mark.parametrize(("name", "draw"), PYTHON_DRAWS, ids=[n for n, _ in PYTHON_DRAWS])
def test_python_random_draws_are_bit_identical(name: str, draw: Callable[[Any], Any]) -> None:
    assert _mismatches(draw, draw, _python) == 0


def test_laplace_rejects_a_zero_double_and_draws_again() -> None:
    doubles = iter([0.0, 0.25])
    assert ff.laplace(lambda: next(doubles), 0.0, 1.0) == math.log(0.5)


def test_what_is_not_modelled_is_refused() -> None:
    g = NumpyFacade(Replay(np.random.Generator(np.random.PCG64(0)).random))
    for call in (lambda: g.normal(), lambda: g.exponential(), lambda: g.standard_normal(),
                 lambda: g.geometric(0.1), lambda: g.laplace(scale=np.array([1.0, 2.0]))):
        with pytest.raises(FacadeRefusal, match="black-box"):
            call()


# ----------------------------------------------------------------- planted wrong formulas

def _wrong_laplace(u: Any, loc: Any = 0, scale: Any = 1) -> Any:
    v = u()
    return loc + scale * math.log(v + v) if v < 0.5 else loc - scale * math.log(2.0 - v)


def _wrong_exponential(u: Any, scale: Any = 1) -> Any:
    return scale * -math.log(u() or 1.0)  # log U instead of log(1 - U)


def _wrong_gauss_pair(u: Any) -> tuple[Any, Any]:
    a, b = PLANTED_ORIGINALS["legacy_gauss_pair"](u)
    return b, a  # the two values of the pair swapped


def _wrong_geometric(u: Any, p: Any) -> int:
    q, x, total, prod, v = 1.0 - p, 1, p, p, u()
    while v >= total:  # >= instead of >
        prod *= q
        total += prod
        x += 1
    return x


def _wrong_uniform(u: Any, low: Any = 0, high: Any = 1) -> Any:
    return low + high * u()


PLANTED_ORIGINALS = {"legacy_gauss_pair": ff.legacy_gauss_pair}
PLANTS = [
    ("laplace", _wrong_laplace, lambda g: g.laplace(1.5, 2.0), _legacy),
    ("laplace", _wrong_laplace, lambda g: g.laplace(1.5, 2.0), _generator),
    ("legacy_exponential", _wrong_exponential, lambda g: g.exponential(2.5), _legacy),
    ("legacy_gauss_pair", _wrong_gauss_pair, lambda g: g.normal(1.0, 3.0), _legacy),
    ("uniform_range", _wrong_uniform, lambda g: g.uniform(-1.0, 3.0), _generator),
]


@pytest.mark.parametrize(("name", "wrong", "draw", "make"), PLANTS,
                         ids=[f"{p[0]}-{p[3].__name__}" for p in PLANTS])
def test_a_planted_wrong_formula_is_caught(monkeypatch: pytest.MonkeyPatch, name: str,
                                           wrong: Any, draw: Callable[[Any], Any],
                                           make: Callable[[int], tuple[Any, Any]]) -> None:
    monkeypatch.setattr(ff, name, wrong)
    assert _mismatches(draw, draw, make) > 0


def test_planted_geometric_boundary_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # '>=' instead of '>' differs only where U equals a partial sum, which random seeds
    # never hit: p = 1/2 makes the first partial sum the double 0.5, drawn when j = 2^52;
    # numpy's source (U > sum) gives 1 there.
    assert NumpyFacade(Replay(lambda: 0.5)).geometric(0.5) == 1
    monkeypatch.setattr(ff, "geometric_search", _wrong_geometric)
    assert NumpyFacade(Replay(lambda: 0.5)).geometric(0.5) == 2


def _wrong_geometric_update(u: Any, p: Any) -> int:
    q, x, total, prod, v = 1.0 - p, 1, p, p, u()
    while v > total:
        prod *= q
        total += q  # q added instead of the product
        x += 1
    return x


def test_planted_geometric_update_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    draw = lambda g: g.geometric(0.4, size=20)
    monkeypatch.setattr(ff, "geometric_search", _wrong_geometric_update)
    assert _mismatches(draw, draw, _generator) > 0


# ----------------------------------------------------------------- explored laws

def _rounded_laplace_of(j: int, scale: float = 1.0) -> int:
    """clip(rint(laplace(0, scale)), -2, 2) when numpy's double is j / 2^53 (j >= 1),
    written here from numpy's random_laplace."""
    u = j / TWO53
    value = -scale * math.log(2.0 - u - u) if u >= 0.5 else scale * math.log(u + u)
    return int(np.clip(np.rint(value), -2, 2))


def _first_at_least(k: int, scale: float = 1.0) -> int:
    """The smallest j in [1, 2^53) with _rounded_laplace_of(j) >= k (it is monotone)."""
    lo, hi = 1, TWO53
    while lo < hi:
        mid = (lo + hi) // 2
        if _rounded_laplace_of(mid, scale) >= k:
            hi = mid
        else:
            lo = mid + 1
    return lo


def test_rounded_laplace_noise_has_the_law_of_its_draws() -> None:
    """A count plus rounded, clamped numpy Laplace noise: the audit's exact law is the
    count of 53-bit doubles (0 excluded, as numpy redraws it) giving each value."""
    from audit_targets import realcode_targets as targets

    from exactdp.audit import whitebox_audit
    from exactdp.audit.callforms import call_form
    from exactdp.audit.facades import facade_mechanism

    starts = {k: _first_at_least(k) for k in range(-2, 4)}
    expected = {k: Fraction(starts[k + 1] - starts[k], TWO53 - 1) for k in range(-2, 3)}
    for mech in (facade_mechanism(call_form(targets.noisy_count_rounded, "prng",
                                            {"epsilon": 1}), "numpy"),
                 facade_mechanism(call_form(targets.noisy_count_global, bind={"epsilon": 1},
                                            patching=True), "numpy",
                                  patch_modules=[np.random])):
        report = whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, kind="source",
                                outputs=range(-2, 4))
        assert report.distributions[0] == expected
        assert report.distributions[1] == {k + 1: p for k, p in expected.items()}
        assert report.verdict == "violation"  # the clamp: -2 is impossible from count 1
        assert report.worst is not None and report.worst.ratio is None


def test_statdp_noisy_max_is_refused_not_broken(capsys: pytest.CaptureFixture[str]) -> None:
    """StatDP's noisy max over continuous Laplace noise: the index depends on the exact
    values of several draws at once, whose joint law over 2^53 x 2^53 doubles cannot be
    explored piece by piece: a usage refusal (2) naming black-box, never BROKEN (3)."""
    from tests._cli import run

    rc, out, err = run(capsys, "audit", "audit_targets.realcode_targets:noisy_max", "--kind",
                       "whitebox", "--rng", "numpy", "--rng-arg", "prng", "--bind",
                       "epsilon=1", "--claimed-epsilon", "1", "--inputs",
                       "vectors(2, 0..1, 1, linf)", "--outputs", "0..1", "--quiet")
    assert rc == 2, (out, err)
    assert "black-box" in err and "Traceback" not in err


def test_noisy_max_over_rounded_laplace_noise_is_exact_or_refused() -> None:
    """Two draws whose values matter jointly (the argmax compares them): the first draw's
    pieces depend on the second draw's value, which the continuation probes see only in
    part.  The audit must then refuse, or give the exact law -- the sum over the 5 x 5
    rounded noise values counted from the doubles (ties: index 0) -- never another law."""
    from audit_targets import realcode_targets as targets

    from exactdp.audit import whitebox_audit
    from exactdp.audit.callforms import call_form
    from exactdp.audit.facades import FacadeRefusal, facade_mechanism

    starts = {k: _first_at_least(k, 2.0) for k in range(-2, 4)}
    law = {k: Fraction(starts[k + 1] - starts[k], TWO53 - 1) for k in range(-2, 3)}
    second = sum((law[a] * law[b] for a in law for b in law if b > a), Fraction(0))
    refused = 0  # the search as it stands refuses each of these inputs
    for k in range(4):
        mech = facade_mechanism(call_form(targets.noisy_max_rounded, "prng",
                                          {"epsilon": 1}), "numpy")
        try:
            report = whitebox_audit(mech, inputs=[(k, k), (k + 5, k + 5)],
                                    claimed_epsilon=1, kind="source", outputs=range(2))
        except FacadeRefusal as exc:
            assert "black-box" in str(exc)
            refused += 1
            continue
        for dist in report.distributions.values():
            assert dist == {0: 1 - second, 1: second}


def _first(pred: Callable[[int], bool], lo: int = 0, hi: int = TWO53) -> int:
    """The smallest j in [lo, hi) with pred(j) (pred monotone: False then True), else hi."""
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def test_module_expovariate_and_gauss_are_explored_by_their_effect() -> None:
    """random.expovariate and random.gauss patched at module level: the law is the count of
    53-bit draws, found here by bisection on CPython's formulas."""
    from audit_targets import realcode_targets as targets

    from exactdp.audit import whitebox_audit
    from exactdp.audit.callforms import call_form
    from exactdp.audit.facades import facade_mechanism

    # expovariate(1) = -log(1 - U) < 1  <=>  j below the first j where it is >= 1
    keep = _first(lambda j: -math.log(1.0 - j / TWO53) >= 1.0)
    mech = facade_mechanism(call_form(targets.rr_expovariate, patching=True),
                            patch_modules=[random])
    r = whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, kind="source")
    assert r.distributions[0] == {0: Fraction(keep, TWO53), 1: 1 - Fraction(keep, TWO53)}
    # gauss: z = cos(2 pi U1) * sqrt(-2 log(1 - U2)) < 0 iff cos < 0 and U2 > 0
    two_pi = 2 * math.pi
    a = _first(lambda j: math.cos(j / TWO53 * two_pi) < 0.0)
    b = _first(lambda j: math.cos(j / TWO53 * two_pi) >= 0.0, a)
    assert all(math.cos(j / TWO53 * two_pi) < 0.0 for j in (a, b - 1))
    negative = Fraction(b - a, TWO53) * Fraction(TWO53 - 1, TWO53)
    mech = facade_mechanism(call_form(targets.rr_gauss, patching=True), patch_modules=[random])
    r = whitebox_audit(mech, inputs=range(2), claimed_epsilon=1, kind="source")
    assert r.distributions[0] == {0: negative, 1: 1 - negative}
    assert random.gauss == random._inst.gauss  # type: ignore[attr-defined]  # restored
