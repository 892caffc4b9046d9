"""exactdp's exact accountant against dp_accounting's PLD and RDP accountants and OpenDP's zCDP.

    python tests/benchmarks/bench_accounting_peers.py            # a few minutes on 2 cores
    python tests/benchmarks/bench_accounting_peers.py --ks 1,10,100 --sigma2 100   # quicker
    python tests/benchmarks/bench_accounting_peers.py --record   # + results/*.md and *.png

For ``k`` independent releases of one mechanism on the neighbouring inputs ``a = 0, b = 1``
(counts for GeoSample and FastSample, centres for the discrete Gaussian), the ``delta`` at a
fixed ``eps`` and the ``eps`` at ``delta = 10**-6`` (the budget a release of that guarantee
must claim) by:

* **exactdp**: the exact privacy loss of the implementation's own law
  (``PrivacyLoss.of``/``from_laws``) composed exactly (``power``) where its ratios lie on one
  lattice (GeoSample, FastSample at ``n = 1``); otherwise a certified interval from
  :mod:`exactdp.accounting.grid` (ratios rounded up and down onto ``(1 + 2**-j)**e``, masses
  to 96 bits, both bounds composed).  Exact values are printed truncated to the digits shown
  (``delta`` rounded down, then the interval's ends rounded outward): every printed exactdp
  figure is a true bound.
* **PLD**: dp_accounting's privacy-loss-distribution accountant, pessimistic
  (``pessimistic_estimate=True``, ``value_discretization_interval = 1e-4``), built
  ``from_two_probability_mass_functions`` from the exact laws (as floats); and, where it has
  one, from its own mechanism (``from_discrete_laplace_mechanism`` for GeoSample, whose loss
  is the discrete Laplace's; ``from_discrete_gaussian_mechanism`` for the discrete Gaussian,
  the ideal untruncated law); ``self_compose(k)``.
* **RDP**: dp_accounting's ``RdpAccountant`` (default orders): GeoSample and FastSample at
  ``n = 1`` as ``RandomizedResponseDpEvent`` (two ratios ``v``, ``1/v`` with the same masses:
  the same privacy loss as binary randomized response; REPLACE_ONE neighbours); FastSample
  at ``n = 4`` by its pure ``eps = ln(max ratio)`` as ``ZCDpEvent(eps**2 / 2)`` (Bun and
  Steinke); the discrete Gaussian as ``ZCDpEvent(1 / (2 sigma**2))`` (Canonne, Kamath and
  Steinke).
* **zCDP**: OpenDP 0.16: the pure mechanisms through ``make_pureDP_to_zCDP`` of an integer
  Laplace (geometric) measurement of the same ``eps``, the discrete Gaussian as
  ``make_gaussian`` on integers with ``scale = sigma``; ``make_composition`` of ``k`` copies,
  then ``make_zCDP_to_approxDP``.

A peer's ``delta`` below exactdp's certified lower bound (or its ``eps`` below exactdp's
lower bound) *understates* the privacy loss: such lines are flagged ``UNDERSTATES``.
Times are CPU seconds of one accountant for one ``k`` (exactdp: the composition, both
bounds where an interval, and both queries; peers: building, composing and both queries).
Floats appear only here, in the peers' inputs and in the plot.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[2]))  # this checkout's exactdp

import record

from exactdp.accounting import PrivacyLoss
from exactdp.accounting.grid import epsilon_interval, grid_bounds
from exactdp.certified import Interval
from exactdp.discrete_gaussian import DiscreteGaussian
from exactdp.fastsample import FastSample
from exactdp.geosample import GeoSample

DELTA = Fraction(1, 10**6)
PNG = record.RESULTS / "bench_accounting_peers.png"
COLOURS = {"PLD": "C0", "PLD mech": "C1", "RDP": "C2", "zCDP": "C3"}
RECORDING = record.FLAG in sys.argv  # record.run drops the flag before main() runs


# --------------------------------------------------------------------------- printing


def _digits(x: Fraction, up: bool, sig: int = 4) -> str:
    """``x >= 0`` in scientific notation with ``sig`` significant digits, rounded down
    (or up): an exact bound, never a nearest rounding."""
    if x == 0:
        return "0"
    e = len(str(x.numerator // x.denominator)) - 1 if x >= 1 else \
        -len(str(x.denominator // x.numerator))
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    scaled = x / Fraction(10) ** (e - sig + 1)
    m = -((-scaled.numerator) // scaled.denominator) if up else scaled.numerator // scaled.denominator
    if m >= 10**sig:
        m //= 10
        e += 1
    text = str(m)
    return f"{text[0]}.{text[1:]}e{e:+03d}"


def show(box: Interval) -> str:
    lo, hi = _digits(box.lo, False), _digits(box.hi, True)
    return lo if box.lo == box.hi and lo == hi else f"[{lo}, {hi}]"


def show_float(x: float | None) -> str:
    return "n/a" if x is None else ("inf" if math.isinf(x) else f"{x:.4e}")


# --------------------------------------------------------------------------- exactdp


class Exact:
    """The exact loss composed exactly (lattice ratios) or bounded on a grid of ratios
    ``(1 + 2**-j)**e``, ``j = grid_bits + floor(log2(1000 / k) / 2)`` (finer for fewer
    releases)."""

    def __init__(self, loss: PrivacyLoss, grid_bits: int | None) -> None:
        self.loss = loss
        self.grid_bits = grid_bits

    def run(self, k: int, eps: Fraction) -> tuple[Interval, Interval | None, str]:
        if self.grid_bits is None:
            composed = self.loss.power(k)
            return composed.delta(eps), composed.epsilon(DELTA), "exact"
        j = self.grid_bits + max(0, (1000 // k).bit_length() - 1) // 2
        lower, upper = grid_bounds(self.loss, Fraction(2**j + 1, 2**j))
        lo, hi = lower.power(k), upper.power(k)
        box = Interval(lo.delta(eps), hi.delta(eps))
        return box, epsilon_interval(lo, hi, DELTA), f"grid 2^-{j}"


# --------------------------------------------------------------------------- peers


def _logs(law: dict[Any, Fraction]) -> dict[Any, float]:
    return {o: math.log(p.numerator) - math.log(p.denominator) for o, p in law.items() if p}


def pld_from_laws(p: dict[Any, Fraction], q: dict[Any, Fraction]) -> Callable[[int], Any]:
    from dp_accounting.pld import privacy_loss_distribution as pld

    base = pld.from_two_probability_mass_functions(_logs(q), _logs(p), pessimistic_estimate=True)
    return lambda k: base.self_compose(k) if k > 1 else base


def rdp(event_of: Callable[[], Any]) -> Callable[[int], Any]:
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant as rdp_acc

    def make(k: int) -> Any:
        acc = rdp_acc.RdpAccountant(
            neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        acc.compose(dp_accounting.SelfComposedDpEvent(event_of(), k))
        return acc

    return make


def opendp_zcdp(measurement_of: Callable[[], Any]) -> Callable[[int], Any]:
    import opendp.prelude as dp

    def make(k: int) -> Any:
        m = measurement_of()
        comp = dp.c.make_composition([m] * k)
        return dp.c.make_zCDP_to_approxDP(comp).map(1)

    return make


def _pure_zcdp(eps: float) -> Callable[[], Any]:
    def make() -> Any:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        lap = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                scale=1 / eps)
        return dp.c.make_pureDP_to_zCDP(lap)

    return make


def _dgauss_opendp(sigma: float) -> Callable[[], Any]:
    def make() -> Any:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        return dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int),
                                  scale=sigma)

    return make


def query(kind: str, obj: Any, eps: float) -> tuple[float, float]:
    """``(delta at eps, eps at DELTA)`` of a composed peer accountant."""
    if kind == "pld":
        return obj.get_delta_for_epsilon(eps), obj.get_epsilon_for_delta(float(DELTA))
    if kind == "rdp":
        return obj.get_delta(eps), obj.get_epsilon(float(DELTA))
    return obj.delta(eps), obj.epsilon(float(DELTA))


# --------------------------------------------------------------------------- the cases


def cases(args: argparse.Namespace) -> list[dict[str, Any]]:
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution as pld

    out = []
    geo = GeoSample(args.n, args.eps)
    loss = PrivacyLoss.of(geo, 0, 1)
    top = loss.max_ratio
    assert top is not None
    ln_top = math.log(top.numerator) - math.log(top.denominator)
    mass_true = float(max(p for _, p, _ in loss.atoms()))
    out.append({
        "name": f"GeoSample(n={args.n}, eps={args.eps})", "exact": Exact(loss, None),
        "peers": {
            "PLD (laws)": ("pld", pld_from_laws(*_laws(geo))),
            "PLD (disc. Laplace)": ("pld", _pld_const(
                lambda: pld.from_discrete_laplace_mechanism(ln_top))),
            "RDP (RR event)": ("rdp", rdp(lambda: dp_accounting.RandomizedResponseDpEvent(
                2 * (1 - mass_true), 2))),
            "zCDP (OpenDP)": ("zcdp", opendp_zcdp(_pure_zcdp(ln_top))),
        }})
    fs1 = FastSample(1, args.eps, args.gamma)
    loss1 = PrivacyLoss.of(fs1, 0, 1)
    top1 = loss1.max_ratio
    assert top1 is not None
    ln1 = math.log(top1.numerator) - math.log(top1.denominator)
    mass1 = float(max(p for _, p, _ in loss1.atoms()))
    out.append({
        "name": f"FastSample(n=1, eps={args.eps}, gamma={args.gamma})",
        "exact": Exact(loss1, None),
        "peers": {
            "PLD (laws)": ("pld", pld_from_laws(*_laws(fs1))),
            "RDP (RR event)": ("rdp", rdp(lambda: dp_accounting.RandomizedResponseDpEvent(
                2 * (1 - mass1), 2))),
            "zCDP (OpenDP)": ("zcdp", opendp_zcdp(_pure_zcdp(ln1))),
        }})
    fs = FastSample(args.n, args.eps, args.gamma)
    loss4 = PrivacyLoss.of(fs, 0, 1)
    top4 = loss4.max_ratio
    assert top4 is not None
    ln4 = math.log(top4.numerator) - math.log(top4.denominator)
    out.append({
        "name": f"FastSample(n={args.n}, eps={args.eps}, gamma={args.gamma})",
        "exact": Exact(loss4, args.grid_bits),
        "peers": {
            "PLD (laws)": ("pld", pld_from_laws(*_laws(fs))),
            "RDP (pure eps)": ("rdp", rdp(lambda: dp_accounting.ZCDpEvent(ln4**2 / 2))),
            "zCDP (OpenDP)": ("zcdp", opendp_zcdp(_pure_zcdp(ln4))),
        }})
    g = DiscreteGaussian(args.sigma2)
    law = g.law()
    shifted = {x + 1: p for x, p in law.items()}
    sigma = math.sqrt(args.sigma2)
    out.append({
        "name": f"DiscreteGaussian(sigma^2={args.sigma2})",
        "exact": Exact(PrivacyLoss.from_laws(law, shifted), args.dg_grid_bits),
        "peers": {
            "PLD (laws)": ("pld", pld_from_laws(law, shifted)),
            "PLD (disc. Gaussian)": ("pld", _pld_const(
                lambda: pld.from_discrete_gaussian_mechanism(sigma))),
            "RDP (zCDP event)": ("rdp", rdp(lambda: dp_accounting.ZCDpEvent(
                1 / (2 * args.sigma2)))),
            "zCDP (OpenDP)": ("zcdp", opendp_zcdp(_dgauss_opendp(sigma))),
        }})
    return out


def _laws(mech: Any) -> tuple[dict[Any, Fraction], dict[Any, Fraction]]:
    from exactdp.accounting.loss import laws_of

    return laws_of(mech, 0, 1)


def _pld_const(build: Callable[[], Any]) -> Callable[[int], Any]:
    def make(k: int) -> Any:
        base = build()
        return base.self_compose(k) if k > 1 else base

    return make


# --------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ks", default="1,10,100,1000", help="comma-separated numbers of releases")
    ap.add_argument("--n", type=int, default=4, help="GeoSample's and FastSample's n")
    ap.add_argument("--eps", type=Fraction, default=Fraction(1, 10),
                    help="GeoSample's and FastSample's epsilon parameter")
    ap.add_argument("--gamma", type=Fraction, default=Fraction(1, 100), help="FastSample's gamma")
    ap.add_argument("--sigma2", type=int, default=10**4, help="the discrete Gaussian's sigma^2")
    ap.add_argument("--at-eps", type=Fraction, default=Fraction(1),
                    help="the eps at which delta is compared")
    ap.add_argument("--grid-bits", type=int, default=12,
                    help="FastSample(n > 1): ratios rounded onto (1 + 2^-j)^e")
    ap.add_argument("--dg-grid-bits", type=int, default=16,
                    help="the discrete Gaussian: ratios rounded onto (1 + 2^-j)^e")
    ap.add_argument("--plot", action="store_true", help="write the PNG (also with --record)")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    eps = args.at_eps
    print(f"delta at eps = {eps} and eps at delta = {DELTA} of k releases on the neighbouring "
          f"inputs 0 and 1; times in CPU seconds\n")
    findings: list[str] = []
    curves: dict[str, dict[str, list[tuple[int, float, float]]]] = {}
    for case in cases(args):
        print(f"== {case['name']} ==")
        print(f"{'k':>5}  {'accountant':<21}{'delta at eps':>26}{'eps at delta':>26}"
              f"{'time':>9}  vs exactdp")
        per = curves.setdefault(case["name"], {})
        for k in ks:
            start = time.process_time()
            box, eps_box, how = case["exact"].run(k, eps)
            spent = time.process_time() - start
            eps_text = "none" if eps_box is None else show(eps_box)
            print(f"{k:>5}  {'exactdp (' + how + ')':<21}{show(box):>26}{eps_text:>26}"
                  f"{spent:>8.2f}s")
            if eps_box is not None:
                per.setdefault("exactdp", []).append(
                    (k, float(eps_box.lo), float(eps_box.hi)))
            for name, (kind, make) in case["peers"].items():
                start = time.process_time()
                try:
                    d, e = query(kind, make(k), float(eps))
                except Exception as exc:  # noqa: BLE001 - a peer's refusal is a result
                    print(f"{k:>5}  {name:<21}  refused: {type(exc).__name__}: "
                          f"{str(exc)[:60]}")
                    continue
                spent = time.process_time() - start
                note = []
                if d is not None and Fraction(d) < box.lo:
                    note.append("UNDERSTATES delta")
                    findings.append(f"{case['name']}, k = {k}: {name} delta {d!r} < exactdp's "
                                    f"lower bound {_digits(box.lo, False)}")
                if eps_box is not None and e is not None and not math.isinf(e) \
                        and Fraction(e) < eps_box.lo:
                    note.append("UNDERSTATES eps")
                    findings.append(f"{case['name']}, k = {k}: {name} eps {e!r} < exactdp's "
                                    f"lower bound {_digits(eps_box.lo, False)}")
                if not note and eps_box is not None and e is not None and not math.isinf(e):
                    if Fraction(e) <= eps_box.hi:
                        note.append("eps within exactdp's interval")
                    elif eps_box.hi:
                        gap = (Fraction(e) - eps_box.hi) / eps_box.hi * 100
                        note.append(f"eps >= exactdp's upper bound + {_digits(gap, False, 3)}%")
                print(f"{k:>5}  {name:<21}{show_float(d):>26}{show_float(e):>26}"
                      f"{spent:>8.2f}s  {' '.join(note)}")
                if e is not None:
                    per.setdefault(name, []).append((k, e, e))
        print()
    if findings:
        print("FINDINGS: a peer reports less privacy loss than the exact accountant certifies:")
        for line in findings:
            print(f"  ! {line}")
    else:
        print("No peer understates: every peer's delta and eps is at least exactdp's certified "
              "lower bound.")
    if args.plot or RECORDING:
        plot(curves)
    return 0


def plot(curves: dict[str, dict[str, list[tuple[int, float, float]]]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 3.8))
    for ax, (name, per) in zip(axes, curves.items()):
        for acc, pts in per.items():
            ks = [p[0] for p in pts]
            if acc == "exactdp":
                ax.plot(ks, [p[2] for p in pts], "k-", lw=2, label="exactdp (upper)")
                if any(p[1] != p[2] for p in pts):
                    ax.fill_between(ks, [p[1] for p in pts], [p[2] for p in pts],
                                    color="0.6")
            else:
                ax.plot(ks, [p[1] for p in pts], "o--", ms=3, label=acc,
                        color=COLOURS.get(acc.split(" (")[0] + (" mech" if "disc." in acc
                                                                else ""), "C4"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("k releases")
        ax.set_title(name, fontsize=8)
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=6)
    axes[0].set_ylabel(f"eps at delta = {DELTA}")
    fig.tight_layout()
    PNG.parent.mkdir(exist_ok=True)
    fig.savefig(PNG, dpi=110)
    print(f"plot: {PNG.name}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(record.run(main, __file__))
