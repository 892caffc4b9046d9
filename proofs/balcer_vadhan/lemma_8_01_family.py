"""Lemma 8.1: the family G_{M0}(X) of polynomial histograms over GF(2^{2*3^l})."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import partial
from itertools import combinations, product

from exactdp.certificate import Certificate, ClaimReport
from exactdp.explore import explore
from exactdp.histograms.compact import CompactHistogram, EmptyBinSampler
from exactdp.histograms.fields import MAX_LEVEL, VanLintField
from exactdp.proofs.balcer_vadhan._compact import m0_distribution, toy
from exactdp.randomness import RandomSource

CLAIM = "Lemma 8.1"
STATEMENT = """Let M0: [d0]_+ -> [n] be deterministic, d0 = 2^{2*3^l} >= |X|, U ~ Unif([d0]_+).  The
multiset G_{M0}(X) of histograms g_x = M0(T(p(x))), p ranging over the polynomials of degree
<= n over F_{d0}, satisfies: (i) for g uniform, each g_x ~ M0(U); (ii) for |B| <= n+1 the
g_x, x in B, are independent; (iii) g is a string of O(n log d0) bits and F_{d0} =
GF(2)[t]/(t^{2*3^l} + t^{3^l} + 1) [van Lint]; (iv) a uniform g with g_x = c_x on a set A,
|A| <= n, is sampled by drawing u_x ~ S_{c_x} on A, uniform u_x on the rest of a set B of
n + 1 points, and interpolating."""
PROOF_IDEA = """Evaluation at n + 1 distinct points is a bijection from the polynomials of degree
<= n onto F^{n+1} (Vandermonde), so the values p(x) are uniform and (n+1)-wise independent;
applying M0 o T pointwise keeps independence and gives marginals M0(U).  (iii): the modulus is
the cyclotomic polynomial Phi_{3^{l+1}}, irreducible since 2 has order 2*3^l modulo 3^{l+1}.
(iv): the interpolated polynomial is determined by (u_x)_{x in B}, whose law is the product of
uniforms on the preimages.  Nodes: x in X is embed(x - 1), x - 1 read in a subfield K and
included into F_{d0} (any injection serves the lemma); the inclusion is a homomorphism since
t^{3^{l-k}} is a root of K's modulus.  Checks: every polynomial is enumerated and evaluated by
the implementation's Horner evaluation; (ii) by checking that evaluation at every set B of n+1
points (on GF(64), where the grid says so, among its first 16 or 8 points) hits every value tuple
exactly once, and that the joint law of g_B is the product of its marginals for every B of
at most n+1 of the first 4 points; (iii) by the cyclotomic facts for every supported
level and Rabin's test (levels <= 8 quick, all full); nodes: the root property for every pair
of levels and every product and sum on the small fields; (iv) by running the implementation's
conditional sampler under the exploring source, in both the strict-time and the fast mode."""

# (level, n) pairs whose polynomials are all enumerated.
_ENUM_QUICK = [(0, 1), (0, 2), (0, 3), (1, 1)]
_ENUM_FULL = _ENUM_QUICK + [(1, 2)]


def _values(level: int, n: int) -> list[tuple[int, ...]]:
    """``[(p(0), ..., p(d0 - 1)) for every p of degree <= n]`` through ``field.evaluate``."""
    field = VanLintField(level)
    points = range(field.order)
    return [tuple(field.evaluate(coeffs, x) for x in points)
            for coeffs in product(range(field.order), repeat=n + 1)]


_TABLES: dict[tuple[int, int], list[tuple[int, ...]]] = {}


def _table(level: int, n: int) -> list[tuple[int, ...]]:
    if (level, n) not in _TABLES:
        _TABLES[(level, n)] = _values(level, n)
    return _TABLES[(level, n)]


def _m0(level: int, n: int) -> EmptyBinSampler:
    """A toy M0 for the enumeration: Lemma 8.4's sampler of a small counting mechanism."""
    field = VanLintField(level)
    mech = toy({1: "RR3", 2: "U3", 3: "U3n3"}[n]) if level == 0 else \
        toy("RR32") if n == 1 else toy("G7")
    return EmptyBinSampler(mech, field.order)


def _grid(full: bool) -> str:
    pairs = _ENUM_FULL if full else _ENUM_QUICK
    return ", ".join(f"GF({4 if lv == 0 else 64}) n={n}" for lv, n in pairs) + \
        " (all polynomials)"


def check_i(full: bool) -> ClaimReport:
    certs = []
    for level, n in (_ENUM_FULL if full else _ENUM_QUICK):
        field = VanLintField(level)
        table = _table(level, n)
        sampler = _m0(level, n)
        target = m0_distribution(sampler).dist
        total = len(table)
        m0 = [sampler(field.to_index(v)) for v in range(field.order)]  # M0 o T, by calls
        ok_u, ok_g = True, True
        for x in range(field.order):
            counts = Counter(row[x] for row in table)
            ok_u = ok_u and len(counts) == field.order and set(counts.values()) == {
                total // field.order}
            g = Counter(m0[row[x]] for row in table)
            ok_g = ok_g and {v: Fraction(k, total) for v, k in g.items()} == target
        certs.append(Certificate(
            "Lemma 8.1 (i)", f"degree <= {n} polynomials over {field}", {"n": n, "d0": field.order},
            f"every x in F ({field.order} points)", None,
            "p(x) ~ Unif(F) and g_x ~ M0(U0)", ok_u and ok_g,
            {"uniform_values": ok_u, "marginal_equals_M0": ok_g}))
    return ClaimReport("Lemma 8.1 (i)", _grid(full),
                       "p(x) uniform and g_x ~ M0(U0) exactly, every x",
                       "marginal of g_x = M0(U0)", certs)


#: The g-level product form is checked on every B of at most n + 1 of these first points.
_PRODUCT_POINTS = 4


def check_ii(full: bool) -> ClaimReport:
    certs = []
    sets_checked = 0
    coverage = []
    for level, n in (_ENUM_FULL if full else _ENUM_QUICK):
        field = VanLintField(level)
        table = _table(level, n)
        sampler = _m0(level, n)
        q = len(table)
        points = field.order
        all_sets = list(combinations(range(points), n + 1))
        if len(all_sets) > (3000 if full else 200):  # GF(64): n = 1 quick, n = 2 full
            points = 16 if n == 1 else 8
            all_sets = list(combinations(range(points), n + 1))
        bijective = True
        columns = list(zip(*table))  # columns[x][i] = p_i(x): the values at x of every p
        for b in all_sets:
            # the tuples (p(x))_{x in B} of every p, as zip builds them from the columns
            bijective = bijective and len(set(zip(*[columns[x] for x in b]))) == q
        sets_checked += len(all_sets)
        # g-level product form on every B of size <= n + 1 inside the first few points.
        product_ok = True
        k = min(_PRODUCT_POINTS, field.order)
        m0 = [sampler(field.to_index(v)) for v in range(field.order)]
        labels = [tuple(m0[v] for v in row[:k]) for row in table]
        marg = [Counter(lab[x] for lab in labels) for x in range(k)]
        product_sets = 0
        for size in range(1, min(n + 1, k) + 1):
            for b in combinations(range(k), size):
                product_sets += 1
                joint = Counter(tuple(lab[x] for x in b) for lab in labels)
                for key, cnt in joint.items():
                    prod_ = Fraction(1)
                    for x, v in zip(b, key):
                        prod_ *= Fraction(marg[x][v], q)
                    product_ok = product_ok and Fraction(cnt, q) == prod_
        where = f"all {points}" if points == field.order else f"the first {points}"
        coverage.append(f"GF({field.order}) n={n}: {where} points")
        certs.append(Certificate(
            "Lemma 8.1 (ii)", f"degree <= {n} polynomials over {field}", {"n": n},
            f"{len(all_sets)} sets B of n+1 of {where} points (bijection); "
            f"{product_sets} sets B of <= n+1 of the first {k} points (product form)", None,
            "p -> (p(x))_{x in B} bijective; Pr[g_B = c] = prod Pr[g_x = c_x]",
            bijective and product_ok, {"bijective": bijective, "product_form": product_ok}))
    return ClaimReport(
        "Lemma 8.1 (ii)",
        "all polynomials; p -> (p(x))_{x in B} bijective for every B of n+1 points among "
        + ", ".join(coverage) + f"; joint law of g_B = product of marginals for every B of "
        f"<= n+1 points among the first {_PRODUCT_POINTS} field points (all of GF(4))",
        f"{sets_checked} sets B: evaluation bijective; g-level joint = product"
        if all(c.verdict for c in certs) else "MISMATCH",
        "(n+1)-wise independence exactly", certs)


def check_iii(full: bool) -> ClaimReport:
    certs = []
    rabin_max = MAX_LEVEL if full else 8
    for level in range(MAX_LEVEL + 1):
        field = VanLintField(level)
        facts = field.cyclotomic_certificate()
        ok = all(facts.values())
        witness: dict[str, object] = dict(facts)
        if level <= rabin_max:
            rabin = field.rabin_test()
            witness["rabin"] = rabin
            ok = ok and rabin
        # T is a bijection F -> [d0]_+ and an element takes log2 d0 bits.
        ok = ok and field.to_index(0) == 1 and field.to_index(field.order - 1) == field.order
        ok = ok and (field.order - 1).bit_length() == field.degree
        certs.append(Certificate(
            "Lemma 8.1 (iii)", str(field), {"level": level, "m": field.degree}, "the modulus",
            None, "irreducible over GF(2)", ok, witness))
    bad = [c.parameters["level"] for c in certs if not c.verdict]
    return ClaimReport(
        "Lemma 8.1 (iii)", f"levels 0..{MAX_LEVEL}: cyclotomic certificate; Rabin's test for "
        f"levels 0..{rabin_max}",
        f"all irreducible (cyclotomic facts all levels; Rabin's test levels 0..{rabin_max})"
        if not bad else f"FAILED at levels {bad}",
        "t^{2*3^l} + t^{3^l} + 1 irreducible; T(a) = a + 1 bijective; m bits per element",
        certs)


def check_nodes(full: bool) -> ClaimReport:
    """CompactHistogram's nodes: ``x`` in ``X`` is ``embed(x - 1)``, an element of the subfield
    ``K_k = GF(2^{2*3^k})`` included by ``z -> t^{3^{l-k}}``.  Lemma 8.1 needs only an
    injection of ``X`` into the field; the inclusion must also be a field homomorphism for the
    native path's coordinate-wise arithmetic (:mod:`exactdp.histograms.native`)."""
    certs = []
    exhaustive = 2 if full else 1   # largest L level with every pair of K elements multiplied,
    pairs_up_to = 64                 # for K of at most this many elements
    for level in range(MAX_LEVEL + 1):
        field = VanLintField(level)
        for k in range(level + 1):
            sub = VanLintField(k)
            z = field.embed(2, k)               # the image of z, t^{3^{l-k}}
            root = field.power(z, sub.degree) ^ field.power(z, sub.half) ^ 1 == 0
            witness: dict[str, object] = {"root_of_K_modulus": root}
            ok = root and z == 1 << 3 ** (level - k)
            if level <= exhaustive and sub.order <= pairs_up_to:
                elems = range(sub.order)
                injective = len({field.embed(a, k) for a in elems}) == sub.order
                mult = all(field.embed(sub.mul(a, b), k) == field.mul(field.embed(a, k),
                                                                     field.embed(b, k))
                           for a in elems for b in elems)
                add = all(field.embed(a ^ b, k) == field.embed(a, k) ^ field.embed(b, k)
                          for a in elems for b in elems)
                witness.update(injective=injective, products=mult, sums=add)
                ok = ok and injective and mult and add
            certs.append(Certificate(
                "Lemma 8.1 (nodes)", f"GF(2^{sub.degree}) in {field}", {"level": level, "k": k},
                "z -> t^{3^(l-k)}", None, "field homomorphism (injective)", ok, witness))
    return ClaimReport(
        "Lemma 8.1 (nodes)", f"every subfield level k <= l <= {MAX_LEVEL}: t^{{3^(l-k)}} is a "
        f"root of K's modulus in L; every pair of elements for l <= {exhaustive}, "
        f"|K| <= {pairs_up_to}",
        f"{len(certs)} inclusions K -> L are field homomorphisms"
        if all(c.verdict for c in certs) else "MISMATCH",
        "embed(a b) = embed(a) embed(b), embed(a + b) = embed(a) + embed(b), injective", certs)


def _conditioned(ch: CompactHistogram, values: dict[int, int],
                 source: RandomSource) -> tuple[int, ...]:
    return ch.sample_conditioned(values, source).coefficients


_COND_QUICK = [(0, 1), (0, 2)]
_COND_FULL = [(0, 1), (0, 2), (0, 3), (1, 1)]


def check_iv(full: bool) -> ClaimReport:
    certs: list[Certificate] = []
    runs = 0
    for level, n in (_COND_FULL if full else _COND_QUICK):
        field = VanLintField(level)
        sampler = _m0(level, n)
        table = _table(level, n)
        coeffs = list(product(range(field.order), repeat=n + 1))
        m0 = [sampler(field.to_index(v)) for v in range(field.order)]
        labels = [tuple(m0[v] for v in row) for row in table]
        universe = min(field.order, 4)
        support = sorted(m0_distribution(sampler).dist)
        histograms = {strict: CompactHistogram(universe, sampler.mechanism, level,
                                               strict_time=strict) for strict in (True, False)}
        # x in X is the node embed(x - 1) of the subfield K (GF(4) inside GF(64) here)
        sub = histograms[True].sublevel
        nodes = [field.embed(x - 1, sub) for x in range(1, universe + 1)]
        for size in range(n + 1):
            for a_set in combinations(range(1, universe + 1), size):
                for vals in product(support, repeat=size):
                    want = [c for c, lab in zip(coeffs, labels)
                            if all(lab[nodes[x - 1]] == v for x, v in zip(a_set, vals))]
                    target = {c: Fraction(1, len(want)) for c in want}
                    for strict, ch in histograms.items():
                        got = explore(partial(_conditioned, ch, dict(zip(a_set, vals))))
                        runs += 1
                        ok = got == target
                        if not ok or len(certs) < 200:
                            certs.append(Certificate(
                                "Lemma 8.1 (iv)", f"sample_conditioned over {field}",
                                {"n": n, "A": list(a_set), "values": list(vals),
                                 "strict_time": strict}, f"{len(want)} polynomials", None,
                                "explored == uniform on {g : g_x = c_x on A}", ok))
    return ClaimReport(
        "Lemma 8.1 (iv)", ", ".join(f"GF({4 if lv == 0 else 64}) n={n}" for lv, n in
                                    (_COND_FULL if full else _COND_QUICK))
        + "; X = first 4 points; every A with |A| <= n and every value vector in supp(M0)",
        f"{runs} explored samplers equal the uniform distribution on the constrained set "
        f"(strict and fast modes)" if all(c.verdict for c in certs) else "MISMATCH",
        "exactly uniform on {g in G : g_x = c_x for x in A}", certs)


CHECKS = [check_i, check_ii, check_iii, check_nodes, check_iv]
