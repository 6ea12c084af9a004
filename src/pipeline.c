/* pipeline.c - the stages in order, on the CPU or the GPU (pipeline.h). */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

int gf_stage_variant_index(const gf_stage_ops *ops, const char *name)
{
    for (int i = 0; ops->variants && ops->variants[i]; i++)
        if (!strcmp(ops->variants[i], name))
            return i;
    return -1;
}

double gf_stage_bytes(const gf_stage *s, int width, int height)
{
    int ow, oh;

    if (gf_stage_is_report(s)) /* the image is read; the few values written are left out */
        return (double)width * height;
    s->ops->out_size(s, width, height, &ow, &oh);
    return (double)width * height + (double)ow * oh;
}

int gf_image_diff(const gf_image *a, const gf_image *b, int *x, int *y)
{
    *x = *y = -1;
    if (a->width != b->width || a->height != b->height)
        return 1;
    for (int j = 0; j < a->height; j++) {
        const unsigned char *pa = a->data + (size_t)j * a->stride;
        const unsigned char *pb = b->data + (size_t)j * b->stride;
        if (memcmp(pa, pb, (size_t)a->width))
            for (int i = 0; i < a->width; i++)
                if (pa[i] != pb[i]) {
                    *x = i;
                    *y = j;
                    return 1;
                }
    }
    return 0;
}

void gf_stage_same_size(const gf_stage *s, int width, int height, int *out_w, int *out_h)
{
    (void)s;
    *out_w = width;
    *out_h = height;
}

void gf_output_free(gf_output *o)
{
    gf_image_free(&o->img);
    free(o->vals);
    memset(o, 0, sizeof *o);
}

/* The CPU reference of one stage on in: an image, or report values. */
static int cpu_run(const gf_stage *s, const gf_image *in, gf_output *out)
{
    memset(out, 0, sizeof *out);
    if (!gf_stage_is_report(s))
        return s->ops->run_cpu(s, in, &out->img);
    out->n = s->ops->report_len(s, in->width, in->height);
    out->vals = malloc(out->n * sizeof *out->vals);
    if (!out->vals)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    return s->ops->report_cpu(s, in, out->vals);
}

typedef struct stage_launch {
    const gf_stage *s;
    int variant;
    const gf_dimage *in;
    gf_dimage *out; /* the output image, or the device buffer of report values */
} stage_launch;

static int launch_stage(void *ctx, void *stream)
{
    stage_launch *l = ctx;

    if (gf_stage_is_report(l->s))
        return l->s->ops->report_cuda(l->s, l->variant, l->in, (uint32_t *)(void *)l->out->data,
                                      stream);
    return l->s->ops->run_cuda(l->s, l->variant, l->in, l->out, stream);
}

/* Downloads what variant v left in out and compares it with ref; sets
 * r->match and r->why. */
static int fetch_and_check(gf_gpu *gpu, const gf_stage *s, int v, const gf_dimage *out,
                           const gf_output *ref, gf_variant_result *r)
{
    char label[32];
    int rc, x, y;

    s->ops->label(s, label, sizeof label);
    r->why[0] = 0;
    if (gf_stage_is_report(s)) {
        uint32_t *got = malloc(ref->n * sizeof *got);
        if (!got)
            return gf_err(GF_EINTERNAL, NULL, "out of memory");
        if ((rc = gf_gpu_fetch(gpu, got, out->data, ref->n * sizeof *got)) == 0) {
            size_t i = 0;
            while (i < ref->n && got[i] == ref->vals[i])
                i++;
            r->match = i == ref->n;
            if (!r->match)
                snprintf(r->why, sizeof r->why,
                         "%s: variant %s differs from the CPU reference at [%zu]: %u, not %u",
                         label, s->ops->variants[v], i, got[i], ref->vals[i]);
        }
        free(got);
        return rc;
    }
    gf_image got;
    if ((rc = gf_gpu_download(gpu, out, &got, NULL)))
        return rc;
    r->match = !gf_image_diff(&ref->img, &got, &x, &y);
    if (r->match)
        return 0;
    if (x < 0)
        snprintf(r->why, sizeof r->why, "%s: variant %s gives %dx%d, the CPU reference %dx%d",
                 label, s->ops->variants[v], got.width, got.height, ref->img.width,
                 ref->img.height);
    else
        snprintf(r->why, sizeof r->why,
                 "%s: variant %s differs from the CPU reference at (%d,%d): %d, not %d", label,
                 s->ops->variants[v], x, y, got.data[(size_t)y * got.stride + x],
                 ref->img.data[(size_t)y * ref->img.stride + x]);
    return 0;
}

int gf_stage_variants(gf_gpu *gpu, const gf_stage *s, const gf_image *host,
                      const gf_dimage *src, int keep, gf_dimage *keep_out, gf_dimage *scratch,
                      int reps, gf_output *ref, double *cpu_ms, gf_variant_result *res)
{
    double t0 = gf_now_ms();
    int rc;

    if ((rc = cpu_run(s, host, ref)))
        return rc;
    *cpu_ms = gf_now_ms() - t0;
    for (int v = 0; s->ops->variants[v]; v++) {
        stage_launch l = {s, v, src, v == keep ? keep_out : scratch};
        if ((rc = gf_dimage_poison(gpu, l.out, 0xA5 ^ v)) ||
            (rc = gf_gpu_time(gpu, reps, launch_stage, &l, &res[v].ms)) ||
            (rc = fetch_and_check(gpu, s, v, l.out, ref, &res[v])))
            break;
    }
    if (rc)
        gf_output_free(ref);
    return rc;
}

int gf_stage_check(gf_gpu *gpu, const gf_stage *s, const gf_image *img, int reps,
                   gf_output *ref, double *cpu_ms, gf_variant_result *res)
{
    gf_dimage in, out;
    int ow, oh, rc;
    size_t bytes;

    s->ops->out_size(s, img->width, img->height, &ow, &oh);
    bytes = gf_stage_is_report(s) ? s->ops->report_len(s, img->width, img->height) * 4
                                  : gf_dimage_bytes(ow, oh);
    memset(&out, 0, sizeof out);
    if ((rc = gf_dimage_alloc(gpu, &in, gf_dimage_bytes(img->width, img->height))) == 0 &&
        (rc = gf_dimage_alloc(gpu, &out, bytes)) == 0 &&
        (rc = gf_gpu_upload(gpu, img, &in, NULL)) == 0)
        rc = gf_stage_variants(gpu, s, img, &in, 0, &out, &out, reps, ref, cpu_ms, res);
    gf_dimage_free(&in);
    gf_dimage_free(&out);
    return rc;
}

/* Makes r the result of report stage s on a width x height image, taking
 * ownership of vals. */
static void set_result(gf_result *r, int width, int height, uint32_t *vals, size_t n)
{
    free(r->vals);
    r->width = width;
    r->height = height;
    r->vals = vals;
    r->n = n;
}

/* The CPU backend; with --compare its rows go to the compare table, where
 * the CPU reference is the only variant. */
static int run_cpu(const gf_options *o, gf_image *img, gf_report *rep, gf_result *results)
{
    char label[32];

    for (int i = 0; i < o->nstages; i++) {
        const gf_stage *s = &o->stages[i];
        gf_output out;
        double t0 = gf_now_ms(), bytes = gf_stage_bytes(s, img->width, img->height);
        int rc = cpu_run(s, img, &out);
        if (rc) {
            gf_output_free(&out);
            return rc;
        }
        s->ops->label(s, label, sizeof label);
        (o->compare ? gf_report_compare : gf_report_step)(rep, label, "cpu", gf_now_ms() - t0,
                                                          bytes);
        if (gf_stage_is_report(s)) {
            set_result(&results[i], img->width, img->height, out.vals, out.n);
        } else {
            gf_image_free(img);
            *img = out.img;
        }
    }
    return 0;
}

/* --compare for one stage on the GPU: every variant from `src` into `dst`
 * (the chosen one) or `scratch`, checked against the CPU reference on *host.
 * An image stage's reference output replaces *host; a report stage's values
 * become *result. Rows go to the compare table; *mismatch is set (and the
 * first difference recorded) on any difference. */
static int compare_stage(const gf_stage *s, int chosen, gf_gpu *gpu, gf_image *host,
                         const gf_dimage *src, gf_dimage *dst, gf_dimage *scratch,
                         gf_report *rep, double *chosen_ms, int *mismatch, gf_result *result)
{
    gf_variant_result res[GF_MAX_VARIANTS];
    gf_output ref;
    double bytes = gf_stage_bytes(s, src->width, src->height), cpu_ms;
    char label[32];
    int rc = gf_stage_variants(gpu, s, host, src, chosen, dst, scratch, GF_COMPARE_REPS, &ref,
                               &cpu_ms, res);

    if (rc)
        return rc;
    s->ops->label(s, label, sizeof label);
    gf_report_compare(rep, label, "cpu", cpu_ms, bytes);
    for (int v = 0; s->ops->variants[v]; v++) {
        gf_row *row = gf_report_compare(rep, label, s->ops->variants[v], res[v].ms, bytes);
        row->speedup = res[0].ms / res[v].ms;
        row->check = res[v].match;
        if (!res[v].match && !*mismatch) {
            *mismatch = 1;
            gf_err(GF_EINTERNAL, NULL, "%s", res[v].why);
        }
    }
    *chosen_ms = res[chosen].ms;
    if (gf_stage_is_report(s)) {
        set_result(result, host->width, host->height, ref.vals, ref.n);
    } else {
        gf_image_free(host);
        *host = ref.img;
    }
    return 0;
}

/* The device buffers o's stages need from a width x height input: *cap
 * bytes for the largest image on the way, *vcap for the most report values
 * (0 when no stage reports). */
static void plan_buffers(const gf_options *o, int w, int h, size_t *cap, size_t *vcap)
{
    *cap = gf_dimage_bytes(w, h);
    *vcap = 0;
    for (int i = 0; i < o->nstages; i++) {
        const gf_stage *s = &o->stages[i];
        if (gf_stage_is_report(s) && s->ops->report_len(s, w, h) * 4 > *vcap)
            *vcap = s->ops->report_len(s, w, h) * 4;
        s->ops->out_size(s, w, h, &w, &h);
        if (gf_dimage_bytes(w, h) > *cap)
            *cap = gf_dimage_bytes(w, h);
    }
}

/* The variant a stage runs outside --compare: the one asked for, else its
 * default. */
static int chosen_variant(const gf_stage *s)
{
    return s->variant >= 0 ? s->variant : s->ops->default_variant;
}

static int run_cuda(const gf_options *o, gf_gpu *gpu, gf_image *img, gf_image *out,
                    gf_report *rep, gf_result *results)
{
    gf_dimage d[3], dv;
    size_t cap, vcap;
    int cur = 0, rc, mismatch = 0;
    double ms;
    char label[32];

    memset(d, 0, sizeof d);
    memset(&dv, 0, sizeof dv);
    plan_buffers(o, img->width, img->height, &cap, &vcap);
    for (int i = 0; i < (o->compare ? 3 : (o->nstages ? 2 : 1)); i++)
        if ((rc = gf_gpu_buffer(gpu, i, cap, &d[i])))
            goto out;
    if (vcap && (rc = gf_gpu_buffer(gpu, 3, vcap, &dv)))
        goto out;
    if ((rc = gf_gpu_upload(gpu, img, &d[0], &ms)))
        goto out;
    gf_report_step(rep, "upload", NULL, ms, (double)img->width * img->height);
    if (!o->compare)
        gf_image_free(img);
    for (int i = 0; i < o->nstages; i++) {
        const gf_stage *s = &o->stages[i];
        const int report = gf_stage_is_report(s);
        int v = chosen_variant(s);
        gf_dimage *dst = report ? &dv : &d[1 - cur];
        double bytes = gf_stage_bytes(s, d[cur].width, d[cur].height);
        s->ops->label(s, label, sizeof label);
        if (o->compare) {
            rc = compare_stage(s, v, gpu, img, &d[cur], dst, report ? &dv : &d[2], rep, &ms,
                               &mismatch, &results[i]);
        } else {
            stage_launch l = {s, v, &d[cur], dst};
            if ((rc = gf_gpu_timer_start(gpu)) == 0 &&
                (rc = launch_stage(&l, gf_gpu_stream(gpu))) == 0)
                rc = gf_gpu_timer_stop(gpu, &ms);
            if (rc == 0 && report) {
                size_t n = s->ops->report_len(s, d[cur].width, d[cur].height);
                uint32_t *vals = malloc(n * sizeof *vals);
                if (!vals)
                    rc = gf_err(GF_EINTERNAL, NULL, "out of memory");
                else if ((rc = gf_gpu_fetch(gpu, vals, dv.data, n * sizeof *vals)))
                    free(vals);
                else
                    set_result(&results[i], d[cur].width, d[cur].height, vals, n);
            }
        }
        if (rc)
            goto out;
        gf_report_step(rep, label, s->ops->variants[v], ms, bytes);
        if (!report)
            cur = 1 - cur;
    }
    if ((rc = gf_gpu_download(gpu, &d[cur], out, &ms)))
        goto out;
    gf_report_step(rep, "download", NULL, ms, (double)out->width * out->height);
    if (mismatch)
        rc = GF_EINTERNAL; /* the message was recorded by compare_stage */
out:
    gf_image_free(img); /* the device buffers are gpu's, kept for the next file */
    return rc;
}

int gf_pipeline_warm(const gf_options *o, gf_gpu *gpu)
{
    enum { SIDE = 16 };
    gf_dimage d[2], dv;
    size_t cap, vcap;
    int rc, cur = 0;
    double ms;

    plan_buffers(o, SIDE, SIDE, &cap, &vcap);
    if ((rc = gf_gpu_buffer(gpu, 0, cap, &d[0])) || (rc = gf_gpu_buffer(gpu, 1, cap, &d[1])) ||
        (vcap && (rc = gf_gpu_buffer(gpu, 3, vcap, &dv))) ||
        (rc = gf_dimage_poison(gpu, &d[0], 0x5A)) || (rc = gf_dimage_shape(&d[0], SIDE, SIDE)) ||
        (rc = gf_gpu_timer_start(gpu)))
        return rc;
    for (int i = 0; i < o->nstages && rc == 0; i++) {
        const gf_stage *s = &o->stages[i];
        stage_launch l = {s, chosen_variant(s), &d[cur], gf_stage_is_report(s) ? &dv : &d[1 - cur]};
        rc = launch_stage(&l, gf_gpu_stream(gpu));
        if (!gf_stage_is_report(s))
            cur = 1 - cur;
    }
    return rc ? rc : gf_gpu_timer_stop(gpu, &ms);
}

int gf_pipeline_run(const gf_options *o, gf_gpu *gpu, gf_image *img, gf_image *out, int *owned,
                    gf_report *rep, gf_result *results)
{
    int rc;

    if (!gpu) {
        if ((rc = run_cpu(o, img, rep, results)))
            return rc;
        *out = *img;
        memset(img, 0, sizeof *img);
        *owned = 1;
        return 0;
    }
    *owned = 0;
    return run_cuda(o, gpu, img, out, rep, results);
}
