/* resize.c - the resize stage: --resize GEOMETRY and --filter NAME
 * (src/stages/resize.h states the rule: Pillow 9.4's Image.resize). The
 * weights are computed here, once per axis, for the CPU paths and the CUDA
 * launcher alike. */
#include "resize.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if GF_X86
#include <immintrin.h>
#endif

_Static_assert(sizeof(gf_resize_params) <= GF_STAGE_PARAMS, "resize params");

int gf_resize_simd = 2;

const char *const gf_resize_filter_names[GF_FILTER_COUNT] = {
    "nearest", "box", "bilinear", "hamming", "bicubic", "lanczos",
};

/* The filters of Pillow's Resample.c, as functions of the distance x in
 * source pixels (scaled by the shrink factor), and their supports. */
static double box_w(double x)
{
    return x > -0.5 && x <= 0.5 ? 1.0 : 0.0;
}

static double bilinear_w(double x)
{
    x = fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

static double hamming_w(double x)
{
    x = fabs(x);
    if (x == 0.0)
        return 1.0;
    if (x >= 1.0)
        return 0.0;
    x *= M_PI;
    /* the window's constants are single-precision literals in Pillow */
    return sin(x) / x * (0.54f + 0.46f * cos(x));
}

static double bicubic_w(double x)
{
    const double a = -0.5; /* Keys's cubic convolution */
    x = fabs(x);
    if (x < 1.0)
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0)
        return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

static double sinc(double x)
{
    if (x == 0.0)
        return 1.0;
    x *= M_PI;
    return sin(x) / x;
}

static double lanczos_w(double x)
{
    return -3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0;
}

static const struct {
    double (*w)(double);
    double support;
} filters[GF_FILTER_COUNT] = {
    {NULL, 0.0},       {box_w, 0.5},     {bilinear_w, 1.0},
    {hamming_w, 1.0},  {bicubic_w, 2.0}, {lanczos_w, 3.0},
};

void gf_resize_axis_free(gf_resize_axis *a)
{
    free(a->first);
    free(a->count);
    free(a->k);
    free(a->k8);
    free(a->src);
    memset(a, 0, sizeof *a);
}

/* Pillow's nearest scaling: the source position accumulated in double. */
static int nearest_axis(gf_resize_axis *a)
{
    const double step = (double)(float)a->in / a->out;
    double pos = 0.0 + step * 0.5;

    if (!(a->src = malloc((size_t)a->out * sizeof *a->src)))
        return gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
    for (int i = 0; i < a->out; i++) {
        const int j = pos < 0.0 ? -1 : (int)pos;
        a->src[i] = j >= 0 && j < a->in ? j : -1;
        pos += step;
    }
    return 0;
}

int gf_resize_axis_init(gf_resize_axis *a, int in, int out, gf_resize_filter f)
{
    double scale, filterscale, support;

    memset(a, 0, sizeof *a);
    a->in = in;
    a->out = out;
    if (f == GF_FILTER_NEAREST)
        return nearest_axis(a);
    /* the box is (0, in) as a float, as Image.resize passes it */
    filterscale = scale = (double)(float)in / out;
    if (filterscale < 1.0)
        filterscale = 1.0;
    support = filters[f].support * filterscale;
    a->ksize = (int)ceil(support) * 2 + 1;
    if ((size_t)out > SIZE_MAX / sizeof(double) / (size_t)a->ksize ||
        !(a->first = malloc((size_t)out * sizeof(int))) ||
        !(a->count = malloc((size_t)out * sizeof(int))) ||
        !(a->k = calloc((size_t)out * (size_t)a->ksize, sizeof(double))) ||
        !(a->k8 = calloc((size_t)out * (size_t)a->ksize, sizeof(int32_t)))) {
        gf_resize_axis_free(a);
        return gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
    }
    for (int i = 0; i < out; i++) {
        const double center = 0.0f + (i + 0.5) * scale, ss = 1.0 / filterscale;
        double *k = a->k + (size_t)i * a->ksize, ww = 0.0;
        int lo = (int)(center - support + 0.5), hi = (int)(center + support + 0.5);
        if (lo < 0)
            lo = 0;
        if (hi > in)
            hi = in;
        hi -= lo;
        for (int j = 0; j < hi; j++) {
            k[j] = filters[f].w((j + lo - center + 0.5) * ss);
            ww += k[j];
        }
        for (int j = 0; j < hi; j++) {
            if (ww != 0.0)
                k[j] /= ww;
            a->k8[(size_t)i * a->ksize + j] =
                (int32_t)(k[j] < 0 ? -0.5 + k[j] * (1 << GF_RESIZE_BITS)
                                   : 0.5 + k[j] * (1 << GF_RESIZE_BITS));
        }
        a->first[i] = lo;
        a->count[i] = hi;
    }
    return 0;
}

int gf_resize_size(const gf_stage *s, int w, int h, int *ow, int *oh)
{
    return gf_geometry_resize(&GF_CPARAMS(s, gf_resize_params)->geom, w, h, ow, oh);
}

void gf_resize_set_size(gf_stage *s, int w, int h)
{
    gf_resize_params *p = GF_PARAMS(s, gf_resize_params);
    p->geom.w = w;
    p->geom.h = h;
    p->geom.flags = GF_GEOM_W | GF_GEOM_H | GF_GEOM_EXACT;
    snprintf(p->text, sizeof p->text, "%dx%d!", w, h);
}

static int check_size(const gf_stage *s, const gf_image *in, const gf_image *out)
{
    int ow, oh;

    if (gf_resize_size(s, in->width, in->height, &ow, &oh) || out->width != ow ||
        out->height != oh || out->channels != in->channels || out->bits != in->bits)
        return gf_err(GF_EINTERNAL, NULL, "resize: output is %dx%d %s for a %dx%d %s input",
                      out->width, out->height, gf_layout_name(out->channels, out->bits),
                      in->width, in->height, gf_layout_name(in->channels, in->bits));
    return 0;
}

/* The alpha channel of a layout premultiplied at 8 bits, or -1. */
static int premul_alpha(int channels, int bits, gf_resize_filter f)
{
    if (bits != 8 || f == GF_FILTER_NEAREST || (channels != 2 && channels != 4))
        return -1;
    return channels - 1;
}

static void copy_image(const gf_image *in, gf_image *out)
{
    const size_t n = (size_t)in->width * GF_PIXEL_BYTES(in->channels, in->bits);
    for (int y = 0; y < in->height; y++)
        memcpy(out->data + (size_t)y * out->stride, in->data + (size_t)y * in->stride, n);
}

/* Nearest: a gather through the two index tables; 0 where Pillow writes
 * nothing. */
static void nearest_image(const gf_resize_axis *ax, const gf_resize_axis *ay, const gf_image *in,
                          gf_image *out)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);

#pragma omp parallel for schedule(static) if (GF_PARALLEL(out->width, out->height))
    for (int y = 0; y < out->height; y++) {
        unsigned char *dst = out->data + (size_t)y * out->stride;
        const int sy = ay->src[y];
        for (int x = 0; x < out->width; x++) {
            if (sy < 0 || ax->src[x] < 0)
                memset(dst + (size_t)x * px, 0, px);
            else
                memcpy(dst + (size_t)x * px, in->data + (size_t)sy * in->stride +
                                                 (size_t)ax->src[x] * px, px);
        }
    }
}

/* What both CPU paths do first: 0 with the two axes' weights for the
 * passes to come; 1 when out is done (a copy at the same size, or nearest),
 * or an error, with nothing left to free. */
static int begin(const gf_stage *s, const gf_image *in, gf_image *out, gf_resize_axis *ax,
                 gf_resize_axis *ay)
{
    const gf_resize_filter f = GF_CPARAMS(s, gf_resize_params)->filter;
    int rc;

    if ((rc = check_size(s, in, out)))
        return rc;
    if (out->width == in->width && out->height == in->height) {
        copy_image(in, out);
        return 1;
    }
    if ((rc = gf_resize_axis_init(ax, in->width, out->width, f)))
        return rc;
    if ((rc = gf_resize_axis_init(ay, in->height, out->height, f))) {
        gf_resize_axis_free(ax);
        return rc;
    }
    if (f != GF_FILTER_NEAREST)
        return 0;
    nearest_image(ax, ay, in, out);
    gf_resize_axis_free(ax);
    gf_resize_axis_free(ay);
    return 1;
}

/* ---- the gold reference: a sample at a time ---- */

/* A source of the gold passes: the input (premultiplied where alpha >= 0)
 * or the row pass's result (w x h x c integers). */
typedef struct gsrc {
    const gf_image *im;
    const int32_t *tmp;
    int w, c, alpha;
} gsrc;

static int32_t gsample(const gsrc *g, int x, int y, int c)
{
    unsigned v;
    if (g->tmp)
        return g->tmp[((size_t)y * g->w + x) * g->c + c];
    v = gf_sample(g->im, x, y, c);
    if (g->alpha >= 0 && c != g->alpha)
        v = gf_resize_premul(v, gf_sample(g->im, x, y, g->alpha));
    return (int32_t)v;
}

/* Output sample i of an axis from the source samples at first..: the
 * fixed-point sum clamped to 8 bits, or the double sum rounded. */
static int32_t gtap(const gf_resize_axis *a, int i, const gsrc *g, int fixed, int c, int horiz)
{
    const int lo = a->first[i], n = a->count[i];
    int32_t ss = 1 << (GF_RESIZE_BITS - 1);
    double sd = 0.0;

    for (int j = 0; j < n; j++) {
        const int32_t v = horiz ? gsample(g, lo + j, fixed, c) : gsample(g, fixed, lo + j, c);
        if (g->im->bits == 8)
            ss += v * a->k8[(size_t)i * a->ksize + j];
        else
            sd += (double)v * a->k[(size_t)i * a->ksize + j];
    }
    return g->im->bits == 8 ? (int32_t)gf_resize_clip8(ss) : gf_resize_round(sd);
}

/* Writes pixel (x, y) of out from its resampled channels v: clamped to 16
 * bits, or divided back by alpha. */
static void gput(gf_image *out, int x, int y, const int32_t *v, int alpha)
{
    for (int c = 0; c < out->channels; c++) {
        unsigned s = (unsigned)v[c];
        if (out->bits == 16)
            s = gf_resize_clip16(v[c]);
        else if (alpha >= 0 && c != alpha)
            s = gf_resize_unpremul(s, (unsigned)v[alpha]);
        gf_sample_set(out, x, y, c, s);
    }
}

int gf_resize_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_resize_params *p = GF_CPARAMS(s, gf_resize_params);
    const int C = in->channels, alpha = premul_alpha(C, in->bits, p->filter);
    const int need_h = out->width != in->width, need_v = out->height != in->height;
    gf_resize_axis ax, ay;
    int32_t *tmp = NULL, v[4];
    int rc;

    if ((rc = begin(s, in, out, &ax, &ay)))
        return rc < 0 ? rc : 0;
    gsrc g = {in, NULL, in->width, C, alpha};
    if (need_h) {
        if (!(tmp = malloc((size_t)out->width * in->height * C * sizeof *tmp))) {
            rc = gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
            goto out;
        }
        for (int y = 0; y < in->height; y++)
            for (int x = 0; x < out->width; x++) {
                for (int c = 0; c < C; c++)
                    v[c] = gtap(&ax, x, &g, y, c, 1);
                if (need_v)
                    memcpy(tmp + ((size_t)y * out->width + x) * C, v, C * sizeof *v);
                else
                    gput(out, x, y, v, alpha);
            }
        g = (gsrc){in, tmp, out->width, C, -1};
    }
    if (need_v)
        for (int y = 0; y < out->height; y++)
            for (int x = 0; x < out->width; x++) {
                for (int c = 0; c < C; c++)
                    v[c] = gtap(&ay, y, &g, x, c, 0);
                gput(out, x, y, v, alpha);
            }
out:
    free(tmp);
    gf_resize_axis_free(&ax);
    gf_resize_axis_free(&ay);
    return rc;
}

/* ---- the CPU backend's path ---- */

/* Premultiplies n pixels of C channels (alpha last) from src into dst. */
static void premul_row(const uint8_t *src, uint8_t *dst, int n, int C)
{
    for (int i = 0; i < n; i++, src += C, dst += C) {
        const unsigned a = src[C - 1];
        for (int c = 0; c < C - 1; c++)
            dst[c] = (uint8_t)gf_resize_premul(src[c], a);
        dst[C - 1] = (uint8_t)a;
    }
}

/* Eight 32-bit sums as one vector (GCC's and clang's vector extensions:
 * one AVX2 register, or two SSE ones in the default clone). */
typedef int32_t i32x8 __attribute__((vector_size(32)));

/* (Written element by element, which GCC and clang compile to one
 * vpmovzxbd; __builtin_convertvector is taken apart lane by lane.) */
static inline __attribute__((always_inline)) i32x8 load_u8x8(const uint8_t *p)
{
    return (i32x8){p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]};
}

/* gf_resize_clip8 of each sum, stored as 8 bytes at p. */
static inline __attribute__((always_inline)) void store_clip8(i32x8 a, uint8_t *p)
{
    const i32x8 zero = {0}, top = zero + 255;
    i32x8 v = a >> GF_RESIZE_BITS, m = v < zero;
    v &= ~m;
    m = v > top;
    v = (v & ~m) | (top & m);
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)v[i];
}

/* Rows a block of the row pass: the block's rows interleaved, sample by
 * sample, so that each tap is one multiply-add of RB sums (one AVX2 vector
 * of 32-bit sums at 8 bits), the weight broadcast. Each sum still adds its
 * taps in Pillow's order. */
#define RB 8
#define RB_MAX 16 /* rows a block of the AVX-512 row pass (below); AVX2 takes RB */

/* Interleaves rows[0..nr) (nr <= RB) of n samples of S into t as D:
 * t[i * RB + r] = rows[r][i], the rows past nr repeating the last; a
 * sample's RB rows stored together (the 16-bit rows as doubles, exact, each
 * sample converted once). */
#define INTERLEAVE(NAME, S, D)                                                                \
    GF_CLONES static void NAME(const S *const *rows, int nr, size_t n, D *restrict t)         \
    {                                                                                         \
        const S *s[RB];                                                                       \
        for (int r = 0; r < RB; r++)                                                          \
            s[r] = rows[r < nr ? r : nr - 1];                                                 \
        for (size_t i = 0; i < n; i++)                                                        \
            for (int r = 0; r < RB; r++)                                                      \
                t[i * RB + r] = (D)s[r][i];                                                   \
    }
INTERLEAVE(interleave_u8, uint8_t, uint8_t)
INTERLEAVE(interleave_f64, uint16_t, double)

/* The row pass of a block at 8 bits: t (interleaved, a->in x C samples a
 * row) -> dst[0..nr) (a->out x C bytes each). */
GF_CLONES static void hblock8(const gf_resize_axis *a, const uint8_t *restrict t, int C,
                              uint8_t *const *dst, int nr)
{
    _Static_assert(RB == 8, "a block is one vector of 8 sums");
    for (int i = 0; i < a->out; i++) {
        const int32_t *k = a->k8 + (size_t)i * a->ksize;
        const int n = a->count[i];
        for (int c = 0; c < C; c++) {
            const uint8_t *s = t + ((size_t)a->first[i] * C + c) * RB;
            const i32x8 zero = {0};
            i32x8 acc = zero + (1 << (GF_RESIZE_BITS - 1));
            uint8_t out[RB];
            for (int j = 0; j < n; j++)
                acc += load_u8x8(s + (size_t)j * C * RB) * (zero + k[j]);
            store_clip8(acc, out);
            for (int r = 0; r < nr; r++)
                dst[r][(size_t)i * C + c] = out[r];
        }
    }
}

/* Output i's C x RB double sums acc to Pillow's integers (int32 rows of the
 * row pass's result) or, when final (no column pass), clamped to the
 * output's samples, in dst[0..nr). */
static void store16(unsigned char *const *dst, int nr, int final, int i, int C,
                    const double *acc)
{
    for (int c = 0; c < C; c++)
        for (int r = 0; r < nr; r++) {
            const int32_t v = gf_resize_round(acc[c * RB + r]);
            if (final)
                ((uint16_t *)(void *)dst[r])[(size_t)i * C + c] = (uint16_t)gf_resize_clip16(v);
            else
                ((int32_t *)(void *)dst[r])[(size_t)i * C + c] = v;
        }
}

/* The row pass of a block at 16 bits: t (interleave_f64, a->in x CC samples
 * a row) -> dst[0..nr), each sum in double in the gold's order (a product,
 * then an add, tap by tap). Two outputs at a time, each channel's RB sums a
 * chain of its own, so that 2 CC chains of adds overlap. */
#define ACC16(CC, acc, s, j, w)                                                               \
    for (int c = 0; c < (CC); c++)                                                            \
        for (int r = 0; r < RB; r++)                                                          \
            acc[c][r] += (s)[((size_t)(j) * (CC) + (size_t)c) * RB + (size_t)r] * (w)
#define HBLOCK16(CC)                                                                          \
    GF_CLONES static void hblock16_##CC(const gf_resize_axis *a, const double *restrict t,    \
                                        unsigned char *const *dst, int nr, int final)         \
    {                                                                                         \
        for (int i = 0; i < a->out; i += 2) {                                                 \
            const int two = i + 1 < a->out;                                                   \
            const double *k0 = a->k + (size_t)i * a->ksize;                                   \
            const double *k1 = two ? k0 + a->ksize : k0;                                      \
            const double *s0 = t + (size_t)a->first[i] * (CC) * RB;                           \
            const double *s1 = two ? t + (size_t)a->first[i + 1] * (CC) * RB : s0;            \
            const int n0 = a->count[i], n1 = two ? a->count[i + 1] : 0;                       \
            double acc0[CC][RB] = {{0}}, acc1[CC][RB] = {{0}};                                \
            int j = 0;                                                                        \
            for (; j < n0 && j < n1; j++) {                                                   \
                ACC16(CC, acc0, s0, j, k0[j]);                                                \
                ACC16(CC, acc1, s1, j, k1[j]);                                                \
            }                                                                                 \
            for (int j0 = j; j0 < n0; j0++)                                                   \
                ACC16(CC, acc0, s0, j0, k0[j0]);                                              \
            for (int j1 = j; j1 < n1; j1++)                                                   \
                ACC16(CC, acc1, s1, j1, k1[j1]);                                              \
            store16(dst, nr, final, i, CC, &acc0[0][0]);                                      \
            if (two)                                                                          \
                store16(dst, nr, final, i + 1, CC, &acc1[0][0]);                              \
        }                                                                                     \
    }
HBLOCK16(1)
HBLOCK16(2)
HBLOCK16(3)
HBLOCK16(4)
static void (*const hblock16[GF_MAX_CHANNELS])(const gf_resize_axis *, const double *,
                                               unsigned char *const *, int, int) = {
    hblock16_1, hblock16_2, hblock16_3, hblock16_4};

/* The column pass of one output row, 8 bits: n samples from the rows
 * rows[0..count) with weights k, into dst. acc: n sums of scratch. */
GF_CLONES static void col8(const uint8_t *const *rows, const int32_t *k, int count, int n,
                           uint8_t *restrict dst)
{
    /* 32 sums at a time, in four vectors, over all the taps */
    const i32x8 zero = {0}, start = zero + (1 << (GF_RESIZE_BITS - 1));
    int x0 = 0;
    for (; x0 + 32 <= n; x0 += 32) {
        i32x8 a0 = start, a1 = start, a2 = start, a3 = start;
        for (int j = 0; j < count; j++) {
            const uint8_t *r = rows[j] + x0;
            const i32x8 w = zero + k[j];
            a0 += load_u8x8(r) * w;
            a1 += load_u8x8(r + 8) * w;
            a2 += load_u8x8(r + 16) * w;
            a3 += load_u8x8(r + 24) * w;
        }
        store_clip8(a0, dst + x0);
        store_clip8(a1, dst + x0 + 8);
        store_clip8(a2, dst + x0 + 16);
        store_clip8(a3, dst + x0 + 24);
    }
    for (int x = x0; x < n; x++) {
        int32_t a = 1 << (GF_RESIZE_BITS - 1);
        for (int j = 0; j < count; j++)
            a += rows[j][x] * k[j];
        dst[x] = (uint8_t)gf_resize_clip8(a);
    }
}

/* The same at 16 bits, from rows of T: Pillow's integers (int32_t, the
 * row pass's) or the input's samples (uint16_t); the double sums in the
 * same order as the gold's. */
#define COL16(T)                                                                              \
    GF_CLONES static void col16_##T(const T *const *rows, const double *k, int count, int n,  \
                                    double *restrict acc, uint16_t *restrict dst)             \
    {                                                                                         \
        for (int i = 0; i < n; i++)                                                           \
            acc[i] = 0.0;                                                                     \
        for (int j = 0; j < count; j++) {                                                     \
            const T *restrict r = rows[j];                                                    \
            const double w = k[j];                                                            \
            for (int i = 0; i < n; i++)                                                       \
                acc[i] += (double)r[i] * w;                                                   \
        }                                                                                     \
        for (int i = 0; i < n; i++)                                                           \
            dst[i] = (uint16_t)gf_resize_clip16(gf_resize_round(acc[i]));                     \
    }
COL16(int32_t)
COL16(uint16_t)

/* ---- the 8-bit passes on AVX2 and AVX-512 ----
 * Each tap pair is one vpmaddwd: Pillow's sum ss = 2^21 + sum_j k_j x_j (k_j
 * the 22-bit weights, x_j the samples) is an integer below 2^31 in
 * magnitude, and with k_j = 2^11 h_j + l_j (l_j = k_j mod 2^11 in 0..2047,
 * h_j in -2048..2048: both 16-bit) it is 2^11 sum_j h_j x_j + sum_j l_j x_j,
 * both sums and the whole taken mod 2^32 in 32-bit lanes: the same ss,
 * whatever the count of taps.
 * The row pass, RV rows a block (16 on AVX-512, a 64-byte vector of 32-bit
 * lanes; 8 on AVX2), a channel at a time:
 *   the pairs: output i's taps from first_i, taken two sources at a time
 *     from the even one at or below first_i (a leading weight 0 when
 *     first_i is odd, a trailing 0 when the last pair passes the last tap):
 *     pair q of a channel is its sources 2q and 2q + 1;
 *   the block: each row's channel c as a plane (zero past the row), then
 *     the planes' pairs transposed (8 x 8 16-bit words at a time) and
 *     widened, so that a vector holds pair q of the RV rows, a row a 32-bit
 *     lane of two 16-bit samples; vpmaddwd of it with the pair's two
 *     weights (l or h) gives the rows' two products summed;
 *   the results: RV bytes an output sample (a byte a row), transposed back
 *     into the rows.
 * The column pass: two rows at a time, their samples widened to 16 bits and
 * interleaved (row j, row j + 1) in 32-bit lanes. */
#if GF_X86
#define AVX2_INLINE GF_AVX2_FN static inline __attribute__((always_inline))
#define AVX512_INLINE GF_AVX512_FN static inline __attribute__((always_inline))

/* Output i's pairs of one axis: its first pair q0[i], its pairs np[i], and
 * w[(i * kp + p) * 2 + 0 / 1] the l and h weights of its pair p, each the
 * even source's 16 bits then the odd one's. */
typedef struct {
    int *q0, *np, kp;
    int32_t *w;
} pair_axis;

/* The l and h weight planes of taps ka, kb (a pair: ka the even source's)
 * as two 16-bit halves each. */
static void split_pair(int32_t ka, int32_t kb, int32_t *l, int32_t *h)
{
    *l = (int32_t)((uint32_t)(ka & 2047) | (uint32_t)(kb & 2047) << 16);
    *h = (int32_t)((uint32_t)(uint16_t)(ka >> 11) | (uint32_t)(uint16_t)(kb >> 11) << 16);
}

static void pair_axis_free(pair_axis *t)
{
    free(t->q0);
    free(t->np);
    free(t->w);
}

static int pair_axis_init(pair_axis *t, const gf_resize_axis *a)
{
    t->kp = a->ksize / 2 + 1;
    t->q0 = malloc((size_t)a->out * sizeof *t->q0);
    t->np = malloc((size_t)a->out * sizeof *t->np);
    t->w = malloc((size_t)a->out * (size_t)t->kp * 2 * sizeof *t->w);
    if (!t->q0 || !t->np || !t->w) {
        pair_axis_free(t);
        return gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
    }
    for (int i = 0; i < a->out; i++) {
        const int f = a->first[i], n = a->count[i], odd = f & 1;
        const int32_t *k = a->k8 + (size_t)i * a->ksize;
        t->q0[i] = f >> 1;
        t->np[i] = (n + odd + 1) / 2;
        for (int p = 0; p < t->np[i]; p++) {
            const int j = 2 * p - odd; /* the tap of source 2 (q0 + p) */
            int32_t *w = t->w + ((size_t)i * t->kp + p) * 2;
            split_pair(j >= 0 ? k[j] : 0, j + 1 < n ? k[j + 1] : 0, w, w + 1);
        }
    }
    return 0;
}

/* One round of the perfect shuffle of 2N vectors: v[2i], v[2i + 1] the low
 * and high interleaving of v[i] and v[i + N] (their elements of 8 or 16
 * bits); log2 of the elements a vector rounds transpose the vectors. */
#define SHUFFLE_ROUND(T, N, LO, HI, v)                                                        \
    do {                                                                                      \
        T t_[2 * (N)];                                                                        \
        for (int i_ = 0; i_ < (N); i_++) {                                                    \
            t_[2 * i_] = LO((v)[i_], (v)[i_ + (N)]);                                          \
            t_[2 * i_ + 1] = HI((v)[i_], (v)[i_ + (N)]);                                      \
        }                                                                                     \
        for (int i_ = 0; i_ < 2 * (N); i_++)                                                  \
            (v)[i_] = t_[i_];                                                                 \
    } while (0)

/* Scratch of one thread for blocks of rv rows: the planes (C x rv x pw
 * bytes, zero past the rows), the pairs (pw / 2 entries of 4 rv bytes) and
 * the results (an entry of rv bytes an output sample, rounded up to 16
 * entries). */
typedef struct {
    uint8_t *planes, *x, *res;
    size_t pw;
} rows_scratch;

static void rows_scratch_free(rows_scratch *s)
{
    free(s->planes);
    free(s->x);
    free(s->res);
}

/* 64-byte aligned and zeroed: n bytes rounded up to 64, or NULL. */
static void *zalloc64(size_t n)
{
    void *p = NULL;
    n = (n + 63) & ~(size_t)63;
    if (posix_memalign(&p, 64, n))
        return NULL;
    return memset(p, 0, n);
}

/* The scratch for blocks of rv rows iw pixels wide of C channels to ow
 * pixels: 0, or -1 (out of memory, s freed). */
static int rows_scratch_init(rows_scratch *s, int rv, int iw, int ow, int C)
{
    s->pw = ((size_t)iw + 15) & ~(size_t)15;
    s->planes = zalloc64((size_t)C * (size_t)rv * s->pw);
    s->x = zalloc64(s->pw / 2 * 4 * (size_t)rv);
    s->res = zalloc64((((size_t)ow * (size_t)C + 15) & ~(size_t)15) * (size_t)rv);
    if (!s->planes || !s->x || !s->res) {
        rows_scratch_free(s);
        return -1;
    }
    return 0;
}

/* Row x's n pixels of C channels (a constant where inlined) as C planes
 * cs bytes apart from p. */
static inline __attribute__((always_inline)) void planes_of(const uint8_t *restrict x, int n,
                                                             int C, uint8_t *restrict p, size_t cs)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < C; c++)
            p[(size_t)c * cs + (size_t)i] = x[(size_t)i * (size_t)C + (size_t)c];
}

/* The planes of rows src[0..rv) (iw pixels of C channels) into s. */
static inline __attribute__((always_inline)) void block_planes(const uint8_t *const *src, int rv,
                                                                int iw, int C,
                                                                const rows_scratch *s)
{
    const size_t pw = s->pw, cs = (size_t)rv * pw;
    for (int r = 0; r < rv; r++)
        switch (C) {
        case 1: memcpy(s->planes + (size_t)r * pw, src[r], (size_t)iw); break;
        case 2: planes_of(src[r], iw, 2, s->planes + (size_t)r * pw, cs); break;
        case 3: planes_of(src[r], iw, 3, s->planes + (size_t)r * pw, cs); break;
        default: planes_of(src[r], iw, 4, s->planes + (size_t)r * pw, cs); break;
        }
}

/* The pairs of channel c's rv planes (rv 8 or 16) into s->x: pair q at
 * s->x + 4 rv q, row r's two samples widened to 16 bits in its 32-bit lane. */
GF_AVX2_FN static void pairs_of(const rows_scratch *s, int rv, int c)
{
    const size_t pw = s->pw;
    const uint8_t *planes = s->planes + (size_t)c * (size_t)rv * pw;
    for (size_t b = 0; b < pw; b += 16)  /* 8 pairs of each row */
        for (int h = 0; h < rv / 8; h++) { /* rows 8h .. 8h + 7 */
            const uint8_t *p = planes + (size_t)(8 * h) * pw + b;
            uint8_t *x = s->x + b / 2 * 4 * (size_t)rv + 32 * (size_t)h;
            __m128i v[8];
            for (int r = 0; r < 8; r++)
                v[r] = _mm_loadu_si128((const __m128i *)(const void *)(p + (size_t)r * pw));
            for (int k = 0; k < 3; k++)
                SHUFFLE_ROUND(__m128i, 4, _mm_unpacklo_epi16, _mm_unpackhi_epi16, v);
            /* v[q]: pair b / 2 + q of the 8 rows, a 16-bit word each */
            for (int q = 0; q < 8; q++)
                _mm256_store_si256((__m256i *)(void *)(x + (size_t)q * 4 * (size_t)rv),
                                   _mm256_cvtepu8_epi16(v[q]));
        }
}

/* Pillow's 16 bytes clip8(2^21 + 2^11 h + l) of the 32-bit lanes of the
 * planes' sums l and h. */
AVX512_INLINE __m128i clip8_avx512(__m512i l, __m512i h)
{
    const __m512i ss = _mm512_add_epi32(_mm512_add_epi32(_mm512_slli_epi32(h, 11), l),
                                        _mm512_set1_epi32(1 << (GF_RESIZE_BITS - 1)));
    return _mm512_cvtusepi32_epi8(
        _mm512_max_epi32(_mm512_srai_epi32(ss, GF_RESIZE_BITS), _mm512_setzero_si512()));
}

/* (2^21 + 2^11 h + l) >> 22 of 8 lanes: -512..511, which packs keep. */
AVX2_INLINE __m256i shift8_avx2(__m256i l, __m256i h)
{
    return _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(h, 11), l),
                                              _mm256_set1_epi32(1 << (GF_RESIZE_BITS - 1))),
                             GF_RESIZE_BITS);
}

/* The 16 rows' sums of output i from its pairs x: their bytes (clipped). */
AVX512_INLINE __m128i out16_avx512(const __m512i *x, const int32_t *w, int np)
{
    __m512i l = _mm512_setzero_si512(), h = l;
    for (int p = 0; p < np; p++) {
        l = _mm512_add_epi32(l, _mm512_madd_epi16(x[p], _mm512_set1_epi32(w[2 * p])));
        h = _mm512_add_epi32(h, _mm512_madd_epi16(x[p], _mm512_set1_epi32(w[2 * p + 1])));
    }
    return clip8_avx512(l, h);
}

/* The 8 rows' sums of output i from its pairs x: their bytes (clipped), the
 * low 8 of the result. */
AVX2_INLINE __m128i out8_avx2(const __m256i *x, const int32_t *w, int np)
{
    __m256i l = _mm256_setzero_si256(), h = l;
    for (int p = 0; p < np; p++) {
        l = _mm256_add_epi32(l, _mm256_madd_epi16(x[p], _mm256_set1_epi32(w[2 * p])));
        h = _mm256_add_epi32(h, _mm256_madd_epi16(x[p], _mm256_set1_epi32(w[2 * p + 1])));
    }
    const __m256i v = shift8_avx2(l, h), p16 = _mm256_packs_epi32(v, v);
    const __m256i b = _mm256_packus_epi16(p16, p16); /* lane q: rows 4q .. 4q + 3, repeated */
    return _mm_unpacklo_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
}

/* The row pass of 16 rows src[0..16) (iw x C bytes each; rows past the
 * image repeat its last) into dst[0..nr) (ow x C bytes each). */
GF_AVX512_FN static void hblock8_avx512(const gf_resize_axis *a, const pair_axis *t, int C,
                                        const uint8_t *const *src, uint8_t *const *dst, int nr,
                                        const rows_scratch *s)
{
    const size_t no = (size_t)a->out * (size_t)C;
    block_planes(src, 16, a->in, C, s);
    for (int c = 0; c < C; c++) {
        pairs_of(s, 16, c);
        for (int i = 0; i < a->out; i++)
            _mm_store_si128((__m128i *)(void *)(s->res + ((size_t)i * (size_t)C + (size_t)c) * 16),
                            out16_avx512((const __m512i *)(const void *)s->x + t->q0[i],
                                         t->w + (size_t)i * t->kp * 2, t->np[i]));
    }
    for (size_t j = 0; j < no; j += 16) { /* back into the rows, 16 samples at a time */
        __m128i v[16];
        const __mmask16 mk = no - j >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (no - j)) - 1);
        for (int k = 0; k < 16; k++)
            v[k] = _mm_load_si128((const __m128i *)(const void *)(s->res + (j + (size_t)k) * 16));
        for (int k = 0; k < 4; k++)
            SHUFFLE_ROUND(__m128i, 8, _mm_unpacklo_epi8, _mm_unpackhi_epi8, v);
        for (int r = 0; r < nr; r++)
            _mm_mask_storeu_epi8(dst[r] + j, mk, v[r]);
    }
}

/* The same for 8 rows on AVX2; the results back 8 x 8 bytes at a time, the
 * last samples (below 8) one by one. */
GF_AVX2_FN static void hblock8_avx2(const gf_resize_axis *a, const pair_axis *t, int C,
                                    const uint8_t *const *src, uint8_t *const *dst, int nr,
                                    const rows_scratch *s)
{
    const size_t no = (size_t)a->out * (size_t)C;
    size_t j = 0;
    block_planes(src, 8, a->in, C, s);
    for (int c = 0; c < C; c++) {
        pairs_of(s, 8, c);
        for (int i = 0; i < a->out; i++)
            _mm_storel_epi64((__m128i *)(void *)(s->res + ((size_t)i * (size_t)C + (size_t)c) * 8),
                             out8_avx2((const __m256i *)(const void *)s->x + t->q0[i],
                                       t->w + (size_t)i * t->kp * 2, t->np[i]));
    }
    for (; j + 8 <= no; j += 8) {
        __m128i e[8], v[4];
        for (int k = 0; k < 8; k++)
            e[k] = _mm_loadl_epi64((const __m128i *)(const void *)(s->res + (j + (size_t)k) * 8));
        for (int k = 0; k < 4; k++) /* sample pairs: rows r a 16-bit word each */
            e[k] = _mm_unpacklo_epi8(e[2 * k], e[2 * k + 1]);
        v[0] = _mm_unpacklo_epi16(e[0], e[1]); /* rows 0-3 of samples 0-3 */
        v[1] = _mm_unpackhi_epi16(e[0], e[1]); /* rows 4-7 of samples 0-3 */
        v[2] = _mm_unpacklo_epi16(e[2], e[3]); /* rows 0-3 of samples 4-7 */
        v[3] = _mm_unpackhi_epi16(e[2], e[3]);
        e[0] = _mm_unpacklo_epi32(v[0], v[2]); /* rows 0, 1 */
        e[1] = _mm_unpackhi_epi32(v[0], v[2]); /* rows 2, 3 */
        e[2] = _mm_unpacklo_epi32(v[1], v[3]);
        e[3] = _mm_unpackhi_epi32(v[1], v[3]);
        for (int r = 0; r < nr; r++)
            _mm_storel_epi64((__m128i *)(void *)(dst[r] + j),
                             r & 1 ? _mm_unpackhi_epi64(e[r / 2], e[r / 2]) : e[r / 2]);
    }
    for (; j < no; j++)
        for (int r = 0; r < nr; r++)
            dst[r][j] = s->res[j * 8 + (size_t)r];
}

/* The column pass of one output row at 8 bits on AVX-512: n samples from
 * rows[0..count) with the 22-bit weights k, into dst; wp: count + 1 weights
 * of scratch. 32 samples a step in four vectors of sums, whose lanes the
 * interleaving leaves in groups of four (samples 8q .. 8q + 3 of the 32 in
 * lane q of the first, 8q + 4 .. 8q + 7 of the second), put back in order
 * by the bytes' 32-bit interleaving. */
GF_AVX512_FN static void col8_avx512(const uint8_t *const *rows, const int32_t *k, int count,
                                     int n, int32_t *restrict wp, uint8_t *restrict dst)
{
    const __m512i zero = _mm512_setzero_si512();
    const int np = (count + 1) / 2;
    for (int p = 0; p < np; p++) /* the pairs' l and h weights (0 past the last tap) */
        split_pair(k[2 * p], 2 * p + 1 < count ? k[2 * p + 1] : 0, wp + 2 * p, wp + 2 * p + 1);
    for (int x0 = 0; x0 < n; x0 += 32) {
        const __mmask32 mk = n - x0 >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << (n - x0)) - 1;
        __m512i l0 = zero, h0 = zero, l1 = zero, h1 = zero;
        for (int p = 0; p < np; p++) {
            const uint8_t *rb = rows[2 * p + 1 < count ? 2 * p + 1 : 2 * p];
            const __m512i wl = _mm512_set1_epi32(wp[2 * p]), wh = _mm512_set1_epi32(wp[2 * p + 1]);
            const __m512i a = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(mk, rows[2 * p] + x0));
            const __m512i b = _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(mk, rb + x0));
            const __m512i p0 = _mm512_unpacklo_epi16(a, b), p1 = _mm512_unpackhi_epi16(a, b);
            l0 = _mm512_add_epi32(l0, _mm512_madd_epi16(p0, wl));
            h0 = _mm512_add_epi32(h0, _mm512_madd_epi16(p0, wh));
            l1 = _mm512_add_epi32(l1, _mm512_madd_epi16(p1, wl));
            h1 = _mm512_add_epi32(h1, _mm512_madd_epi16(p1, wh));
        }
        const __m128i b0 = clip8_avx512(l0, h0), b1 = clip8_avx512(l1, h1);
        _mm256_mask_storeu_epi8(dst + x0, mk,
                                _mm256_set_m128i(_mm_unpackhi_epi32(b0, b1),
                                                 _mm_unpacklo_epi32(b0, b1)));
    }
}

/* The same on AVX2, 16 samples a step (lane q of the two vectors of sums:
 * samples 8q .. 8q + 3 and 8q + 4 .. 8q + 7, which packs put in order); the
 * last samples (below 16) one by one. */
GF_AVX2_FN static void col8_avx2(const uint8_t *const *rows, const int32_t *k, int count, int n,
                                 int32_t *restrict wp, uint8_t *restrict dst)
{
    const __m256i zero = _mm256_setzero_si256();
    const int np = (count + 1) / 2;
    int x0 = 0;
    for (int p = 0; p < np; p++)
        split_pair(k[2 * p], 2 * p + 1 < count ? k[2 * p + 1] : 0, wp + 2 * p, wp + 2 * p + 1);
    for (; x0 + 16 <= n; x0 += 16) {
        __m256i l0 = zero, h0 = zero, l1 = zero, h1 = zero;
        for (int p = 0; p < np; p++) {
            const uint8_t *rb = rows[2 * p + 1 < count ? 2 * p + 1 : 2 * p];
            const __m256i wl = _mm256_set1_epi32(wp[2 * p]), wh = _mm256_set1_epi32(wp[2 * p + 1]);
            const __m256i a = _mm256_cvtepu8_epi16(
                _mm_loadu_si128((const __m128i *)(const void *)(rows[2 * p] + x0)));
            const __m256i b =
                _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(rb + x0)));
            const __m256i p0 = _mm256_unpacklo_epi16(a, b), p1 = _mm256_unpackhi_epi16(a, b);
            l0 = _mm256_add_epi32(l0, _mm256_madd_epi16(p0, wl));
            h0 = _mm256_add_epi32(h0, _mm256_madd_epi16(p0, wh));
            l1 = _mm256_add_epi32(l1, _mm256_madd_epi16(p1, wl));
            h1 = _mm256_add_epi32(h1, _mm256_madd_epi16(p1, wh));
        }
        const __m256i p16 = _mm256_packs_epi32(shift8_avx2(l0, h0), shift8_avx2(l1, h1));
        const __m256i b = _mm256_packus_epi16(p16, p16);
        _mm_storeu_si128((__m128i *)(void *)(dst + x0),
                         _mm_unpacklo_epi64(_mm256_castsi256_si128(b),
                                            _mm256_extracti128_si256(b, 1)));
    }
    for (int x = x0; x < n; x++) {
        int32_t a = 1 << (GF_RESIZE_BITS - 1);
        for (int j = 0; j < count; j++)
            a += rows[j][x] * k[j];
        dst[x] = (uint8_t)gf_resize_clip8(a);
    }
}
#endif

int gf_resize_level(void)
{
    if (GF_X86 && gf_resize_simd >= 2 && gf_cpu_avx512())
        return 2;
    return GF_X86 && gf_resize_simd >= 1 && gf_cpu_avx2();
}

/* Divides the colour of n pixels back by their alpha (the last channel). */
static void unpremul_row(uint8_t *row, int n, int C)
{
    for (int i = 0; i < n; i++, row += C)
        for (int c = 0; c < C - 1; c++)
            row[c] = (uint8_t)gf_resize_unpremul(row[c], row[C - 1]);
}

static int resize_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_resize_params *p = GF_CPARAMS(s, gf_resize_params);
    const int C = in->channels, alpha = premul_alpha(C, in->bits, p->filter);
    const int need_h = out->width != in->width, need_v = out->height != in->height;
    const int w8 = in->bits == 8, ow = out->width, iw = in->width;
    const size_t tsz = w8 ? 1 : sizeof(int32_t);
    gf_resize_axis ax, ay;
    unsigned char *tmp = NULL; /* the row pass's result, or the premultiplied input */
    size_t tstride = 0;
    int rc, failed = 0;

    if ((rc = begin(s, in, out, &ax, &ay)))
        return rc < 0 ? rc : 0;
    if (need_v) { /* the column pass's source: w x in->height */
        const int tw = need_h ? ow : iw;
        tstride = (size_t)tw * C * tsz;
        if (need_h || alpha >= 0) {
            if (!(tmp = malloc(tstride * in->height + 64))) {
                rc = gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
                goto out;
            }
        }
    }

    /* the row pass (or the premultiplying alone), rb rows at a time */
    if (need_h || (need_v && alpha >= 0)) {
        /* the vector path: 2 AVX-512, 1 AVX2, 0 the portable one */
        const int simd = w8 && need_h ? gf_resize_level() : 0, rb = simd == 2 ? RB_MAX : RB;
        const int blocks = (in->height + rb - 1) / rb;
        const size_t n = (size_t)iw * C;
#if GF_X86
        pair_axis pa = {0};
        if (simd && (rc = pair_axis_init(&pa, &ax)))
            goto out;
#endif
#pragma omp parallel reduction(| : failed) if (GF_PARALLEL(iw, in->height))
        {
            uint8_t *pm = alpha >= 0 ? malloc(n * rb) : NULL;
            void *t = need_h && !simd ? malloc(n * RB * (w8 ? 1 : sizeof(double))) : NULL;
#if GF_X86
            rows_scratch sc = {0};
            if (simd && rows_scratch_init(&sc, rb, iw, ow, C))
                failed = 1;
#endif
            if ((alpha >= 0 && !pm) || (need_h && !simd && !t))
                failed = 1;
#pragma omp for schedule(static)
            for (int b = 0; b < blocks; b++) {
                const int y0 = b * rb, nr = in->height - y0 < rb ? in->height - y0 : rb;
                const unsigned char *src[RB_MAX];
                unsigned char *dst[RB_MAX];
                if (failed)
                    continue;
                for (int r = 0; r < nr; r++) {
                    src[r] = in->data + (size_t)(y0 + r) * in->stride;
                    dst[r] = need_v ? tmp + (size_t)(y0 + r) * tstride
                                    : out->data + (size_t)(y0 + r) * out->stride;
                    if (alpha >= 0) {
                        premul_row(src[r], pm + n * r, iw, C);
                        src[r] = pm + n * r;
                    }
                }
                if (!need_h) {
                    for (int r = 0; r < nr; r++)
                        memcpy(dst[r], src[r], n);
                } else if (w8) {
#if GF_X86
                    if (simd) {
                        for (int r = nr; r < rb; r++)
                            src[r] = src[nr - 1];
                        (simd == 2 ? hblock8_avx512 : hblock8_avx2)(
                            &ax, &pa, C, (const uint8_t *const *)src, (uint8_t *const *)dst, nr,
                            &sc);
                    } else
#endif
                    {
                        interleave_u8((const uint8_t *const *)src, nr, n, t);
                        hblock8(&ax, t, C, (uint8_t *const *)dst, nr);
                    }
                    if (!need_v && alpha >= 0)
                        for (int r = 0; r < nr; r++)
                            unpremul_row(dst[r], ow, C);
                } else {
                    interleave_f64((const uint16_t *const *)(const void *)src, nr, n, t);
                    hblock16[C - 1](&ax, t, dst, nr, !need_v);
                }
            }
            free(pm);
            free(t);
#if GF_X86
            rows_scratch_free(&sc);
#endif
        }
#if GF_X86
        pair_axis_free(&pa);
#endif
        if (failed) {
            rc = gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
            goto out;
        }
    }

    /* the column pass */
    if (need_v) {
        const int n = ow * C, simd = w8 ? gf_resize_level() : 0;
        const unsigned char *base = tmp ? tmp : in->data;
        (void)simd; /* without GF_X86 */
        const size_t bstride = tmp ? tstride : in->stride;
#pragma omp parallel reduction(| : failed) if (GF_PARALLEL(ow, out->height))
        {
            const void **rows = malloc((size_t)ay.ksize * sizeof *rows);
            /* the 16-bit sums, or the vector passes' weights (two a pair of taps) */
            const size_t na = (size_t)n > (size_t)ay.ksize + 2 ? (size_t)n : (size_t)ay.ksize + 2;
            void *acc = malloc(na * (w8 ? sizeof(int32_t) : sizeof(double)));
            if (!rows || !acc)
                failed = 1;
#pragma omp for schedule(static)
            for (int y = 0; y < out->height; y++) {
                unsigned char *dst = out->data + (size_t)y * out->stride;
                if (failed)
                    continue;
                for (int j = 0; j < ay.count[y]; j++)
                    rows[j] = base + (size_t)(ay.first[y] + j) * bstride;
                if (w8) {
#if GF_X86
                    if (simd)
                        (simd == 2 ? col8_avx512 : col8_avx2)(
                            (const uint8_t *const *)rows, ay.k8 + (size_t)y * ay.ksize,
                            ay.count[y], n, acc, dst);
                    else
#endif
                        col8((const uint8_t *const *)rows, ay.k8 + (size_t)y * ay.ksize,
                             ay.count[y], n, dst);
                    if (alpha >= 0)
                        unpremul_row(dst, ow, C);
                } else if (need_h)
                    col16_int32_t((const int32_t *const *)rows, ay.k + (size_t)y * ay.ksize,
                              ay.count[y], n, acc, (uint16_t *)(void *)dst);
                else
                    col16_uint16_t((const uint16_t *const *)rows, ay.k + (size_t)y * ay.ksize,
                              ay.count[y], n, acc, (uint16_t *)(void *)dst);
            }
            free(rows);
            free(acc);
        }
        if (failed)
            rc = gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
    }
out:
    free(tmp);
    gf_resize_axis_free(&ax);
    gf_resize_axis_free(&ay);
    return rc;
}

static int resize_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return gf_resize_gold(s, in, out);
}

static void resize_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_resize_params *p = GF_CPARAMS(s, gf_resize_params);
    snprintf(buf, n, "resize %s %s", p->text, gf_resize_filter_names[p->filter]);
}

static void resize_out_shape(const gf_stage *s, const gf_shape *in, gf_shape *out)
{
    gf_shape o = *in;
    if (gf_resize_size(s, in->width, in->height, &o.width, &o.height))
        o.width = o.height = 1; /* refused by resize_check first */
    *out = o;
}

static int resize_check(const gf_stage *s, const gf_shape *in)
{
    int ow, oh;
    if (gf_resize_size(s, in->width, in->height, &ow, &oh))
        return gf_err(GF_EUSAGE, NULL,
                      "--resize: %s gives no size for a %dx%d image (a side of 0, or over "
                      "2147483647)",
                      GF_CPARAMS(s, gf_resize_params)->text, in->width, in->height);
    return 0;
}

static int resize_unchanged(const gf_stage *s, const gf_shape *in)
{
    int ow, oh;
    return gf_resize_size(s, in->width, in->height, &ow, &oh) == 0 && ow == in->width &&
           oh == in->height;
}

/* The CPU path's time a byte of input on one core, in ns: a + b t R + c O,
 * with t the filter's taps at a scale of 1 (twice its support), R =
 * max(1, rx) + rx max(1, ry) (the passes' multiply-adds a source sample, over
 * t) and O = rx ry (output samples a source sample), rx and ry the axes'
 * output / input; a, b and c fitted to one thread of the development
 * machine (Zen 4) on shrinks to 1/8 and enlargements to 4x, within 40%
 * (docs/benchmarks.md, 2026-12-08): 8 bits on AVX-512 or AVX2, 8 bits
 * portable, 16 bits. */
static double resize_cost(const gf_stage *s, const gf_shape *in)
{
    const gf_resize_params *p = GF_CPARAMS(s, gf_resize_params);
    int ow, oh;
    if (gf_resize_size(s, in->width, in->height, &ow, &oh))
        return 1.0;
    const double rx = (double)ow / in->width, ry = (double)oh / in->height;
    const double t = 2.0 * filters[p->filter].support;
    const double R = (rx > 1.0 ? rx : 1.0) + rx * (ry > 1.0 ? ry : 1.0), O = rx * ry;
    if (in->bits != 8) /* gray keeps two chains of adds in flight, colour 2C */
        return 0.1 + 0.065 * t * R * (in->channels == 1 ? 2.5 : 1.0) + 0.5 * O;
    switch (gf_resize_level()) {
    case 2: return 0.15 + 0.028 * t * R + 0.34 * O; /* AVX-512 */
    case 1: return 0.2 + 0.04 * t * R + 0.34 * O;   /* AVX2 */
    default: return 0.17 + 0.046 * t * R + 0.52 * O;
    }
}

/* The bytes through device memory: the input read once, the row pass's
 * result written and read, the output written. */
static double resize_bytes(const gf_stage *s, const gf_shape *in)
{
    const double px = (double)GF_PIXEL_BYTES(in->channels, in->bits);
    int ow, oh;
    if (gf_resize_size(s, in->width, in->height, &ow, &oh))
        return 0.0;
    return px * ((double)in->width * in->height + (double)ow * oh);
}

static int parse_resize(gf_stage *s, const char *arg)
{
    gf_resize_params *p = GF_PARAMS(s, gf_resize_params);
    char why[160];

    if (gf_geometry_parse(arg, &p->geom, why, sizeof why))
        return gf_err(GF_EUSAGE, NULL, "--resize: %s", why);
    snprintf(p->text, sizeof p->text, "%.47s", arg);
    p->filter = GF_FILTER_LANCZOS;
    return 0;
}

static int parse_filter(gf_stage *s, const char *arg)
{
    for (int f = 0; f < GF_FILTER_COUNT; f++)
        if (!strcmp(arg, gf_resize_filter_names[f])) {
            if (s)
                GF_PARAMS(s, gf_resize_params)->filter = (gf_resize_filter)f;
            return 0;
        }
    return gf_err(GF_EUSAGE, NULL,
                  "--filter: '%s' is not nearest, box, bilinear, hamming, bicubic or lanczos", arg);
}

/* Configurations: every filter, shrinking in both directions, enlarging,
 * one axis alone, ratios near 1; random sizes from rng. Bench rows: lanczos,
 * bilinear and box to 1/8; lanczos and bicubic enlarging to fit 8000x8000
 * (2000x2000 to 8000x8000 with --size 8000x8000,2000x2000). */
static int resize_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    gf_resize_params *p = GF_PARAMS(s, gf_resize_params);
    static const struct {
        const char *geom;
        gf_resize_filter f;
    } rows[] = {
        {"12.5%", GF_FILTER_LANCZOS}, {"12.5%", GF_FILTER_BILINEAR},
        /* box: NPP's super sampling beside it */
        {"12.5%", GF_FILTER_BOX},
        /* enlarging to fit 8000x8000: 2000x2000 (--size) to 8000x8000; an
         * 8000x8000 input skips them */
        {"8000x8000<", GF_FILTER_LANCZOS}, {"8000x8000<", GF_FILTER_BICUBIC},
    };
    static const char *const shapes[] = {"%dx%d!", "%dx%d!", "x%d", "%d", "101%", "99%"};
    char g[64];

    if (bench) {
        if (i >= (int)(sizeof rows / sizeof rows[0]))
            return 0;
        parse_resize(s, rows[i].geom);
        p->filter = rows[i].f;
        return 1;
    }
    if (i >= 3 * GF_FILTER_COUNT)
        return 0;
    snprintf(g, sizeof g, shapes[i % 6], 1 + (int)(gf_rand(rng) % 300),
             1 + (int)(gf_rand(rng) % 300));
    parse_resize(s, g);
    /* every filter with three of the shapes */
    p->filter = (gf_resize_filter)((i + i / 6) % GF_FILTER_COUNT);
    return 1;
}

static const gf_stage_opt resize_opts[] = {
    {"resize", "GEOMETRY",
     "resample to ImageMagick's GEOMETRY, the size convert -resize gives: W, Wx, xH or WxH "
     "fit inside keeping the aspect (Wx: height from the aspect), WxH! exactly, WxH^ covers "
     "(200x^: the shorter side 200), WxH> only shrinks, WxH< only enlarges, N% scales, A@ at "
     "most A pixels, W:H the aspect ratio; Pillow's Image.resize bytes with the --filter "
     "before it",
     GF_OPT_ADD, parse_resize},
    {"filter", "NAME",
     "the resampling filter of the --resize stages after it: nearest, box, bilinear, hamming, "
     "bicubic or lanczos (default)",
     GF_OPT_MODIFIER, parse_filter},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant resize_variants[] = {
    {"global", GF_CUDA(gf_resize_global_cuda)},
    {"shared", GF_CUDA(gf_resize_shared_cuda)},
    {"texture", GF_CUDA(gf_resize_texture_cuda)},
    {NULL, NULL},
};

/* texture filtering's 8-bit fractions: never a default */
static const char *const resize_inexact[] = {"texture", NULL};

static const gf_default resize_defaults[] = {
    {0, 0, "shared"},
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_resize = {
    .cpu_cost = 1.0,
    .cpu_cost_of = resize_cost,
    .floor_bytes = resize_bytes,
    .name = "resize",
    .group = "resize",
    .opts = resize_opts,
    .variants = resize_variants,
    .inexact = resize_inexact,
    .defaults = resize_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = resize_check,
    .unchanged = resize_unchanged,
    .label = resize_label,
    .out_shape = resize_out_shape,
    .gold = resize_gold,
    .cpu = resize_cpu,
    .config = resize_config,
    .large_configs = GF_FILTER_COUNT, /* the gold of the rest on small images only */
};
