/* stage.c - what every stage shares (stage.h). */
#include "stage.h"

#include <stdio.h>
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

int gf_stage_variant_inexact(const gf_stage_ops *ops, int v)
{
    for (const char *const *n = ops->inexact; n && *n; n++)
        if (!strcmp(*n, ops->variants[v].name))
            return 1;
    return 0;
}

int gf_stage_pick(const gf_stage *s, int cc, const gf_shape *in)
{
    const gf_default *d = s->ops->defaults;

    if (s->variant >= 0)
        return s->variant;
    for (; d && d->variant; d++)
        if (cc >= d->min_cc && (uint64_t)in->width * (uint64_t)in->height >= d->min_pixels) {
            int v = gf_stage_variant_index(s->ops, d->variant);
            /* an inexact variant is never a default */
            return v >= 0 && !gf_stage_variant_inexact(s->ops, v) ? v : 0;
        }
    return 0;
}

void gf_stage_out_shape(const gf_stage *s, const gf_shape *in, gf_shape *out)
{
    const gf_shape src = *in;

    if (s->ops->out_shape && !gf_stage_is_report(s))
        s->ops->out_shape(s, &src, out);
    else
        *out = src;
}

int gf_stage_accepts(const gf_stage *s, const gf_shape *in)
{
    const unsigned set = s->ops->layouts ? s->ops->layouts : GF_LAYOUTS_ALL;
    char label[48];

    if (!gf_layout_valid(in->channels, in->bits))
        return gf_err(GF_EINTERNAL, NULL, "image of %d channels of %d bits", in->channels,
                      in->bits);
    if (!(set & GF_LAYOUT_BIT(in->channels, in->bits))) {
        char names[128] = "";
        size_t n = 0;
        for (int bits = 8; bits <= 16; bits += 8)
            for (int c = 1; c <= GF_MAX_CHANNELS; c++)
                if (set & GF_LAYOUT_BIT(c, bits))
                    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                                          gf_layout_name(c, bits));
        return gf_err(GF_EUSAGE, NULL, "%s takes %s images, not %s (%s)",
                      gf_stage_label(s, label, sizeof label), names,
                      gf_layout_words(in->channels, in->bits),
                      gf_layout_name(in->channels, in->bits));
    }
    return s->ops->check ? s->ops->check(s, in) : 0;
}

int gf_stage_unchanged(const gf_stage *s, const gf_shape *in)
{
    return s->ops->unchanged && s->ops->unchanged(s, in);
}

int gf_stages_check(const gf_stage *s, int n, const gf_shape *in, gf_shape *out)
{
    gf_shape cur = *in;
    int rc;

    for (int i = 0; i < n; i++) {
        if ((rc = gf_stage_accepts(&s[i], &cur)))
            return rc;
        gf_stage_out_shape(&s[i], &cur, &cur);
    }
    if (out)
        *out = cur;
    return 0;
}

/* Bytes of an image of shape s. */
static double image_bytes(const gf_shape *s)
{
    return (double)s->width * s->height * (double)GF_PIXEL_BYTES(s->channels, s->bits);
}

double gf_stage_cpu_ms(const gf_stage *s, const gf_shape *in, int threads)
{
    const double cost = s->ops->cpu_cost_of ? s->ops->cpu_cost_of(s, in) : s->ops->cpu_cost;
    return cost * image_bytes(in) / (threads > 0 ? threads : 1) / 1e6;
}

double gf_stages_cpu_ms(const gf_stage *s, int n, const gf_shape *in, int threads)
{
    gf_shape cur = *in;
    double ms = 0;

    for (int i = 0; i < n; i++) {
        ms += gf_stage_cpu_ms(&s[i], &cur, threads);
        gf_stage_out_shape(&s[i], &cur, &cur);
    }
    return ms;
}

int gf_stage_same_report(const gf_stage *stages, int i)
{
    for (int j = i - 1; j >= 0 && gf_stage_is_report(&stages[j]); j--)
        if (stages[j].ops == stages[i].ops)
            return j;
    return -1;
}

double gf_stage_bytes(const gf_stage *s, const gf_shape *in)
{
    gf_shape out;

    if (s->ops->floor_bytes)
        return s->ops->floor_bytes(s, in);
    if (gf_stage_is_report(s)) /* the image is read; the few values written are left out */
        return image_bytes(in);
    gf_stage_out_shape(s, in, &out);
    return image_bytes(in) + image_bytes(&out);
}

const char *gf_stage_label(const gf_stage *s, char *buf, size_t n)
{
    s->ops->label(s, buf, n);
    return buf;
}

int gf_stage_run_cpu(const gf_stage *s, int gold, const gf_image *in, gf_image *out,
                     uint32_t **vals, size_t *n)
{
    const gf_shape sh = gf_image_shape(in);
    int rc;

    if (!gf_stage_is_report(s)) {
        int (*fn)(const gf_stage *, const gf_image *, gf_image *) =
            gold || !s->ops->cpu ? s->ops->gold : s->ops->cpu;
        gf_shape os;
        gf_stage_out_shape(s, &sh, &os);
        if ((rc = gf_image_alloc_shape(out, &os)) == 0 && (rc = fn(s, in, out)))
            gf_image_free(out);
        return rc;
    }
    *n = s->ops->report_len(s, &sh);
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
