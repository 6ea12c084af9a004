/* project.c - projection profiles: --colsum FILE (one sum per column, the
 * vertical profile) and --rowsum FILE (one sum per row). */
#include <stdio.h>
#include <string.h>

#include "../kernels.h"
#include "../plot.h"
#include "../stage.h"
#include "report_file.h"

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

static int project_cpu(const gf_stage *s, const gf_image *in, uint32_t *sums)
{
    const int col = is_col(s);

    if (col)
        memset(sums, 0, (size_t)in->width * sizeof *sums);
#pragma omp parallel for schedule(static) if (!col)
    for (int y = 0; y < in->height; y++) {
        const unsigned char *row = in->data + (size_t)y * in->stride;
        uint32_t t = 0;
        for (int x = 0; x < in->width; x++) {
            if (col)
                sums[x] += row[x];
            else
                t += row[x];
        }
        if (!col)
            sums[y] = t;
    }
    return 0;
}

static int colsum_cuda(const gf_stage *s, int variant, const gf_dimage *in, uint32_t *sums,
                       void *stream)
{
    (void)s;
    return gf_colsum_cuda(in, sums, variant, stream);
}

static int rowsum_cuda(const gf_stage *s, int variant, const gf_dimage *in, uint32_t *sums,
                       void *stream)
{
    (void)s;
    return gf_rowsum_cuda(in, sums, variant, stream);
}

static int project_write(const gf_stage *s, const gf_result *r, const gf_report_opts *o)
{
    const int col = is_col(s);
    const char *path = s->u.report.path;
    const double count = col ? r->height : r->width; /* pixels per sum */
    unsigned long long total = 0;
    gf_memfile m;
    int rc;

    (void)o;
    for (size_t i = 0; i < r->n; i++)
        total += r->vals[i];
    if (gf_report_type_of(path) == GF_REPORT_PNG) {
        size_t ticks[5] = {0, r->n / 4, r->n / 2, 3 * r->n / 4, r->n - 1};
        gf_series series = {r->vals, {30, 60, 220}, 0};
        char title[96];
        snprintf(title, sizeof title, "%s sums, %dx%d", col ? "column" : "row", r->width,
                 r->height);
        gf_plot p = {r->n, &series, 1, 0, title, ticks, r->n >= 5 ? 5 : 1};
        return gf_plot_write(path, &p);
    }
    if ((rc = gf_memfile_open(&m)))
        return rc;
    if (gf_report_type_of(path) == GF_REPORT_JSON) {
        fprintf(m.f, "{\"axis\":\"%s\",\"width\":%d,\"height\":%d,\"total\":%llu,\"sums\":[",
                col ? "column" : "row", r->width, r->height, total);
        for (size_t i = 0; i < r->n; i++)
            fprintf(m.f, "%s%u", i ? "," : "", r->vals[i]);
        fputs("]}\n", m.f);
    } else {
        fputs("index,sum,mean\n", m.f);
        for (size_t i = 0; i < r->n; i++)
            fprintf(m.f, "%zu,%u,%.4f\n", i, r->vals[i], r->vals[i] / count);
    }
    return gf_memfile_commit(&m, path);
}

static const char *const colsum_variants[] = {"byte", "word", "split", NULL};
static const char *const rowsum_variants[] = {"warp", NULL};

const gf_stage_ops gf_stage_colsum = {
    .name = "colsum",
    .description = "column sums (vertical projection profile) to CSV, JSON or PNG",
    .variants = colsum_variants,
    .default_variant = GF_COLSUM_SPLIT,
    .label = project_label,
    .out_size = gf_stage_same_size,
    .report_len = project_len,
    .report_cpu = project_cpu,
    .report_cuda = colsum_cuda,
    .report_write = project_write,
};

const gf_stage_ops gf_stage_rowsum = {
    .name = "rowsum",
    .description = "row sums (horizontal projection profile) to CSV, JSON or PNG",
    .variants = rowsum_variants,
    .default_variant = 0,
    .label = project_label,
    .out_size = gf_stage_same_size,
    .report_len = project_len,
    .report_cpu = project_cpu,
    .report_cuda = rowsum_cuda,
    .report_write = project_write,
};
