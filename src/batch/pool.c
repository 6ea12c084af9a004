/* pool.c - running gpufilt over its inputs: the input list, output names, a
 * pool of CPU workers, each with its own CUDA stream, pinned staging and
 * device buffers (so one image's upload, kernels and download overlap
 * others' decoding and encoding), CUDA start-up behind the first decodes,
 * progress and the summary. */
#include "batch.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../gpujpeg.h"
#include "../pipeline.h"
#include "../report/json.h"
#include "job.h"
#include "naming.h"

#define PROGRESS_MS 250 /* progress line refresh on a terminal */
/* What CUDA takes to start on an H100 machine: context creation and module
 * loading, 240-300 ms (docs/benchmarks.md). --backend auto runs a single
 * file on the CPU when its stages should take less than this there. */
#define GPU_START_MS 250.0
/* nvJPEG batches: at most this many files a batch; a worker decodes on the
 * CPU instead when half the workers already wait for the GPU. */
#define JPEG_BATCH_MAX 64
#define JPEG_WAIT_MS 1.0 /* a batch waits this long for more files to join it */
/* Why a batch file ran on the CPU under --backend auto before the GPU's
 * start-up was over (or found no GPU). */
#define STARTING "auto: the CPU, before CUDA was ready"

/* A JPEG handed to the nvJPEG thread. */
typedef struct jpeg_req {
    const unsigned char *data;
    size_t len;
    gf_dimage *out;
    int status, done;
    struct jpeg_req *next;
} jpeg_req;

typedef struct pool {
    const gf_plan *plan;
    gf_item *items;
    int n;
    char **list; /* the whole list, before --shard */
    int nlist;
    char *list_buf;
    /* shared state, under lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int next, done, failed, skipped, running;
    /* GPU start-up: 0 pending, 1 usable, -1 not */
    int gpu_state;
    int probing;        /* the start-up thread was started */
    int cpu_chosen;     /* --backend auto chose the CPU for the single file */
    pthread_t probe_thread;
    /* the streams the start-up thread opened, one a worker, handed out as
     * workers first ask: a worker never calls into the driver while CUDA
     * and nvJPEG start */
    gf_gpu **ready;
    int nready;
    char gpu_msg[1024], gpu_name[128];
    int notice_done;
    int early;          /* files that ran on the CPU before the start-up was over */
    int gpu_dead;       /* the GPU failed mid-run: the rest on the CPU */
    double t_start;
    int njobs;
    int worker_threads; /* OpenMP threads a worker's CPU paths use */
    /* nvJPEG: state 0 not started, 1 opening, 2 ready, -1 unavailable */
    pthread_mutex_t jlock;
    pthread_cond_t jwork, jdone;
    int jstate, jstop, jpending, jthread_on;
    pthread_t jthread;
    gf_jpeg_gpu *jpeg;
    jpeg_req *jhead, *jtail;
} pool;

static void *jpeg_main(void *arg);

/* Starts the nvJPEG thread once; jlock held. */
static void start_jpeg(pool *P)
{
    if (P->jstate != 0)
        return;
    P->jstate = 1;
    P->jthread_on = pthread_create(&P->jthread, NULL, jpeg_main, P) == 0;
    if (!P->jthread_on)
        P->jstate = -1;
}

/* The auto backend's one-line notice that the CPU runs, once; lock held. */
static void notice(pool *P)
{
    if (!P->notice_done && !P->plan->quiet)
        fprintf(stderr, "gpufilt: %s; using the CPU backend\n", P->gpu_msg);
    P->notice_done = 1;
}

static void *gpu_start_main(void *arg)
{
    pool *P = arg;
    const gf_plan *p = P->plan;
    gf_pipeline pl = {p->stages, p->nstages, 0};
    gf_gpu *g = NULL;
    char name[128] = "";
    int rc, n = 0;

    /* a batch that starts with a .jpg name starts nvJPEG beside the context
     * (otherwise the first JPEG a worker finds starts it) */
    if (p->batch && P->n > 0 && gf_job_gpu_jpeg(p) &&
        gf_format_from_name(P->items[0].path) == GF_FMT_JPEG) {
        pthread_mutex_lock(&P->jlock);
        start_jpeg(P);
        pthread_mutex_unlock(&P->jlock);
    }
    rc = gf_gpu_open(p->device, &g, name, sizeof name);
    /* the layouts of most inputs: photos (RGB) and scans (gray) */
    if (rc == 0 && ((rc = gf_pipeline_warm(&pl, g, &(gf_shape){0, 0, 3, 8})) ||
                    (rc = gf_pipeline_warm(&pl, g, &(gf_shape){0, 0, 1, 8})))) {
        gf_gpu_close(g);
        g = NULL;
    }
    if (rc == 0) {
        P->ready[n++] = g;
        /* the other workers' streams; one that fails is opened by its worker */
        while (n < P->njobs && gf_gpu_open(p->device, &P->ready[n], NULL, 0) == 0)
            n++;
    }
    pthread_mutex_lock(&P->lock);
    if (rc)
        snprintf(P->gpu_msg, sizeof P->gpu_msg, "%s", gf_errmsg());
    snprintf(P->gpu_name, sizeof P->gpu_name, "%s", name);
    P->nready = n;
    P->gpu_state = rc ? -1 : 1;
    pthread_cond_broadcast(&P->cond);
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* Starts CUDA in its thread (once), or in the caller when no thread can be
 * made. */
static void start_gpu(pool *P)
{
    if (P->probing || P->ready)
        return;
    P->ready = calloc((size_t)P->njobs, sizeof *P->ready);
    if (!P->ready) {
        snprintf(P->gpu_msg, sizeof P->gpu_msg, "out of memory");
        P->gpu_state = -1;
        return;
    }
    P->probing = pthread_create(&P->probe_thread, NULL, gpu_start_main, P) == 0;
    if (!P->probing)
        gpu_start_main(P);
}

/* --backend auto for a single file whose stages nothing forces onto the
 * GPU: once the header gives the size, the CPU runs them when they should
 * take less there than CUDA takes to start; otherwise CUDA starts now,
 * behind the decode. Batches and forced runs started CUDA at once (and
 * read no header here). */
static void choose_backend(gf_worker *w, const unsigned char *buf, size_t len, gf_report *rep)
{
    pool *P = w->pool;
    const gf_plan *p = P->plan;
    double cpu_ms;
    const int threads = gf_cpu_threads();
    gf_shape sh = {0, 0, 1, 8};

    w->cpu_alone = !p->batch && p->backend == GF_BACKEND_CPU;
    if (p->backend != GF_BACKEND_AUTO || p->batch || p->gpu_forced || P->probing)
        return;
    if (gf_peek_size(buf, len, &sh))
        sh.width = sh.height = 0;
    cpu_ms = gf_stages_cpu_ms(p->stages, p->nstages, &sh, threads);
    if (sh.width > 0 && cpu_ms < GPU_START_MS) { /* width 0: the header was not read */
        P->cpu_chosen = 1; /* only this worker runs: a single file */
        w->cpu_alone = 1;
        snprintf(rep->why, sizeof rep->why,
                 "auto: the CPU, whose stages should take %.1f ms on %d threads, less than "
                 "CUDA's %.0f ms start",
                 cpu_ms, threads, GPU_START_MS);
        return;
    }
    snprintf(rep->why, sizeof rep->why,
             "auto: the GPU, the stages would take %.0f ms on %d CPU threads", cpu_ms, threads);
    start_gpu(P);
}

/* The worker's GPU, once start-up is over: NULL for the CPU backend. In a
 * batch under --backend auto a worker does not wait for the start-up: until
 * it is over, its files run on the CPU (every path gives the same bytes).
 * Prints the auto backend's one-line notice once. */
static int worker_gpu(gf_worker *w, gf_gpu **out, gf_report *rep)
{
    pool *P = w->pool;
    const gf_plan *p = P->plan;
    double t0 = gf_now_ms();
    int rc = 0, waited = 0; /* 1: for the start-up thread, 2: for a context */

    *out = NULL;
    if (p->backend == GF_BACKEND_CPU || P->gpu_dead)
        return 0;
    if (!w->gpu) {
        if (P->cpu_chosen)
            return 0;
        const int no_wait = p->batch && p->backend == GF_BACKEND_AUTO && !p->gpu_forced;
        pthread_mutex_lock(&P->lock);
        if (P->gpu_state == 0 && no_wait) {
            P->early++;
            pthread_mutex_unlock(&P->lock);
            snprintf(rep->why, sizeof rep->why, "%s", STARTING);
            return 0;
        }
        while (P->gpu_state == 0) {
            waited = 1;
            pthread_cond_wait(&P->cond, &P->lock);
        }
        if (P->gpu_state < 0) {
            if (p->backend == GF_BACKEND_CUDA)
                rc = gf_err(GF_ENOGPU, NULL, "%s (--backend cuda)", P->gpu_msg);
            else
                notice(P);
        } else if (P->nready > 0) {
            w->gpu = P->ready[--P->nready];
        }
        pthread_mutex_unlock(&P->lock);
        if (rc == 0 && P->gpu_state > 0 && !w->gpu) {
            waited = 2; /* a stream of its own */
            rc = gf_gpu_open(p->device, &w->gpu, NULL, 0);
        }
    }
    if (rc == 0 && !w->gpu && P->gpu_state < 0 && !rep->why[0])
        snprintf(rep->why, sizeof rep->why, "no usable GPU");
    if (rc == 0 && w->gpu) {
        rep->backend = "cuda";
        if (!strcmp(rep->why, STARTING)) /* started after all: it runs the stages */
            rep->why[0] = 0;
        snprintf(rep->device, sizeof rep->device, "%s", P->gpu_name);
        if (waited)
            gf_report_step(rep, "gpu start", waited == 2 ? "context" : "wait", gf_now_ms() - t0, 0);
    }
    *out = w->gpu;
    return rc;
}

/* The nvJPEG thread: opens the hardware decoder, then decodes the JPEGs
 * workers queue, a batch at a time. */
static void *jpeg_main(void *arg)
{
    pool *P = arg;
    gf_jpeg_gpu *j = NULL;
    int rc = gf_jpeg_gpu_open(P->plan->device, &j);

    pthread_mutex_lock(&P->jlock);
    P->jpeg = j;
    P->jstate = rc ? -1 : 2;
    pthread_cond_broadcast(&P->jdone);
    while (P->jstate == 2) {
        const unsigned char *data[JPEG_BATCH_MAX];
        size_t len[JPEG_BATCH_MAX];
        gf_dimage *out[JPEG_BATCH_MAX];
        int status[JPEG_BATCH_MAX], n = 0;
        jpeg_req *batch[JPEG_BATCH_MAX];
        while (!P->jstop && P->jpending == 0)
            pthread_cond_wait(&P->jwork, &P->jlock);
        if (P->jpending == 0)
            break;
        if (P->jpending < P->njobs / 2 && !P->jstop) { /* let a few more join */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += (long)(JPEG_WAIT_MS * 1e6);
            ts.tv_sec += ts.tv_nsec / 1000000000L;
            ts.tv_nsec %= 1000000000L;
            pthread_cond_timedwait(&P->jwork, &P->jlock, &ts);
        }
        while (P->jhead && n < JPEG_BATCH_MAX) {
            jpeg_req *r = P->jhead;
            P->jhead = r->next;
            batch[n] = r;
            data[n] = r->data;
            len[n] = r->len;
            out[n++] = r->out;
        }
        if (!P->jhead)
            P->jtail = NULL;
        pthread_mutex_unlock(&P->jlock);
        rc = gf_jpeg_gpu_decode(j, n, data, len, out, status);
        pthread_mutex_lock(&P->jlock);
        if (rc)
            P->jstate = -1; /* CUDA failed: the CPU decodes from here on */
        for (int k = 0; k < n; k++) {
            batch[k]->status = rc ? GF_JPEG_GPU_FAILED : status[k];
            batch[k]->done = 1;
        }
        P->jpending -= n;
        pthread_cond_broadcast(&P->jdone);
    }
    for (jpeg_req *r = P->jhead; r; r = r->next) { /* never leave a worker waiting */
        r->status = GF_JPEG_GPU_FAILED;
        r->done = 1;
    }
    P->jhead = P->jtail = NULL;
    P->jpending = 0;
    pthread_cond_broadcast(&P->jdone);
    pthread_mutex_unlock(&P->jlock);
    return NULL;
}

/* A JPEG for nvJPEG in a batch run: queued for the nvJPEG thread unless it
 * is not ready yet, unusable, or has a core's worth of files waiting, in
 * which cases the worker decodes it on the CPU. */
static int worker_gpu_decode(gf_worker *w, const unsigned char *buf, size_t len, gf_dimage *out)
{
    pool *P = w->pool;
    jpeg_req r = {buf, len, out, GF_JPEG_GPU_REFUSED, 0, NULL};

    if (!P->plan->batch || P->gpu_dead)
        return 0;
    pthread_mutex_lock(&P->jlock);
    start_jpeg(P);
    if (P->jstate != 2 || P->jpending >= P->njobs / 2) {
        pthread_mutex_unlock(&P->jlock);
        return 0;
    }
    if (P->jtail)
        P->jtail->next = &r;
    else
        P->jhead = &r;
    P->jtail = &r;
    P->jpending++;
    pthread_cond_signal(&P->jwork);
    while (!r.done)
        pthread_cond_wait(&P->jdone, &P->jlock);
    pthread_mutex_unlock(&P->jlock);
    return r.status == GF_JPEG_GPU_DONE;
}

/* --backend cuda and a JPEG output: nvJPEG encodes (opened once). */
static int worker_gpu_encode(gf_worker *w, gf_gpu *gpu, const gf_dimage *in, int quality,
                             unsigned char **out, size_t *len)
{
    pool *P = w->pool;
    int state;

    pthread_mutex_lock(&P->jlock);
    start_jpeg(P);
    while (P->jstate == 1)
        pthread_cond_wait(&P->jdone, &P->jlock);
    state = P->jstate;
    pthread_mutex_unlock(&P->jlock);
    if (state != 2)
        return gf_err(GF_ENOGPU, NULL, "nvJPEG is unavailable (--backend cuda encodes JPEG "
                                       "with it)");
    return gf_jpeg_gpu_encode(P->jpeg, gf_gpu_stream(gpu), in, quality, out, len);
}

/* The GPU failed: the rest of the run on the CPU, said once. */
static void worker_gpu_lost(gf_worker *w, const char *why)
{
    pool *P = w->pool;

    pthread_mutex_lock(&P->lock);
    if (!P->gpu_dead && !P->plan->quiet)
        fprintf(stderr, "gpufilt: the GPU failed (%s); the rest runs on the CPU\n", why);
    P->gpu_dead = 1;
    pthread_mutex_unlock(&P->lock);
}

static void *worker_main(void *arg)
{
    gf_worker *w = arg;
    pool *P = w->pool;

    gf_set_cpu_threads(P->worker_threads);
    for (;;) {
        pthread_mutex_lock(&P->lock);
        int i = P->next < P->n ? P->next++ : -1;
        pthread_mutex_unlock(&P->lock);
        if (i < 0)
            break;
        if (!P->plan->batch)
            w->t_process = gf_now_ms() - gf_process_t0;
        int status = gf_job_run(w, &P->items[i]);
        pthread_mutex_lock(&P->lock);
        P->items[i].status = status;
        P->done++;
        P->failed += status > 0;
        P->skipped += status < 0;
        pthread_cond_broadcast(&P->cond);
        pthread_mutex_unlock(&P->lock);
    }
    pthread_mutex_lock(&P->lock);
    P->running--;
    pthread_cond_broadcast(&P->cond);
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* The whole list: operands, then --files-from entries (one a line, a
 * trailing carriage return and empty lines ignored; or NUL-terminated with
 * --null). */
static int build_list(pool *P)
{
    const gf_plan *p = P->plan;
    gf_limits lim = {1, (uint64_t)1 << 31, 1};
    unsigned char *buf = NULL;
    size_t len = 0, entries = 0;
    const char sep = p->files_null ? '\0' : '\n';
    int rc;

    if (p->files_from) {
        if ((rc = gf_read_all(p->files_from, &lim, &buf, &len)))
            return rc;
        for (size_t i = 0; i < len; i++)
            entries += buf[i] == (unsigned char)sep;
        entries++;
    }
    P->list = malloc(((size_t)p->ninputs + entries + 1) * sizeof *P->list);
    if (!P->list) {
        free(buf);
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    }
    for (int i = 0; i < p->ninputs; i++)
        P->list[P->nlist++] = p->inputs[i];
    if (buf) {
        char *s = (char *)buf, *end = s + len; /* gf_read_all ends it with a NUL */
        P->list_buf = (char *)buf;
        while (s < end) {
            char *e = memchr(s, sep, (size_t)(end - s));
            e = e ? e : end;
            if (!p->files_null && e > s && e[-1] == '\r')
                e[-1] = 0;
            *e = 0;
            if (*s) {
                if (!strcmp(s, "-"))
                    return gf_err(GF_EUSAGE, p->files_from, "'-' (stdin) cannot be listed");
                P->list[P->nlist++] = s;
            }
            s = e + 1;
        }
    }
    return 0;
}

/* Keeps a copy of path in *dst and lists it as item's, for the check for
 * collisions. */
static int keep_name(char **dst, const char *path, char **names, int *owner, size_t *nn, int item)
{
    if (!(*dst = strdup(path)))
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    owner[*nn] = item;
    names[(*nn)++] = *dst;
    return 0;
}

/* This shard's items with their output names. Two inputs with one output
 * name are a usage error, found here before any work. */
static int build_items(pool *P)
{
    const gf_plan *p = P->plan;
    char path[PATH_MAX];
    char **names;
    int *owner;
    size_t nn = 0, a, b;
    int rc = 0;

    P->items = calloc((size_t)P->nlist + 1, sizeof *P->items);
    names = calloc(((size_t)P->nlist + 1) * ((size_t)p->nstages + 1), sizeof *names);
    owner = calloc(((size_t)P->nlist + 1) * ((size_t)p->nstages + 1), sizeof *owner);
    if (!P->items || !names || !owner) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory");
        goto out;
    }
    for (int i = 0; i < P->nlist && rc == 0; i++) {
        gf_item *it;
        if (p->shard_n && i % p->shard_n != p->shard_k - 1)
            continue;
        it = &P->items[P->n++];
        it->path = P->list[i];
        it->index = i + 1;
        it->reports = calloc((size_t)p->nstages + 1, sizeof *it->reports);
        if (!it->reports) {
            rc = gf_err(GF_EINTERNAL, NULL, "out of memory");
            break;
        }
        if (p->output &&
            ((rc = gf_output_name(p->output, p->output_dir, p->format, it->path, it->index, path,
                                  sizeof path)) ||
             (rc = keep_name(&it->out, path, names, owner, &nn, P->n - 1))))
            break;
        for (int s = 0; s < p->nstages && rc == 0; s++) {
            const char *t = p->stages[s].path;
            if (gf_stage_is_report(&p->stages[s]) && t &&
                (rc = gf_expand_template(t, it->path, it->index, path, sizeof path)) == 0)
                rc = keep_name(&it->reports[s], path, names, owner, &nn, P->n - 1);
        }
    }
    if (rc == 0 && gf_find_collision(names, nn, &a, &b))
        rc = gf_err(GF_EUSAGE, names[a],
                    "%s and %s both map to this output name; use {stem}, {dir} or {index}",
                    P->items[owner[a]].path, P->items[owner[b]].path);
    if (rc == 0 && p->output && p->output_dir && !p->dry_run)
        rc = gf_make_dirs(p->output, 1);
out:
    free(names);
    free(owner);
    return rc;
}

/* --dry-run: what each input would be read as and written to. */
static void dry_run(const pool *P)
{
    const gf_plan *p = P->plan;

    for (int i = 0; i < P->n; i++) {
        const gf_item *it = &P->items[i];
        printf("%s", it->path);
        if (it->out)
            printf(" -> %s", it->out);
        for (int s = 0; s < p->nstages; s++)
            if (it->reports[s])
                printf(" -> %s", it->reports[s]);
        printf("\n");
    }
}

static void progress(pool *P, int final)
{
    double el = (gf_now_ms() - P->t_start) / 1e3;
    int processed = P->done - P->skipped;
    double rate = el > 0 ? processed / el : 0;

    if (final) {
        fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[Kgpufilt: %d/%d files", P->done, P->n);
    if (P->skipped)
        fprintf(stderr, " (%d skipped)", P->skipped);
    fprintf(stderr, ", %.1f/s, ETA %.0f s", rate,
            rate > 0 ? (P->n - P->done) / rate : 0.0);
}

static void summary(const pool *P, double wall_ms)
{
    const gf_plan *p = P->plan;
    int processed = P->done - P->failed - P->skipped;
    double rate = wall_ms > 0 && processed ? processed / (wall_ms / 1e3) : 0.0;

    if (p->quiet)
        return;
    if (p->timings == GF_TIMINGS_JSON) {
        json_t *failed = json_array();
        for (int i = 0; i < P->n; i++)
            if (P->items[i].status > 0)
                json_array_append_new(failed, json_pack("{s:s,s:i}", "input", P->items[i].path,
                                                        "status", P->items[i].status));
        json_t *j = json_pack("{s:{s:i,s:i,s:i,s:i,s:o,s:o,s:s,s:o}}", "summary", "files", P->n,
                              "processed", processed, "failed", P->failed, "skipped", P->skipped,
                              "wall_ms", gf_json_real(wall_ms, 3), "images_per_s",
                              gf_json_real(rate, 3), "backend", P->gpu_state > 0 ? "cuda" : "cpu",
                              "failures", failed);
        gf_json_line(j, stderr);
        json_decref(j);
        return;
    }
    fprintf(stderr, "gpufilt: %d processed, %d failed", processed, P->failed);
    if (P->skipped)
        fprintf(stderr, ", %d skipped", P->skipped);
    if (processed)
        fprintf(stderr, " (%.2f s, %.1f images/s)\n", wall_ms / 1e3, rate);
    else
        fprintf(stderr, " (%.2f s)\n", wall_ms / 1e3);
}

/* Runs the workers over the items; returns when all are done. */
static void run_workers(pool *P, gf_worker *workers, int njobs)
{
    const gf_plan *p = P->plan;
    pthread_t *threads = calloc((size_t)njobs, sizeof *threads);
    int show = p->batch && !p->quiet && isatty(STDERR_FILENO);

    if (njobs == 1 || !threads) {
        P->running = 1;
        worker_main(&workers[0]); /* one file, or --jobs 1: no thread */
        free(threads);
        return;
    }
    pthread_mutex_lock(&P->lock); /* a worker may finish before the last starts */
    for (int i = 0; i < njobs; i++)
        if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) == 0)
            P->running++;
        else
            threads[i] = 0;
    while (P->running > 0) {
        if (show) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += PROGRESS_MS * 1000000L;
            ts.tv_sec += ts.tv_nsec / 1000000000L;
            ts.tv_nsec %= 1000000000L;
            pthread_cond_timedwait(&P->cond, &P->lock, &ts);
            flockfile(stderr);
            progress(P, 0);
            funlockfile(stderr);
        } else {
            pthread_cond_wait(&P->cond, &P->lock);
        }
    }
    pthread_mutex_unlock(&P->lock);
    for (int i = 0; i < njobs; i++)
        if (threads[i])
            pthread_join(threads[i], NULL);
    if (P->next < P->n) { /* no thread could start: this one does the work */
        P->running = 1;
        worker_main(&workers[0]);
    }
    if (show)
        progress(P, 1);
    free(threads);
}

int gf_run(const gf_plan *p)
{
    pool P;
    gf_worker *workers = NULL;
    int rc, njobs, status = 0;

    memset(&P, 0, sizeof P);
    P.plan = p;
    P.t_start = gf_now_ms();
    pthread_mutex_init(&P.lock, NULL);
    pthread_cond_init(&P.cond, NULL);
    pthread_mutex_init(&P.jlock, NULL);
    pthread_cond_init(&P.jwork, NULL);
    pthread_cond_init(&P.jdone, NULL);
    if ((rc = build_list(&P)) || (rc = build_items(&P))) {
        fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
        status = -rc;
        goto done;
    }
    if (p->dry_run) {
        dry_run(&P);
        goto done;
    }
    njobs = p->jobs ? p->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (njobs < 1)
        njobs = 1;
    if (!p->jobs && p->batch && p->backend != GF_BACKEND_CPU)
        njobs += njobs / 2; /* half of them may wait on the GPU while the rest use the
                               cores; 1.5 a core was 2-11% faster than 2 on JPEG
                               histogram batches, and equal on PNG ones */
    if (njobs > P.n)
        njobs = P.n ? P.n : 1;
    P.njobs = njobs;
    /* the cores shared among the workers; one worker keeps them all */
    P.worker_threads = njobs > 1 ? gf_cpu_threads() / njobs : gf_cpu_threads();
    if (P.worker_threads < 1)
        P.worker_threads = 1;
    P.gpu_state = p->backend == GF_BACKEND_CPU ? -1 : 0;
    if (p->backend != GF_BACKEND_CPU && P.n &&
        (p->batch || p->gpu_forced || p->backend == GF_BACKEND_CUDA))
        start_gpu(&P);
    workers = calloc((size_t)njobs, sizeof *workers);
    if (!workers) {
        fprintf(stderr, "gpufilt: out of memory\n");
        status = -GF_EINTERNAL;
        goto join;
    }
    for (int i = 0; i < njobs; i++)
        workers[i] = (gf_worker){.plan = p, .get_gpu = worker_gpu, .choose = choose_backend,
                                 .gpu_decode = worker_gpu_decode, .gpu_encode = worker_gpu_encode,
                                 .gpu_lost = worker_gpu_lost, .pool = &P, .id = i};
    run_workers(&P, workers, njobs);
    for (int i = 0; i < P.n; i++)
        if (P.items[i].status > 0) {
            status = P.items[i].status; /* the earliest file's failure */
            break;
        }
    if (p->batch)
        summary(&P, gf_now_ms() - P.t_start);
join:
    if (P.probing) /* first: it may start the nvJPEG thread */
        pthread_join(P.probe_thread, NULL);
    if (P.early && P.gpu_state < 0) /* no worker has said it yet */
        notice(&P);
    pthread_mutex_lock(&P.jlock);
    P.jstop = 1;
    pthread_cond_broadcast(&P.jwork);
    pthread_mutex_unlock(&P.jlock);
    if (P.jthread_on)
        pthread_join(P.jthread, NULL);
    /* every output is written and renamed by now; the GPU contexts are left
     * to the process's exit, whose CUDA teardown main skips (gf_gpu_finish) */
    for (int i = 0; i < P.nready; i++)
        gf_gpu_finish(P.ready[i]);
    free(P.ready);
    for (int i = 0; workers && i < njobs; i++)
        gf_gpu_finish(workers[i].gpu);
done:
    for (int i = 0; P.items && i < P.n; i++) {
        free(P.items[i].out);
        for (int s = 0; P.items[i].reports && s < p->nstages; s++)
            free(P.items[i].reports[s]);
        free(P.items[i].reports);
    }
    free(P.items);
    free(P.list);
    free(P.list_buf);
    free(workers);
    pthread_mutex_destroy(&P.lock);
    pthread_cond_destroy(&P.cond);
    pthread_mutex_destroy(&P.jlock);
    pthread_cond_destroy(&P.jwork);
    pthread_cond_destroy(&P.jdone);
    return status;
}
