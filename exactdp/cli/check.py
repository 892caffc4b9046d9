"""``exactdp check MECHANISM``: exact privacy certificates, one sub-command per mechanism.

* ``geosample`` / ``fastsample`` -- the counting mechanisms of Balcer & Vadhan, Section 4
  (:mod:`exactdp.cli.counting` declares them);
* ``alp`` -- ALP-projection (Aumüller, Lebeda & Pagh, ALP-full Algorithm 4 / ALP-short Algorithm 1):
  the exact worst ratio over every hash seed of the family and every neighbouring pair of a
  small domain, read off the implementation (:mod:`exactdp.sparse_vectors.alp_check`).

The other papers' checks join here as further sub-commands.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from math import comb
from typing import Any

from exactdp.cli._common import (
    EPILOG,
    add_json,
    add_max_seconds,
    clip_value,
    emit_json,
    epsilon_in_range,
)
from exactdp.params import ParameterError, ResourceLimitError

__all__ = ["COMMANDS", "add_check", "cmd_check_alp", "saturation_units"]

#: Refuse an ALP domain whose estimated work (cell comparisons) exceeds this.
MAX_ALP_WORK = 20_000_000


def add_check(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from exactdp.cli import counting

    p = sub.add_parser(
        "check", help="exact privacy certificate of a mechanism (nothing is released)",
        description="Compute a mechanism's exact worst privacy ratio from the implementation "
                    "and certify or refute it against the claim. MECHANISM is geosample or "
                    "fastsample (counting queries, Balcer & Vadhan), alp (ALP sparse-vector "
                    "projection), convolution (Fawaz, Muthukrishnan & Nikolov) or "
                    "sign-oporp (DP-SignOPORP, Li & Li). Each check covers the inputs where "
                    "its claim is tightest or says 'not covered' (exit status 2) and what to "
                    "raise; it counts the non-vacuous pairs (whose laws differ). "
                    "'exactdp check MECHANISM --help' describes each and what its --epsilon "
                    "means.",
        epilog=EPILOG)
    targets = p.add_subparsers(dest="mechanism", required=True, metavar="MECHANISM")
    counting.add_check(targets)
    _add_alp(targets)
    from exactdp.cli.convolution_check import add_check_convolution

    add_check_convolution(targets)
    from exactdp.cli.check_projections import add_check_sign_oporp

    add_check_sign_oporp(targets)


def _add_alp(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = targets.add_parser(
        "alp", help="privacy certificate of ALP-projection on a small domain",
        description="ALP-projection (Aumuller, Lebeda & Pagh, ALP-full Algorithm 4): the exact "
                    "worst ratio Pr[z~ | x, h] / Pr[z~ | x', h] over EVERY hash seed h of the "
                    "family (Carter-Wegman h(i) = ((a i + b) mod P) mod s + 1 over the "
                    "smallest prime P > max(d, s), all P(P-1) seeds in every column; the "
                    "seeds are released, so the ratio must hold for each), every output z~, "
                    "and every ordered pair of k-sparse inputs x, x' with ||x - x'||_1 <= 1 "
                    "whose entries lie on the grid {0, 1/G, 2/G, ...} up to beta + 1. The "
                    "cell probabilities come from the implementation's own rounding coins "
                    "(explored exactly) and embedding; the ratio is printed as an exact "
                    "fraction with its witness (pair, seeds, output) and compared with e^eps "
                    "through certified rational bounds. Exit status 0 if the ratio is at "
                    "most e^eps, 1 if it exceeds it (a violation), 2 for bad arguments or a "
                    "domain too large to enumerate.",
        epilog=EPILOG)
    p.add_argument("--epsilon", required=True,
                   help="the privacy parameter eps > 0 to certify against (any exact "
                        "rational, e.g. '1' or '1/2')")
    p.add_argument("--alpha", help="the paper's alpha > 0 (paper variant: c = eps/alpha, "
                                   "p = 1/(alpha+2); histogram-tight: eps/alpha must be 1/n); "
                                   "required by --variant paper (the default) and "
                                   "histogram-tight, refused by --variant unscaled")
    p.add_argument("--rows", required=True, help="s, the number of rows (a positive integer)")
    p.add_argument("--universe-size", required=True,
                   help="d: keys are 1..d (a small positive integer)")
    p.add_argument("--sparsity", required=True,
                   help="k: at most k non-zero entries per input (a positive integer)")
    p.add_argument("--beta", default="3",
                   help="the value cap beta > 0 (m = ceil(beta eps/alpha) columns; default "
                        "3); inputs range up to max(beta + 1, m/c) so that crossing the cap "
                        "is covered")
    p.add_argument("--grid", default="1",
                   help="G: inputs are multiples of 1/G (default 1: integer entries)")
    p.add_argument("--variant", choices=("paper", "unscaled", "histogram-tight"),
                   default="paper",
                   help="paper = ALP-full Algorithm 4; unscaled = ALP-full Section 4.3 (c = 1, "
                        "p = 1/(eps+2)); histogram-tight (not in the paper; c = 1/n, "
                        "p = c/(L-1+2c) with L a certified lower bound of e^eps; integer "
                        "inputs only)")
    add_json(p)
    add_max_seconds(p)
    p.set_defaults(func=cmd_check_alp)


def _params(args: argparse.Namespace) -> Any:
    from exactdp.params import positive_fraction, positive_int, to_fraction
    from exactdp.sparse_vectors.alp_params import ALPParams, tight_bound

    eps = positive_fraction(args.epsilon, "--epsilon")
    epsilon_in_range(eps)
    rows = positive_int(args.rows, "--rows")
    d = positive_int(args.universe_size, "--universe-size")
    k = positive_int(args.sparsity, "--sparsity")
    grid = positive_int(args.grid, "--grid")
    beta = positive_fraction(args.beta, "--beta")
    # The check enumerates every k-sparse input and pairs of them: at least (d + 1)^2 cell
    # comparisons, with k and s sizing lists.  Refused here, before the hash family (a prime
    # above d) or the saturation scan (a list of k entries) is built for a domain that could
    # never be enumerated.
    for name, value, need in (("--universe-size", d, (d + 1) ** 2), ("--sparsity", k, k),
                              ("--rows", rows, rows)):
        if need > MAX_ALP_WORK:
            raise ResourceLimitError(
                f"the domain is too large to enumerate: {name} = {clip_value(value)} needs "
                f"more than the limit of {MAX_ALP_WORK} cell comparisons; use smaller "
                f"--universe-size, --sparsity or --rows")
    if args.variant == "unscaled":
        if args.alpha is not None:
            raise ParameterError("--alpha does not apply to --variant unscaled (c = 1)")
        return eps, beta, ALPParams.unscaled(eps, beta, rows, k, d, grid)
    if args.alpha is None:
        raise ParameterError(f"--variant {args.variant} needs --alpha (e.g. --alpha 3)")
    alpha = to_fraction(args.alpha, "--alpha")
    if alpha <= 0:
        raise ParameterError(f"--alpha = {alpha} must be positive")
    if args.variant == "paper":
        return eps, beta, ALPParams.from_paper(eps, alpha, beta, rows, k, d, grid)
    c = eps / alpha
    if c.numerator != 1:
        raise ParameterError(f"--variant histogram-tight needs eps/alpha = 1/n, got {c}")
    if grid != 1:
        raise ParameterError(f"--grid = {grid}: --variant histogram-tight is private only "
                             f"on integer inputs (grid 1)")
    return eps, beta, ALPParams.histogram_tight(tight_bound(eps), c.denominator, beta, rows,
                                                k, d)


def saturation_units(prm: Any) -> int:
    """``ceil(m g / c)``: the smallest entry ``X`` (grid units) whose rounded value
    ``min(RandRound(X c / g), m)`` is ``m`` for sure.  Every larger entry has the same law,
    and clamping each entry of a neighbouring pair at it gives a neighbouring pair (or two
    equal inputs) with the same two laws: a grid up to it covers every input."""
    top = Fraction(prm.columns * prm.grid) / prm.scale
    return -((-top.numerator) // top.denominator)


def _saturated(prm: Any, top: int) -> bool:
    """The implementation's rounding law is the same at ``top`` and above (checked at
    ``top + 1``, ``top + g`` and ``2 top + g``): the premise of :func:`saturation_units`."""
    from exactdp.sparse_vectors.alp_check import units_law

    law = units_law(prm, {1: top})
    return all(units_law(prm, {1: v}) == law for v in (top + 1, top + prm.grid,
                                                        2 * top + prm.grid))


def _cells_differ(a: Any, b: Any) -> bool:
    """Two inputs' cell probabilities ``(n1, n0, d)`` differ on some seed and cell."""
    return any(x1 * yd != y1 * xd for sa, sb in zip(a, b) for ca, cb in zip(sa, sb)
               for (x1, _, xd), (y1, _, yd) in zip(ca, cb))


def cmd_check_alp(args: argparse.Namespace) -> int:
    """Every k-sparse input with entries up to :func:`saturation_units` (and at least
    ``beta + 1``), every seed of the family: past saturation every entry has one law, so
    each neighbouring pair of the mechanism's domain has a pair on the grid with the same
    two laws; the premise is confirmed on the implementation, else "not covered"."""
    from exactdp.certificate import Certificate, brief
    from exactdp.checker import RatioWitness, certify_ratio
    from exactdp.cli.check_coverage import Coverage, outcome
    from exactdp.sparse_vectors import exact as ex
    from exactdp.sparse_vectors.alp_check import worst_ratio_over_family

    eps, beta, prm = _params(args)
    family = prm.default_hashes()
    saturation = saturation_units(prm)
    units = max(-((-beta * prm.grid).numerator // (beta * prm.grid).denominator) + prm.grid,
                saturation)
    k = min(prm.sparsity, prm.universe)
    n_inputs = sum(comb(prm.universe, j) * units**j for j in range(k + 1))
    seeds = family.prime * (family.prime - 1)
    work = n_inputs * n_inputs + n_inputs * n_inputs * prm.columns * seeds * prm.rows
    if work > MAX_ALP_WORK:
        raise ResourceLimitError(
            f"the domain is too large to enumerate: {n_inputs} inputs (d = {prm.universe}, "
            f"k = {prm.sparsity}, {units} grid values up to max(beta + 1, m/c)), {seeds} "
            f"seeds per column, m = {prm.columns}, s = {prm.rows}: about {work} cell "
            f"comparisons (limit {MAX_ALP_WORK}); use smaller --universe-size, --sparsity, "
            f"--beta, --grid or --rows")
    inputs = ex.sparse_inputs(prm.universe, prm.sparsity, units)
    pairs = list(ex.neighbour_pairs(inputs, prm.grid))
    cache: dict[Any, Any] = {}
    w = worst_ratio_over_family(prm, family, pairs, cache)
    ok, bound = certify_ratio(RatioWitness(w.ratio, w.numerator_input, w.denominator_input,
                                           w.output, w.p, w.q), eps)
    differ = sum(1 for x, x2 in pairs if _cells_differ(cache[tuple(sorted(x.items()))],
                                                       cache[tuple(sorted(x2.items()))]))
    top = Fraction(saturation, prm.grid)
    coverage = Coverage(
        _saturated(prm, saturation),
        f"entries reach {top} >= m/c = {Fraction(prm.columns) / prm.scale}, where the "
        f"rounded value is the cap m = {prm.columns} for sure; above it every entry has the "
        f"same law (checked on the implementation), so clamping maps every neighbouring pair "
        f"into the grid", differ, len(pairs),
        "the rounding law still changes above m/c: this implementation is outside the "
        "check's premise")
    word, status = outcome(ok, coverage, brief(w.ratio))
    params = {"variant": prm.variant, "epsilon": eps, "c": prm.scale, "p": prm.flip,
              "m": prm.columns, "s": prm.rows, "k": prm.sparsity, "d": prm.universe,
              "grid": prm.grid, "beta": beta, "epsilon_cert": prm.epsilon_cert,
              "family": family.describe()}
    domain = (f"{len(pairs)} ordered pairs ||x - x'||_1 <= 1 of {len(inputs)} k-sparse inputs "
              f"(entries in [0, {Fraction(units, prm.grid)}] step 1/{prm.grid}) x "
              f"{seeds}^{prm.columns} seed tuples (Carter-Wegman, P = {family.prime})")
    cert = Certificate(f"ALP-full Lemma 4.12: eps-DP ({prm.variant} variant)", repr(prm), params,
                       domain, w.ratio, bound, ok and coverage.covered,
                       {"ratio_witness": w.to_json()})
    doc = {**cert.to_json(), "verdict": word, "coverage": coverage.to_json()}
    if not emit_json(args, doc, None):
        wit = w.to_json()
        print(f"{cert.claim}\n  parameters: c = {prm.scale}, p = {prm.flip}, m = {prm.columns}"
              f", s = {prm.rows}, k = {prm.sparsity}, d = {prm.universe}, grid 1/{prm.grid}, "
              f"eps_cert = {prm.epsilon_cert}\n  domain: {domain}")
        print(f"  worst ratio: {w.ratio}\n    attained at x = {wit['numerator_input']}, "
              f"x' = {wit['denominator_input']}, seeds {wit['seeds']},\n    output rows "
              f"{wit['output_rows']}: Pr = {brief(w.p)} / {brief(w.q)}")
        print(coverage.lines())
        print(f"  bound: {bound}\n  verdict: {word}  (exact values: "
              f"--json; decimals shown are truncated, not rounded)")
    return status


COMMANDS = [add_check]
