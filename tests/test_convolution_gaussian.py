"""Discrete Gaussian noise for private convolution (exactdp.convolution.gaussian*)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.checker import hockey_stick
from exactdp.convolution import Domain, WalshFourierMechanism
from exactdp.convolution.gaussian import (
    GaussianStrategyMechanism,
    GaussianWalshMechanism,
    calibrate_gaussian,
    compare_noise,
    gaussian_cyclic,
)
from exactdp.convolution.gaussian_rows import GaussianProfile, GaussianRowNoise
from exactdp.discrete_gaussian import weight_direct
from exactdp.explore import explore
from exactdp.params import ExactDPError, ParameterError, ParameterTypeError
from exactdp.randomness import RandomSource


def direct_law(s2: F, bits: int) -> dict[int, F]:
    """The noise law from weights decided one by one (not from the sampler's table)."""
    half, x = [], 0
    while (w := weight_direct(x, s2, bits)) > 0:
        half.append(w)
        x += 1
    total = half[0] + 2 * sum(half[1:])
    t = len(half) - 1
    return {v: F(half[abs(v)], total) for v in range(-t, t + 1)}


def product_delta(laws: list[dict[int, F]], shifts: list[int], r: F) -> F:
    p: dict[tuple[int, ...], F] = {(): F(1)}
    q: dict[tuple[int, ...], F] = {(): F(1)}
    for law, d in zip(laws, shifts):
        p = {k + (z,): a * b for k, a in p.items() for z, b in law.items()}
        q = {k + (z + d,): a * b for k, a in q.items() for z, b in law.items()}
    return hockey_stick(p, q, r)


class Fixed(RandomSource):
    """Returns ``u = min(d, k)`` and records every ``d`` (a trace of the draws)."""

    def __init__(self, k: int) -> None:
        self.k, self.sizes = k, []

    def uniform(self, d: int) -> int:
        self.sizes.append(d)
        return min(d, self.k)


def test_row_noise_law_is_clamped_direct_law() -> None:
    noise = GaussianRowNoise([F(1, 2), F(3, 2)], [(0, 2), (-1, 1)], bits=12)
    for j, (s2, (lo, hi)) in enumerate(zip([F(1, 2), F(3, 2)], [(0, 2), (-1, 1)])):
        for c in range(lo, hi + 1):
            want: dict[int, F] = {}
            for z, p in direct_law(s2, 12).items():
                v = min(max(c + z, lo), hi)
                want[v] = want.get(v, F(0)) + p
            assert noise.row_law(j, c) == want
            got = explore(lambda src, j=j, c=c: noise.draw(
                [c if i == j else noise.ranges[i][0] for i in range(2)], src)[j])
            assert got == want


def test_walsh_release_law_and_privacy_bound() -> None:
    dom = Domain.histograms(4, 1)
    mech = GaussianWalshMechanism([1, 1, 0, 0], dom, [F(1, 2), F(1)], bits=12)
    assert mech.rows == (0, 2)
    xs = [x for x in itertools.product(range(2), repeat=4) if sum(x) <= 1]
    laws = {x: explore(lambda src, x=x: mech.sample_with(x, src)) for x in xs}
    profile = mech.privacy()
    assert profile.exact()
    noise = [direct_law(F(1, 2), 12), direct_law(F(1), 12)]
    for r in (F(1), F(2), F(5)):
        # the unclamped rows' exact delta, by brute force over the product law
        assert profile.delta_bounds(r)[:2] == (product_delta(noise, [1, 1], r),) * 2
        for x in xs:
            for n in range(4):
                y = x[:n] + (x[n] + 1,) + x[n + 1:]
                if y in laws:
                    assert hockey_stick(laws[x], laws[y], r) <= profile.delta_upper(r)
                    assert hockey_stick(laws[y], laws[x], r) <= profile.delta_upper(r)


def test_grid_bound_brackets_exact() -> None:
    sig = [F(1, 2), F(1), F(3, 4)]
    exact = GaussianProfile(sig, [[1, 2], [1, 0], [1, 1]], bits=12)
    grid = GaussianProfile(sig, [[1, 2], [1, 0], [1, 1]], bits=12, base=F(129, 128),
                           exact_atoms=0)
    assert exact.exact() and not grid.exact()
    for r in (F(1), F(3, 2), F(4)):
        lo, hi, _ = grid.delta_bounds(r)
        e = exact.delta_bounds(r)[1]
        assert lo <= e <= hi
        assert grid.delta_upper(r) == hi
    with pytest.raises(ParameterError, match="grid bound"):
        grid.column_loss(0)


def test_strict_time_same_draws_for_every_x() -> None:
    dom = Domain.histograms(8, 3)
    mech = GaussianWalshMechanism([3, 1, 1, 0, 0, 2, 0, 1], dom, F(7, 3))
    traces = []
    for x in ([0] * 8, [3] + [0] * 7, [1, 1, 1, 0, 0, 0, 0, 0], [0] * 7 + [2]):
        for k in (1, 10**30):
            src = Fixed(k)
            mech.release(x, src)
            traces.append((k, tuple(src.sizes)))
    assert len({t for t in traces if t[0] == 1}) == 1
    assert len({t for t in traces if t[0] != 1}) == 1
    assert traces[0][1] == mech.draw_sizes and len(traces[0][1]) == len(mech.rows)


def test_apply_matches_release() -> None:
    dom = Domain.histograms(4, 2)
    mech = GaussianWalshMechanism([2, 1, 0, 1], dom, F(2), bits=32)
    for x in ([0, 0, 0, 0], [1, 0, 1, 0], [0, 0, 0, 2]):
        for k in (1, 2**20, 2**31):
            us = [min(k, d) for d in mech.draw_sizes]
            assert mech(x, us) == mech.release(x, Fixed(k)).y


def test_mse_bound_and_exact_mse() -> None:
    dom = Domain.histograms(4, 1)
    mech = GaussianWalshMechanism([1, 1, 0, 0], dom, [F(1, 2), F(1)], bits=12)
    lam = [2, 0, 2, 0]
    second = {s2: sum(p * z * z for z, p in direct_law(s2, 12).items())
              for s2 in (F(1, 2), F(1))}
    want = sum(F(lam[j]) ** 2 * second[s2] for j, s2 in zip((0, 2), (F(1, 2), F(1)))) / 16
    assert mech.mse_bound() == want == mech.unclamped_mse()
    x = (0, 1, 0, 0)
    law = explore(lambda src: mech.sample_with(x, src))
    truth = mech.convolve(x)
    exact = sum(p * sum((a - b) ** 2 for a, b in zip(y, truth)) for y, p in law.items()) / 4
    assert mech.mse(x) == exact <= mech.mse_bound()


def test_strategy_mechanism_with_shifts() -> None:
    from exactdp.convolution.cyclic import cyclic_strategy
    from exactdp.convolution.groups import circular_convolve

    strat = cyclic_strategy("real-fourier", [2, 1, 0], 3)
    dom = Domain.histograms(3, 1)
    mech = GaussianStrategyMechanism(strat, dom, F(1, 2), h=[2, 1, 0],
                                     convolve=circular_convolve, bits=10)
    shifts = mech.shift_matrix()
    assert max(max(r) for r in shifts) > 1
    laws = {x: explore(lambda src, x=x: mech.sample_with(x, src))
            for x in [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]}
    noise = [direct_law(F(1, 2), 10)] * len(mech.rows)
    for r in (F(1), F(3)):
        bound = mech.privacy().delta_upper(r)
        for n in range(3):
            col = [row[n] for row in shifts]
            assert bound >= product_delta(noise, col, r)
            y = tuple(int(i == n) for i in range(3))
            assert hockey_stick(laws[y], laws[(0, 0, 0)], r) <= bound
            assert hockey_stick(laws[(0, 0, 0)], laws[y], r) <= bound


def test_calibration_meets_target_and_is_minimal() -> None:
    cal = calibrate_gaussian([4, 2, 2, 1], 1, F(1, 1000))
    assert cal.delta_upper <= F(1, 1000)
    from exactdp.certified import compare_exp

    assert compare_exp(F(1), cal.R_lo) >= 0
    # one unit less noise no longer meets delta (the search's least multiple)
    assert cal.scale == cal.multiple * cal.unit
    shape = [cal.scale / s for s in cal.sigma2s]
    smaller = GaussianProfile([(cal.scale - cal.unit) / s for s in shape], [[1]] * 4)
    assert smaller.delta_upper(cal.R_lo) > F(1, 1000)
    # fourier shape: larger |lambda| gets less noise
    assert cal.sigma2s[0] < cal.sigma2s[1] == cal.sigma2s[2] < cal.sigma2s[3]
    uni = calibrate_gaussian([4, 2, 2, 1], 1, F(1, 1000), shape="uniform")
    assert len(set(uni.sigma2s)) == 1


def test_gaussian_beats_laplace_on_flat_spectrum() -> None:
    n = 16
    h = [1] + [0] * (n - 1)
    got = compare_noise(h, Domain.histograms(n, 5), 1, F(1, 10**6))
    # the Laplace side by the corrected Theorem 9 formula, the Gaussian side from the law
    lap = got.laplace
    assert got.laplace_mse == sum(2 * r / (r - 1) ** 2 for r in lap.ratios) / n**2
    s2 = got.gaussian.sigma2s[0]
    assert set(got.gaussian.sigma2s) == {s2}
    second = sum(p * z * z for z, p in got.gaussian.noise.samplers[0].law().items())
    assert got.gaussian_mse == n * second / n**2
    assert got.ratio > F(3, 2)
    assert got.gaussian.calibration.delta_upper <= F(1, 10**6)


def test_cyclic_auto_picks_least_mse() -> None:
    dom = Domain.histograms(4, 2)
    best = gaussian_cyclic([3, 1, 0, 1], dom, "auto", 2, epsilon=1, delta=F(1, 100))
    others = [gaussian_cyclic([3, 1, 0, 1], dom, s, 2, epsilon=1, delta=F(1, 100)).mse_bound()
              for s in ("real-fourier", "walsh", "hartley")]
    assert best.mse_bound() == min(others)


def test_errors() -> None:
    dom = Domain.histograms(4, 1)
    with pytest.raises(ParameterError, match="sigma2"):
        GaussianWalshMechanism([1, 1, 0, 0], dom)
    with pytest.raises(ParameterTypeError):
        GaussianWalshMechanism([1, 1, 0, 0], dom, 0.5)
    with pytest.raises(ParameterError, match="positive"):
        GaussianWalshMechanism([1, 1, 0, 0], dom, F(-1))
    with pytest.raises(ParameterError, match="not both"):
        GaussianWalshMechanism([1, 1, 0, 0], dom, F(1), epsilon=1, delta=F(1, 10))
    with pytest.raises(ParameterError, match="shape"):
        GaussianWalshMechanism([1, 1, 0, 0], dom, epsilon=1, delta=F(1, 10), shape="spectral")
    with pytest.raises(ParameterError, match="one per kept row"):
        GaussianWalshMechanism([1, 1, 0, 0], dom, [F(1)] * 3)
    with pytest.raises(ParameterTypeError, match="bits"):
        GaussianWalshMechanism([1, 1, 0, 0], dom, F(1), bits=4)
    mech = GaussianWalshMechanism([1, 1, 0, 0], dom, F(1), bits=12)
    with pytest.raises(ExactDPError):
        mech.release([2, 0, 0, 0])
    with pytest.raises(ParameterError):
        GaussianProfile([F(1)], [[1], [1]])


@settings(max_examples=15, deadline=None)
@given(st.lists(st.fractions(min_value=F(1, 4), max_value=F(3), max_denominator=8),
                min_size=1, max_size=3),
       st.lists(st.integers(0, 2), min_size=3, max_size=3),
       st.fractions(min_value=F(1), max_value=F(20), max_denominator=4))
def test_profile_equals_brute_force(sig: list[F], shifts: list[int], r: F) -> None:
    """The exact column loss equals the hockey stick of the product laws built here."""
    shifts = shifts[:len(sig)]
    prof = GaussianProfile(sig, [[d] for d in shifts], bits=8)
    laws = [direct_law(s, 8) for s in sig]
    assert prof.delta_upper(r) == product_delta(laws, shifts, r)


def test_verify_row_fails_on_planted_bugs(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.convolution import conv_gaussian_noise as row

    case = row.cases(False)[0]
    assert row.case_certificate(case).verdict
    # the sampler narrower than the stated law: the explored law no longer matches and the
    # divergence exceeds the bound
    original = GaussianWalshMechanism._setup_noise

    def narrow(self: GaussianWalshMechanism, ratios: object) -> None:
        original(self, ratios)
        self.noise = GaussianRowNoise([s / 4 for s in self.sigma2s], self.ranges, self.bits)

    monkeypatch.setattr(GaussianWalshMechanism, "_setup_noise", narrow)
    assert not row.case_certificate(case).verdict
    monkeypatch.undo()
    # an accounting that undercounts (each column loses one moving row)
    real_sig = GaussianProfile._signature
    monkeypatch.setattr(GaussianProfile, "_signature", lambda self, n: real_sig(self, n)[1:])
    assert not row.case_certificate(case).verdict


def test_laplace_and_gaussian_share_transform() -> None:
    dom = Domain.histograms(8, 2)
    h = [3, 1, 1, 0, 0, 2, 0, 1]
    lap = WalshFourierMechanism(h, dom, F(2))
    gau = GaussianWalshMechanism(h, dom, F(2))
    assert lap.rows == gau.rows and lap.ranges == gau.ranges
    assert gau.convolve([1, 0, 0, 0, 0, 0, 0, 1]) == lap.convolve([1, 0, 0, 0, 0, 0, 0, 1])


# ------------------------------------------------------------------------------ the CLI

def _write(tmp_path: Path, values: list[int]) -> str:
    path = tmp_path / "x.txt"
    path.write_text("".join(f"{v}\n" for v in values), encoding="utf-8")
    return str(path)


XOR = ["--group", "xor", "--filter", "1,1,0,0", "--domain", "histograms:n=4", "--epsilon", "1",
       "--delta", "1/1000", "--noise", "gaussian"]


def test_cli_convolve_gaussian_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import json

    from tests._cli import run

    rc, out, err = run(capsys, "convolve", *XOR, "--seed", "3", "--json",
                       _write(tmp_path, [3, 0, 1, 0]))
    assert rc == 0 and "warning: --seed" in err
    doc = json.loads(out)
    assert doc["noise"] == "gaussian" and doc["ratios"] == [] and doc["noisy_coefficients"] == 2
    s2 = [F(v) for v in doc["sigma2"]]
    g = doc["guarantee"]
    assert g["pure_ratio"] is None and g["within_target"]
    bound = F(g["delta_at_e_eps"][1])
    assert 0 < bound <= F(1, 1000)
    # the bound is the profile's at a rational R_lo <= e^1, recomputed here from sigma^2
    from exactdp.certified import exp_interval

    assert GaussianProfile.uniform_shift(s2).delta_upper(exp_interval(F(1), 64).lo) == bound
    # y = N^-1 W (lambda o c~) with lambda = (2, 0, 2, 0): multiples of 1/2
    assert all((2 * F(v)).denominator == 1 for v in doc["y"])
    # the MSE bound: N^-2 sum lambda_j^2 E[Z_j^2], E[Z^2] from the direct weights
    m2 = {s: sum(p * z * z for z, p in direct_law(s, 128).items()) for s in set(s2)}
    assert F(doc["mse"]["bound_every_x"]) == sum(4 * m2[s] for s in s2) / 16


@pytest.mark.parametrize("extra,word", [(["--accounting", "zcdp"], "--accounting"),
                                        (["--shape", "spectral-partition"], "--shape"),
                                        (["--ratio-grid", "reciprocal"], "--ratio-grid")])
def test_cli_convolve_gaussian_refusals(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                        extra: list[str], word: str) -> None:
    from tests._cli import run

    rc, out, err = run(capsys, "convolve", *XOR, *extra, _write(tmp_path, [1, 0, 0, 0]))
    assert rc == 2 and out == "" and word in err and len(err.strip().splitlines()) == 1


def test_strict_time_certificate_fails_on_a_data_dependent_draw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from exactdp.proofs.convolution import conv_gaussian_noise as row

    assert all(c.verdict for c in row.strict_time_certificates(False))
    real = GaussianRowNoise.draw

    def skips(self: GaussianRowNoise, centres: list[int], source: RandomSource) -> list[int]:
        if all(c == 0 for c in centres):  # no draw for an all-zero coefficient vector
            return list(centres)
        return real(self, centres, source)

    monkeypatch.setattr(GaussianRowNoise, "draw", skips)
    assert not row.strict_time_certificates(False)[0].verdict
