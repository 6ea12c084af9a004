/* morph.c - the morphology stages: --erode, --dilate, --open, --close
 * (K|WxH), on the stencil framework. */
#include "morph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(gf_morph_params) <= GF_STAGE_PARAMS, "morph params");

extern const gf_stage_ops gf_stage_erode, gf_stage_dilate, gf_stage_open, gf_stage_close;

gf_morph_op gf_morph_op_of(const gf_stage *s)
{
    return s->ops == &gf_stage_dilate ? GF_MORPH_DILATE
           : s->ops == &gf_stage_open ? GF_MORPH_OPEN
           : s->ops == &gf_stage_close ? GF_MORPH_CLOSE
                                       : GF_MORPH_ERODE;
}

static int check_args(const gf_image *in, const gf_image *out, gf_morph_op op, int kw, int kh)
{
    if (kw < 1 || kh < 1 || kw > GF_MORPH_MAX_SIDE || kh > GF_MORPH_MAX_SIDE || kw % 2 == 0 ||
        kh % 2 == 0 || (unsigned)op > GF_MORPH_CLOSE || out->width != in->width ||
        out->height != in->height || out->channels != in->channels || out->bits != in->bits ||
        !gf_layout_valid(in->channels, in->bits))
        return gf_err(GF_EINTERNAL, NULL, "morph: bad arguments (window %dx%d)", kw, kh);
    return 0;
}

/* The two passes of op: the maximum (1) or minimum (0) first, then second
 * (-1: none). */
static void passes(gf_morph_op op, int p[2])
{
    p[0] = op == GF_MORPH_DILATE || op == GF_MORPH_CLOSE;
    p[1] = op == GF_MORPH_OPEN ? 1 : op == GF_MORPH_CLOSE ? 0 : -1;
}

/* ---- The reference. */

/* One erosion (max 0) or dilation (max 1) of in into out, separably by the
 * definition (morph.h): each image row padded through the border (w + kw - 1
 * pixels), the minima of every kw of those into rows (h x n values), then
 * the minima of kh of those down each column, rows outside the image read
 * through the border. */
static int gold_pass(const gf_image *in, gf_image *out, int max, int kw, int kh, gf_border b)
{
    const int w = in->width, h = in->height, C = in->channels, rx = kw / 2, ry = kh / 2;
    const size_t n = (size_t)w * (size_t)C;
    uint16_t *rows = malloc(sizeof *rows * n * (size_t)h);
    int failed = 0;

    if (!rows)
        return gf_err(GF_EINTERNAL, NULL, "morph: out of memory");
#pragma omp parallel
    {
        uint16_t *pad = malloc(sizeof *pad * (n + (size_t)(kw - 1) * (size_t)C));
        if (!pad) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (int y = 0; y < h; y++) {
            if (!pad)
                continue;
            for (int x = -rx; x < w + rx; x++)
                for (int c = 0; c < C; c++)
                    pad[(size_t)(x + rx) * (size_t)C + (size_t)c] =
                        (uint16_t)gf_stencil_at(in, x, y, c, b);
            for (size_t i = 0; i < n; i++) {
                unsigned v = pad[i];
                for (int d = 1; d < kw; d++) {
                    const unsigned s = pad[i + (size_t)d * (size_t)C];
                    v = max ? (s > v ? s : v) : (s < v ? s : v);
                }
                rows[(size_t)y * n + i] = (uint16_t)v;
            }
        }
        free(pad);
    }
    if (failed) {
        free(rows);
        return gf_err(GF_EINTERNAL, NULL, "morph: out of memory");
    }
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++) {
        int yy[GF_MORPH_MAX_SIDE]; /* window row dy + ry's image row, or -1 */
        for (int dy = -ry; dy <= ry; dy++)
            yy[dy + ry] = gf_border_index(y + dy, h, b.mode);
        for (size_t i = 0; i < n; i++) {
            unsigned v = max ? 0u : ~0u;
            for (int k = 0; k < kh; k++) {
                const unsigned s = yy[k] < 0 ? (unsigned)b.value : rows[(size_t)yy[k] * n + i];
                v = max ? (s > v ? s : v) : (s < v ? s : v);
            }
            gf_sample_set(out, (int)(i / (size_t)C), y, (int)(i % (size_t)C), v);
        }
    }
    free(rows);
    return 0;
}

int gf_morph_gold(const gf_image *in, gf_image *out, gf_morph_op op, int kw, int kh,
                  gf_border border)
{
    int p[2], rc = check_args(in, out, op, kw, kh);
    gf_image mid = {0};

    if (rc)
        return rc;
    passes(op, p);
    if (p[1] < 0)
        return gold_pass(in, out, p[0], kw, kh, border);
    if ((rc = gf_image_alloc(&mid, in->width, in->height, in->channels, in->bits)) == 0 &&
        (rc = gold_pass(in, &mid, p[0], kw, kh, border)) == 0)
        rc = gold_pass(&mid, out, p[1], kw, kh, border);
    gf_image_free(&mid);
    return rc;
}

/* ---- The fast path. The driver keeps padded rows in its ring (no row
 * rule: np = n + (kw-1) C samples each); the column rule makes each output
 * row in two steps over whole rows, columns first (a rectangle's minimum
 * is the same either way round, and the doubling's intermediate rows need
 * scratch longer than a row rule's output, which only the column rule's
 * acc gives):
 *   columns: t = the minima of the kh window rows, np samples;
 *     kh 1: t is the window's row; kh 3, 5: directly;
 *     else van Herk / Gil-Werman over blocks of kh rows counted from the
 *     band's first window row: the window starting at offset j of block m
 *     is block m's suffix from j (S[j], rows j..kh-1) and block m+1's prefix
 *     to j-1 (P, its rows 0..j-1, which end the window). At j = 0 the
 *     window is block m itself: the rule computes S[kh-1..1] of it (kh-2
 *     minima a sample, once per kh rows) and t = min(row 0, S[1]); at
 *     j >= 1 it adds the window's last row to P and t = min(S[j], P).
 *     About 3 minima a sample whatever kh;
 *   rows: out[i] = the minimum of t[i + d C], d = 0..kw-1, i < n;
 *     kw 1: t itself; kw 3, 5: directly;
 *     else by doubling: a_2[i] = min(t[i], t[i + C]), a_4[i] = min(a_2[i],
 *     a_2[i + 2C]), ... up to a_s, s the largest power of two <= kw, then
 *     out[i] = min(a_s[i], a_s[i + (kw - s) C]): two windows of s that
 *     overlap and cover the kw samples.
 * Scratch, in the driver's acc (a row every ap samples, 64-byte aligned):
 * S[1..kh-1] (kh-1 rows), P, t, two rows for the doubling, and the row
 * count within the block. Every helper loops over whole rows with restrict
 * pointers and locals (no loads through j inside a loop), so that GCC
 * vectorises them (AVX-512, AVX2 or SSE2 by GF_CLONES). */
typedef struct morph_ctx {
    size_t np; /* samples of a padded row: n + (kw - 1) C */
    size_t ap; /* samples from one acc row to the next */
} morph_ctx;

/* acc rows: S[1..kh-1] = rows 0..kh-2, then these, then the counter */
#define ACC_P(kh) ((size_t)(kh) - 1)
#define ACC_T(kh) ((size_t)(kh))
#define ACC_A(kh) ((size_t)(kh) + 1)
#define ACC_B(kh) ((size_t)(kh) + 2)
#define ACC_ROWS(kh) ((size_t)(kh) + 3)

#define MORPH_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MORPH_MAX(a, b) ((a) > (b) ? (a) : (b))

/* The helpers and the column rule for sample type T and operation OP
 * (MORPH_MIN or MORPH_MAX). */
#define MORPH_RULES(SUF, T, OP)                                                               \
    /* o[i] = OP(a[i], b[i]) */                                                               \
    GF_CLONES static void two_##SUF(T *restrict o, const T *restrict a, const T *restrict b,  \
                                    size_t len)                                               \
    {                                                                                         \
        for (size_t i = 0; i < len; i++)                                                      \
            o[i] = OP(a[i], b[i]);                                                            \
    }                                                                                         \
    /* o[i] = OP(a[i], a[i + s]) */                                                           \
    GF_CLONES static void shift_##SUF(T *restrict o, const T *restrict a, size_t len,         \
                                      size_t s)                                               \
    {                                                                                         \
        const T *restrict b = a + s;                                                          \
        for (size_t i = 0; i < len; i++)                                                      \
            o[i] = OP(a[i], b[i]);                                                            \
    }                                                                                         \
    /* the columns of 3 or 5 rows */                                                          \
    GF_CLONES static void rows3_##SUF(T *restrict o, const T *const *w, size_t len)           \
    {                                                                                         \
        const T *restrict a = w[0], *restrict b = w[1], *restrict c = w[2];                   \
        for (size_t i = 0; i < len; i++)                                                      \
            o[i] = OP(OP(a[i], b[i]), c[i]);                                                  \
    }                                                                                         \
    GF_CLONES static void rows5_##SUF(T *restrict o, const T *const *w, size_t len)           \
    {                                                                                         \
        const T *restrict a = w[0], *restrict b = w[1], *restrict c = w[2],                   \
                          *restrict d = w[3], *restrict e = w[4];                             \
        for (size_t i = 0; i < len; i++)                                                      \
            o[i] = OP(OP(OP(a[i], b[i]), OP(c[i], d[i])), e[i]);                              \
    }                                                                                         \
    /* van Herk's step: p = OP(P, row); P = p; o = OP(S, p) */                                \
    GF_CLONES static void step_##SUF(T *restrict o, T *restrict P, const T *restrict S,       \
                                     const T *restrict row, size_t len)                       \
    {                                                                                         \
        for (size_t i = 0; i < len; i++) {                                                    \
            const T p = OP(P[i], row[i]);                                                     \
            P[i] = p;                                                                         \
            o[i] = OP(S[i], p);                                                               \
        }                                                                                     \
    }                                                                                         \
    /* the rows of 3 or 5 samples C apart */                                                  \
    GF_CLONES static void win3_##SUF(T *restrict o, const T *restrict t, size_t n, size_t C)  \
    {                                                                                         \
        const T *restrict t1 = t + C, *restrict t2 = t + 2 * C;                               \
        for (size_t i = 0; i < n; i++)                                                        \
            o[i] = OP(OP(t[i], t1[i]), t2[i]);                                                \
    }                                                                                         \
    GF_CLONES static void win5_##SUF(T *restrict o, const T *restrict t, size_t n, size_t C)  \
    {                                                                                         \
        const T *restrict t1 = t + C, *restrict t2 = t + 2 * C, *restrict t3 = t + 3 * C,     \
                          *restrict t4 = t + 4 * C;                                           \
        for (size_t i = 0; i < n; i++)                                                        \
            o[i] = OP(OP(OP(t[i], t1[i]), OP(t2[i], t3[i])), t4[i]);                          \
    }                                                                                         \
    static void col_##SUF(const gf_stencil_job *j, const void *const *win, const void *gone,  \
                          const unsigned char *src, unsigned char *out, void *accv, int first)   \
    {                                                                                         \
        const morph_ctx *m = j->ctx;                                                          \
        const size_t n = j->n, np = m->np, ap = m->ap, C = (size_t)j->channels;               \
        const int kw = j->kw, kh = j->kh;                                                     \
        const T *const *wr = (const T *const *)win;                                           \
        T *acc = accv, *o = (T *)(void *)out, *tb = acc + ACC_T(kh) * ap;                     \
        const T *t = tb;                                                                      \
        (void)gone, (void)src;                                                                \
        if (kh == 1) {                                                                        \
            t = wr[0];                                                                        \
        } else if (kh == 3) {                                                                 \
            rows3_##SUF(tb, wr, np);                                                          \
        } else if (kh == 5) {                                                                 \
            rows5_##SUF(tb, wr, np);                                                          \
        } else {                                                                              \
            size_t *count = (size_t *)(void *)(acc + ACC_ROWS(kh) * ap);                      \
            const size_t jj = first ? 0 : *count;                                             \
            T *S = acc, *P = acc + ACC_P(kh) * ap; /* S[i] is row i - 1 */                    \
            *count = jj + 1 == (size_t)kh ? 0 : jj + 1;                                       \
            if (jj == 0) {                                                                    \
                memcpy(S + (size_t)(kh - 2) * ap, wr[kh - 1], np * sizeof(T));                \
                for (int i = kh - 2; i >= 1; i--)                                             \
                    two_##SUF(S + (size_t)(i - 1) * ap, wr[i], S + (size_t)i * ap, np);       \
                two_##SUF(tb, wr[0], S, np);                                                  \
            } else if (jj == 1) {                                                             \
                memcpy(P, wr[kh - 1], np * sizeof(T));                                        \
                two_##SUF(tb, S, P, np);                                                      \
            } else {                                                                          \
                step_##SUF(tb, P, S + (jj - 1) * ap, wr[kh - 1], np);                         \
            }                                                                                 \
        }                                                                                     \
        if (kw == 1) {                                                                        \
            memcpy(o, t, n * sizeof(T));                                                      \
        } else if (kw == 3) {                                                                 \
            win3_##SUF(o, t, n, C);                                                           \
        } else if (kw == 5) {                                                                 \
            win5_##SUF(o, t, n, C);                                                           \
        } else {                                                                              \
            T *buf[2] = {acc + ACC_A(kh) * ap, acc + ACC_B(kh) * ap};                         \
            size_t len = np - C, s = 2;                                                       \
            int cur = 0;                                                                      \
            shift_##SUF(buf[0], t, len, C);                                                   \
            while (2 * s <= (size_t)kw) {                                                     \
                shift_##SUF(buf[1 - cur], buf[cur], len - s * C, s * C);                      \
                len -= s * C;                                                                 \
                s *= 2;                                                                       \
                cur = 1 - cur;                                                                \
            }                                                                                 \
            shift_##SUF(o, buf[cur], n, ((size_t)kw - s) * C);                                \
        }                                                                                     \
    }

MORPH_RULES(min8, uint8_t, MORPH_MIN)
MORPH_RULES(max8, uint8_t, MORPH_MAX)
MORPH_RULES(min16, uint16_t, MORPH_MIN)
MORPH_RULES(max16, uint16_t, MORPH_MAX)

/* One erosion (max 0) or dilation (max 1) on the driver; out may be in. */
static int cpu_pass(const gf_image *in, gf_image *out, int max, int kw, int kh, gf_border b)
{
    const size_t n = (size_t)in->width * (size_t)in->channels, sb = (size_t)in->bits / 8;
    const size_t np = n + (size_t)(kw - 1) * (size_t)in->channels;
    const morph_ctx m = {np, (np * sb + 63) / 64 * 64 / sb};
    /* the acc rows and the counter, in bytes, over n samples */
    const size_t acc = ACC_ROWS(kh) * m.ap * sb + 64;
    const gf_stencil_cpu r = {
        NULL, 0,
        in->bits == 8 ? (max ? col_max8 : col_min8) : (max ? col_max16 : col_min16),
        (acc + n - 1) / n};
    const gf_stencil_job j = {NULL, &m, in->width, in->height, in->channels, in->bits,
                              kw,   kh, b,         n};

    return gf_stencil_cpu_run(&r, &j, in, out);
}

int gf_morph_cpu(const gf_image *in, gf_image *out, gf_morph_op op, int kw, int kh,
                 gf_border border)
{
    int p[2], rc = check_args(in, out, op, kw, kh);

    if (rc)
        return rc;
    passes(op, p);
    if ((rc = cpu_pass(in, out, p[0], kw, kh, border)) || p[1] < 0)
        return rc;
    return cpu_pass(out, out, p[1], kw, kh, border);
}

/* ---- The stages. */

static int morph_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_morph_params *p = GF_CPARAMS(s, gf_morph_params);
    return gf_morph_gold(in, out, gf_morph_op_of(s), p->kw, p->kh, p->border);
}

static int morph_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_morph_params *p = GF_CPARAMS(s, gf_morph_params);
    return gf_morph_cpu(in, out, gf_morph_op_of(s), p->kw, p->kh, p->border);
}

static int morph_in_place(const gf_stage *s, gf_image *img)
{
    return morph_cpu(s, img, img);
}

static void morph_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_morph_params *p = GF_CPARAMS(s, gf_morph_params);
    if (p->kw == p->kh)
        snprintf(buf, n, "%s %d", s->ops->name, p->kw);
    else
        snprintf(buf, n, "%s %dx%d", s->ops->name, p->kw, p->kh);
}

static int morph_unchanged(const gf_stage *s, const gf_shape *in)
{
    const gf_morph_params *p = GF_CPARAMS(s, gf_morph_params);
    (void)in;
    return p->kw == 1 && p->kh == 1;
}

static int parse_window(gf_stage *s, const char *opt, const char *arg)
{
    gf_morph_params *p = GF_PARAMS(s, gf_morph_params);

    p->border.mode = GF_BORDER_REPLICATE;
    return gf_stencil_parse_window(opt, arg, 1, GF_MORPH_MAX_SIDE, &p->kw, &p->kh);
}

static int parse_erode(gf_stage *s, const char *arg)
{
    return parse_window(s, "--erode", arg);
}

static int parse_dilate(gf_stage *s, const char *arg)
{
    return parse_window(s, "--dilate", arg);
}

static int parse_open(gf_stage *s, const char *arg)
{
    return parse_window(s, "--open", arg);
}

static int parse_close(gf_stage *s, const char *arg)
{
    return parse_window(s, "--close", arg);
}

/* Test configurations: 3x3 and 5x5 with every border mode (a random
 * constant within 8 bits, so it suits every layout), 15x15, 7x3 and 1x9
 * (the cheap ones, MORPH_LARGE_CONFIGS), then 63x63 and 31x5, whose gold
 * is slow on large images; bench: 3, 15 and 63, replicate. */
#define MORPH_LARGE_CONFIGS 9

static int morph_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    static const int sizes[][2] = {{3, 3}, {5, 5}, {15, 15}, {7, 3}, {1, 9}, {63, 63}, {31, 5}};
    static const int bench_sides[] = {3, 15, 63};
    gf_morph_params *p = GF_PARAMS(s, gf_morph_params);

    if (i >= (bench ? 3 : 11))
        return 0;
    if (bench) {
        p->kw = p->kh = bench_sides[i];
        p->border.mode = GF_BORDER_REPLICATE;
    } else if (i < 6) {
        p->kw = p->kh = sizes[i / 3][0];
        p->border.mode = modes[i % 3];
    } else {
        p->kw = sizes[i - 4][0];
        p->kh = sizes[i - 4][1];
        p->border.mode = modes[i % 3];
    }
    p->border.value = p->border.mode == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

#define MORPH_OPTS(NAME, PARSE, HELP)                                                         \
    static const gf_stage_opt NAME##_opts[] = {                                               \
        {#NAME, "K|WxH", HELP, GF_OPT_ADD, PARSE},                                            \
        GF_STENCIL_BORDER_OPT,                                                                \
        {NULL, NULL, NULL, 0, NULL},                                                          \
    };
MORPH_OPTS(erode, parse_erode,
           "erosion: the minimum of each channel over a K x K or W x H rectangle (odd, 1-63)")
MORPH_OPTS(dilate, parse_dilate,
           "dilation: the maximum of each channel over a K x K or W x H rectangle (odd, 1-63)")
MORPH_OPTS(open, parse_open, "opening: erosion, then dilation, K x K or W x H (odd, 1-63)")
MORPH_OPTS(close, parse_close, "closing: dilation, then erosion, K x K or W x H (odd, 1-63)")

static const gf_variant morph_variants[] = {
    {"global", GF_CUDA(gf_morph_global_cuda)},
    {"vanherk", GF_CUDA(gf_morph_vanherk_cuda)},
    {"fused", GF_CUDA(gf_morph_fused_cuda)},
    {"packed", GF_CUDA(gf_morph_packed_cuda)},
    {NULL, NULL},
};

/* packed: the fastest at 3x3 (H100, 8000x8000 gray 8-bit: 0.107 ms against
 * vanherk's 0.154, 2026-12-07; RGB and 16-bit further ahead); every other
 * window runs vanherk's passes (docs/benchmarks.md). */
static const gf_default morph_defaults[] = {
    {0, 0, "packed"},
    {0, 0, NULL},
};

/* cpu_cost: ns per input byte on one thread, 5120x2880 8-bit gray and RGB,
 * 3x3 to 63x63 (the passes of open and close count twice). */
#define MORPH_STAGE(NAME, COST)                                                               \
    const gf_stage_ops gf_stage_##NAME = {                                                    \
        .cpu_cost = (COST),                                                                   \
        .name = #NAME,                                                                        \
        .group = "morph",                                                                     \
        .opts = NAME##_opts,                                                                  \
        .variants = morph_variants,                                                           \
        .defaults = morph_defaults,                                                           \
        .layouts = GF_LAYOUTS_ALL,                                                            \
        .check = gf_stencil_check,                                                            \
        .unchanged = morph_unchanged,                                                         \
        .label = morph_label,                                                                 \
        .gold = morph_gold,                                                                   \
        .cpu = morph_cpu,                                                                     \
        .cpu_in_place = morph_in_place,                                                       \
        .config = morph_config,                                                               \
        .large_configs = MORPH_LARGE_CONFIGS,                                                 \
    };
MORPH_STAGE(erode, 0.25)
MORPH_STAGE(dilate, 0.25)
MORPH_STAGE(open, 0.5)
MORPH_STAGE(close, 0.5)
