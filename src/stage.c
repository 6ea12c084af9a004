/* stage.c - what every stage shares (stage.h). */
#include "stage.h"

#include <stdlib.h>
#include <string.h>

const gf_stage_ops *gf_stage_find(const char *name)
{
    for (int i = 0; gf_stages[i]; i++)
        if (!strcmp(gf_stages[i]->name, name))
            return gf_stages[i];
    return NULL;
}

void gf_stage_init(gf_stage *s, const gf_stage_ops *ops)
{
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->variant = -1;
}

int gf_stage_variant_index(const gf_stage_ops *ops, const char *name)
{
    for (int i = 0; ops->variants && ops->variants[i].name; i++)
        if (!strcmp(ops->variants[i].name, name))
            return i;
    return -1;
}

int gf_stage_nvariants(const gf_stage_ops *ops)
{
    int n = 0;
    while (ops->variants && ops->variants[n].name)
        n++;
    return n;
}

int gf_stage_pick(const gf_stage *s, int cc, int width, int height)
{
    const gf_default *d = s->ops->defaults;

    if (s->variant >= 0)
        return s->variant;
    for (; d && d->variant; d++)
        if (cc >= d->min_cc && (uint64_t)width * (uint64_t)height >= d->min_pixels) {
            int v = gf_stage_variant_index(s->ops, d->variant);
            return v >= 0 ? v : 0;
        }
    return 0;
}

void gf_stage_out_size(const gf_stage *s, int width, int height, int *out_w, int *out_h)
{
    if (s->ops->out_size && !gf_stage_is_report(s)) {
        s->ops->out_size(s, width, height, out_w, out_h);
        return;
    }
    *out_w = width;
    *out_h = height;
}

double gf_stage_cpu_ms(const gf_stage *s, int width, int height, int threads)
{
    return s->ops->cpu_cost * (double)width * height / (threads > 0 ? threads : 1) / 1e6;
}

double gf_stages_cpu_ms(const gf_stage *s, int n, int width, int height, int threads)
{
    double ms = 0;

    for (int i = 0; i < n; i++) {
        ms += gf_stage_cpu_ms(&s[i], width, height, threads);
        gf_stage_out_size(&s[i], width, height, &width, &height);
    }
    return ms;
}

void gf_stages_out_size(const gf_stage *s, int n, int width, int height, int *out_w, int *out_h)
{
    for (int i = 0; i < n; i++)
        gf_stage_out_size(&s[i], width, height, &width, &height);
    *out_w = width;
    *out_h = height;
}

int gf_stage_same_report(const gf_stage *stages, int i)
{
    for (int j = i - 1; j >= 0 && gf_stage_is_report(&stages[j]); j--)
        if (stages[j].ops == stages[i].ops)
            return j;
    return -1;
}

double gf_stage_bytes(const gf_stage *s, int width, int height)
{
    int ow, oh;

    if (s->ops->floor_bytes)
        return s->ops->floor_bytes(s, width, height);
    if (gf_stage_is_report(s)) /* the image is read; the few values written are left out */
        return (double)width * height;
    gf_stage_out_size(s, width, height, &ow, &oh);
    return (double)width * height + (double)ow * oh;
}

const char *gf_stage_label(const gf_stage *s, char *buf, size_t n)
{
    s->ops->label(s, buf, n);
    return buf;
}

int gf_stage_run_cpu(const gf_stage *s, int gold, const gf_image *in, gf_image *out,
                     uint32_t **vals, size_t *n)
{
    int rc;

    if (!gf_stage_is_report(s)) {
        int (*fn)(const gf_stage *, const gf_image *, gf_image *) =
            gold || !s->ops->cpu ? s->ops->gold : s->ops->cpu;
        int ow, oh;
        gf_stage_out_size(s, in->width, in->height, &ow, &oh);
        if ((rc = gf_image_alloc(out, ow, oh)) == 0 && (rc = fn(s, in, out)))
            gf_image_free(out);
        return rc;
    }
    *n = s->ops->report_len(s, in->width, in->height);
    *vals = malloc(*n * sizeof **vals);
    if (!*vals)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    rc = (gold || !s->ops->report_cpu ? s->ops->report_gold : s->ops->report_cpu)(s, in, *vals);
    if (rc) {
        free(*vals);
        *vals = NULL;
    }
    return rc;
}
