"""Calibration of the per-row ratios ``r_j``.

Paper 002, Algorithm 1 / Theorem 9: coefficient ``i`` gets Laplace scale ``b_i = sqrt(γ/|h^_i|)``,
i.e. a per-coefficient budget ``ε_i ∝ sqrt|h^_i|`` (the convex-duality optimum of eqs. (7)-(8),
Appendix B), and the budgets are composed with "Theorem 4".  Here:

1. **shape** ``s_j`` (a relative budget per row ``j`` with ``λ_j != 0``):

   * ``"fourier"`` (Algorithm 1): ``s_j = sqrt(|λ_j| / ||λ||_1)``;
   * ``"spectral-partition"`` (Algorithm 2, *fixed* as in P7: index 0 gets ``Lap(η/√N)``):
     rank the ``N = 2^k`` rows by ``|λ|`` decreasing; rank 0 gets ``s² = 1``, ranks
     ``N/2^k .. N/2^(k-1) - 1`` get ``s² = 2^k / N``;
   * ``"uniform"``: ``s_j = 1``.

   ``s_j`` is replaced by a rational lower bound (integer square roots), never rounded up.
2. **per-row targets** ``ε_j = t s_j`` with a rational scale ``t`` (``ε_0``).
3. **ratios** ``r_j``, on the public grid ``ratio_grid``: ``"fractions"`` (default) the largest
   fraction with denominator ``<= max_denominator`` that is ``<= e^{ε_j}``; ``"reciprocal"``
   the largest ``1 + 1/m`` (``m`` a positive integer) that is ``<= e^{ε_j}`` (paper 004's
   GeoSample ratios ``1 + 2^-k`` with any ``m``: the sampler's ``D = (2m + 1)(m + 1)^n`` has
   about ``n log2(1/ε_j)`` bits instead of ``n log2(max_denominator)``, so releases draw
   fewer random bits and build smaller tables; the MSE cost is measured by
   tests/benchmarks/bench_convolution.py).  Certified with
   :func:`exactdp.certified.exp_lower_bound_at_least` (a rational witness ``W_j`` with
   ``r_j <= W_j <= e^{ε_j}``): rounding goes *down*, so every accounting below, done with
   ``ε_j`` (or, in the exact mode, with the rounded ratios themselves), is conservative for
   the ratios released.
4. **scale** ``t``: the largest dyadic (to ``2^-precision`` relative) accepted by the accounting
   mode, by bisection on the certified predicate:

   * ``"paper-unsound"``: Theorem 4 as printed, ``sqrt(2L max_n sum_j (Δ_jn ε_j)²) <= ε``
     (reproduction only: it is false, P1);
   * ``"drv"``: the corrected DRV bound ``<= ε``;
   * ``"zcdp"``: ``ρ + 2 sqrt(ρ L) <= ε`` with ``ρ = max_n sum (Δ_jn ε_j)²/2``;
   * ``"exact"`` (default): ``δ(R_lo) <= δ`` for the exact privacy profile of the *rounded*
     ratios (:class:`~exactdp.convolution.accounting.PrivacyProfile`) at a rational
     ``R_lo <= e^ε``; when the exact law is too large, the certified dominating-grid upper
     bound (:mod:`exactdp.convolution.pld_grid`) is used instead (recorded as ``"exact-grid"``).

   Each predicate is monotone up to rounding; the result is checked at the returned scale, so
   the returned ratios always satisfy the mode's predicate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import cast

from exactdp.certified import Interval, exp_interval, exp_lower_bound_at_least
from exactdp.convolution.accounting import (
    _ln_pos,
    _sqrt_iv,
    column_delta,
    sqrt_interval,
)
from exactdp.convolution.pld_grid import GridBound, grid_exponents_counts
from exactdp.params import (
    ParameterError,
    ResourceLimitError,
    epsilon_delta,
    positive_fraction,
    to_fraction,
)

__all__ = [
    "ACCOUNTING_MODES",
    "RATIO_GRIDS",
    "SHAPES",
    "Calibration",
    "calibrate",
    "largest_fraction_at_most",
    "mse_gain",
    "noise_cost",
    "ratio_below_exp",
    "shape_weights",
]

SHAPES = ("fourier", "spectral-partition", "uniform")
RATIO_GRIDS = ("fractions", "reciprocal")
ACCOUNTING_MODES = ("exact", "zcdp", "drv", "paper-unsound")
DEFAULT_MAX_DENOMINATOR = 10_000
#: grid steps per largest row budget in the dominating-grid bound
GRID_STEPS = 32
#: budget of grid slots (about rows x steps); coarser steps beyond it, zCDP beyond MIN_GRID_STEPS
GRID_SLOTS = 1 << 15
MIN_GRID_STEPS = 8
#: largest exact support before the dominating grid is used
EXACT_SUPPORT = 20_000


# ---------------------------------------------------------------------------------------------
# rounding ratios down, certified


def largest_fraction_at_most(x: Fraction, max_denominator: int) -> Fraction:
    """The largest ``p/q <= x`` with ``1 <= q <= max_denominator`` (best lower rational
    approximation: the lower of the two bounds of the continued-fraction algorithm that
    :meth:`fractions.Fraction.limit_denominator` uses)."""
    x = Fraction(x)
    if max_denominator < 1:
        raise ParameterError(f"max_denominator = {max_denominator} must be >= 1")
    if x.denominator <= max_denominator:
        return x
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = x.numerator, x.denominator
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > max_denominator:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
    k = (max_denominator - q0) // q1
    b1 = Fraction(p0 + k * p1, q0 + k * q1)
    b2 = Fraction(p1, q1)
    return b1 if b1 <= x else b2


def ratio_below_exp(eps: Fraction, max_denominator: int = DEFAULT_MAX_DENOMINATOR,
                    grid: str = "fractions") -> tuple[Fraction, Fraction]:
    """``(r, W)`` with ``1 < r <= W <= e^eps``, ``W`` a certified rational lower bound of
    ``e^eps`` and ``r`` the largest fraction with denominator ``<= max_denominator`` below it
    (or ``1 + 1/m``, ``m = ceil(1/(W - 1))``, if no such fraction exceeds 1); with
    ``grid = "reciprocal"`` always that ``1 + 1/m`` (the largest ``1 + 1/m <= W``)."""
    eps = positive_fraction(eps, "eps")
    if grid not in RATIO_GRIDS:
        raise ParameterError(f"grid = {grid!r} must be one of {', '.join(RATIO_GRIDS)}")
    low = exp_interval(eps, 64 + eps.denominator.bit_length()).lo
    if low <= 1:  # pragma: no cover - 64 extra bits always separate e^eps from 1
        raise ResourceLimitError(f"could not separate e^{eps} from 1")
    r = largest_fraction_at_most(low, max_denominator) if grid == "fractions" else Fraction(1)
    if r <= 1:
        inv = 1 / (low - 1)
        r = 1 + Fraction(1, -((-inv.numerator) // inv.denominator))  # 1 + 1/ceil(1/(W-1))
    witness = exp_lower_bound_at_least(eps, r)
    return r, witness


# ---------------------------------------------------------------------------------------------
# shapes

Exact = int | Fraction


def _lambdas(values: Sequence[object]) -> tuple[Exact, ...]:
    """The weights, exact (ints kept as ints: a spectrum of 2^20 ints needs no Fractions)."""
    out: tuple[Exact, ...] = tuple(cast(int, v) if type(v) is int
                                   else to_fraction(v, f"lambdas[{j}]")
                                   for j, v in enumerate(values))
    if not any(out):
        raise ParameterError("lambdas are all zero: nothing to release (the filter is 0)")
    return out


def _abs(v: Exact) -> Exact:
    return -v if v < 0 else v


def _shape_classes(lam: Sequence[Exact], shape: str, bits: int = 40
                   ) -> tuple[list[int | None], list[Fraction]]:
    """``(cls, s)``: row ``j`` has shape weight ``s[cls[j]]`` (``cls[j] = None`` for
    ``λ_j = 0``).  Rows with equal weight share a class, so every square root below is taken
    once per distinct ``|λ_j|`` (fourier) or rank level (spectral-partition)."""
    n = len(lam)
    cls: list[int | None] = [None] * n
    s: list[Fraction] = []
    index: dict[object, int] = {}
    if shape == "fourier":
        total: Exact = sum((_abs(v) for v in lam), 0)
        for j, v in enumerate(lam):
            if v:
                a = _abs(v)
                c = index.get(a)
                if c is None:
                    c = index[a] = len(s)
                    s.append(sqrt_interval(Fraction(a) / total, bits).lo)
                cls[j] = c
        return cls, s
    if shape == "uniform":
        s.append(Fraction(1))
        return [0 if v else None for v in lam], s
    if shape == "spectral-partition":
        if n & (n - 1):
            raise ParameterError(f"shape 'spectral-partition' (Algorithm 2) needs N a power of "
                                 f"2, got N = {n}")
        order = sorted(range(n), key=lambda j: (-_abs(lam[j]), j))
        for rank, j in enumerate(order):
            if not lam[j]:
                continue
            # rank 0: s^2 = 1; N/2^k <= rank < N/2^(k-1): s^2 = 2^k/N
            level = -1 if rank == 0 else n.bit_length() - rank.bit_length()
            c = index.get(level)
            if c is None:
                c = index[level] = len(s)
                sq = Fraction(1) if level < 0 else Fraction(2**level, n)
                s.append(sqrt_interval(sq, bits).lo)
            cls[j] = c
        return cls, s
    raise ParameterError(f"shape = {shape!r} must be one of {', '.join(SHAPES)}")


def shape_weights(lambdas: Sequence[object], shape: str, bits: int = 40
                  ) -> tuple[Fraction | None, ...]:
    """Rational lower bounds ``s_j`` of the shape (``None`` for rows with ``λ_j = 0``)."""
    cls, s = _shape_classes(_lambdas(lambdas), shape, bits)
    return tuple(None if c is None else s[c] for c in cls)


# ---------------------------------------------------------------------------------------------
# the calibration record


@dataclass(frozen=True)
class Calibration:
    """Per-row ratios aligned with the ``lambdas`` (``None``: row not released)."""

    ratios: tuple[Fraction | None, ...]
    epsilons: tuple[Fraction | None, ...]  # rational targets eps_j, r_j <= witness_j <= e^eps_j
    witnesses: tuple[Fraction | None, ...]
    scale: Fraction  # eps_0 = t
    shape: str
    accounting: str
    accounting_used: str  # "exact", "exact-grid", "zcdp", "drv" or "paper-unsound"
    epsilon: Fraction
    delta: Fraction
    certificate: dict[str, object] = field(default_factory=dict)
    ratio_grid: str = "fractions"  # the public grid the ratios were rounded down onto

    @property
    def rows(self) -> tuple[int, ...]:
        return tuple(j for j, r in enumerate(self.ratios) if r is not None)

    @property
    def kept_ratios(self) -> tuple[Fraction, ...]:
        return tuple(r for r in self.ratios if r is not None)


class _Classes:
    """The kept rows grouped into classes of equal ``(s_j, shift row Δ_j.)``: every quantity
    the calibration computes (``ε_j = t s_j``, the certified ratio, the composition sums, the
    exact loss law) is equal across a class, so it is computed once and counted ``m_c`` times.

    ``columns``: the distinct columns ``n`` as tuples ``((class, Δ_cn), ...)`` over classes
    with ``Δ_cn > 0`` (default shifts: one column, every class shifted by 1)."""

    def __init__(self, cls: Sequence[int | None], s: Sequence[Fraction],
                 shifts: Sequence[Sequence[int]] | None) -> None:
        self.row_class: list[int | None]
        if shifts is None:
            self.row_class = list(cls)
            self.s = list(s)
            self.m = [0] * len(s)
            for c in cls:
                if c is not None:
                    self.m[c] += 1
            keep = [c for c in range(len(s)) if self.m[c]]
            self.s = [self.s[c] for c in keep]
            self.m = [self.m[c] for c in keep]
            renum = {c: i for i, c in enumerate(keep)}
            self.row_class = [None if c is None else renum[c] for c in cls]
            self.shift_rows: list[tuple[int, ...]] = [(1,) for _ in self.s]
        else:
            if len(shifts) != len(cls):
                raise ParameterError(f"shifts has {len(shifts)} rows but lambdas has {len(cls)}")
            index: dict[tuple[int, tuple[int, ...]], int] = {}
            self.s, self.m, self.shift_rows, self.row_class = [], [], [], []
            for j, c in enumerate(cls):
                if c is None:
                    self.row_class.append(None)
                    continue
                row = tuple(shifts[j])
                key = (c, row)
                k = index.get(key)
                if k is None:
                    k = index[key] = len(self.s)
                    self.s.append(s[c])
                    self.m.append(0)
                    self.shift_rows.append(row)
                self.m[k] += 1
                self.row_class.append(k)
        self.rows = sum(self.m)
        width = len(self.shift_rows[0]) if self.shift_rows else 0
        seen: dict[tuple[tuple[int, int], ...], None] = {}
        for n in range(width):
            col = tuple((c, row[n]) for c, row in enumerate(self.shift_rows) if row[n])
            seen.setdefault(col, None)
        self.columns = list(seen)
        self.top_shift = [max(row) for row in self.shift_rows]


def _composition_ok(eps: Sequence[Fraction], classes: _Classes, epsilon: Fraction,
                    log_inv: Interval, mode: str, bits: int = 64) -> bool:
    """Certified: the composition bound ``mode`` on rational ``ε_j`` (one per class) is
    ``<= epsilon`` in every column (sums over rows taken per class with multiplicity: the same
    exact rationals as row by row)."""
    for col in classes.columns:
        counts: dict[Fraction, int] = {}
        for c, d in col:
            v = d * eps[c]
            counts[v] = counts.get(v, 0) + classes.m[c]
        s2 = sum((k * e * e for e, k in counts.items()), Fraction(0))
        if mode in ("paper-unsound", "drv"):
            hi = _sqrt_iv(Interval(2 * log_inv.lo * s2, 2 * log_inv.hi * s2), bits).hi
            if mode == "drv":
                hi += sum((k * e * (exp_interval(e, bits).hi - 1) for e, k in counts.items()),
                          Fraction(0))
        elif mode == "zcdp":
            rho = s2 / 2
            hi = rho + 2 * _sqrt_iv(Interval(rho * log_inv.lo, rho * log_inv.hi), bits).hi
        else:  # pragma: no cover - validated by calibrate
            raise ParameterError(f"accounting = {mode!r}")
        if hi > epsilon:
            return False
    return True


class _Evaluator:
    def __init__(self, classes: _Classes, epsilon: Fraction, delta: Fraction, mode: str,
                 max_den: int, grid: str) -> None:
        self.classes = classes
        self.s = classes.s
        self.epsilon, self.delta, self.mode = epsilon, delta, mode
        self.max_den = max_den
        self.grid = grid
        self.log_inv = _ln_pos(1 / delta, 64)
        self.r_lo = exp_interval(epsilon, 64).lo  # rational R_lo <= e^eps
        self.used = mode
        self.last: dict[str, object] = {}
        self._ratio_cache: dict[Fraction, tuple[Fraction, Fraction]] = {}

    def eps(self, t: Fraction) -> list[Fraction]:
        """``ε_c = t s_c`` per class."""
        return [t * s for s in self.s]

    def ratios(self, t: Fraction) -> list[tuple[Fraction, Fraction]]:
        """Certified ``(r_c, W_c)`` per class (one :func:`ratio_below_exp` per distinct ε)."""
        cache = self._ratio_cache
        out = []
        for e in self.eps(t):
            if e not in cache:
                cache[e] = ratio_below_exp(e, self.max_den, self.grid)
            out.append(cache[e])
        return out

    def _column_groups(self, ratios: Sequence[Fraction]) -> list[dict[tuple[Fraction, int], int]]:
        """Per distinct column: ``{(r, Δ): number of rows}`` (classes with equal rounded ratio
        merge, exactly as the row-by-row profile groups them)."""
        out = []
        for col in self.classes.columns:
            groups: dict[tuple[Fraction, int], int] = {}
            for c, d in col:
                key = (ratios[c], d)
                groups[key] = groups.get(key, 0) + self.classes.m[c]
            out.append(groups)
        return out

    def ok(self, t: Fraction) -> bool:
        if t <= 0:
            return True
        if self.mode != "exact":
            return _composition_ok(self.eps(t), self.classes, self.epsilon, self.log_inv,
                                   self.mode)
        ratios = [r for r, _ in self.ratios(t)]
        cols = self._column_groups(ratios)
        support = max((_support(g) for g in cols), default=1)
        if support <= EXACT_SUPPORT:
            d = max((column_delta(g, self.r_lo, EXACT_SUPPORT) for g in cols),
                    default=max(Fraction(0), 1 - self.r_lo))
            self.used = "exact"
            self.last = {"delta_exact": d, "R_lo": self.r_lo}
            return d <= self.delta
        # dominating grid: rho ~ e^{max eps / steps}, one bound per distinct column
        steps = min(GRID_STEPS, GRID_SLOTS // max(1, self.classes.rows))
        if steps < MIN_GRID_STEPS:
            self.used = "zcdp"
            return False
        top = max(d * e for d, e in zip(self.classes.top_shift, self.eps(t)))
        rho = 1 + Fraction(1, max(1, int(steps / top)))
        worst = Fraction(0)
        for g in cols:
            worst = max(worst, GridBound(grid_exponents_counts(g, rho), rho
                                         ).delta_upper(self.r_lo))
            if worst > self.delta:
                break
        self.used = "exact-grid"
        self.last = {"delta_upper": worst, "R_lo": self.r_lo, "grid_ratio": rho}
        return worst <= self.delta


def _support(groups: dict[tuple[Fraction, int], int]) -> int:
    """``prod (Δ m + 1)``: the bound :attr:`PrivacyProfile.support_bound` uses."""
    size = 1
    for (_, d), m in groups.items():
        size *= d * m + 1
    return size


def calibrate(lambdas: Sequence[object], epsilon: object, delta: object, shape: str = "fourier",
              accounting: str = "exact", shifts: Sequence[Sequence[int]] | None = None,
              max_denominator: int = DEFAULT_MAX_DENOMINATOR, precision: int | None = None,
              ratio_grid: str = "fractions") -> Calibration:
    """Per-row ratios for an ``(ε, δ)`` target (see the module docstring).

    ``lambdas[j]``: the public weight of row ``j`` (the eigenvalue ``λ_j = (W h)_j`` for
    Walsh); rows with ``λ_j = 0`` are not released.  ``shifts[j][n] = Δ_jn = |T_jn|`` (default:
    one column of ones, the paper's "each coefficient has sensitivity 1").

    Cost: the bisection works on classes of rows with equal ``(s_j, Δ_j.)`` (:class:`_Classes`),
    so it depends on the number of distinct ``|λ_j|`` (and shift rows), not on ``N``; the
    per-row tuples are filled once at the end.
    """
    eps, dlt = epsilon_delta(epsilon, delta)
    if accounting not in ACCOUNTING_MODES:
        raise ParameterError(f"accounting = {accounting!r} must be one of "
                             f"{', '.join(ACCOUNTING_MODES)}")
    if isinstance(max_denominator, bool) or not isinstance(max_denominator, int) \
            or max_denominator < 1:
        raise ParameterError(f"max_denominator = {max_denominator!r} must be a positive int")
    if ratio_grid not in RATIO_GRIDS:
        raise ParameterError(f"ratio_grid = {ratio_grid!r} must be one of "
                             f"{', '.join(RATIO_GRIDS)}")
    lam = _lambdas(lambdas)
    cls, s = _shape_classes(lam, shape)
    classes = _Classes(cls, s, shifts)
    return _calibrate_classes(lam, classes, eps, dlt, shape, accounting, max_denominator,
                              precision, ratio_grid)


def _calibrate_classes(lam: Sequence[Exact], classes: _Classes, eps: Fraction, dlt: Fraction,
                       shape: str, accounting: str, max_denominator: int,
                       precision: int | None, grid: str = "fractions") -> Calibration:
    ev = _Evaluator(classes, eps, dlt, accounting, max_denominator, grid)
    # bracket: t_lo accepted, t_hi rejected.  Exact accounting starts from the zCDP scale
    # (the exact delta is below the zCDP guarantee, so it is normally accepted).
    t_lo, t_hi = Fraction(0), Fraction(1)
    if accounting == "exact":
        fallback = _calibrate_classes(lam, classes, eps, dlt, shape, "zcdp", max_denominator,
                                      20, grid)
        start = fallback.scale
        if ev.ok(start):
            t_lo, t_hi = start, 2 * start
        else:
            # the exact law is too large and the grid bound is weaker than zCDP (or the grid
            # is unavailable): the zCDP calibration is valid (Bun-Steinke), use it and say so
            return Calibration(fallback.ratios, fallback.epsilons, fallback.witnesses,
                               fallback.scale, shape, accounting, "zcdp", eps, dlt,
                               {"reason": "exact law too large; zCDP scale not beaten by the "
                                          "dominating grid", **fallback.certificate}, grid)
    if precision is None:
        precision = 14 if accounting == "exact" else 20
    while ev.ok(t_hi):
        t_lo, t_hi = t_hi, 2 * t_hi
        if t_hi > 2**20:
            raise ParameterError(f"epsilon = {eps}: no finite scale is rejected; check delta")
    while t_lo == 0 and t_hi > Fraction(1, 2**60):
        t_hi /= 2
        if ev.ok(t_hi):
            t_lo, t_hi = t_hi, 2 * t_hi
            break
    if t_lo == 0:
        raise ParameterError(f"epsilon = {eps}, delta = {dlt}: no positive scale is accepted")
    while (t_hi - t_lo) * 2**precision > t_lo:
        mid = (t_lo + t_hi) / 2
        if ev.ok(mid):
            t_lo = mid
        else:
            t_hi = mid
    if not ev.ok(t_lo):  # re-run at the answer: the certificate records this scale
        raise AssertionError("calibration scale not accepted on re-check")  # pragma: no cover
    per_class = list(zip(ev.eps(t_lo), ev.ratios(t_lo)))
    ratios: list[Fraction | None] = []
    epsilons: list[Fraction | None] = []
    witnesses: list[Fraction | None] = []
    for c in classes.row_class:
        if c is None:
            ratios.append(None)
            epsilons.append(None)
            witnesses.append(None)
        else:
            e, (r, w) = per_class[c]
            ratios.append(r)
            epsilons.append(e)
            witnesses.append(w)
    return Calibration(tuple(ratios), tuple(epsilons), tuple(witnesses), t_lo, shape, accounting,
                       ev.used, eps, dlt, dict(ev.last), grid)


# ---------------------------------------------------------------------------------------------
# MSE comparison


def noise_cost(calibration: Calibration, weights: Sequence[object] | None = None) -> Fraction:
    """``sum_j w_j 2 r_j/(r_j - 1)²`` over released rows: the unclamped discrete-Laplace
    variance ``2r/(r-1)²`` weighted by ``w_j`` (default 1).  With ``w_j = λ_j²`` and divided by
    ``N²`` this is the Walsh mechanism's MSE bound.  Summed per distinct
    ``(w_j, r_j)`` with multiplicity (the same exact rational)."""
    counts: dict[tuple[Exact, Fraction], int] = {}
    for j, r in enumerate(calibration.ratios):
        if r is None:
            continue
        if weights is None:
            w: Exact = 1
        else:
            v = weights[j]
            w = v if type(v) is int else to_fraction(v, f"weights[{j}]")
        key = (w, r)
        counts[key] = counts.get(key, 0) + 1
    return sum((k * w * 2 * r / (r - 1) ** 2 for (w, r), k in counts.items()), Fraction(0))


def mse_gain(lambdas: Sequence[object], epsilon: object, delta: object, shape: str = "fourier",
             shifts: Sequence[Sequence[int]] | None = None,
             modes: Sequence[str] = ACCOUNTING_MODES, **kwargs: object
             ) -> dict[str, dict[str, object]]:
    """For each accounting mode: its scale ``ε_0``, the exact noise cost
    ``sum λ_j² 2 r_j/(r_j-1)²`` and the exact ratio ``cost(mode) / cost("exact")`` (the MSE gain
    of exact accounting; > 1 means exact is better)."""
    lam = _lambdas(lambdas)
    out: dict[str, dict[str, object]] = {}
    for mode in modes:
        cal = calibrate(lam, epsilon, delta, shape, mode, shifts, **kwargs)  # type: ignore[arg-type]
        out[mode] = {"scale": cal.scale, "cost": noise_cost(cal, [v * v for v in lam]),
                     "used": cal.accounting_used, "calibration": cal}
    if "exact" in out:
        base = out["exact"]["cost"]
        for row in out.values():
            row["gain_of_exact"] = row["cost"] / base  # type: ignore[operator]
    return out
