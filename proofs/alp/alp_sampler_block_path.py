"""ALP sampler exactness on the block path: randomized response by blocks (one draw of
uniform(D^n) per block of cells, the default for large sketches) releases the same product law."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport
from exactdp.checker import statistical_distance
from exactdp.explore import explore
from exactdp.hashing import CarterWegman, TableHash
from exactdp.proofs._strict_time import traced
from exactdp.randomness import RandomSource, SystemSource
from exactdp.sparse_vectors import alp as alp_module
from exactdp.sparse_vectors import exact as ex
from exactdp.sparse_vectors import rr
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP sampler exactness (block path)"
STATEMENT = """ALP-projection's randomized response (every cell flipped independently with
probability exactly p = a/D) holds on the block path too: cells cut into consecutive blocks of
BLOCK_CELLS, block t of n_t cells costs one draw u = uniform(D^{n_t}), and cell i of the block
flips iff the i-th most significant base-D digit of u - 1 is below a.  For fixed hash seeds the
released bits have the product law of the closed form, exactly as on the per-cell path; and
rr="auto" takes this path for every sketch of at least FAST_MIN_CELLS cells (with D <= 62)."""
PROOF_IDEA = """u - 1 is uniform on [0, D^{n_t}), so its n_t base-D digits are independent and
uniform on {0..D-1}; the digit test e < a then holds with probability a/D.  The checker's
exploring source makes the per-cell path the one it explores under rr="auto", so the per-cell
row never runs this code: this row forces rr="blocks".  Checks: (1) the law of ALP.project
(rr="blocks", fixed seeds) explored on every value of every block draw equals the closed-form
product law (TV = 0) on the 4-cell parameter sets of the per-cell row, with the real
BLOCK_CELLS (one block) and with BLOCK_CELLS set to 3 and 1 while the row runs (blocks of
3 + 1 and four one-cell blocks: the cut, each block's own base D^{n_t}); (2) on blocks of the
real size BLOCK_CELLS, for D in {3, 5, 62} and a in {1, D - 1}, block_flips at u = 1, u =
D^{n}, u = D^{n-1} + 1 and 8 random u against the digits written out here by repeated division
(digit order, leading zeros, the flip test; digits by halving divmod); (3) rr="auto" resolves to "blocks" at
FAST_MIN_CELLS cells and to "cells" one cell below, and a release there (and at 2 BLOCK_CELLS + 5
cells: three blocks, the last short) makes exactly the draws draw_count(rr="blocks") states."""


@contextmanager
def _block_cells(size: int) -> Iterator[None]:
    """``rr.BLOCK_CELLS`` set to ``size`` while the block runs (restored after)."""
    old = rr.BLOCK_CELLS
    rr.BLOCK_CELLS = size
    try:
        yield
    finally:
        rr.BLOCK_CELLS = old


def _grid(full: bool) -> list[tuple[str, ALPParams, object, list[dict[int, int]]]]:
    f = Fraction
    out = [
        ("paper a=e=1 (D=3)", ALPParams.from_paper(1, 1, 2, 2, 2, 3), CarterWegman(5, 2, 3),
         [{1: 1, 2: 2}, {}] + ([{1: 3}, {2: 1, 3: 1}] if full else [])),
        ("unscaled TableHash (D=5)", ALPParams.unscaled(f(1, 2), 2, 2, 2, 2), TableHash(2, 2),
         [{1: 1, 2: 1}] + ([{1: 2}, {2: 5}] if full else [])),
    ]
    if full:
        out.append(("paper a=1/2 grid 2 (D=5)", ALPParams.from_paper(1, f(1, 2), 1, 2, 2, 3,
                                                                     grid=2),
                    CarterWegman(5, 2, 3), [{1: 1, 3: 3}, {2: 5}]))
    return out


def _blocks_law(alp: ALP, x: dict[int, int], seeds: tuple[object, ...]) -> dict[int, Fraction]:
    def run(source: RandomSource) -> int:
        sketch = alp.project(dict(x), source=source, seeds=seeds, rr="blocks")
        return int.from_bytes(sketch.bits, "little")

    return explore(run)


def check_law(full: bool) -> ClaimReport:
    certs = []
    laws = 0
    sizes = [rr.BLOCK_CELLS, 3, 1]
    for name, prm, family, inputs in _grid(full):
        alp = ALP(prm, family)  # type: ignore[arg-type]
        spec = ex.Spec.of(prm)
        seeds_all = list(family.seeds())  # type: ignore[attr-defined]
        tuples = [tuple(seeds_all[(j * 7) % len(seeds_all)] for j in range(prm.columns)),
                  (seeds_all[-1],) * prm.columns]
        worst = Fraction(0)
        where: dict[str, object] = {}
        for size in sizes:
            with _block_cells(size):
                for seeds in tuples:
                    for x in inputs:
                        table = {k: tuple(family.row(sd, k) for sd in seeds)  # type: ignore
                                 for k in x}
                        tv = statistical_distance(_blocks_law(alp, x, seeds),
                                                  ex.product_law(spec, table, x))
                        laws += 1
                        if tv > worst:
                            worst, where = tv, {"block_cells": size, "input": dict(x)}
        certs.append(Certificate(
            CLAIM, f"{name}: {alp!r}", {"s": prm.rows, "m": prm.columns, "flip": prm.flip},
            f"BLOCK_CELLS in {sizes}; {len(tuples)} seed tuples x {len(inputs)} inputs", worst,
            "TV = 0", worst == 0, where))
    return ClaimReport(CLAIM + " (law)",
                       f"{len(certs)} parameter sets of 4 cells, rr='blocks' forced, "
                       f"BLOCK_CELLS in {sizes}; {laws} explored laws",
                       f"max TV {max(Fraction(c.worst) for c in certs)}",  # type: ignore[arg-type]
                       "= 0 exactly", certs)


def _digits(v: int, n: int, base: int) -> list[int]:
    """The ``n`` base-``base`` digits of ``v < base**n``, most significant first (halving
    by divmod: one big division per level instead of ``n``)."""
    if n <= 32:
        out = []
        for _ in range(n):
            v, e = divmod(v, base)
            out.append(e)
        return out[::-1]
    low = n // 2
    high, rest = divmod(v, base ** low)
    return _digits(high, n - low, base) + _digits(rest, low, base)


def check_decode(full: bool) -> ClaimReport:
    rng = random.Random(4096)
    certs = []
    n = rr.BLOCK_CELLS
    for base in (3, 5, 62):
        top = base ** n
        us = [1, top, base ** (n - 1) + 1] + [rng.randrange(1, top + 1)
                                              for _ in range(16 if full else 8)]
        for a in (1, base - 1):
            bad: dict[str, object] = {}
            for u in us:
                want = bytes(0x31 if e < a else 0x30 for e in _digits(u - 1, n, base))
                got = rr.block_flips(u, n, Fraction(a, base))
                if got != want:
                    first = next(i for i in range(n) if got[i] != want[i])
                    bad = {"u_bits": u.bit_length(), "cell": first,
                           "got": chr(got[first]), "want": chr(want[first])}
                    break
            certs.append(Certificate(
                CLAIM + " (decode)", f"block_flips, D={base}, a={a}", {"D": base, "a": a,
                                                                       "cells": n},
                f"{len(us)} draws u (1, D^n, D^(n-1)+1, random)", None,
                "flip characters == (digit < a) for the digits of u - 1", not bad, bad))
    small = ALPParams.unscaled(Fraction(1, 2), 2, 2, 2, 2)
    dispatch_ok = True
    dispatch: dict[str, object] = {}
    for cells, want in ((alp_module.FAST_MIN_CELLS, "blocks"),
                        (alp_module.FAST_MIN_CELLS - 1, "cells")):
        prm = ALPParams.unscaled(Fraction(1, 2), 1, cells, 1, 2)
        got = ALP(prm).rr_path(SystemSource(), "auto")
        dispatch[f"{prm.cells} cells"] = got
        dispatch_ok = dispatch_ok and got == want and prm.cells == cells
    certs.append(Certificate(
        CLAIM + " (default)", "ALP.rr_path(SystemSource(), 'auto')", {"flip": small.flip},
        "FAST_MIN_CELLS and one cell below", None, "'blocks' from FAST_MIN_CELLS cells on",
        dispatch_ok, dispatch))
    for cells in (alp_module.FAST_MIN_CELLS, 2 * rr.BLOCK_CELLS + 5):
        alp = ALP(ALPParams.unscaled(Fraction(1, 2), 1, cells, 1, 2))
        draws = set()
        for coin in ("low", "high", "seed:1"):
            trace, _ = traced(lambda src, alp=alp: alp.project({1: 1}, src), coin)
            draws.add(sum(1 for e in trace if e[0] == "uniform"))
        want = alp.draw_count(rr="blocks")
        certs.append(Certificate(
            CLAIM + " (draws)", f"ALP.project, {cells} cells, rr='auto'", {"cells": cells},
            "coins low, high, seeded", want,
            "draws on the default path == draw_count(rr='blocks'), ceil(s m / 8192) for the "
            "s m coins of the per-cell path",
            draws == {want} and alp.draw_count(rr="cells") - want == cells
            - rr.block_draws(cells), {"draws": sorted(draws)}))
    return ClaimReport(CLAIM + " (decode, default)",
                       f"blocks of BLOCK_CELLS = {n} cells, D in {{3, 5, 62}}, a in {{1, D-1}}; "
                       f"rr='auto' at {alp_module.FAST_MIN_CELLS} and "
                       f"{alp_module.FAST_MIN_CELLS - 1} cells; draws at "
                       f"{alp_module.FAST_MIN_CELLS} and {2 * rr.BLOCK_CELLS + 5} cells",
                       f"{sum(c.verdict for c in certs)}/{len(certs)} agree",
                       "digit decode exact; the default path is the block path", certs)


CHECKS = [check_law, check_decode]
