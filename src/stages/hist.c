/* hist.c - the histogram stage: --hist FILE, --hist-log, --hist-channels.
 * 256 bins of the image as it is at that point of the pipeline, with
 * statistics. */
#include "hist.h"

#include <stdlib.h>
#include <string.h>

#include "../report/json.h"
#include "../report/stats.h"

int gf_hist_gold(const gf_image *in, uint32_t *bins)
{
    memset(bins, 0, 256 * sizeof *bins);
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            bins[in->data[(size_t)y * in->stride + x]]++;
    return 0;
}

/* Counts a row into four sub-histograms, a pixel each in turn, so that runs
 * of one value do not wait on their own previous increment. Eight pixels are
 * read as one 64-bit word and taken apart with shifts, which frees the load
 * ports for the counters (the order of the bytes does not matter to a count). */
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

int gf_hist_cpu(const gf_image *in, uint32_t *bins)
{
    memset(bins, 0, 256 * sizeof *bins);
#pragma omp parallel if (GF_PARALLEL(in->width, in->height))
    {
        uint32_t part[4][256];
        memset(part, 0, sizeof part);
#pragma omp for schedule(static) nowait
        for (int y = 0; y < in->height; y++)
            count_row(in->data + (size_t)y * in->stride, in->width, part);
#pragma omp critical
        for (int v = 0; v < 256; v++)
            bins[v] += part[0][v] + part[1][v] + part[2][v] + part[3][v];
    }
    return 0;
}

static void hist_label(const gf_stage *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "hist");
}

static size_t hist_len(const gf_stage *s, int w, int h)
{
    (void)s, (void)w, (void)h;
    return 256;
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

/* The R, G and B counts when --hist-channels rgb asked for them. */
static const uint32_t (*rgb_of(const gf_stage *s, const gf_result *r))[256]
{
    return s->mods.rgb ? r->rgb : NULL;
}

static void hist_csv(const gf_stage *s, const gf_result *r, FILE *f)
{
    const uint32_t(*rgb)[256] = rgb_of(s, r);
    unsigned long long cum = 0;

    if (rgb) {
        fputs("value,r,g,b,luma\n", f);
        for (int v = 0; v < 256; v++)
            fprintf(f, "%d,%u,%u,%u,%u\n", v, rgb[0][v], rgb[1][v], rgb[2][v], r->vals[v]);
        return;
    }
    fputs("value,count,cumulative\n", f);
    for (int v = 0; v < 256; v++) {
        cum += r->vals[v];
        fprintf(f, "%d,%u,%llu\n", v, r->vals[v], cum);
    }
}

static json_t *counts(const uint32_t *v)
{
    json_t *a = json_array();
    for (int i = 0; a && i < 256; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

static json_t *hist_json(const gf_stage *s, const gf_result *r)
{
    const uint32_t(*rgb)[256] = rgb_of(s, r);
    gf_hist_stats st;
    json_t *j;

    gf_hist_stats_compute(r->vals, &st);
    j = json_pack("{s:i,s:i,s:I,s:o}", "width", r->width, "height", r->height, "pixels",
                  (json_int_t)st.pixels, "bins", counts(r->vals));
    if (j && rgb) {
        json_object_set_new(j, "r", counts(rgb[0]));
        json_object_set_new(j, "g", counts(rgb[1]));
        json_object_set_new(j, "b", counts(rgb[2]));
    }
    if (j)
        json_object_set_new(j, "stats", gf_hist_stats_json(&st));
    return j;
}

static void hist_plot(const gf_stage *s, const gf_result *r, gf_plot *p)
{
    static const char *const names[3] = {"R", "G", "B"};
    static const unsigned char colours[3][3] = {{214, 39, 40}, {44, 160, 44}, {31, 119, 180}};
    const uint32_t(*rgb)[256] = rgb_of(s, r);

    p->n = 256;
    p->x_max = 255;
    p->log = s->mods.log;
    p->series[0] = (gf_plot_series){rgb ? "luma" : NULL, r->vals, {60, 60, 60}, rgb == NULL};
    p->nseries = 1;
    for (int c = 0; rgb && c < 3; c++)
        p->series[p->nseries++] = (gf_plot_series){names[c], rgb[c],
                                                   {colours[c][0], colours[c][1], colours[c][2]},
                                                   0};
    snprintf(p->title, sizeof p->title, "Histogram of %s (%dx%d)", r->input ? r->input : "-",
             r->width, r->height);
    p->x_title = "value";
    p->y_title = s->mods.log ? "pixels (log scale)" : "pixels";
}

static int hist_stats(const gf_stage *s, const gf_result *r, gf_stat *out)
{
    gf_hist_stats st;
    (void)s;
    gf_hist_stats_compute(r->vals, &st);
    return gf_hist_stats_kv(&st, out);
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

static int parse_channels(gf_stage *s, const char *arg)
{
    if (strcmp(arg, "luma") && strcmp(arg, "rgb"))
        return gf_err(GF_EUSAGE, NULL, "--hist-channels: '%s' is not luma or rgb", arg);
    if (s->ops != &gf_stage_hist)
        return 1;
    s->mods.rgb = !strcmp(arg, "rgb");
    return 0;
}

static int hist_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    (void)s, (void)bench, (void)rng;
    return i == 0;
}

static const gf_stage_opt hist_opts[] = {
    {"hist", "FILE",
     "256-bin histogram with statistics: FILE.csv, .json, .png or .svg plot, or - (CSV on "
     "stdout)",
     GF_OPT_ADD, parse_hist},
    {"hist-log", NULL, "plot the histograms after it on a log scale", GF_OPT_MODIFIER, parse_log},
    {"hist-channels", "luma|rgb",
     "rgb: the histograms after it also count R, G and B of the decoded image", GF_OPT_MODIFIER,
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
