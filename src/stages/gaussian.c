/* gaussian.c - the Gaussian blur stage: --gaussian SIGMA[,K], on the
 * stencil framework (the rule: gaussian.h). */
#include "gaussian.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

gf_stencil_cpu gf_gauss_rules(int bits)
{
    const gf_stencil_cpu r = {bits == 16 ? row_16 : row_8, 4, bits == 16 ? col_16 : col_8, 0};
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

/* Its cost grows with K: the CPU path's measured ns a byte at K = 5, and a
 * row and a column tap a sample beyond it. */
static double gauss_cost(const gf_stage *s, const gf_shape *in)
{
    const gf_gauss_params *p = GF_CPARAMS(s, gf_gauss_params);
    return 0.6 + 0.05 * gf_gauss_ksize(p->sigma, p->k, in->bits);
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
