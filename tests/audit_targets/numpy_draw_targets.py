"""Code drawing plain integers through the numpy facade (``f(c, rng)``): ``integers(n)``,
``choice`` of a tuple or a list, the forms handed to the facade's Python method (low and
high, ``endpoint``, keywords, numpy ints, bools, arrays, sizes past the exact limit), the
refusals, a request that drifts between runs, and draws past a declared domain."""

SIGNS = (-1, 0, 0, 1)


def svt2(q, rng):
    """:func:`svt1` on two queries, its answers as a tuple."""
    return tuple(svt1(q, rng))


def choices(c, rng):
    """``choice`` of a tuple and a list; ``integers(1)``."""
    a = rng.choice((0, 1, 2))
    b = rng.choice([c, 1 - c, 2])
    return (a + 2 * b + rng.integers(1) + c) % 5


def forms(c, rng):
    """Every other form of an integer draw (the facade's Python method draws them), and
    ``choice`` of a one-item list."""
    import numpy as np

    d = rng.choice([5])
    a = rng.integers(1, 3) + d
    b = rng.integers(2, endpoint=True)
    k = rng.integers(np.int64(2))
    t = rng.integers(True)
    m = rng.integers(low=2)
    h = rng.choice(3)
    g = int(rng.choice(np.array([1, 2])))
    return (a + b + k + t + m + h + g + c) % 5


def refused(c, rng):
    """``integers(0)``, ``integers(-1)`` and ``choice([])`` raise ``ValueError`` (numpy's
    message), each caught; a draw after them."""
    caught = 0
    for call in (lambda: rng.integers(0), lambda: rng.integers(-1), lambda: rng.choice([]),
                 lambda: rng.choice(())):
        try:
            call()
        except ValueError:
            caught += 1
    return (caught + c + rng.integers(2)) % 3


def limited(c, rng):
    """Three draws on ``[0, 4)``: 64 values, past a declared domain of 16."""
    return (rng.integers(4) + rng.integers(4) + rng.integers(4) + c) % 3


def large(c, rng):
    """``integers(n)`` past the exact limit (explored by its effect), then a small one."""
    big = rng.integers(1 << 64) < (1 << 63)
    return (c + big + rng.integers(300) // 150 + rng.integers(3)) % 2


_runs = [0]


def drifting(c, rng):
    """Not a function of its draws: the draw's size changes between calls."""
    _runs[0] += 1
    return (c + rng.integers(2 + _runs[0] % 2)) % 2


def svt1(queries, rng):
    """Sparse vector (threshold 1) halting after its first positive answer, each noise
    ``SIGNS[rng.integers(4)]`` (-1, 0 or 1 with probabilities 1/4, 1/2, 1/4): the threshold's
    once, two per query."""
    rho = SIGNS[rng.integers(4)]
    out = []
    for q in queries:
        nu = SIGNS[rng.integers(4)] + SIGNS[rng.integers(4)]
        hit = q + nu >= 1 + rho
        out.append(hit)
        if hit:
            break
    return out
