/*
 * Native batch paths of the counting samplers (Balcer & Vadhan, Section 4): FastSample's
 * inverse-CDF binary search (Algorithm 4.11 step 4 with Lemma 2.13) over many draws, and the
 * reduction of OS random words to draws uniform on [d]_+ (the source of Section 2.4).
 * Loaded with ctypes (no Python.h), see exactdp/native_samplers.py.
 *
 * Numbers are little-endian arrays of W 64-bit limbs.  Everything is exact integer arithmetic:
 * no floating point.
 *
 * Search (es_search).  For a count c and a draw u in [d]_+ the output is min{z in [n] :
 * F_c(z) >= u}, by exactly `rounds` = ceil(log2(n + 1)) rounds of mid = (lo + hi) / 2, whatever
 * c and u are (no early exit), then one comparison of Wd limbs.  FastSample's F_c(z) for z in
 * [0, n) is
 *     F_c(z) = (z + 1) d' + S F'(z - c),   S = (1/gamma - 1)(n + 1),
 * with F'(j) = 0 for j < -t and F'(j) = d' for j >= t (Algorithm 4.11), and F_c(z) = d for
 * z >= n.  Adding (t + n - c) d' to both sides of F_c(z) >= u gives, with j = z - c,
 * G(j) = S F'(j) + (j + t + n + 1) d' >= u + (t + n - c) d', where G(j) = T[j] for -t <= j < t
 * is a table of 2t numbers the caller builds from the paper's formula and stores as
 * T[j] = A(j) d' + B(j) (0 <= B(j) < d'): a head A(j) of one word and a remainder B(j) of Wd
 * limbs.  Once per draw: u - 1 = q d' + r1 (one division step; q < 2^62 since u <= d =
 * (n + 1) d' / gamma).  Each round compares heads (search_one explains why a tie can only
 * happen at the final point and how the one comparison of B against r1 settles it); every
 * test is computed with masks.  The sequence of instructions depends only on (W, Wd, n, t,
 * rounds); the head and the row of B read depend on z - c (memory accesses at data-dependent
 * addresses: constant-time in the instruction sequence, not against an observer of the cache).
 *
 * Reduction (es_reduce).  A draw of K + 63 random bits r (K = bit length of d) gives
 * q = floor(r / d) and u = (r mod d) + 1; it is accepted iff q <= m1 = floor(2^(K+63) / d) - 1,
 * i.e. r < (m1 + 1) d, so that an accepted u is exactly uniform on [d]_+ (the caller redraws a
 * rejected one: probability <= 2^-62).  The quotient has one limb: Knuth's algorithm D with a
 * normalised divisor (div1: the estimate refined with the next limbs, then one masked
 * add-back, always done).  es_sample1 is es_sample of one draw, for FastSample.sample.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#endif

typedef uint64_t u64;
typedef unsigned __int128 u128;

#define ES_VERSION 2

int es_version(void) { return ES_VERSION; }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ES_X86 1
#endif

/* r (W + 1 limbs) -= q * dn (W limbs); returns 1 iff the result is negative (wrapped). */
static u64 submul(u64 *r, const u64 *dn, long W, u64 q) {
    u64 hi = 0;
#ifdef ES_X86
    unsigned char b = 0;
    for (long i = 0; i < W; i++) {
        u128 p = (u128)q * dn[i] + hi;  /* <= (2^64 - 1)^2 + 2^64 - 1 < 2^128 */
        hi = (u64)(p >> 64);
        b = _subborrow_u64(b, r[i], (u64)p, (unsigned long long *)&r[i]);
    }
    b = _subborrow_u64(b, r[W], hi, (unsigned long long *)&r[W]);
    return b;
#else
    u64 borrow = 0;
    for (long i = 0; i <= W; i++) {
        u64 pl = hi;
        if (i < W) {
            u128 p = (u128)q * dn[i] + hi;
            hi = (u64)(p >> 64);
            pl = (u64)p;
        }
        u64 ri = r[i];
        u64 x = ri - pl;
        u64 b1 = (u64)(ri < pl);
        r[i] = x - borrow;
        u64 b2 = (u64)(x < borrow);
        borrow = b1 | b2;
    }
    return borrow;
#endif
}

/* r (W + 1 limbs) += dn & mask; returns the carry out of the top limb. */
static u64 addback(u64 *r, const u64 *dn, long W, u64 mask) {
#ifdef ES_X86
    unsigned char c = 0;
    for (long i = 0; i < W; i++)
        c = _addcarry_u64(c, r[i], dn[i] & mask, (unsigned long long *)&r[i]);
    c = _addcarry_u64(c, r[W], 0, (unsigned long long *)&r[W]);
    return c;
#else
    u64 carry = 0;
    for (long i = 0; i < W; i++) {
        u128 s = (u128)r[i] + (dn[i] & mask) + carry;
        r[i] = (u64)s;
        carry = (u64)(s >> 64);
    }
    u128 s = (u128)r[W] + carry;
    r[W] = (u64)s;
    return (u64)(s >> 64);
#endif
}

/* floor((u1 2^64 + u0) / v1) and the remainder, for u1 < v1, v1 normalised (top bit set), by
 * the reciprocal inv = floor((2^128 - 1) / v1) - 2^64 (Moller & Granlund, "Improved division
 * by invariant integers", 2011, Algorithm 4): multiplications and two masked corrections, no
 * division instruction and no branch on u1, u0 (a hardware or libgcc division of the draw
 * takes a time that depends on it). */
static u64 div21(u64 u1, u64 u0, u64 v1, u64 inv, u64 *rem) {
    u128 qq = (u128)inv * u1 + (((u128)(u1 + 1) << 64) | u0);
    u64 q1 = (u64)(qq >> 64), q0 = (u64)qq;
    u64 r = u0 - q1 * v1;
    u64 m = (u64)0 - (u64)(r > q0);
    q1 += m;          /* q1 - 1 where r > q0 */
    r += v1 & m;
    u64 m2 = (u64)0 - (u64)(r >= v1);
    q1 -= m2;         /* q1 + 1 where r >= v1 (rare) */
    r -= v1 & m2;
    *rem = r;
    return q1;
}

/* r (W + 1 limbs, r < 2^64 dn, dn normalised: top bit of dn[W - 1] set) becomes r mod dn;
 * returns floor(r / dn).  Knuth's algorithm D for a one-limb quotient (TAOCP 4.3.1, step D3):
 * the estimate qh from the top two limbs of r and the top limb of dn, lowered while
 * qh >= 2^64 or qh v0 > (rh 2^64 + u0) with the next limbs (at most twice: both tests always
 * computed, applied with masks), is q or q + 1; one masked add-back (always done) corrects it.
 * With W = 1 the estimate is exact (v0 = u0 = 0).  The only division instruction divides the
 * public dn[W - 1] (its reciprocal). */
static u64 div1(u64 *r, const u64 *dn, long W) {
    const u128 b = (u128)1 << 64;
    u64 v1 = dn[W - 1], v0 = W >= 2 ? dn[W - 2] : 0, u0 = W >= 2 ? r[W - 2] : 0;
    u64 inv = (u64)((((u128)~v1) << 64 | ~(u64)0) / v1);
    /* r[W] <= v1; where r[W] = v1 the quotient is 2^64 + floor(r[W - 1] / v1) */
    u64 eq = (u64)0 - (u64)(r[W] == v1);
    u64 rl;
    u64 ql = div21(r[W] & ~eq, r[W - 1], v1, inv, &rl);
    u128 qh = (u128)ql + ((u128)(eq & 1) << 64);  /* <= 2^64 + 1 */
    u128 rh = rl;
    for (int step = 0; step < 2; step++) {
        u128 big = (u128)0 - (u128)(qh >= b);
        /* when qh >= 2^64 or rh >= 2^64 the product or the shift may wrap: masked out */
        u128 over = (u128)0 - (u128)((rh < b) & (qh * v0 > ((rh << 64) | u0)));
        u128 lower = big | over;
        qh -= lower & 1;
        rh += lower & v1;
    }
    u64 q = (u64)qh;
    u64 neg = submul(r, dn, W, q);
    addback(r, dn, W, (u64)0 - neg);
    return q - neg;
}

/* r (W + 1 limbs) = x (xw <= W + 1 limbs, top limb ANDed with topmask) << s, 0 <= s < 64. */
static void shift_in(u64 *r, const u64 *x, long xw, long W, int s, u64 topmask) {
    u64 prev = 0;
    for (long i = 0; i <= W; i++) {
        u64 xi = i < xw - 1 ? x[i] : (i == xw - 1 ? x[i] & topmask : 0);
        r[i] = s ? (xi << s) | (prev >> (64 - s)) : xi;
        prev = xi;
    }
}

/* The borrow out of a - b over n limbs (1 iff a < b), every limb visited: a chain of
 * subtract-with-borrow instructions on x86-64, the same arithmetic in C elsewhere. */
static inline u64 borrow_of(const u64 *a, const u64 *b, long n) {
#ifdef ES_X86
    unsigned char c = 0;
    unsigned long long x;
    long i = 0;
    for (; i + 4 <= n; i += 4) {
        c = _subborrow_u64(c, a[i], b[i], &x);
        c = _subborrow_u64(c, a[i + 1], b[i + 1], &x);
        c = _subborrow_u64(c, a[i + 2], b[i + 2], &x);
        c = _subborrow_u64(c, a[i + 3], b[i + 3], &x);
    }
    for (; i < n; i++) c = _subborrow_u64(c, a[i], b[i], &x);
    return c;
#else
    u64 borrow = 0;
    for (long i = 0; i < n; i++) {
        u64 x = a[i] - b[i];
        borrow = (u64)(a[i] < b[i]) | (u64)(x < borrow);
    }
    return borrow;
#endif
}

/* All ones if a < b (unsigned), else 0. */
static inline u64 ltu(u64 a, u64 b) { return (u64)0 - (u64)(a < b); }

/* A FastSample-shaped mechanism for es_search (filled once by exactdp/native_samplers.py).
 * dn = d' << sd (Wd limbs, normalised); for j in [-t, t) (index j + t) heads[j + t] =
 * floor(T[j] / d') and rems (rows of Wd limbs) = (T[j] mod d') << sd, where T[j] = S F'(j) +
 * (j + t + n + 1) d'; S = (1/gamma - 1)(n + 1); draws have W limbs. */
struct es_table {
    long W, Wd;
    int64_t sd, n, rounds, t;
    u64 S;
    const u64 *dn, *heads, *rems;
    /* es_sample's reduction modulo d (W limbs): s = 64 W - K, dd = d << s, m1, topmask */
    int64_t s;
    u64 m1, topmask;
    const u64 *dd;
};

/* Needs 1 <= W <= Wd + 1, n, t >= 1, rounds in [1, 63] and S + 2t + n + 1 < 2^63 (every head
 * and every key fits in 63 bits). */
static int table_ok(const struct es_table *tab) {
    return !(tab->W < 1 || tab->Wd < 1 || tab->W > tab->Wd + 1 || tab->n < 1 || tab->t < 1 ||
             tab->rounds < 1 || tab->rounds > 63 || tab->sd < 0 || tab->sd > 63 ||
             !(tab->dn[tab->Wd - 1] >> 63) || tab->S >= ((u64)1 << 62) ||
             (u64)tab->n + 2 * (u64)tab->t + 1 >= ((u64)1 << 62));
}

/* The head A(j) of G(j) = F_c(c + j) + (t + n - c) d' = A(j) d' + B(j), 0 <= B(j) < d':
 * the table's heads[j + t] inside the window, j + t + n + 1 below it (F' = 0, B = 0) and
 * S + j + t + n + 1 above it (F' = d', B = 0).  *inside: all ones iff -t <= j < t. */
static inline u64 head_at(const struct es_table *tab, int64_t j, u64 *inside) {
    int64_t t = tab->t;
    u64 below = (u64)0 - (u64)(j < -t);
    u64 above = (u64)0 - (u64)(j >= t);
    u64 in = ~(below | above);
    int64_t jc = (int64_t)(((u64)j & in) | ((u64)(-t) & below) | ((u64)(t - 1) & above));
    u64 a_in = tab->heads[jc + t];
    u64 a_out = (u64)(j + t + tab->n + 1) + (tab->S & above);
    *inside = in;
    return (a_in & in) | (a_out & ~in);
}

/*
 * min{z in [0, n] : F_c(z) >= u}, given r = (u - 1) << sd (Wd + 1 limbs; becomes r1 << sd).
 *
 * With u - 1 = q d' + r1 (0 <= r1 < d') and key = q + t + n - c: for z < n, j = z - c,
 *     F_c(z) >= u  iff  G(j) > (u - 1) + (t + n - c) d' = key d' + r1
 *                  iff  A(j) > key, or A(j) = key and B(j) > r1.
 * The rounds decide the relaxed test P~(z) = "A(j) >= key" inside the window and the exact
 * "A(j) > key" outside it (B = 0 there), and z = n always passes.  P~ is non-decreasing in z
 * and differs from the exact test at most at z0 = min{z : P~(z)}: G grows by at least d' per
 * step, so A grows by at least 1 and the z after a tie passes exactly.  Hence the answer is
 * z0, plus 1 when z0 < n lies inside the window with A = key and B <= r1 -- one comparison of
 * Wd limbs after the rounds.  Every round reads one 64-bit head (a table of 2t words that
 * stays in the caches); the one row of B is read and compared in full, every draw.
 */
static int64_t search_shifted(const struct es_table *tab, int64_t c, u64 *r) {
    long Wd = tab->Wd;
    int64_t n = tab->n, t = tab->t;
    u64 q = div1(r, tab->dn, Wd);
    u64 key = q + (u64)(t + n - c);
    int64_t lo = 0, hi = n;
    for (int rd = 0; rd < (int)tab->rounds; rd++) {
        int64_t mid = (lo + hi) >> 1;
        u64 inside;
        u64 a = head_at(tab, mid - c, &inside);
        u64 at_n = ~ltu((u64)mid, (u64)n);
        u64 ge = at_n | (inside & ~ltu(a, key)) | (~inside & ltu(key, a));
        hi = (int64_t)(((u64)mid & ge) | ((u64)hi & ~ge));
        lo = (int64_t)(((u64)lo & ge) | ((u64)(mid + 1) & ~ge));
    }
    u64 inside;
    u64 a = head_at(tab, lo - c, &inside);
    int64_t j = lo - c;
    int64_t jc = j < -t ? -t : (j >= t ? t - 1 : j);
    jc = (int64_t)(((u64)j & inside) | ((u64)jc & ~inside));
    const u64 *row = tab->rems + (jc + t) * Wd;
    u64 gt = borrow_of(r, row, Wd);  /* 1 iff r1 < B(j) */
    u64 tie = inside & ltu((u64)lo, (u64)n) & ((u64)0 - (u64)(a == key));
    return lo + (int64_t)(tie & (gt ^ 1));
}

/* min{z in [0, n] : F_c(z) >= u} (u: W limbs); scratch: Wd + 1 limbs. */
static int64_t search_one(const struct es_table *tab, int64_t c, const u64 *u, u64 *scratch) {
    long W = tab->W, Wd = tab->Wd;
    u64 *r = scratch;
    u64 borrow = 1, prev = 0;
    int s = (int)tab->sd;
    for (long i = 0; i <= Wd; i++) {  /* r = (u - 1) << sd */
        u64 v = i < W ? u[i] : 0;
        u64 x = v - borrow;
        borrow = (u64)(v < borrow);
        r[i] = s ? (x << s) | (prev >> (64 - s)) : x;
        prev = x;
    }
    return search_shifted(tab, c, r);
}

/*
 * out[e] = min{z in [0, n] : F_{counts[e]}(z) >= u_e} for e < k, u_e = us[e * W ..] (W limbs).
 * Returns 0, -1 on sizes out of range, -2 without memory.
 */
int es_search(const struct es_table *tab, long k, const int64_t *counts, const u64 *us,
              int64_t *out) {
    if (k < 0 || !table_ok(tab)) return -1;
    u64 *scratch = malloc((size_t)(tab->Wd + 1) * sizeof(u64));
    if (!scratch) return -2;
    for (long e = 0; e < k; e++) out[e] = search_one(tab, counts[e], us + e * tab->W, scratch);
    free(scratch);
    return 0;
}

/* u (W limbs) = (r >> s) + 1 for r (W + 1 limbs) < d << s. */
static void unshift_plus_one(u64 *u, const u64 *r, long W, int s) {
    u64 carry = 1;
    for (long i = 0; i < W; i++) {
        u64 v = s ? (r[i] >> s) | (r[i + 1] << (64 - s)) : r[i];
        u128 sum = (u128)v + carry;
        u[i] = (u64)sum;
        carry = (u64)(sum >> 64);
    }
}

/*
 * For e < k: r = raw[e * (W + 1) ..] (W + 1 limbs) with its top limb ANDed with topmask (so
 * that r < 2^(K+63)); writes u = (r mod d) + 1 to us[e * W ..] and ok[e] = 1 iff
 * floor(r / d) <= m1.  dn = d << s normalised, s = 64 W - K.  Returns 0, -1 or -2.
 */
int es_reduce(long k, long W, int s, const u64 *dn, u64 m1, u64 topmask, const u64 *raw,
              u64 *us, unsigned char *ok) {
    if (k < 0 || W < 1 || s < 0 || s > 63 || !(dn[W - 1] >> 63)) return -1;
    u64 *r = malloc((size_t)(W + 1) * sizeof(u64));
    if (!r) return -2;
    for (long e = 0; e < k; e++) {
        shift_in(r, raw + e * (W + 1), W + 1, W, s, topmask);
        u64 q = div1(r, dn, W);
        ok[e] = (unsigned char)(q <= m1);
        unshift_plus_one(us + e * W, r, W, s);
    }
    free(r);
    return 0;
}

/* One draw of es_sample: the search's output for u = (r mod d) + 1, r = raw (W + 1 limbs, top
 * limb ANDed with topmask), or -1 when floor(r / d) > m1; buf: W + 1 + Wd + 1 limbs. */
static int64_t sample_one(const struct es_table *tab, int64_t c, const u64 *raw, u64 *buf) {
    long W = tab->W, Wd = tab->Wd;
    u64 *r = buf, *x = buf + W + 1;
    shift_in(r, raw, W + 1, W, (int)tab->s, tab->topmask);
    u64 q = div1(r, tab->dd, W);
    /* r (W limbs) = (u - 1) << s; x (Wd + 1 limbs) = (u - 1) << sd, one shift by sd - s */
    int delta = (int)(tab->sd - tab->s);
    for (long i = 0; i <= Wd; i++) {
        u64 cur = i < W ? r[i] : 0;
        if (delta >= 0) {
            u64 below = i >= 1 && i - 1 < W ? r[i - 1] : 0;
            x[i] = delta ? (cur << delta) | (below >> (64 - delta)) : cur;
        } else {
            u64 above = i + 1 < W ? r[i + 1] : 0;
            x[i] = (cur >> -delta) | (above << (64 + delta));
        }
    }
    int64_t z = search_shifted(tab, c, x);
    u64 keep = (u64)0 - (u64)(q <= tab->m1);
    return (int64_t)(((u64)z & keep) | (~(u64)0 & ~keep));
}

static int sample_ok(const struct es_table *tab) {
    return table_ok(tab) && tab->s >= 0 && tab->s <= 63 && (tab->dd[tab->W - 1] >> 63);
}

/*
 * es_reduce then es_search per draw, with no draw stored: out[e] = the search's output for
 * u = (r_e mod d) + 1 (r_e = raw[e * (W + 1) ..], top limb ANDed with topmask), or -1 when the
 * draw is rejected (floor(r_e / d) > m1; the caller redraws it); the reduction's parameters
 * (s, dd = d << s, m1, topmask, d having W = tab->W limbs) are in the table.  Returns 0, -1
 * or -2.
 */
int es_sample(const struct es_table *tab, long k, const int64_t *counts, const u64 *raw,
              int64_t *out) {
    long W = tab->W;
    if (k < 0 || !sample_ok(tab)) return -1;
    u64 *buf = malloc((size_t)(W + 1 + tab->Wd + 1) * sizeof(u64));
    if (!buf) return -2;
    for (long e = 0; e < k; e++) out[e] = sample_one(tab, counts[e], raw + e * (W + 1), buf);
    free(buf);
    return 0;
}

/*
 * es_sample of one draw, returning its output: z in [0, n], -1 for a rejected draw, -2 on
 * sizes out of range or c outside [0, n], -3 without memory (for FastSample.sample: one call,
 * no output array).
 */
int64_t es_sample1(const struct es_table *tab, int64_t c, const u64 *raw) {
    if (!sample_ok(tab) || c < 0 || c > tab->n) return -2;
    u64 *buf = malloc((size_t)(tab->W + 1 + tab->Wd + 1) * sizeof(u64));
    if (!buf) return -3;
    int64_t z = sample_one(tab, c, raw, buf);
    free(buf);
    return z;
}

/*
 * Lazy draws (es_lazy): FastSample's output from the leading bits of u, when they decide it.
 *
 * With K the bit length of d, T <= 127 leading bits, k = K - T, B = 2^k and H = floor(d / B)
 * (T bits), write u - 1 = a B + b with a uniform on [0, H] and b on [0, B - 1].  For z < n let
 * Ft(z) = floor(F_c(z) / B).  For a < H the block u in [a B + 1, (a + 1) B] has one output
 * whenever no z < n has a B < F_c(z) < (a + 1) B; in particular whenever every z < n has
 * Ft(z) < a or Ft(z) >= a + 1, and then the output is #{z < n : Ft(z) < a}.
 *
 * Ft is not computed on d's bits: the table holds D = floor(d' / B), E = floor((d' mod B)
 * 2^64 / B) and Q(j) = floor(S F'(j) / B) for j in [-t, t) (Qtop = floor(S d' / B) above the
 * window, 0 below), and
 *     L(z) = (z + 1) D + floor((z + 1) E / 2^64) + Q(z - c)
 * satisfies L(z) <= Ft(z) <= L(z) + 2: floor((z + 1) d' / B) is (z + 1) D plus
 * floor((z + 1) (d' mod B) / B), which is floor((z + 1) E / 2^64) or one more ((z + 1) < 2^62
 * makes the error of E below 1), and the floor of a sum of two numbers is the sum of their
 * floors or one more.  With D >= 3, L is strictly increasing (Ft grows by at least D per step).
 * So: z0 = min{z in [0, n] : z = n or L(z) + 2 >= a} by exactly `rounds` rounds (masks, no
 * early exit); every z < z0 has Ft(z) <= L(z) + 2 < a; if z0 = n or L(z0) >= a + 1, every
 * z >= z0 below n has Ft(z) >= a + 1, the block is decided and the output is z0.  Otherwise
 * (L(z0) in [a - 2, a]) or for a = H the draw is undecided: the caller draws b.  Every
 * quantity is below 2^128: L(z) <= Ft(z) <= H < 2^127 for z < n and (n + 1) D <= H + 1.
 *
 * The a of each draw comes from raw words as es_reduce makes u: a = (r mod (H + 1)),
 * accepted iff floor(r / (H + 1)) <= m1 (the caller redraws a rejected one).
 *
 * out[e]: the output, -1 for a rejected reduction, -2 for an undecided block.  The sequence
 * of instructions depends only on the table's sizes (the reduction's limbs, rounds); the
 * entry of Q read depends on z - c (as for es_search).
 */
#define ES_LAZY_VERSION 1

int es_lazy_version(void) { return ES_LAZY_VERSION; }

struct es_lazy {
    int64_t n, rounds, t;
    u64 H_lo, H_hi, D_lo, D_hi, Qtop_lo, Qtop_hi;
    u64 E;
    const u64 *Q;                 /* 2t entries (lo, hi), index j + t */
    long W;                       /* limbs of H + 1 (1 or 2) */
    int64_t s;                    /* the reduction modulo H + 1, as in es_reduce */
    u64 m1, topmask;
    const u64 *dd;
};

#define U128(hi, lo) (((u128)(hi) << 64) | (u128)(lo))

static inline u128 ltu128(u128 a, u128 b) { return (u128)0 - (u128)(a < b); }

static inline u128 lazy_L(const struct es_lazy *tab, int64_t c, int64_t z) {
    int64_t t = tab->t, j = z - c;
    u128 below = (u128)0 - (u128)(j < -t);
    u128 above = (u128)0 - (u128)(j >= t);
    u128 in = ~(below | above);
    int64_t jc = j < -t ? -t : (j >= t ? t - 1 : j);
    const u64 *row = tab->Q + 2 * (jc + t);
    u128 q = ((((u128)row[1] << 64) | row[0]) & in) | (U128(tab->Qtop_hi, tab->Qtop_lo) & above);
    u128 z1 = (u128)(uint64_t)(z + 1);
    return z1 * U128(tab->D_hi, tab->D_lo) + ((z1 * tab->E) >> 64) + q;
}

/* The decided output for block a at count c, or -2. */
static int64_t lazy_decide(const struct es_lazy *tab, int64_t c, u128 a) {
    int64_t n = tab->n, lo = 0, hi = n;
    for (int rd = 0; rd < (int)tab->rounds; rd++) {
        int64_t mid = (lo + hi) >> 1;
        u128 L = lazy_L(tab, c, mid);
        u64 ge = (u64)(~ltu((u64)mid, (u64)n)) | (u64)~ltu128(L + 2, a);
        hi = (int64_t)(((u64)mid & ge) | ((u64)hi & ~ge));
        lo = (int64_t)(((u64)lo & ge) | ((u64)(mid + 1) & ~ge));
    }
    u128 L = lazy_L(tab, c, lo);
    u64 decided = (u64)~ltu((u64)lo, (u64)n) | (u64)~ltu128(L, a + 1);
    decided &= (u64)ltu128(a, U128(tab->H_hi, tab->H_lo));
    return (int64_t)(((u64)lo & decided) | ((u64)(-2) & ~decided));
}

static int lazy_ok(const struct es_lazy *tab) {
    return !(tab->n < 1 || tab->t < 1 || tab->rounds < 1 || tab->rounds > 63 ||
             (u64)tab->n >= ((u64)1 << 62) || U128(tab->D_hi, tab->D_lo) < 3 ||
             (tab->H_hi >> 63) ||
             tab->W < 1 || tab->W > 2 || tab->s < 0 || tab->s > 63 ||
             !(tab->dd[tab->W - 1] >> 63));
}

/* es_lazy_decide: lazy_decide for one block (the verify rows call it on every a). */
int64_t es_lazy_decide(const struct es_lazy *tab, int64_t c, u64 a_lo, u64 a_hi) {
    if (!lazy_ok(tab) || c < 0 || c > tab->n) return -3;
    return lazy_decide(tab, c, ((u128)a_hi << 64) | a_lo);
}

int es_lazy(const struct es_lazy *tab, long k, const int64_t *counts, const u64 *raw,
            int64_t *out) {
    long W = tab->W;
    if (k < 0 || !lazy_ok(tab)) return -1;
    for (long e = 0; e < k; e++)
        if (counts[e] < 0 || counts[e] > tab->n) return -1;
    u64 r[3];
    for (long e = 0; e < k; e++) {
        shift_in(r, raw + e * (W + 1), W + 1, W, (int)tab->s, tab->topmask);
        u64 q = div1(r, tab->dd, W);
        u64 a_lo, a_hi;
        if (W == 1) {
            a_lo = r[0] >> tab->s;
            a_hi = 0;
        } else {
            a_lo = tab->s ? (r[0] >> tab->s) | (r[1] << (64 - tab->s)) : r[0];
            a_hi = r[1] >> tab->s;
        }
        int64_t z = lazy_decide(tab, counts[e], ((u128)a_hi << 64) | a_lo);
        u64 keep = (u64)0 - (u64)(q <= tab->m1);
        out[e] = (int64_t)(((u64)z & keep) | ((u64)(-1) & ~keep));
    }
    return 0;
}
