"""The verify rows on the audit machinery (proofs/audit/) pass, and each FAILs on the bugs
planted in what it covers: a facade whose random() never draws 0, neighbour relations that
keep one direction only, a halved randomness-domain guard."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _plant import plant

from exactdp import explore, neighbours
from exactdp.audit import (
    facade_floats,
    facade_lazy,
    facade_numpy,
    facade_random,
    facades,
    guard,
    guarded_sources,
    per_input,
)
from exactdp.audit.guard import Abort, Finding
from exactdp.audit.per_input import GuardedSource
from exactdp.certificate import ClaimReport
from exactdp.cli.verify import run_check
from exactdp.proofs.audit import (
    audit_escape_detection,
    audit_facade_laws,
    audit_neighbour_relations,
    audit_randomness_domain,
)


def row(module: Any) -> ClaimReport:
    return run_check(module.check, False)


def failing(report: ClaimReport) -> list[str]:
    return [c.claim for c in report.certificates if not c.verdict]


@pytest.mark.parametrize("module", [audit_facade_laws, audit_neighbour_relations,
                                    audit_randomness_domain])
def test_rows_pass(module: Any) -> None:
    report = row(module)
    assert report.verdict, failing(report)
    assert all(c.verdict for c in report.certificates) and len(report.certificates) >= 2


@pytest.mark.parametrize("module", [audit_escape_detection, audit_randomness_domain])
def test_rows_do_not_depend_on_speed(monkeypatch: pytest.MonkeyPatch, module: Any) -> None:
    """A machine so loaded that every clock read is 11 s after the previous one (each call
    of the audited code "takes" longer than the audit's default time limit): the rows on
    the audit machinery must give the same verdicts."""
    ticks = itertools.count()

    def slow() -> int:
        return next(ticks) * 11 * 10**9

    for owner in (guard, explore):
        monkeypatch.setattr(owner, "_now", slow)
    monkeypatch.setattr(time, "monotonic_ns", slow)
    report = row(module)
    assert report.verdict, failing(report)
    assert len(report.certificates) >= 2


# --------------------------------------------------------------------------- facades

def python_random(monkeypatch: pytest.MonkeyPatch) -> None:
    """The facade's Python random() (where the C one is built: it hands the common case to
    no Python method), so that a bug planted in the Python code is met."""
    for cls in (facade_random.RandomFacade, facade_random.SecretsFacade):
        monkeypatch.setattr(cls, "random", facade_random.PY_RANDOM)


def python_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy facade's Python integers() and choice() (where the C ones are built, they
    make the common draws without _Engine.draw), so that a bug planted in the Python code is
    met."""
    monkeypatch.setattr(facade_numpy.NumpyFacade, "integers", facade_numpy.PY_INTEGERS)
    monkeypatch.setattr(facade_numpy.NumpyFacade, "choice", facade_numpy.PY_CHOICE)


@pytest.mark.parametrize(("owner", "name", "old", "new", "failing_part"), [
    # random() explored by its effect (the lazy values off): (j + 1)/2^53
    (facades._Engine, "unit", "as_unit_float(self.draw(1 << FLOAT_BITS))",
     "as_unit_float(self.draw(1 << FLOAT_BITS) + 1)", "(random facade, laws)"),
    # a lazily compared random() read as (j + 1)/2^53: compared with a Fraction
    (facade_lazy.LazyUnit, "_compare",
     "num, den = x[0] * self._ctx[SCALE] - self._offset * x[1], x[1]",
     "num, den = x[0] * self._ctx[SCALE] - (self._offset + 1) * x[1], x[1]",
     "(random facade, laws)"),
    # ... compared (<, <=, >, >=) with an int or a float, read by the comparison itself
    (facade_lazy, "_ordered", "num = x0 * ctx[0] - self._offset * x1",
     "num = x0 * ctx[0] - (self._offset + 1) * x1", "(random facade, laws)"),
    # ... compared (==, !=) with an int or a float
    (facade_lazy, "_equality", "j = other * self._ctx[0] - self._offset",
     "j = other * self._ctx[0] - self._offset - 1", "(random facade, laws)"),
    # a lazily compared random() whose j starts at 1
    (facades._Engine, "unit", "_set_cell(value, [0, 1 << FLOAT_BITS])",
     "_set_cell(value, [1, 1 << FLOAT_BITS])", "(random facade, laws)"),
])
def test_random_never_drawing_zero_fails(monkeypatch: pytest.MonkeyPatch, owner: Any,
                                         name: str, old: str, new: str,
                                         failing_part: str) -> None:
    """random() that never returns 0: j + 1 in place of j, on each of its paths."""
    python_random(monkeypatch)
    plant(monkeypatch, owner, name, old, new)
    for op, made in (("__lt__", ("<", True, True)), ("__le__", ("<=", False, True)),
                     ("__gt__", (">", False, False)), ("__ge__", (">=", True, False))):
        if owner is facade_lazy and name == "_ordered":  # the comparisons it made, again
            monkeypatch.setattr(facade_lazy.LazyUnit, op, facade_lazy._ordered(*made))
    if owner is facade_lazy and name == "_equality":
        monkeypatch.setattr(facade_lazy.LazyUnit, "__eq__", facade_lazy._equality("=="))
        monkeypatch.setattr(facade_lazy.LazyUnit, "__ne__", facade_lazy._equality("!="))
    report = row(audit_facade_laws)
    assert not report.verdict
    assert any(c.endswith(failing_part) for c in failing(report)), failing(report)


def test_concrete_random_never_drawing_zero_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """random() as a float (for Random's own methods) read as (j + 1)/2^53."""
    python_random(monkeypatch)
    plant(monkeypatch, facades.RandomFacade, "random",
          "as_unit_float(self._engine.draw(1 << FLOAT_BITS))",
          "as_unit_float(self._engine.draw(1 << FLOAT_BITS) + 1)")
    report = row(audit_facade_laws)
    assert not report.verdict
    assert any(c.endswith("(random facade, values)") for c in failing(report))


def test_unit_float_shifted_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared conversion j -> j/2^53 off by one (every facade's doubles shift)."""
    plant(monkeypatch, facade_floats, "as_unit_float", "math.ldexp(j, -FLOAT_BITS)",
          "math.ldexp(j + 1, -FLOAT_BITS)")
    report = row(audit_facade_laws)
    bad = failing(report)
    assert not report.verdict
    assert all(any(f"({kind} facade, values)" in c for c in bad)
               for kind in ("random", "numpy", "numpy-legacy"))


def test_numpy_integers_endpoint_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    python_numpy(monkeypatch)
    plant(monkeypatch, facades.NumpyFacade, "integers", "hi += 1 if endpoint else 0",
          "hi += 0")
    report = row(audit_facade_laws)
    assert [c for c in failing(report) if "(numpy facade, laws)" in c]


def test_exact_branch_off_by_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small draws that never give 0 (their top value twice as likely)."""
    python_numpy(monkeypatch)
    plant(monkeypatch, facades._Engine, "draw", "j = self.source.uniform(n) - 1",
          "j = min(self.source.uniform(n), n - 1)")
    assert not row(audit_facade_laws).verdict


# --------------------------------------------------------------------------- neighbours

@pytest.fixture
def fresh_relations() -> Iterator[None]:
    """Relations are cached: a planted bug must not read (or leave) cached ones."""
    cached = (neighbours._vectors, neighbours._l1_offsets)
    for f in cached:
        f.cache_clear()
    yield
    for f in cached:
        f.cache_clear()


@pytest.mark.parametrize(("old", "new"), [
    ("lambda c: (c - 1, c + 1)", "lambda c: (c + 1,)"),
    ("lambda a, b: abs(a - b) == 1", "lambda a, b: b - a == 1"),
])
def test_counts_keeping_only_c_to_c_plus_one_fails(monkeypatch: pytest.MonkeyPatch,
                                                   fresh_relations: None, old: str,
                                                   new: str) -> None:
    plant(monkeypatch, neighbours, "counts", old, new)
    report = row(audit_neighbour_relations)
    assert [c for c in failing(report) if "(counts)" in c]


def test_l1_dropping_one_direction_at_full_distance_fails(
        monkeypatch: pytest.MonkeyPatch, fresh_relations: None) -> None:
    """The offsets -beta e_i (full distance, negative direction) left out."""
    plant(monkeypatch, neighbours, "_l1_offsets", "range(-budget, budget + 1)",
          "range(-budget + (budget == beta), budget + 1)")
    report = row(audit_neighbour_relations)
    assert [c for c in failing(report) if "(vectors)" in c]


def test_l1_adjacency_one_direction_at_full_distance_fails(
        monkeypatch: pytest.MonkeyPatch, fresh_relations: None) -> None:
    plant(monkeypatch, neighbours, "_vectors", "return 0 < l1_distance(a, b2) <= b",
          "return 0 < l1_distance(a, b2) < b or (l1_distance(a, b2) == b and a < b2)")
    report = row(audit_neighbour_relations)
    assert [c for c in failing(report) if "(vectors)" in c]


def test_datasets_replace_one_allowing_equal_fails(monkeypatch: pytest.MonkeyPatch,
                                                   fresh_relations: None) -> None:
    plant(monkeypatch, neighbours, "datasets", "return sorted(diff(a, b)) == [0, 1]",
          "return diff(a, b) == (0, 1)")
    report = row(audit_neighbour_relations)
    assert [c for c in failing(report) if "(datasets)" in c]


# --------------------------------------------------------------------------- guard

def test_halved_randomness_domain_guard_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, GuardedSource, "_over", "self.size > self.limit",
          "self.size > self.limit // 2")
    report = row(audit_randomness_domain)
    assert not report.verdict
    assert all(not c.verdict for c in report.certificates)


def test_guard_one_draw_late_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The product checked before the draw is charged (one draw late)."""
    plant(monkeypatch, GuardedSource, "_over",
          "self.size *= d\n    if self.size > self.limit:",
          "self.size, before = self.size * d, self.size\n    if before > self.limit:")
    assert not row(audit_randomness_domain).verdict


# --------------------------------------------------------------------------- escapes

def test_unguarded_os_urandom_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard on os.urandom left out: that route is audited as if nothing escaped."""
    plant(monkeypatch, guarded_sources, "_plan", 'for name in ("urandom", "getrandom"):',
          'for name in ("getrandom",):')
    report = row(audit_escape_detection)
    assert not report.verdict
    (cert,) = [c for c in report.certificates if not c.verdict]
    assert [w["route"] for w in cert.witness["wrong"]] == ["os.urandom"]


def test_unguarded_id_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard on id() left out: an object's address decides the output unseen."""
    plant(monkeypatch, guarded_sources, "_process_plan",
          'plan.append((builtins, "id", _direct(builtins.id, "id()", "process")))', "pass")
    report = row(audit_escape_detection)
    assert not report.verdict
    (cert,) = [c for c in report.certificates if not c.verdict]
    assert [w["route"] for w in cert.witness["wrong"]] == ["object id"]


def test_no_rerun_of_paths_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths not re-run: state kept between runs goes unseen."""
    monkeypatch.setattr(per_input, "replay_path",
                        lambda run, src, first, c, timed=True: first)  # nothing re-run
    report = row(audit_escape_detection)
    assert not report.verdict
    (cert,) = [c for c in report.certificates if not c.verdict]
    assert [w["route"] for w in cert.witness["wrong"]] == ["state kept between runs"]


def test_a_guard_stopping_everything_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twins matter: a re-run that always reports a difference stops every audit."""
    def always(run: Any, src: Any, first: Any, c: Any, timed: bool = True) -> None:
        raise Abort(Finding("nondeterministic", "planted"))

    monkeypatch.setattr(per_input, "replay_path", always)
    report = row(audit_escape_detection)
    assert f"{audit_escape_detection.CLAIM} (no escape)" in failing(report)
