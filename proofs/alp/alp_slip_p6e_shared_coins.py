"""ALP's privacy argument needs an independent randomized-response coin per cell: one coin
shared by the cells of a column (or reused for the rounding) loses the product form and the
guarantee; the implementation draws one coin per cell."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.checker import certify_ratio, worst_ratio
from exactdp.explore import explore
from exactdp.hashing import CarterWegman
from exactdp.noise import randomized_response
from exactdp.randomness import RandomSource
from exactdp.sparse_vectors.alp import ALP, embed_cells, scaled_units
from exactdp.sparse_vectors.alp_check import explored_law
from exactdp.sparse_vectors.alp_params import ALPParams
from exactdp.sparse_vectors.rr import pack_cells

CLAIM = "ALP privacy needs independent coins per cell"
SLIP = ("The privacy argument multiplies one factor per cell, which silently needs an "
        "independent randomized-response coin for every cell; an implementation that shares "
        "a coin across the cells of a column is not private at all.")
STATEMENT = """ALP-short §3 / ALP-full Lemma 4.1: given h the cells are flipped independently, so the
ratio is a product of per-cell factors <= e^{eps ||x - x'||_1}.  With one coin per column
shared by its s cells (the rest of Algorithm 1 unchanged: the implementation's rounding and
embedding), a neighbouring pair whose pre-noise columns differ has outputs possible under one
input and impossible under the other: the worst ratio is infinite.  The implementation (one
coin per cell) has worst ratio exactly 1 + eps on the same domain."""
PROOF_IDEA = """C1 of the Lemma 4.12 row (eps = alpha = 1: c = 1, p = 1/3, s = 3, m = 3, CW P = 5,
one key of d = 4 with integer values 0..3), the first seed tuple (and the last in --full): the shared-coin
variant (scaled_units and embed_cells of the implementation, then one randomized_response coin
per column XOR-ed into all its cells) explored, and ALP.project explored on its per-cell path;
every ordered pair at l1 distance 1.  Passes when the variant's worst ratio is infinite and
the implementation's is 2, certified <= e."""

NOT_EXERCISABLE = {
    "floating-point Laplace noise in Threshold (slip P6 (d))":
        "its failure (outputs one input reaches and a neighbour cannot) depends on how a "
        "particular math library rounds ln, which no exact computation here can stand for; "
        "exactdp's Threshold draws exact two-sided geometric noise, and the float scale and "
        "float Bernoulli readings (P6 (a), (c)) are rows.",
}



def _shared_column_coins(alp: ALP, x: dict[int, int], seeds: tuple, src: RandomSource) -> int:  # type: ignore[type-arg]
    prm = alp.params
    z = embed_cells(prm, alp.hashes, seeds, scaled_units(prm, x, src))
    s = prm.rows
    out = bytearray(z)
    for col in range(prm.columns):
        flip = randomized_response(0, prm.flip, src)
        for j in range(col * s, (col + 1) * s):
            out[j] ^= flip
    return int.from_bytes(pack_cells(out), "little")


def check(full: bool) -> ClaimReport:
    alp = ALP(ALPParams.from_paper(1, 1, 3, 3, 1, 4), CarterWegman(5, 3, 4))
    every = list(alp.hashes.seeds())
    m = alp.params.columns
    tuples = [tuple([every[0]] * m), tuple(every[-m:])][: 2 if full else 1]
    xs = [{1: v} if v else {} for v in range(4)]
    pairs = [(a, b) for a in range(4) for b in range(4) if abs(a - b) == 1]
    shared_laws, own_laws = {}, {}
    for h in tuples:
        for v, x in enumerate(xs):
            shared_laws[h, v] = explore(lambda src, x=x, h=h: _shared_column_coins(alp, x, h, src))
            own_laws[h, v] = explored_law(alp, x, h)
    shared = worst_ratio([(a, shared_laws[h, a], b, shared_laws[h, b])
                          for h in tuples for a, b in pairs])
    own = worst_ratio([(a, own_laws[h, a], b, own_laws[h, b]) for h in tuples for a, b in pairs])
    ok_own, text = certify_ratio(own, 1)
    certs = [
        Certificate(CLAIM + " (one coin per column)", "ALP C1 with shared column coins",
                    {"eps": 1, "alpha": 1, "s": 3, "m": m}, f"values 0..3, {len(tuples)} seed tuple(s)",
                    "infinite" if shared.ratio is None else shared.ratio,
                    "infinite: NOT private", shared.ratio is None, {"witness": shared.to_json()}),
        Certificate(CLAIM + " (one coin per cell: the implementation)", repr(alp),
                    {"eps": 1, "alpha": 1, "s": 3, "m": m}, f"values 0..3, {len(tuples)} seed tuple(s)",
                    own.ratio, f"== 2; {text}", ok_own and own.ratio == 2,
                    {"witness": own.to_json()})]
    shown = "infinite" if shared.ratio is None else brief(shared.ratio)
    return ClaimReport(CLAIM, "C1 (eps = alpha = 1, s = m = 3, CW P = 5), one seed tuple (two in --full)",
                       f"shared coins {shown}; per-cell coins {brief(Fraction(own.ratio or 0))}",
                       "shared: infinite; per cell: 2 <= e", certs)
