/* pipeline.c - the stages in order, on the CPU or the GPU (pipeline.h). */
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

int gf_image_diff(const gf_image *a, const gf_image *b, int *x, int *y, int *c)
{
    const size_t px = GF_PIXEL_BYTES(a->channels, a->bits), row = (size_t)a->width * px;

    *x = *y = *c = -1;
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->bits != b->bits)
        return 1;
    for (int j = 0; j < a->height; j++) {
        const unsigned char *pa = a->data + (size_t)j * a->stride;
        const unsigned char *pb = b->data + (size_t)j * b->stride;
        if (memcmp(pa, pb, row))
            for (size_t i = 0; i < row; i++)
                if (pa[i] != pb[i]) {
                    *x = (int)(i / px);
                    *y = j;
                    *c = (int)(i % px / (size_t)(a->bits / 8));
                    return 1;
                }
    }
    return 0;
}

int gf_image_error(const gf_image *a, const gf_image *b, unsigned *max_diff, double *ndiff)
{
    *max_diff = 0;
    *ndiff = 0;
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->bits != b->bits)
        return -1;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < a->channels; c++) {
                const unsigned u = gf_sample(a, x, y, c), v = gf_sample(b, x, y, c);
                const unsigned d = u > v ? u - v : v - u;
                if (d) {
                    *ndiff += 1;
                    if (d > *max_diff)
                        *max_diff = d;
                }
            }
    return 0;
}

void gf_output_free(gf_output *o)
{
    gf_image_free(&o->img);
    free(o->vals);
    memset(o, 0, sizeof *o);
}

static int run_cpu_path(const gf_stage *s, int gold, const gf_image *in, gf_output *out)
{
    memset(out, 0, sizeof *out);
    return gf_stage_run_cpu(s, gold, in, &out->img, &out->vals, &out->n);
}

int gf_stage_reference(const gf_stage *s, const gf_image *host, gf_output *ref, double *ms)
{
    double t0 = gf_now_ms();
    int rc = run_cpu_path(s, 1, host, ref);

    *ms = gf_now_ms() - t0;
    return rc;
}

/* Compares got with the reference; sets r->match and r->why, and for an
 * inexact variant (inexact != 0) its difference (r->inexact and after). */
static void check_output(const gf_stage *s, const char *variant, int inexact,
                         const gf_output *got, const gf_output *ref, gf_variant_result *r)
{
    char label[48];
    int x, y, c;

    gf_stage_label(s, label, sizeof label);
    r->why[0] = 0;
    r->runs = 0;
    r->inexact = 0;
    r->max_diff = 0;
    r->ndiff = r->nsamples = 0;
    if (gf_stage_is_report(s)) {
        size_t i = 0;
        while (i < ref->n && i < got->n && got->vals[i] == ref->vals[i])
            i++;
        r->match = i == ref->n && got->n == ref->n;
        if (inexact && got->n == ref->n) {
            r->inexact = 1;
            r->nsamples = (double)ref->n;
            for (size_t j = 0; j < ref->n; j++) {
                const uint32_t d = got->vals[j] > ref->vals[j] ? got->vals[j] - ref->vals[j]
                                                               : ref->vals[j] - got->vals[j];
                r->ndiff += d != 0;
                if (d > r->max_diff)
                    r->max_diff = d;
            }
        }
        if (!r->match)
            snprintf(r->why, sizeof r->why,
                     "%s: variant %s differs from the gold reference at [%zu]: %u, not %u", label,
                     variant, i, i < got->n ? got->vals[i] : 0, i < ref->n ? ref->vals[i] : 0);
        return;
    }
    r->match = !gf_image_diff(&ref->img, &got->img, &x, &y, &c);
    if (inexact && gf_image_error(&ref->img, &got->img, &r->max_diff, &r->ndiff) == 0) {
        r->inexact = 1;
        r->nsamples = (double)ref->img.width * ref->img.height * ref->img.channels;
    }
    if (r->match)
        return;
    if (x < 0)
        snprintf(r->why, sizeof r->why,
                 "%s: variant %s gives %dx%d %s, the gold reference %dx%d %s", label, variant,
                 got->img.width, got->img.height,
                 gf_layout_name(got->img.channels, got->img.bits), ref->img.width,
                 ref->img.height, gf_layout_name(ref->img.channels, ref->img.bits));
    else
        snprintf(r->why, sizeof r->why,
                 "%s: variant %s differs from the gold reference on %s at (%d,%d) channel %d: "
                 "%u, not %u",
                 label, variant, gf_layout_name(ref->img.channels, ref->img.bits), x, y, c,
                 gf_sample(&got->img, x, y, c), gf_sample(&ref->img, x, y, c));
}

int gf_stage_check_cpu(const gf_stage *s, const gf_image *host, const gf_output *ref, int reps,
                       gf_variant_result *res)
{
    double *ms = malloc(sizeof *ms * (size_t)(reps < 1 ? 1 : reps));
    gf_output got;
    int rc = 0;

    if (!ms)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    if (reps < 1)
        reps = 1;
    for (int i = -1; i < reps && rc == 0; i++) { /* -1: the warm-up */
        double t0 = gf_now_ms();
        if ((rc = run_cpu_path(s, 0, host, &got)))
            break;
        if (i >= 0)
            ms[i] = gf_now_ms() - t0;
        if (i == reps - 1)
            check_output(s, "cpu", 0, &got, ref, res);
        gf_output_free(&got);
    }
    if (rc == 0)
        res->ms = gf_median(ms, reps);
    free(ms);
    return rc;
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
    gf_launch_fn fn = l->s->ops->variants[l->variant].launch;

    if (!fn)
        return gf_err(GF_ENOGPU, NULL, "built without CUDA");
    return fn(l->s, l->in, l->out, stream);
}

/* Report stage s's values on the image `in` from dv (device) into *vals
 * (malloc'd, *n of them; NULL on error). */
static int fetch_vals(gf_gpu *gpu, const gf_stage *s, const gf_dimage *in, const gf_dimage *dv,
                      uint32_t **vals, size_t *n)
{
    const gf_shape sh = gf_dimage_shape_of(in);
    int rc;

    *n = s->ops->report_len(s, &sh);
    if (!(*vals = malloc(*n * sizeof **vals)))
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    if ((rc = gf_gpu_fetch(gpu, *vals, dv->data, *n * sizeof **vals))) {
        free(*vals);
        *vals = NULL;
    }
    return rc;
}

/* Downloads what a variant left in out. */
static int fetch(gf_gpu *gpu, const gf_stage *s, const gf_dimage *in, const gf_dimage *out,
                 gf_output *got)
{
    memset(got, 0, sizeof *got);
    if (gf_stage_is_report(s))
        return fetch_vals(gpu, s, in, out, &got->vals, &got->n);
    return gf_gpu_download(gpu, out, &got->img, NULL);
}

int gf_stage_variants(gf_gpu *gpu, const gf_stage *s, const gf_dimage *src,
                      const gf_output *ref, int keep, gf_dimage *keep_out, gf_dimage *scratch,
                      int reps, gf_variant_result *res)
{
    int rc = 0;

    for (int v = 0; rc == 0 && s->ops->variants[v].name && v < GF_MAX_VARIANTS; v++) {
        stage_launch l = {s, v, src, v == keep ? keep_out : scratch};
        gf_output got;
        if ((rc = gf_dimage_poison(gpu, l.out, 0xA5 ^ v)) ||
            (rc = gf_gpu_time(gpu, reps, launch_stage, &l, &res[v].ms)) ||
            (rc = fetch(gpu, s, src, l.out, &got)))
            break;
        check_output(s, s->ops->variants[v].name, gf_stage_variant_inexact(s->ops, v), &got,
                     ref, &res[v]);
        res[v].runs = gf_gpu_time_runs(gpu);
        if (gf_stage_is_report(s))
            free(got.vals); /* an image is a view of the pinned buffer */
    }
    return rc;
}

int gf_stage_check(gf_gpu *gpu, const gf_stage *s, const gf_image *img, const gf_output *ref,
                   int reps, gf_variant_result *res)
{
    const gf_shape sh = gf_image_shape(img);
    gf_dimage in, out;
    gf_shape os;
    int rc;
    size_t bytes;

    gf_stage_out_shape(s, &sh, &os);
    bytes = gf_stage_is_report(s) ? s->ops->report_len(s, &sh) * 4 : gf_dimage_bytes(&os);
    memset(&out, 0, sizeof out);
    if ((rc = gf_dimage_alloc(gpu, &in, gf_dimage_bytes(&sh))) == 0 &&
        (rc = gf_dimage_alloc(gpu, &out, bytes)) == 0 &&
        (rc = gf_gpu_upload(gpu, img, &in, NULL)) == 0)
        rc = gf_stage_variants(gpu, s, &in, ref, 0, &out, &out, reps, res);
    gf_dimage_free(&in);
    gf_dimage_free(&out);
    return rc;
}

/* Makes r the result of a report stage on an image of shape sh, taking
 * ownership of vals. */
static void set_result(gf_result *r, const gf_shape *sh, uint32_t *vals, size_t n)
{
    free(r->vals);
    r->shape = *sh;
    r->vals = vals;
    r->n = n;
}

/* Takes stage s's CPU output: a report's values become *result; an image
 * replaces *img. */
static void take_output(const gf_stage *s, gf_output *out, gf_image *img, gf_result *result)
{
    if (gf_stage_is_report(s)) {
        const gf_shape sh = gf_image_shape(img);
        set_result(result, &sh, out->vals, out->n);
    } else {
        gf_image_free(img);
        *img = out->img;
    }
}

static int copy_result(gf_result *results, int from, int to)
{
    uint32_t *vals = malloc(results[from].n * sizeof *vals);

    if (!vals)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    memcpy(vals, results[from].vals, results[from].n * sizeof *vals);
    set_result(&results[to], &results[from].shape, vals, results[from].n);
    return 0;
}

/* --compare on the CPU backend: the gold is the reference, the fast path is
 * checked against it. */
static int compare_cpu(const gf_stage *s, const gf_image *img, gf_report *rep, int *mismatch,
                       gf_output *ref)
{
    gf_variant_result res;
    const gf_shape sh = gf_image_shape(img);
    double bytes = gf_stage_bytes(s, &sh), ms;
    char label[48];
    int rc = gf_stage_reference(s, img, ref, &ms);

    if (rc || (rc = gf_stage_check_cpu(s, img, ref, GF_COMPARE_REPS, &res))) {
        gf_output_free(ref);
        return rc;
    }
    gf_stage_label(s, label, sizeof label);
    gf_report_compare(rep, label, "gold", ms, bytes);
    gf_row *row = gf_report_compare(rep, label, "cpu", res.ms, bytes);
    gf_table_check(&rep->compare, row, res.match);
    if (!res.match && !*mismatch) {
        *mismatch = 1;
        gf_err(GF_EINTERNAL, NULL, "%s", res.why);
    }
    return 0;
}

static int run_cpu(const gf_pipeline *pl, gf_image *img, gf_report *rep, gf_result *results)
{
    char label[48];
    int mismatch = 0;

    for (int i = 0; i < pl->nstages; i++) {
        const gf_stage *s = &pl->stages[i];
        const int same = gf_stage_is_report(s) ? gf_stage_same_report(pl->stages, i) : -1;
        const gf_shape sh = gf_image_shape(img);
        gf_output out;
        double t0 = pl->lap ? *pl->lap : gf_now_ms(), bytes = gf_stage_bytes(s, &sh);
        int rc;
        if (gf_stage_unchanged(s, &sh))
            continue;
        if (same >= 0) {
            if ((rc = copy_result(results, same, i)))
                return rc;
            continue;
        }
        const int in_place = !pl->compare && s->ops->cpu_in_place; /* img is the pipeline's own */
        rc = in_place      ? s->ops->cpu_in_place(s, img)
             : pl->compare ? compare_cpu(s, img, rep, &mismatch, &out)
                           : run_cpu_path(s, 0, img, &out);
        if (rc)
            return rc;
        const double t1 = gf_now_ms();
        if (!pl->compare)
            gf_report_step(rep, gf_stage_label(s, label, sizeof label), "cpu", t1 - t0, bytes);
        if (pl->lap)
            *pl->lap = t1;
        if (!in_place)
            take_output(s, &out, img, &results[i]);
    }
    return mismatch ? GF_EINTERNAL : 0;
}

/* Replaces *im, a view of the pinned buffer (gf_gpu_download), by a copy
 * of its own (zeroed on error). */
static int own_image(gf_image *im)
{
    const size_t row = (size_t)im->width * GF_PIXEL_BYTES(im->channels, im->bits);
    gf_image c;
    int rc = gf_image_alloc(&c, im->width, im->height, im->channels, im->bits);

    if (rc) {
        memset(im, 0, sizeof *im);
        return rc;
    }
    for (int y = 0; y < im->height; y++)
        memcpy(c.data + (size_t)y * c.stride, im->data + (size_t)y * im->stride, row);
    *im = c;
    return 0;
}

/* --compare for one stage on the GPU: every variant from `src` into `dst`
 * (the chosen one) or `scratch`, checked against the gold on *host, and the
 * CPU path too. An image stage's reference output replaces *host (where the
 * chosen variant is inexact, its own output, which the next stage reads on
 * the device); a report stage's values become *result. Rows go to the
 * compare table; *mismatch is set (and the first difference recorded) on any
 * difference of an exact variant; an inexact one's row gives its error. */
static int compare_stage(const gf_stage *s, int chosen, gf_gpu *gpu, gf_image *host,
                         const gf_dimage *src, gf_dimage *dst, gf_dimage *scratch,
                         gf_report *rep, double *chosen_ms, int *mismatch, gf_result *result)
{
    gf_variant_result res[GF_MAX_VARIANTS];
    gf_output ref;
    const gf_shape sh = gf_dimage_shape_of(src);
    double bytes = gf_stage_bytes(s, &sh);
    int rc = compare_cpu(s, host, rep, mismatch, &ref);
    char label[48];

    if (rc)
        return rc;
    if ((rc = gf_stage_variants(gpu, s, src, &ref, chosen, dst, scratch, GF_COMPARE_REPS, res))) {
        gf_output_free(&ref);
        return rc;
    }
    gf_stage_label(s, label, sizeof label);
    for (int v = 0; s->ops->variants[v].name; v++) {
        gf_row *row = gf_report_compare(rep, label, s->ops->variants[v].name, res[v].ms, bytes);
        row->speedup = res[0].ms / res[v].ms;
        if (res[v].inexact)
            gf_table_inexact(row, res[v].max_diff, res[v].ndiff, res[v].nsamples);
        else
            gf_table_check(&rep->compare, row, res[v].match);
        if (!res[v].match && !res[v].inexact && !*mismatch) {
            *mismatch = 1;
            gf_err(GF_EINTERNAL, NULL, "%s", res[v].why);
        }
    }
    *chosen_ms = res[chosen].ms;
    if (gf_stage_variant_inexact(s->ops, chosen) && !gf_stage_is_report(s)) {
        /* the stages after it start from what the device holds: the chosen
         * inexact variant's image, not the gold's */
        gf_output_free(&ref);
        if ((rc = fetch(gpu, s, src, dst, &ref)) || (rc = own_image(&ref.img)))
            return rc;
    }
    take_output(s, &ref, host, result);
    return 0;
}

/* The device buffers the stages need from an input of shape in: *cap bytes
 * for the largest image on the way, *vcap for the most report values (0
 * when no stage reports). */
static void plan_buffers(const gf_pipeline *pl, const gf_shape *in, size_t *cap, size_t *vcap)
{
    gf_shape cur = *in;

    *cap = gf_dimage_bytes(&cur);
    *vcap = 0;
    for (int i = 0; i < pl->nstages; i++) {
        const gf_stage *s = &pl->stages[i];
        if (gf_stage_is_report(s) && s->ops->report_len(s, &cur) * 4 > *vcap)
            *vcap = s->ops->report_len(s, &cur) * 4;
        gf_stage_out_shape(s, &cur, &cur);
        if (gf_dimage_bytes(&cur) > *cap)
            *cap = gf_dimage_bytes(&cur);
    }
}

/* A report stage's values from the device into *result. */
static int fetch_result(gf_gpu *gpu, const gf_stage *s, const gf_dimage *img,
                        const gf_dimage *dv, gf_result *result)
{
    uint32_t *vals;
    size_t n;
    int rc = fetch_vals(gpu, s, img, dv, &vals, &n);

    if (rc == 0) {
        const gf_shape sh = gf_dimage_shape_of(img);
        set_result(result, &sh, vals, n);
    }
    return rc;
}

/* gpu's buffers for an input of shape in: d[0] (the input; with input
 * not NULL, that device buffer instead, checked to hold every image of the
 * stages), d[1] and, with --compare, d[2] for images; *dv for report
 * values. */
static int cuda_buffers(const gf_pipeline *pl, gf_gpu *gpu, const gf_shape *in,
                        const gf_dimage *input, gf_dimage *d, gf_dimage *dv)
{
    size_t cap, vcap;
    int rc = 0;

    memset(d, 0, 3 * sizeof *d);
    memset(dv, 0, sizeof *dv);
    plan_buffers(pl, in, &cap, &vcap);
    if (input && input->capacity < cap)
        return gf_err(GF_EINTERNAL, NULL,
                      "the input's device buffer holds %zu bytes; the stages need %zu",
                      input->capacity, cap);
    if (input)
        d[0] = *input;
    for (int i = input != NULL; rc == 0 && i < (pl->compare ? 3 : (pl->nstages ? 2 : 1)); i++)
        rc = gf_gpu_buffer(gpu, i, cap, &d[i]);
    if (rc == 0 && vcap)
        rc = gf_gpu_buffer(gpu, 3, vcap, dv);
    return rc;
}

size_t gf_pipeline_capacity(const gf_pipeline *pl, const gf_shape *shape)
{
    size_t cap, vcap;

    plan_buffers(pl, shape, &cap, &vcap);
    return cap;
}

/* The stages on the device from d[0]; host is the input on the host for
 * --compare (else NULL). Downloads the result into *out unless out is
 * NULL; *final receives the result on the device. */
static int run_stages_cuda(const gf_pipeline *pl, gf_gpu *gpu, gf_dimage *d, gf_dimage *dv,
                           gf_image *host, gf_image *out, gf_dimage *final, gf_report *rep,
                           gf_result *results)
{
    int cur = 0, rc = 0, mismatch = 0;
    double ms;
    char label[48];

    for (int i = 0; i < pl->nstages; i++) {
        const gf_stage *s = &pl->stages[i];
        const int report = gf_stage_is_report(s);
        const int same = report ? gf_stage_same_report(pl->stages, i) : -1;
        const gf_shape sh = gf_dimage_shape_of(&d[cur]);
        int v = gf_stage_pick(s, gf_gpu_cc(gpu), &sh);
        gf_dimage *dst = report ? dv : &d[1 - cur];
        double bytes = gf_stage_bytes(s, &sh);
        if (gf_stage_unchanged(s, &sh))
            continue;
        if (same >= 0) {
            if ((rc = copy_result(results, same, i)))
                return rc;
            continue;
        }
        if (pl->compare) {
            rc = compare_stage(s, v, gpu, host, &d[cur], dst, report ? dv : &d[2], rep, &ms,
                               &mismatch, &results[i]);
        } else {
            stage_launch l = {s, v, &d[cur], dst};
            if ((rc = gf_gpu_timer_start(gpu)) == 0 &&
                (rc = launch_stage(&l, gf_gpu_stream(gpu))) == 0)
                rc = gf_gpu_timer_stop(gpu, &ms);
            if (rc == 0 && report)
                rc = fetch_result(gpu, s, &d[cur], dv, &results[i]);
        }
        if (rc)
            return rc;
        gf_report_step(rep, gf_stage_label(s, label, sizeof label), s->ops->variants[v].name, ms,
                       bytes);
        if (!report)
            cur = 1 - cur;
    }
    if (final)
        *final = d[cur];
    if (out) {
        if ((rc = gf_gpu_download(gpu, &d[cur], out, &ms)))
            return rc;
        gf_report_step(rep, "download", NULL, ms,
                       (double)out->width * out->height *
                           (double)GF_PIXEL_BYTES(out->channels, out->bits));
    }
    return mismatch ? GF_EINTERNAL : 0; /* the message was recorded by compare_stage */
}

static int run_cuda(const gf_pipeline *pl, gf_gpu *gpu, gf_image *img, gf_image *out,
                    gf_dimage *final, gf_report *rep, gf_result *results)
{
    gf_dimage d[3], dv;
    const gf_shape sh = gf_image_shape(img);
    double ms;
    int rc = cuda_buffers(pl, gpu, &sh, NULL, d, &dv);

    if (rc == 0 && (rc = gf_gpu_upload(gpu, img, &d[0], &ms)) == 0) {
        gf_report_step(rep, "upload", NULL, ms,
                       (double)sh.width * sh.height * (double)GF_PIXEL_BYTES(sh.channels, sh.bits));
        if (!pl->compare)
            gf_image_free(img);
        rc = run_stages_cuda(pl, gpu, d, &dv, pl->compare ? img : NULL, out, final, rep, results);
    }
    gf_image_free(img); /* the device buffers are gpu's, kept for the next file */
    return rc;
}

int gf_pipeline_run_device(const gf_pipeline *pl, gf_gpu *gpu, const gf_dimage *in,
                           gf_image *out, gf_dimage *final, gf_report *rep, gf_result *results)
{
    gf_dimage d[3], dv;
    const gf_shape sh = gf_dimage_shape_of(in);
    int rc;

    if (pl->compare)
        return gf_err(GF_EINTERNAL, NULL, "--compare needs the input on the host");
    if ((rc = cuda_buffers(pl, gpu, &sh, in, d, &dv)))
        return rc;
    return run_stages_cuda(pl, gpu, d, &dv, NULL, out, final, rep, results);
}

int gf_pipeline_warm(const gf_pipeline *pl, gf_gpu *gpu, const gf_shape *layout)
{
    enum { SIDE = 16 };
    const gf_shape in = {SIDE, SIDE, layout->channels, layout->bits};
    gf_dimage d[2], dv;
    size_t cap, vcap;
    int rc, cur = 0;
    double ms;

    if (gf_stages_check(pl->stages, pl->nstages, &in, NULL))
        return 0; /* the stages do not take this layout: nothing to warm */
    memset(&dv, 0, sizeof dv);
    plan_buffers(pl, &in, &cap, &vcap);
    if ((rc = gf_gpu_buffer(gpu, 0, cap, &d[0])) || (rc = gf_gpu_buffer(gpu, 1, cap, &d[1])) ||
        (vcap && (rc = gf_gpu_buffer(gpu, 3, vcap, &dv))) ||
        (rc = gf_dimage_poison(gpu, &d[0], 0x5A)) || (rc = gf_dimage_shape(&d[0], &in)) ||
        (rc = gf_gpu_timer_start(gpu)))
        return rc;
    for (int i = 0; i < pl->nstages && rc == 0; i++) {
        const gf_stage *s = &pl->stages[i];
        const gf_shape sh = gf_dimage_shape_of(&d[cur]);
        stage_launch l = {s, gf_stage_pick(s, gf_gpu_cc(gpu), &sh), &d[cur],
                          gf_stage_is_report(s) ? &dv : &d[1 - cur]};
        if (gf_stage_unchanged(s, &sh))
            continue;
        rc = launch_stage(&l, gf_gpu_stream(gpu));
        if (!gf_stage_is_report(s))
            cur = 1 - cur;
    }
    return rc ? rc : gf_gpu_timer_stop(gpu, &ms);
}

int gf_pipeline_run(const gf_pipeline *pl, gf_gpu *gpu, gf_image *img, gf_image *out,
                    int *owned, gf_dimage *final, gf_report *rep, gf_result *results)
{
    const gf_shape sh = gf_image_shape(img);
    int rc;

    if ((rc = gf_stages_check(pl->stages, pl->nstages, &sh, NULL))) {
        gf_image_free(img);
        *owned = 0;
        return rc;
    }
    if (!gpu) {
        *owned = 0;
        if ((rc = run_cpu(pl, img, rep, results)))
            return rc;
        if (!out) {
            gf_image_free(img);
            return 0;
        }
        *out = *img;
        memset(img, 0, sizeof *img);
        *owned = 1;
        return 0;
    }
    *owned = 0;
    return run_cuda(pl, gpu, img, out, final, rep, results);
}
