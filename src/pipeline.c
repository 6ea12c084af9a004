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

/* The CPU backend; with --compare its rows go to the compare table, where
 * the CPU reference is the only variant. */
static int run_cpu(const gf_options *o, gf_image *img, gf_report *rep)
{
    char label[32];

    for (int i = 0; i < o->nstages; i++) {
        const gf_stage *s = &o->stages[i];
        gf_image next;
        double t0 = gf_now_ms(), bytes = gf_stage_bytes(s, img->width, img->height);
        int rc = s->ops->run_cpu(s, img, &next);
        if (rc)
            return rc;
        s->ops->label(s, label, sizeof label);
        (o->compare ? gf_report_compare : gf_report_step)(rep, label, "cpu", gf_now_ms() - t0,
                                                          bytes);
        gf_image_free(img);
        *img = next;
    }
    return 0;
}

typedef struct stage_launch {
    const gf_stage *s;
    int variant;
    const gf_dimage *in;
    gf_dimage *out;
} stage_launch;

static int launch_stage(void *ctx, void *stream)
{
    stage_launch *l = ctx;
    return l->s->ops->run_cuda(l->s, l->variant, l->in, l->out, stream);
}

int gf_stage_variants(gf_gpu *gpu, const gf_stage *s, const gf_image *host,
                      const gf_dimage *src, int keep, gf_dimage *keep_out, gf_dimage *scratch,
                      int reps, gf_image *ref, double *cpu_ms, gf_variant_result *res)
{
    double t0 = gf_now_ms();
    gf_image got;
    int rc, x, y;
    char label[32];

    s->ops->label(s, label, sizeof label);
    if ((rc = s->ops->run_cpu(s, host, ref)))
        return rc;
    *cpu_ms = gf_now_ms() - t0;
    for (int v = 0; s->ops->variants[v]; v++) {
        stage_launch l = {s, v, src, v == keep ? keep_out : scratch};
        gf_variant_result *r = &res[v];
        if ((rc = gf_dimage_poison(gpu, l.out, 0xA5 ^ v)) ||
            (rc = gf_gpu_time(gpu, reps, launch_stage, &l, &r->ms)) ||
            (rc = gf_gpu_download(gpu, l.out, &got, NULL)))
            break;
        r->match = !gf_image_diff(ref, &got, &x, &y);
        if (r->match)
            r->why[0] = 0;
        else if (x < 0)
            snprintf(r->why, sizeof r->why, "%s: variant %s gives %dx%d, the CPU reference %dx%d",
                     label, s->ops->variants[v], got.width, got.height, ref->width, ref->height);
        else
            snprintf(r->why, sizeof r->why,
                     "%s: variant %s differs from the CPU reference at (%d,%d): %d, not %d",
                     label, s->ops->variants[v], x, y, got.data[(size_t)y * got.stride + x],
                     ref->data[(size_t)y * ref->stride + x]);
    }
    if (rc)
        gf_image_free(ref);
    return rc;
}

/* --compare for one stage on the GPU: every variant from `src` into `dst`
 * (the chosen one) or `scratch`, checked against the CPU reference on *host,
 * which is replaced by the reference's output. Rows go to the compare table;
 * *mismatch is set (and the first difference recorded) on any difference. */
static int compare_stage(const gf_stage *s, int chosen, gf_gpu *gpu, gf_image *host,
                         const gf_dimage *src, gf_dimage *dst, gf_dimage *scratch,
                         gf_report *rep, double *chosen_ms, int *mismatch)
{
    gf_variant_result res[GF_MAX_VARIANTS];
    gf_image ref;
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
    gf_image_free(host);
    *host = ref;
    return 0;
}

static int run_cuda(const gf_options *o, gf_gpu *gpu, gf_image *img, gf_image *out,
                    gf_report *rep)
{
    gf_dimage d[3];
    size_t cap = gf_dimage_bytes(img->width, img->height);
    int w = img->width, h = img->height, cur = 0, rc, mismatch = 0;
    double ms;
    char label[32];

    memset(d, 0, sizeof d);
    for (int i = 0; i < o->nstages; i++) {
        o->stages[i].ops->out_size(&o->stages[i], w, h, &w, &h);
        if (gf_dimage_bytes(w, h) > cap)
            cap = gf_dimage_bytes(w, h);
    }
    for (int i = 0; i < (o->compare ? 3 : (o->nstages ? 2 : 1)); i++)
        if ((rc = gf_dimage_alloc(gpu, &d[i], cap)))
            goto out;
    if ((rc = gf_gpu_upload(gpu, img, &d[0], &ms)))
        goto out;
    gf_report_step(rep, "upload", NULL, ms, (double)img->width * img->height);
    if (!o->compare) {
        gf_image_free(img);
    }
    for (int i = 0; i < o->nstages; i++) {
        const gf_stage *s = &o->stages[i];
        int v = s->variant >= 0 ? s->variant : s->ops->default_variant;
        double bytes = gf_stage_bytes(s, d[cur].width, d[cur].height);
        s->ops->label(s, label, sizeof label);
        if (o->compare) {
            rc = compare_stage(s, v, gpu, img, &d[cur], &d[1 - cur], &d[2], rep, &ms, &mismatch);
        } else if ((rc = gf_gpu_timer_start(gpu)) == 0 &&
                   (rc = s->ops->run_cuda(s, v, &d[cur], &d[1 - cur], gf_gpu_stream(gpu))) == 0) {
            rc = gf_gpu_timer_stop(gpu, &ms);
        }
        if (rc)
            goto out;
        gf_report_step(rep, label, s->ops->variants[v], ms, bytes);
        cur = 1 - cur;
    }
    if ((rc = gf_gpu_download(gpu, &d[cur], out, &ms)))
        goto out;
    gf_report_step(rep, "download", NULL, ms, (double)out->width * out->height);
    if (mismatch)
        rc = GF_EINTERNAL; /* the message was recorded by compare_stage */
out:
    gf_image_free(img);
    for (int i = 0; i < 3; i++)
        gf_dimage_free(&d[i]);
    return rc;
}

int gf_pipeline_run(const gf_options *o, gf_gpu *gpu, gf_image *img, gf_image *out, int *owned,
                    gf_report *rep)
{
    int rc;

    if (!gpu) {
        if ((rc = run_cpu(o, img, rep)))
            return rc;
        *out = *img;
        memset(img, 0, sizeof *img);
        *owned = 1;
        return 0;
    }
    *owned = 0;
    return run_cuda(o, gpu, img, out, rep);
}
