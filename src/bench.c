/* bench.c - gpufilt bench [EXPERIMENT...] [--reps N] [--size WxH[,WxH...]]
 * [--matmul MxNxK] [--json] [--device N]: the five seed experiments with
 * gpufilt's own kernels. Every stage in the registry runs in the experiment
 * its descriptor names, with every bench configuration and every variant.
 * Each row: the median CUDA-event time over N runs after a warm-up, the
 * rate, the ratio to the floor (bytes that must move over the copy rate
 * measured first), the speedup over the stage's baseline variant and the
 * check against the gold reference. */
#include <getopt.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_jpeg.h"
#include "codec/codec.h"
#include "gpu.h"
#include "peers.h"
#include "pipeline.h"
#include "report/json.h"
#include "stage.h"
#include "stages/convolve.h"
#include "stages/gaussian.h"
#include "stages/mean.h"
#include "stages/crop.h"
#include "stages/orient.h"
#include "stages/resize.h"
#include "stencil.h"

#define COPY_BYTES (256u << 20) /* 5x the H100's 50 MB L2: a DRAM rate */
#define SEED_ITERS 20           /* seed 2 transposes 20 times per timing */
#define MATMUL_TOL 1e-5         /* relative Frobenius error against the reference */
#define MATMUL_SAMPLES 512      /* C entries checked in double on the CPU */
#define CPU_REPS 5              /* timed runs of the CPU path (it takes ms, not us) */
#define MAX_SIZES 8
#define DEFAULT_SIZES "8000x8000,1920x1080,640x480"

typedef struct bench {
    gf_gpu *gpu; /* NULL with --cpu: the CPU paths alone */
    int device;
    const char *photos; /* jpeg: --photos DIR, or NULL (generated) */
    int count;          /* jpeg: --count, photos at most */
    int sizes[MAX_SIZES][2]; /* image experiments: the first is the main size */
    int nsizes;
    int mm, mn, mk; /* matmul M x N x K */
    gf_bench_table t;
    uint64_t rng;
} bench;

static const char *const check_words[] = {"-", "FAIL", "PASS"};

static const gf_col bench_cols[] = {
    {.kind = GF_COL_STEP, .title = "experiment", .key = "experiment", .width = -28},
    {.kind = GF_COL_VARIANT, .title = "variant", .key = "variant", .width = -12},
    {.kind = GF_COL_MS, .title = "ms", .key = "ms", .width = 10, .decimals = 4},
    {.kind = GF_COL_RATE, .title = "rate", .key = "gbps", .width = 16},
    {.kind = GF_COL_FLOOR, .title = "x floor", .key = "x_floor", .width = 8, .decimals = 2},
    {.kind = GF_COL_SPEEDUP, .title = "speedup", .key = "speedup", .width = 8},
    {.kind = GF_COL_CHECK, .title = "check", .key = "check", .width = -5, .words = check_words, .gap = 1},
};
#define NCOLS (int)(sizeof bench_cols / sizeof bench_cols[0])

void gf_bench_print_text(const gf_bench_table *b, FILE *f)
{
    gf_table_text(&b->t, bench_cols, NCOLS, "", f);
    if (b->t.copy_gbps > 0)
        fprintf(f, "device: %s, driver %s, CUDA runtime %s; median of %d runs after a warm-up "
                   "(fewer where a row says); floor = bytes moved at %.0f GB/s (copy)\n",
                b->device, b->driver, b->runtime, b->reps, b->t.copy_gbps);
    else
        fprintf(f, "device: %s; median of %d runs after a warm-up\n", b->device, b->reps);
    if (b->notes[0])
        fprintf(f, "notes: %s\n", b->notes);
}

json_t *gf_bench_json(const gf_bench_table *b)
{
    return json_pack("{s:s,s:s,s:s,s:i,s:o,s:s,s:o,s:b}", "device", b->device, "driver",
                     b->driver, "cuda_runtime", b->runtime, "reps", b->reps, "copy_gbps",
                     gf_json_real(b->t.copy_gbps, 3), "notes", b->notes, "rows",
                     gf_table_json(&b->t, bench_cols, NCOLS), "passed", !b->t.failed);
}

static gf_row *add(bench *b, const char *experiment, const char *variant, double ms,
                   double bytes, int check)
{
    gf_row *r = gf_table_add(&b->t.t, experiment, variant, ms, bytes);
    gf_table_check(&b->t.t, r, check);
    return r;
}

/* Marks r as timed `runs` times where a slow step ran fewer than --reps
 * (gf_gpu_time's limits). */
static gf_row *runs_of(bench *b, gf_row *r, int runs)
{
    if (runs > 0 && runs < b->t.reps)
        r->runs = runs;
    return r;
}

static unsigned bench_rand(bench *b)
{
    return gf_rand(&b->rng);
}

static int random_image(bench *b, gf_image *im, int w, int h, int channels, int bits)
{
    return gf_image_random(im, w, h, channels, bits, &b->rng);
}

static void note(bench *b, const char *text)
{
    size_t n = strlen(b->t.notes);
    if (!strstr(b->t.notes, text))
        snprintf(b->t.notes + n, sizeof b->t.notes - n, "%s%s", n ? "; " : "", text);
}

/* A device launch to time: fn(ctx, stream). */
typedef struct launch {
    int (*fn)(struct launch *l, void *stream);
    const gf_dimage *in;
    gf_dimage *out;
    void *p0, *p1, *p2; /* what fn needs beside in and out */
    size_t n;
    int i0, i1, i2, i3;
} launch;

static int run_launch(void *ctx, void *stream)
{
    launch *l = ctx;
    return l->fn(l, stream);
}

/* copy: device-to-device cudaMemcpy of 256 MiB; defines the floor. */
static int copy_fn(launch *l, void *stream)
{
    (void)stream;
    return gf_gpu_copy(l->p0, l->out->data, l->in->data, COPY_BYTES);
}

static int bench_copy(bench *b)
{
    gf_dimage src, dst;
    launch l = {.fn = copy_fn, .in = &src, .out = &dst, .p0 = b->gpu};
    double ms;
    int rc;

    memset(&dst, 0, sizeof dst);
    if ((rc = gf_dimage_alloc(b->gpu, &src, COPY_BYTES)) == 0 &&
        (rc = gf_dimage_alloc(b->gpu, &dst, COPY_BYTES)) == 0 &&
        (rc = gf_dimage_poison(b->gpu, &src, 0x5A)) == 0 &&
        (rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, &l, &ms)) == 0) {
        b->t.t.copy_gbps = 2.0 * COPY_BYTES / (ms * 1e6);
        add(b, "copy 256 MiB", "cudaMemcpy", ms, 2.0 * COPY_BYTES, -1);
    }
    gf_dimage_free(&dst);
    gf_dimage_free(&src);
    return rc;
}

/* Every path of stage s on img: the CPU backend's (checked against the
 * gold) and every CUDA variant, each poisoned, timed and checked; variant 0
 * is the baseline. */
static int bench_stage(bench *b, const char *exp, const gf_stage *s, const gf_image *img)
{
    gf_variant_result res[GF_MAX_VARIANTS], cpu;
    gf_output ref;
    const gf_shape sh = gf_image_shape(img);
    double gold_ms, bytes = gf_stage_bytes(s, &sh);
    int rc = gf_stage_reference(s, img, &ref, &gold_ms);

    if (rc == 0 && (rc = gf_stage_check_cpu(s, img, &ref, b->gpu ? CPU_REPS : b->t.reps,
                                            &cpu)) == 0 &&
        b->gpu)
        rc = gf_stage_check(b->gpu, s, img, &ref, b->t.reps, res);
    gf_output_free(&ref);
    if (rc)
        return rc;
    add(b, exp, "cpu", cpu.ms, bytes, cpu.match);
    if (!cpu.match)
        fprintf(stderr, "gpufilt: bench: %s\n", cpu.why);
    for (int v = 0; b->gpu && s->ops->variants[v].name; v++) {
        gf_row *r = runs_of(b, add(b, exp, s->ops->variants[v].name, res[v].ms, bytes,
                                   res[v].inexact ? -1 : res[v].match),
                            res[v].runs);
        r->speedup = res[0].ms / res[v].ms;
        if (res[v].inexact)
            gf_table_inexact(r, res[v].max_diff, res[v].ndiff, res[v].nsamples);
        else if (!res[v].match)
            fprintf(stderr, "gpufilt: bench: %s\n", res[v].why);
    }
    return 0;
}

/* A library peer producing an image: img uploaded, fn timed into an output
 * of want's size, the result compared with want. A difference of at most
 * `tol` per pixel passes (NPP's box filter rounds down: tol 1); tol < 0: a
 * peer whose rule differs (its own weights), timed but not compared. */
static int bench_peer_image(bench *b, const char *exp, const char *name, const gf_image *img,
                            const gf_image *want, int tol, launch *l)
{
    const gf_shape is = gf_image_shape(img), ws = gf_image_shape(want);
    gf_dimage in, out;
    gf_image got;
    double ms;
    int rc, ok = 1, x, y, c;

    memset(&out, 0, sizeof out);
    if ((rc = gf_dimage_alloc(b->gpu, &in, gf_dimage_bytes(&is))) ||
        (rc = gf_dimage_alloc(b->gpu, &out, gf_dimage_bytes(&ws))) ||
        (rc = gf_gpu_upload(b->gpu, img, &in, NULL)) ||
        (rc = gf_dimage_poison(b->gpu, &out, 0xA5)))
        goto out;
    l->in = &in;
    l->out = &out;
    if ((rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, l, &ms)) ||
        (rc = gf_gpu_download(b->gpu, &out, &got, NULL)))
        goto out;
    ok = !gf_image_diff(&got, want, &x, &y, &c) || tol != 0;
    ok = ok && got.width == want->width && got.height == want->height &&
         got.channels == want->channels && got.bits == want->bits;
    for (y = 0; ok && tol > 0 && y < got.height; y++)
        for (x = 0; ok && x < got.width; x++)
            for (c = 0; ok && c < got.channels; c++)
                ok = abs((int)gf_sample(&got, x, y, c) - (int)gf_sample(want, x, y, c)) <= tol;
    runs_of(b,
            add(b, exp, name, ms,
                (double)img->width * img->height * (double)GF_PIXEL_BYTES(is.channels, is.bits) +
                    (double)want->width * want->height *
                        (double)GF_PIXEL_BYTES(ws.channels, ws.bits),
                tol < 0 ? -1 : ok),
            gf_gpu_time_runs(b->gpu));
out:
    gf_dimage_free(&in);
    gf_dimage_free(&out);
    return rc;
}

static int npp_box_fn(launch *l, void *stream)
{
    return gf_npp_box(l->in, l->out, l->i0, stream);
}

static int npp_stencil_fn(launch *l, void *stream)
{
    return gf_npp_stencil(l->i0, l->in, l->out, l->i1, l->p0, l->i2, stream);
}

static int npp_transpose_fn(launch *l, void *stream)
{
    return gf_npp_transpose(l->in, l->out, stream);
}

static int npp_rotate180_fn(launch *l, void *stream)
{
    return gf_npp_rotate180(l->in, l->out, stream);
}

static int npp_resize_fn(launch *l, void *stream)
{
    return gf_npp_resize(l->in, l->out, l->i0, l->i1, l->i2, stream);
}

static int npp_copy_fn(launch *l, void *stream)
{
    return gf_npp_copy(l->in, l->out, l->i0, l->i1, l->i2, l->i3, stream);
}

/* NPP's counterpart of a resize or crop configuration in *l (*tol as
 * bench_peer_image takes it): 1, or 0 where NPP has none. Resize: the
 * filters NPP has (bilinear, bicubic, lanczos; box as super sampling, when
 * shrinking), its own rules: timed, not compared. Crop: nppiCopy of the
 * region, compared. */
static int npp_geometry_peer(bench *b, const gf_stage *s, const gf_image *img, launch *l,
                             int *tol)
{
    if (s->ops == gf_stage_find("resize") && gf_npp_resize) {
        const gf_resize_filter f = GF_CPARAMS(s, gf_resize_params)->filter;
        if (gf_resize_size(s, img->width, img->height, &l->i0, &l->i1))
            return 0;
        switch (f) {
        case GF_FILTER_BILINEAR: l->i2 = GF_NPP_LINEAR; break;
        case GF_FILTER_BICUBIC: l->i2 = GF_NPP_CUBIC; break;
        case GF_FILTER_LANCZOS: l->i2 = GF_NPP_LANCZOS; break;
        case GF_FILTER_BOX:
            if (l->i0 >= img->width || l->i1 >= img->height)
                return 0;
            l->i2 = GF_NPP_SUPER;
            break;
        default: return 0;
        }
        l->fn = npp_resize_fn;
        *tol = -1;
        note(b, "npp resize: nppiResize with NPPI_INTER_LINEAR, _CUBIC, _LANCZOS (and _SUPER for "
                "box), NPP's own rules; timed, not compared");
        return 1;
    }
    if (s->ops == gf_stage_find("crop") && gf_npp_copy) {
        if (gf_crop_of(s, img->width, img->height, &l->i0, &l->i1, &l->i2, &l->i3))
            return 0;
        l->fn = npp_copy_fn;
        *tol = 0;
        return 1;
    }
    return 0;
}

/* NPP's counterpart of a neighbourhood stage's configuration in *l (the
 * replicate border only; *tol as bench_peer_image takes it): returns 1, or 0
 * where NPP has none here. The Gaussian's weights are NPP's own (timed, not
 * compared). */
static int npp_stencil_peer(bench *b, const gf_stage *s, const gf_image *img, launch *l,
                            int *tol)
{
    const gf_stencil_params *p = GF_CPARAMS(s, gf_stencil_params);

    if (!gf_npp_stencil || img->bits != 8)
        return 0;
    l->fn = npp_stencil_fn;
    l->p0 = NULL;
    if (s->ops == gf_stage_find("gaussian") && p->border.mode == GF_BORDER_REPLICATE) {
        const gf_gauss_params *g = GF_CPARAMS(s, gf_gauss_params);
        l->i0 = GF_NPP_GAUSS;
        l->i1 = gf_gauss_ksize(g->sigma, g->k, img->bits);
        *tol = -1;
        note(b, "npp gaussian: NPP's own weights, timed, not compared");
        return l->i1 <= 15;
    }
    if (img->channels != 1 || p->border.mode != GF_BORDER_REPLICATE)
        return 0;
    /* nppiFilterMedianBorder at 15x15 ended in an illegal address on the H100
     * (NPP 13.0.1, docs/benchmarks.md): the median's peer stops at 5x5 */
    if ((s->ops == gf_stage_find("erode") || s->ops == gf_stage_find("dilate") ||
         (s->ops == gf_stage_find("median") && p->kw <= 5)) &&
        p->kw == p->kh) {
        /* exact rules like gpufilt's: compared */
        l->i0 = s->ops == gf_stage_find("erode")    ? GF_NPP_ERODE
                : s->ops == gf_stage_find("dilate") ? GF_NPP_DILATE
                                                    : GF_NPP_MEDIAN;
        l->i1 = p->kw;
        *tol = 0;
        return 1;
    }
    if (s->ops == gf_stage_find("sobel") || s->ops == gf_stage_find("laplacian")) {
        l->i0 = s->ops == gf_stage_find("sobel") ? GF_NPP_SOBEL : GF_NPP_LAPLACE;
        l->i1 = 3;
        *tol = -1;
        note(b, "npp sobel: one direction (FilterSobelHorizBorder); npp laplacian: NPP's "
                "3x3 Laplace kernel; timed, not compared");
        return 1;
    }
    if (s->ops == gf_stage_find("convolve") && p->kw == p->kh) {
        /* NPP convolves (the kernel flipped): the correlation's kernel reversed */
        static int32_t flipped[GF_CONVOLVE_MAX_TAPS];
        const gf_convolve_params *c = GF_CPARAMS(s, gf_convolve_params);
        const int n = p->kw * p->kh;
        for (int i = 0; i < n; i++)
            flipped[i] = c->weights[n - 1 - i];
        l->i0 = GF_NPP_CONV;
        l->i1 = p->kw;
        l->i2 = c->divisor > 0 ? c->divisor : 1;
        l->p0 = flipped;
        *tol = -1;
        note(b, "npp convolve: nppiFilterBorder, its own rounding; timed, not compared");
        return 1;
    }
    return 0;
}

static int npp_lut_fn(launch *l, void *stream)
{
    return gf_npp_lut(l->in, l->out, l->p0, stream);
}

static int npp_equalize_fn(launch *l, void *stream)
{
    return gf_npp_equalize(l->in, l->out, stream);
}

/* NPP's peers of the tone stages, compared exactly: for level, gamma and
 * negate nppiLUTPalette with s's own table (s's gold on a ramp of every
 * sample value, uploaded before the timing); for equalize NPP's histogram,
 * OpenCV's table on the host and nppiLUTPalette (gf_npp_equalize). */
static int bench_npp_tone(bench *b, const char *exp, const gf_stage *s, const gf_image *img)
{
    const char *name = s->ops->name;
    const int nb = img->bits == 8 ? 256 : 65536;
    const size_t bytes = (size_t)nb * (size_t)(img->bits / 8);
    launch l = {0};
    gf_image want, ramp, table;
    gf_dimage dtable;
    int rc = 0;

    memset(&dtable, 0, sizeof dtable);
    if (!strcmp(name, "equalize") && gf_npp_equalize) {
        l.fn = npp_equalize_fn;
    } else if ((!strcmp(name, "level") || !strcmp(name, "gamma") || !strcmp(name, "negate")) &&
               gf_npp_lut) {
        if ((rc = gf_image_alloc(&ramp, nb, 1, 1, img->bits)))
            return rc;
        for (int v = 0; v < nb; v++)
            gf_sample_set(&ramp, v, 0, 0, (unsigned)v);
        rc = gf_stage_run_cpu(s, 1, &ramp, &table, NULL, NULL);
        gf_image_free(&ramp);
        if (rc)
            return rc;
        if ((rc = gf_dimage_alloc(b->gpu, &dtable, bytes)) == 0)
            rc = gf_gpu_put(b->gpu, dtable.data, table.data, bytes);
        gf_image_free(&table);
        if (rc)
            goto out;
        l.fn = npp_lut_fn;
        l.p0 = dtable.data;
    } else {
        return 0;
    }
    if ((rc = gf_stage_run_cpu(s, 1, img, &want, NULL, NULL)) == 0) {
        rc = bench_peer_image(b, exp, "npp", img, &want, 0, &l);
        gf_image_free(&want);
    }
out:
    gf_dimage_free(&dtable);
    return rc;
}

/* NPP's counterpart of an image stage configuration, where built in: the
 * neighbourhood filters, the box filter (replicate only), transpose, the
 * mirror about both axes, resize and crop, in the layouts NPP has them for
 * here (_8u_C1R, _8u_C3R, _16u_C1R). */
static int bench_npp(bench *b, const char *exp, const gf_stage *s, const gf_image *img)
{
    launch l = {0};
    gf_image want;
    int tol = 0, rc;

    if (!gf_npp_box || !(img->channels == 1 || (img->channels == 3 && img->bits == 8)))
        return 0;
    if (!strcmp(s->ops->group, "tone"))
        return bench_npp_tone(b, exp, s, img);
    if ((rc = npp_stencil_peer(b, s, img, &l, &tol)) < 0)
        return rc;
    if (rc == 1 || npp_geometry_peer(b, s, img, &l, &tol)) {
        /* l and tol set */
    } else if (s->ops == gf_stage_find("mean") &&
        GF_CPARAMS(s, gf_mean_params)->border.mode == GF_BORDER_REPLICATE &&
        GF_CPARAMS(s, gf_mean_params)->kw == GF_CPARAMS(s, gf_mean_params)->kh) {
        l.fn = npp_box_fn;
        l.i0 = GF_CPARAMS(s, gf_mean_params)->kw;
        tol = 1;
        note(b, "npp box filter: replicate border, rounds down, checked to +-1");
    } else if (s->ops == gf_stage_find("transpose") &&
               GF_CPARAMS(s, gf_orient_params)->op == GF_TRANSPOSE) {
        l.fn = npp_transpose_fn;
    } else if (s->ops == gf_stage_find("mirror") &&
               GF_CPARAMS(s, gf_orient_params)->op == GF_ROTATE180) {
        l.fn = npp_rotate180_fn;
    } else {
        return 0;
    }
    if (tol < 0) { /* not compared: the output's shape alone */
        const gf_shape is = gf_image_shape(img);
        gf_shape os;
        gf_stage_out_shape(s, &is, &os);
        rc = gf_image_alloc_shape(&want, &os);
    } else {
        rc = gf_stage_run_cpu(s, 1, img, &want, NULL, NULL);
    }
    if (rc)
        return rc;
    rc = bench_peer_image(b, exp, "npp", img, &want, tol, &l);
    gf_image_free(&want);
    return rc;
}

static int seed_transpose_fn(launch *l, void *stream)
{
    int rc = 0;
    for (int i = 0; rc == 0 && i < SEED_ITERS; i++)
        rc = gf_seed_transpose_f32(l->p0, l->p1, l->i0, l->i1, l->i2, stream);
    return rc;
}

/* Seed 2's setup: a 2048x1536 float matrix transposed 20 times per timing
 * (per-transpose times are shown): naive, 16x16 tile, padded 16x17 tile,
 * and a CPU loop. Every output is compared with the CPU loop's. */
static int bench_seed_transpose(bench *b)
{
    static const char *const names[] = {"naive", "tile16", "tile16+1"};
    const int rows = 1536, cols = 2048;
    const size_t n = (size_t)rows * cols, bytes = n * sizeof(float);
    float *a = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    gf_dimage din, dout;
    double base = 0, t0;
    const char *exp = "transpose f32 2048x1536";
    int rc = 0;

    memset(&din, 0, sizeof din);
    memset(&dout, 0, sizeof dout);
    if (!a || !want || !got) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (float)(bench_rand(b) % 100000) / 7.0f;
    t0 = gf_now_ms();
    for (int it = 0; it < SEED_ITERS; it++)
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < cols; x++)
                want[(size_t)x * rows + y] = a[(size_t)y * cols + x];
    add(b, exp, "cpu loop", (gf_now_ms() - t0) / SEED_ITERS, 2.0 * bytes, -1);
    if ((rc = gf_dimage_alloc(b->gpu, &din, bytes)) || (rc = gf_dimage_alloc(b->gpu, &dout, bytes)))
        goto out;
    if ((rc = gf_gpu_put(b->gpu, din.data, a, bytes)))
        goto out;
    for (int v = 0; v < 3; v++) {
        launch l = {.fn = seed_transpose_fn, .p0 = din.data, .p1 = dout.data, .i0 = rows,
                    .i1 = cols, .i2 = v};
        double ms;
        if ((rc = gf_dimage_poison(b->gpu, &dout, 0xA5)) ||
            (rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, &l, &ms)) ||
            (rc = gf_gpu_fetch(b->gpu, got, dout.data, bytes)))
            goto out;
        ms /= SEED_ITERS;
        if (v == 0)
            base = ms;
        add(b, exp, names[v], ms, 2.0 * bytes, !memcmp(got, want, bytes))->speedup =
            base / ms;
    }
    note(b, "transpose f32 2048x1536: in + out (25 MB) fit in L2, so the floor can be beaten");
out:
    gf_dimage_free(&din);
    gf_dimage_free(&dout);
    free(a);
    free(want);
    free(got);
    return rc;
}

/* A photograph at w x h: samples/camera.png scaled by nearest neighbour when
 * it can be read from the working directory, else a smooth synthetic field
 * with noise. *what names it. */
static int photo_image(bench *b, gf_image *im, int w, int h, const char **what)
{
    gf_limits lim = {.max_pixels = GF_DEFAULT_MAX_PIXELS,
                     .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES,
                     .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};
    gf_load_info info;
    gf_image src;
    int rc = gf_image_alloc(im, w, h, 1, 8);

    if (rc)
        return rc;
    if (gf_load("samples/camera.png", &lim, &src, &info) == 0 && src.channels == 1 &&
        src.bits == 8) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                im->data[(size_t)y * w + x] =
                    src.data[(size_t)((long long)y * src.height / h) * src.stride +
                             (size_t)((long long)x * src.width / w)];
        gf_image_free(&src);
        *what = "camera.png";
        return 0;
    }
    gf_image_free(&src);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v = 120 + 50 * sin(x / 400.0) * cos(y / 300.0) + 30 * sin((x + y) / 150.0);
            im->data[(size_t)y * w + x] = (unsigned char)(v + (bench_rand(b) & 7));
        }
    *what = "synthetic";
    return 0;
}

static int cub_hist_fn(launch *l, void *stream)
{
    return gf_cub_hist(l->in, l->p0, l->p1, &l->n, stream);
}

static int npp_hist_fn(launch *l, void *stream)
{
    return gf_npp_hist(l->in, l->p0, l->p1, &l->n, stream);
}

/* A library histogram of img (fn sizes its temp storage when p1 is NULL,
 * and returns 1 for a layout it has no call for: no row), timed and checked
 * against the n CPU counts in want. */
static int bench_peer_hist(bench *b, const char *exp, const char *name, const gf_image *img,
                           const uint32_t *want, size_t n, int (*fn)(launch *, void *))
{
    const gf_shape sh = gf_image_shape(img);
    gf_dimage in, hist, temp;
    launch l = {.fn = fn, .in = &in};
    uint32_t *got = malloc(n * sizeof *got);
    double ms;
    int rc;

    memset(&hist, 0, sizeof hist);
    memset(&temp, 0, sizeof temp);
    if (!got)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    if ((rc = gf_dimage_alloc(b->gpu, &in, gf_dimage_bytes(&sh))) ||
        (rc = gf_dimage_alloc(b->gpu, &hist, n * sizeof *got)) ||
        (rc = gf_gpu_upload(b->gpu, img, &in, NULL)) || (rc = fn(&l, NULL)) ||
        (rc = gf_dimage_alloc(b->gpu, &temp, l.n + 1)))
        goto out;
    l.p0 = hist.data;
    l.p1 = temp.data;
    if ((rc = gf_dimage_poison(b->gpu, &hist, 0xA5)) ||
        (rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, &l, &ms)) ||
        (rc = gf_gpu_fetch(b->gpu, got, hist.data, n * sizeof *got)))
        goto out;
    add(b, exp, name, ms, (double)img->width * img->height * (double)GF_PIXEL_BYTES(sh.channels, sh.bits),
        !memcmp(got, want, n * sizeof *got));
out:
    gf_dimage_free(&in);
    gf_dimage_free(&hist);
    gf_dimage_free(&temp);
    free(got);
    return rc == 1 ? 0 : rc; /* 1: no such call */
}

/* CUB's and NPP's histograms of img beside gpufilt's rows. */
static int bench_hist_peers(bench *b, const char *exp, const gf_stage *s, const gf_image *img)
{
    const gf_shape sh = gf_image_shape(img);
    const size_t n = s->ops->report_len(s, &sh);
    uint32_t *want = malloc(n * sizeof *want);
    int rc;

    if (!want)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    if ((rc = s->ops->report_gold(s, img, want)) == 0)
        rc = bench_peer_hist(b, exp, "cub", img, want, n, cub_hist_fn);
    if (rc == 0 && gf_npp_hist)
        rc = bench_peer_hist(b, exp, "npp", img, want, n, npp_hist_fn);
    free(want);
    return rc;
}

static int matmul_fn(launch *l, void *stream)
{
    float *const *m = l->p0;
    if (l->i3 < 0)
        return gf_cublas_sgemm(m[0], m[1], m[2], l->i0, l->i1, l->i2, stream);
    return gf_seed_matmul_f32(m[0], m[1], m[2], l->i0, l->i1, l->i2, l->i3, stream);
}

/* Relative Frobenius error of c against ref over all n entries. */
static double rel_error(const float *c, const float *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)c[i] - ref[i];
        num += d * d;
        den += (double)ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* The same error over MATMUL_SAMPLES entries of c, each computed in double. */
static double sampled_error(bench *b, const float *a, const float *bm, const float *c, int m,
                            int n, int k)
{
    double num = 0, den = 0;
    for (int s = 0; s < MATMUL_SAMPLES; s++) {
        int i = (int)(bench_rand(b) % (unsigned)m), j = (int)(bench_rand(b) % (unsigned)n);
        double ref = 0;
        for (int q = 0; q < k; q++)
            ref += (double)a[(size_t)i * k + q] * bm[(size_t)q * n + j];
        num += (c[(size_t)i * n + j] - ref) * (c[(size_t)i * n + j] - ref);
        den += ref * ref;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* matmul: seed 5 at --matmul M x N x K (any size): naive against 16x16
 * shared tiles, with cuBLAS SGEMM as the reference where built in; each
 * checked within MATMUL_TOL, against cuBLAS or else against entries
 * computed in double on the CPU. */
static int bench_matmul(bench *b)
{
    static const char *const names[] = {"naive", "tiled16"};
    const int m = b->mm, n = b->mn, k = b->mk;
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *ha = malloc(na * 4), *hb = malloc(nb * 4), *hc = malloc(nc * 4), *href = NULL;
    gf_dimage da, db, dc;
    char exp[40];
    double flops = 2.0 * m * n * k, base = 0;
    int rc = 0;

    memset(&da, 0, sizeof da);
    memset(&db, 0, sizeof db);
    memset(&dc, 0, sizeof dc);
    snprintf(exp, sizeof exp, "matmul f32 %dx%dx%d", m, n, k);
    if (!ha || !hb || !hc) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < na; i++)
        ha[i] = (float)((int)(bench_rand(b) % 2001) - 1000) / 1000.0f;
    for (size_t i = 0; i < nb; i++)
        hb[i] = (float)((int)(bench_rand(b) % 2001) - 1000) / 1000.0f;
    if ((rc = gf_dimage_alloc(b->gpu, &da, na * 4)) || (rc = gf_dimage_alloc(b->gpu, &db, nb * 4)) ||
        (rc = gf_dimage_alloc(b->gpu, &dc, nc * 4)))
        goto out;
    if ((rc = gf_gpu_put(b->gpu, da.data, ha, na * 4)) ||
        (rc = gf_gpu_put(b->gpu, db.data, hb, nb * 4)))
        goto out;
    float *mats[3] = {(float *)(void *)da.data, (float *)(void *)db.data, (float *)(void *)dc.data};
    if (gf_cublas_sgemm) {
        launch l = {.fn = matmul_fn, .p0 = mats, .i0 = m, .i1 = n, .i2 = k, .i3 = -1};
        double ms;
        href = malloc(nc * 4);
        if (!href) {
            rc = gf_err(GF_EINTERNAL, NULL, "out of memory");
            goto out;
        }
        if ((rc = gf_dimage_poison(b->gpu, &dc, 0xA5)) ||
            (rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, &l, &ms)) ||
            (rc = gf_gpu_fetch(b->gpu, href, dc.data, nc * 4)))
            goto out;
        add(b, exp, "cublas", ms, 0,
                     sampled_error(b, ha, hb, href, m, n, k) < MATMUL_TOL)
            ->flops = flops;
    }
    for (int v = 0; v < 2; v++) {
        launch l = {.fn = matmul_fn, .p0 = mats, .i0 = m, .i1 = n, .i2 = k, .i3 = v};
        double ms, err;
        if ((rc = gf_dimage_poison(b->gpu, &dc, 0xA5)) ||
            (rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, &l, &ms)) ||
            (rc = gf_gpu_fetch(b->gpu, hc, dc.data, nc * 4)))
            goto out;
        err = href ? rel_error(hc, href, nc) : sampled_error(b, ha, hb, hc, m, n, k);
        if (v == 0)
            base = ms;
        gf_row *r = add(b, exp, names[v], ms, 0, err < MATMUL_TOL);
        r->flops = flops;
        r->speedup = base / ms;
    }
    note(b, href ? "matmul checked against cuBLAS SGEMM: relative Frobenius error < 1e-5"
                 : "matmul checked on 512 entries computed in double: relative error < 1e-5 "
                   "(cuBLAS not built in: make PEERS=1)");
out:
    gf_dimage_free(&da);
    gf_dimage_free(&db);
    gf_dimage_free(&dc);
    free(ha);
    free(hb);
    free(hc);
    free(href);
    return rc;
}

/* The histogram seed's data beside random bytes: 10 MB of random bytes (the
 * seed's size), and constant and photographic data at the main size; with
 * CUB's HistogramEven (and NPP's, where built in) as the library reference. */
static int bench_hist_data(bench *b, const gf_stage *s)
{
    char exp[48];
    int rc = 0;

    for (int k = 0; rc == 0 && k < 4; k++) {
        gf_image img;
        const char *what = k < 2 ? "random" : k == 2 ? "constant" : NULL;
        int w = k == 0 ? 3200 : b->sizes[0][0], h = k == 0 ? 3125 : b->sizes[0][1];
        if (k < 2) /* k 1, random at the main size: the generic rows have it; add the peers */
            rc = random_image(b, &img, w, h, 1, 8);
        else if (k == 2 && (rc = gf_image_alloc(&img, w, h, 1, 8)) == 0)
            memset(img.data, 77, (size_t)w * h);
        else if (k == 3)
            rc = photo_image(b, &img, w, h, &what);
        if (rc)
            break;
        snprintf(exp, sizeof exp, "hist %dx%d %s", w, h, what);
        if (k != 1)
            rc = bench_stage(b, exp, s, &img);
        if (rc == 0)
            rc = bench_hist_peers(b, exp, s, &img);
        gf_image_free(&img);
    }
    return rc;
}

/* The layouts a group runs on: 8-bit gray at every size; RGB 8-bit and gray
 * 16-bit, the common colour and deep layouts, at the main size. */
static const struct {
    int channels, bits;
} bench_layouts[] = {{1, 8}, {3, 8}, {1, 16}};
#define NLAYOUTS (int)(sizeof bench_layouts / sizeof bench_layouts[0])

/* One experiment group: every registered stage whose group it is, every
 * bench configuration, at every size and layout it takes; the seed's own
 * setup where one belongs to the group. Rows of layouts other than 8-bit
 * gray end in the layout's name ("mean 5 8000x8000 8u_C3"). */
static int bench_group(bench *b, const char *group)
{
    char exp[64], label[48];
    int rc = 0;

    if (!strcmp(group, "transpose") && b->gpu)
        rc = bench_seed_transpose(b);
    for (int z = 0; rc == 0 && z < b->nsizes; z++)
        for (int li = 0; rc == 0 && li < (z == 0 ? NLAYOUTS : 1); li++) {
            gf_image img;
            const int w = b->sizes[z][0], h = b->sizes[z][1], ch = bench_layouts[li].channels,
                      bits = bench_layouts[li].bits;
            const gf_shape sh = {w, h, ch, bits};
            if ((rc = random_image(b, &img, w, h, ch, bits)))
                break;
            for (int i = 0; rc == 0 && gf_stages[i]; i++) {
                gf_stage s;
                if (strcmp(gf_stages[i]->group, group))
                    continue;
                for (int c = 0; rc == 0; c++) {
                    gf_stage_init(&s, gf_stages[i]);
                    if (!s.ops->config(&s, c, 1, &b->rng))
                        break;
                    if (gf_stage_accepts(&s, &sh) || gf_stage_unchanged(&s, &sh))
                        continue;
                    snprintf(exp, sizeof exp, "%s %dx%d%s%s",
                             gf_stage_label(&s, label, sizeof label), w, h, li ? " " : "",
                             li ? gf_layout_name(ch, bits) : "");
                    if ((rc = bench_stage(b, exp, &s, &img)) == 0 && b->gpu)
                        rc = bench_npp(b, exp, &s, &img);
                    if (rc == 0 && z == 0 && gf_stage_is_report(&s) &&
                        !strcmp(group, "hist") && b->gpu)
                        rc = li == 0 ? bench_hist_data(b, &s) : bench_hist_peers(b, exp, &s, &img);
                }
            }
            gf_image_free(&img);
        }
    if (rc == 0 && !strcmp(group, "colsum") && b->gpu) { /* seed 4's own size */
        gf_image img;
        if ((rc = random_image(b, &img, 8192, 8192, 1, 8)) == 0) {
            for (int i = 0; rc == 0 && gf_stages[i]; i++) {
                gf_stage s;
                gf_stage_init(&s, gf_stages[i]);
                if (!strcmp(s.ops->group, group) && s.ops->config(&s, 0, 1, &b->rng)) {
                    snprintf(exp, sizeof exp, "%s 8192x8192", gf_stage_label(&s, label,
                                                                           sizeof label));
                    rc = bench_stage(b, exp, &s, &img);
                }
            }
            gf_image_free(&img);
        }
    }
    return rc;
}

static int bench_matmul_exp(bench *b, const char *group)
{
    (void)group;
    return bench_matmul(b);
}

static int bench_copy_exp(bench *b, const char *group)
{
    (void)group;
    return bench_copy(b);
}

static int bench_jpeg_exp(bench *b, const char *group)
{
    (void)group;
    return gf_bench_jpeg(&b->t, b->gpu, b->device, b->photos, b->count,
                         b->t.reps < 5 ? b->t.reps : 5);
}

#define MAX_EXPERIMENTS 24
#define DEFAULT_PHOTOS 256 /* jpeg: generated photos */

typedef struct experiment {
    const char *name;
    int (*run)(bench *b, const char *name);
    int named_only; /* runs only when named */
} experiment;

/* copy, then the registry's groups in order, then matmul, then jpeg (only
 * when named: it makes or reads hundreds of photos). */
static int experiments(experiment *e)
{
    int n = 0;

    e[n++] = (experiment){"copy", bench_copy_exp, 0};
    for (int i = 0; gf_stages[i] && n < MAX_EXPERIMENTS - 2; i++) {
        int seen = 0;
        for (int j = 1; j < n; j++)
            seen |= !strcmp(e[j].name, gf_stages[i]->group);
        if (!seen)
            e[n++] = (experiment){gf_stages[i]->group, bench_group, 0};
    }
    e[n++] = (experiment){"matmul", bench_matmul_exp, 0};
    e[n++] = (experiment){"jpeg", bench_jpeg_exp, 1};
    return n;
}

static const char usage_line[] = "usage: gpufilt bench [EXPERIMENT...] [--reps N] "
                                 "[--size WxH[,WxH...]] [--matmul MxNxK] [--photos DIR] "
                                 "[--count N] [--json] [--device N] [--cpu]\n";

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "gpufilt: bench: %s%s\n", msg, arg ? arg : "");
    fputs(usage_line, stderr);
    return -GF_EUSAGE;
}

/* "WxH[,WxH...]" into b->sizes. */
static int parse_sizes(bench *b, const char *arg)
{
    char buf[256], *save = NULL;

    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf)
        return -1;
    b->nsizes = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (b->nsizes == MAX_SIZES ||
            gf_parse_ints("--size", "WxH", tok, 'x', 2, 1, 65535, b->sizes[b->nsizes]))
            return -1;
        b->nsizes++;
    }
    return b->nsizes ? 0 : -1;
}

static int parse_matmul(bench *b, const char *arg)
{
    int mnk[3];

    if (gf_parse_ints("--matmul", "MxNxK", arg, 'x', 3, 1, 16384, mnk))
        return -1;
    b->mm = mnk[0];
    b->mn = mnk[1];
    b->mk = mnk[2];
    return 0;
}

int gf_bench_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"reps", required_argument, NULL, 'r'},   {"size", required_argument, NULL, 's'},
        {"matmul", required_argument, NULL, 'm'}, {"json", no_argument, NULL, 'j'},
        {"device", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
        {"cpu", no_argument, NULL, 'c'},          {"photos", required_argument, NULL, 'p'},
        {"count", required_argument, NULL, 'n'},  {NULL, 0, NULL, 0},
    };
    experiment exps[MAX_EXPERIMENTS];
    const int nexp = experiments(exps);
    bench *b = calloc(1, sizeof *b);
    int want[MAX_EXPERIMENTS] = {0}, any = 0, device = 0, json = 0, cpu = 0, c, rc = 0,
        status = 0;

    if (!b)
        return -GF_EINTERNAL;
    b->t.reps = 20;
    parse_sizes(b, DEFAULT_SIZES);
    b->mm = b->mn = b->mk = 4096;
    b->count = DEFAULT_PHOTOS;
    optind = 0; /* 0: glibc starts afresh (parsing may run more than once) */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (gf_parse_int("--reps", optarg, 1, 10000, &b->t.reps))
                status = usage_error("--reps: not a number in 1..10000: ", optarg);
            break;
        case 's':
            if (parse_sizes(b, optarg))
                status = usage_error("--size: not WxH[,WxH...] (1..65535 each): ", optarg);
            break;
        case 'm':
            if (parse_matmul(b, optarg))
                status = usage_error("--matmul: not MxNxK (1..16384 each): ", optarg);
            break;
        case 'j':
            json = 1;
            break;
        case 'c':
            cpu = 1;
            break;
        case 'p':
            b->photos = optarg;
            break;
        case 'n':
            if (gf_parse_int("--count", optarg, 1, 100000, &b->count))
                status = usage_error("--count: not a number in 1..100000: ", optarg);
            break;
        case 'd':
            if (gf_parse_int("--device", optarg, 0, 1023, &device))
                status = usage_error("--device: not a GPU number: ", optarg);
            break;
        case 'h':
            fputs(usage_line, stdout);
            fputs("\nExperiments (default: all):\n", stdout);
            printf("  %-10s device-to-device copy: the floor (always runs first)\n", "copy");
            for (int i = 1; i < nexp; i++) {
                if (exps[i].run != bench_group)
                    continue;
                printf("  %-10s stages:", exps[i].name);
                for (int s = 0; gf_stages[s]; s++)
                    if (!strcmp(gf_stages[s]->group, exps[i].name)) {
                        const int nv = gf_stage_nvariants(gf_stages[s]);
                        printf(" %s (%d variant%s)", gf_stages[s]->name, nv, nv == 1 ? "" : "s");
                    }
                fputc('\n', stdout);
            }
            printf("  %-10s matrix multiply: naive against 16x16 shared tiles, any size\n",
                   "matmul");
            printf("  %-10s (only when named) JPEG decoding, libjpeg-turbo on every core and "
                   "nvJPEG's\n  %-10s backends, both at once, and PNG encoding: a batch's limits, "
                   "on --count N\n  %-10s (256) generated photos or those of --photos DIR\n",
                   "jpeg", "", "");
            free(b);
            return 0;
        case ':':
            status = usage_error("option needs an argument: ", argv[optind - 1]);
            break;
        default:
            status = usage_error("unknown option ", argv[optind - 1]);
        }
        if (status)
            goto done;
    }
    for (; optind < argc; optind++) {
        int found = 0;
        for (int i = 0; i < nexp; i++)
            if (!strcmp(argv[optind], exps[i].name))
                want[i] = found = any = 1;
        if (!found) {
            status = usage_error("unknown experiment ", argv[optind]);
            goto done;
        }
    }
    if (cpu) {
        snprintf(b->t.device, sizeof b->t.device, "CPU, %d threads", gf_cpu_threads());
        note(b, "--cpu: the CPU backend's paths alone, each checked against the gold");
    } else if (gf_gpu_open(device, &b->gpu, b->t.device, sizeof b->t.device)) {
        fprintf(stderr, "gpufilt: bench: %s\n", gf_errmsg());
        status = -GF_ENOGPU;
        goto done;
    } else {
        gf_gpu_versions(b->t.driver, sizeof b->t.driver, b->t.runtime, sizeof b->t.runtime);
        if (!gf_npp_box)
            note(b, "NPP peers not built in (make PEERS=1)");
    }
    b->rng = 0x243F6A8885A308D3ull;
    want[0] = !cpu; /* copy defines the floor */
    b->device = device;
    for (int i = 0; i < nexp && rc == 0; i++)
        if ((want[i] || (!any && !exps[i].named_only)) &&
            (!cpu || exps[i].run == bench_group || exps[i].run == bench_jpeg_exp))
            rc = exps[i].run(b, exps[i].name);
    if (rc) {
        fprintf(stderr, "gpufilt: bench: %s\n", gf_errmsg());
        status = -rc;
    } else if (b->t.t.failed) {
        fprintf(stderr, "gpufilt: bench: a check failed\n");
        status = -GF_EINTERNAL;
    }
    if (json) {
        json_t *j = gf_bench_json(&b->t);
        gf_json_line(j, stdout);
        json_decref(j);
    } else {
        gf_bench_print_text(&b->t, stdout);
    }
    gf_gpu_close(b->gpu);
done:
    gf_table_free(&b->t.t);
    free(b);
    return status;
}
