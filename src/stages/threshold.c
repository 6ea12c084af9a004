/* threshold.c - the binary threshold stage: --threshold T|otsu. */
#include "threshold.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../otsu.h"
#include "hist.h"

_Static_assert(sizeof(gf_threshold_params) <= GF_STAGE_PARAMS, "threshold params");

static int check_size(const gf_image *in, const gf_image *out, int t)
{
    if (out->width != in->width || out->height != in->height || out->channels != in->channels ||
        out->bits != in->bits || t < 0 || (unsigned)t > gf_sample_max(in->bits))
        return gf_err(GF_EINTERNAL, NULL, "threshold: bad arguments (t %d)", t);
    return 0;
}

int gf_threshold_gold(const gf_image *in, gf_image *out, int t)
{
    const unsigned max = gf_sample_max(in->bits);
    int rc = check_size(in, out, t);

    for (int y = 0; rc == 0 && y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            for (int c = 0; c < in->channels; c++)
                gf_sample_set(out, x, y, c, gf_sample(in, x, y, c) > (unsigned)t ? max : 0);
    return rc;
}

GF_CLONES static void threshold_row(const unsigned char *restrict src, unsigned char *restrict dst,
                                    size_t w, unsigned char t)
{
    for (size_t x = 0; x < w; x++) /* vectorised: a compare gives 0x00 or 0xff */
        dst[x] = (unsigned char)-(src[x] > t);
}

GF_CLONES static void threshold_row16(const unsigned char *restrict src,
                                      unsigned char *restrict dst, size_t w, uint16_t t)
{
    const uint16_t *restrict s = (const uint16_t *)(const void *)src;
    uint16_t *restrict d = (uint16_t *)(void *)dst;
    for (size_t x = 0; x < w; x++)
        d[x] = (uint16_t)-(s[x] > t);
}

#ifdef __SSE2__
#include <emmintrin.h>

/* threshold_row or threshold_row16 (bits) over n samples, for images larger
 * than the cache: the aligned middle of the row is written with
 * non-temporal stores, which skip reading the output's lines into the cache
 * first (a third of the memory traffic). Unsigned > is signed > after
 * flipping each sample's top bit. */
static void threshold_row_stream(const unsigned char *restrict src, unsigned char *restrict dst,
                                 size_t n, unsigned t, int bits)
{
    const size_t sb = (size_t)bits / 8, bytes = n * sb;
    const __m128i bias = bits == 8 ? _mm_set1_epi8((char)0x80) : _mm_set1_epi16((short)0x8000);
    const __m128i tt = bits == 8 ? _mm_set1_epi8((char)(t ^ 0x80u))
                                 : _mm_set1_epi16((short)(t ^ 0x8000u));
    size_t x = (16 - ((uintptr_t)dst & 15)) & 15; /* bytes; even for 16-bit rows */

    if (x > bytes)
        x = bytes;
    if (bits == 8)
        threshold_row(src, dst, x, (unsigned char)t);
    else
        threshold_row16(src, dst, x / 2, (uint16_t)t);
    for (; x + 16 <= bytes; x += 16) {
        const __m128i v = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(src + x)), bias);
        _mm_stream_si128((__m128i *)(void *)(dst + x),
                         bits == 8 ? _mm_cmpgt_epi8(v, tt) : _mm_cmpgt_epi16(v, tt));
    }
    if (bits == 8)
        threshold_row(src + x, dst + x, bytes - x, (unsigned char)t);
    else
        threshold_row16(src + x, dst + x, (bytes - x) / 2, (uint16_t)t);
}
#endif

/* Bytes of input and output together from which the output is streamed
 * (faster from here on the machines of docs/benchmarks.md, whatever the
 * last-level cache's nominal size). */
#define STREAM_BYTES (16u << 20)

int gf_threshold_cpu(const gf_image *in, gf_image *out, int t)
{
    const size_t n = (size_t)in->width * (size_t)in->channels; /* samples a row */
    const int h = in->height;
    int rc = check_size(in, out, t);

    if (rc)
        return rc;
#ifdef __SSE2__
    /* in and out together past the caches: stream the output */
    if ((uint64_t)n * (uint64_t)h * (uint64_t)(in->bits / 8) * 2 >= STREAM_BYTES) {
#pragma omp parallel for schedule(static) if (GF_PARALLEL(n, h))
        for (int y = 0; y < h; y++)
            threshold_row_stream(in->data + (size_t)y * in->stride,
                                 out->data + (size_t)y * out->stride, n, (unsigned)t, in->bits);
        _mm_sfence(); /* the streamed stores before anything reads them */
        return 0;
    }
#endif
    if (in->bits == 16) {
#pragma omp parallel for schedule(static) if (GF_PARALLEL(n, h))
        for (int y = 0; y < h; y++)
            threshold_row16(in->data + (size_t)y * in->stride, out->data + (size_t)y * out->stride,
                            n, (uint16_t)t);
        return 0;
    }
#pragma omp parallel for schedule(static) if (GF_PARALLEL(n, h))
    for (int y = 0; y < h; y++)
        threshold_row(in->data + (size_t)y * in->stride, out->data + (size_t)y * out->stride, n,
                      (unsigned char)t);
    return 0;
}

/* The threshold s applies to in: T, or Otsu's from in's histogram (taken
 * with the gold or the fast histogram; in has one channel). */
static int level(const gf_stage *s, const gf_image *in, int gold, int *t)
{
    const gf_threshold_params *p = GF_CPARAMS(s, gf_threshold_params);
    const int nbins = gf_hist_bins(in->bits);
    uint32_t *bins;
    int rc;

    *t = p->t;
    if (!p->otsu)
        return 0;
    if (!(bins = malloc((size_t)nbins * sizeof *bins)))
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    if ((rc = (gold ? gf_hist_gold : gf_hist_cpu)(in, bins)) == 0)
        *t = gf_otsu(bins, nbins);
    free(bins);
    return rc;
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

/* Otsu takes one channel; T must be a sample of the image. */
static int threshold_check(const gf_stage *s, const gf_shape *in)
{
    const gf_threshold_params *p = GF_CPARAMS(s, gf_threshold_params);

    if (p->otsu && in->channels != 1)
        return gf_err(GF_EUSAGE, NULL,
                      "--threshold otsu takes one channel, not %s (%s): put --gray before it",
                      gf_layout_words(in->channels, in->bits),
                      gf_layout_name(in->channels, in->bits));
    if (!p->otsu && (unsigned)p->t > gf_sample_max(in->bits))
        return gf_err(GF_EUSAGE, NULL,
                      "--threshold %d is above %u, the largest sample of a %s image: put "
                      "--depth 16 before it, or give a level in 0..%u",
                      p->t, gf_sample_max(in->bits), gf_layout_words(in->channels, in->bits),
                      gf_sample_max(in->bits));
    return 0;
}

/* Otsu reads the image twice (histogram, then threshold) and writes it once. */
static double threshold_bytes(const gf_stage *s, const gf_shape *in)
{
    return (GF_CPARAMS(s, gf_threshold_params)->otsu ? 3.0 : 2.0) * in->width * in->height *
           (double)GF_PIXEL_BYTES(in->channels, in->bits);
}

static int parse_threshold(gf_stage *s, const char *arg)
{
    gf_threshold_params *p = GF_PARAMS(s, gf_threshold_params);

    if (!strcmp(arg, "otsu")) {
        p->otsu = 1;
        return 0;
    }
    return gf_parse_int("--threshold", arg, 0, 65535, &p->t);
}

/* Configurations: the extremes of 8 bits, the middle, a random level and
 * Otsu (every level suits every layout); bench: 128 and Otsu. */
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
     "binary threshold of each sample: above T (or the image's Otsu level) becomes the largest "
     "sample, others 0",
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
    .layouts = GF_LAYOUTS_ALL,
    .check = threshold_check,
    .label = threshold_label,
    .floor_bytes = threshold_bytes,
    .gold = threshold_gold,
    .cpu = threshold_cpu,
    .config = threshold_config,
};
