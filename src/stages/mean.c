/* mean.c - the box mean stage: --mean 3|5. */
#include "mean.h"

#include <stdio.h>
#include <stdlib.h>

#include "../kernels.h"
#include "../stage.h"

#define MAX_RADIUS 2

int gf_mean_cpu(const gf_image *in, gf_image *out, int ksize, gf_border border)
{
    const int w = in->width, h = in->height, r = ksize / 2;
    const unsigned area = (unsigned)(ksize * ksize);
    int failed = 0;

    if ((ksize != 3 && ksize != 5) || out->width != w || out->height != h)
        return gf_err(GF_EINTERNAL, NULL, "mean: bad arguments (ksize %d)", ksize);

#pragma omp parallel reduction(| : failed)
    {
        /* colsum[x + r] = sum of the ksize padded pixels above and below (x, y),
         * for x in [-r, w + r). */
        unsigned *colsum = malloc(((size_t)w + 2 * MAX_RADIUS) * sizeof *colsum);
        const unsigned char *rows[2 * MAX_RADIUS + 1];

        if (!colsum)
            failed = 1;
#pragma omp for schedule(static)
        for (int y = 0; y < h; y++) {
            if (!colsum)
                continue;
            unsigned const_rows = 0;
            int nrows = 0;
            for (int dy = -r; dy <= r; dy++) {
                int yy = gf_border_index(y + dy, h, border.mode);
                if (yy < 0)
                    const_rows++;
                else
                    rows[nrows++] = in->data + (size_t)yy * in->stride;
            }
            for (int x = 0; x < w; x++) {
                unsigned s = const_rows * (unsigned)border.value;
                for (int i = 0; i < nrows; i++)
                    s += rows[i][x];
                colsum[x + r] = s;
            }
            for (int x = -r; x < 0; x++) {
                int xx = gf_border_index(x, w, border.mode);
                colsum[x + r] = xx < 0 ? (unsigned)ksize * (unsigned)border.value : colsum[xx + r];
            }
            for (int x = w; x < w + r; x++) {
                int xx = gf_border_index(x, w, border.mode);
                colsum[x + r] = xx < 0 ? (unsigned)ksize * (unsigned)border.value : colsum[xx + r];
            }
            unsigned char *o = out->data + (size_t)y * out->stride;
            unsigned s = 0;
            for (int i = 0; i < ksize - 1; i++)
                s += colsum[i];
            for (int x = 0; x < w; x++) {
                s += colsum[x + ksize - 1];
                o[x] = (unsigned char)((2 * s + area) / (2 * area));
                s -= colsum[x];
            }
        }
        free(colsum);
    }
    if (failed)
        return gf_err(GF_EINTERNAL, NULL, "mean: out of memory");
    return 0;
}

static void mean_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "mean %d", s->u.mean.ksize);
}

static int mean_run_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    int rc = gf_image_alloc(out, in->width, in->height);

    if (rc == 0)
        rc = gf_mean_cpu(in, out, s->u.mean.ksize, s->u.mean.border);
    if (rc)
        gf_image_free(out);
    return rc;
}

static int mean_run_cuda(const gf_stage *s, int variant, const gf_dimage *in, gf_dimage *out,
                         void *stream)
{
    return gf_mean_cuda(in, out, s->u.mean.ksize, s->u.mean.border, variant, stream);
}

static const char *const mean_variants[] = {"global", "shared", NULL};

const gf_stage_ops gf_stage_mean = {
    .name = "mean",
    .description = "box mean (box filter) of 3x3 or 5x5, rounded to nearest",
    .variants = mean_variants,
    .default_variant = GF_MEAN_SHARED,
    .label = mean_label,
    .out_size = gf_stage_same_size,
    .run_cpu = mean_run_cpu,
    .run_cuda = mean_run_cuda,
};
