/* unsharp.c - the unsharp mask stage: --unsharp SIGMA[,AMOUNT[,THRESHOLD]],
 * the Gaussian of gaussian.h and a sharpening step, on the stencil
 * framework. */
#include "gaussian.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if GF_X86
#include <immintrin.h>
#endif

_Static_assert(sizeof(gf_unsharp_params) <= GF_STAGE_PARAMS, "unsharp params");

#define MAX_AMOUNT 10.0

static int check_args(const gf_image *in, const gf_image *out, const gf_unsharp_params *p)
{
    if (out->data == in->data || out->width != in->width || out->height != in->height ||
        out->channels != in->channels || out->bits != in->bits || p->amount < 0 ||
        p->amount > (int)(MAX_AMOUNT * 256) || p->threshold < 0)
        return gf_err(GF_EINTERNAL, NULL, "unsharp: bad arguments");
    return 0;
}

int gf_unsharp_gold(const gf_image *in, gf_image *out, const gf_unsharp_params *p)
{
    const int k = gf_gauss_ksize(p->g.sigma, 0, in->bits), max = (int)gf_sample_max(in->bits);
    gf_image g;
    int rc = check_args(in, out, p);

    if (rc || (rc = gf_image_alloc(&g, in->width, in->height, in->channels, in->bits)))
        return rc;
    if ((rc = gf_gauss_gold(in, &g, p->g.sigma, k, p->g.border)) == 0) {
#pragma omp parallel for schedule(static)
        for (int y = 0; y < in->height; y++)
            for (int x = 0; x < in->width; x++)
                for (int c = 0; c < in->channels; c++)
                    gf_sample_set(out, x, y, c,
                                  gf_unsharp_sample((int)gf_sample(in, x, y, c),
                                                    (int)gf_sample(&g, x, y, c), p->amount,
                                                    p->threshold, max));
    }
    gf_image_free(&g);
    return rc;
}

/* The fast path: the Gaussian's rules, its column rule's output row kept in
 * the driver's scratch row and sharpened against the input row. */
typedef struct unsharp_ctx {
    int32_t wt[GF_GAUSS_MAX_K];
    gf_stencil_cpu gauss;
    int amount, threshold;
} unsharp_ctx;

#define COL_RULE(NAME, T)                                                                     \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src, unsigned char *out, \
                               void *acc, int first)                                          \
    {                                                                                         \
        const unsharp_ctx *u = j->ctx;                                                        \
        gf_stencil_job gj = *j;                                                               \
        const size_t n = j->n;                                                                \
        const int amount = u->amount, threshold = u->threshold, max = (1 << j->bits) - 1;     \
        const T *restrict x = (const T *)(const void *)src, *restrict g = acc;                \
        T *restrict o = (T *)(void *)out;                                                     \
        gj.ctx = u->wt;                                                                       \
        u->gauss.col(&gj, win, gone, src, acc, NULL, first);                                  \
        for (size_t i = 0; i < n; i++)                                                        \
            o[i] = (T)gf_unsharp_sample(x[i], g[i], amount, threshold, max);                  \
    }
COL_RULE(col_8, uint8_t)
COL_RULE(col_16, uint16_t)

#if GF_X86
#define AVX512BW __attribute__((target("avx512f,avx512bw,avx512vl")))

/* gf_unsharp_sample of n 8-bit samples x with blurred g into o, on AVX-512
 * in 16-bit lanes, 32 at a time: d = x - g (|d| <= 255) and a = 256 a_hi +
 * a_lo, so floor((d a + 128) / 256) = d a_hi + floor((d a_lo + 128) /
 * 256), the second (d (128 a_lo) + 2^14) >> 15: pmulhrsw (128 a_lo <=
 * 32640, |d a_hi| <= 2550). The sum is clamped by a max with 0 and the
 * unsigned saturation of the store. */
AVX512BW static void sharpen_8_avx512(const uint8_t *x, const uint8_t *g, uint8_t *o, size_t n,
                                      int amount, int threshold)
{
    const __m512i ahi = _mm512_set1_epi16((short)(amount >> 8));
    const __m512i alo = _mm512_set1_epi16((short)((amount & 255) * 128));
    const __m512i t = _mm512_set1_epi16((short)(threshold < 255 ? threshold : 255));
    for (size_t i = 0; i < n; i += 32) {
        const __mmask32 mk = n - i >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << (n - i)) - 1;
        const __m512i X = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(mk, x + i));
        const __m512i G = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(mk, g + i));
        const __m512i D = _mm512_sub_epi16(X, G);
        __m512i V = _mm512_add_epi16(_mm512_mullo_epi16(D, ahi), _mm512_mulhrs_epi16(D, alo));
        V = _mm512_max_epi16(_mm512_add_epi16(X, V), _mm512_setzero_si512());
        V = _mm512_mask_mov_epi16(X, _mm512_cmpgt_epi16_mask(_mm512_abs_epi16(D), t), V);
        _mm512_mask_cvtusepi16_storeu_epi8(o + i, mk, V);
    }
}

/* col_8 with the Gaussian's AVX-512 column rule and the sharpening above. */
AVX512BW static void col_8_avx512(const gf_stencil_job *j, const void *const *win,
                                  const void *gone, const unsigned char *src, unsigned char *out,
                                  void *acc, int first)
{
    const unsharp_ctx *u = j->ctx;
    gf_stencil_job gj = *j;
    gj.ctx = u->wt;
    u->gauss.col(&gj, win, gone, src, acc, NULL, first);
    sharpen_8_avx512(src, acc, out, j->n, u->amount, u->threshold);
}
#endif

int gf_unsharp_cpu(const gf_image *in, gf_image *out, const gf_unsharp_params *p)
{
    const int k = gf_gauss_ksize(p->g.sigma, 0, in->bits);
    unsharp_ctx u;
    gf_stencil_cpu r;
    const gf_stencil_job j = {NULL,   &u,     in->width, in->height,
                              in->channels, in->bits, k, k,
                              p->g.border, (size_t)in->width * (size_t)in->channels};
    int rc = check_args(in, out, p);

    if (rc)
        return rc;
    gf_gauss_weights(p->g.sigma, k, u.wt);
    u.gauss = r = gf_gauss_rules(in->bits);
    u.amount = p->amount;
    u.threshold = p->threshold;
    r.col = in->bits == 16 ? col_16 : col_8;
#if GF_X86
    if (in->bits == 8 && gf_gauss_avx512())
        r.col = col_8_avx512;
#endif
    r.acc_bytes = (size_t)in->bits / 8;
    return gf_stencil_cpu_run(&r, &j, in, out);
}

static int unsharp_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return gf_unsharp_gold(in, out, GF_CPARAMS(s, gf_unsharp_params));
}

static int unsharp_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return gf_unsharp_cpu(in, out, GF_CPARAMS(s, gf_unsharp_params));
}

static void unsharp_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_unsharp_params *p = GF_CPARAMS(s, gf_unsharp_params);
    snprintf(buf, n, "unsharp %g,%g,%d", p->g.sigma, p->amount_given, p->threshold);
}

/* --unsharp SIGMA[,AMOUNT[,THRESHOLD]]. */
static int parse_unsharp(gf_stage *s, const char *arg)
{
    gf_unsharp_params *p = GF_PARAMS(s, gf_unsharp_params);
    const char *end = NULL;
    int rc;

    p->g.border.mode = GF_BORDER_REPLICATE;
    p->amount_given = 1.0;
    p->threshold = 0;
    if ((rc = gf_gauss_parse_sigma("--unsharp", arg, &p->g.sigma, &end)))
        return rc;
    if (*end == ',') {
        if (gf_gauss_parse_decimal(end + 1, &p->amount_given, &end) ||
            !(p->amount_given >= 0 && p->amount_given <= MAX_AMOUNT) || (*end && *end != ','))
            return gf_err(GF_EUSAGE, NULL,
                          "--unsharp: AMOUNT must be a number from 0 to %g, in '%s'", MAX_AMOUNT,
                          arg);
        if (*end == ',' &&
            gf_parse_int("--unsharp THRESHOLD", end + 1, 0, 65535, &p->threshold))
            return GF_EUSAGE;
    } else if (*end) {
        return gf_err(GF_EUSAGE, NULL, "--unsharp: '%s' is not SIGMA[,AMOUNT[,THRESHOLD]]", arg);
    }
    p->amount = (int)lround(p->amount_given * 256);
    return 0;
}

/* The Gaussian's and the sharpening's: 0.2 ns a byte more (0.67 at K 7,
 * 8-bit on AVX-512, one thread). */
static double unsharp_cost(const gf_stage *s, const gf_shape *in)
{
    const gf_unsharp_params *p = GF_CPARAMS(s, gf_unsharp_params);
    return gf_gauss_cpu_cost(gf_gauss_ksize(p->g.sigma, 0, in->bits), in->bits) + 0.2;
}

/* Test configurations: amounts and thresholds at small sigmas, each border
 * (a random constant within 8 bits), a large amount that clamps, then a
 * large sigma (kept to small images). Bench: SIGMA 1 and 2. */
static int unsharp_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    static const struct {
        double sigma, amount;
        int threshold;
    } test[] = {{1.0, 1.0, 0}, {0.6, 0.5, 3}, {2.0, 2.5, 0}, {1.3, 10.0, 1}, {0.5, 0.0, 0},
                {6.0, 1.7, 2}},
      bench_cfg[] = {{1.0, 1.0, 0}, {2.0, 1.0, 0}};
    gf_unsharp_params *p = GF_PARAMS(s, gf_unsharp_params);

    if (i >= (bench ? 2 : 6))
        return 0;
    p->g.sigma = bench ? bench_cfg[i].sigma : test[i].sigma;
    p->amount_given = bench ? bench_cfg[i].amount : test[i].amount;
    p->amount = (int)lround(p->amount_given * 256);
    p->threshold = bench ? bench_cfg[i].threshold : test[i].threshold;
    p->g.border.mode = bench ? GF_BORDER_REPLICATE : modes[i % 3];
    p->g.border.value = p->g.border.mode == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

static const gf_stage_opt unsharp_opts[] = {
    {"unsharp", "SIGMA[,AMOUNT[,THRESHOLD]]",
     "unsharp mask: x + AMOUNT (x - gaussian SIGMA) where |x - gaussian| > THRESHOLD (AMOUNT "
     "0-10, default 1; THRESHOLD in sample units, 0-65535, default 0)",
     GF_OPT_ADD, parse_unsharp},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant unsharp_variants[] = {
    {"global", GF_CUDA(gf_unsharp_global_cuda)},
    {"shared", GF_CUDA(gf_unsharp_shared_cuda)},
    {"constant", GF_CUDA(gf_unsharp_constant_cuda)},
    {"register", GF_CUDA(gf_unsharp_register_cuda)},
    {NULL, NULL},
};

static const gf_default unsharp_defaults[] = {
    {0, 0, "register"},
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_unsharp = {
    .cpu_cost = 1.0,
    .cpu_cost_of = unsharp_cost,
    .name = "unsharp",
    .group = "gaussian",
    .opts = unsharp_opts,
    .variants = unsharp_variants,
    .defaults = unsharp_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = gf_stencil_check,
    .label = unsharp_label,
    .gold = unsharp_gold,
    .cpu = unsharp_cpu,
    .config = unsharp_config,
    .large_configs = 5,
};
