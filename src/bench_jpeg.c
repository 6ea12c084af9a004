/* bench_jpeg.c - `gpufilt bench jpeg`: the limits a photo batch is judged
 * by, on this machine and these photos (bench_jpeg.h). */
#include "bench_jpeg.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec.h"
#include "gpujpeg.h"

#define BATCH 64          /* files a hardware batch takes, as a batch run's */
#define GEN_W 2400        /* generated photos: 2400x1600 RGB, 4:2:0, quality 90 */
#define GEN_H 1600
#define GEN_QUALITY 90
#define MAX_FILES 100000
#define PNG_PHOTOS 256    /* PNG encoding: the first photos, decoded in memory first */

typedef struct photos {
    unsigned char **data;
    size_t *len;
    gf_shape *shape; /* what each decodes to in colour (RGB, or gray for a gray file) */
    int *hw;         /* the hardware decoder takes it */
    int n;
    double mpix;     /* all of them */
} photos;

static const gf_limits limits = {.max_pixels = GF_DEFAULT_MAX_PIXELS,
                                 .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES,
                                 .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};

static void photos_free(photos *ph)
{
    for (int i = 0; i < ph->n; i++)
        free(ph->data[i]);
    free(ph->data);
    free(ph->len);
    free(ph->shape);
    free(ph->hw);
    memset(ph, 0, sizeof *ph);
}

static int photos_alloc(photos *ph, int n)
{
    ph->data = calloc((size_t)n, sizeof *ph->data);
    ph->len = calloc((size_t)n, sizeof *ph->len);
    ph->shape = calloc((size_t)n, sizeof *ph->shape);
    ph->hw = calloc((size_t)n, sizeof *ph->hw);
    if (!ph->data || !ph->len || !ph->shape || !ph->hw)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    return 0;
}

/* Photo i of a generated set: smooth colour fields (a few low-frequency
 * waves a channel, their phases from seed i) with fine noise, like a
 * resized photo's entropy, encoded by libjpeg-turbo. */
static int generate(int i, unsigned char **out, size_t *len)
{
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    gf_encode_opts eo = {.format = GF_FMT_JPEG, .quality = GEN_QUALITY};
    double ph[3][4];
    gf_image im;
    int rc;

    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 4; k++)
            ph[c][k] = (double)(gf_rand(&rng) % 6283) / 1000.0;
    if ((rc = gf_image_alloc(&im, GEN_W, GEN_H, 3, 8)))
        return rc;
    for (int y = 0; y < GEN_H; y++) {
        unsigned char *row = im.data + (size_t)y * im.stride;
        for (int x = 0; x < GEN_W; x++)
            for (int c = 0; c < 3; c++) {
                const double v = 128 + 50 * sin(x * 0.004 + ph[c][0]) * cos(y * 0.006 + ph[c][1]) +
                                 30 * sin((x + y) * 0.02 + ph[c][2]) +
                                 15 * cos(x * 0.07 - y * 0.05 + ph[c][3]) +
                                 (double)(gf_rand(&rng) % 13) - 6;
                row[3 * x + c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    }
    rc = gf_encode(&im, &eo, out, len);
    gf_image_free(&im);
    return rc;
}

/* n generated photos, made on every core. */
static int generate_all(photos *ph, int n)
{
    int rc = photos_alloc(ph, n);

    ph->n = n;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : rc)
    for (int i = 0; i < n; i++)
        if (!rc)
            rc |= generate(i, &ph->data[i], &ph->len[i]);
    return rc ? GF_EINTERNAL : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The JPEG files of dir (.jpg, .jpeg), in name order, at most n. */
static int read_dir(photos *ph, const char *dir, int n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    int count = 0, cap = 0, rc = 0;

    if (!d)
        return gf_err(GF_ENOINPUT, dir, "cannot open the folder");
    while ((e = readdir(d)) && count < MAX_FILES) {
        if (gf_format_from_name(e->d_name) != GF_FMT_JPEG)
            continue;
        if (count == cap) {
            char **m = realloc(names, (size_t)(cap = cap ? 2 * cap : 256) * sizeof *names);
            if (!m)
                break;
            names = m;
        }
        if (!(names[count] = malloc(strlen(dir) + strlen(e->d_name) + 2)))
            break;
        sprintf(names[count++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (count == 0)
        rc = gf_err(GF_ENOINPUT, dir, "no .jpg or .jpeg file in the folder");
    qsort(names, (size_t)count, sizeof *names, by_name);
    if (rc == 0 && count > n)
        count = n;
    if (rc == 0 && (rc = photos_alloc(ph, count)) == 0)
        for (int i = 0; i < count && rc == 0; i++) {
            rc = gf_read_image(names[i], &limits, &ph->data[i], &ph->len[i]);
            ph->n += rc == 0;
        }
    for (int i = 0; names && i < count; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Each photo's decoded shape and whether the hardware decoder takes it;
 * files the CPU cannot decode are an error. */
static int shapes(photos *ph)
{
    int rc = 0;

    ph->mpix = 0;
    for (int i = 0; i < ph->n && rc == 0; i++) {
        gf_load_info info;
        int w, h, ss;
        ph->hw[i] = gf_jpeg_gpu_candidate("photo", ph->data[i], ph->len[i], &limits, 0, &w, &h, &ss,
                                           &info);
        if (!ph->hw[i]) {
            gf_image im;
            if ((rc = gf_decode("photo", ph->data[i], ph->len[i], &limits, 0, &im, &info)))
                break;
            w = im.width, h = im.height, info.channels = im.channels;
            gf_image_free(&im);
        }
        ph->shape[i] = (gf_shape){w, h, info.channels, 8};
        ph->mpix += (double)w * h / 1e6;
    }
    return rc;
}

/* libjpeg-turbo on `threads` threads over files [0, n), flags as gf_decode's;
 * returns 0 or the first error. */
static int cpu_pass(const photos *ph, int flags)
{
    int rc = 0;

#pragma omp parallel for schedule(dynamic, 1) reduction(| : rc)
    for (int i = 0; i < ph->n; i++) {
        gf_image im;
        gf_load_info info;
        if (!rc && !(rc |= gf_decode("photo", ph->data[i], ph->len[i], &limits, flags, &im, &info)))
            gf_image_free(&im);
    }
    return rc ? GF_EINTERNAL : 0;
}

/* Device buffers for a batch of the largest photo (channels 1 or 3). */
typedef struct outs {
    gf_dimage d[BATCH];
    gf_dimage *p[BATCH];
} outs;

static int outs_alloc(gf_gpu *gpu, const photos *ph, int channels, outs *o)
{
    size_t need = 0;
    int rc = 0;

    for (int i = 0; i < ph->n; i++) {
        const gf_shape s = {ph->shape[i].width, ph->shape[i].height, channels, 8};
        const size_t b = gf_dimage_bytes(&s);
        need = b > need ? b : need;
    }
    for (int k = 0; k < BATCH && rc == 0; k++) {
        rc = gf_dimage_alloc(gpu, &o->d[k], need);
        o->p[k] = &o->d[k];
    }
    return rc == 0 ? gf_gpu_sync(gpu) : rc;
}

static void outs_free(outs *o)
{
    for (int k = 0; k < BATCH; k++)
        gf_dimage_free(&o->d[k]);
}

/* Files [first, first + n) of the pass (modulo the set) through decoder j
 * into o at `channels`; *done counts those it decoded. */
static int hw_batch(gf_jpeg_gpu *j, const photos *ph, int channels, int first, int n, outs *o,
                    int *done)
{
    const unsigned char *data[BATCH] = {0};
    size_t len[BATCH] = {0};
    int status[BATCH], rc = 0;

    for (int k = 0; k < n && rc == 0; k++) {
        const int i = (first + k) % ph->n;
        data[k] = ph->data[i];
        len[k] = ph->len[i];
        rc = gf_dimage_shape(&o->d[k], &(gf_shape){ph->shape[i].width, ph->shape[i].height,
                                                    channels, 8});
    }
    if (rc == 0)
        rc = gf_jpeg_gpu_decode(j, n, data, len, o->p, status);
    for (int k = 0; rc == 0 && k < n; k++)
        *done += status[k] == GF_JPEG_GPU_DONE;
    return rc;
}

/* Whether decoder j's RGB of the first batch equals libjpeg-turbo's: 1
 * equal, 0 not, -1 not checked (an error). */
static int hw_exact(gf_gpu *gpu, gf_jpeg_gpu *j, const photos *ph, outs *o)
{
    const int n = ph->n < BATCH ? ph->n : BATCH;
    int done = 0, equal = 1;

    if (hw_batch(j, ph, 3, 0, n, o, &done))
        return -1;
    for (int k = 0; k < n && equal; k++) {
        gf_image cpu, view;
        gf_load_info info;
        if (ph->shape[k].channels != 3 ||
            gf_decode("photo", ph->data[k], ph->len[k], &limits, 0, &cpu, &info))
            continue;
        if (gf_gpu_download(gpu, &o->d[k], &view, NULL) == 0)
            for (int y = 0; y < cpu.height && equal; y++)
                equal = !memcmp(cpu.data + (size_t)y * cpu.stride,
                                view.data + (size_t)y * view.stride, (size_t)cpu.width * 3);
        gf_image_free(&cpu);
    }
    return equal;
}

/* `total` files (the photos over and over) through decoder j's lanes and
 * `threads` CPU threads at once, pulling from one counter: a lane BATCH
 * files at a time into its own o[lane] at `channels`, a CPU thread one
 * (RGB). *hw_files: the files the hardware decoded. */
static int pull_pass(gf_jpeg_gpu *j, const photos *ph, int channels, outs *o, int total,
                     int threads, int *hw_files)
{
    int next = 0, rc = 0, done = 0;

#pragma omp parallel for schedule(static, 1) num_threads(GF_JPEG_GPU_LANES + threads) \
    reduction(| : rc) reduction(+ : done)
    for (int t = 0; t < GF_JPEG_GPU_LANES + threads; t++) {
        for (;;) {
            const int step = t < GF_JPEG_GPU_LANES ? BATCH : 1;
            int k;
#pragma omp atomic capture
            {
                k = next;
                next += step;
            }
            if (k >= total || rc)
                break;
            if (t < GF_JPEG_GPU_LANES) {
                rc |= hw_batch(j, ph, channels, k, total - k < step ? total - k : step, &o[t],
                               &done);
                continue;
            }
            gf_image im;
            gf_load_info info;
            const int i = k % ph->n;
            if (!(rc |= gf_decode("photo", ph->data[i], ph->len[i], &limits, 0, &im, &info)))
                gf_image_free(&im);
        }
    }
    *hw_files = done;
    return rc ? GF_EINTERNAL : 0;
}

/* PNG encoding of every photo's decoded RGB on every core, at the default
 * level: the decoded images are made first, untimed. */
static int png_pass(gf_image *ims, int n)
{
    int rc = 0;
    const gf_encode_opts eo = {.format = GF_FMT_PNG, .png_level = GF_DEFAULT_PNG_LEVEL};

#pragma omp parallel for schedule(dynamic, 1) reduction(| : rc)
    for (int i = 0; i < n; i++) {
        unsigned char *out;
        size_t len;
        if (!rc && !(rc |= gf_encode(&ims[i], &eo, &out, &len)))
            free(out);
    }
    return rc ? GF_EINTERNAL : 0;
}

/* One timed pass: which, and what it takes. */
typedef struct pass {
    enum { PASS_CPU, PASS_HW, PASS_BOTH, PASS_PNG } kind;
    const photos *ph;
    int arg;          /* CPU: gf_decode's flags; hardware: channels; both: files; PNG: images */
    gf_jpeg_gpu *j;
    outs *o;          /* a lane's each */
    gf_image *ims;
    int threads;
    int *count;       /* hardware, both: files the hardware decoded */
} pass;

static int run_pass(const pass *q)
{
    switch (q->kind) {
    case PASS_CPU: return cpu_pass(q->ph, q->arg);
    case PASS_HW: return pull_pass(q->j, q->ph, q->arg, q->o, q->ph->n, 0, q->count);
    case PASS_BOTH: return pull_pass(q->j, q->ph, 3, q->o, q->arg, q->threads, q->count);
    default: return png_pass(q->ims, q->arg);
    }
}

/* *ms: the median of reps timed runs of pass q (after one untimed), in ms. */
static int timed(int reps, const pass *q, double *ms)
{
    double *t = calloc((size_t)reps, sizeof *t);
    int rc = t ? 0 : gf_err(GF_EINTERNAL, NULL, "out of memory");

    for (int r = -1; r < reps && rc == 0; r++) {
        const double t0 = gf_now_ms();
        if ((rc = run_pass(q)) == 0 && r >= 0)
            t[r] = gf_now_ms() - t0;
    }
    *ms = rc ? 0 : gf_median(t, reps);
    free(t);
    return rc;
}

/* Adds a row: ms a photo, the speedup over base (ms a photo; 0: none). */
static void row(gf_bench_table *t, const char *exp, const char *variant, double ms_pass,
                const photos *ph, double base, int check)
{
    /* no bytes: a decoder's rate is images/s (in the notes), not a copy's share */
    gf_row *r = gf_table_add(&t->t, exp, variant, ms_pass / ph->n, 0);
    if (base > 0)
        r->speedup = base / (ms_pass / ph->n);
    gf_table_check(&t->t, r, check);
}

/* Appends printf(fmt, ...) to t's notes, after "; " unless first. */
static void note(gf_bench_table *t, const char *fmt, ...)
{
    size_t n = strlen(t->notes);
    va_list ap;

    if (n && n + 2 < sizeof t->notes)
        n += (size_t)snprintf(t->notes + n, sizeof t->notes - n, "; ");
    va_start(ap, fmt);
    vsnprintf(t->notes + n, sizeof t->notes - n, fmt, ap);
    va_end(ap);
}

int gf_bench_jpeg(gf_bench_table *t, gf_gpu *gpu, int device, const char *dir, int n, int reps)
{
    photos ph = {0};
    outs o[GF_JPEG_GPU_LANES];
    gf_jpeg_gpu *j = NULL;
    char exp[48];
    const int threads = gf_cpu_threads();
    double cpu_ms = 0, cpu_gray_ms = 0, hw_rate = 0, cpu_rate = 0;
    int rc = dir ? read_dir(&ph, dir, n) : generate_all(&ph, n), hw_files = 0;

    memset(o, 0, sizeof o);
    if (rc == 0)
        rc = shapes(&ph);
    snprintf(exp, sizeof exp, "jpeg decode %.1f MP x %d", ph.n ? ph.mpix / ph.n : 0, ph.n);
    if (rc == 0)
        rc = timed(reps, &(pass){.kind = PASS_CPU, .ph = &ph, .arg = 0}, &cpu_ms);
    if (rc == 0) {
        char v[24];
        snprintf(v, sizeof v, "cpu %dt", threads);
        row(t, exp, v, cpu_ms, &ph, 0, -1);
        cpu_rate = ph.n / (cpu_ms / 1e3);
        note(t, "jpeg, images/s: cpu %.0f", cpu_rate);
        rc = timed(reps, &(pass){.kind = PASS_CPU, .ph = &ph, .arg = GF_DECODE_LUMA},
                   &cpu_gray_ms);
    }
    if (rc == 0) {
        char v[24];
        snprintf(v, sizeof v, "cpu %dt luma", threads);
        row(t, exp, v, cpu_gray_ms, &ph, 0, -1);
        note(t, "cpu luma %.0f", ph.n / (cpu_gray_ms / 1e3));
    }
    for (int k = 0; k < GF_JPEG_GPU_LANES && rc == 0 && gpu; k++)
        rc = outs_alloc(gpu, &ph, 3, &o[k]);
    if (rc == 0 && gpu) {
        static const char *const names[] = {"hardware", "gpu-hybrid", "hybrid"};
        for (int b = 0; b < 3 && rc == 0; b++) {
            double ms = 0;
            int done = 0, exact;
            if (gf_jpeg_gpu_open_backend(device, b, &j)) {
                note(t, "nvJPEG %s: unavailable", names[b]);
                continue;
            }
            pass q = {.kind = PASS_HW, .ph = &ph, .arg = 3, .j = j, .o = o, .count = &done};
            exact = hw_exact(gpu, j, &ph, &o[0]);
            rc = timed(reps, &q, &ms);
            if (rc == 0) {
                row(t, exp, names[b], ms, &ph, cpu_ms / ph.n, b == 0 ? exact : -1);
                note(t, "%s %.0f (%d of %d files%s)", names[b], done / (ms / 1e3), done, ph.n,
                     exact == 1 ? ", libjpeg-turbo's pixels" : exact == 0 ? ", other pixels" : "");
                if (b == 0) {
                    hw_rate = done / (ms / 1e3);
                    hw_files = done;
                }
            }
            if (rc == 0 && b == 0) {
                q.arg = 1; /* the luma */
                rc = timed(reps, &q, &ms);
                if (rc == 0) {
                    row(t, exp, "hardware luma", ms, &ph, cpu_gray_ms / ph.n, -1);
                    note(t, "hardware luma %.0f", done / (ms / 1e3));
                }
            }
            if (rc == 0 && b == 0 && hw_files) { /* both at once, as a batch decodes */
                const int total = 4 * ph.n;
                int got = 0;
                q = (pass){.kind = PASS_BOTH, .ph = &ph, .arg = total, .j = j, .o = o,
                           .threads = threads, .count = &got};
                rc = timed(reps, &q, &ms);
                if (rc == 0) {
                    gf_row *r = gf_table_add(&t->t, exp, "hw+cpu", ms / total, 0);
                    r->speedup = (cpu_ms / ph.n) / (ms / total);
                    gf_table_check(&t->t, r, -1);
                    note(t, "hardware and cpu at once %.0f (%d of %d files on the hardware; "
                            "the two alone, summed: %.0f)",
                         total / (ms / 1e3), got, total, hw_rate + cpu_rate);
                }
            }
            gf_jpeg_gpu_close(j);
            j = NULL;
        }
    }
    if (rc == 0) { /* PNG encoding alone, of the first photos decoded */
        const int np = ph.n < PNG_PHOTOS ? ph.n : PNG_PHOTOS;
        gf_image *ims = calloc((size_t)np, sizeof *ims);
        double ms = 0;
        rc = ims ? 0 : gf_err(GF_EINTERNAL, NULL, "out of memory");
        for (int i = 0; i < np && rc == 0; i++) {
            gf_load_info info;
            rc = gf_decode("photo", ph.data[i], ph.len[i], &limits, 0, &ims[i], &info);
        }
        if (rc == 0)
            rc = timed(reps, &(pass){.kind = PASS_PNG, .ims = ims, .arg = np}, &ms);
        if (rc == 0) {
            char e[48], v[24];
            gf_row *r;
            snprintf(e, sizeof e, "png encode %.1f MP x %d", ph.mpix / ph.n, np);
            snprintf(v, sizeof v, "cpu %dt", threads);
            r = gf_table_add(&t->t, e, v, ms / np, 0);
            gf_table_check(&t->t, r, -1);
            note(t, "png encode %.0f", np / (ms / 1e3));
        }
        for (int i = 0; ims && i < np; i++)
            gf_image_free(&ims[i]);
        free(ims);
    }
    for (int k = 0; k < GF_JPEG_GPU_LANES; k++)
        outs_free(&o[k]);
    photos_free(&ph);
    return rc;
}
