"""Planted single-point bugs in the checker: the independent properties must fail on each.

Each mutant is the kind of change a mutation tool makes (drop a direction, off-by-one in a
range, ``<`` for ``<=``, ``min`` for ``max``, skip the last input, a wrong branch weight, an
upper bound rounded down).  :func:`planted` copies one function's source, replaces one
snippet (which must occur exactly once, so a refactor of the checker shows up here as a
failing test rather than a silently vacuous one), compiles the copy in the function's own
module namespace and swaps it in for the duration of the test.  The test then runs the
``prop_*`` properties of ``proofs/balcer_vadhan/_checker_props.py`` that the mutant targets and
asserts that each of them fails (an ``AssertionError`` or any other exception: a property
that passes on the mutant means the bug would go unseen).

Mutants deliberately absent, because they change no behaviour the specification fixes
(equivalent mutants):

* ``worst_ratio_screened``: ``rn * bd > bn * rd`` to ``>=`` (``r > best ratio``) -- another witness of the same
  worst ratio; ``exact_accuracy``: ``a > best_a`` to ``a >= best_a`` -- another count that
  needs the same ``a`` (the properties accept any true witness);
* ``hockey_stick`` over ``p``'s outcomes only: outcomes of ``q`` alone add ``max(0, -rQ) = 0``;
* the short-bound screen of ``worst_ratio_screened`` keeping more outcomes than it must (a
  weaker lower bound, a larger upper bound): the exact comparisons that follow decide the
  same.  Its mutants that keep too few, and the exact stage's ``min`` for ``max`` (the
  screen alone leaves near-ties to it), are caught in ``test_ratio_bounds.py`` on laws
  with ties and near-ties, against the direct computation;
* ``check_strict_time`` without ``d`` in its explicit draw list: ``F_c(n) = d`` is always
  among the thresholds added next to it;
* ``ln_interval`` with ``y <= 1`` for ``y < 1``: a power of two then reduces to ``y = 2``,
  whose ``s = 1/3`` the atanh series still handles;
* ``thresholds`` without its final ``T_n == d`` test: a search that ends below ``d`` has
  seen an output above ``n``, which the interval check refuses.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import pytest

from exactdp import certified, checker, explore, ratio_bounds, strict_time, trace
from exactdp.proofs.balcer_vadhan import _checker_props as props


@contextmanager
def planted(owner: ModuleType | type, name: str, old: str, new: str) -> Iterator[None]:
    """Replace ``owner.name`` by a copy of its source with ``old`` replaced by ``new``."""
    original = owner.__dict__[name]
    module = owner if isinstance(owner, ModuleType) else sys.modules[owner.__module__]
    source = textwrap.dedent(inspect.getsource(original))
    assert source.count(old) == 1, f"mutation site {old!r} not found exactly once in {name}"
    namespace = dict(module.__dict__)
    code = compile("from __future__ import annotations\n" + source.replace(old, new),
                   f"<mutant of {module.__name__}.{name}>", "exec")
    exec(code, namespace)  # noqa: S102 -- the planted mutant, compiled from our own source
    setattr(owner, name, namespace[name])
    certified.clear_caches()  # its memo tables must neither hide the mutant nor keep its values
    try:
        yield
    finally:
        setattr(owner, name, original)
        certified.clear_caches()


ES = explore.ExploringSource

#: (id, owner, function, old, new, the properties that must fail)
MUTANTS: list[tuple[str, Any, str, str, str, list[Callable[[], None]]]] = [
    # --- neighbour ratios
    ("ratio-drop-reverse-direction", checker, "worst_neighbour_ratio",
     "        pairs.append((c + 1, dists[c + 1], c, dists[c]))\n", "", [props.prop_ratio]),
    ("ratio-skip-last-pair", checker, "worst_neighbour_ratio",
     "range(len(dists) - 1)", "range(len(dists) - 2)", [props.prop_ratio]),
    ("ratio-skip-first-pair", checker, "worst_neighbour_ratio",
     "range(len(dists) - 1)", "range(1, len(dists) - 1)", [props.prop_ratio]),
    ("ratio-screen-inverted", ratio_bounds, "worst_ratio_screened",
     "if _above(best_lo, best_s, hi, s):\n            continue",
     "if not _above(best_lo, best_s, hi, s):\n            continue", [props.prop_ratio]),
    ("ratio-ignore-infinite-loss", ratio_bounds, "worst_ratio_screened",
     "return None, a, b, o, pa[o], pb.get(o, Fraction(0))", "continue", [props.prop_ratio]),
    ("ratio-zero-over-zero-counted", ratio_bounds.LawBounds, "__init__", "if n > 0:",
     "if n >= 0:", [props.prop_ratio]),
    ("ratio-inverted", ratio_bounds, "worst_ratio_screened",
     "rn, rd = xn * yd, xd * yn", "rn, rd = xd * yn, xn * yd", [props.prop_ratio]),
    ("ratio-screen-keeps-nothing", ratio_bounds, "worst_ratio_screened",
     "kept.append((i, o, hi, s))", "pass", [props.prop_ratio]),
    # --- certify_ratio and the certified bounds on e**eps
    ("certify-infinite-passes", checker, "certify_ratio",
     'return False, f"infinite ratio', 'return True, f"infinite ratio', [props.prop_certify]),
    ("certify-against-upper-bound", certified, "exp_lower_bound_at_least",
     "if r <= box.lo:", "if r <= box.hi:", [props.prop_certified]),
    ("certify-half-epsilon", checker, "certify_ratio",
     "box = exp_interval(eps, bits)", "box = exp_interval(eps / 2, bits)",
     [props.prop_certify]),
    ("certify-le-for-lt", checker, "certify_ratio", "if worst.ratio <= box.lo:",
     "if worst.ratio < box.lo:", [props.prop_certify]),
    ("certify-against-upper-bound-here", checker, "certify_ratio", "if worst.ratio <= box.lo:",
     "if worst.ratio <= box.hi:", [props.prop_certify]),
    ("exp-upper-bound-rounded-down", certified, "_scaled_out",
     "hi_n = -((-hi_num << bits) // hi_den)",
     "hi_n = (hi_num << bits) // hi_den", [props.prop_certified]),
    ("exp-lower-bound-rounded-up", certified, "_scaled_out",
     "lo_n = (lo_num << bits) // lo_den",
     "lo_n = -((-lo_num << bits) // lo_den)", [props.prop_certified]),
    ("exp-squaring-upper-rounded-down", certified, "_exp_pos",
     "-((-hi_n * hi_n) >> work)", "(hi_n * hi_n) >> work", [props.prop_certified]),
    ("atanh-tail-dropped", certified, "_atanh_n",
     "s * k * d2 + power * m, den * k * d2", "s, den", [props.prop_certified]),
    ("exp-negative-argument-one-sided", certified, "exp_interval",
     "return Interval(1 / inv.hi, 1 / inv.lo)", "return Interval(1 / inv.hi, 1 / inv.hi)",
     [props.prop_certified]),
    ("exp-tail-without-geometric-factor", certified, "_exp_pos",
     "tail_den = den * (i + 1) * (big_q * (i + 2) - p)",
     "tail_den = den * (i + 1) * big_q * (i + 2)",
     [props.prop_certified]),
    ("compare-exp-sign-flipped", certified, "compare_exp",
     "if r < box.lo:\n            return 1", "if r < box.lo:\n            return -1",
     [props.prop_certified]),
    ("ceil-log-ratio-of-one", certified, "ceil_log_ratio",
     "if x == 1:\n        return 0", "if x == 1:\n        return 1", [props.prop_certified]),
    ("ceil-log2-off-by-one", certified, "ceil_log2", "(x - 1).bit_length()",
     "x.bit_length()", [props.prop_certified]),
    # --- distances
    ("sd-not-halved", checker, "statistical_distance", "Fraction(total, 2 * da * db)",
     "Fraction(total, da * db)", [props.prop_distances]),
    ("sd-one-sided", checker, "statistical_distance",
     "abs(a.get(r, 0) * db - b.get(r, 0) * da)", "max(0, a.get(r, 0) * db - b.get(r, 0) * da)",
     [props.prop_distances]),
    ("sd-common-denominator", checker, "_over_common", "a * (den // b)", "a * (den // b) + 1",
     [props.prop_distances]),
    ("hs-ratio-dropped", ratio_bounds, "hockey_sticks_screened",
     "rn, rd = mpz(r.numerator), mpz(r.denominator)", "rn, rd = mpz(1), mpz(1)",
     [props.prop_distances, props.prop_hockey_stick_eps]),
    ("hs-min-for-max", ratio_bounds, "hockey_sticks_screened",
     "if _above(lo, s, rhi, rexp):", "if _above(rlo, rexp, hi, s):", [props.prop_distances]),
    ("hs-outcomes-of-q-only", ratio_bounds, "hockey_sticks_screened",
     "            for c in counted:\n                c.append(o)\n", "",
     [props.prop_distances]),
    ("hs-mass-sum-common-denominator", ratio_bounds, "_mass_sum",
     "num += n * (den // d)", "num += n", [props.prop_distances]),
    ("hs-eps-interval-one-end", checker, "hockey_stick_eps",
     "(box.hi, box.lo)", "(box.hi, box.hi)",
     [props.prop_hockey_stick_eps]),
    ("hs-eps-half-epsilon", checker, "hockey_stick_eps",
     'to_fraction(epsilon, "epsilon"), bits)', 'to_fraction(epsilon, "epsilon") / 2, bits)',
     [props.prop_hockey_stick_eps]),
    # --- accuracy
    ("accuracy-lt-for-le", checker, "exact_accuracy", "while num * td < tn * den:",
     "while num * td <= tn * den:", [props.prop_accuracy]),
    ("accuracy-skip-last-input", checker, "exact_accuracy", "enumerate(dists)",
     "enumerate(dists[:-1])", [props.prop_accuracy]),
    ("accuracy-one-sided", checker, "exact_accuracy",
     "for v in (dist.get(c - a, zero), dist.get(c + a, zero)):",
     "for v in (dist.get(c + a, zero),):",
     [props.prop_accuracy]),
    ("accuracy-probability-strict", checker, "accuracy_probability", "abs(z - c) <= a",
     "abs(z - c) < a", [props.prop_accuracy]),
    # --- distributions of M(c, U)
    ("enumerate-skip-last-u", checker, "enumerate_distribution", "range(1, d + 1)",
     "range(1, d)", [props.prop_distributions, props.prop_scrambled]),
    ("monotone-skip-last-u", checker, "is_monotone_in_u", "range(2, mech.d + 1)",
     "range(2, mech.d)", [props.prop_scrambled]),
    ("monotone-le-for-lt", checker, "is_monotone_in_u", "if z < prev:", "if z <= prev:",
     [props.prop_distributions]),
    ("search-lt-for-le", checker, "_threshold", "if m(mid) <= z:", "if m(mid) < z:",
     [props.prop_distributions]),
    ("hint-trusted-above", checker, "_threshold", "ok_high = cand == d or m(cand + 1) > z",
     "ok_high = True", [props.prop_lying_hint]),
    ("hint-trusted-below", checker, "_threshold", "ok_low = cand == 0 or m(cand) <= z",
     "ok_low = True", [props.prop_lying_hint]),
    ("thresholds-unchecked", checker, "thresholds", "_check_interval_ends(m, c, out)", "pass",
     [props.prop_scrambled, props.prop_leaving_range]),
    ("thresholds-drop-last-mass", checker, "threshold_distribution",
     "for z in range(1, len(ts))", "for z in range(1, len(ts) - 1)",
     [props.prop_distributions]),
    ("auto-never-enumerates", checker, "counting_distribution", "mech.d <= 4096",
     "mech.d < 1", [props.prop_scrambled]),
    # --- strict time and traces
    ("strict-time-skip-last-input", checker, "check_strict_time", "for c in range(n + 1):",
     "for c in range(n):", [props.prop_strict_time]),
    ("strict-time-skip-last-u", checker, "check_strict_time", "us = range(1, d + 1)",
     "us = range(1, d)", [props.prop_strict_time]),
    ("strict-time-enumeration-boundary", checker, "check_strict_time", "if d <= 256:",
     "if d < 256:", [props.prop_strict_time]),
    ("strict-time-thresholds-of-c0-only", checker, "check_strict_time",
     "sorted({0, n // 2, n})", "sorted({0, n // 2})", [props.prop_strict_time]),
    ("trace-draw-not-recorded", strict_time._TracingSource, "uniform", 'record("uniform", d)',
     "pass", [props.prop_trace]),
    ("record-drops-events", trace, "record", "events.append(event)", "pass",
     [props.prop_trace, props.prop_strict_time]),
    # --- the exploring source
    ("explore-bernoulli-weights-swapped", ES, "bernoulli",
     "((True, num), (False, den - num))", "((True, den - num), (False, num))",
     [props.prop_explore]),
    ("explore-bernoulli-zero-branches", ES, "bernoulli", "if w > 0]", "if w >= 0]",
     [props.prop_explore]),
    ("explore-inverse-cdf-zero-branches", explore, "_options", "if f > prev:",
     "if f >= prev:", [props.prop_explore]),
    ("explore-inverse-cdf-weight", ES, "inverse_cdf", "self._take(len(outputs), d, masses)",
     "self._take(len(outputs), d + 1, masses)", [props.prop_explore]),
    ("explore-uniform-zero-based", ES, "uniform", "        return 1\n",
     "        return 0\n", [props.prop_explore]),
    ("explore-uniform-zero-based-replayed", ES, "uniform", "return idx + 1",
     "return idx", [props.prop_explore]),
    ("explore-uniform-weight", ES, "uniform", "wden *= d\n", "wden *= d + 1\n",
     [props.prop_explore]),
    ("explore-path-weight-not-multiplied", ES, "_record",
     "(num if masses is None else num * masses[idx]), wden * den",
     "(1 if masses is None else masses[idx]), den", [props.prop_explore]),
    ("explore-skips-a-branch", explore, "_push_alternatives", "range(size - 1, -1, -1)",
     "range(size - 1, 1, -1)", [props.prop_explore]),
    ("explore-overwrites-mass", explore, "explore",
     "parts[den] = parts.get(den, 0) + num", "parts[den] = num",
     [props.prop_explore]),
]


def _fails(prop: Callable[[], None]) -> bool:
    try:
        prop()
    except (Exception, pytest.fail.Exception):  # noqa: BLE001 -- a failed assertion, or
        return True                              # the mutant broke the code outright
    return False


@pytest.mark.parametrize(("owner", "name", "old", "new", "killers"),
                         [m[1:] for m in MUTANTS], ids=[m[0] for m in MUTANTS])
def test_planted_bug_is_detected(owner: Any, name: str, old: str, new: str,
                                 killers: list[Callable[[], None]]) -> None:
    with planted(owner, name, old, new):
        survivors = [p.__name__ for p in killers if not _fails(p)]
    assert not survivors, f"the mutant survived {survivors}"


def test_every_property_has_its_baseline_test() -> None:
    # Each property must hold unmutated, so that a kill above is the mutant's: a test of
    # test_checker_independent runs each one on the real checker.
    import test_checker_independent as baseline

    tests = [inspect.getsource(f) for n, f in vars(baseline).items() if n.startswith("test_")]
    for prop in {p for m in MUTANTS for p in m[5]}:
        assert any(f"{prop.__name__}()" in t for t in tests), prop.__name__


def test_planted_restores_the_original() -> None:
    before = ratio_bounds.worst_ratio_screened
    with planted(ratio_bounds, "worst_ratio_screened", "rn * bd > bn * rd", "rn * bd < bn * rd"):
        assert ratio_bounds.worst_ratio_screened is not before
    assert ratio_bounds.worst_ratio_screened is before
    with pytest.raises(AssertionError, match="not found"), \
            planted(checker, "worst_ratio", "no such text", ""):
        pass


@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m[0] in (
    "ratio-drop-reverse-direction", "ratio-skip-last-pair", "hs-min-for-max")],
    ids=lambda m: m[0])
def test_the_verify_row_fails_on_checker_mutants(mutant: tuple[Any, ...]) -> None:
    """``exactdp verify``'s own row for the checker (def_2_09_checker) fails on them too."""
    from exactdp.proofs.balcer_vadhan import def_2_09_checker

    _, owner, name, old, new, _ = mutant
    assert def_2_09_checker.check(False).verdict
    with planted(owner, name, old, new):
        assert not def_2_09_checker.check(False).verdict
