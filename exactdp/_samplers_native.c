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
 *     F_c(z) = (z + 1) d' + T[clamp(z - c, -t - 1, t) + t + 1],
 * T being a table of 2t + 2 rows that the Python side computes from the paper's formula
 * ((1/gamma - 1)(n + 1) F'(z), which depends on z - c only, clamped outside the window
 * [-t, t)); F_c(z) = d for z >= n.  Each round computes that value limb by limb and compares it
 * with u through the borrow of the subtraction over all W limbs (no early exit), and updates
 * lo/hi with masks.  The sequence of instructions depends only on (W, n, t, rounds, k); the row
 * of T read in a round depends on z - c (a memory access at a data-dependent address: the
 * search is constant-time in its instruction sequence, not against cache-timing observers).
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

typedef uint64_t u64;
typedef unsigned __int128 u128;

#define ES_VERSION 1

int es_version(void) { return ES_VERSION; }

/* All ones if a < b (signed), else 0. */
static inline u64 lt_mask(int64_t a, int64_t b) { return (u64)0 - (u64)(a < b); }

/* 1 iff (zp1 * dp + row, or dfull where use_d is all ones) >= u, over all W limbs. */
static int cdf_geq(long W, u64 zp1, const u64 *dp, const u64 *row, const u64 *dfull,
                   u64 use_d, const u64 *u) {
    u64 carry = 0, borrow = 0;
    for (long i = 0; i < W; i++) {
        u128 p = (u128)zp1 * dp[i] + row[i] + carry;
        carry = (u64)(p >> 64);
        u64 v = ((u64)p & ~use_d) | (dfull[i] & use_d);
        u64 x = v - u[i];
        borrow = (u64)(v < u[i]) | (u64)(x < borrow);
    }
    return (int)(borrow ^ 1);
}

/*
 * out[e] = min{z in [0, n] : F_{counts[e]}(z) >= u_e} for e < k, u_e = us[e * W .. e * W + W).
 * table: (2t + 2) rows of W limbs.  Returns 0, or -1 on sizes out of range.
 */
int es_search(long k, long W, int64_t n, int rounds, int64_t t, const int64_t *counts,
              const u64 *us, const u64 *dp, const u64 *dfull, const u64 *table, int64_t *out) {
    if (k < 0 || W < 1 || n < 1 || t < 0 || rounds < 1 || rounds > 63) return -1;
    for (long e = 0; e < k; e++) {
        int64_t c = counts[e];
        const u64 *u = us + e * W;
        int64_t lo = 0, hi = n;
        for (int r = 0; r < rounds; r++) {
            int64_t mid = (lo + hi) >> 1;
            int64_t j = mid - c;
            u64 below = lt_mask(j, -t - 1);
            j = (int64_t)(((u64)j & ~below) | ((u64)(-t - 1) & below));
            u64 above = ~lt_mask(j, t);
            j = (int64_t)(((u64)j & ~above) | ((u64)t & above));
            u64 use_d = ~lt_mask(mid, n);
            const u64 *row = table + (j + t + 1) * W;
            u64 ge = (u64)0 - (u64)cdf_geq(W, (u64)mid + 1, dp, row, dfull, use_d, u);
            hi = (int64_t)(((u64)mid & ge) | ((u64)hi & ~ge));
            lo = (int64_t)(((u64)lo & ge) | ((u64)(mid + 1) & ~ge));
        }
        out[e] = lo;
    }
    return 0;
}

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
    for (long i = 0; i <= W; i++) {
        u128 s = (u128)r[i] + (i < W ? (dn[i] & mask) : 0) + carry;
        r[i] = (u64)s;
        carry = (u64)(s >> 64);
    }
    return carry;
}

/*
 * For e < k: r = raw[e * (W + 1) ..] (W + 1 limbs) with its top limb ANDed with topmask (so
 * that r < 2^(K+63)); writes
 * u = (r mod d) + 1 to us[e * W ..] and ok[e] = 1 iff floor(r / d) <= m1.
 * dn = d << s normalised (top bit of limb W - 1 set), s = 64 W - K.  Returns 0 or -1.
 */
int es_reduce(long k, long W, int s, const u64 *dn, u64 m1, u64 topmask, const u64 *raw,
              u64 *us, unsigned char *ok) {
    if (k < 0 || W < 1 || s < 0 || s > 63 || !(dn[W - 1] >> 63)) return -1;
    u64 *r = malloc((size_t)(W + 1) * sizeof(u64));
    if (!r) return -2;
    for (long e = 0; e < k; e++) {
        const u64 *x = raw + e * (W + 1);
        for (long i = W; i >= 0; i--) {  /* r = (x with its top limb masked) << s */
            u64 xi = i == W ? x[i] & topmask : x[i];
            r[i] = s ? (xi << s) | (i ? x[i - 1] >> (64 - s) : 0) : xi;
        }
        u128 num = ((u128)r[W] << 64) | r[W - 1];
        u128 qh = num / dn[W - 1];
        u64 q = qh > (u128)UINT64_MAX ? UINT64_MAX : (u64)qh;
        u64 neg1 = submul(r, dn, W, q);
        u64 c1 = addback(r, dn, W, (u64)0 - neg1);
        u64 neg2 = neg1 & (c1 ^ 1);
        addback(r, dn, W, (u64)0 - neg2);
        q -= neg1 + neg2;
        ok[e] = (unsigned char)(q <= m1);
        u64 *out = us + e * W;  /* (r >> s) + 1 */
        u64 carry = 1;
        for (long i = 0; i < W; i++) {
            u64 v = s ? (r[i] >> s) | (r[i + 1] << (64 - s)) : r[i];
            u128 sum = (u128)v + carry;
            out[i] = (u64)sum;
            carry = (u64)(sum >> 64);
        }
    }
    free(r);
    return 0;
}
