/* hist.c - the histogram stage: --hist FILE (and --stats). 256 bins of the
 * image as it is at that point of the pipeline. */
#include <stdio.h>
#include <string.h>

#include "../kernels.h"
#include "../plot.h"
#include "../report.h"
#include "../stage.h"
#include "../stats.h"
#include "report_file.h"

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

static int hist_cpu(const gf_stage *s, const gf_image *in, uint32_t *bins)
{
    (void)s;
    memset(bins, 0, 256 * sizeof *bins);
    for (int y = 0; y < in->height; y++) {
        const unsigned char *row = in->data + (size_t)y * in->stride;
        for (int x = 0; x < in->width; x++)
            bins[row[x]]++;
    }
    return 0;
}

static int hist_cuda(const gf_stage *s, int variant, const gf_dimage *in, uint32_t *bins,
                     void *stream)
{
    (void)s;
    return gf_hist_cuda(in, bins, variant, stream);
}

static void json_array(FILE *f, const char *key, const uint32_t *v)
{
    fprintf(f, ",\"%s\":[", key);
    for (int i = 0; i < 256; i++)
        fprintf(f, "%s%u", i ? "," : "", v[i]);
    fputc(']', f);
}

static int hist_write(const gf_stage *s, const gf_result *r, const gf_report_opts *o)
{
    const char *path = s->u.report.path;
    const uint32_t(*rgb)[256] = s->u.report.rgb ? r->rgb : NULL;
    gf_hist_stats st;
    gf_memfile m;
    int rc = 0;

    gf_hist_stats_compute(r->vals, &st);
    if (path) {
        gf_report_type t = gf_report_type_of(path);
        if (t == GF_REPORT_PNG) {
            static const size_t ticks[] = {0, 64, 128, 192, 255};
            gf_series series[4] = {
                {r->vals, {40, 40, 40}, rgb == NULL},
            };
            int ns = 1;
            char title[96];
            if (rgb) {
                series[1] = (gf_series){rgb[0], {220, 30, 30}, 0};
                series[2] = (gf_series){rgb[1], {30, 160, 30}, 0};
                series[3] = (gf_series){rgb[2], {30, 60, 220}, 0};
                ns = 4;
            }
            snprintf(title, sizeof title, "histogram %dx%d%s%s", r->width, r->height,
                     rgb ? ": luma (black), R, G, B" : "", o->hist_log ? ", log scale" : "");
            gf_plot p = {256, series, ns, o->hist_log, title, ticks, 5};
            rc = gf_plot_write(path, &p);
        } else if ((rc = gf_memfile_open(&m)) == 0) {
            if (t == GF_REPORT_JSON) {
                fprintf(m.f, "{\"width\":%d,\"height\":%d,\"pixels\":%llu", r->width, r->height,
                        (unsigned long long)st.pixels);
                json_array(m.f, "bins", r->vals);
                if (rgb) {
                    json_array(m.f, "r", rgb[0]);
                    json_array(m.f, "g", rgb[1]);
                    json_array(m.f, "b", rgb[2]);
                }
                fputs(",\"stats\":", m.f);
                gf_hist_stats_json(m.f, &st);
                fputs("}\n", m.f);
            } else if (rgb) {
                fputs("value,r,g,b,luma\n", m.f);
                for (int v = 0; v < 256; v++)
                    fprintf(m.f, "%d,%u,%u,%u,%u\n", v, rgb[0][v], rgb[1][v], rgb[2][v],
                            r->vals[v]);
            } else {
                unsigned long long cum = 0;
                fputs("value,count,cumulative\n", m.f);
                for (int v = 0; v < 256; v++) {
                    cum += r->vals[v];
                    fprintf(m.f, "%d,%u,%llu\n", v, r->vals[v], cum);
                }
            }
            rc = gf_memfile_commit(&m, path);
        }
    }
    if (rc == 0 && !o->quiet && path) {
        fprintf(stderr, "gpufilt: %s: hist: ", strcmp(path, "-") ? path : "(stdout)");
        gf_hist_stats_print(stderr, &st, ' ');
    }
    if (rc == 0 && o->stats) {
        flockfile(stdout); /* one block per file, whole, in a batch */
        if (o->batch)
            printf("file=%s\n", r->input ? r->input : "");
        gf_hist_stats_print(stdout, &st, '\n');
        funlockfile(stdout);
    }
    return rc;
}

static const char *const hist_variants[] = {"global", "shared", NULL};

const gf_stage_ops gf_stage_hist = {
    .name = "hist",
    .description = "256-bin histogram with statistics, to CSV, JSON or a PNG plot",
    .variants = hist_variants,
    .default_variant = GF_HIST_SHARED,
    .label = hist_label,
    .out_size = gf_stage_same_size,
    .report_len = hist_len,
    .report_cpu = hist_cpu,
    .report_cuda = hist_cuda,
    .report_write = hist_write,
};
