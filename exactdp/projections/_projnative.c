/* Native kernel of exactdp.projections.fast: OPORP projection + smooth randomized response.
 *
 * Plain C loaded with ctypes (no Python.h).  Integers only.  One entry point,
 * proj_oporp_signs: for each vector, x_j = sum_i sign_of[i] * u[i] over bin_of[i] = j (int64),
 * level L = min(ceil(|x|/beta), L_max) (0 iff x = 0), and the released bit
 * s * (-1)^[U < N_L + 1], s = -1 if x < 0 else +1, U the bit's uniform draw in [1, D].
 * Loop counts depend only on the sizes (n, p, k, limbs); the multi-limb comparisons scan
 * every limb (no early exit).  A uniform's limbs are little-endian 64-bit words.
 */
#include <stdint.h>
#include <string.h>

int proj_native_version(void) { return 2; }

static uint64_t load64(const uint8_t *b) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | b[i];
    return v;
}

/* 1 iff a < b for nl-limb little-endian numbers (a as bytes), scanning every limb. */
static int less(const uint8_t *a, const uint64_t *b, int nl) {
    int lt = 0, eq = 1;
    for (int l = nl - 1; l >= 0; l--) {
        uint64_t v = load64(a + (size_t)l * 8);
        lt |= eq & (v < b[l]);
        eq &= (v == b[l]);
    }
    return lt;
}

#define PROJECT(T)                                                                  \
    do {                                                                            \
        const T *u = (const T *)data + r * p;                                       \
        for (long i = 0; i < p; i++) x[bin_of[i]] += (int64_t)sign_of[i] * u[i];    \
    } while (0)

/* data: n*p signed ints of itemsize 1, 2 or 4; bin_of: p ints in [0, k); sign_of: p of +-1;
 * thresholds: (l_max + 1) * nl limbs (N_L + 1); uniforms: n*k draws U in [1, D], nl
 * little-endian limbs each, as bytes;
 * out: n*k int8; x: scratch of k int64.  Returns 0, or -1 for bad sizes. */
int proj_oporp_signs(const void *data, int itemsize, long n, long p, const int32_t *bin_of,
                     const int8_t *sign_of, long k, int64_t beta, int l_max, int nl,
                     const uint64_t *thresholds, const uint8_t *uniforms, int8_t *out,
                     int64_t *x) {
    if (beta < 1 || l_max < 1 || nl < 1 || k < 1 || p < 1) return -1;
    for (long r = 0; r < n; r++) {
        memset(x, 0, (size_t)k * sizeof(int64_t));
        if (itemsize == 1) PROJECT(int8_t);
        else if (itemsize == 2) PROJECT(int16_t);
        else if (itemsize == 4) PROJECT(int32_t);
        else return -1;
        for (long j = 0; j < k; j++) {
            int64_t v = x[j];
            uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
            uint64_t lev = (mag + (uint64_t)beta - 1) / (uint64_t)beta;
            if (lev > (uint64_t)l_max) lev = (uint64_t)l_max;
            int flip = less(uniforms + (size_t)(r * k + j) * nl * 8, thresholds + lev * nl, nl);
            int s = v < 0 ? -1 : 1;
            out[r * k + j] = (int8_t)(flip ? -s : s);
        }
    }
    return 0;
}
