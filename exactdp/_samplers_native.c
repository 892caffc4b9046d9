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
 * c and u are (no early exit).  FastSample's F_c(z) for z in [0, n) is
 *     F_c(z) = (z + 1) d' + S F'(z - c),   S = (1/gamma - 1)(n + 1),
 * with F'(j) = 0 for j < -t and F'(j) = d' for j >= t (Algorithm 4.11), and F_c(z) = d for
 * z >= n.  Once per draw: q = floor((u - 1) / d') (u - 1 = q d' + r, 0 <= r < d', one limb
 * since u <= d = (n + 1) d' / gamma < 2^63 d') and w = u + (t + n - c) d'.  Then, with j = z - c,
 *   j < -t:       F_c(z) >= u  iff  (z + 1) d' >= u        iff  z >= q,
 *   j >= t:       F_c(z) >= u  iff  (z + 1 + S) d' >= u    iff  z + 1 + S > q,
 *   -t <= j < t:  F_c(z) >= u  iff  T[j] >= w, where T[j] = S F'(j) + (j + t + n + 1) d'
 * (add (t + n - c) d' to both sides) is a table of 2t rows the caller builds from the paper's
 * formula.  Every round computes all three tests -- the third over all W2 limbs of the clamped
 * row, the borrow of the subtraction running to the end (no early exit) -- and selects the one
 * that applies with masks, as it updates lo/hi.  The sequence of instructions depends only on
 * (W, W2, Wd, n, t, rounds); the row of T read in a round depends on z - c (a memory access at a
 * data-dependent address: constant-time in the instruction sequence, not against an observer of
 * the cache).
 *
 * Reduction (es_reduce).  A draw of K + 63 random bits r (K = bit length of d) gives
 * q = floor(r / d) and u = (r mod d) + 1; it is accepted iff q <= m1 = floor(2^(K+63) / d) - 1,
 * i.e. r < (m1 + 1) d, so that an accepted u is exactly uniform on [d]_+ (the caller redraws a
 * rejected one: probability <= 2^-62).  The quotient has one limb: Knuth's algorithm D with a
 * normalised divisor, the estimate corrected by two masked add-backs (always both).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#endif

typedef uint64_t u64;
typedef unsigned __int128 u128;

#define ES_VERSION 1

int es_version(void) { return ES_VERSION; }

/* r (W + 1 limbs) -= q * dn (W limbs); returns 1 iff the result is negative (wrapped). */
static u64 submul(u64 *r, const u64 *dn, long W, u64 q) {
    u64 carry = 0, borrow = 0;
    for (long i = 0; i <= W; i++) {
        u64 pl;
        if (i < W) {
            u128 p = (u128)q * dn[i] + carry;
            carry = (u64)(p >> 64);
            pl = (u64)p;
        } else {
            pl = carry;
        }
        u64 ri = r[i];
        u64 x = ri - pl;
        u64 b1 = (u64)(ri < pl);
        r[i] = x - borrow;
        u64 b2 = (u64)(x < borrow);
        borrow = b1 | b2;
    }
    return borrow;
}

/* r (W + 1 limbs) += dn & mask; returns the carry out of the top limb. */
static u64 addback(u64 *r, const u64 *dn, long W, u64 mask) {
    u64 carry = 0;
    for (long i = 0; i < W; i++) {
        u128 s = (u128)r[i] + (dn[i] & mask) + carry;
        r[i] = (u64)s;
        carry = (u64)(s >> 64);
    }
    u128 s = (u128)r[W] + carry;
    r[W] = (u64)s;
    return (u64)(s >> 64);
}

/* r (W + 1 limbs, r < 2^64 dn, dn normalised: top bit of dn[W - 1] set) becomes r mod dn;
 * returns floor(r / dn).  Knuth's algorithm D for a one-limb quotient: the estimate from the top
 * limbs is at most 2 too large, corrected by two masked add-backs (always both). */
static u64 div1(u64 *r, const u64 *dn, long W) {
    u128 num = ((u128)r[W] << 64) | r[W - 1];
    u128 qh = num / dn[W - 1];
    u64 q = qh > (u128)UINT64_MAX ? UINT64_MAX : (u64)qh;
    u64 neg1 = submul(r, dn, W, q);
    u64 c1 = addback(r, dn, W, (u64)0 - neg1);
    u64 neg2 = neg1 & (c1 ^ 1);
    addback(r, dn, W, (u64)0 - neg2);
    return q - neg1 - neg2;
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
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
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
 * dn = d' << sd (Wd limbs, normalised), dp = d' (W2 limbs), table: 2t rows of W2 limbs (row
 * j + t for j in [-t, t)), S = (1/gamma - 1)(n + 1); draws have W limbs. */
struct es_table {
    long W, W2, Wd;
    int64_t sd, n, rounds, t;
    u64 S;
    const u64 *dn, *dp, *table;
    /* es_sample's reduction modulo d (W limbs): s = 64 W - K, dd = d << s, m1, topmask */
    int64_t s;
    u64 m1, topmask;
    const u64 *dd;
};

/*
 * out[e] = min{z in [0, n] : F_{counts[e]}(z) >= u_e} for e < k, u_e = us[e * W ..] (W limbs).
 * Needs W <= Wd + 1 <= W2 + 1 and n + 1 + S < 2^63.  Returns 0, -1 on sizes out of range, -2
 * without memory.
 */
static int table_ok(const struct es_table *tab) {
    return !(tab->W < 1 || tab->Wd < 1 || tab->W > tab->Wd + 1 || tab->W2 < tab->W ||
             tab->W2 < tab->Wd || tab->n < 1 || tab->t < 1 || tab->rounds < 1 ||
             tab->rounds > 63 || tab->sd < 0 || tab->sd > 63 || !(tab->dn[tab->Wd - 1] >> 63) ||
             (u64)tab->n + 1 + tab->S >= ((u64)1 << 63));
}

/* Prefetch the table row that a round at point z would read (clamped as in search_one). */
static inline void prefetch_row(const u64 *table, long W2, int64_t t, int64_t z, int64_t c) {
    int64_t j = z - c;
    j = j < -t ? -t : (j >= t ? t - 1 : j);
    const char *p = (const char *)(table + (j + t) * W2);
    for (long b = 0; b < W2 * 8; b += 64) __builtin_prefetch(p + b);
}

/* min{z in [0, n] : F_c(z) >= u} (u: W limbs); scratch: Wd + 1 + W2 limbs. */
static int64_t search_one(const struct es_table *tab, int64_t c, const u64 *u, u64 *scratch) {
    long W = tab->W, W2 = tab->W2, Wd = tab->Wd;
    int64_t n = tab->n, t = tab->t;
    u64 S = tab->S;
    const u64 *dp = tab->dp, *table = tab->table;
    u64 *r = scratch, *w = scratch + Wd + 1;
    /* q = floor((u - 1) / d'): r = (u - 1) << sd, then one division step */
    u64 borrow = 1;
    for (long i = 0; i < W; i++) {
        u64 v = u[i];
        w[i] = v - borrow;
        borrow = (u64)(v < borrow);
    }
    shift_in(r, w, W, Wd, (int)tab->sd, ~(u64)0);
    u64 q = div1(r, tab->dn, Wd);
    /* w = u + (t + n - c) d' over W2 limbs */
    u64 m = (u64)(t + n - c), carry = 0;
    for (long i = 0; i < W2; i++) {
        u128 p = (u128)m * dp[i] + (i < W ? u[i] : 0) + carry;
        w[i] = (u64)p;
        carry = (u64)(p >> 64);
    }
    int64_t lo = 0, hi = n;
    for (int rd = 0; rd < (int)tab->rounds; rd++) {
        int64_t mid = (lo + hi) >> 1;
        int64_t j = mid - c;
        u64 below = (u64)0 - (u64)(j < -t);
        u64 above = (u64)0 - (u64)(j >= t);
        u64 inside = ~(below | above);
        int64_t jc = (int64_t)(((u64)j & inside) | ((u64)(-t) & below) | ((u64)(t - 1) & above));
        const u64 *row = table + (jc + t) * W2;
        /* fetch the rows of both possible next rounds while this one compares (the table can
         * exceed the caches; both candidates, so the accesses do not depend on this round) */
        prefetch_row(table, W2, t, (lo + mid) >> 1, c);
        prefetch_row(table, W2, t, (mid + 1 + hi) >> 1, c);
        u64 ge_row = (u64)0 - (borrow_of(row, w, W2) ^ 1);
        u64 ge_below = ~ltu((u64)mid, q);
        u64 ge_above = ltu(q, (u64)mid + 1 + S);
        u64 at_n = ~ltu((u64)mid, (u64)n);
        u64 ge = at_n | (below & ge_below) | (above & ge_above) | (inside & ge_row);
        hi = (int64_t)(((u64)mid & ge) | ((u64)hi & ~ge));
        lo = (int64_t)(((u64)lo & ge) | ((u64)(mid + 1) & ~ge));
    }
    return lo;
}

/*
 * out[e] = min{z in [0, n] : F_{counts[e]}(z) >= u_e} for e < k, u_e = us[e * W ..] (W limbs).
 * Needs W <= Wd + 1 <= W2 + 1 and n + 1 + S < 2^63.  Returns 0, -1 on sizes out of range, -2
 * without memory.
 */
int es_search(const struct es_table *tab, long k, const int64_t *counts, const u64 *us,
              int64_t *out) {
    if (k < 0 || !table_ok(tab)) return -1;
    u64 *scratch = malloc((size_t)(tab->Wd + 1 + tab->W2) * sizeof(u64));
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
    int s = (int)tab->s;
    const u64 *dn = tab->dd;
    u64 m1 = tab->m1, topmask = tab->topmask;
    if (k < 0 || !table_ok(tab) || s < 0 || s > 63 || !(dn[W - 1] >> 63)) return -1;
    u64 *buf = malloc((size_t)(2 * W + 1 + tab->Wd + 1 + tab->W2) * sizeof(u64));
    if (!buf) return -2;
    u64 *r = buf, *u = buf + W + 1, *scratch = buf + 2 * W + 1;
    for (long e = 0; e < k; e++) {
        shift_in(r, raw + e * (W + 1), W + 1, W, s, topmask);
        u64 q = div1(r, dn, W);
        unshift_plus_one(u, r, W, s);
        int64_t z = search_one(tab, counts[e], u, scratch);
        u64 keep = (u64)0 - (u64)(q <= m1);
        out[e] = (int64_t)(((u64)z & keep) | (~(u64)0 & ~keep));
    }
    free(buf);
    return 0;
}
