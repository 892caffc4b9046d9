"""ALP's hash functions must be drawn before and independently of the data: seeds re-drawn
until the input's keys do not collide (perfect hashing) are released with the sketch and
reveal the key set."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import worst_ratio
from exactdp.explore import explore
from exactdp.hashing import CarterWegman, HashSeed
from exactdp.sparse_vectors.alp import ALP
from exactdp.sparse_vectors.alp_params import ALPParams

CLAIM = "ALP hash seeds must not depend on the data"
SLIP = ("The papers ask for universal hash functions and a collision analysis, which invites "
        "choosing seeds that avoid collisions among the input's keys; the seeds are "
        "released, so such a choice is not private.")
STATEMENT = """ALP-short Algorithm 1 releases h with z~.  If the seeds are drawn until no two keys
of x collide (so that the error analysis has no collisions), the released seeds' law depends on
the key set: for x with keys {1, 2} the seeds where keys 1 and 2 collide have probability 0,
for its neighbour with key 1 only they have positive probability -- an infinite ratio on h
alone.  The implementation draws the m seeds first, from the source, independently of x: the
law of the released seeds is the same for every input (ratio 1)."""
PROOF_IDEA = """CW over P = 5 with s = 3 rows, one column (m = 1), keys {1} vs {1, 2} (values 1):
the variant draws uniform seeds until the keys' rows are distinct, so its law is uniform on the
accepted seeds (every seed of the family enumerated); the implementation's law of sketch.seeds is explored through
ALP.project (coins and all) with the seeds drawn by project itself."""

PRIME, ROWS = 5, 3


def _variant_law(family: CarterWegman, keys: list[int]) -> dict[HashSeed, Fraction]:
    """The law of "draw seeds until the keys' rows are distinct": the uniform seed
    conditioned on acceptance, i.e. uniform on the accepted seeds."""
    accepted = [seed for seed in family.seeds()
                if len({family.row(seed, k) for k in keys}) == len(keys)]
    return {seed: Fraction(1, len(accepted)) for seed in accepted}


def check(full: bool) -> ClaimReport:
    prm = ALPParams.from_paper(1, 1, 1, ROWS, 2, 4)
    family = CarterWegman(PRIME, ROWS, 4)
    alp = ALP(prm, family)
    inputs = {"{1: 1}": {1: 1}, "{1: 1, 2: 1}": {1: 1, 2: 1}}
    variant = {name: _variant_law(family, sorted(x)) for name, x in inputs.items()}
    own = {name: explore(lambda src, x=x: alp.project(x, src, rr="cells").seeds)
           for name, x in inputs.items()}
    a, b = inputs
    w_var = worst_ratio([(a, variant[a], b, variant[b]), (b, variant[b], a, variant[a])])
    w_own = worst_ratio([(a, own[a], b, own[b]), (b, own[b], a, own[a])])
    certs = [
        Certificate(CLAIM + " (seeds re-drawn to avoid collisions)", "CW P = 5, s = 3",
                    {"m": 1}, f"{a} vs {b}, law of the released seed",
                    "infinite" if w_var.ratio is None else w_var.ratio,
                    "infinite: the seed reveals the key set", w_var.ratio is None,
                    {"witness": w_var.to_json()}),
        Certificate(CLAIM + " (seeds drawn first: the implementation)", repr(alp), {"m": 1},
                    f"{a} vs {b}, law of sketch.seeds", w_own.ratio, "== 1",
                    w_own.ratio == 1, {"witness": w_own.to_json()})]
    shown = "infinite" if w_var.ratio is None else brief(w_var.ratio)
    return ClaimReport(CLAIM, "CW P = 5, s = 3, m = 1; keys {1} vs {1, 2}",
                       f"re-drawn seeds {shown}; implementation {brief(Fraction(w_own.ratio or 0))}",
                       "re-drawn: infinite; drawn first: 1", certs)
