/* orient.c - the orientation stages: --transpose, --transverse,
 * --rotate 90|180|270, --flip, --flop. Two kinds: the ops that swap the axes
 * (tiled kernels) and the mirrors (no tile needed). */
#include "orient.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(gf_orient_params) <= GF_STAGE_PARAMS, "orient params");

extern const gf_stage_ops gf_stage_transpose, gf_stage_mirror;

const gf_stage_ops *gf_orient_stage(gf_orient_op op)
{
    return gf_orient_swaps(op) ? &gf_stage_transpose : &gf_stage_mirror;
}

static int check_size(const gf_image *in, const gf_image *out, gf_orient_op op)
{
    const int sw = gf_orient_swaps(op);

    if (out->width != (sw ? in->height : in->width) ||
        out->height != (sw ? in->width : in->height) || out->channels != in->channels ||
        out->bits != in->bits)
        return gf_err(GF_EINTERNAL, NULL, "orient: output is %dx%d %s for a %dx%d %s input",
                      out->width, out->height, gf_layout_name(out->channels, out->bits),
                      in->width, in->height, gf_layout_name(in->channels, in->bits));
    return 0;
}

int gf_orient_gold(const gf_image *in, gf_image *out, gf_orient_op op)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    int rc = check_size(in, out, op);

    for (int y = 0; rc == 0 && y < in->height; y++)
        for (int x = 0; x < in->width; x++) {
            int ox, oy;
            gf_orient_dest(op, x, y, in->width, in->height, &ox, &oy);
            memcpy(out->data + (size_t)oy * out->stride + (size_t)ox * px,
                   in->data + (size_t)y * in->stride + (size_t)x * px, px);
        }
    return rc;
}

/* Reverses n pixels of P bytes: pixel i of dst is pixel n - 1 - i of src.
 * P is a constant in each copy, so a pixel is one move (or three). */
GF_CLONES static void reverse_bytes(const unsigned char *restrict src, unsigned char *restrict dst,
                                    int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

#define REVERSE_PX(P)                                                                         \
    GF_CLONES static void reverse_px##P(const unsigned char *restrict src,                    \
                                        unsigned char *restrict dst, int n)                   \
    {                                                                                         \
        for (int i = 0; i < n; i++)                                                           \
            memcpy(dst + (size_t)i * (P), src + (size_t)(n - 1 - i) * (P), (P));              \
    }
REVERSE_PX(2)
REVERSE_PX(3)
REVERSE_PX(4)
REVERSE_PX(6)
REVERSE_PX(8)

typedef void (*reverse_fn)(const unsigned char *restrict, unsigned char *restrict, int);

/* The pixel reversal for pixels of px bytes (1, 2, 3, 4, 6 or 8). */
static reverse_fn reverser(size_t px)
{
    switch (px) {
    case 1: return reverse_bytes;
    case 2: return reverse_px2;
    case 3: return reverse_px3;
    case 4: return reverse_px4;
    case 6: return reverse_px6;
    default: return reverse_px8;
    }
}

/* Copies a row in 64-byte pieces that the compiler inlines as vector
 * moves, rather than a memcpy call per row (glibc may take rows of this
 * size with `rep movsb`, slow on some processors). */
GF_CLONES static void copy_row(const unsigned char *restrict src, unsigned char *restrict dst,
                               size_t n)
{
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        memcpy(dst + i, src + i, 64);
    memcpy(dst + i, src + i, n - i);
}

/* Flip, flop, rotate 180: whole rows, copied or reversed. */
static void mirror_cpu(const gf_image *in, gf_image *out, gf_orient_op op)
{
    const int w = in->width, h = in->height;
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    const reverse_fn reverse = reverser(px);

#pragma omp parallel for schedule(static) if (GF_PARALLEL(w, h))
    for (int y = 0; y < h; y++) {
        const unsigned char *src = in->data + (size_t)(op == GF_FLOP ? y : h - 1 - y) * in->stride;
        unsigned char *dst = out->data + (size_t)y * out->stride;
        if (op == GF_FLIP)
            copy_row(src, dst, (size_t)w * px);
        else
            reverse(src, dst, w);
    }
}

/* Flip, flop or rotate 180 of img in place: rows y and h-1-y (the middle
 * one with itself) go through a row of scratch, reversed as they go for a
 * flop or rotate 180. */
static int mirror_in_place(const gf_stage *s, gf_image *img)
{
    const gf_orient_op op = GF_CPARAMS(s, gf_orient_params)->op;
    const int w = img->width, h = img->height;
    const size_t px = GF_PIXEL_BYTES(img->channels, img->bits), n = (size_t)w * px;
    const reverse_fn reverse = reverser(px);
    int failed = 0;

    if (op != GF_FLIP && op != GF_FLOP && op != GF_ROTATE180)
        return gf_err(GF_EINTERNAL, NULL, "mirror: op %d does not keep the shape", (int)op);
#pragma omp parallel reduction(| : failed) if (GF_PARALLEL(w, h))
    {
        unsigned char *tmp = malloc(n ? n : 1);
        if (!tmp)
            failed = 1;
#pragma omp for schedule(static)
        for (int y = 0; y < (h + 1) / 2; y++) {
            unsigned char *a = img->data + (size_t)y * img->stride;
            unsigned char *b = img->data + (size_t)(h - 1 - y) * img->stride;
            if (!tmp)
                continue;
            if (op == GF_FLOP) { /* each row reversed where it is */
                reverse(a, tmp, w);
                copy_row(tmp, a, n);
                if (b != a) {
                    reverse(b, tmp, w);
                    copy_row(tmp, b, n);
                }
            } else if (op == GF_FLIP) { /* rows a and b swapped */
                if (b != a) {
                    copy_row(a, tmp, n);
                    copy_row(b, a, n);
                    copy_row(tmp, b, n);
                }
            } else { /* rotate 180: swapped and reversed */
                reverse(a, tmp, w);
                if (b != a)
                    reverse(b, a, w);
                copy_row(tmp, b, n);
            }
        }
        free(tmp);
    }
    return failed ? gf_err(GF_EINTERNAL, NULL, "mirror: out of memory") : 0;
}

#ifdef __SSE2__
#include <emmintrin.h>

/* The 16x16 byte block whose rows are v[0..15] is transposed in place, so
 * that v[m] holds column m: four rounds of interleaving bytes, words, double
 * words and quad words. */
static void transpose16(__m128i v[16])
{
    __m128i t[16];
    for (int i = 0; i < 8; i++) {
        t[i] = _mm_unpacklo_epi8(v[2 * i], v[2 * i + 1]);
        t[i + 8] = _mm_unpackhi_epi8(v[2 * i], v[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        v[i] = _mm_unpacklo_epi16(t[2 * i], t[2 * i + 1]);
        v[i + 4] = _mm_unpackhi_epi16(t[2 * i], t[2 * i + 1]);
        v[i + 8] = _mm_unpacklo_epi16(t[2 * i + 8], t[2 * i + 9]);
        v[i + 12] = _mm_unpackhi_epi16(t[2 * i + 8], t[2 * i + 9]);
    }
    for (int q = 0; q < 4; q++)
        for (int i = 0; i < 2; i++) {
            t[4 * q + i] = _mm_unpacklo_epi32(v[4 * q + 2 * i], v[4 * q + 2 * i + 1]);
            t[4 * q + i + 2] = _mm_unpackhi_epi32(v[4 * q + 2 * i], v[4 * q + 2 * i + 1]);
        }
    for (int q = 0; q < 4; q++) {
        v[4 * q] = _mm_unpacklo_epi64(t[4 * q], t[4 * q + 1]);
        v[4 * q + 1] = _mm_unpackhi_epi64(t[4 * q], t[4 * q + 1]);
        v[4 * q + 2] = _mm_unpacklo_epi64(t[4 * q + 2], t[4 * q + 3]);
        v[4 * q + 3] = _mm_unpackhi_epi64(t[4 * q + 2], t[4 * q + 3]);
    }
}
#endif

/* The ops that swap the axes: output pixel (i, j) is input
 * (sx(j), sy(i)), sx(j) = j or w-1-j (revx), sy(i) = i or h-1-i (revy).
 * 8u_C1: whole 16x16 blocks go through registers (SSE2); the strips at the
 * edges, pixel by pixel. */
static void swap_cpu_8u(const gf_image *in, gf_image *out, int revx, int revy)
{
    const int w = in->width, h = in->height, bw = w / 16 * 16, bh = h / 16 * 16;

#pragma omp parallel for schedule(static) if (GF_PARALLEL(w, h))
    for (int j0 = 0; j0 < w; j0 += 16) { /* 16 output rows */
        for (int i0 = 0; i0 < h; i0 += 16) {
#ifdef __SSE2__
            if (j0 < bw && i0 < bh) {
                __m128i v[16];
                const int c0 = revx ? w - 16 - j0 : j0;
                for (int k = 0; k < 16; k++) {
                    const int row = revy ? h - 1 - (i0 + k) : i0 + k;
                    v[k] = _mm_loadu_si128(
                        (const __m128i *)(const void *)(in->data + (size_t)row * in->stride + c0));
                }
                transpose16(v);
                for (int jj = 0; jj < 16; jj++)
                    _mm_storeu_si128(
                        (__m128i *)(void *)(out->data + (size_t)(j0 + jj) * out->stride + i0),
                        v[revx ? 15 - jj : jj]);
                continue;
            }
#endif
            for (int j = j0; j < j0 + 16 && j < w; j++)
                for (int i = i0; i < i0 + 16 && i < h; i++)
                    out->data[(size_t)j * out->stride + i] =
                        in->data[(size_t)(revy ? h - 1 - i : i) * in->stride +
                                 (revx ? w - 1 - j : j)];
        }
    }
}

/* The same for pixels of P bytes: BLOCK x BLOCK tiles, so that the input's
 * rows and the output's both stay in the cache while a tile moves; a pixel
 * is one fixed-size move. */
#define BLOCK 32
#define SWAP_PX(P)                                                                            \
    GF_CLONES static void swap_px##P(const gf_image *in, gf_image *out, int revx, int revy)    \
    {                                                                                         \
        const int w = in->width, h = in->height;                                              \
        _Pragma("omp parallel for schedule(static) if (GF_PARALLEL(w, h))")                   \
        for (int j0 = 0; j0 < w; j0 += BLOCK)                                                 \
            for (int i0 = 0; i0 < h; i0 += BLOCK)                                             \
                for (int j = j0; j < j0 + BLOCK && j < w; j++) {                              \
                    unsigned char *dst = out->data + (size_t)j * out->stride;                 \
                    const unsigned char *src = in->data + (size_t)(revx ? w - 1 - j : j) * (P); \
                    for (int i = i0; i < i0 + BLOCK && i < h; i++)                            \
                        memcpy(dst + (size_t)i * (P),                                         \
                               src + (size_t)(revy ? h - 1 - i : i) * in->stride, (P));       \
                }                                                                             \
    }
SWAP_PX(2)
SWAP_PX(3)
SWAP_PX(4)
SWAP_PX(6)
SWAP_PX(8)

int gf_orient_cpu(const gf_image *in, gf_image *out, gf_orient_op op)
{
    static void (*const swappers[9])(const gf_image *, gf_image *, int, int) = {
        NULL, swap_cpu_8u, swap_px2, swap_px3, swap_px4, NULL, swap_px6, NULL, swap_px8};
    int rc = check_size(in, out, op);

    if (rc)
        return rc;
    if (!gf_orient_swaps(op))
        mirror_cpu(in, out, op);
    else
        swappers[GF_PIXEL_BYTES(in->channels, in->bits)](
            in, out, op == GF_TRANSVERSE || op == GF_ROTATE270,
            op == GF_TRANSVERSE || op == GF_ROTATE90);
    return 0;
}

static const char *const op_labels[GF_ORIENT_NOPS] = {
    "transpose", "transverse", "rotate 90", "rotate 270", "rotate 180", "flip", "flop",
};

static void orient_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s", op_labels[GF_CPARAMS(s, gf_orient_params)->op]);
}

static void orient_out_shape(const gf_stage *s, const gf_shape *in, gf_shape *out)
{
    const int sw = gf_orient_swaps(GF_CPARAMS(s, gf_orient_params)->op);
    const gf_shape src = *in;

    *out = src;
    out->width = sw ? src.height : src.width;
    out->height = sw ? src.width : src.height;
}

static int orient_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return gf_orient_gold(in, out, GF_CPARAMS(s, gf_orient_params)->op);
}

static int orient_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return gf_orient_cpu(in, out, GF_CPARAMS(s, gf_orient_params)->op);
}

/* Sets s to op, in the stage kind that op belongs to. */
static int set_op(gf_stage *s, gf_orient_op op)
{
    s->ops = gf_orient_stage(op);
    GF_PARAMS(s, gf_orient_params)->op = op;
    return 0;
}

static int parse_transpose(gf_stage *s, const char *arg)
{
    (void)arg;
    return set_op(s, GF_TRANSPOSE);
}

static int parse_transverse(gf_stage *s, const char *arg)
{
    (void)arg;
    return set_op(s, GF_TRANSVERSE);
}

static int parse_flip(gf_stage *s, const char *arg)
{
    (void)arg;
    return set_op(s, GF_FLIP);
}

static int parse_flop(gf_stage *s, const char *arg)
{
    (void)arg;
    return set_op(s, GF_FLOP);
}

static int parse_rotate(gf_stage *s, const char *arg)
{
    if (!strcmp(arg, "90"))
        return set_op(s, GF_ROTATE90);
    if (!strcmp(arg, "180"))
        return set_op(s, GF_ROTATE180);
    if (!strcmp(arg, "270"))
        return set_op(s, GF_ROTATE270);
    return gf_err(GF_EUSAGE, NULL, "--rotate: angle must be 90, 180 or 270, not '%s'", arg);
}

/* Configurations: every op of the kind; bench: transpose and rotate 90, or
 * rotate 180, flip and flop. */
static int transpose_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_orient_op ops[] = {GF_TRANSPOSE, GF_ROTATE90, GF_TRANSVERSE, GF_ROTATE270};
    (void)rng;
    if (i >= (bench ? 2 : 4))
        return 0;
    return set_op(s, ops[i]) == 0;
}

static int mirror_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_orient_op ops[] = {GF_ROTATE180, GF_FLIP, GF_FLOP};
    (void)rng, (void)bench;
    if (i >= 3)
        return 0;
    return set_op(s, ops[i]) == 0;
}

static const gf_stage_opt orient_opts[] = {
    {"transpose", NULL, "swap the axes (numpy a.T)", GF_OPT_ADD, parse_transpose},
    {"transverse", NULL, "reflect about the anti-diagonal", GF_OPT_ADD, parse_transverse},
    {"rotate", "90|180|270", "rotate clockwise", GF_OPT_ADD, parse_rotate},
    {"flip", NULL, "mirror top to bottom", GF_OPT_ADD, parse_flip},
    {"flop", NULL, "mirror left to right", GF_OPT_ADD, parse_flop},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant transpose_variants[] = {
    {"global", GF_CUDA(gf_orient_global_cuda)},
    {"shared", GF_CUDA(gf_orient_shared_cuda)},
    {"vector", GF_CUDA(gf_orient_vector_cuda)},
    {NULL, NULL},
};

static const gf_variant mirror_variants[] = {
    {"global", GF_CUDA(gf_orient_global_cuda)},
    {"vector", GF_CUDA(gf_orient_vector_cuda)},
    {NULL, NULL},
};

static const gf_default transpose_defaults[] = {
    {0, 0, "vector"}, /* see docs/benchmarks.md */
    {0, 0, NULL},
};

static const gf_default mirror_defaults[] = {
    {0, 0, "vector"}, /* see docs/benchmarks.md */
    {0, 0, NULL},
};

/* The options live with the axis-swapping kind; --flip, --flop and
 * --rotate 180 make mirror stages. */
const gf_stage_ops gf_stage_transpose = {
    .cpu_cost = 0.60,
    .name = "transpose",
    .group = "transpose",
    .opts = orient_opts,
    .variants = transpose_variants,
    .defaults = transpose_defaults,
    .label = orient_label,
    .out_shape = orient_out_shape,
    .layouts = GF_LAYOUTS_ALL,
    .gold = orient_gold,
    .cpu = orient_cpu,
    .config = transpose_config,
};

const gf_stage_ops gf_stage_mirror = {
    .cpu_cost = 0.10,
    .name = "mirror",
    .group = "transpose",
    .variants = mirror_variants,
    .defaults = mirror_defaults,
    .label = orient_label,
    .out_shape = orient_out_shape,
    .layouts = GF_LAYOUTS_ALL,
    .gold = orient_gold,
    .cpu = orient_cpu,
    .cpu_in_place = mirror_in_place,
    .config = mirror_config,
};
