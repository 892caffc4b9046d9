"""ALP's expected maximum error over d keys (Theorem 4.1's O(log(d)/eps)), in an explicit form
without hash collisions: E max_i |y~_i - y_i| <= 2 K_d + 8pq/(1 - 4pq) in y-units, with K_d the
least k such that d (2/(q - p)) (4pq)^k <= 1, i.e. K_d = ceil(ln(2d/(q - p))/ln(1/(4pq)))."""

from __future__ import annotations

from fractions import Fraction

from exactdp.certificate import Certificate, ClaimReport, brief
from exactdp.proofs.alp._alp import estimate_law

CLAIM = "ALP expected maximum error (explicit, no collisions)"
STATEMENT = """ALP-short Theorem 4.1 (ALP-full Lemma 4.11's tail end): expected maximum error
O(log(d)/eps) over the d entries.  Explicit form checked (y-units; x-units multiply by
alpha/eps): for d keys whose cells do not collide, each with true y <= m,
E max_i |y~_i - y_i| <= 2 K_d + 8pq/(1 - 4pq), K_d the least integer k >= 0 with
d (2/(q - p)) (4pq)^k <= 1 (so K_d = ceil(ln(2d/(q - p))/psi), psi = ln(1/(4pq)): the 2 ln(d)/psi
of Lemma 4.11)."""
PROOF_IDEA = """Derivation: Pr[max >= t] <= min(1, d B(t)) with Lemma 4.15's reconstructed tail
B(t) = (2/(q - p)) (4pq)^ceil(t/2); integrate 1 up to 2 K_d and d B(t) beyond, a geometric sum
<= 2 (4pq)/(1 - 4pq).  Check: the law of y~ - y of one key from the implementation (ALP.project
with one row and m columns, explored on every randomized-response coin, then
estimate_units, as in the Equation 1 row); without collisions the d keys occupy disjoint cells
with independent coins, so Pr[max |e| <= v] = G(v)^d exactly (G the law of |e|), and E max is
summed exactly over the support.  Grid: p = 1/20 and 1/10 (alpha = 18, 8), m = 10 (--full 12),
all keys at y = 0 or m/2, d = 1 .. 256 (--full adds 1024 and y = m).  A point is non-trivial
when the bound is below max(y, m - y), the largest possible error; their number is printed and
must be > 0."""

M = 12        # --full; the quick grid uses M_QUICK columns
M_QUICK = 10


def k_d(p: Fraction, d: int) -> int:
    q = 1 - p
    k = 0
    while d * (2 / (q - p)) * (4 * p * q) ** k > 1:
        k += 1
    return k


def bound(p: Fraction, d: int) -> Fraction:
    q = 1 - p
    return 2 * k_d(p, d) + 8 * p * q / (1 - 4 * p * q)


def expected_max(law: dict[Fraction, Fraction], d: int) -> Fraction:
    """E max of d independent copies of |e|, e ~ law, exactly."""
    absl: dict[Fraction, Fraction] = {}
    for e, w in law.items():
        absl[abs(e)] = absl.get(abs(e), Fraction(0)) + w
    total, cdf, prev = Fraction(0), Fraction(0), Fraction(0)
    for v in sorted(absl):
        cdf += absl[v]
        now = cdf ** d
        total += v * (now - prev)
        prev = now
    return total


def check(full: bool) -> ClaimReport:
    ds = [1, 4, 16, 64, 256] + ([1024] if full else [])
    m = M if full else M_QUICK
    ys = [0, m // 2] + ([m] if full else [])
    certs = []
    bites = points = 0
    for p in (Fraction(1, 20), Fraction(1, 10)):
        for y in ys:
            law = estimate_law(p, m, y)
            rows = []
            ok = True
            for d in ds:
                got, b = expected_max(law, d), bound(p, d)
                points += 1
                bites += b < max(y, m - y)
                ok = ok and got <= b
                rows.append((d, got, b))
            certs.append(Certificate(
                CLAIM, "ALP estimator (implementation, explored), no collisions",
                {"p": p, "m": m, "y": y}, f"d in {ds}", max(g / b for _, g, b in rows),
                "E max <= 2 K_d + 8pq/(1-4pq): " + ", ".join(
                    f"d={d}: {brief(g, 3)} <= {brief(b, 3)}" for d, g, b in rows), ok,
                {"rows": [{"d": d, "expected_max": g, "bound": b} for d, g, b in rows]}))
    certs.append(Certificate(CLAIM + ": non-trivial points", "the grid above", {},
                             "bound below max(y, m - y)", bites, "> 0", bites > 0))
    worst = max(Fraction(c.worst) for c in certs[:-1])  # type: ignore[arg-type]
    return ClaimReport(CLAIM, f"p in 1/20, 1/10; m = {m}; y in {ys}; d in {ds}",
                       f"max E max / bound {brief(worst, 4)}; {bites} of {points} bounds "
                       "non-trivial", "E max <= 2 K_d + 8pq/(1 - 4pq), K_d = O(log d)", certs)
