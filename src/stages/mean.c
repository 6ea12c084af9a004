/* mean.c - the box mean stage: --mean K|WxH, on the stencil framework. */
#include "mean.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(gf_mean_params) <= GF_STAGE_PARAMS, "mean params");

static int check_args(const gf_image *in, const gf_image *out, int kw, int kh)
{
    if (kw < 1 || kh < 1 || kw > GF_MEAN_MAX_SIDE || kh > GF_MEAN_MAX_SIDE || kw % 2 == 0 ||
        kh % 2 == 0 || out->width != in->width || out->height != in->height ||
        out->channels != in->channels || out->bits != in->bits)
        return gf_err(GF_EINTERNAL, NULL, "mean: bad arguments (window %dx%d)", kw, kh);
    return 0;
}

int gf_mean_gold(const gf_image *in, gf_image *out, int kw, int kh, gf_border border)
{
    const int w = in->width, h = in->height, rx = kw / 2, ry = kh / 2;
    const uint64_t area = (uint64_t)kw * (uint64_t)kh;
    int rc = check_args(in, out, kw, kh);

    if (rc)
        return rc;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < in->channels; c++) {
                uint64_t s = 0;
                for (int dy = -ry; dy <= ry; dy++)
                    for (int dx = -rx; dx <= rx; dx++)
                        s += gf_stencil_at(in, x + dx, y + dy, c, border);
                gf_sample_set(out, x, y, c, (unsigned)((2 * s + area) / (2 * area)));
            }
    return 0;
}

/* The fast path's rules. Row rule: the sums of kw samples C apart (the
 * window's pixels) for every sample of the row, into 16-bit ring values for
 * 8-bit images (63 * 255 fits) and 32-bit for 16-bit; short windows add
 * whole shifted rows (loops the compiler turns into vector code), long ones
 * slide a sum along each channel. Column rule: the sums of the kh ring rows,
 * slid down the rows in `acc` (one row in, one out), rounded by
 * gf_mean_div_apply; for 3x3 and 5x5 the sums are added afresh in 16 bits
 * (8-bit) and divided by the constant area, which the compiler turns into a
 * multiply-high. Written once per sample type T and sum type S
 * (target_clones: AVX-512, AVX2 and baseline x86-64). */
#define DIRECT_MAX 15 /* the longest row window added as shifted rows */

#define ROW_RULE(NAME, T, S)                                                                  \
    GF_CLONES static void NAME(const gf_stencil_job *j, const unsigned char *padded,          \
                               void *ringv)                                                   \
    {                                                                                         \
        const T *restrict x = (const T *)(const void *)padded;                                \
        S *restrict o = ringv;                                                                \
        const size_t n = j->n, C = (size_t)j->channels;                                       \
        if (j->kw <= DIRECT_MAX) {                                                            \
            for (size_t i = 0; i < n; i++)                                                    \
                o[i] = x[i];                                                                  \
            for (int k = 1; k < j->kw; k++) {                                                 \
                const T *restrict xk = x + (size_t)k * C;                                     \
                for (size_t i = 0; i < n; i++)                                                \
                    o[i] = (S)(o[i] + xk[i]);                                                 \
            }                                                                                 \
            return;                                                                           \
        }                                                                                     \
        for (size_t c = 0; c < C; c++) {                                                      \
            S s = 0;                                                                          \
            for (int k = 0; k < j->kw; k++)                                                   \
                s = (S)(s + x[c + (size_t)k * C]);                                            \
            o[c] = s;                                                                         \
            for (size_t i = c + C; i < n; i += C) {                                           \
                s = (S)(s + x[i + (size_t)(j->kw - 1) * C] - x[i - C]);                       \
                o[i] = s;                                                                     \
            }                                                                                 \
        }                                                                                     \
    }
ROW_RULE(row_8, uint8_t, uint16_t)
ROW_RULE(row_16, uint16_t, uint32_t)

/* Row sums of K (3 or 5) samples C apart, in one pass. */
#define ROW_K(NAME, T, S, K)                                                                  \
    GF_CLONES static void NAME(const gf_stencil_job *j, const unsigned char *padded,          \
                               void *ringv)                                                   \
    {                                                                                         \
        const T *restrict x = (const T *)(const void *)padded;                                \
        S *restrict o = ringv;                                                                \
        const size_t n = j->n, C = (size_t)j->channels;                                       \
        for (size_t i = 0; i < n; i++) {                                                      \
            S s = 0;                                                                          \
            for (int k = 0; k < (K); k++)                                                     \
                s = (S)(s + x[i + (size_t)k * C]);                                            \
            o[i] = s;                                                                         \
        }                                                                                     \
    }
ROW_K(row3_8, uint8_t, uint16_t, 3)
ROW_K(row5_8, uint8_t, uint16_t, 5)
ROW_K(row3_16, uint16_t, uint32_t, 3)
ROW_K(row5_16, uint16_t, uint32_t, 5)

#define COL_RULE(NAME, T, S)                                                                  \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src, unsigned char *out,   \
                               void *accv, int first)                                         \
    {                                                                                         \
        const size_t n = j->n;                                                                \
        uint32_t *restrict acc = accv;                                                        \
        T *restrict o = (T *)(void *)out;                                                     \
        const gf_mean_div d = gf_mean_div_of((unsigned)(j->kw * j->kh), j->bits);             \
        (void)src;                                                                            \
        if (first) {                                                                          \
            const S *restrict r0 = win[0];                                                    \
            for (size_t i = 0; i < n; i++)                                                    \
                acc[i] = r0[i];                                                               \
            for (int k = 1; k < j->kh; k++) {                                                 \
                const S *restrict rk = win[k];                                                \
                for (size_t i = 0; i < n; i++)                                                \
                    acc[i] += rk[i];                                                          \
            }                                                                                 \
        } else {                                                                              \
            const S *restrict in = win[j->kh - 1], *restrict old = gone;                      \
            for (size_t i = 0; i < n; i++)                                                    \
                acc[i] += (uint32_t)in[i] - (uint32_t)old[i];                                 \
        }                                                                                     \
        for (size_t i = 0; i < n; i++)                                                        \
            o[i] = (T)(((uint64_t)(acc[i] + d.add) * d.m) >> d.shift);                        \
    }
COL_RULE(col_8, uint8_t, uint16_t)
COL_RULE(col_16, uint16_t, uint32_t)

/* K x K with K 3 or 5: the sum of K ring rows in S, over the constant area. */
#define COL_K(NAME, T, S, K)                                                                  \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src, unsigned char *out,   \
                               void *acc, int first)                                          \
    {                                                                                         \
        T *restrict o = (T *)(void *)out;                                                     \
        const S *restrict r[K];                                                               \
        const size_t n = j->n; /* before the stores, which may alias *j */                  \
        (void)gone, (void)src, (void)acc, (void)first;                                        \
        for (int k = 0; k < (K); k++)                                                         \
            r[k] = win[k];                                                                    \
        for (size_t i = 0; i < n; i++) {                                                      \
            S s = 0;                                                                          \
            for (int k = 0; k < (K); k++)                                                     \
                s += r[k][i];                                                                 \
            o[i] = (T)((S)(2 * s + (K) * (K)) / (S)(2 * (K) * (K)));                          \
        }                                                                                     \
    }
COL_K(col3_8, uint8_t, uint16_t, 3)
COL_K(col5_8, uint8_t, uint16_t, 5)
COL_K(col3_16, uint16_t, uint32_t, 3)
COL_K(col5_16, uint16_t, uint32_t, 5)

int gf_mean_cpu(const gf_image *in, gf_image *out, int kw, int kh, gf_border border)
{
    const int k = kw == kh && (kw == 3 || kw == 5) ? kw : 0, b16 = in->bits == 16;
    gf_stencil_cpu r = {b16 ? row_16 : row_8, b16 ? 4 : 2, b16 ? col_16 : col_8, 4};
    const gf_stencil_job j = {NULL,   NULL, in->width, in->height,
                              in->channels, in->bits, kw, kh, border,
                              (size_t)in->width * (size_t)in->channels};
    int rc = check_args(in, out, kw, kh);

    if (rc)
        return rc;
    if (k) {
        r.row = k == 3 ? (b16 ? row3_16 : row3_8) : (b16 ? row5_16 : row5_8);
        r.col = k == 3 ? (b16 ? col3_16 : col3_8) : (b16 ? col5_16 : col5_8);
    }
    return gf_stencil_cpu_run(&r, &j, in, out);
}

static int mean_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    return gf_mean_gold(in, out, p->kw, p->kh, p->border);
}

static int mean_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    return gf_mean_cpu(in, out, p->kw, p->kh, p->border);
}

static int mean_in_place(const gf_stage *s, gf_image *img)
{
    return mean_cpu(s, img, img);
}

static void mean_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    if (p->kw == p->kh)
        snprintf(buf, n, "mean %d", p->kw);
    else
        snprintf(buf, n, "mean %dx%d", p->kw, p->kh);
}

static int mean_unchanged(const gf_stage *s, const gf_shape *in)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    (void)in;
    return p->kw == 1 && p->kh == 1;
}

static int parse_mean(gf_stage *s, const char *arg)
{
    gf_mean_params *p = GF_PARAMS(s, gf_mean_params);

    p->border.mode = GF_BORDER_REPLICATE;
    return gf_stencil_parse_window("--mean", arg, 1, GF_MEAN_MAX_SIDE, &p->kw, &p->kh);
}

/* Test configurations: 3x3 and 5x5 with every border mode (a random
 * constant within 8 bits, so it suits every layout), then 1x1, a wide and
 * a tall window and a random one (up to 15 a side, that the gold stays
 * quick on large images); bench: 3x3 and 5x5, replicate. */
static int mean_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    static const int extra[][2] = {{1, 1}, {7, 3}, {1, 9}};
    gf_mean_params *p = GF_PARAMS(s, gf_mean_params);

    if (i >= (bench ? 2 : 10))
        return 0;
    if (i < 6) {
        p->kw = p->kh = i % 2 ? 5 : 3;
        p->border.mode = modes[i / 2];
    } else {
        p->kw = i < 9 ? extra[i - 6][0] : 1 + 2 * (int)(gf_rand(rng) % 8);
        p->kh = i < 9 ? extra[i - 6][1] : 1 + 2 * (int)(gf_rand(rng) % 8);
        p->border.mode = modes[i % 3];
    }
    p->border.value = p->border.mode == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

static const gf_stage_opt mean_opts[] = {
    {"mean", "K|WxH",
     "box mean (box filter) of K x K or W x H (odd, 1-63) of each channel, rounded to nearest",
     GF_OPT_ADD, parse_mean},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant mean_variants[] = {
    {"global", GF_CUDA(gf_mean_global_cuda)},
    {"shared", GF_CUDA(gf_mean_shared_cuda)},
    {"warp", GF_CUDA(gf_mean_warp_cuda)},
    {NULL, NULL},
};

static const gf_default mean_defaults[] = {
    {0, 0, "warp"}, /* see docs/benchmarks.md */
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_mean = {
    .cpu_cost = 0.45,
    .name = "mean",
    .group = "mean",
    .opts = mean_opts,
    .variants = mean_variants,
    .defaults = mean_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = gf_stencil_check,
    .unchanged = mean_unchanged,
    .label = mean_label,
    .gold = mean_gold,
    .cpu = mean_cpu,
    .cpu_in_place = mean_in_place,
    .config = mean_config,
};
