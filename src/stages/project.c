/* project.c - projection profiles: --colsum FILE and --rowsum FILE. */
#include "project.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../report/json.h"

extern const gf_stage_ops gf_stage_colsum, gf_stage_rowsum;

int gf_colsum_gold(const gf_image *in, uint32_t *sums)
{
    for (int x = 0; x < in->width; x++) {
        uint32_t s = 0;
        for (int y = 0; y < in->height; y++)
            s += in->data[(size_t)y * in->stride + x];
        sums[x] = s;
    }
    return 0;
}

/* Adds a row into 32-bit sums (vectorised: widening adds). */
GF_CLONES static void add_row(const unsigned char *restrict row, uint32_t *restrict sums, int w)
{
    for (int x = 0; x < w; x++)
        sums[x] += row[x];
}

int gf_colsum_cpu(const gf_image *in, uint32_t *sums)
{
    const int w = in->width;
    int failed = 0;

    memset(sums, 0, (size_t)w * sizeof *sums);
#pragma omp parallel reduction(| : failed) if (GF_PARALLEL(w, in->height))
    {
        uint32_t *part = calloc((size_t)w, sizeof *part); /* this thread's band of rows */
        if (!part)
            failed = 1;
#pragma omp for schedule(static) nowait
        for (int y = 0; y < in->height; y++)
            if (part)
                add_row(in->data + (size_t)y * in->stride, part, w);
#pragma omp critical
        for (int x = 0; part && x < w; x++)
            sums[x] += part[x];
        free(part);
    }
    return failed ? gf_err(GF_EINTERNAL, NULL, "colsum: out of memory") : 0;
}

int gf_rowsum_gold(const gf_image *in, uint32_t *sums)
{
    for (int y = 0; y < in->height; y++) {
        uint32_t s = 0;
        for (int x = 0; x < in->width; x++)
            s += in->data[(size_t)y * in->stride + x];
        sums[y] = s;
    }
    return 0;
}

/* The sum of a row of w bytes. With SSE2, PSADBW adds 16 bytes into two
 * 64-bit lanes at a time (a sum of absolute differences from zero), twice as
 * fast here as the compiler's widening adds; a row sums to at most
 * 255 * INT_MAX, which the 64-bit lanes hold, and is returned mod 2^32 as the
 * gold's uint32_t sum is. */
GF_CLONES static uint32_t row_total(const unsigned char *restrict row, int w)
{
    uint64_t t = 0;
    int x = 0;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    __m128i acc = zero;
    for (; x + 16 <= w; x += 16)
        acc = _mm_add_epi64(acc, _mm_sad_epu8(_mm_loadu_si128((const __m128i *)(row + x)), zero));
    t = (uint64_t)_mm_cvtsi128_si64(acc) +
        (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc, acc));
#endif
    for (; x < w; x++)
        t += row[x];
    return (uint32_t)t;
}

int gf_rowsum_cpu(const gf_image *in, uint32_t *sums)
{
#pragma omp parallel for schedule(static) if (GF_PARALLEL(in->width, in->height))
    for (int y = 0; y < in->height; y++)
        sums[y] = row_total(in->data + (size_t)y * in->stride, in->width);
    return 0;
}

static int is_col(const gf_stage *s)
{
    return s->ops == &gf_stage_colsum;
}

static void project_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s", is_col(s) ? "colsum" : "rowsum");
}

static size_t project_len(const gf_stage *s, int w, int h)
{
    return (size_t)(is_col(s) ? w : h);
}

static int project_gold(const gf_stage *s, const gf_image *in, uint32_t *sums)
{
    return (is_col(s) ? gf_colsum_gold : gf_rowsum_gold)(in, sums);
}

static int project_cpu(const gf_stage *s, const gf_image *in, uint32_t *sums)
{
    return (is_col(s) ? gf_colsum_cpu : gf_rowsum_cpu)(in, sums);
}

static void project_csv(const gf_stage *s, const gf_result *r, FILE *f)
{
    const double count = is_col(s) ? r->height : r->width; /* pixels per sum */

    fputs("index,sum,mean\n", f);
    for (size_t i = 0; i < r->n; i++)
        fprintf(f, "%zu,%u,%.4f\n", i, r->vals[i], r->vals[i] / count);
}

static json_t *project_json(const gf_stage *s, const gf_result *r)
{
    json_t *sums = json_array();
    unsigned long long total = 0;

    for (size_t i = 0; i < r->n; i++) {
        total += r->vals[i];
        json_array_append_new(sums, json_integer(r->vals[i]));
    }
    return json_pack("{s:s,s:i,s:i,s:I,s:o}", "axis", is_col(s) ? "column" : "row", "width",
                     r->width, "height", r->height, "total", (json_int_t)total, "sums", sums);
}

static void project_plot(const gf_stage *s, const gf_result *r, gf_plot *p)
{
    p->n = r->n;
    p->x_max = (int)r->n - 1;
    p->series[0] = (gf_plot_series){NULL, r->vals, {31, 119, 180}, 0};
    p->nseries = 1;
    snprintf(p->title, sizeof p->title, "%s sums of %s (%dx%d)", is_col(s) ? "Column" : "Row",
             r->input ? r->input : "-", r->width, r->height);
    p->x_title = is_col(s) ? "column" : "row";
    p->y_title = "sum";
}

static int parse_path(gf_stage *s, const char *arg)
{
    s->path = arg;
    return 0;
}

static int project_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    (void)s, (void)bench, (void)rng;
    return i == 0;
}

static const gf_stage_opt colsum_opts[] = {
    {"colsum", "FILE", "column sums (vertical projection profile): .csv, .json, .png, .svg or -",
     GF_OPT_ADD, parse_path},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_stage_opt rowsum_opts[] = {
    {"rowsum", "FILE", "row sums (horizontal projection profile): .csv, .json, .png, .svg or -",
     GF_OPT_ADD, parse_path},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant colsum_variants[] = {
    {"byte", GF_CUDA(gf_colsum_byte_cuda)},
    {"word", GF_CUDA(gf_colsum_word_cuda)},
    {"split", GF_CUDA(gf_colsum_split_cuda)},
    {"vector", GF_CUDA(gf_colsum_vector_cuda)},
    {NULL, NULL},
};

static const gf_variant rowsum_variants[] = {
    {"warp", GF_CUDA(gf_rowsum_warp_cuda)},
    {NULL, NULL},
};

static const gf_default colsum_defaults[] = {
    {0, 4000000, "vector"}, /* from 4 MP; below, split's smaller blocks fill the GPU better */
    {0, 0, "split"},        /* see docs/benchmarks.md */
    {0, 0, NULL},
};

static const gf_default rowsum_defaults[] = {
    {0, 0, "warp"},
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_colsum = {
    .cpu_cost = 0.10,
    .name = "colsum",
    .group = "colsum",
    .opts = colsum_opts,
    .variants = colsum_variants,
    .defaults = colsum_defaults,
    .label = project_label,
    .report_len = project_len,
    .report_gold = project_gold,
    .report_cpu = project_cpu,
    .write_csv = project_csv,
    .to_json = project_json,
    .plot = project_plot,
    .config = project_config,
};

const gf_stage_ops gf_stage_rowsum = {
    .cpu_cost = 0.10,
    .name = "rowsum",
    .group = "colsum",
    .opts = rowsum_opts,
    .variants = rowsum_variants,
    .defaults = rowsum_defaults,
    .label = project_label,
    .report_len = project_len,
    .report_gold = project_gold,
    .report_cpu = project_cpu,
    .write_csv = project_csv,
    .to_json = project_json,
    .plot = project_plot,
    .config = project_config,
};
