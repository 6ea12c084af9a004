/* bench.c - gpufilt bench [EXPERIMENT...] [--reps N] [--size WxH] [--json]
 * [--device N]. Each row: median CUDA-event time over N runs after a warm-up,
 * GB/s, the ratio to the floor (bytes that must move over the copy rate
 * measured first), the speedup over the experiment's baseline variant, and
 * the check against the CPU reference. */
#include "bench.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "peers.h"
#include "pipeline.h"
#include "report.h"
#include "stage.h"
#include "stages/mean.h"
#include "stages/orient.h"

#define BENCH_ROWS 128
#define COPY_BYTES (256u << 20) /* 5x the H100's 50 MB L2: a DRAM rate */

typedef struct bench_row {
    char experiment[40];
    char variant[24];
    double ms;
    double bytes;  /* that must move; 0: none */
    double speedup; /* over the baseline row of the experiment; 0: none */
    int check;     /* 1 PASS, 0 FAIL, -1 none */
} bench_row;

typedef struct bench {
    gf_gpu *gpu;
    int reps, width, height, json;
    double copy_gbps; /* bytes read + written per ns */
    bench_row rows[BENCH_ROWS];
    int nrows;
    int failed;
    unsigned long long rng;
} bench;

static bench_row *add_row(bench *b, const char *exp, const char *variant, double ms,
                          double bytes, int check)
{
    static bench_row scratch;
    bench_row *r = b->nrows < BENCH_ROWS ? &b->rows[b->nrows++] : &scratch;

    memset(r, 0, sizeof *r);
    snprintf(r->experiment, sizeof r->experiment, "%s", exp);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    r->ms = ms;
    r->bytes = bytes;
    r->check = check;
    if (check == 0)
        b->failed = 1;
    return r;
}

static unsigned bench_rand(bench *b)
{
    b->rng ^= b->rng >> 12;
    b->rng ^= b->rng << 25;
    b->rng ^= b->rng >> 27;
    return (unsigned)((b->rng * 2685821657736338717ull) >> 32);
}

static int random_image(bench *b, gf_image *im, int w, int h)
{
    int rc = gf_image_alloc(im, w, h);

    for (size_t i = 0; rc == 0 && i < (size_t)w * h; i++)
        im->data[i] = (unsigned char)bench_rand(b);
    return rc;
}

typedef struct copy_launch {
    gf_gpu *gpu;
    void *dst, *src;
} copy_launch;

static int launch_copy(void *ctx, void *stream)
{
    copy_launch *c = ctx;
    (void)stream;
    return gf_gpu_copy(c->gpu, c->dst, c->src, COPY_BYTES);
}

/* copy: device-to-device cudaMemcpy of 256 MiB; defines the floor. */
static int bench_copy(bench *b)
{
    gf_dimage src, dst;
    copy_launch c = {b->gpu, NULL, NULL};
    double ms;
    int rc;

    if ((rc = gf_dimage_alloc(b->gpu, &src, COPY_BYTES)))
        return rc;
    if ((rc = gf_dimage_alloc(b->gpu, &dst, COPY_BYTES)) == 0) {
        c.src = src.data;
        c.dst = dst.data;
        if ((rc = gf_dimage_poison(b->gpu, &src, 0x5A)) == 0 &&
            (rc = gf_gpu_time(b->gpu, b->reps, launch_copy, &c, &ms)) == 0) {
            b->copy_gbps = 2.0 * COPY_BYTES / (ms * 1e6);
            add_row(b, "copy 256 MiB", "cudaMemcpy", ms, 2.0 * COPY_BYTES, -1);
        }
        gf_dimage_free(&dst);
    }
    gf_dimage_free(&src);
    return rc;
}

/* Every variant of image stage s on img, each poisoned, timed and checked
 * against the CPU reference; variant 0 is the baseline. */
static int bench_stage(bench *b, const char *exp, const gf_stage *s, const gf_image *img)
{
    gf_variant_result res[GF_MAX_VARIANTS];
    gf_output ref;
    double cpu_ms, bytes = gf_stage_bytes(s, img->width, img->height);
    int rc = gf_stage_check(b->gpu, s, img, b->reps, &ref, &cpu_ms, res);

    if (rc)
        return rc;
    add_row(b, exp, "cpu", cpu_ms, bytes, -1);
    for (int v = 0; s->ops->variants[v]; v++) {
        bench_row *r = add_row(b, exp, s->ops->variants[v], res[v].ms, bytes, res[v].match);
        r->speedup = res[0].ms / res[v].ms;
        if (!res[v].match)
            fprintf(stderr, "gpufilt: bench: %s\n", res[v].why);
    }
    gf_output_free(&ref);
    return 0;
}

/* mean: the box-mean seed, 3x3 and 5x5, every variant. */
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
        rc = bench_stage(b, exp, &s, &img);
    }
    gf_image_free(&img);
    return rc;
}

/* transpose: the tiled-transpose seed on 8-bit images, with the tool's
 * kernels: transpose and rotate 90 (naive against shared tiles) and rotate
 * 180 (naive against 4-byte words). */
static int bench_transpose(bench *b)
{
    static const int ops[] = {GF_TRANSPOSE, GF_ROTATE90, GF_ROTATE180};
    gf_image img;
    gf_stage s;
    char exp[40], label[32];
    int rc = random_image(b, &img, b->width, b->height);

    for (int i = 0; rc == 0 && i < 3; i++) {
        memset(&s, 0, sizeof s);
        s.ops = gf_orient_swaps(ops[i]) ? &gf_stage_transpose : &gf_stage_mirror;
        s.u.orient.op = ops[i];
        s.ops->label(&s, label, sizeof label);
        snprintf(exp, sizeof exp, "%s %dx%d", label, b->width, b->height);
        rc = bench_stage(b, exp, &s, &img);
    }
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

typedef struct cub_launch {
    const gf_dimage *in;
    unsigned *hist;
    void *temp;
    size_t temp_bytes;
} cub_launch;

static int launch_cub(void *ctx, void *stream)
{
    cub_launch *c = ctx;
    return gf_cub_hist(c->in, c->hist, c->temp, &c->temp_bytes, stream);
}

/* CUB's HistogramEven on img, timed and checked against the CPU counts. */
static int bench_cub_hist(bench *b, const char *exp, const gf_image *img)
{
    gf_dimage in, hist, temp;
    cub_launch c = {&in, NULL, NULL, 0};
    uint32_t got[256], want[256] = {0};
    double ms;
    int rc;

    memset(&hist, 0, sizeof hist);
    memset(&temp, 0, sizeof temp);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            want[img->data[(size_t)y * img->stride + x]]++;
    if ((rc = gf_dimage_alloc(b->gpu, &in, gf_dimage_bytes(img->width, img->height))) ||
        (rc = gf_dimage_alloc(b->gpu, &hist, 256 * sizeof(unsigned))) ||
        (rc = gf_gpu_upload(b->gpu, img, &in, NULL)) ||
        (rc = gf_cub_hist(&in, NULL, NULL, &c.temp_bytes, NULL)) ||
        (rc = gf_dimage_alloc(b->gpu, &temp, c.temp_bytes + 1)))
        goto out;
    c.hist = (unsigned *)(void *)hist.data;
    c.temp = temp.data;
    if ((rc = gf_dimage_poison(b->gpu, &hist, 0xA5)) ||
        (rc = gf_gpu_time(b->gpu, b->reps, launch_cub, &c, &ms)) ||
        (rc = gf_gpu_fetch(b->gpu, got, hist.data, sizeof got)))
        goto out;
    add_row(b, exp, "cub", ms, (double)img->width * img->height, !memcmp(got, want, sizeof got));
out:
    gf_dimage_free(&in);
    gf_dimage_free(&hist);
    gf_dimage_free(&temp);
    return rc;
}

/* hist: the histogram seed. 10 MB and 64 MB of random bytes, then 64 MB of
 * constant and photographic data; global against shared atomics, with CUB's
 * HistogramEven as the library reference. */
static int bench_hist(bench *b)
{
    gf_stage s;
    char exp[40];
    int rc = 0;

    memset(&s, 0, sizeof s);
    s.ops = &gf_stage_hist;
    for (int k = 0; rc == 0 && k < 4; k++) {
        gf_image img;
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
        if ((rc = bench_stage(b, exp, &s, &img)) == 0)
            rc = bench_cub_hist(b, exp, &img);
        gf_image_free(&img);
    }
    return rc;
}

/* colsum: the 1-byte against 4-byte loads seed at its 8192x8192 and at
 * 8000x8000, with the split kernel; row sums beside them. */
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

typedef struct experiment {
    const char *name;
    const char *description;
    int (*run)(bench *b);
} experiment;

static const experiment experiments[] = {
    {"copy", "device-to-device copy: the bandwidth floor (always runs first)", bench_copy},
    {"mean", "box mean 3x3 and 5x5, global against shared memory", bench_mean},
    {"transpose", "transpose, rotate 90 and 180 of bytes: naive against tiled", bench_transpose},
    {"hist", "histogram: global against shared atomics, CUB as the reference", bench_hist},
    {"colsum", "column sums: 1-byte against 4-byte loads against split rows", bench_colsum},
};
#define NEXP (int)(sizeof experiments / sizeof experiments[0])

static double floor_ratio(const bench *b, const bench_row *r)
{
    return r->bytes > 0 && b->copy_gbps > 0 ? r->ms / (r->bytes / (b->copy_gbps * 1e6)) : 0;
}

static const char *check_name(int c)
{
    return c < 0 ? "-" : c ? "PASS" : "FAIL";
}

static void print_text(const bench *b, const char *device, const char *drv, const char *rt)
{
    printf("%-24s %-12s %10s %9s %8s %8s  %s\n", "experiment", "variant", "ms", "GB/s",
           "x floor", "speedup", "check");
    for (int i = 0; i < b->nrows; i++) {
        const bench_row *r = &b->rows[i];
        printf("%-24s %-12s %10.4f", r->experiment, r->variant, r->ms);
        if (r->bytes > 0)
            printf(" %9.1f %8.2f", r->bytes / (r->ms * 1e6), floor_ratio(b, r));
        else
            printf(" %9s %8s", "-", "-");
        if (r->speedup > 0)
            printf(" %7.2fx", r->speedup);
        else
            printf(" %8s", "-");
        printf("  %s\n", check_name(r->check));
    }
    printf("device: %s, CUDA driver %s, runtime %s; median of %d runs after a warm-up; "
           "floor = bytes moved at %.0f GB/s (copy)\n",
           device, drv, rt, b->reps, b->copy_gbps);
}

static void print_json(const bench *b, const char *device, const char *drv, const char *rt)
{
    fputs("{\"device\":", stdout);
    gf_json_string(stdout, device);
    printf(",\"cuda_driver\":\"%s\",\"cuda_runtime\":\"%s\",\"reps\":%d,\"copy_gbps\":%.3f,"
           "\"rows\":[",
           drv, rt, b->reps, b->copy_gbps);
    for (int i = 0; i < b->nrows; i++) {
        const bench_row *r = &b->rows[i];
        printf("%s{\"experiment\":", i ? "," : "");
        gf_json_string(stdout, r->experiment);
        fputs(",\"variant\":", stdout);
        gf_json_string(stdout, r->variant);
        printf(",\"ms\":%.6f", r->ms);
        if (r->bytes > 0)
            printf(",\"bytes\":%.0f,\"gbps\":%.3f,\"x_floor\":%.4f", r->bytes,
                   r->bytes / (r->ms * 1e6), floor_ratio(b, r));
        if (r->speedup > 0)
            printf(",\"speedup\":%.4f", r->speedup);
        printf(",\"check\":\"%s\"}", check_name(r->check));
    }
    printf("],\"passed\":%s}\n", b->failed ? "false" : "true");
}

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "gpufilt: bench: %s%s\n", msg, arg ? arg : "");
    fputs("usage: gpufilt bench [EXPERIMENT...] [--reps N] [--size WxH] [--json] [--device N]\n",
          stderr);
    return 64;
}

int gf_bench_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"reps", required_argument, NULL, 'r'}, {"size", required_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},       {"device", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    bench *b = calloc(1, sizeof *b);
    int want[NEXP] = {0}, any = 0, device = 0, c, rc = 0, status = 0;
    char name[128], drv[16], rt[16], *end;

    if (!b)
        return 70;
    b->reps = 20;
    b->width = b->height = 8000;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            b->reps = (int)strtol(optarg, &end, 10);
            if (*end || b->reps < 1 || b->reps > 10000)
                return usage_error("--reps: not a number in 1..10000: ", optarg);
            break;
        case 's':
            if (sscanf(optarg, "%dx%d%c", &b->width, &b->height, name) != 2 || b->width < 1 ||
                b->height < 1 || b->width > 65535 || b->height > 65535)
                return usage_error("--size: not WxH: ", optarg);
            break;
        case 'j':
            b->json = 1;
            break;
        case 'd':
            device = (int)strtol(optarg, &end, 10);
            if (*end || device < 0)
                return usage_error("--device: not a GPU number: ", optarg);
            break;
        case 'h':
            printf("usage: gpufilt bench [EXPERIMENT...] [--reps N] [--size WxH] [--json] "
                   "[--device N]\n\nExperiments (default: all):\n");
            for (int i = 0; i < NEXP; i++)
                printf("  %-10s %s\n", experiments[i].name, experiments[i].description);
            free(b);
            return 0;
        default:
            return usage_error("bad option ", argv[optind - 1]);
        }
    }
    for (; optind < argc; optind++) {
        int found = 0;
        for (int i = 0; i < NEXP; i++)
            if (!strcmp(argv[optind], experiments[i].name))
                want[i] = found = any = 1;
        if (!found)
            return usage_error("unknown experiment ", argv[optind]);
    }
    if (gf_gpu_open(device, &b->gpu, name, sizeof name)) {
        fprintf(stderr, "gpufilt: bench: %s\n", gf_errmsg());
        free(b);
        return 69;
    }
    gf_gpu_versions(drv, rt, sizeof drv);
    b->rng = 0x243F6A8885A308D3ull;
    want[0] = 1; /* copy defines the floor */
    for (int i = 0; i < NEXP && rc == 0; i++)
        if (want[i] || !any)
            rc = experiments[i].run(b);
    if (rc) {
        fprintf(stderr, "gpufilt: bench: %s\n", gf_errmsg());
        status = -rc;
    } else if (b->failed) {
        fprintf(stderr, "gpufilt: bench: a check failed\n");
        status = 70;
    }
    if (b->json)
        print_json(b, name, drv, rt);
    else
        print_text(b, name, drv, rt);
    gf_gpu_close(b->gpu);
    free(b);
    return status;
}
