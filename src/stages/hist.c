/* hist.c - the histogram stage: --hist FILE, --hist-log. A bin per value of
 * each channel of the image as it is at that point of the pipeline, with
 * statistics per channel. */
#include "hist.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../report/json.h"
#include "../report/stats.h"

int gf_hist_gold(const gf_image *in, uint32_t *bins)
{
    const int nb = gf_hist_bins(in->bits);

    memset(bins, 0, (size_t)in->channels * (size_t)nb * sizeof *bins);
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            for (int c = 0; c < in->channels; c++)
                bins[c * nb + (int)gf_sample(in, x, y, c)]++;
    return 0;
}

/* Counts an 8-bit gray row into four sub-histograms, a pixel each in turn,
 * so that runs of one value do not wait on their own previous increment.
 * Eight pixels are read as one 64-bit word and taken apart with shifts,
 * which frees the load ports for the counters (the order of the bytes does
 * not matter to a count). */
static void count_row(const unsigned char *row, int w, uint32_t (*part)[256])
{
    int x = 0;
    for (; x + 8 <= w; x += 8) {
        uint64_t v;
        memcpy(&v, row + x, sizeof v);
        part[0][v & 255]++;
        part[1][(v >> 8) & 255]++;
        part[2][(v >> 16) & 255]++;
        part[3][(v >> 24) & 255]++;
        part[0][(v >> 32) & 255]++;
        part[1][(v >> 40) & 255]++;
        part[2][(v >> 48) & 255]++;
        part[3][v >> 56]++;
    }
    for (; x < w; x++)
        part[0][row[x]]++;
}

/* An 8-bit row of C channels: channel c's sample into part[x % 2][c][v],
 * alternating between two tables from pixel to pixel for the same reason. */
#define COUNT_ROW_C(C)                                                                        \
    static void count_row_c##C(const unsigned char *row, int w, uint32_t (*part)[4][256])    \
    {                                                                                         \
        for (int x = 0; x < w; x++)                                                           \
            for (int c = 0; c < (C); c++)                                                     \
                part[x & 1][c][row[(size_t)x * (C) + c]]++;                                   \
    }
COUNT_ROW_C(2)
COUNT_ROW_C(3)
COUNT_ROW_C(4)

static int hist_cpu_8(const gf_image *in, uint32_t *bins)
{
    const int ch = in->channels;

    memset(bins, 0, (size_t)ch * 256 * sizeof *bins);
#pragma omp parallel if (GF_PARALLEL(in->width, in->height))
    {
        uint32_t part[4][4][256]; /* [sub-histogram][channel][value]; gray: [4][256] */
        memset(part, 0, sizeof part);
#pragma omp for schedule(static) nowait
        for (int y = 0; y < in->height; y++) {
            const unsigned char *row = in->data + (size_t)y * in->stride;
            if (ch == 1)
                count_row(row, in->width, (uint32_t(*)[256])part);
            else if (ch == 2)
                count_row_c2(row, in->width, part);
            else if (ch == 3)
                count_row_c3(row, in->width, part);
            else
                count_row_c4(row, in->width, part);
        }
#pragma omp critical
        for (int c = 0; c < ch; c++)
            for (int v = 0; v < 256; v++)
                bins[c * 256 + v] += ch == 1 ? part[0][0][v] + part[0][1][v] + part[0][2][v] +
                                                   part[0][3][v]
                                             : part[0][c][v] + part[1][c][v];
    }
    return 0;
}

/* 16 bits: a partial histogram of channels x 65536 counts per thread (two
 * for gray, taking pixels in turn), then the bins split among the threads
 * to add the partials up. */
static int hist_cpu_16(const gf_image *in, uint32_t *bins)
{
    const int ch = in->channels, copies = ch == 1 ? 2 : 1;
    const size_t n = (size_t)ch * 65536;
    const int threads = GF_PARALLEL(in->width, in->height) ? gf_cpu_threads() : 1;
    uint32_t **part = calloc((size_t)threads, sizeof *part);
    int failed = 0;

    if (!part)
        return gf_err(GF_EINTERNAL, NULL, "hist: out of memory");
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
#ifdef _OPENMP
        const int me = omp_get_thread_num();
#else
        const int me = 0;
#endif
        uint32_t *p = part[me] = calloc(n * (size_t)copies, sizeof *p);
        if (!p)
            failed = 1;
#pragma omp for schedule(static)
        for (int y = 0; y < in->height; y++) {
            const uint16_t *row = (const uint16_t *)(const void *)(in->data + (size_t)y * in->stride);
            if (!p)
                continue;
            if (ch == 1)
                for (int x = 0; x < in->width; x++)
                    p[(size_t)(x & 1) * 65536 + row[x]]++;
            else
                for (int x = 0; x < in->width; x++)
                    for (int c = 0; c < ch; c++)
                        p[(size_t)c * 65536 + row[(size_t)x * ch + c]]++;
        }
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) {
            uint32_t s = 0;
            for (int t = 0; t < threads; t++)
                if (part[t])
                    s += part[t][i] + (copies == 2 ? part[t][n + i] : 0);
            bins[i] = s;
        }
    }
    for (int t = 0; t < threads; t++)
        free(part[t]);
    free(part);
    return failed ? gf_err(GF_EINTERNAL, NULL, "hist: out of memory") : 0;
}

int gf_hist_cpu(const gf_image *in, uint32_t *bins)
{
    return in->bits == 8 ? hist_cpu_8(in, bins) : hist_cpu_16(in, bins);
}

static void hist_label(const gf_stage *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "hist");
}

static size_t hist_len(const gf_stage *s, const gf_shape *in)
{
    (void)s;
    return (size_t)in->channels * (size_t)gf_hist_bins(in->bits);
}

static int hist_report_gold(const gf_stage *s, const gf_image *in, uint32_t *bins)
{
    (void)s;
    return gf_hist_gold(in, bins);
}

static int hist_report_cpu(const gf_stage *s, const gf_image *in, uint32_t *bins)
{
    (void)s;
    return gf_hist_cpu(in, bins);
}

/* Channel c's counts in r. */
static const uint32_t *channel(const gf_result *r, int c)
{
    return r->vals + (size_t)c * (size_t)gf_hist_bins(r->shape.bits);
}

/* One channel: value,count,cumulative; several: value, then a count
 * column per channel, named (value,red,green,blue). */
static void hist_csv(const gf_stage *s, const gf_result *r, FILE *f)
{
    const int nb = gf_hist_bins(r->shape.bits), ch = r->shape.channels;
    unsigned long long cum = 0;
    (void)s;

    if (ch == 1) {
        fputs("value,count,cumulative\n", f);
        for (int v = 0; v < nb; v++) {
            cum += r->vals[v];
            fprintf(f, "%d,%u,%llu\n", v, r->vals[v], cum);
        }
        return;
    }
    fputs("value", f);
    for (int c = 0; c < ch; c++)
        fprintf(f, ",%s", gf_channel_name(ch, c));
    fputc('\n', f);
    for (int v = 0; v < nb; v++) {
        fprintf(f, "%d", v);
        for (int c = 0; c < ch; c++)
            fprintf(f, ",%u", channel(r, c)[v]);
        fputc('\n', f);
    }
}

static json_t *counts(const uint32_t *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* width, height, bits, channels (their names), pixels; then bins and stats:
 * for one channel an array and an object, as gray images always had; for
 * several, objects keyed by channel name. */
static json_t *hist_json(const gf_stage *s, const gf_result *r)
{
    const int nb = gf_hist_bins(r->shape.bits), ch = r->shape.channels;
    json_t *names = json_array(), *bins = ch == 1 ? NULL : json_object(),
           *stats = ch == 1 ? NULL : json_object(), *j;
    gf_hist_stats st;
    (void)s;

    for (int c = 0; c < ch; c++) {
        json_array_append_new(names, json_string(gf_channel_name(ch, c)));
        gf_hist_stats_compute(channel(r, c), nb, &st);
        if (ch == 1) {
            bins = counts(channel(r, c), nb);
            stats = gf_hist_stats_json(&st);
        } else {
            json_object_set_new(bins, gf_channel_name(ch, c), counts(channel(r, c), nb));
            json_object_set_new(stats, gf_channel_name(ch, c), gf_hist_stats_json(&st));
        }
    }
    j = json_pack("{s:i,s:i,s:i,s:o,s:I,s:o,s:o}", "width", r->shape.width, "height",
                  r->shape.height, "bits", r->shape.bits, "channels", names, "pixels",
                  (json_int_t)((json_int_t)r->shape.width * r->shape.height), "bins", bins,
                  "stats", stats);
    return j;
}

/* A series a channel, coloured as its name says; one gray channel alone is
 * drawn as bars. */
static void hist_plot(const gf_stage *s, const gf_result *r, gf_plot *p)
{
    static const unsigned char gray[3] = {60, 60, 60}, alpha[3] = {150, 150, 150},
                               rgb[3][3] = {{214, 39, 40}, {44, 160, 44}, {31, 119, 180}};
    const int nb = gf_hist_bins(r->shape.bits), ch = r->shape.channels;

    p->n = (size_t)nb;
    p->x_max = nb - 1;
    p->log = s->mods.log;
    p->nseries = ch;
    for (int c = 0; c < ch; c++) {
        const int is_alpha = (ch == 2 || ch == 4) && c == ch - 1;
        const unsigned char *col = is_alpha ? alpha : ch <= 2 ? gray : rgb[c];
        p->series[c] = (gf_plot_series){ch == 1 ? NULL : gf_channel_name(ch, c), channel(r, c),
                                        {col[0], col[1], col[2]}, ch == 1};
    }
    snprintf(p->title, sizeof p->title, "Histogram of %s (%dx%d%s%s)",
             r->input ? r->input : "-", r->shape.width, r->shape.height,
             ch == 1 && r->shape.bits == 8 ? "" : ", ",
             ch == 1 && r->shape.bits == 8 ? "" : gf_layout_words(ch, r->shape.bits));
    p->x_title = "value";
    p->y_title = s->mods.log ? "pixels (log scale)" : "pixels";
}

/* The statistics of each channel; several channels' keys start with the
 * channel's name and a dot (red.mean). */
static int hist_stats(const gf_stage *s, const gf_result *r, gf_stat *out)
{
    const int nb = gf_hist_bins(r->shape.bits), ch = r->shape.channels;
    gf_hist_stats st;
    char prefix[16];
    int n = 0;
    (void)s;

    for (int c = 0; c < ch && n + GF_HIST_NSTATS <= GF_MAX_STATS; c++) {
        snprintf(prefix, sizeof prefix, "%s%s", ch == 1 ? "" : gf_channel_name(ch, c),
                 ch == 1 ? "" : ".");
        gf_hist_stats_compute(channel(r, c), nb, &st);
        n += gf_hist_stats_kv(&st, prefix, out + n);
    }
    return n;
}

static int parse_hist(gf_stage *s, const char *arg)
{
    s->path = arg;
    return 0;
}

static int parse_log(gf_stage *s, const char *arg)
{
    (void)arg;
    if (s->ops != &gf_stage_hist)
        return 1;
    s->mods.log = 1;
    return 0;
}

/* --hist-channels luma|rgb counted the decoded image's R, G and B beside
 * the luma; histograms now count every channel the image has. */
static int parse_channels(gf_stage *s, const char *arg)
{
    (void)s, (void)arg;
    return gf_err(GF_EUSAGE, NULL,
                  "--hist-channels is gone: --hist counts every channel of the image at its "
                  "point of the pipeline (columns value,red,green,blue for a colour image); put "
                  "--gray before --hist for the luma alone");
}

static int hist_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    (void)s, (void)bench, (void)rng;
    return i == 0;
}

static const gf_stage_opt hist_opts[] = {
    {"hist", "FILE",
     "histogram of each channel, a bin per value, with statistics: FILE.csv, .json, .png or "
     ".svg plot, or - (CSV on stdout)",
     GF_OPT_ADD, parse_hist},
    {"hist-log", NULL, "plot the histograms after it on a log scale", GF_OPT_MODIFIER, parse_log},
    {"hist-channels", "luma|rgb",
     "removed: histograms count every channel (put --gray first for the luma)", GF_OPT_MODIFIER,
     parse_channels},
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant hist_variants[] = {
    {"global", GF_CUDA(gf_hist_global_cuda)},
    {"shared", GF_CUDA(gf_hist_shared_cuda)},
    {"warp", GF_CUDA(gf_hist_warp_cuda)},
    {NULL, NULL},
};

static const gf_default hist_defaults[] = {
    {0, 0, "warp"}, /* see docs/benchmarks.md */
    {0, 0, NULL},
};

const gf_stage_ops gf_stage_hist = {
    .cpu_cost = 0.40,
    .name = "hist",
    .group = "hist",
    .opts = hist_opts,
    .variants = hist_variants,
    .defaults = hist_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .label = hist_label,
    .report_len = hist_len,
    .report_gold = hist_report_gold,
    .report_cpu = hist_report_cpu,
    .write_csv = hist_csv,
    .to_json = hist_json,
    .plot = hist_plot,
    .stats = hist_stats,
    .config = hist_config,
};
