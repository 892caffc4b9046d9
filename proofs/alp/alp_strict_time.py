"""ALP strict time: ALP.project's operation trace does not
depend on the input's support or values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import partial

from exactdp.certificate import Certificate, ClaimReport
from exactdp.hashing import Seed
from exactdp.proofs._strict_time import coins, compare, traced
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors.alp import ALP, ALPSketch
from exactdp.sparse_vectors.alp_params import ALPParams
from exactdp.trace import record

CLAIM = "ALP strict time"
STATEMENT = """ALP-projection in its exact form makes exactly 2m + k + s m uniform draws
(m Carter-Wegman seeds of 2 draws, one RandRound coin per padded pair, one coin per cell),
from domains fixed by the public parameters, and the same sequence of operations, for every
k-sparse input: the support, the number of non-zero entries and the values are hidden."""
PROOF_IDEA = """proofs/_strict_time: the trace (every uniform(d) with its d, every recorded event,
every profiler-seen call of the traced operations, embed included) of ALP.project on the same
coins (all-lowest, all-highest, seeded) must be identical across inputs with empty, partial
and full supports, small, fractional and above-beta values; the number of uniform draws must
equal ALPParams.draws = 2m + k + s m.  Power: a sentinel that does one extra operation per
non-zero entry (the paper's 'loop to y' shape) must be caught."""


def _grid(full: bool) -> list[tuple[str, ALPParams, list[dict[int, int]]]]:
    out = [("paper a=e=1", ALPParams.from_paper(1, 1, 3, 3, 2, 6),
            [{}, {1: 1}, {6: 3}, {2: 2, 5: 9}, {3: 1, 4: 1}]),
           ("alpha 3, grid 2", ALPParams.from_paper(1, 3, 6, 4, 3, 9, grid=2),
            [{}, {9: 1}, {1: 5, 2: 40, 3: 7}, {4: 13, 8: 1}])]
    if full:
        out.append(("unscaled eps 1/2", ALPParams.unscaled(Fraction(1, 2), 5, 5, 3, 20),
                    [{}, {20: 100}, {1: 1, 2: 2, 3: 3}, {10: 4}]))
    return out


def _project(alp: ALP, x: Mapping[int, int], source: RandomSource) -> object:
    return alp.project(dict(x), source=source, rr="cells").bits


class _Leaky(ALP):
    """ALP with one extra recorded operation per non-zero entry (a sentinel)."""

    def project(self, x: object, source: RandomSource | None = None,
                seeds: Sequence[Seed] | None = None, *, rr: str = "auto") -> ALPSketch:
        for _ in (v for v in dict(x).values() if v):  # type: ignore[call-overload]
            record("step")
        return super().project(x, source, seeds, rr=rr)


def check(full: bool) -> ClaimReport:
    certs = []
    for name, prm, inputs in _grid(full):
        alp = ALP(prm)
        cmp = compare([(str(x), partial(_project, alp, x)) for x in inputs], coins(full))
        trace, _ = traced(partial(_project, alp, inputs[-1]), "seed:1")
        draws = sum(1 for e in trace if e[0] == "uniform")
        ok = cmp.ok and draws == prm.draws == alp.draw_count()
        certs.append(Certificate(CLAIM, f"{name}: {alp!r}", {"s": prm.rows, "m": prm.columns,
                                                             "k": prm.sparsity},
                                 f"{len(inputs)} inputs x {len(coins(full))} coin streams",
                                 draws, f"identical traces; draws == 2m + k + s m = {prm.draws}",
                                 ok, {"first_difference": cmp.mismatch} if cmp.mismatch else {}))
        leaky = _Leaky(prm)
        lcmp = compare([(str(x), partial(_project, leaky, x)) for x in inputs], coins(False)[:1])
        certs.append(Certificate(CLAIM + ": power", f"{name}: leaky sentinel", {},
                                 f"{len(inputs)} inputs", None, "traces differ", not lcmp.ok))
    return ClaimReport(CLAIM, f"{len(certs) // 2} parameter sets, inputs of every support size",
                       "draws " + ", ".join(str(c.worst) for c in certs[::2]),
                       "one trace per coin stream; = 2m + k + s m; sentinel caught", certs)
