"""The fast paths of exactdp/sparse_vectors/alp_check.py equal their reference paths.

* :func:`alp_check.pushed_law` (the RandRound coins explored ONCE per input, then pushed
  through the implementation's ``embed`` for each seed tuple) equals :func:`pre_noise_law`
  (``scaled_units`` + ``embed`` explored together) for every input and seed of C1-C4;
* :func:`worst_ratio_over_family` (integer numerators, cross-multiplied comparisons, an
  optional marginals cache) returns the same witness, field by field, as the reference
  Fraction computation below (the code before the integer rewrite), on C1-C4, C8 and C9.

Each equality FAILS when a bug is planted into the fast path (tests/_plant.py).
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import pytest

from exactdp.proofs.alp._alp import Config, paper_configs
from exactdp.proofs.alp.alp_lemma_4_12_privacy import negative_configs
from exactdp.sparse_vectors import alp_check
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp_check import (
    FamilyWitness,
    IndependenceError,
    _cellmax,
    cell_marginals,
    pre_noise_law,
    pushed_law,
    units_law,
    worst_ratio_over_family,
)
from exactdp.sparse_vectors.alp_params import ALPParams
from tests._plant import plant


def _reference_marginals(params, hashes, x, seeds):  # type: ignore[no-untyped-def]
    """cell_marginals as it was written on Fractions (main at fe10b8e)."""
    law = pre_noise_law(params, hashes, x, seeds)
    pi = {(a, b): Fraction(0) for b in range(1, params.columns + 1)
          for a in range(1, params.rows + 1)}
    for cells, w in law.items():
        for cell in cells:
            pi[cell] += w
    random_cells = [c for c, v in pi.items() if 0 < v < 1]
    if len(random_cells) > 1:
        for cells, w in law.items():
            prod = Fraction(1)
            for c in random_cells:
                prod *= pi[c] if c in cells else 1 - pi[c]
            if prod != w:
                raise IndependenceError(f"not independent: {sorted(cells)}")
    return pi


def _reference_worst(params, hashes, pairs) -> FamilyWitness:  # type: ignore[no-untyped-def]
    """worst_ratio_over_family as it was written on Fractions (main at fe10b8e)."""
    seeds = list(hashes.seeds())
    s, m, p = params.rows, params.columns, params.flip
    marg: dict = {}  # type: ignore[type-arg]

    def us(x):  # type: ignore[no-untyped-def]
        key = tuple(sorted(x.items()))
        if key not in marg:
            marg[key] = [{c: p + (1 - 2 * p) * v
                          for c, v in _reference_marginals(params, hashes, x,
                                                           (sd,) * m).items()}
                         for sd in seeds]
        return marg[key]

    best = None
    for x, x2 in pairs:
        ux, vx = us(x), us(x2)
        ratio, chosen, out = Fraction(1), [], {}
        for b in range(1, m + 1):
            col_best, col_arg, col_bits = Fraction(-1), 0, {}
            for j in range(len(seeds)):
                f, bits = Fraction(1), {}
                for a in range(1, s + 1):
                    r, bit = _cellmax(ux[j][(a, b)], vx[j][(a, b)])
                    f *= r
                    bits[a] = bit
                if f > col_best:
                    col_best, col_arg, col_bits = f, j, bits
            ratio *= col_best
            chosen.append(col_arg)
            out.update({(a, b): bit for a, bit in col_bits.items()})
        if best is None or ratio > best.ratio:
            h = tuple(seeds[j] for j in chosen)
            prob_x = prob_x2 = Fraction(1)
            for b in range(1, m + 1):
                for a in range(1, s + 1):
                    u, v = ux[chosen[b - 1]][(a, b)], vx[chosen[b - 1]][(a, b)]
                    prob_x *= u if out[(a, b)] else 1 - u
                    prob_x2 *= v if out[(a, b)] else 1 - v
            rows = tuple(tuple(out[(a, b)] for b in range(1, m + 1)) for a in range(1, s + 1))
            best = FamilyWitness(ratio, dict(x), dict(x2), h, rows, prob_x, prob_x2, 0,
                                 len(seeds))
    assert best is not None
    return FamilyWitness(best.ratio, best.numerator_input, best.denominator_input,
                         best.seeds, best.output, best.p, best.q, len(pairs), len(seeds))


def _configs() -> list[Config]:
    return [*paper_configs(False), *(cfg for cfg, _ in negative_configs()), COLLIDING]


def _pairs(cfg: Config):  # type: ignore[no-untyped-def]
    prm = cfg.params()
    return prm, list(ex.neighbour_pairs(cfg.inputs(prm), prm.grid, Fraction(1)))


#: s = 2 rows for d = 3 keys, k = 2, entries X/2: keys collide, so distinct coin outcomes of
#: one input can set the same cells (pushed_law must add their weights).
COLLIDING = Config("s = 2, k = 2, grid 1/2",
                   lambda: ALPParams.from_paper(1, 1, 2, 2, 2, 3, grid=2), 5, 2, None,
                   Fraction(1))


def _push_mismatches() -> int:
    """(input, seed tuple) cases of C1-C4 and COLLIDING where pushed_law != pre_noise_law."""
    bad = 0
    for cfg in [*paper_configs(False), COLLIDING]:
        prm = cfg.params()
        family = cfg.family(prm)
        seeds = list(family.seeds())
        tuples = [(sd,) * prm.columns for sd in seeds]
        tuples += [tuple(seeds[(i + 3 * j) % len(seeds)] for j in range(prm.columns))
                   for i in range(0, len(seeds), 3)]
        for x in cfg.inputs(prm):
            units = units_law(prm, x)
            for h in tuples:
                bad += pushed_law(prm, family, h, units) != pre_noise_law(prm, family, x, h)
    return bad


def test_pushed_law_equals_pre_noise_law() -> None:
    assert _push_mismatches() == 0


def test_pushed_law_with_a_planted_bug_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bug: two coin outcomes with the same cell set keep only the last weight
    plant(monkeypatch, alp_check, "pushed_law", "law[cells] + w if cells in law else w", "w")
    assert _push_mismatches() > 0


def test_pushed_law_with_seeds_reversed_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, alp_check, "pushed_law", "key = tuple(seeds)", "key = tuple(seeds)[::-1]")
    assert _push_mismatches() > 0


def _marginal_mismatches() -> int:
    """(input, seed) cases of C1-C4 and COLLIDING where cell_marginals (integer sums and
    independence check) differs from the Fraction reference (or raises)."""
    bad = 0
    for cfg in [*paper_configs(False), COLLIDING]:
        prm = cfg.params()
        family = cfg.family(prm)
        for x in cfg.inputs(prm):
            for sd in list(family.seeds())[:6]:
                h = (sd,) * prm.columns
                try:
                    bad += cell_marginals(prm, family, x, h) != _reference_marginals(
                        prm, family, x, h)
                except IndependenceError:
                    bad += 1
    return bad


def test_cell_marginals_equal_the_fraction_reference() -> None:
    assert _marginal_mismatches() == 0


@pytest.mark.parametrize("old,new", [
    ("prod *= pi[c] if c in cells else den - pi[c]", "prod *= pi[c] if c in cells else den"),
    ("pi[cell] += wn", "pi[cell] = wn"),
])
def test_cell_marginals_planted_bug_differs(monkeypatch: pytest.MonkeyPatch, old: str,
                                           new: str) -> None:
    plant(monkeypatch, alp_check, "_marginal_numerators", old, new)
    assert _marginal_mismatches() > 0


def _mixed_denominators_ok() -> bool:
    """Two independent cells with pi = 1/2 and 1/3: weights 1/6, 1/3, 1/6, 1/3."""
    prm = COLLIDING.params()
    a, b = (1, 1), (2, 1)
    law = {frozenset({a, b}): Fraction(1, 6), frozenset({a}): Fraction(1, 3),
           frozenset({b}): Fraction(1, 6), frozenset(): Fraction(1, 3)}
    try:
        pi = alp_check._marginals_of(prm, {1: 1}, law)
    except IndependenceError:
        return False
    return (pi[a] == Fraction(1, 2) and pi[b] == Fraction(1, 3)
            and sum(pi.values()) == Fraction(5, 6))


def test_marginals_with_mixed_denominators() -> None:
    assert _mixed_denominators_ok()


def test_marginals_with_mixed_denominators_planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, alp_check, "_marginal_numerators",
          "w.numerator * (den // w.denominator)", "w.numerator")
    assert not _mixed_denominators_ok()


def test_dependent_cells_are_refused() -> None:
    prm = COLLIDING.params()
    law = {frozenset({(1, 1), (2, 1)}): Fraction(1, 2), frozenset(): Fraction(1, 2)}
    with pytest.raises(IndependenceError, match="not independent"):
        alp_check._marginals_of(prm, {1: 1}, law)


def _witness_mismatches() -> list[str]:
    bad = []
    for cfg in _configs():
        prm, pairs = _pairs(cfg)
        family = cfg.family(prm)
        if worst_ratio_over_family(prm, family, pairs) != _reference_worst(prm, family, pairs):
            bad.append(cfg.name)
    return bad


def test_integer_worst_ratio_equals_the_fraction_reference() -> None:
    assert _witness_mismatches() == []


def test_the_cache_gives_the_same_witnesses() -> None:
    cfg = paper_configs(False)[3]  # C4: k = 2, grid 1/2
    prm, pairs = _pairs(cfg)
    family = cfg.family(prm)
    cache: dict[object, object] = {}
    halves = [pairs[: len(pairs) // 2], pairs[len(pairs) // 2:], pairs]
    for part in halves:
        assert worst_ratio_over_family(prm, family, part, cache) == _reference_worst(
            prm, family, part)
    assert cache


@pytest.mark.parametrize("old,new", [
    ("if a1 * b0 >= a0 * b1:", "if a1 * b0 > a0 * b1:"),  # ties choose output bit 0
    ("if fn * cd > cn * fd:", "if fn * cd >= cn * fd:"),  # ties choose the last seed
    ("fd *= ad * b0", "fd *= bd * b0"),  # the down ratio's denominator wrong
])
def test_integer_worst_ratio_with_a_planted_bug_differs(monkeypatch: pytest.MonkeyPatch,
                                                        old: str, new: str) -> None:
    plant(monkeypatch, alp_check, "worst_ratio_over_family", old, new)
    assert _witness_mismatches()


# ------------------------------------------------ exact.error_law on integer numerators

def _error_law_ref(p: Fraction, m: int, y: int, collision: Fraction = Fraction(0)
                   ) -> dict[Fraction, Fraction]:
    """error_law as written on Fractions (main at fe10b8e)."""
    q = 1 - p
    u0 = p + (1 - 2 * p) * collision
    pw_q, pw_p = [q**j for j in range(m + 1)], [p**j for j in range(m + 1)]
    pw_u, pw_v = [u0**j for j in range(m + 1)], [(1 - u0)**j for j in range(m + 1)]
    low = (1 << y) - 1
    law: dict[Fraction, Fraction] = {}
    for w, est in ex.pattern_estimates(m):
        ones_low = (w & low).bit_count()
        ones_high = (w >> y).bit_count()
        weight = (pw_q[ones_low] * pw_p[y - ones_low]
                  * pw_u[ones_high] * pw_v[m - y - ones_high])
        err = est - y
        law[err] = law.get(err, Fraction(0)) + weight
    return law


def _error_law_mismatches() -> int:
    bad = 0
    for p in (Fraction(1, 5), Fraction(1, 3), Fraction(2, 7), Fraction(1, 2)):
        for collision in (Fraction(0), Fraction(1, 10), Fraction(3, 4)):
            for m in (1, 3, 6):
                for y in range(m + 1):
                    got, want = ex.error_law(p, m, y, collision), _error_law_ref(p, m, y, collision)
                    bad += got != want or list(got) != list(want)
    return bad


def test_error_law_equals_the_fraction_reference() -> None:
    assert _error_law_mismatches() == 0


@pytest.mark.parametrize("old,new", [
    ("den = pd**y * ud**(m - y)", "den = pd**m * ud**(m - y)"),
    ("[(ud - un)**j for j in range(m + 1)]", "[(ud - pn)**j for j in range(m + 1)]"),
])
def test_error_law_planted_bug_differs(monkeypatch: pytest.MonkeyPatch, old: str,
                                       new: str) -> None:
    plant(monkeypatch, ex, "error_law", old, new)
    assert _error_law_mismatches() > 0


# --------------------------- ALP.project's unchecked sketch and explored_law's bitmask

def _sketch_problems() -> int:
    """Sketches of ALP.project (every seed of C1 and COLLIDING, a few inputs) that the
    validating ALPSketch constructor refuses or rebuilds differently (fields or _fast)."""
    from exactdp.randomness import SeededSource
    from exactdp.sparse_vectors.alp import ALP
    from exactdp.sparse_vectors.estimator import ALPSketch

    bad = 0
    for cfg in (paper_configs(False)[0], COLLIDING):
        prm = cfg.params()
        family = cfg.family(prm)
        alp = ALP(prm, family)
        for i, sd in enumerate(family.seeds()):
            x = cfg.inputs(prm)[i % len(cfg.inputs(prm))]
            sk = alp.project(x, SeededSource(i), (sd,) * prm.columns)
            try:
                again = ALPSketch(sk.params, sk.hashes, sk.seeds, sk.bits)
            except Exception:  # noqa: BLE001 - any refusal is a problem
                bad += 1
                continue
            bad += again != sk or again._fast != sk._fast
    return bad


def test_projected_sketches_pass_the_validating_constructor() -> None:
    assert _sketch_problems() == 0


def test_projected_sketch_planted_bug_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.sparse_vectors.estimator import ALPSketch

    plant(monkeypatch, ALPSketch, "_built", "tuple((s.a, s.b) for s in seeds)",
          "tuple((s.b, s.a) for s in seeds)")
    assert _sketch_problems() > 0


def _bitmask_mismatches() -> int:
    """explored_law against the same exploration read cell by cell through sketch.cell."""
    from exactdp.explore import explore
    from exactdp.sparse_vectors.alp import ALP

    bad = 0
    for cfg in (paper_configs(False)[0], COLLIDING):
        prm = cfg.params()
        family = cfg.family(prm)
        alp = ALP(prm, family)
        s, m = prm.rows, prm.columns
        seeds = list(family.seeds())
        for x in cfg.inputs(prm)[:4]:
            h = tuple(seeds[(3 * j) % len(seeds)] for j in range(m))
            by_cells = explore(partial(_cells_mask, alp, x, h, s, m))
            bad += alp_check.explored_law(alp, x, h) != by_cells
    return bad


def _cells_mask(alp, x, h, s, m, source):  # type: ignore[no-untyped-def]
    sk = alp.project(dict(x), source=source, seeds=h, rr="cells")
    return sum(sk.cell(a, b) << ((b - 1) * s + (a - 1))
               for b in range(1, m + 1) for a in range(1, s + 1))


def test_explored_law_bitmask_is_the_cells() -> None:
    assert _bitmask_mismatches() == 0


def test_explored_law_bitmask_planted_bug_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch, alp_check, "explored_law", 'int.from_bytes(sketch.bits, "little")',
          'int.from_bytes(sketch.bits, "big")')
    assert _bitmask_mismatches() > 0
