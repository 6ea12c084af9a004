/* gaussian.c - the Gaussian blur stage: --gaussian SIGMA[,K], on the
 * stencil framework (the rule: gaussian.h). */
#include "gaussian.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if GF_X86
#include <immintrin.h>
#endif

_Static_assert(sizeof(gf_gauss_params) <= GF_STAGE_PARAMS, "gaussian params");

int gf_gauss_ksize(double sigma, int k, int bits)
{
    if (k)
        return k;
    k = (int)floor((bits == 8 ? 6.0 : 8.0) * sigma + 1.5) | 1;
    return k > GF_GAUSS_MAX_K ? GF_GAUSS_MAX_K : k < GF_GAUSS_MIN_K ? GF_GAUSS_MIN_K : k;
}

void gf_gauss_weights(double sigma, int ksize, int32_t *w)
{
    const int c = (ksize - 1) / 2;
    double g[GF_GAUSS_MAX_K], sum = 0;
    int32_t total = 0;

    for (int i = 0; i < ksize; i++) {
        g[i] = exp(-(double)((i - c) * (i - c)) / (2.0 * sigma * sigma));
        sum += g[i];
    }
    for (int i = 0; i < ksize; i++) {
        w[i] = (int32_t)floor(GF_GAUSS_ONE * g[i] / sum + 0.5);
        total += w[i];
    }
    w[c] += GF_GAUSS_ONE - total;
}

int gf_gauss_parse_decimal(const char *s, double *v, const char **end)
{
    const size_t digits = strspn(s, "0123456789"), n = digits + (s[digits] == '.');
    const size_t frac = s[digits] == '.' ? strspn(s + n, "0123456789") : 0;
    char buf[32];

    if (digits + frac == 0 || n + frac >= sizeof buf)
        return -1;
    memcpy(buf, s, n + frac); /* strtod alone would take hex, exponents and "inf" */
    buf[n + frac] = 0;
    *v = strtod(buf, NULL);
    *end = s + n + frac;
    return 0;
}

int gf_gauss_parse_sigma(const char *opt, const char *s, double *sigma, const char **end)
{
    double v;

    if (gf_gauss_parse_decimal(s, &v, end) || !(v >= GF_GAUSS_MIN_SIGMA && v <= GF_GAUSS_MAX_SIGMA))
        goto bad;
    *sigma = v;
    return 0;
bad:
    return gf_err(GF_EUSAGE, NULL, "%s: SIGMA must be a number from %g to %g, not '%s'", opt,
                  GF_GAUSS_MIN_SIGMA, GF_GAUSS_MAX_SIGMA, s);
}

static int check_args(const gf_image *in, const gf_image *out, double sigma, int ksize)
{
    if (ksize < GF_GAUSS_MIN_K || ksize > GF_GAUSS_MAX_K || ksize % 2 == 0 ||
        !(sigma >= GF_GAUSS_MIN_SIGMA && sigma <= GF_GAUSS_MAX_SIGMA) ||
        out->width != in->width || out->height != in->height || out->channels != in->channels ||
        out->bits != in->bits)
        return gf_err(GF_EINTERNAL, NULL, "gaussian: bad arguments (sigma %g, K %d)", sigma,
                      ksize);
    return 0;
}

int gf_gauss_gold(const gf_image *in, gf_image *out, double sigma, int ksize, gf_border border)
{
    const int w = in->width, h = in->height, ch = in->channels, r = ksize / 2;
    const size_t n = (size_t)w * (size_t)ch;
    int32_t wt[GF_GAUSS_MAX_K];
    uint64_t *rows; /* the row pass of padded rows -r .. h+r-1 */
    int rc = check_args(in, out, sigma, ksize);

    if (rc)
        return rc;
    gf_gauss_weights(sigma, ksize, wt);
    if (!(rows = malloc(sizeof *rows * n * (size_t)(h + 2 * r))))
        return gf_err(GF_EINTERNAL, NULL, "gaussian: out of memory");
#pragma omp parallel for schedule(static)
    for (int y = -r; y < h + r; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                uint64_t v = 0;
                for (int j = 0; j < ksize; j++)
                    v += (uint64_t)wt[j] * gf_stencil_at(in, x + j - r, y, c, border);
                rows[(size_t)(y + r) * n + (size_t)x * ch + c] = v;
            }
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++)
        for (size_t i = 0; i < n; i++) {
            uint64_t v = 0;
            for (int k = 0; k < ksize; k++)
                v += (uint64_t)wt[k] * rows[(size_t)(y + k) * n + i];
            gf_sample_set(out, (int)(i / (size_t)ch), y, (int)(i % (size_t)ch),
                          (unsigned)((v + (1ull << 27)) >> 28));
        }
    free(rows);
    return 0;
}

/* The fast path's rules (ctx: the K weights), for 16-bit images (8-bit
 * below). Row rule: h for every sample, the symmetric taps paired ((x_j +
 * x_{K-1-j}) w_j), a pass over the row per weight. Column rule: the pairs of
 * ring rows split into 16-bit halves and summed into A and B
 * (gf_gauss_round) in blocks of samples that stay in the first-level
 * cache. */
#define BLOCK 512 /* samples a column-rule block: A and B take 4 KB */

#define ROW_RULE(NAME, T)                                                                     \
    GF_CLONES static void NAME(const gf_stencil_job *j, const unsigned char *padded,          \
                               void *ringv)                                                   \
    {                                                                                         \
        const T *restrict x = (const T *)(const void *)padded;                                \
        uint32_t *restrict o = ringv;                                                         \
        const int32_t *wt = j->ctx;                                                           \
        const size_t n = j->n, C = (size_t)j->channels;                                       \
        const int r = j->kw / 2;                                                              \
        const uint32_t wc = (uint32_t)wt[r];                                                  \
        const T *restrict xc = x + (size_t)r * C;                                             \
        for (size_t i = 0; i < n; i++)                                                        \
            o[i] = wc * xc[i];                                                                \
        for (int k = 0; k < r; k++) {                                                         \
            const uint32_t wk = (uint32_t)wt[k];                                              \
            const T *restrict a = x + (size_t)k * C, *restrict b = x + (size_t)(2 * r - k) * C; \
            for (size_t i = 0; i < n; i++)                                                    \
                o[i] += wk * ((uint32_t)a[i] + b[i]);                                         \
        }                                                                                     \
    }
ROW_RULE(row_16, uint16_t)

/* 8-bit images in floating point, exactly: a row value h < 255 * 2^14 <
 * 2^22 and every partial sum of it are integers that a float holds exactly
 * (24-bit significand), and so are the pairs of ring rows (< 2^23); the
 * column pass's v < 2^36 and its partial sums are integers a double holds
 * exactly (53 bits), so (v + 2^27) / 2^28 and its floor are exact too.
 * Floats take a fused multiply-add a tap where 32-bit integers take a
 * multiply of two micro-operations, and the row pass converts each sample
 * once. Row rule: blocks of the row converted to float with their halo, then
 * a pass a weight; column rule: the pairs of rows, widened to double, a
 * multiply-add each. */
#define FBLOCK 512 /* samples a block; with the halo of the largest window (2 * 63 * 4) 2.5 KB */

/* Every product and sum below is an exact integer, so a fused multiply-add
 * gives the same bits as a multiply and an add: let GCC fuse them (ISO C
 * mode leaves it off). */
#pragma GCC optimize("fp-contract=fast")

GF_CLONES static void frow_pass(const float *restrict a, const float *restrict b, float w,
                                float *restrict o, size_t m)
{
    for (size_t i = 0; i < m; i++)
        o[i] += w * (a[i] + b[i]);
}

GF_CLONES static void row_8(const gf_stencil_job *j, const unsigned char *padded, void *ringv)
{
    const int32_t *wt = j->ctx;
    const size_t n = j->n, C = (size_t)j->channels;
    const int r = j->kw / 2;
    const size_t halo = 2 * (size_t)r * C;
    float *restrict o = ringv;
    float f[FBLOCK + 2 * (GF_GAUSS_MAX_K / 2) * GF_MAX_CHANNELS];

    for (size_t i0 = 0; i0 < n; i0 += FBLOCK) {
        const size_t m = n - i0 < FBLOCK ? n - i0 : FBLOCK;
        const unsigned char *restrict x = padded + i0;
        const float wc = (float)wt[r];
        for (size_t i = 0; i < m + halo; i++)
            f[i] = x[i];
        for (size_t i = 0; i < m; i++)
            o[i0 + i] = wc * f[i + (size_t)r * C];
        for (int k = 0; k < r; k++)
            frow_pass(f + (size_t)k * C, f + (size_t)(2 * r - k) * C, (float)wt[k], o + i0, m);
    }
}

GF_CLONES static void fcol_pair(const float *restrict a, const float *restrict b, double w,
                                double *restrict v, size_t m)
{
    for (size_t i = 0; i < m; i++)
        v[i] += w * (double)(a[i] + b[i]);
}

GF_CLONES static void col_8(const gf_stencil_job *j, const void *const *win, const void *gone,
                            const unsigned char *src, unsigned char *out, void *acc, int first)
{
    const int32_t *wt = j->ctx;
    const size_t n = j->n;
    const int r = j->kh / 2;
    unsigned char *restrict o = out;
    double v[FBLOCK];
    (void)gone, (void)src, (void)acc, (void)first;
    for (size_t i0 = 0; i0 < n; i0 += FBLOCK) {
        const size_t m = n - i0 < FBLOCK ? n - i0 : FBLOCK;
        const float *restrict hc = (const float *)win[r] + i0;
        const double wc = wt[r];
        for (size_t i = 0; i < m; i++)
            v[i] = wc * (double)hc[i];
        for (int k = 0; k < r; k++)
            fcol_pair((const float *)win[k] + i0, (const float *)win[2 * r - k] + i0, wt[k], v,
                      m);
        for (size_t i = 0; i < m; i++) /* (v + 2^27) >> 28, exactly */
            o[i0 + i] = (unsigned char)(int)((v[i] + 134217728.0) * (1.0 / 268435456.0));
    }
}

/* Steps of the column rule over m samples: functions of their own, since
 * GCC's unroll-and-jam of the rows' loop into the samples' loop leaves
 * scalar code. */
GF_CLONES static void col_centre(const uint32_t *restrict h, uint32_t w, uint32_t *restrict A,
                       uint32_t *restrict B, size_t m)
{
    for (size_t i = 0; i < m; i++) {
        A[i] = w * (h[i] >> 16);
        B[i] = w * (h[i] & 0xffffu);
    }
}

GF_CLONES static void col_pair(const uint32_t *restrict a, const uint32_t *restrict b, uint32_t w,
                     uint32_t *restrict A, uint32_t *restrict B, size_t m)
{
    for (size_t i = 0; i < m; i++) {
        const uint32_t p = a[i] + b[i];
        A[i] += w * (p >> 16);
        B[i] += w * (p & 0xffffu);
    }
}

#define COL_RULE(NAME, T)                                                                     \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src, unsigned char *out, \
                               void *acc, int first)                                          \
    {                                                                                         \
        const int32_t *wt = j->ctx;                                                           \
        const size_t n = j->n;                                                                \
        const int r = j->kh / 2;                                                              \
        T *restrict o = (T *)(void *)out;                                                     \
        uint32_t A[BLOCK], B[BLOCK];                                                          \
        (void)gone, (void)src, (void)acc, (void)first;                                        \
        for (size_t i0 = 0; i0 < n; i0 += BLOCK) {                                            \
            const size_t m = n - i0 < BLOCK ? n - i0 : BLOCK;                                 \
            col_centre((const uint32_t *)win[r] + i0, (uint32_t)wt[r], A, B, m);              \
            for (int k = 0; k < r; k++)                                                       \
                col_pair((const uint32_t *)win[k] + i0, (const uint32_t *)win[2 * r - k] + i0, \
                         (uint32_t)wt[k], A, B, m);                                           \
            for (size_t i = 0; i < m; i++)                                                    \
                o[i0 + i] = (T)gf_gauss_round(A[i], B[i]);                                    \
        }                                                                                     \
    }
COL_RULE(col_16, uint16_t)

/* ---- 8-bit on AVX-512 (F, BW, DQ, VL): the column pass first ----
 * The two passes are exact integer sums, so their order does not change v:
 * this path takes the column pass first, straight from the driver's ring of
 * padded input rows (no row rule: 1 byte a sample, where a ring of row sums
 * would take 4 and the second-level cache), then the row pass, a block of
 * CBLOCK outputs at a time from a buffer that stays in the first-level
 * cache.
 *   column pass: c = sum_i w_i x_i (below 2^22) at every padded position,
 *     in 16-bit lanes: the symmetric rows paired (x_i + x_{K-1-i} <= 510),
 *     the pairs (and the centre row) taken two at a time, interleaved and
 *     multiplied by their two weights (below 2^15) with one pmaddwd, which
 *     sums the two products into a 32-bit lane: a multiply for two taps and
 *     no 32-bit multiply. The interleaving permutes the lanes; two
 *     permutes a 32 samples put them back. c is stored as a float (exact).
 *   row pass: y = sum_j (w_j 2^-28) c_j in single precision, the symmetric
 *     columns paired (below 2^23, exact), by fused multiply-adds. The
 *     weights scaled by 2^-28 are exact; the r + 1 roundings (a product,
 *     then r fused multiply-adds), each of a value below 256, each err by
 *     at most half an ulp, 2^-17, so |y - v / 2^28| <= (r + 1) 2^-17. y
 *     rounded to the nearest integer is then the gold's (v + 2^27) >> 28
 *     unless y lies within that bound of a half; the lanes within (r + 2)
 *     2^-17 of one ((r + 2) 2^-16 of a random image's: one in 13,000 at K
 *     7; every K-th on the images test_gaussian.c makes against the
 *     weights) are recomputed exactly, v in 64-bit integers from the c
 *     buffer. The cuda `register` variant (cuda/gaussian.cuh) rounds the
 *     same way.
 * The row pass's unaligned loads of 64 bytes cross a cache line and take
 * two of the load ports' turns, so for windows up to 17 (SIGMA 2.6 by the
 * default rule) on gray and RGB a function a window cuts half the taps out
 * of aligned loads by shuffles (valignd, another port) instead. */
#if GF_X86
#define AVX512 GF_AVX512_FN
#define CBLOCK 1024 /* outputs a block; its c buffer (with the largest halo) takes 6 KB */
#define HALF_ULP_256 (1.0f / 131072.0f) /* 2^-17: half an ulp of a float in [128, 256) */
#define AVX512_INLINE AVX512 static inline __attribute__((always_inline))
#define RINT (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) /* to the nearest, ties even */
#define ABSMAX 0x0b /* vrangeps: the larger magnitude, its sign cleared */

/* 32 samples at p as 16-bit lanes: all of them, or (full == 0) the lanes
 * of mk, the others 0. */
AVX512_INLINE __m512i load32(const unsigned char *p, __mmask32 mk, int full)
{
    return _mm512_cvtepu8_epi16(full ? _mm256_loadu_si256((const __m256i *)(const void *)p)
                                     : _mm256_maskz_loadu_epi8(mk, p));
}

/* Two terms of the column pass at offset t, interleaved, multiplied by
 * their weights w (pmaddwd) and added into *lo, *hi: pairs k and k + 1
 * (pair k: rows k and 2r - k; "pair" r: the centre row; past it, 0). */
AVX512_INLINE void cols_group(const unsigned char *const *rows, int r, int k, __m512i w,
                              size_t t, __mmask32 mk, int full, __m512i *lo, __m512i *hi)
{
    __m512i P, Q;
    if (k == r) {
        P = load32(rows[r] + t, mk, full);
        Q = _mm512_setzero_si512();
    } else {
        P = _mm512_add_epi16(load32(rows[k] + t, mk, full), load32(rows[2 * r - k] + t, mk, full));
        Q = k + 1 == r ? load32(rows[r] + t, mk, full)
                       : _mm512_add_epi16(load32(rows[k + 1] + t, mk, full),
                                          load32(rows[2 * r - k - 1] + t, mk, full));
    }
    *lo = _mm512_add_epi32(*lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(P, Q), w));
    *hi = _mm512_add_epi32(*hi, _mm512_madd_epi16(_mm512_unpackhi_epi16(P, Q), w));
}

/* lo, hi of 32 samples back in order, as floats, into c[0 .. 32): lo's
 * 128-bit lane q holds samples 8q .. 8q + 3 of the 32, hi's 8q + 4 .. 8q + 7. */
AVX512_INLINE void cols_store(__m512i lo, __m512i hi, float *c)
{
    const __m512i idx0 = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
    const __m512i idx1 =
        _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
    _mm512_store_ps(c, _mm512_cvtepi32_ps(_mm512_permutex2var_epi32(lo, idx0, hi)));
    _mm512_store_ps(c + 16, _mm512_cvtepi32_ps(_mm512_permutex2var_epi32(lo, idx1, hi)));
}

/* The column pass of np padded positions: rows[0 .. 2r] the window's rows
 * (from the block's first position), wp[g] the weights of terms 2g and 2g
 * + 1 as two 16-bit halves; c[0 .. np), and 0 up to np + 16 rounded up to
 * 32, where the row pass's last vector reads past its outputs' windows. 64
 * samples a step, then 32 with masks. */
AVX512 static void cols_avx512(const unsigned char *const *rows, int r, const int32_t *wp, float *c,
                               size_t np)
{
    size_t t = 0;
    for (; t + 64 <= np; t += 64) {
        __m512i lo0 = _mm512_setzero_si512(), hi0 = lo0, lo1 = lo0, hi1 = lo0;
        for (int k = 0; k <= r; k += 2) {
            const __m512i w = _mm512_set1_epi32(wp[k / 2]);
            cols_group(rows, r, k, w, t, 0, 1, &lo0, &hi0);
            cols_group(rows, r, k, w, t + 32, 0, 1, &lo1, &hi1);
        }
        cols_store(lo0, hi0, c + t);
        cols_store(lo1, hi1, c + t + 32);
    }
    for (; t < np + 16; t += 32) {
        const __mmask32 mk = t + 32 <= np ? ~(__mmask32)0
                             : t < np     ? ((__mmask32)1 << (np - t)) - 1
                                          : 0;
        __m512i lo = _mm512_setzero_si512(), hi = lo;
        for (int k = 0; k <= r; k += 2)
            cols_group(rows, r, k, _mm512_set1_epi32(wp[k / 2]), t, mk, 0, &lo, &hi);
        cols_store(lo, hi, c + t);
    }
}

/* (v + 2^27) >> 28 of the row pass at c (its window c[0], c[C], ..,
 * c[2r C]), in 64-bit integers: the lanes near a half. */
static unsigned exact_row(const float *c, int r, int C, const int32_t *wt)
{
    int64_t v = 0;
    for (int j = 0; j <= 2 * r; j++)
        v += (int64_t)wt[j] * (int64_t)c[(size_t)j * (size_t)C];
    return (unsigned)((v + (1 << 27)) >> 28);
}

/* The lanes of mk where y lies within lim of an integer and a half
 * (vreduceps: y less y rounded to the nearest integer). */
AVX512_INLINE __mmask16 near_half(__m512 y, __m512 lim, __mmask16 mk)
{
    const __m512 d = _mm512_reduce_ps(y, RINT);
    return _mm512_mask_cmp_ps_mask(mk, _mm512_abs_ps(d), lim, _CMP_GT_OQ);
}

/* y rounded to the nearest integer, the lanes of near recomputed exactly
 * (16 outputs at c, the row pass's window of each at c + lane). */
AVX512_INLINE __m512i round16_avx512(__m512 y, const float *c, int r, int C, const int32_t *wt,
                                     __mmask16 near)
{
    __m512i q = _mm512_cvt_roundps_epi32(y, RINT);
    if (near) {
        int32_t lane[16];
        _mm512_storeu_si512(lane, q);
        for (int i = 0; i < 16; i++)
            if (near >> i & 1)
                lane[i] = (int32_t)exact_row(c + i, r, C, wt);
        q = _mm512_loadu_si512(lane);
    }
    return q;
}

/* The row pass of 16 outputs at c (their windows at c + lane). */
AVX512_INLINE __m512 row16_avx512(const float *c, int r, int C, const float *ws)
{
    __m512 y = _mm512_mul_ps(_mm512_set1_ps(ws[r]), _mm512_loadu_ps(c + r * C));
    for (int j = 0; j < r; j++)
        y = _mm512_fmadd_ps(_mm512_set1_ps(ws[j]),
                            _mm512_add_ps(_mm512_loadu_ps(c + j * C),
                                          _mm512_loadu_ps(c + (2 * r - j) * C)),
                            y);
    return y;
}

/* The rounding of 64 outputs y0 .. y3 (windows at p + lane) and their
 * store: packus leaves 128-bit lane q of the 64 bytes holding 4 samples
 * from each vector's lane q, put back in order by one permute. */
AVX512_INLINE void store64_avx512(__m512 y0, __m512 y1, __m512 y2, __m512 y3, const float *p,
                                  int r, int C, const int32_t *wt, __m512 lim, unsigned char *o)
{
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    /* the largest |y - rint(y)| of each lane over the four (vrangeps: the
     * larger magnitude, sign cleared), against lim once */
    const __m512 d0 = _mm512_reduce_ps(y0, RINT), d1 = _mm512_reduce_ps(y1, RINT);
    const __m512 d2 = _mm512_reduce_ps(y2, RINT), d3 = _mm512_reduce_ps(y3, RINT);
    const __m512 d = _mm512_range_ps(_mm512_range_ps(d0, d1, ABSMAX),
                                     _mm512_range_ps(d2, d3, ABSMAX), ABSMAX);
    __m512i q0, q1, q2, q3;
    if (__builtin_expect(_mm512_cmp_ps_mask(d, lim, _CMP_GT_OQ) != 0, 0)) {
        q0 = round16_avx512(y0, p, r, C, wt, near_half(y0, lim, 0xffff));
        q1 = round16_avx512(y1, p + 16, r, C, wt, near_half(y1, lim, 0xffff));
        q2 = round16_avx512(y2, p + 32, r, C, wt, near_half(y2, lim, 0xffff));
        q3 = round16_avx512(y3, p + 48, r, C, wt, near_half(y3, lim, 0xffff));
    } else {
        q0 = _mm512_cvt_roundps_epi32(y0, RINT);
        q1 = _mm512_cvt_roundps_epi32(y1, RINT);
        q2 = _mm512_cvt_roundps_epi32(y2, RINT);
        q3 = _mm512_cvt_roundps_epi32(y3, RINT);
    }
    const __m512i b =
        _mm512_packus_epi16(_mm512_packus_epi32(q0, q1), _mm512_packus_epi32(q2, q3));
    _mm512_storeu_si512(o, _mm512_permutexvar_epi32(order, b));
}

/* The row pass of 64 outputs at a time for a window of 2R + 1 taps CC
 * samples apart, both constants: the window's 16-sample vectors at the
 * taps right of the centre are cut from aligned loads A[] by valignd (a
 * shuffle, on a port the loads leave free), the others loaded unaligned (a
 * load that crosses a cache line takes two turns); half and half was the
 * fastest mix on an EPYC (Zen 4). Windows up to 17 (R 8; SIGMA 2.6 by the
 * default rule) on gray and RGB. Returns the outputs done (m rounded down
 * to 64). SHV(k, o): the 16 samples at p + 16 k + o. A[] holds the
 * vectors at p, p + 16, ..: the last one the taps reach is A[4 + 2 R CC /
 * 16] (the column pass wrote c that far). */
#define FIXED_MAX_R 8
#define SHV(k, o)                                                                              \
    ((o) % 16 == 0 ? A[(k) + (o) / 16]                                                         \
                   : _mm512_castsi512_ps(_mm512_alignr_epi32(                                  \
                         _mm512_castps_si512(A[(k) + (o) / 16 + 1]),                           \
                         _mm512_castps_si512(A[(k) + (o) / 16]), (o) % 16)))
#define RIGHT(R, CC, j) (((j) < (R) ? 2 * (R) - (j) : (R)) * (CC))
#define TAP(R, CC, j)                                                                          \
    if ((j) < (R)) {                                                                           \
        const __m512 w = _mm512_set1_ps(ws[j]);                                                \
        y0 = _mm512_fmadd_ps(w, _mm512_add_ps(_mm512_loadu_ps(p + (j) * (CC)),                 \
                                              SHV(0, RIGHT(R, CC, j))), y0);                   \
        y1 = _mm512_fmadd_ps(w, _mm512_add_ps(_mm512_loadu_ps(p + 16 + (j) * (CC)),            \
                                              SHV(1, RIGHT(R, CC, j))), y1);                   \
        y2 = _mm512_fmadd_ps(w, _mm512_add_ps(_mm512_loadu_ps(p + 32 + (j) * (CC)),            \
                                              SHV(2, RIGHT(R, CC, j))), y2);                   \
        y3 = _mm512_fmadd_ps(w, _mm512_add_ps(_mm512_loadu_ps(p + 48 + (j) * (CC)),            \
                                              SHV(3, RIGHT(R, CC, j))), y3);                   \
    }
#define ROWS_FIXED(CC, R)                                                                      \
    AVX512 static size_t rows_##CC##_##R(const float *c, size_t m, const float *ws,            \
                                         const int32_t *wt, __m512 lim, unsigned char *o)      \
    {                                                                                          \
        enum { NA = 5 + 2 * (R) * (CC) / 16 };                                                 \
        size_t t = 0;                                                                          \
        for (; t + 64 <= m; t += 64) {                                                         \
            const float *p = c + t;                                                            \
            __m512 A[NA], y0, y1, y2, y3;                                                      \
            for (int i = 0; i < NA; i++)                                                       \
                A[i] = _mm512_load_ps(p + 16 * i);                                             \
            const __m512 wc = _mm512_set1_ps(ws[R]);                                           \
            y0 = _mm512_mul_ps(wc, _mm512_loadu_ps(p + (R) * (CC)));                           \
            y1 = _mm512_mul_ps(wc, _mm512_loadu_ps(p + 16 + (R) * (CC)));                      \
            y2 = _mm512_mul_ps(wc, _mm512_loadu_ps(p + 32 + (R) * (CC)));                      \
            y3 = _mm512_mul_ps(wc, _mm512_loadu_ps(p + 48 + (R) * (CC)));                      \
            TAP(R, CC, 0) TAP(R, CC, 1) TAP(R, CC, 2) TAP(R, CC, 3)                            \
            TAP(R, CC, 4) TAP(R, CC, 5) TAP(R, CC, 6) TAP(R, CC, 7)                            \
            store64_avx512(y0, y1, y2, y3, p, R, CC, wt, lim, o + t);                          \
        }                                                                                      \
        return t;                                                                              \
    }
#define ROWS_FIXED_C(CC)                                                                       \
    ROWS_FIXED(CC, 1) ROWS_FIXED(CC, 2) ROWS_FIXED(CC, 3) ROWS_FIXED(CC, 4)                    \
    ROWS_FIXED(CC, 5) ROWS_FIXED(CC, 6) ROWS_FIXED(CC, 7) ROWS_FIXED(CC, 8)
ROWS_FIXED_C(1)
ROWS_FIXED_C(3)
typedef size_t (*rows_fixed_fn)(const float *c, size_t m, const float *ws, const int32_t *wt,
                                __m512 lim, unsigned char *o);
#define ROWS_FIXED_LIST(CC)                                                                    \
    {rows_##CC##_1, rows_##CC##_2, rows_##CC##_3, rows_##CC##_4,                               \
     rows_##CC##_5, rows_##CC##_6, rows_##CC##_7, rows_##CC##_8}
static const rows_fixed_fn rows_fixed[GF_MAX_CHANNELS][FIXED_MAX_R] = {
    ROWS_FIXED_LIST(1), {NULL}, ROWS_FIXED_LIST(3), {NULL}};

/* The row pass and the rounding of m outputs from the column sums c into o:
 * four vectors at a time, whose chains of fused multiply-adds overlap,
 * packed to 64 bytes and stored at once; then 16 at a time. */
AVX512 static void rows_avx512(const float *c, size_t m, int r, int C, const float *ws,
                               const int32_t *wt, __m512 lim, unsigned char *o)
{
    const rows_fixed_fn fixed = r <= FIXED_MAX_R ? rows_fixed[C - 1][r - 1] : NULL;
    size_t t = fixed ? fixed(c, m, ws, wt, lim, o) : 0;
    for (; t + 64 <= m; t += 64) {
        const float *p = c + t;
        __m512 y0 = _mm512_mul_ps(_mm512_set1_ps(ws[r]), _mm512_loadu_ps(p + r * C));
        __m512 y1 = _mm512_mul_ps(_mm512_set1_ps(ws[r]), _mm512_loadu_ps(p + 16 + r * C));
        __m512 y2 = _mm512_mul_ps(_mm512_set1_ps(ws[r]), _mm512_loadu_ps(p + 32 + r * C));
        __m512 y3 = _mm512_mul_ps(_mm512_set1_ps(ws[r]), _mm512_loadu_ps(p + 48 + r * C));
        for (int j = 0; j < r; j++) {
            const __m512 w = _mm512_set1_ps(ws[j]);
            const float *a = p + j * C, *b = p + (2 * r - j) * C;
            y0 = _mm512_fmadd_ps(w, _mm512_add_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(b)), y0);
            y1 = _mm512_fmadd_ps(
                w, _mm512_add_ps(_mm512_loadu_ps(a + 16), _mm512_loadu_ps(b + 16)), y1);
            y2 = _mm512_fmadd_ps(
                w, _mm512_add_ps(_mm512_loadu_ps(a + 32), _mm512_loadu_ps(b + 32)), y2);
            y3 = _mm512_fmadd_ps(
                w, _mm512_add_ps(_mm512_loadu_ps(a + 48), _mm512_loadu_ps(b + 48)), y3);
        }
        store64_avx512(y0, y1, y2, y3, p, r, C, wt, lim, o + t);
    }
    for (; t < m; t += 16) {
        const __mmask16 mk = m - t >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (m - t)) - 1);
        const __m512 y = row16_avx512(c + t, r, C, ws);
        _mm512_mask_cvtepi32_storeu_epi8(
            o + t, mk, round16_avx512(y, c + t, r, C, wt, near_half(y, lim, mk)));
    }
}

AVX512 static void col_8_avx512(const gf_stencil_job *j, const void *const *win, const void *gone,
                                const unsigned char *src, unsigned char *out, void *acc,
                                int first)
{
    const int32_t *wt = j->ctx;
    const int r = j->kh / 2, C = j->channels;
    const size_t n = j->n, halo = 2 * (size_t)r * (size_t)C;
    /* with the slack the column pass writes past the window */
    float c[CBLOCK + 2 * (GF_GAUSS_MAX_K / 2) * GF_MAX_CHANNELS + 64] __attribute__((aligned(64)));
    const unsigned char *rows[GF_GAUSS_MAX_K];
    int32_t wp[GF_GAUSS_HALF / 2 + 1];
    float ws[GF_GAUSS_HALF];
    const __m512 lim = _mm512_set1_ps(0.5f - (float)(r + 2) * HALF_ULP_256);
    (void)gone, (void)src, (void)acc, (void)first;

    /* the terms two at a time: pairs 0 and 1, 2 and 3, ..., then the centre */
    for (int g = 0; g <= r / 2; g++) {
        const int a = 2 * g, b = 2 * g + 1;
        const int32_t wa = wt[a], wb = b < r ? wt[b] : b == r ? wt[r] : 0;
        wp[g] = (int32_t)((uint32_t)wa | (uint32_t)wb << 16);
    }
    for (int i = 0; i <= r; i++)
        ws[i] = (float)wt[i] * (1.0f / 268435456.0f); /* w 2^-28, exact */
    for (size_t i0 = 0; i0 < n; i0 += CBLOCK) {
        const size_t m = n - i0 < CBLOCK ? n - i0 : CBLOCK;
        for (int k = 0; k <= 2 * r; k++)
            rows[k] = (const unsigned char *)win[k] + i0;
        /* the next block's output, asked for while this one is worked on:
         * its cache lines are then owned when the stores come */
        for (size_t q = i0 + CBLOCK; q < i0 + 2 * CBLOCK && q < n; q += 64)
            __builtin_prefetch(out + q, 1, 3);
        cols_avx512(rows, r, wp, c, m + halo);
        rows_avx512(c, m, r, C, ws, wt, lim, out + i0);
    }
}
#endif

int gf_gauss_simd = 1;

int gf_gauss_avx512(void)
{
    return gf_gauss_simd && gf_cpu_avx512();
}

gf_stencil_cpu gf_gauss_rules(int bits)
{
    const gf_stencil_cpu r = {bits == 16 ? row_16 : row_8, 4, bits == 16 ? col_16 : col_8, 0};
#if GF_X86
    if (bits == 8 && gf_gauss_avx512()) {
        const gf_stencil_cpu v = {NULL, 0, col_8_avx512, 0};
        return v;
    }
#endif
    return r;
}

int gf_gauss_cpu(const gf_image *in, gf_image *out, double sigma, int ksize, gf_border border)
{
    int32_t wt[GF_GAUSS_MAX_K];
    const gf_stencil_cpu r = gf_gauss_rules(in->bits);
    const gf_stencil_job j = {NULL,   wt,     in->width, in->height,
                              in->channels, in->bits, ksize, ksize,
                              border, (size_t)in->width * (size_t)in->channels};
    int rc = check_args(in, out, sigma, ksize);

    if (rc)
        return rc;
    gf_gauss_weights(sigma, ksize, wt);
    return gf_stencil_cpu_run(&r, &j, in, out);
}

static int gauss_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_gauss_params *p = GF_CPARAMS(s, gf_gauss_params);
    return gf_gauss_gold(in, out, p->sigma, gf_gauss_ksize(p->sigma, p->k, in->bits), p->border);
}

static int gauss_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_gauss_params *p = GF_CPARAMS(s, gf_gauss_params);
    return gf_gauss_cpu(in, out, p->sigma, gf_gauss_ksize(p->sigma, p->k, in->bits), p->border);
}

static int gauss_in_place(const gf_stage *s, gf_image *img)
{
    return gauss_cpu(s, img, img);
}

static void gauss_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_gauss_params *p = GF_CPARAMS(s, gf_gauss_params);
    if (p->k)
        snprintf(buf, n, "gaussian %g,%d", p->sigma, p->k);
    else
        snprintf(buf, n, "gaussian %g", p->sigma);
}

/* --gaussian SIGMA or SIGMA,K. */
static int parse_gaussian(gf_stage *s, const char *arg)
{
    gf_gauss_params *p = GF_PARAMS(s, gf_gauss_params);
    const char *end = NULL;
    int rc;

    p->border.mode = GF_BORDER_REPLICATE;
    if ((rc = gf_gauss_parse_sigma("--gaussian", arg, &p->sigma, &end)))
        return rc;
    if (*end == 0)
        return 0;
    if (*end != ',' || gf_parse_int("--gaussian K", end + 1, GF_GAUSS_MIN_K, GF_GAUSS_MAX_K,
                                    &p->k) ||
        p->k % 2 == 0)
        return gf_err(GF_EUSAGE, NULL,
                      "--gaussian: '%s' is not SIGMA or SIGMA,K (K odd, %d..%d)", arg,
                      GF_GAUSS_MIN_K, GF_GAUSS_MAX_K);
    return 0;
}

double gf_gauss_cpu_cost(int ksize, int bits)
{
    /* the AVX-512 path, one thread at 5120x2880: 0.47 ns a byte at K 7,
     * 0.82 at 17, the last of its row passes with fixed taps, 1.73 at 31,
     * 3.20 at 61; the others as measured before it, 0.6 and 0.05 a unit of
     * K */
    if (bits == 8 && gf_gauss_avx512())
        return ksize <= 17 ? 0.22 + 0.035 * ksize : 0.15 + 0.05 * ksize;
    return 0.6 + 0.05 * ksize;
}

static double gauss_cost(const gf_stage *s, const gf_shape *in)
{
    const gf_gauss_params *p = GF_CPARAMS(s, gf_gauss_params);
    return gf_gauss_cpu_cost(gf_gauss_ksize(p->sigma, p->k, in->bits), in->bits);
}

/* Test configurations: the default K at two sigmas and K = 3 and 5, each
 * border (a random constant within 8 bits), then larger windows, which make
 * test-gpu keeps to small images: SIGMA 5 (K 31 / 41) and 20 (K 121 /
 * 127), and a random SIGMA of 0.1 to 5. Bench: SIGMA 1 (K 7), 2 (K 13), 2.5 (K 17)
 * and 5 (K 31). */
static int gauss_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    static const struct {
        double sigma;
        int k;
    } test[] = {{0.8, 0}, {2.0, 0}, {1.5, 3}, {1.0, 5}, {0.3, 0}, {3.3, 9}, {5.0, 0}, {20.0, 0},
                {0.0, 0}},
      bench_cfg[] = {{1.0, 0}, {2.0, 0}, {2.5, 0}, {5.0, 0}};
    gf_gauss_params *p = GF_PARAMS(s, gf_gauss_params);

    if (i >= (bench ? 4 : 9))
        return 0;
    p->sigma = bench ? bench_cfg[i].sigma : test[i].sigma;
    p->k = bench ? bench_cfg[i].k : test[i].k;
    if (p->sigma == 0.0) /* a random SIGMA of 0.1 .. 5: every window up to 31 x 31 in time */
        p->sigma = 0.1 + 0.1 * (double)(gf_rand(rng) % 50);
    p->border.mode = bench ? GF_BORDER_REPLICATE : modes[i % 3];
    p->border.value = p->border.mode == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

static const gf_stage_opt gauss_opts[] = {
    {"gaussian", "SIGMA[,K]",
     "Gaussian blur of each channel, SIGMA 0.1-20, K x K (odd, 3-127; default floor(6 SIGMA "
     "+ 1.5) | 1 on 8-bit, floor(8 SIGMA + 1.5) | 1 on 16-bit, at most 127); 14-bit weights, "
     "one rounding",
     GF_OPT_ADD, parse_gaussian},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant gauss_variants[] = {
    {"global", GF_CUDA(gf_gauss_global_cuda)},
    {"shared", GF_CUDA(gf_gauss_shared_cuda)},
    {"constant", GF_CUDA(gf_gauss_constant_cuda)},
    {"register", GF_CUDA(gf_gauss_register_cuda)},
    {NULL, NULL},
};

static const gf_default gauss_defaults[] = {
    {0, 0, "register"},
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_gaussian = {
    .cpu_cost = 0.9,
    .cpu_cost_of = gauss_cost,
    .name = "gaussian",
    .group = "gaussian",
    .opts = gauss_opts,
    .variants = gauss_variants,
    .defaults = gauss_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = gf_stencil_check,
    .label = gauss_label,
    .gold = gauss_gold,
    .cpu = gauss_cpu,
    .cpu_in_place = gauss_in_place,
    .config = gauss_config,
    .large_configs = 6,
};
