"""ALP-full Lemmas 4.14 and 4.15 on the implementation with its own hash family: every
Carter-Wegman seed of every column, so the collisions are the ones ALP.project makes."""

from __future__ import annotations

import warnings
from fractions import Fraction
from functools import cache

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.alp._alp import gamma, nonvacuous, reads_per_query, spec_estimate_law
from exactdp.randomness import NotForReleaseWarning, SeededSource
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_error import estimate_law, x_error_law, y_error_law
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP Lemma 4.14 (error and reads, real hashing)"
STATEMENT = """ALP-full Lemma 4.14: for alpha = Theta(1), s = Theta(k), E|x_i - x~_i| <= max(0, x_i - beta)
+ O(1/eps), and a query takes O(beta eps) time.  Explicit form checked: E|x_i - x~_i| <=
max(0, x_i - beta) + (8p'q'/(q'-p')^2 + 1/2)/c with c = eps/alpha and p' = 1/(gamma + 2),
gamma = alpha (s - 2k)/(s + alpha k) (Equation 1's walk bound with the collision-inflated flip
probability, plus the rounding's 1/2 in y-units), and a query reads exactly m =
ceil(beta eps/alpha) cells."""
PROOF_IDEA = """The law of (y_i, y~_i) is computed from the implementation
(exactdp.sparse_vectors.alp_error.estimate_law: its RandRound explored, its embed_cells run
on every Carter-Wegman seed of a column, randomized response p, its unary_estimate on every
pattern), with the other keys of the input hashed by the same seeds: no collision model.
Every x_i on the grid (including values above beta), the other keys at 0, beta/2 and beta.
The law must equal the specification's (proofs/alp/_alp.py spec_estimate_law, with the
rounding, hashing and estimator re-derived) on every third input (each x_1 with the other
keys at 0).
Reads: a released sketch whose bits count their reads answers three keys."""

CLAIM_15 = "ALP Lemma 4.15 (tail, real hashing)"
STATEMENT_15 = """ALP-full Lemma 4.15 with its lost gamma reconstructed: for x_i <= beta and
tau >= alpha/eps, Pr[|x_i - x~_i| >= tau] is bounded by (4p'q')^{(tau eps/2 alpha) - 1/2};
checked in y-units (t = tau c, rounding excluded): Pr[|y~ - y| >= t] <= (2/(q'-p'))
(4p'q')^ceil(t/2) with p' = 1/(gamma + 2), gamma = alpha (s - 2k)/(s + alpha k)."""
PROOF_IDEA_15 = """The same exact laws as the Lemma 4.14 row (the implementation's own hashing),
every half-integer t in [1/2, m + 1/2]; the row counts the grid points where the bound is
below 1 and fails if there are none."""

#: (eps, alpha, beta, s, k, d, step of x_i)
QUICK = [(1, 8, 48, 20, 2, 4, 8), (1, 3, 30, 20, 2, 4, 10)]
FULL = [(1, 8, 48, 20, 2, 4, 1), (1, 3, 30, 20, 2, 4, 1), (1, 18, 108, 40, 2, 4, 6),
        (1, 8, 96, 20, 2, 4, 4), (Fraction(1, 2), 4, 48, 30, 3, 6, 4)]

Cfg = tuple[object, object, int, int, int, int, int]


def configs(full: bool) -> list[Cfg]:
    return FULL if full else QUICK


@cache
def _alp(cfg: Cfg) -> ALP:
    eps, alpha, beta, s, k, d, _ = cfg
    return ALP(ALPParams.from_paper(eps, alpha, beta, s, k, d))


def inputs(cfg: Cfg) -> list[tuple[int, dict[int, int]]]:
    """``(x_1, x)``: key 1 at every grid value up to ``beta + beta/4``, keys ``2..k`` all at
    ``0``, ``beta/2`` or ``beta``."""
    _, _, beta, _, k, _, step = cfg
    out = []
    for xi in range(0, beta + beta // 4 + 1, step):
        for other in (0, beta // 2, beta):
            x = {key: other for key in range(2, k + 1) if other}
            if xi:
                x[1] = xi
            out.append((xi, x))
    return out


@cache
def laws(cfg: Cfg) -> tuple[tuple[int, dict[int, int], dict], ...]:
    alp = _alp(cfg)
    return tuple((xi, x, estimate_law(alp, x, 1)) for xi, x in inputs(cfg))


def flip_eff(cfg: Cfg) -> Fraction:
    _, alpha, _, s, k, _, _ = cfg
    return 1 / (gamma(Fraction(alpha), s, k) + 2)  # type: ignore[arg-type]


def _reads(alp: ALP) -> list[int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotForReleaseWarning)
        src = SeededSource(2026)
    sketch = alp.project({1: 1}, src)
    return [reads_per_query(sketch, key) for key in (1, 2, alp.params.universe)]


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_all, bites, total = Fraction(0), 0, 0
    for cfg in configs(full):
        alp = _alp(cfg)
        prm = alp.params
        c, m, beta = prm.scale, prm.columns, cfg[2]
        pe = flip_eff(cfg)
        const = (ex.eq1_bound(pe) + Fraction(1, 2)) / c
        worst, arg = Fraction(-1), None
        for xi, x, law in laws(cfg):
            errs = x_error_law(law, alp, xi)
            mae = sum((abs(e) * w for e, w in errs.items()), Fraction(0))
            bound = max(Fraction(0), Fraction(xi - beta)) + const
            total += 1
            bites += bound < max(Fraction(xi), m / c - xi)
            if mae / bound > worst:
                worst, arg = mae / bound, {"x": x, "mae": mae, "bound": bound}
        reads = _reads(alp)
        # the law read off the implementation must be the specification's (every third input:
        # each x_1 value of the grid with key 2 at 0)
        probe = laws(cfg)[::3]
        agree = all(law == spec_estimate_law(prm, alp.hashes.prime, x, 1)
                    for _, x, law in probe)
        eps, alpha = Fraction(cfg[0]), Fraction(cfg[1])  # type: ignore[arg-type]
        m_paper = -((-beta * eps / alpha).numerator // (beta * eps / alpha).denominator)
        ok_reads = reads == [m] * 3 and m == m_paper
        worst_all = max(worst_all, worst)
        certs.append(Certificate(
            CLAIM, repr(alp), {"eps": cfg[0], "alpha": cfg[1], "beta": beta, "s": prm.rows,
                               "k": prm.sparsity, "d": prm.universe, "m": m, "p_eff": pe},
            f"{len(laws(cfg))} inputs, every CW seed (P = {alp.hashes.prime})", worst,
            "E|x~-x| / (max(0, x-beta) + (8p'q'/(q'-p')^2 + 1/2)/c) <= 1; reads == m",
            worst <= 1 and ok_reads and agree,
            {"attained_at": arg, "reads": reads, "m = ceil(beta eps/alpha)": m_paper,
             "law_matches_spec": f"{len(probe)} inputs" if agree else "NO"}))
    certs.append(nonvacuous(CLAIM, bites, total,
                            "below the largest possible error max(x, m/c - x)"))
    return ClaimReport(CLAIM, f"{len(configs(full))} configurations, k-sparse inputs, every "
                       f"Carter-Wegman seed", f"max E|x~-x|/bound {brief(worst_all)}; "
                       f"{bites} of {total} bounds non-trivial", "<= 1; reads = m", certs)


def check_tail(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    worst_all, bites, total = Fraction(0), 0, 0
    for cfg in configs(full):
        alp = _alp(cfg)
        m = alp.params.columns
        pe = flip_eff(cfg)
        worst, arg = Fraction(0), None
        for xi, x, law in laws(cfg):
            if xi > cfg[2]:
                continue  # the lemma assumes x_i <= beta
            errs = y_error_law(law)
            for t2 in range(1, 2 * m + 2):
                t = Fraction(t2, 2)
                bound = ex.tail_bound(pe, t)
                pr = sum((w for e, w in errs.items() if abs(e) >= t), Fraction(0))
                total += 1
                bites += bound < 1
                if pr / bound > worst:
                    worst, arg = pr / bound, {"x": x, "t": t, "probability": pr}
        worst_all = max(worst_all, worst)
        certs.append(Certificate(
            CLAIM_15, repr(alp), {"alpha": cfg[1], "s": cfg[3], "k": cfg[4], "p_eff": pe},
            "x_1 <= beta, t = 1/2 .. m + 1/2, every CW seed", worst,
            "Pr[|y~-y| >= t] / ((2/(q'-p')) (4p'q')^ceil(t/2)) <= 1", worst <= 1,
            {"attained_at": arg}))
    certs.append(nonvacuous(CLAIM_15, bites, total, "below 1"))
    return ClaimReport(CLAIM_15, f"{len(configs(full))} configurations, every Carter-Wegman "
                       f"seed", f"max Pr/bound {brief(worst_all)}; {bites} of {total} "
                       f"bounds non-trivial", "<= 1", certs)


check.CLAIM = CLAIM  # type: ignore[attr-defined]
check_tail.CLAIM = CLAIM_15  # type: ignore[attr-defined]
CHECKS = [check, check_tail]
