"""Audit targets written the way people write them, for the timing verdict and the speed of
exploring: a geometric as a ``random()`` loop, sparse-vector variants (SVT1, SVT2, NumSVT,
GapSVT, halting after ``c`` answers) with noise clamped to a small window, their timing
twins, a CDF walk that returns early, and code that sleeps.  (Floats here are the audited
code's own, as shipped code has them.)"""

from __future__ import annotations

import math
import random
import time

#: Noise is clamped to [-W, W].
W = 2
#: The queries' threshold.
T = 1


def geometric_loop_for(n, alpha=None):
    """A truncated geometric on [0, n] written as a random() loop: walk up or down from the
    count while a coin of probability ``alpha`` (default e^-1) says so, stopping at the
    ends."""
    a = math.exp(-1) if alpha is None else alpha

    def geometric_loop(c):
        z = c
        if random.random() < 0.5:
            while z < n and random.random() < a:
                z += 1
        else:
            while z > 0 and random.random() < a:
                z -= 1
        return z

    return geometric_loop


#: Where a random() value moves the noise one step up: noise k in [-W, W] has probability
#: proportional to 2^-|k| (the tails' mass folded onto -W and W).
STEPS = (1 / 6, 1 / 3, 2 / 3, 5 / 6)


def clamped_noise():
    """Two-sided geometric noise of ratio 1/2 clamped to [-W, W], from one random() value
    compared with every step (a fixed number of draws and of comparisons)."""
    u = random.random()
    return sum([u >= s for s in STEPS]) - W


def clamped_geometric():
    """The same kind of noise drawn by a loop of coins: the number of draws shows the
    noise's magnitude to a timing observer."""
    k = 0
    while k < W and random.random() < 0.5:
        k += 1
    return k if random.random() < 0.5 else -k


def clamped_laplace(scale):
    """Laplace noise by the inverse CDF of random(), rounded and clamped to [-W, W]."""
    u = random.random() - 0.5
    x = -scale * math.copysign(1.0, u) * math.log(1 - 2 * abs(u)) if abs(u) < 0.5 else 0.0
    return max(-W, min(W, round(x)))


def _svt(queries, noise, halt=1, numeric=False, gap=False, refresh=False):
    """The textbook sparse vector: a noisy threshold, each query's noisy value compared
    with it; answers until ``halt`` positive answers (then stop)."""
    rho = noise()
    out = []
    count = 0
    for q in queries:
        nu = noise()
        if q + nu >= T + rho:
            if gap:
                out.append(q + nu - T - rho)
            elif numeric:
                out.append(q + noise())
            else:
                out.append(True)
            count += 1
            if count >= halt:
                break
            if refresh:
                rho = noise()
        else:
            out.append(False)
    return tuple(out)


def svt1(queries):
    """SVT1 (Lyu, Su and Li's Algorithm 1) with geometric noise clamped to [-W, W]."""
    return _svt(queries, clamped_noise)


def svt1_coins(queries):
    """SVT1 with its noise drawn by a loop of coins (see :func:`clamped_geometric`)."""
    return _svt(queries, clamped_geometric)


def svt2(queries):
    """SVT2: the threshold's noise refreshed after each positive answer."""
    return _svt(queries, clamped_noise, refresh=True)


def num_svt(queries):
    """NumSVT: a positive answer released as a fresh noisy value of the query."""
    return _svt(queries, clamped_noise, numeric=True)


def gap_svt(queries):
    """GapSVT: a positive answer released as its gap above the noisy threshold."""
    return _svt(queries, clamped_noise, gap=True)


def svt1_laplace(queries):
    """SVT1 with Laplace noise from math.log, rounded and clamped to [-W, W]."""
    return _svt(queries, lambda: clamped_laplace(2.0))


def svt1_busy(queries):
    """SVT1 that, after halting, keeps looping over the queries it did not answer -- its
    output is SVT1's but its running time shows how many queries were positive."""
    out = _svt(queries, clamped_noise)
    for q in queries:  # busy work proportional to the sum of the queries
        for _ in range(q):
            pass
    return out


def svt1_fixed(queries):
    """SVT1 followed by busy work of a fixed number of rounds (its twin: private)."""
    out = _svt(queries, clamped_noise)
    for _q in queries:
        for _ in range(1):
            pass
    return out


def cdf_walk(c):
    """Randomized response on a bit by a CDF walk that returns as soon as the draw is below
    the running CDF: the number of steps depends on ``c`` beyond the output's law."""
    u = random.random()
    cdf = 0.0
    for z, p in ((c, 0.75), (1 - c, 0.25)):
        cdf += p
        if u < cdf:
            return z
    return 1 - c


def rr_sleeps(c):
    """Randomized response that sleeps 0.05 * c seconds first."""
    time.sleep(0.05 * c)
    return c if random.random() < 0.75 else 1 - c


def rr_plain(c):
    """Randomized response with probability 3/4 of keeping the bit (ln 3)."""
    return c if random.random() < 0.75 else 1 - c


def sym_noise(rng):
    """Noise in {-1, 0, 1} with probabilities 1/4, 1/2, 1/4 from ``randrange(4)`` compared
    twice (the shape of the sparse-vector variants below, written with an rng argument)."""
    u = rng.randrange(4)
    return 0 if u < 2 else (1 if u == 2 else -1)


def _svt_sym(queries, rng, halt=1, resample=False, numeric=False, scan_all=False):
    """SVT on threshold 1 with :func:`sym_noise`: the threshold's noise once (or per query,
    ``resample``), two noises per query; answers until ``halt`` positive answers, or keeps
    drawing after the first (``scan_all``); ``numeric`` releases a clamped noisy value."""
    rho = None if resample else sym_noise(rng)
    out = []
    count = 0
    for q in queries:
        if resample:
            rho = sym_noise(rng)
        nu = sym_noise(rng) + sym_noise(rng)
        if scan_all and count:
            continue
        if q + nu >= 1 + rho:
            out.append(min(max(q + sym_noise(rng) + sym_noise(rng), 0), 1) if numeric
                       else True)
            count += 1
            if count >= halt and not scan_all:
                break
        else:
            out.append(False)
    return tuple(out)


def svt1_sym(queries, rng):
    """SVT1 with randrange noise, halting after one answer."""
    return _svt_sym(queries, rng)


def svt2_sym(queries, rng):
    """SVT halting after two answers."""
    return _svt_sym(queries, rng, halt=2)


def svt_nohalt_sym(queries, rng):
    """SVT answering every query (no halt)."""
    return _svt_sym(queries, rng, halt=len(queries) + 1)


def svt_scan_all_sym(queries, rng):
    """SVT that stops answering after one answer but keeps drawing the queries' noise."""
    return _svt_sym(queries, rng, scan_all=True)


def svt_resample_sym(queries, rng):
    """SVT drawing the threshold's noise afresh for every query."""
    return _svt_sym(queries, rng, resample=True)


def num_svt_sym(queries, rng):
    """NumSVT: a positive answer released as a fresh noisy, clamped value of the query."""
    return _svt_sym(queries, rng, numeric=True)
