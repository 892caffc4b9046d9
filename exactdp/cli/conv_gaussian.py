"""``exactdp convolve --noise gaussian``: the convolution release with discrete Gaussian noise
(:mod:`exactdp.convolution.gaussian`): building the mechanism from the options, its
certified guarantee in the shape :func:`exactdp.cli.convolution.guarantee` returns, and the
cost of its noise."""

from __future__ import annotations

import argparse
import functools
import time
from fractions import Fraction
from typing import Any

from exactdp.cli._common import per_call_ns, seeded_source
from exactdp.params import ParameterError, positive_int

__all__ = ["NOISES", "build_gaussian", "check_gaussian_options", "gaussian_guarantee",
           "gaussian_release_ns"]

NOISES = ("geometric", "gaussian")


def check_gaussian_options(args: argparse.Namespace) -> None:
    """The options that do not apply to the discrete Gaussian noise, refused by name."""
    if args.accounting != "exact":
        raise ParameterError(f"--noise gaussian is calibrated by its exact privacy-loss "
                             f"accounting only; --accounting {args.accounting} applies to "
                             f"--noise geometric")
    if args.shape not in ("fourier", "uniform"):
        raise ParameterError(f"--noise gaussian takes --shape fourier or uniform, not "
                             f"{args.shape}")
    if args.ratio_grid != "fractions":
        raise ParameterError("--ratio-grid applies to --noise geometric (the Gaussian noise "
                             "has variances, not ratios)")
    if args.linear:
        raise ParameterError("--linear is available with --noise geometric only")


def build_gaussian(group: str, h: tuple[Fraction, ...], domain: Any, eps: Fraction,
                   delta: Fraction, shape: str, strategy: str, scale: str) -> Any:
    """The calibrated discrete Gaussian mechanism (public data only)."""
    from exactdp.convolution.gaussian import GaussianWalshMechanism, gaussian_cyclic

    if group == "xor":
        return GaussianWalshMechanism(list(h), domain, epsilon=eps, delta=delta, shape=shape)
    return gaussian_cyclic(list(h), domain, strategy, positive_int(scale, "--scale"),
                           epsilon=eps, delta=delta, shape=shape)


def gaussian_guarantee(mech: Any, eps: Fraction, delta: Fraction) -> dict[str, Any]:
    """The certified guarantee of a calibrated Gaussian mechanism: ``delta(e^eps) <=
    delta(R_lo) <= delta_upper`` with ``R_lo <= e^eps`` rational (no pure ratio: the
    truncated noise has outputs that a neighbour cannot produce)."""
    cal = mech.calibration
    return {
        "accounting": "exact", "accounting_used": cal.accounting_used, "sound": True,
        "epsilon": eps, "delta": delta, "pure_ratio": None, "pure_epsilon_interval": None,
        "delta_at_e_eps": [Fraction(0), cal.delta_upper],
        "within_target": cal.delta_upper <= delta,
        "how": (f"the discrete Gaussian rows' privacy-loss distributions composed "
                f"{'exactly' if cal.accounting_used == 'exact' else 'on a certified grid'}; "
                f"delta(R_lo) with R_lo = {cal.R_lo} <= e^eps"),
    }


def gaussian_release_ns(mech: Any) -> int:
    """About how many nanoseconds one release's noise takes: each distinct sampler's first
    draw (which builds its table) and one more draw per row, with a throwaway seeded source
    (never released)."""
    noise = mech.noise
    trial = seeded_source(0)
    ns = 0
    seen: dict[int, int] = {}
    for g in noise.samplers:
        if id(g) not in seen:
            start = time.perf_counter_ns()
            trial.inverse_cdf(g)
            ns += time.perf_counter_ns() - start
            seen[id(g)] = per_call_ns(functools.partial(trial.inverse_cdf, g), 2)
        ns += seen[id(g)]
    return ns
