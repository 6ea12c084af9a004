/* project.c - projection profiles: --colsum FILE and --rowsum FILE. */
#include "project.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../report/json.h"

extern const gf_stage_ops gf_stage_colsum, gf_stage_rowsum;

int gf_colsum_gold(const gf_image *in, uint32_t *sums)
{
    for (int x = 0; x < in->width; x++)
        for (int c = 0; c < in->channels; c++) {
            uint32_t s = 0;
            for (int y = 0; y < in->height; y++)
                s += gf_sample(in, x, y, c);
            sums[(size_t)x * in->channels + c] = s;
        }
    return 0;
}

/* Adds a row of n samples into 32-bit sums (vectorised: widening adds). */
GF_CLONES static void add_row(const unsigned char *restrict row, uint32_t *restrict sums, size_t n)
{
    for (size_t x = 0; x < n; x++)
        sums[x] += row[x];
}

GF_CLONES static void add_row16(const unsigned char *restrict row, uint32_t *restrict sums,
                                size_t n)
{
    const uint16_t *restrict r = (const uint16_t *)(const void *)row;
    for (size_t x = 0; x < n; x++)
        sums[x] += r[x];
}

/* Adds rows y0 .. y1-1 of in (n samples a row) into acc[n]. */
static void add_band(const gf_image *in, size_t n, int y0, int y1, uint32_t *acc)
{
    void (*const add)(const unsigned char *restrict, uint32_t *restrict, size_t) =
        in->bits == 8 ? add_row : add_row16;

    for (int y = y0; y < y1; y++)
        add(in->data + (size_t)y * in->stride, acc, n);
}

/* The image as one channel of width x channels samples: its column sums are
 * the channels' columns', in the same order. Each thread adds its band of
 * rows into its own sums, then the columns are split among the threads to
 * add those up. */
int gf_colsum_cpu(const gf_image *in, uint32_t *sums)
{
    const size_t n = (size_t)in->width * (size_t)in->channels;
    const int h = in->height, threads = GF_PARALLEL(n, h) ? gf_cpu_threads() : 1;

    memset(sums, 0, n * sizeof *sums);
    if (threads == 1) {
        add_band(in, n, 0, h, sums);
        return 0;
    }
    uint32_t *part = calloc((size_t)threads * n, sizeof *part); /* thread t's sums: part + t n */
    if (!part)
        return gf_err(GF_EINTERNAL, NULL, "colsum: out of memory");
#pragma omp parallel num_threads(threads)
    {
#ifdef _OPENMP
        const int me = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int me = 0, nt = 1;
#endif
        add_band(in, n, (int)((int64_t)h * me / nt), (int)((int64_t)h * (me + 1) / nt),
                 part + (size_t)me * n);
#pragma omp barrier
#pragma omp for schedule(static)
        for (size_t x = 0; x < n; x++) {
            uint32_t s = 0;
            for (int t = 0; t < threads; t++) /* a thread never started left zeros */
                s += part[(size_t)t * n + x];
            sums[x] = s;
        }
    }
    free(part);
    return 0;
}

int gf_rowsum_gold(const gf_image *in, uint32_t *sums)
{
    for (int y = 0; y < in->height; y++)
        for (int c = 0; c < in->channels; c++) {
            uint32_t s = 0;
            for (int x = 0; x < in->width; x++)
                s += gf_sample(in, x, y, c);
            sums[(size_t)y * in->channels + c] = s;
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

/* A row's sum per channel for C channels of type T: C accumulators over
 * the pixels (64-bit, so a block of pixels never overflows), each channel's
 * total mod 2^32 as the gold's uint32_t sums are. */
#define ROW_TOTALS(NAME, T, C)                                                                \
    GF_CLONES static void NAME(const unsigned char *restrict row, int w, uint32_t *out)       \
    {                                                                                         \
        const T *restrict r = (const T *)(const void *)row;                                   \
        uint64_t t[C] = {0};                                                                  \
        for (int x = 0; x < w; x++)                                                           \
            for (int c = 0; c < (C); c++)                                                     \
                t[c] += r[(size_t)x * (C) + c];                                               \
        for (int c = 0; c < (C); c++)                                                         \
            out[c] = (uint32_t)t[c];                                                          \
    }
ROW_TOTALS(row_totals_8_2, uint8_t, 2)
ROW_TOTALS(row_totals_8_3, uint8_t, 3)
ROW_TOTALS(row_totals_8_4, uint8_t, 4)
ROW_TOTALS(row_totals_16_1, uint16_t, 1)
ROW_TOTALS(row_totals_16_2, uint16_t, 2)
ROW_TOTALS(row_totals_16_3, uint16_t, 3)
ROW_TOTALS(row_totals_16_4, uint16_t, 4)

int gf_rowsum_cpu(const gf_image *in, uint32_t *sums)
{
    static void (*const fns[2][4])(const unsigned char *restrict, int, uint32_t *) = {
        {NULL, row_totals_8_2, row_totals_8_3, row_totals_8_4},
        {row_totals_16_1, row_totals_16_2, row_totals_16_3, row_totals_16_4}};
    void (*fn)(const unsigned char *restrict, int, uint32_t *) =
        fns[in->bits / 16][in->channels - 1];

    if (in->channels == 1 && in->bits == 8) { /* gray: PSADBW, no call through fn */
#pragma omp parallel for schedule(static) if (GF_PARALLEL(in->width, in->height))
        for (int y = 0; y < in->height; y++)
            sums[y] = row_total(in->data + (size_t)y * in->stride, in->width);
        return 0;
    }
#pragma omp parallel for schedule(static) if (GF_PARALLEL(in->width, in->height))
    for (int y = 0; y < in->height; y++)
        fn(in->data + (size_t)y * in->stride, in->width, sums + (size_t)y * in->channels);
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

static size_t project_len(const gf_stage *s, const gf_shape *in)
{
    return (size_t)(is_col(s) ? in->width : in->height) * (size_t)in->channels;
}

static int project_gold(const gf_stage *s, const gf_image *in, uint32_t *sums)
{
    return (is_col(s) ? gf_colsum_gold : gf_rowsum_gold)(in, sums);
}

static int project_cpu(const gf_stage *s, const gf_image *in, uint32_t *sums)
{
    return (is_col(s) ? gf_colsum_cpu : gf_rowsum_cpu)(in, sums);
}

/* Sums per index: one channel, index,sum,mean as gray images always had;
 * several, index, a sum column per channel named for it, then a mean per
 * channel (index,red,green,blue,red_mean,green_mean,blue_mean). */
static void project_csv(const gf_stage *s, const gf_result *r, FILE *f)
{
    const double count = is_col(s) ? r->shape.height : r->shape.width; /* pixels per sum */
    const int ch = r->shape.channels;
    const size_t n = r->n / (size_t)ch;

    if (ch == 1) {
        fputs("index,sum,mean\n", f);
        for (size_t i = 0; i < n; i++)
            fprintf(f, "%zu,%u,%.4f\n", i, r->vals[i], r->vals[i] / count);
        return;
    }
    fputs("index", f);
    for (int c = 0; c < ch; c++)
        fprintf(f, ",%s", gf_channel_name(ch, c));
    for (int c = 0; c < ch; c++)
        fprintf(f, ",%s_mean", gf_channel_name(ch, c));
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%zu", i);
        for (int c = 0; c < ch; c++)
            fprintf(f, ",%u", r->vals[i * ch + c]);
        for (int c = 0; c < ch; c++)
            fprintf(f, ",%.4f", r->vals[i * ch + c] / count);
        fputc('\n', f);
    }
}

/* axis, width, height, bits, channels; then total and sums: for one
 * channel an integer and an array, as gray images always had; for several,
 * objects keyed by channel name. */
static json_t *project_json(const gf_stage *s, const gf_result *r)
{
    const int ch = r->shape.channels;
    const size_t n = r->n / (size_t)ch;
    json_t *names = json_array(), *sums = ch == 1 ? NULL : json_object(),
           *totals = ch == 1 ? NULL : json_object();

    for (int c = 0; c < ch; c++) {
        json_t *a = json_array();
        unsigned long long total = 0;
        for (size_t i = 0; i < n; i++) {
            total += r->vals[i * ch + c];
            json_array_append_new(a, json_integer(r->vals[i * ch + c]));
        }
        json_array_append_new(names, json_string(gf_channel_name(ch, c)));
        if (ch == 1) {
            sums = a;
            totals = json_integer((json_int_t)total);
        } else {
            json_object_set_new(sums, gf_channel_name(ch, c), a);
            json_object_set_new(totals, gf_channel_name(ch, c), json_integer((json_int_t)total));
        }
    }
    return json_pack("{s:s,s:i,s:i,s:i,s:o,s:o,s:o}", "axis", is_col(s) ? "column" : "row",
                     "width", r->shape.width, "height", r->shape.height, "bits", r->shape.bits,
                     "channels", names, "total", totals, "sums", sums);
}

/* A line a channel, coloured as its name says (values gathered per channel
 * into the plot's own arrays: the result interleaves them). */
static void project_plot(const gf_stage *s, const gf_result *r, gf_plot *p)
{
    static const unsigned char gray[3] = {31, 119, 180}, alpha[3] = {150, 150, 150},
                               rgb[3][3] = {{214, 39, 40}, {44, 160, 44}, {31, 119, 180}};
    const int ch = r->shape.channels;
    const size_t n = r->n / (size_t)ch;

    p->n = n;
    p->x_max = (int)n - 1;
    p->nseries = 0;
    for (int c = 0; c < ch; c++) {
        uint32_t *v = malloc(n * sizeof *v);
        const int is_alpha = (ch == 2 || ch == 4) && c == ch - 1;
        const unsigned char *col = is_alpha ? alpha : ch <= 2 ? gray : rgb[c];
        if (!v)
            break;
        for (size_t i = 0; i < n; i++)
            v[i] = r->vals[i * ch + c];
        p->owned[p->nseries] = v;
        p->series[p->nseries++] = (gf_plot_series){ch == 1 ? NULL : gf_channel_name(ch, c), v,
                                                   {col[0], col[1], col[2]}, 0};
    }
    snprintf(p->title, sizeof p->title, "%s sums of %s (%dx%d%s%s)",
             is_col(s) ? "Column" : "Row", r->input ? r->input : "-", r->shape.width,
             r->shape.height, ch == 1 && r->shape.bits == 8 ? "" : ", ",
             ch == 1 && r->shape.bits == 8 ? "" : gf_layout_words(ch, r->shape.bits));
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
    .layouts = GF_LAYOUTS_ALL,
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
    .layouts = GF_LAYOUTS_ALL,
};
