"""Lemma 8.1 (iv) at CompactHistogram's node-subfield boundaries (|X|, n + 1 = 4/5, 64/65)."""

from __future__ import annotations

from exactdp.certificate import Certificate, ClaimReport
from exactdp.counting import TabulatedMechanism
from exactdp.histograms.compact import CompactHistogram
from exactdp.params import ExactDPError
from exactdp.randomness import RandomSource

CLAIM = "Lemma 8.1 (iv), node subfields"
STATEMENT = """Lemma 8.1 (iv): a histogram g of G_{M0}(X) with g_x = c_x on a set A (|A| <= n) is
obtained by drawing u_x ~ S_{c_x} on A, uniform u_x on the rest of a set B of n + 1 points and
interpolating; then g_x = M0(T(p(x))).  CompactHistogram reads x in X as the node
embed(x - 1) of the least subfield K = GF(2^{2*3^k}) with |K| >= max(|X|, min(n + 1, d0)), so
which code runs (the inclusion K -> F_{d0}, the identity when K is the whole field; native or
pure arithmetic) changes at |X| or n + 1 = 4 -> 5 and 64 -> 65."""
PROOF_IDEA = """The law of the release is checked exhaustively on small fields by Lemma 8.1 (iv) and
Theorem 8.3's rows; their grids have nodes in GF(4) only.  Here, on both sides of every
boundary (GF(64) with k = 0 and k = 1; GF(2^18) with k = 1 and k = 2; GF(4) in the fast mode
with n + 1 > d0), sample_conditioned runs with a deterministic source on sets A holding the
first and the last element of X, and every value the release reports is checked: for x in A
it must be the prescribed c_x (the interpolation constraint), and for every x in X it must
equal M0(T(p(embed(x - 1)))) recomputed here by Horner's rule in F_{d0} from the released
coefficients and the node rule above (written out here), i.e. the release's own evaluation
(native coordinate table when built) agrees with the field; with the native library built,
the pure arithmetic must release the same coefficients from the same draws."""


class _Counter(RandomSource):
    """A deterministic source (proof use only): ``uniform(d)`` cycles through ``[d]_+`` with
    a large odd stride, so different points get different draws."""

    def __init__(self) -> None:
        self.calls = 0

    def uniform(self, d: int) -> int:
        self.calls += 1
        return 1 + (self.calls * 2654435761) % d


def _uniform_toy(n: int, d: int) -> TabulatedMechanism:
    """``M(c, u)`` uniform on ``[0, min(n, d - 1)]`` whatever ``c`` (d values of u)."""
    return TabulatedMechanism([[min(z + 1, d) for z in range(n + 1)] for _ in range(n + 1)])


#: (field level, |X|, n, strict, expected node level k): both sides of every boundary.
CASES = [
    (1, 4, 3, True, 0), (1, 4, 4, True, 1),      # n + 1 = 4 | 5
    (1, 4, 1, True, 0), (1, 5, 1, True, 1),      # |X| = 4 | 5
    (1, 64, 1, True, 1),                         # k = level: the inclusion is the identity
    (2, 64, 1, True, 1), (2, 65, 1, True, 2),    # |X| = 64 | 65
    (2, 4, 63, True, 1), (2, 4, 64, True, 2),    # n + 1 = 64 | 65
    (0, 4, 4, False, 0),                         # fast mode: n + 1 = 5 > d0 = 4, capped
]


def _least_level(points: int) -> int:
    k = 0
    while 2 ** (2 * 3**k) < points:
        k += 1
    return k


def _check_sets(ch: CompactHistogram, mech: TabulatedMechanism, sets: list[list[int]],
                k_rule: int, mismatches: list[str]) -> None:
    """Release conditioned on each set A and compare every reported value (see above)."""
    field, size, strict = ch.field, ch.universe.size, ch.strict_time
    support = sorted({mech(0, u) for u in range(1, mech.d + 1)})
    for chosen in sets:
        values = {x: support[i % len(support)] for i, x in enumerate(chosen)}
        rel = ch.sample_conditioned(values, _Counter())
        stride = 3 ** (field.level - k_rule)
        for x in range(1, size + 1):
            node = sum(1 << (q * stride) for q in range((x - 1).bit_length())
                       if (x - 1) >> q & 1)
            acc = 0
            for coeff in reversed(rel.coefficients):
                acc = field.mul(acc, node) ^ coeff
            want = ch.empty(field.to_index(acc))
            got = rel.evaluate(x)
            if got != want or (x in values and got != values[x]):
                mismatches.append(f"A={chosen}, x={x}: {got} vs M0(T(p(x)))={want}, "
                                  f"c_x={values.get(x)}")
        if ch.uses_native:
            pure = CompactHistogram(size, mech, field.level, strict_time=strict,
                                    arithmetic="pure")
            if pure.sample_conditioned(values, _Counter()).coefficients != rel.coefficients:
                mismatches.append(f"A={chosen}: native and pure coefficients differ")


def check(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    for level, size, n, strict, k_expected in CASES:
        d = 3 if level == 0 else min(n + 1, 48)
        mech = _uniform_toy(n, d)
        ch = CompactHistogram(size, mech, level, strict_time=strict)
        field = ch.field
        k_rule = _least_level(max(size, min(n + 1, field.order)))
        ok = ch.sublevel == k_expected == k_rule
        sets = [[1], [size]] if n == 1 else [[1, size], list(range(1, min(n, size) + 1))]
        if full:
            sets.append(list(range(max(1, size - n + 1), size + 1)))
        mismatches: list[str] = []
        try:
            _check_sets(ch, mech, sets, k_rule, mismatches)
        except ExactDPError as err:  # the release refused its own nodes: a FAIL, with why
            mismatches.append(f"{type(err).__name__}: {err}")
        ok = ok and not mismatches
        certs.append(Certificate(
            CLAIM, f"CompactHistogram(|X|={size}, uniform toy n={n} d={mech.d}, "
                   f"GF(2^{field.degree}), nodes in GF(2^{2 * 3**ch.sublevel}))",
            {"level": level, "|X|": size, "n": n, "strict": strict, "k": ch.sublevel},
            f"{len(sets)} sets A, every x in X", len(mismatches),
            f"k = {k_expected}; g_x = c_x on A; evaluate == M0(T(p(embed(x-1))))", ok,
            {"mismatches": mismatches[:5], "native": ch.uses_native}))
    return ClaimReport(
        CLAIM, "(level, |X|, n, mode, k): " + "; ".join(
            f"({lv}, {s}, {n}, {'strict' if st else 'fast'}, {k})" for lv, s, n, st, k in CASES),
        "interpolation constraints met and evaluation agrees with the field on every case"
        if all(c.verdict for c in certs) else "MISMATCH",
        "node level k as the rule says; g_x = c_x on A; h_x = M0(T(p(embed(x - 1))))", certs)
