/* threshold.c - the binary threshold stage: --threshold T|otsu. */
#include "threshold.h"

#include <stdint.h>
#include <string.h>

#include "../otsu.h"
#include "hist.h"

_Static_assert(sizeof(gf_threshold_params) <= GF_STAGE_PARAMS, "threshold params");

static int check_size(const gf_image *in, const gf_image *out, int t)
{
    if (out->width != in->width || out->height != in->height || t < 0 || t > 255)
        return gf_err(GF_EINTERNAL, NULL, "threshold: bad arguments (t %d)", t);
    return 0;
}

int gf_threshold_gold(const gf_image *in, gf_image *out, int t)
{
    int rc = check_size(in, out, t);

    for (int y = 0; rc == 0 && y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            out->data[(size_t)y * out->stride + x] =
                in->data[(size_t)y * in->stride + x] > t ? 255 : 0;
    return rc;
}

GF_CLONES static void threshold_row(const unsigned char *restrict src, unsigned char *restrict dst,
                                    int w, unsigned char t)
{
    for (int x = 0; x < w; x++) /* vectorised: a compare gives 0x00 or 0xff */
        dst[x] = (unsigned char)-(src[x] > t);
}

#ifdef __SSE2__
#include <emmintrin.h>

/* threshold_row for images larger than the caches: the aligned middle of the
 * row is written with non-temporal stores, which skip reading the output's
 * lines into the cache first (a third of the memory traffic). */
static void threshold_row_stream(const unsigned char *restrict src, unsigned char *restrict dst,
                                 int w, unsigned char t)
{
    const __m128i bias = _mm_set1_epi8((char)0x80), tt = _mm_set1_epi8((char)(t ^ 0x80));
    int x = (int)((16 - ((uintptr_t)dst & 15)) & 15);

    if (x > w)
        x = w;
    threshold_row(src, dst, x, t);
    for (; x + 16 <= w; x += 16) { /* unsigned > as signed > after flipping the top bit */
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + x));
        _mm_stream_si128((__m128i *)(void *)(dst + x),
                         _mm_cmpgt_epi8(_mm_xor_si128(v, bias), tt));
    }
    threshold_row(src + x, dst + x, w - x, t);
}
#endif

/* Bytes above which an image goes past the caches: stream the output. */
#define STREAM_BYTES (16u << 20)

int gf_threshold_cpu(const gf_image *in, gf_image *out, int t)
{
    const int w = in->width;
    const unsigned char tt = (unsigned char)t;
    int rc = check_size(in, out, t);

    if (rc)
        return rc;
#ifdef __SSE2__
    if ((uint64_t)w * (uint64_t)in->height >= STREAM_BYTES / 2) {
#pragma omp parallel for schedule(static) if (GF_PARALLEL(w, in->height))
        for (int y = 0; y < in->height; y++)
            threshold_row_stream(in->data + (size_t)y * in->stride,
                                 out->data + (size_t)y * out->stride, w, tt);
        _mm_sfence(); /* the streamed stores before anything reads them */
        return 0;
    }
#endif
#pragma omp parallel for schedule(static) if (GF_PARALLEL(w, in->height))
    for (int y = 0; y < in->height; y++)
        threshold_row(in->data + (size_t)y * in->stride, out->data + (size_t)y * out->stride, w,
                      tt);
    return 0;
}

/* The threshold s applies to in: T, or Otsu's from in's histogram (taken
 * with the gold or the fast histogram). */
static int level(const gf_stage *s, const gf_image *in, int gold, int *t)
{
    const gf_threshold_params *p = GF_CPARAMS(s, gf_threshold_params);
    uint32_t bins[256];
    int rc;

    *t = p->t;
    if (!p->otsu)
        return 0;
    if ((rc = (gold ? gf_hist_gold : gf_hist_cpu)(in, bins)))
        return rc;
    *t = gf_otsu(bins);
    return 0;
}

static int run(const gf_stage *s, const gf_image *in, gf_image *out, int gold)
{
    int t, rc = level(s, in, gold, &t);

    return rc ? rc : (gold ? gf_threshold_gold : gf_threshold_cpu)(in, out, t);
}

static int threshold_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return run(s, in, out, 1);
}

static int threshold_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    return run(s, in, out, 0);
}

static void threshold_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_threshold_params *p = GF_CPARAMS(s, gf_threshold_params);

    if (p->otsu)
        snprintf(buf, n, "threshold otsu");
    else
        snprintf(buf, n, "threshold %d", p->t);
}

/* Otsu reads the image twice (histogram, then threshold) and writes it once. */
static double threshold_bytes(const gf_stage *s, int w, int h)
{
    return (GF_CPARAMS(s, gf_threshold_params)->otsu ? 3.0 : 2.0) * w * h;
}

static int parse_threshold(gf_stage *s, const char *arg)
{
    gf_threshold_params *p = GF_PARAMS(s, gf_threshold_params);

    if (!strcmp(arg, "otsu")) {
        p->otsu = 1;
        return 0;
    }
    return gf_parse_int("--threshold", arg, 0, 255, &p->t);
}

/* Configurations: the extremes, the middle, a random level and Otsu;
 * bench: 128 and Otsu. */
static int threshold_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const int levels[] = {0, 254, 255, 127};
    gf_threshold_params *p = GF_PARAMS(s, gf_threshold_params);

    if (bench) {
        if (i >= 2)
            return 0;
        p->t = 128;
        p->otsu = i == 1;
        return 1;
    }
    if (i >= 6)
        return 0;
    p->otsu = i == 5;
    p->t = i < 4 ? levels[i] : i == 4 ? (int)(gf_rand(rng) % 256) : 0;
    return 1;
}

static const gf_stage_opt threshold_opts[] = {
    {"threshold", "T|otsu",
     "binary threshold: pixels above T (0-255, or the image's Otsu level) become 255, others 0",
     GF_OPT_ADD, parse_threshold},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant threshold_variants[] = {
    {"global", GF_CUDA(gf_threshold_global_cuda)},
    {"vector", GF_CUDA(gf_threshold_vector_cuda)},
    {NULL, NULL},
};

static const gf_default threshold_defaults[] = {
    {0, 0, "vector"},
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_threshold = {
    .cpu_cost = 0.45,
    .name = "threshold",
    .group = "threshold",
    .opts = threshold_opts,
    .variants = threshold_variants,
    .defaults = threshold_defaults,
    .label = threshold_label,
    .floor_bytes = threshold_bytes,
    .gold = threshold_gold,
    .cpu = threshold_cpu,
    .config = threshold_config,
};
