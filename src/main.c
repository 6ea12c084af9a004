/* main.c - argv -> pipeline -> exit status; the only place that exits. */
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "gpu.h"
#include "image.h"
#include "pipeline.h"
#include "report.h"

/* CUDA start-up (~0.2 s) runs on this thread while the input decodes. */
typedef struct gpu_start {
    int device;
    size_t hint; /* bytes of the decoded image, once known: pinned memory to reserve */
    gf_gpu *gpu;
    int rc;
    char msg[1024];
    char name[128];
} gpu_start;

static void *gpu_start_main(void *arg)
{
    gpu_start *g = arg;

    size_t hint;

    g->rc = gf_gpu_open(g->device, &g->gpu, g->name, sizeof g->name);
    if (g->rc) {
        snprintf(g->msg, sizeof g->msg, "%s", gf_errmsg());
        return NULL;
    }
    /* The main thread has usually read the header by now. */
    hint = __atomic_load_n(&g->hint, __ATOMIC_ACQUIRE);
    if (hint)
        gf_gpu_reserve(g->gpu, hint); /* best effort: upload allocates otherwise */
    return NULL;
}

static void on_signal(int sig)
{
    gf_tmp_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

static int fail(int rc)
{
    fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
    return -rc;
}

/* Refuses an output that is the input file (unless --force), and an output
 * directory that does not exist or is not writable, before any work. */
static int check_output(const gf_options *o, const char *path)
{
    struct stat si, so;
    char *copy, *dir;
    int ok;

    if (!path || !strcmp(path, "-"))
        return 0;
    if (strcmp(o->input, "-") && !o->force && stat(o->input, &si) == 0 &&
        stat(path, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
        return gf_err(GF_EUSAGE, path, "is the input file; use --force to replace it");
    copy = strdup(path);
    if (!copy)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    dir = dirname(copy);
    ok = access(dir, W_OK | X_OK) == 0;
    if (!ok)
        gf_err(GF_ECREATE, path, "cannot create: %s: %s", dir, strerror(errno));
    free(copy);
    return ok ? 0 : GF_ECREATE;
}

static int check_outputs(const gf_options *o)
{
    int rc = check_output(o, o->output);

    for (int i = 0; rc == 0 && i < o->nstages; i++)
        if (gf_stage_is_report(&o->stages[i]))
            rc = check_output(o, o->stages[i].u.report.path);
    return rc;
}

/* Writes every report stage's result, timed as one step. */
static int write_reports(const gf_options *o, gf_result *results, gf_report *rep)
{
    double t0 = gf_now_ms();
    int rc = 0, any = 0;

    for (int i = 0; rc == 0 && i < o->nstages; i++)
        if (gf_stage_is_report(&o->stages[i])) {
            rc = o->stages[i].ops->report_write(&o->stages[i], &results[i], &o->report);
            any = 1;
        }
    if (rc == 0 && any)
        gf_report_step(rep, "reports", NULL, gf_now_ms() - t0, 0);
    return rc;
}

/* Reads and decodes the input, telling the CUDA start-up thread the image
 * size as soon as the header gives it; counts R, G and B into rgb when not
 * NULL. */
static int load(const gf_options *o, gpu_start *gs, gf_image *img, gf_load_info *info,
                uint32_t (*rgb)[256])
{
    unsigned char *buf;
    size_t len;
    int rc = gf_read_all(o->input, &o->limits, &buf, &len), w, h;

    if (rc)
        return rc;
    if (gf_peek_size(buf, len, &w, &h) == 0 && (uint64_t)w * h <= o->limits.max_pixels)
        __atomic_store_n(&gs->hint, (size_t)w * (size_t)h, __ATOMIC_RELEASE);
    rc = gf_decode_rgb(strcmp(o->input, "-") ? o->input : "(stdin)", buf, len, &o->limits, img,
                       info, rgb);
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    gf_options o;
    gf_report rep;
    gf_image img = {0}, result = {0};
    gf_load_info info;
    gpu_start gs = {0};
    gf_result results[GF_MAX_STAGES];
    static uint32_t rgb[3][256];
    pthread_t thread;
    int rc, started = 0, owned = 0;
    double t_start = gf_now_ms(), t0;
    const char *name;

    if (argc > 1 && !strcmp(argv[1], "bench"))
        return gf_bench_main(argc - 1, argv + 1);
    rc = gf_cli_parse(argc, argv, &o);
    if (rc == 1)
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 74;
    if (rc) {
        fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
        gf_cli_usage(stderr);
        return -rc;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    gf_set_png_level(o.png_level);
    if ((rc = check_outputs(&o)))
        return fail(rc);

    memset(&rep, 0, sizeof rep);
    name = strcmp(o.input, "-") ? o.input : "(stdin)";
    rep.input = name;
    rep.backend = "cpu";
    if (o.backend != GF_BACKEND_CPU) {
        /* Load every kernel during start-up, hidden behind decoding, rather
         * than at its first launch, inside a stage's timing; a value the user
         * set wins. Set before the thread starts: setenv is not thread-safe. */
        setenv("CUDA_MODULE_LOADING", "EAGER", 0);
        gs.device = o.device;
        started = pthread_create(&thread, NULL, gpu_start_main, &gs) == 0;
        if (!started)
            gpu_start_main(&gs);
    }

    t0 = gf_now_ms();
    rc = load(&o, &gs, &img, &info, o.hist_rgb ? rgb : NULL);
    if (rc == 0) {
        gf_report_step(&rep, "decode", NULL, gf_now_ms() - t0, 0);
        if (info.bits == 16 && !o.quiet)
            fprintf(stderr, "gpufilt: %s: %d-bit samples reduced to 8 bits\n", name, info.bits);
    }
    if (started) {
        t0 = gf_now_ms();
        pthread_join(thread, NULL);
        if (rc == 0)
            gf_report_step(&rep, "gpu start", "wait", gf_now_ms() - t0, 0);
    }
    if (rc)
        goto out;
    if (o.backend != GF_BACKEND_CPU && gs.rc) {
        if (o.backend == GF_BACKEND_CUDA) {
            rc = gf_err(GF_ENOGPU, NULL, "%s (--backend cuda)", gs.msg);
            goto out;
        }
        if (!o.quiet)
            fprintf(stderr, "gpufilt: %s; using the CPU backend\n", gs.msg);
    }
    if (gs.gpu) {
        rep.backend = "cuda";
        snprintf(rep.device, sizeof rep.device, "%s", gs.name);
    }
    rep.width = img.width;
    rep.height = img.height;

    memset(results, 0, sizeof results);
    for (int i = 0; i < o.nstages; i++)
        results[i].rgb = (const uint32_t(*)[256])rgb;
    rc = gf_pipeline_run(&o, gs.gpu, &img, &result, &owned, &rep, results);
    if (rc == 0)
        rc = write_reports(&o, results, &rep);
    if (rc == 0 && o.output) {
        unsigned char *buf;
        size_t len;
        t0 = gf_now_ms();
        rc = gf_encode(&result, o.format, &buf, &len);
        if (rc == 0) {
            gf_report_step(&rep, "encode", o.format == GF_FMT_PNG ? "png" : "pgm",
                           gf_now_ms() - t0, 0);
            t0 = gf_now_ms();
            rc = gf_write(o.output, buf, len);
            free(buf);
            if (rc == 0)
                gf_report_step(&rep, "write", NULL, gf_now_ms() - t0, (double)len);
        }
    }
    if (rc == 0 || (o.compare && rep.ncompare)) {
        rep.out_width = result.width ? result.width : rep.width;
        rep.out_height = result.height ? result.height : rep.height;
        gf_report_step(&rep, "total", NULL, gf_now_ms() - t_start, 0);
        if (!o.quiet) {
            if (o.timings == GF_TIMINGS_JSON)
                gf_report_json(&rep, stderr);
            else
                gf_report_text(&rep, stderr);
        }
    }
out:
    for (int i = 0; i < o.nstages; i++)
        free(results[i].vals);
    if (owned)
        gf_image_free(&result);
    gf_image_free(&img);
    gf_gpu_close(gs.gpu);
    if (rc)
        return fail(rc);
    return 0;
}
