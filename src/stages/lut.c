/* lut.c - lookup tables applied to the colour channels of an image (lut.h):
 * the tables, their application on the CPU, the per-channel histogram. */
#include "lut.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_VBMI_PATH 1
#else
#define HAVE_VBMI_PATH 0
#endif

int gf_lut_simd = 1;

const gf_default gf_lut_defaults[] = {
    {0, 0, "shared"},
    {0, 0, NULL},
};

int gf_lut_alloc(gf_lut *lut, int bits, int ntables)
{
    lut->bits = bits;
    lut->ntables = ntables;
    lut->data = NULL;
    if ((bits != 8 && bits != 16) || ntables < 1 || ntables > GF_LUT_MAX_TABLES)
        return gf_err(GF_EINTERNAL, NULL, "lut: %d tables of %d bits", ntables, bits);
    if (!(lut->data = malloc((size_t)ntables * (size_t)gf_hist_bins(bits) * (size_t)(bits / 8))))
        return gf_err(GF_EINTERNAL, NULL, "lut: out of memory");
    return 0;
}

void gf_lut_free(gf_lut *lut)
{
    free(lut->data);
    memset(lut, 0, sizeof *lut);
}

double gf_lut_cost(const gf_stage *s, const gf_shape *in)
{
    (void)s;
    return in->bits == 8 ? 0.15 : 0.7;
}

double gf_lut_cost_hist(const gf_stage *s, const gf_shape *in)
{
    (void)s;
    return in->bits == 8 ? 0.6 : 1.4;
}

void gf_lut_identity(gf_lut *lut, int t)
{
    for (int v = 0; v < gf_hist_bins(lut->bits); v++)
        gf_lut_set(lut, t, (unsigned)v, (unsigned)v);
}

static int check_args(const gf_lut *lut, const gf_image *in, const gf_image *out)
{
    if (out->width != in->width || out->height != in->height || out->channels != in->channels ||
        out->bits != in->bits || lut->bits != in->bits || !lut->data ||
        (lut->ntables != 1 && lut->ntables != gf_lut_colours(in->channels)))
        return gf_err(GF_EINTERNAL, NULL, "lut: %d tables of %d bits for a %s image",
                      lut->ntables, lut->bits, gf_layout_name(in->channels, in->bits));
    return 0;
}

int gf_lut_apply_gold(const gf_lut *lut, const gf_image *in, gf_image *out)
{
    int rc = check_args(lut, in, out);

    for (int y = 0; rc == 0 && y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            for (int c = 0; c < in->channels; c++) {
                const unsigned v = gf_sample(in, x, y, c);
                gf_sample_set(out, x, y, c,
                              gf_lut_is_alpha(in->channels, c) ? v : gf_lut_get(lut, c, v));
            }
    return rc;
}

/* A row of n samples of C channels through the tables (tab[c] for colour
 * channel c), alpha copied; dst may be src. T: uint8_t or uint16_t. */
#define ROW(NAME, T)                                                                          \
    static void NAME(const T *src, T *dst, size_t n, int C, const T *const *tab)             \
    {                                                                                         \
        if (C == 1 || (C == 3 && tab[0] == tab[1] && tab[1] == tab[2])) {                     \
            const T *t = tab[0];                                                              \
            for (size_t i = 0; i < n; i++)                                                    \
                dst[i] = t[src[i]];                                                           \
        } else if (C == 2) {                                                                  \
            const T *t = tab[0];                                                              \
            for (size_t i = 0; i < n; i += 2) {                                               \
                dst[i] = t[src[i]];                                                           \
                dst[i + 1] = src[i + 1];                                                      \
            }                                                                                 \
        } else {                                                                              \
            const T *r = tab[0], *g = tab[1], *b = tab[2];                                    \
            for (size_t i = 0; i < n; i += (size_t)C) {                                       \
                const T v0 = src[i], v1 = src[i + 1], v2 = src[i + 2];                        \
                dst[i] = r[v0];                                                               \
                dst[i + 1] = g[v1];                                                           \
                dst[i + 2] = b[v2];                                                           \
                if (C == 4)                                                                   \
                    dst[i + 3] = src[i + 3];                                                  \
            }                                                                                 \
        }                                                                                     \
    }
ROW(row8, uint8_t)
ROW(row16, uint16_t)

#if HAVE_VBMI_PATH
#define VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

/* Entries v of the 256-entry table q[0..3] (64 entries a register): the
 * low 128 by one two-register byte permute, the high 128 by another, picked
 * by each byte's top bit. */
VBMI static inline __m512i lookup64(__m512i v, const __m512i *q)
{
    const __m512i lo = _mm512_permutex2var_epi8(q[0], v, q[1]);
    const __m512i hi = _mm512_permutex2var_epi8(q[2], v, q[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi);
}

/* 64 bytes v whose first byte is channel p of C, through the tables q;
 * mask[p][c]: the bytes of channel c when the first is channel p. */
VBMI static inline __m512i map64(__m512i v, int p, int C, int ntables, const __m512i (*q)[4],
                                 const __mmask64 (*mask)[4])
{
    if (ntables == 1) {
        const __m512i r = lookup64(v, q[0]);
        return C == 2 || C == 4 ? _mm512_mask_blend_epi8(mask[p][C - 1], r, v) : r;
    }
    __m512i r = v; /* alpha stays */
    for (int c = 0; c < 3; c++)
        r = _mm512_mask_blend_epi8(mask[p][c], r, lookup64(v, q[c]));
    return r;
}

/* One 8-bit row of n samples of C channels, 64 bytes a step, the last
 * masked. With `stream` the output is written by non-temporal stores from
 * its first 64-byte boundary on (a masked step before it): they skip
 * reading the output's lines into the cache first. */
VBMI static void row8_vbmi(const uint8_t *src, uint8_t *dst, size_t n, int C, int ntables,
                           const __m512i (*q)[4], const __mmask64 (*mask)[4], int stream)
{
    size_t o = 0;

    if (stream) {
        size_t head = (64 - ((uintptr_t)dst & 63)) & 63;
        if (head > n)
            head = n;
        if (head) {
            const __mmask64 m = ((__mmask64)1 << head) - 1;
            const __m512i v = _mm512_maskz_loadu_epi8(m, src);
            _mm512_mask_storeu_epi8(dst, m, map64(v, 0, C, ntables, q, mask));
        }
        for (o = head; o + 64 <= n; o += 64)
            _mm512_stream_si512((void *)(dst + o),
                                map64(_mm512_loadu_si512((const void *)(src + o)),
                                      (int)(o % (size_t)C), C, ntables, q, mask));
    }
    for (; o < n; o += 64) {
        const __mmask64 m = n - o >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - o)) - 1;
        const __m512i v = _mm512_maskz_loadu_epi8(m, src + o);
        _mm512_mask_storeu_epi8(dst + o, m, map64(v, (int)(o % (size_t)C), C, ntables, q, mask));
    }
}

/* Input and output together from which a separate output is streamed (as
 * the threshold stage's). */
#define STREAM_BYTES (16u << 20)

VBMI static void apply8_vbmi(const gf_lut *lut, const gf_image *in, gf_image *out)
{
    const int C = in->channels;
    const size_t n = (size_t)in->width * (size_t)C;
    const int stream = in->data != out->data && (uint64_t)n * (uint64_t)in->height * 2 >= STREAM_BYTES;
    __m512i q[GF_LUT_MAX_TABLES][4];
    __mmask64 mask[4][4];

    for (int t = 0; t < lut->ntables; t++)
        for (int k = 0; k < 4; k++)
            q[t][k] = _mm512_loadu_si512((const void *)(gf_lut8(lut, t) + 64 * k));
    for (int p = 0; p < 4; p++)
        for (int c = 0; c < 4; c++) {
            mask[p][c] = 0;
            for (int j = 0; j < 64; j++)
                if ((p + j) % C == c)
                    mask[p][c] |= (__mmask64)1 << j;
        }
#pragma omp parallel for schedule(static) if (GF_PARALLEL(n, in->height))
    for (int y = 0; y < in->height; y++)
        row8_vbmi(in->data + (size_t)y * in->stride, out->data + (size_t)y * out->stride, n, C,
                  lut->ntables, (const __m512i(*)[4])q, (const __mmask64(*)[4])mask, stream);
    if (stream)
        _mm_sfence(); /* the streamed stores before anything reads them */
}

/* 1 when the CPU has AVX-512 VBMI (the CPU model the runtime read at
 * start-up: no state of ours, so batch workers may ask at once). */
static int have_vbmi(void)
{
    return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
}
#endif

int gf_lut_apply_cpu(const gf_lut *lut, const gf_image *in, gf_image *out)
{
    const int C = in->channels;
    const size_t n = (size_t)in->width * (size_t)C;
    const void *tab[4];
    int rc = check_args(lut, in, out);

    if (rc)
        return rc;
#if HAVE_VBMI_PATH
    if (in->bits == 8 && gf_lut_simd && have_vbmi()) {
        apply8_vbmi(lut, in, out);
        return 0;
    }
#endif
    for (int c = 0; c < 4; c++)
        tab[c] = lut->bits == 8 ? (const void *)gf_lut8(lut, lut->ntables == 1 ? 0 : c % 3)
                                : (const void *)gf_lut16(lut, lut->ntables == 1 ? 0 : c % 3);
#pragma omp parallel for schedule(static) if (GF_PARALLEL(n, in->height))
    for (int y = 0; y < in->height; y++) {
        const unsigned char *s = in->data + (size_t)y * in->stride;
        unsigned char *d = out->data + (size_t)y * out->stride;
        if (in->bits == 8)
            row8(s, d, n, C, (const uint8_t *const *)tab);
        else
            row16((const uint16_t *)(const void *)s, (uint16_t *)(void *)d, n, C,
                  (const uint16_t *const *)tab);
    }
    return 0;
}

int gf_lut_hist(const gf_image *in, int gold, uint32_t **bins)
{
    int rc;

    *bins = malloc((size_t)in->channels * (size_t)gf_hist_bins(in->bits) * sizeof **bins);
    if (!*bins)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    if ((rc = (gold ? gf_hist_gold : gf_hist_cpu)(in, *bins))) {
        free(*bins);
        *bins = NULL;
    }
    return rc;
}

int gf_lut_run(const gf_stage *s, const gf_image *in, gf_image *out, int gold,
               gf_lut_table_fn table)
{
    gf_lut lut;
    int rc;

    memset(&lut, 0, sizeof lut);
    if ((rc = table(s, in, gold, &lut)) == 0)
        rc = (gold ? gf_lut_apply_gold : gf_lut_apply_cpu)(&lut, in, out);
    gf_lut_free(&lut);
    return rc;
}
