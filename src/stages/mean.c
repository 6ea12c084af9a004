/* mean.c - the box mean stage: --mean 3|5 and --border MODE. */
#include "mean.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RADIUS 2

_Static_assert(sizeof(gf_mean_params) <= GF_STAGE_PARAMS, "mean params");

static int check_args(const gf_image *in, const gf_image *out, int ksize)
{
    if ((ksize != 3 && ksize != 5) || out->width != in->width || out->height != in->height ||
        out->channels != in->channels || out->bits != in->bits)
        return gf_err(GF_EINTERNAL, NULL, "mean: bad arguments (ksize %d)", ksize);
    return 0;
}

int gf_mean_gold(const gf_image *in, gf_image *out, int ksize, gf_border border)
{
    const int w = in->width, h = in->height, r = ksize / 2, area = ksize * ksize;
    int rc = check_args(in, out, ksize);

    if (rc)
        return rc;
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < in->channels; c++) {
                unsigned s = 0;
                for (int dy = -r; dy <= r; dy++)
                    for (int dx = -r; dx <= r; dx++) {
                        int xx = gf_border_index(x + dx, w, border.mode);
                        int yy = gf_border_index(y + dy, h, border.mode);
                        s += xx < 0 || yy < 0 ? (unsigned)border.value : gf_sample(in, xx, yy, c);
                    }
                gf_sample_set(out, x, y, c, (2 * s + (unsigned)area) / (2 * (unsigned)area));
            }
    return 0;
}

/* The fast path, one output row at a time: the column sums of the K window
 * rows for every sample of the row into c[r C .. r C + w C), the border
 * pixels' into the r C places each side, then each sample from the K
 * column sums a pixel (C samples) apart. Written once per sample type T
 * with sums of type S (16 bits hold 5 * 255, 32 bits 5 * 65535), for each
 * K and channel count C as constants, so that the compiler turns the loops
 * into vector code (the division a multiply-high), for AVX2 and for the
 * baseline x86-64 alike (target_clones). */
#define COLSUMS(NAME, T, S, K)                                                                \
    GF_CLONES static void NAME(const unsigned char *const *restrict rows, void *cv, size_t off, \
                               size_t n)                                                      \
    {                                                                                         \
        S *restrict c = cv;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                      \
            S s = 0;                                                                          \
            for (int k = 0; k < (K); k++)                                                     \
                s += ((const T *)(const void *)rows[k])[i];                                   \
            c[off + i] = s;                                                                   \
        }                                                                                     \
    }
#define ROUND_ROW(NAME, T, S, K, C)                                                           \
    GF_CLONES static void NAME(const void *cv, unsigned char *restrict dst, size_t n)         \
    {                                                                                         \
        const S *restrict c = cv;                                                             \
        T *restrict o = (T *)(void *)dst;                                                     \
        for (size_t i = 0; i < n; i++) {                                                      \
            S s = 0;                                                                          \
            for (int k = 0; k < (K); k++)                                                     \
                s += c[i + (size_t)k * (C)];                                                  \
            o[i] = (T)((S)(2 * s + (K) * (K)) / (S)(2 * (K) * (K)));                          \
        }                                                                                     \
    }

COLSUMS(colsums3_8, uint8_t, uint16_t, 3)
COLSUMS(colsums5_8, uint8_t, uint16_t, 5)
COLSUMS(colsums3_16, uint16_t, uint32_t, 3)
COLSUMS(colsums5_16, uint16_t, uint32_t, 5)
#define ROUND_ROWS(C)                                                                         \
    ROUND_ROW(round3_8_c##C, uint8_t, uint16_t, 3, C)                                         \
    ROUND_ROW(round5_8_c##C, uint8_t, uint16_t, 5, C)                                         \
    ROUND_ROW(round3_16_c##C, uint16_t, uint32_t, 3, C)                                       \
    ROUND_ROW(round5_16_c##C, uint16_t, uint32_t, 5, C)
ROUND_ROWS(1)
ROUND_ROWS(2)
ROUND_ROWS(3)
ROUND_ROWS(4)

typedef void (*colsums_fn)(const unsigned char *const *, void *, size_t, size_t);
typedef void (*round_fn)(const void *, unsigned char *, size_t);

/* The row functions for K (3 or 5), C channels and bits. */
static void row_fns(int k, int channels, int bits, colsums_fn *cs, round_fn *rf)
{
    static const colsums_fn colsums[2][2] = {{colsums3_8, colsums5_8},
                                             {colsums3_16, colsums5_16}};
    static const round_fn rounds[2][2][4] = {
        {{round3_8_c1, round3_8_c2, round3_8_c3, round3_8_c4},
         {round5_8_c1, round5_8_c2, round5_8_c3, round5_8_c4}},
        {{round3_16_c1, round3_16_c2, round3_16_c3, round3_16_c4},
         {round5_16_c1, round5_16_c2, round5_16_c3, round5_16_c4}}};
    *cs = colsums[bits / 16][k / 5];
    *rf = rounds[bits / 16][k / 5][channels - 1];
}

int gf_mean_cpu(const gf_image *in, gf_image *out, int ksize, gf_border border)
{
    const int w = in->width, h = in->height, r = ksize / 2, ch = in->channels;
    const size_t n = (size_t)w * (size_t)ch, sb = in->bits / 8, ssum = in->bits == 8 ? 2 : 4;
    int failed = 0, rc = check_args(in, out, ksize);
    colsums_fn colsums;
    round_fn round_row;

    if (rc)
        return rc;
    row_fns(ksize, ch, in->bits, &colsums, &round_row);
#pragma omp parallel reduction(| : failed) if (GF_PARALLEL(w, h))
    {
        /* column sums with r border pixels each side; a row of the
         * constant border's value, for window rows outside the image */
        unsigned char *c = malloc((n + 2 * MAX_RADIUS * (size_t)ch) * ssum);
        unsigned char *konst = malloc(n * sb);
        const unsigned char *rows[2 * MAX_RADIUS + 1];

        if (!c || !konst) {
            failed = 1;
        } else {
            for (size_t i = 0; i < n; i++)
                if (sb == 1)
                    konst[i] = (unsigned char)border.value;
                else
                    ((uint16_t *)(void *)konst)[i] = (uint16_t)border.value;
        }
#pragma omp for schedule(static)
        for (int y = 0; y < h; y++) {
            if (failed)
                continue;
            for (int dy = -r; dy <= r; dy++) {
                int yy = gf_border_index(y + dy, h, border.mode);
                rows[dy + r] = yy < 0 ? konst : in->data + (size_t)yy * in->stride;
            }
            colsums(rows, c, (size_t)r * ch, n);
            /* the border pixels' column sums, r a side */
            for (int x = -r; x < w + r; x++) {
                int xx = gf_border_index(x, w, border.mode);
                if (x >= 0 && x < w)
                    continue;
                for (int k = 0; k < ch; k++) {
                    const size_t to = (size_t)(x + r) * ch + k, from = (size_t)(xx + r) * ch + k;
                    const unsigned v = (unsigned)(ksize * border.value);
                    if (ssum == 2)
                        ((uint16_t *)(void *)c)[to] =
                            xx < 0 ? (uint16_t)v : ((uint16_t *)(void *)c)[from];
                    else
                        ((uint32_t *)(void *)c)[to] = xx < 0 ? v : ((uint32_t *)(void *)c)[from];
                }
            }
            round_row(c, out->data + (size_t)y * out->stride, n);
        }
        free(c);
        free(konst);
    }
    if (failed)
        return gf_err(GF_EINTERNAL, NULL, "mean: out of memory");
    return 0;
}

static int mean_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    return gf_mean_gold(in, out, p->ksize, p->border);
}

static int mean_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    return gf_mean_cpu(in, out, p->ksize, p->border);
}

static void mean_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "mean %d", GF_CPARAMS(s, gf_mean_params)->ksize);
}

/* A constant border's value must be a sample of the image. */
static int mean_check(const gf_stage *s, const gf_shape *in)
{
    const gf_border *b = &GF_CPARAMS(s, gf_mean_params)->border;

    if (b->mode == GF_BORDER_CONSTANT && (unsigned)b->value > gf_sample_max(in->bits))
        return gf_err(GF_EUSAGE, NULL,
                      "--border constant=%d is above %u, the largest sample of a %s image",
                      b->value, gf_sample_max(in->bits), gf_layout_words(in->channels, in->bits));
    return 0;
}

static int parse_mean(gf_stage *s, const char *arg)
{
    gf_mean_params *p = GF_PARAMS(s, gf_mean_params);

    if (strcmp(arg, "3") && strcmp(arg, "5"))
        return gf_err(GF_EUSAGE, NULL, "--mean: size must be 3 or 5, not '%s'", arg);
    p->ksize = arg[0] - '0';
    p->border.mode = GF_BORDER_REPLICATE;
    return 0;
}

/* --border MODE: replicate, reflect101, constant or constant=V. */
static int parse_border(gf_stage *s, const char *arg)
{
    gf_border *b = &GF_PARAMS(s, gf_mean_params)->border;

    b->value = 0;
    if (!strcmp(arg, "replicate"))
        b->mode = GF_BORDER_REPLICATE;
    else if (!strcmp(arg, "reflect101"))
        b->mode = GF_BORDER_REFLECT101;
    else if (!strcmp(arg, "constant"))
        b->mode = GF_BORDER_CONSTANT;
    else if (!strncmp(arg, "constant=", 9)) {
        b->mode = GF_BORDER_CONSTANT;
        return gf_parse_int("--border constant", arg + 9, 0, 65535, &b->value);
    } else
        return gf_err(GF_EUSAGE, NULL,
                      "--border: '%s' is not replicate, reflect101 or constant[=V]", arg);
    return 0;
}

/* Test configurations: both sizes with every border mode (a random
 * constant within 8 bits, so it suits every layout); bench: both sizes,
 * replicate. */
static int mean_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    gf_mean_params *p = GF_PARAMS(s, gf_mean_params);

    if (i >= (bench ? 2 : 6))
        return 0;
    p->ksize = i % 2 ? 5 : 3;
    p->border.mode = modes[i / 2];
    p->border.value = p->border.mode == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

static const gf_stage_opt mean_opts[] = {
    {"mean", "3|5", "box mean (box filter) of 3x3 or 5x5 of each channel, rounded to nearest",
     GF_OPT_ADD, parse_mean},
    {"border", "MODE",
     "how --mean reads outside the image: replicate (default), reflect101, constant[=V]",
     GF_OPT_SETTING, parse_border},
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
    .check = mean_check,
    .label = mean_label,
    .gold = mean_gold,
    .cpu = mean_cpu,
    .config = mean_config,
};
