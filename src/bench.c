/* bench.c - gpufilt bench [EXPERIMENT...] [--reps N] [--size WxH]
 * [--matmul MxNxK] [--json] [--device N]: the five seed experiments with
 * gpufilt's own kernels. Each row: the median CUDA-event time over N runs
 * after a warm-up, the rate, the ratio to the floor (bytes that must move
 * over the copy rate measured first), the speedup over the experiment's
 * baseline and the check against a reference. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "gpu.h"
#include "peers.h"
#include "pipeline.h"
#include "stage.h"
#include "stages/orient.h"

#define COPY_BYTES (256u << 20) /* 5x the H100's 50 MB L2: a DRAM rate */
#define SEED_ITERS 20           /* seed 2 transposes 20 times per timing */
#define MATMUL_TOL 1e-5         /* relative Frobenius error against the reference */
#define MATMUL_SAMPLES 512      /* C entries checked in double on the CPU */

typedef struct bench {
    gf_gpu *gpu;
    int width, height;   /* image experiments */
    int mm, mn, mk;      /* matmul M x N x K */
    gf_bench_table t;
    uint64_t rng;
} bench;

static unsigned bench_rand(bench *b)
{
    return gf_rand(&b->rng);
}

static int random_image(bench *b, gf_image *im, int w, int h)
{
    return gf_image_random(im, w, h, &b->rng);
}

static void note(bench *b, const char *text)
{
    size_t n = strlen(b->t.notes);
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
        b->t.copy_gbps = 2.0 * COPY_BYTES / (ms * 1e6);
        gf_bench_add(&b->t, "copy 256 MiB", "cudaMemcpy", ms, 2.0 * COPY_BYTES, -1);
    }
    gf_dimage_free(&dst);
    gf_dimage_free(&src);
    return rc;
}

/* Every variant of stage s on img, each poisoned, timed and checked against
 * the CPU reference; variant 0 is the baseline. The CPU reference's own
 * time is a row too. */
static int bench_stage(bench *b, const char *exp, const gf_stage *s, const gf_image *img)
{
    gf_variant_result res[GF_MAX_VARIANTS];
    gf_output ref;
    double cpu_ms, bytes = gf_stage_bytes(s, img->width, img->height);
    int rc = gf_stage_check(b->gpu, s, img, b->t.reps, &ref, &cpu_ms, res);

    if (rc)
        return rc;
    gf_bench_add(&b->t, exp, "cpu", cpu_ms, bytes, -1);
    for (int v = 0; s->ops->variants[v]; v++) {
        gf_bench_row *r = gf_bench_add(&b->t, exp, s->ops->variants[v], res[v].ms, bytes,
                                       res[v].match);
        r->speedup = res[0].ms / res[v].ms;
        if (!res[v].match)
            fprintf(stderr, "gpufilt: bench: %s\n", res[v].why);
    }
    gf_output_free(&ref);
    return 0;
}

/* A library peer producing an image: img uploaded, fn timed into an output
 * of ow x oh, the result compared with want. A difference of at most `tol`
 * per pixel passes (NPP's box filter rounds down: tol 1). */
static int bench_peer_image(bench *b, const char *exp, const char *name, const gf_image *img,
                            const gf_image *want, int tol, launch *l)
{
    gf_dimage in, out;
    gf_image got;
    double ms;
    int rc, ok = 1;

    memset(&out, 0, sizeof out);
    if ((rc = gf_dimage_alloc(b->gpu, &in, gf_dimage_bytes(img->width, img->height))) ||
        (rc = gf_dimage_alloc(b->gpu, &out, gf_dimage_bytes(want->width, want->height))) ||
        (rc = gf_gpu_upload(b->gpu, img, &in, NULL)) ||
        (rc = gf_dimage_poison(b->gpu, &out, 0xA5)))
        goto out;
    l->in = &in;
    l->out = &out;
    if ((rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, l, &ms)) ||
        (rc = gf_gpu_download(b->gpu, &out, &got, NULL)))
        goto out;
    ok = got.width == want->width && got.height == want->height;
    for (int y = 0; ok && y < got.height; y++)
        for (int x = 0; ok && x < got.width; x++)
            ok = abs(got.data[(size_t)y * got.stride + x] -
                     want->data[(size_t)y * want->stride + x]) <= tol;
    gf_bench_add(&b->t, exp, name, ms,
                 (double)img->width * img->height + (double)want->width * want->height, ok);
out:
    gf_dimage_free(&in);
    gf_dimage_free(&out);
    return rc;
}

static int npp_box_fn(launch *l, void *stream)
{
    return gf_npp_box(l->in, l->out, l->i0, stream);
}

/* mean: the box-mean seed, 3x3 and 5x5, every variant; NPP's box filter
 * beside them where built in. */
static int bench_mean(bench *b)
{
    gf_image img;
    gf_stage s;
    char exp[40];
    int rc = random_image(b, &img, b->width, b->height);

    memset(&s, 0, sizeof s);
    s.ops = &gf_stage_mean;
    for (int k = 3; rc == 0 && k <= 5; k += 2) {
        s.u.mean.ksize = k;
        snprintf(exp, sizeof exp, "mean %dx%d %dx%d", k, k, b->width, b->height);
        if ((rc = bench_stage(b, exp, &s, &img)) == 0 && gf_npp_box) {
            gf_image want;
            if ((rc = s.ops->run_cpu(&s, &img, &want)) == 0) {
                launch l = {.fn = npp_box_fn, .i0 = k};
                rc = bench_peer_image(b, exp, "npp", &img, &want, 1, &l);
                gf_image_free(&want);
            }
        }
    }
    if (gf_npp_box)
        note(b, "npp box filter: replicate border, rounds down, checked to +-1");
    gf_image_free(&img);
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
    gf_bench_add(&b->t, exp, "cpu loop", (gf_now_ms() - t0) / SEED_ITERS, 2.0 * bytes, -1);
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
        gf_bench_add(&b->t, exp, names[v], ms, 2.0 * bytes, !memcmp(got, want, bytes))->speedup =
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

static int npp_transpose_fn(launch *l, void *stream)
{
    return gf_npp_transpose(l->in, l->out, stream);
}

static int npp_rotate180_fn(launch *l, void *stream)
{
    return gf_npp_rotate180(l->in, l->out, stream);
}

/* transpose: seed 2's float setup, then the tool's own kernels on 8-bit
 * images: transpose and rotate 90 (naive against shared tiles) and rotate
 * 180 (naive against 4-byte words), with NPP's transpose and mirror. */
static int bench_transpose(bench *b)
{
    static const int ops[] = {GF_TRANSPOSE, GF_ROTATE90, GF_ROTATE180};
    gf_image img;
    gf_stage s;
    char exp[40], label[32];
    int rc = bench_seed_transpose(b);

    if (rc == 0)
        rc = random_image(b, &img, b->width, b->height);
    for (int i = 0; rc == 0 && i < 3; i++) {
        memset(&s, 0, sizeof s);
        s.ops = gf_orient_swaps(ops[i]) ? &gf_stage_transpose : &gf_stage_mirror;
        s.u.orient.op = ops[i];
        s.ops->label(&s, label, sizeof label);
        snprintf(exp, sizeof exp, "%s %dx%d", label, b->width, b->height);
        rc = bench_stage(b, exp, &s, &img);
        if (rc == 0 && ops[i] != GF_ROTATE90 && gf_npp_transpose) {
            gf_image want;
            launch l = {.fn = ops[i] == GF_TRANSPOSE ? npp_transpose_fn : npp_rotate180_fn};
            if ((rc = s.ops->run_cpu(&s, &img, &want)) == 0) {
                rc = bench_peer_image(b, exp, "npp", &img, &want, 0, &l);
                gf_image_free(&want);
            }
        }
    }
    if (rc == 0)
        gf_image_free(&img);
    return rc;
}

/* A photograph at w x h: samples/camera.png scaled by nearest neighbour when
 * it can be read from the working directory, else a smooth synthetic field
 * with noise. *what names it. */
static int photo_image(bench *b, gf_image *im, int w, int h, const char **what)
{
    gf_limits lim = {GF_DEFAULT_MAX_PIXELS, GF_DEFAULT_MAX_FILE_BYTES};
    gf_load_info info;
    gf_image src;
    int rc = gf_image_alloc(im, w, h);

    if (rc)
        return rc;
    if (gf_load("samples/camera.png", &lim, &src, &info) == 0) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                im->data[(size_t)y * w + x] =
                    src.data[(size_t)((long long)y * src.height / h) * src.stride +
                             (size_t)((long long)x * src.width / w)];
        gf_image_free(&src);
        *what = "camera.png";
        return 0;
    }
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

/* A library histogram of img (fn sizes its temp storage when p1 is NULL),
 * timed and checked against the CPU counts in want. */
static int bench_peer_hist(bench *b, const char *exp, const char *name, const gf_image *img,
                           const uint32_t *want, int (*fn)(launch *, void *))
{
    gf_dimage in, hist, temp;
    launch l = {.fn = fn, .in = &in};
    uint32_t got[256];
    double ms;
    int rc;

    memset(&hist, 0, sizeof hist);
    memset(&temp, 0, sizeof temp);
    if ((rc = gf_dimage_alloc(b->gpu, &in, gf_dimage_bytes(img->width, img->height))) ||
        (rc = gf_dimage_alloc(b->gpu, &hist, sizeof got)) ||
        (rc = gf_gpu_upload(b->gpu, img, &in, NULL)) || (rc = fn(&l, NULL)) ||
        (rc = gf_dimage_alloc(b->gpu, &temp, l.n + 1)))
        goto out;
    l.p0 = hist.data;
    l.p1 = temp.data;
    if ((rc = gf_dimage_poison(b->gpu, &hist, 0xA5)) ||
        (rc = gf_gpu_time(b->gpu, b->t.reps, run_launch, &l, &ms)) ||
        (rc = gf_gpu_fetch(b->gpu, got, hist.data, sizeof got)))
        goto out;
    gf_bench_add(&b->t, exp, name, ms, (double)img->width * img->height,
                 !memcmp(got, want, sizeof got));
out:
    gf_dimage_free(&in);
    gf_dimage_free(&hist);
    gf_dimage_free(&temp);
    return rc;
}

/* hist: the histogram seed. 10 MB and 64 MB of random bytes, then 64 MB of
 * constant and photographic data; global against shared atomics, with CUB's
 * HistogramEven (and NPP's, where built in) as the library reference. */
static int bench_hist(bench *b)
{
    gf_stage s;
    char exp[40];
    int rc = 0;

    memset(&s, 0, sizeof s);
    s.ops = &gf_stage_hist;
    for (int k = 0; rc == 0 && k < 4; k++) {
        gf_image img;
        uint32_t want[256];
        const char *what = k < 2 ? "random" : k == 2 ? "constant" : NULL;
        int w = k == 0 ? 3200 : b->width, h = k == 0 ? 3125 : b->height; /* 10 MB, 64 MB */
        if (k < 2)
            rc = random_image(b, &img, w, h);
        else if (k == 2 && (rc = gf_image_alloc(&img, w, h)) == 0)
            memset(img.data, 77, (size_t)w * h);
        else if (k == 3)
            rc = photo_image(b, &img, w, h, &what);
        if (rc)
            break;
        snprintf(exp, sizeof exp, "hist %dx%d %s", w, h, what);
        if ((rc = bench_stage(b, exp, &s, &img)) == 0 &&
            (rc = s.ops->report_cpu(&s, &img, want)) == 0)
            rc = bench_peer_hist(b, exp, "cub", &img, want, cub_hist_fn);
        if (rc == 0 && gf_npp_hist)
            rc = bench_peer_hist(b, exp, "npp", &img, want, npp_hist_fn);
        gf_image_free(&img);
    }
    return rc;
}

/* colsum: the 1-byte against 4-byte loads seed at its 8192x8192 and at the
 * --size, with the split kernel; row sums beside them. */
static int bench_colsum(bench *b)
{
    gf_stage s;
    char exp[40];
    int rc = 0;

    for (int k = 0; rc == 0 && k < 2; k++) {
        gf_image img;
        int w = k == 0 ? 8192 : b->width, h = k == 0 ? 8192 : b->height;
        if ((rc = random_image(b, &img, w, h)))
            break;
        for (int r = 0; rc == 0 && r < 2; r++) {
            memset(&s, 0, sizeof s);
            s.ops = r == 0 ? &gf_stage_colsum : &gf_stage_rowsum;
            snprintf(exp, sizeof exp, "%s %dx%d", r == 0 ? "colsum" : "rowsum", w, h);
            rc = bench_stage(b, exp, &s, &img);
        }
        gf_image_free(&img);
    }
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
        gf_bench_add(&b->t, exp, "cublas", ms, 0,
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
        gf_bench_row *r = gf_bench_add(&b->t, exp, names[v], ms, 0, err < MATMUL_TOL);
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

typedef struct experiment {
    const char *name;
    const char *description;
    int (*run)(bench *b);
} experiment;

static const experiment experiments[] = {
    {"copy", "device-to-device copy: the bandwidth floor (always runs first)", bench_copy},
    {"mean", "box mean 3x3 and 5x5: global against shared memory", bench_mean},
    {"transpose", "seed 2's float transpose, then bytes: naive against tiled", bench_transpose},
    {"hist", "histogram: global against shared atomics, CUB as the reference", bench_hist},
    {"colsum", "column sums: 1-byte against 4-byte loads against split rows", bench_colsum},
    {"matmul", "matrix multiply: naive against 16x16 shared tiles, any size", bench_matmul},
};
#define NEXP (int)(sizeof experiments / sizeof experiments[0])

static const char usage_line[] = "usage: gpufilt bench [EXPERIMENT...] [--reps N] [--size WxH] "
                                 "[--matmul MxNxK] [--json] [--device N]\n";

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "gpufilt: bench: %s%s\n", msg, arg ? arg : "");
    fputs(usage_line, stderr);
    return 64;
}

int gf_bench_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"reps", required_argument, NULL, 'r'},   {"size", required_argument, NULL, 's'},
        {"matmul", required_argument, NULL, 'm'}, {"json", no_argument, NULL, 'j'},
        {"device", required_argument, NULL, 'd'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bench *b = calloc(1, sizeof *b);
    int want[NEXP] = {0}, any = 0, device = 0, json = 0, c, rc = 0, status = 0;
    char *end, extra;

    if (!b)
        return 70;
    b->t.reps = 20;
    b->width = b->height = 8000;
    b->mm = b->mn = b->mk = 4096;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            b->t.reps = (int)strtol(optarg, &end, 10);
            if (*end || !*optarg || b->t.reps < 1 || b->t.reps > 10000)
                status = usage_error("--reps: not a number in 1..10000: ", optarg);
            break;
        case 's':
            if (sscanf(optarg, "%dx%d%c", &b->width, &b->height, &extra) != 2 || b->width < 1 ||
                b->height < 1 || b->width > 65535 || b->height > 65535)
                status = usage_error("--size: not WxH (1..65535 each): ", optarg);
            break;
        case 'm':
            if (sscanf(optarg, "%dx%dx%d%c", &b->mm, &b->mn, &b->mk, &extra) != 3 || b->mm < 1 ||
                b->mn < 1 || b->mk < 1 || b->mm > 16384 || b->mn > 16384 || b->mk > 16384)
                status = usage_error("--matmul: not MxNxK (1..16384 each): ", optarg);
            break;
        case 'j':
            json = 1;
            break;
        case 'd':
            device = (int)strtol(optarg, &end, 10);
            if (*end || !*optarg || device < 0)
                status = usage_error("--device: not a GPU number: ", optarg);
            break;
        case 'h':
            fputs(usage_line, stdout);
            fputs("\nExperiments (default: all):\n", stdout);
            for (int i = 0; i < NEXP; i++)
                printf("  %-10s %s\n", experiments[i].name, experiments[i].description);
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
        for (int i = 0; i < NEXP; i++)
            if (!strcmp(argv[optind], experiments[i].name))
                want[i] = found = any = 1;
        if (!found) {
            status = usage_error("unknown experiment ", argv[optind]);
            goto done;
        }
    }
    if (gf_gpu_open(device, &b->gpu, b->t.device, sizeof b->t.device)) {
        fprintf(stderr, "gpufilt: bench: %s\n", gf_errmsg());
        status = 69;
        goto done;
    }
    gf_gpu_versions(b->t.driver, sizeof b->t.driver, b->t.runtime, sizeof b->t.runtime);
    b->rng = 0x243F6A8885A308D3ull;
    if (!gf_npp_box)
        note(b, "NPP peers not built in (make PEERS=1)");
    want[0] = 1; /* copy defines the floor */
    for (int i = 0; i < NEXP && rc == 0; i++)
        if (want[i] || !any)
            rc = experiments[i].run(b);
    if (rc) {
        fprintf(stderr, "gpufilt: bench: %s\n", gf_errmsg());
        status = -rc;
    } else if (b->t.failed) {
        fprintf(stderr, "gpufilt: bench: a check failed\n");
        status = 70;
    }
    if (json)
        gf_bench_print_json(&b->t, stdout);
    else
        gf_bench_print_text(&b->t, stdout);
    gf_gpu_close(b->gpu);
done:
    free(b);
    return status;
}
