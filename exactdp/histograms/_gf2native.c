/*
 * Native polynomial arithmetic for CompactHistogram (Balcer & Vadhan, Section 8).
 *
 * The field is L = GF(2^m), m = 2 * 3^l, modulo t^m + t^(m/2) + 1 (van Lint), an element being
 * the bit string of its coefficients (bit i = coefficient of t^i), little-endian 64-bit words.
 * The interpolation nodes lie in the subfield K = GF(2^mk), mk = 2 * 3^k (k <= l), embedded as
 * the polynomials in z = t^s, s = m / mk = 3^(l-k): z^mk = t^m = t^(m/2) + 1 = z^(mk/2) + 1,
 * so K's own model is GF(2)[z] / (z^mk + z^(mk/2) + 1).  {1, t, ..., t^(s-1)} is a basis of L
 * over K, and the coordinate r of a in L is the element of K made of the bits r, r + s,
 * r + 2s, ... of a.  The nodes being in K, interpolation over L is s independent
 * interpolations over K (one per coordinate), all sharing the nodes' subproduct tree, and
 * the multiplication of an element of L by a node is s products in K.
 *
 * Interpolation (von zur Gathen & Gerhard, Modern Computer Algebra, Sections 10.1-10.3):
 * M_v = prod_{i in v} (X - x_i) for every node v of a balanced subproduct tree,
 * w_i = 1 / P'(x_i) with P = M_root, and for every coordinate
 * R_v = R_left M_right + R_right M_left from the leaves R_{x_i} = y_i w_i up; R_root is the
 * interpolating polynomial.  Products in K[X] by Karatsuba over schoolbook, the products of
 * elements of K left unreduced (2 mk - 1 bits) until the end of each polynomial product.
 *
 * Everything here is exact integer arithmetic on GF(2) bit strings: no floating point.  The
 * sequence of operations depends only on (m, mk, N) -- never on the values of the nodes or of
 * the data -- apart from the OS thread scheduling.  Carry-less 64x64 products use PCLMULQDQ on
 * x86-64 when the CPU has it (gf2_cpu_ok), a portable shift-and-xor otherwise.
 *
 * Cancellation: every entry point takes a pointer to a flag (an int, NULL for none) that the
 * caller may set from another thread (exactdp/histograms/native.py sets it on Ctrl-C).  The
 * work polls it at fixed points of its schedule -- before each task taken by a thread, at
 * each Karatsuba split and each subproduct-tree node, every node in the derivative sums and
 * every 1024 rows in the evaluation sums -- so a set flag is noticed within a small fraction
 * of a second, and the polls, like the rest of the sequence of operations, depend only on
 * (m, mk, N).  Once the flag is set the remaining work is skipped (results are garbage, never
 * returned): the entry point frees its memory and returns GF2_CANCELLED.  An unset flag
 * changes nothing: the results are those of an uncancellable run.
 *
 * Loaded with ctypes (no Python.h needed), see exactdp/histograms/native.py.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef uint64_t u64;

/* Allocation failure ends the process with a message: the Python wrapper refuses sizes whose
 * working memory it estimates too large, so this is a last resort, never a wrong answer. */
static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("exactdp native: out of memory\n", stderr);
        abort();
    }
    return p;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("exactdp native: out of memory\n", stderr);
        abort();
    }
    return p;
}

#define KW_MAX 8           /* mk <= 512: levels k <= 5 */
#ifndef BASE_CASE
#define BASE_CASE 24       /* schoolbook below this length */
#endif

#define GF2_CANCELLED (-3)  /* the cancellation flag was set: the outputs are not valid */

int gf2_native_version(void) { return 2; }

/* Whether the caller asked to stop (flag set from another thread; NULL: never). */
static inline int cancelled(const volatile int *flag) {
    return flag != NULL && *flag != 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
int gf2_cpu_ok(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#pragma GCC target("pclmul,sse4.1")
#include <immintrin.h>
static inline void clmul64(u64 a, u64 b, u64 *lo, u64 *hi) {
    __m128i r = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)a),
                                     _mm_cvtsi64_si128((long long)b), 0);
    *lo = (u64)_mm_cvtsi128_si64(r);
    *hi = (u64)_mm_extract_epi64(r, 1);
}
#else
int gf2_cpu_ok(void) { return 1; }
static inline void clmul64(u64 a, u64 b, u64 *lo, u64 *hi) {
    u64 l = 0, h = 0;
    for (int i = 0; i < 64; i++) {
        u64 mask = (u64)0 - ((b >> i) & 1);
        l ^= (a << i) & mask;
        if (i) h ^= (a >> (64 - i)) & mask;
    }
    *lo = l;
    *hi = h;
}
#endif

/* ------------------------------------------------------------------ the subfield K */

typedef struct {
    int w;     /* words per element of K */
    int mk;    /* degree of K over GF(2) */
    int h;     /* mk / 2 */
    const volatile int *cancel;   /* the caller's cancellation flag (or NULL) */
} kfield;

/* c (2w words, degree <= 2 mk - 2) -> r (w words) modulo z^mk + z^h + 1: two folds of the
 * bits at positions >= mk (z^(mk+j) = z^(h+j) + z^j). */
static inline __attribute__((always_inline)) void kreduce_body(const u64 *c, u64 *r,
                                                                const int w, const int mk,
                                                                const int h) {
    const int n2 = 2 * w;
    u64 t[2 * KW_MAX], hi[2 * KW_MAX];
    for (int i = 0; i < n2; i++) t[i] = c[i];
    for (int pass = 0; pass < 2; pass++) {
        const int ws = mk >> 6, bs = mk & 63;
        for (int i = 0; i < n2; i++) {
            int j = i + ws;
            u64 v = 0;
            if (j < n2) {
                v = t[j] >> bs;
                if (bs && j + 1 < n2) v |= t[j + 1] << (64 - bs);
            }
            hi[i] = v;
        }
        /* clear the bits >= mk */
        for (int i = 0; i < n2; i++) {
            int lo_bit = i * 64;
            if (lo_bit >= mk) t[i] = 0;
            else if (lo_bit + 64 > mk) t[i] &= (((u64)1) << (mk - lo_bit)) - 1;
        }
        const int hw = h >> 6, hb = h & 63;
        for (int i = 0; i < n2; i++) {
            u64 v = hi[i];
            t[i] ^= v;
            if (i + hw < n2) t[i + hw] ^= v << hb;
            if (hb && i + hw + 1 < n2) t[i + hw + 1] ^= v >> (64 - hb);
        }
    }
    for (int i = 0; i < w; i++) r[i] = t[i];
}

static inline void kreduce(const kfield *K, const u64 *c, u64 *r) {
    if (K->mk == 162)   /* level 4: constants folded */
        kreduce_body(c, r, 3, 162, 81);
    else
        kreduce_body(c, r, K->w, K->mk, K->h);
}

/* acc (2w words) ^= a * b (unreduced) */
static inline void kmul_acc_generic(const kfield *K, const u64 *a, const u64 *b, u64 *acc) {
    const int w = K->w;
    for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
            u64 lo, hi;
            clmul64(a[i], b[j], &lo, &hi);
            acc[i + j] ^= lo;
            acc[i + j + 1] ^= hi;
        }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Three-word elements (K of level 4, 162 bits: the subfield for |X| <= 2^162).  Karatsuba on
 * the words: a b = p0 + (p01 + p0 + p1) W + (p02 + p0 + p1 + p2) W^2 + (p12 + p1 + p2) W^3
 * + p2 W^4 with p0 = a0 b0, p1 = a1 b1, p2 = a2 b2, pij = (ai + aj)(bi + bj): six 64x64
 * products, packed two operands per SSE register.  The map from the six products to the
 * result is linear, so a sum of products accumulates the six and combines once. */
typedef struct { __m128i A1, A2, A3; } pk3;             /* (a0,a1) (a2,a0+a1) (a0+a2,a1+a2) */
typedef struct { __m128i p0, p1, p2, p01, p02, p12; } acc3;

static inline void pk3_make(const u64 *a, pk3 *p) {
    const __m128i A1 = _mm_loadu_si128((const __m128i *)a);             /* (a0, a1) */
    const __m128i C = _mm_loadl_epi64((const __m128i *)(a + 2));         /* (a2, 0) */
    const __m128i S = _mm_xor_si128(A1, _mm_shuffle_epi32(A1, 0x4E));    /* (a0+a1, a0+a1) */
    p->A1 = A1;
    p->A2 = _mm_unpacklo_epi64(C, S);                                    /* (a2, a0+a1) */
    p->A3 = _mm_xor_si128(A1, _mm_unpacklo_epi64(C, C));                 /* (a0+a2, a1+a2) */
}

static inline void acc3_zero(acc3 *c) {
    c->p0 = c->p1 = c->p2 = c->p01 = c->p02 = c->p12 = _mm_setzero_si128();
}

static inline void acc3_addp(acc3 *c, const pk3 *a, const pk3 *b) {
    c->p0 = _mm_xor_si128(c->p0, _mm_clmulepi64_si128(a->A1, b->A1, 0x00));
    c->p1 = _mm_xor_si128(c->p1, _mm_clmulepi64_si128(a->A1, b->A1, 0x11));
    c->p2 = _mm_xor_si128(c->p2, _mm_clmulepi64_si128(a->A2, b->A2, 0x00));
    c->p01 = _mm_xor_si128(c->p01, _mm_clmulepi64_si128(a->A2, b->A2, 0x11));
    c->p02 = _mm_xor_si128(c->p02, _mm_clmulepi64_si128(a->A3, b->A3, 0x00));
    c->p12 = _mm_xor_si128(c->p12, _mm_clmulepi64_si128(a->A3, b->A3, 0x11));
}

static inline void acc3_add(acc3 *c, const u64 *a, const u64 *b) {
    pk3 pa, pb;
    pk3_make(a, &pa);
    pk3_make(b, &pb);
    acc3_addp(c, &pa, &pb);
}

static inline void acc3_store_xor(const acc3 *c, u64 *out) {
    __m128i q[5];
    q[0] = c->p0;
    q[1] = _mm_xor_si128(c->p01, _mm_xor_si128(c->p0, c->p1));
    q[2] = _mm_xor_si128(_mm_xor_si128(c->p02, c->p0), _mm_xor_si128(c->p1, c->p2));
    q[3] = _mm_xor_si128(c->p12, _mm_xor_si128(c->p1, c->p2));
    q[4] = c->p2;
    for (int k = 0; k < 5; k++) {
        u64 v[2];
        _mm_storeu_si128((__m128i *)v, q[k]);
        out[k] ^= v[0];
        out[k + 1] ^= v[1];
    }
}
#define HAVE_ACC3 1
#endif

static inline void kmul_acc(const kfield *K, const u64 *a, const u64 *b, u64 *acc) {
#ifdef HAVE_ACC3
    if (K->w == 3) {
        acc3 c;
        acc3_zero(&c);
        acc3_add(&c, a, b);
        acc3_store_xor(&c, acc);
        return;
    }
#endif
    kmul_acc_generic(K, a, b, acc);
}

static inline void kmul(const kfield *K, const u64 *a, const u64 *b, u64 *r) {
    u64 acc[2 * KW_MAX];
    memset(acc, 0, sizeof(u64) * 2 * K->w);
    kmul_acc(K, a, b, acc);
    kreduce(K, acc, r);
}

/* r = a^(2^mk - 2) = a^-1 for a != 0 (Fermat; a fixed square-and-multiply sequence). */
static void kinverse(const kfield *K, const u64 *a, u64 *r) {
    const int w = K->w;
    u64 acc[KW_MAX], tmp[KW_MAX];
    memcpy(acc, a, sizeof(u64) * w);              /* a^(2^1 - 1) */
    for (int i = 1; i < K->mk - 1; i++) {         /* a^(2^(i+1) - 1) */
        kmul(K, acc, acc, tmp);
        kmul(K, tmp, a, acc);
    }
    kmul(K, acc, acc, r);                          /* a^(2^mk - 2) */
}

/* ------------------------------------------------------------------ K[X] products */

/* out[0 .. 2n-1) (elements of 2w words, unreduced) = a * b, a and b of n elements.
 * Cancellation is polled at every split (n > BASE_CASE); once cancelled, out is not set. */
static void kara(const kfield *K, const u64 *a, const u64 *b, long n, u64 *out) {
    const int w = K->w, w2 = 2 * w;
    if (n > BASE_CASE && cancelled(K->cancel)) return;
    if (n <= BASE_CASE) {
        memset(out, 0, sizeof(u64) * w2 * (2 * n - 1));
#ifdef HAVE_ACC3
        if (w == 3) {
            pk3 pa[BASE_CASE], pb[BASE_CASE];
            for (long i = 0; i < n; i++) {
                pk3_make(a + 3 * i, &pa[i]);
                pk3_make(b + 3 * i, &pb[i]);
            }
            for (long k = 0; k < 2 * n - 1; k++) {
                acc3 c;
                acc3_zero(&c);
                for (long i = k < n ? 0 : k - n + 1; i <= k && i < n; i++)
                    acc3_addp(&c, &pa[i], &pb[k - i]);
                acc3_store_xor(&c, out + 6 * k);
            }
            return;
        }
#endif
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                kmul_acc_generic(K, a + i * w, b + j * w, out + (i + j) * w2);
        return;
    }
    const long h = (n + 1) / 2, n1 = n - h;
    u64 *sa = xmalloc(sizeof(u64) * w * h * 2);
    u64 *p1 = xmalloc(sizeof(u64) * w2 * (2 * h - 1));
    u64 *sb = sa + w * h;
    for (long i = 0; i < h * w; i++) {
        sa[i] = a[i] ^ (i < n1 * w ? a[h * w + i] : 0);
        sb[i] = b[i] ^ (i < n1 * w ? b[h * w + i] : 0);
    }
    kara(K, a, b, h, out);                                  /* p0 at [0, 2h-1) */
    memset(out + (2 * h - 1) * w2, 0, sizeof(u64) * w2);   /* position 2h-1 */
    kara(K, a + h * w, b + h * w, n1, out + 2 * h * w2);   /* p2 at [2h, 2n-1) */
    kara(K, sa, sb, h, p1);
    /* mid = p1 - p0 - p2, added at h */
    for (long i = 0; i < (2 * h - 1) * w2; i++) p1[i] ^= out[i];
    for (long i = 0; i < (2 * n1 - 1) * w2; i++) p1[i] ^= out[2 * h * w2 + i];
    for (long i = 0; i < (2 * h - 1) * w2; i++) out[h * w2 + i] ^= p1[i];
    free(sa);
    free(p1);
}

/* acc[0 .. na+nb-1) (unreduced) ^= a * b for a of na and b of nb elements. */
static void kpoly_mul_acc(const kfield *K, const u64 *a, long na, const u64 *b, long nb,
                          u64 *acc) {
    const int w = K->w, w2 = 2 * w;
    const long n = na > nb ? na : nb;
    u64 *pa = xcalloc((size_t)(2 * n * w), sizeof(u64));
    u64 *out = xmalloc(sizeof(u64) * w2 * (2 * n - 1));
    u64 *pb = pa + n * w;
    memcpy(pa, a, sizeof(u64) * w * na);
    memcpy(pb, b, sizeof(u64) * w * nb);
    kara(K, pa, pb, n, out);
    for (long i = 0; i < (na + nb - 1) * w2; i++) acc[i] ^= out[i];
    free(pa);
    free(out);
}

/* ------------------------------------------------------------------ subproduct tree */

typedef struct {
    long lo, hi;        /* the nodes x_lo .. x_{hi-1} */
    long left, right;   /* children (-1 for a leaf) */
    u64 *m;             /* M_v: hi - lo + 1 coefficients (monic) */
} tnode;

typedef struct {
    kfield K;
    tnode *nodes;
    long count;
} tree;

static long build(tree *T, const u64 *x, long lo, long hi) {
    const kfield *K = &T->K;
    const int w = K->w;
    long id = T->count++;
    tnode *v = &T->nodes[id];
    v->lo = lo;
    v->hi = hi;
    long size = hi - lo;
    v->m = xcalloc((size_t)((size + 1) * w), sizeof(u64));
    if (size == 1 || cancelled(K->cancel)) {   /* cancelled: a childless placeholder */
        v->left = v->right = -1;
        memcpy(v->m, x + lo * w, sizeof(u64) * w);  /* X - x = X + x */
        v->m[w] = 1;
        return id;
    }
    long mid = lo + size / 2;
    long l = build(T, x, lo, mid);
    long r = build(T, x, mid, hi);
    v = &T->nodes[id];
    v->left = l;
    v->right = r;
    const tnode *L = &T->nodes[l], *R = &T->nodes[r];
    long nl = L->hi - L->lo + 1, nr = R->hi - R->lo + 1;
    u64 *acc = xcalloc((size_t)(2 * w * (nl + nr - 1)), sizeof(u64));
    kpoly_mul_acc(K, L->m, nl, R->m, nr, acc);
    for (long i = 0; i < size + 1; i++) kreduce(K, acc + 2 * w * i, v->m + w * i);
    free(acc);
    return id;
}

/* R_v (size elements) from the leaf values c (one element per node x_i). */
static void combine(const tree *T, long id, const u64 *c, u64 *out) {
    const kfield *K = &T->K;
    const int w = K->w;
    const tnode *v = &T->nodes[id];
    long size = v->hi - v->lo;
    if (v->left < 0) {
        memcpy(out, c + v->lo * w, sizeof(u64) * w);
        return;
    }
    if (cancelled(K->cancel)) return;
    const tnode *L = &T->nodes[v->left], *R = &T->nodes[v->right];
    long nl = L->hi - L->lo, nr = R->hi - R->lo;
    u64 *rl = xmalloc(sizeof(u64) * w * size);
    u64 *rr = rl + w * nl;
    combine(T, v->left, c, rl);
    combine(T, v->right, c, rr);
    u64 *acc = xcalloc((size_t)(2 * w * size), sizeof(u64));
    kpoly_mul_acc(K, rl, nl, R->m, nr + 1, acc);   /* length nl + nr */
    kpoly_mul_acc(K, rr, nr, L->m, nl + 1, acc);
    for (long i = 0; i < size; i++) kreduce(K, acc + 2 * w * i, out + w * i);
    free(acc);
    free(rl);
}

static void free_tree(tree *T) {
    for (long i = 0; i < T->count; i++) free(T->nodes[i].m);
    free(T->nodes);
}

/* ------------------------------------------------------------------ L <-> coordinates */

/* The coordinates (s elements of K, w words each) of one element of L (WL words). */
static void to_coordinates(const u64 *a, int m, int s, const kfield *K, u64 *coords) {
    memset(coords, 0, sizeof(u64) * (size_t)s * K->w);
    int r = 0, q = 0;
    for (int j = 0; j < m; j++) {
        u64 bit = (a[j >> 6] >> (j & 63)) & 1;
        coords[(long)r * K->w + (q >> 6)] |= bit << (q & 63);
        if (++r == s) { r = 0; q++; }
    }
}

static void from_coordinates(const u64 *coords, int m, int s, const kfield *K, u64 *a) {
    const int WL = (m + 63) / 64;
    memset(a, 0, sizeof(u64) * WL);
    int r = 0, q = 0;
    for (int j = 0; j < m; j++) {
        u64 bit = (coords[(long)r * K->w + (q >> 6)] >> (q & 63)) & 1;
        a[j >> 6] |= bit << (j & 63);
        if (++r == s) { r = 0; q++; }
    }
}

/* ------------------------------------------------------------------ threads */

typedef struct job job;
typedef void (*task_fn)(job *, long);
struct job {
    pthread_mutex_t lock;
    long next, total;
    task_fn fn;
    /* shared data */
    int m, s, WL;
    kfield K;
    long N;
    const u64 *in;
    u64 *out;
    u64 *table;
    const u64 *weights;
    const u64 *xs;
    const tree *T;
};

static void *worker(void *arg) {
    job *J = arg;
    for (;;) {
        pthread_mutex_lock(&J->lock);
        long i = J->next++;
        pthread_mutex_unlock(&J->lock);
        if (i >= J->total || cancelled(J->K.cancel)) return NULL;
        J->fn(J, i);
    }
}

static void run(job *J, task_fn fn, long total, int nthreads) {
    J->fn = fn;
    J->next = 0;
    J->total = total;
    if (nthreads < 1) nthreads = 1;
    if (nthreads > 64) nthreads = 64;
    pthread_t th[64];
    int started = 0;
    for (int t = 1; t < nthreads; t++)
        if (pthread_create(&th[started], NULL, worker, J) == 0) started++;
    worker(J);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
}

/* tasks: i indexes a block of 64 values (to_table / from_table) or a coordinate (interp) */
#define BLOCK 64

static void task_to_table(job *J, long b) {
    const long end = (b + 1) * BLOCK < J->N ? (b + 1) * BLOCK : J->N;
    const long tw = (long)J->s * J->K.w;
    for (long i = b * BLOCK; i < end; i++)
        to_coordinates(J->in + i * J->WL, J->m, J->s, &J->K, J->table + i * tw);
}

static void task_from_table(job *J, long b) {
    const long end = (b + 1) * BLOCK < J->N ? (b + 1) * BLOCK : J->N;
    const long tw = (long)J->s * J->K.w;
    for (long i = b * BLOCK; i < end; i++)
        from_coordinates(J->table + i * tw, J->m, J->s, &J->K, J->out + i * J->WL);
}

/* w_i = P'(x_i), P' = sum_{j odd} P_j X^(j-1) = Q(X^2), Q_i = P_{2i+1} (characteristic 2) */
static void task_derivative(job *J, long b) {
    const kfield *K = &J->K;
    const int w = K->w;
    const long end = (b + 1) * BLOCK < J->N ? (b + 1) * BLOCK : J->N;
    const u64 *P = J->T->nodes[0].m;   /* N + 1 coefficients */
    const long top = (J->N - 1) / 2;   /* largest i with 2i + 1 <= N */
    for (long i = b * BLOCK; i < end; i++) {
        if (cancelled(K->cancel)) return;
        u64 y[KW_MAX], acc[KW_MAX], tmp[KW_MAX];
        kmul(K, J->xs + i * w, J->xs + i * w, y);
        memcpy(acc, P + (2 * top + 1) * w, sizeof(u64) * w);
        for (long j = top - 1; j >= 0; j--) {
            kmul(K, acc, y, tmp);
            for (int k = 0; k < w; k++) acc[k] = tmp[k] ^ P[(2 * j + 1) * w + k];
        }
        memcpy(J->out + i * w, acc, sizeof(u64) * w);
    }
}

static void task_interp(job *J, long r) {
    const kfield *K = &J->K;
    const int w = K->w;
    const long tw = (long)J->s * w, N = J->N;
    u64 *c = xcalloc((size_t)(w * N), sizeof(u64));
    u64 *res = xmalloc(sizeof(u64) * w * N);
    for (long i = 0; i < N; i++)
        kmul(K, J->table + i * tw + r * w, J->weights + i * w, c + i * w);
    combine(J->T, 0, c, res);
    for (long i = 0; i < N; i++) memcpy(J->table + i * tw + r * w, res + i * w, sizeof(u64) * w);
    free(c);
    free(res);
}

/* coordinates [EVAL_BLOCK b, EVAL_BLOCK (b+1)) of sum_i table[i] x^i (unreduced), with
 * weights = the powers x^i */
#define EVAL_BLOCK 32
static void task_evaluate(job *J, long b) {
    const kfield *K = &J->K;
    const int w = K->w, w2 = 2 * w;
    const long tw = (long)J->s * w;
    const int r0 = (int)(b * EVAL_BLOCK);
    const int r1 = r0 + EVAL_BLOCK < J->s ? r0 + EVAL_BLOCK : J->s;
#ifdef HAVE_ACC3
    if (w == 3) {
        acc3 c[EVAL_BLOCK];
        for (int r = r0; r < r1; r++) acc3_zero(&c[r - r0]);
        for (long i = 0; i < J->N; i++) {
            if ((i & 1023) == 0 && cancelled(K->cancel)) return;
            const u64 *row = J->table + i * tw;
            pk3 xi, a;
            pk3_make(J->weights + i * w, &xi);
            for (int r = r0; r < r1; r++) {
                pk3_make(row + r * w, &a);
                acc3_addp(&c[r - r0], &a, &xi);
            }
        }
        for (int r = r0; r < r1; r++) acc3_store_xor(&c[r - r0], J->out + r * w2);
        return;
    }
#endif
    for (long i = 0; i < J->N; i++) {
        if ((i & 1023) == 0 && cancelled(K->cancel)) return;
        const u64 *row = J->table + i * tw, *xi = J->weights + i * w;
        for (int r = r0; r < r1; r++) kmul_acc(K, row + r * w, xi, J->out + r * w2);
    }
}

static int setup(job *J, int m, int mk, long N, const volatile int *cancel) {
    if (m <= 0 || mk <= 0 || mk % 2 || m % mk || N <= 0) return -1;
    int w = (mk + 63) / 64;
    if (w > KW_MAX) return -2;
    memset(J, 0, sizeof *J);
    pthread_mutex_init(&J->lock, NULL);
    J->m = m;
    J->s = m / mk;
    J->WL = (m + 63) / 64;
    J->K.w = w;
    J->K.mk = mk;
    J->K.h = mk / 2;
    J->K.cancel = cancel;
    J->N = N;
    return 0;
}

/* The coordinate table (N * s elements of K) of N elements of L. */
int gf2_to_table(int m, int mk, long N, const u64 *values, u64 *table, int nthreads,
                 const volatile int *cancel) {
    job J;
    int e = setup(&J, m, mk, N, cancel);
    if (e) return e;
    J.in = values;
    J.table = table;
    run(&J, task_to_table, (N + BLOCK - 1) / BLOCK, nthreads);
    pthread_mutex_destroy(&J.lock);
    return cancelled(cancel) ? GF2_CANCELLED : 0;
}

/* p(x) = sum_i coeff_i x^i for x in K, from the coefficients' coordinate table: multiplying
 * by x^i acts coordinate-wise, so coordinate r of p(x) is sum_i table[i][r] x^i, summed
 * unreduced and reduced once.  out: one element of L. */
int gf2_evaluate_table(int m, int mk, long N, const u64 *table, const u64 *x, u64 *out,
                       int nthreads, const volatile int *cancel) {
    job J;
    int e = setup(&J, m, mk, N, cancel);
    if (e) return e;
    const kfield *K = &J.K;
    const int w = K->w, w2 = 2 * w, s = J.s;
    const long tw = (long)s * w;
    u64 *acc = xcalloc((size_t)s * w2, sizeof(u64));
    u64 *powers = xmalloc(sizeof(u64) * w * N);
    u64 *coords = xmalloc(sizeof(u64) * tw);
    memset(powers, 0, sizeof(u64) * w);
    powers[0] = 1;
    for (long i = 1; i < N; i++) kmul(K, powers + (i - 1) * w, x, powers + i * w);
    J.table = (u64 *)table;
    J.weights = powers;
    J.out = acc;
    run(&J, task_evaluate, (s + EVAL_BLOCK - 1) / EVAL_BLOCK, nthreads);
    e = cancelled(cancel) ? GF2_CANCELLED : 0;
    if (!e) {
        for (int r = 0; r < s; r++) kreduce(K, acc + r * w2, coords + r * w);
        from_coordinates(coords, m, s, K, out);
    }
    free(acc);
    free(powers);
    free(coords);
    pthread_mutex_destroy(&J.lock);
    return e;
}

/* The coefficients (N elements of L, lowest degree first) of the unique polynomial of degree
 * < N over L with p(xs[i]) = values[i], for N distinct xs in K (w words each; not checked
 * here).  values and coeffs: N * WL words; they may not overlap.  Cancellation is checked
 * after each phase (and polled within them); a cancelled call leaves coeffs unspecified. */
int gf2_interpolate(int m, int mk, long N, const u64 *xs, const u64 *values, u64 *coeffs,
                    int nthreads, const volatile int *cancel) {
    job J;
    int e = setup(&J, m, mk, N, cancel);
    if (e) return e;
    const kfield *K = &J.K;
    const int w = K->w;
    const long tw = (long)J.s * w;
    tree T;
    T.K = *K;
    T.count = 0;
    T.nodes = xcalloc((size_t)(2 * N), sizeof(tnode));
    u64 *table = xmalloc(sizeof(u64) * tw * N);
    u64 *weights = xmalloc(sizeof(u64) * w * N);
    u64 *prefix = xmalloc(sizeof(u64) * w * N);
    build(&T, xs, 0, N);
    J.T = &T;
    J.xs = xs;
    if (cancelled(cancel)) goto done;
    /* w_i = P'(x_i), then inverted together (Montgomery's trick: one inversion) */
    J.out = weights;
    run(&J, task_derivative, (N + BLOCK - 1) / BLOCK, nthreads);
    if (cancelled(cancel)) goto done;
    memcpy(prefix, weights, sizeof(u64) * w);
    for (long i = 1; i < N; i++) kmul(K, prefix + (i - 1) * w, weights + i * w, prefix + i * w);
    u64 inv[KW_MAX], tmp[KW_MAX];
    kinverse(K, prefix + (N - 1) * w, inv);
    for (long i = N - 1; i > 0; i--) {
        kmul(K, inv, prefix + (i - 1) * w, tmp);      /* 1 / w_i */
        kmul(K, inv, weights + i * w, prefix + i * w); /* 1 / (w_0 ... w_{i-1}) */
        memcpy(inv, prefix + i * w, sizeof(u64) * w);
        memcpy(weights + i * w, tmp, sizeof(u64) * w);
    }
    memcpy(weights, inv, sizeof(u64) * w);
    /* coordinates of the values, interpolation per coordinate, back to L */
    J.in = values;
    J.table = table;
    run(&J, task_to_table, (N + BLOCK - 1) / BLOCK, nthreads);
    J.weights = weights;
    run(&J, task_interp, J.s, nthreads);
    if (cancelled(cancel)) goto done;
    J.out = coeffs;
    run(&J, task_from_table, (N + BLOCK - 1) / BLOCK, nthreads);
done:
    e = cancelled(cancel) ? GF2_CANCELLED : 0;
    free_tree(&T);
    free(table);
    free(weights);
    free(prefix);
    pthread_mutex_destroy(&J.lock);
    return e;
}
