/* pool.c - running gpufilt over its inputs: the input list, output names, a
 * pool of CPU workers, each with its own CUDA stream, pinned staging and
 * device buffers (so one image's upload, kernels and download overlap
 * others' decoding and encoding), CUDA start-up behind the first decodes,
 * progress and the summary. */
#include "batch.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
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
/* The hardware JPEG decoders. Each GPU's decoder threads (one a lane,
 * GF_JPEG_GPU_LANES) take every file queued for them, up to HW_BATCH_MAX,
 * as soon as their last batch is done; as many feeder threads take the next
 * files of the list, read them and keep HW_AHEAD of them queued (handing
 * any file the hardware does not take to the CPU workers), so a decoder
 * always has its next batch. The CPU
 * workers take the other files of the list as they come, and the files the
 * decoders are done with: the split follows the rates of the decoders and
 * the cores as they run, with no fraction set. A batch of 64 2400x1600
 * photos decodes in about 19 ms on an H100, two at once in about 40
 * (docs/benchmarks.md). */
#define HW_BATCH_MAX 64
#define HW_AHEAD (GF_JPEG_GPU_LANES * HW_BATCH_MAX)
/* Files a GPU's feeders keep read ahead, queued or decoded and not yet
 * taken by a worker (besides the batches being decoded): what bounds the
 * memory of a batch whose workers are slower than the decoder. */
#define HW_HELD (3 * HW_BATCH_MAX)
/* Batches of at least this many files take the driver's most work queues
 * a GPU (gf_gpu_env_long_batch): a JPEG histogram batch gained 24 us a file
 * and lost 0.45 s at start-up and exit on the H100 machine. */
#define LONG_BATCH 20000
/* How often a decoder thread measures the cores the decoder's and feeders'
 * threads use. */
#define BUSY_WINDOW_MS 250.0
/* Why a batch file ran on the CPU under --backend auto before the GPU's
 * start-up was over (or found no GPU). */
#define STARTING "auto: the CPU, before CUDA was ready"

struct pool;

/* One GPU of the run: its workers' streams, its hardware JPEG decoder and
 * the files queued for it. */
typedef struct slot {
    struct pool *P;
    int device;
    int state;          /* 0 starting, 1 usable, -1 not (failed to start, or lost) */
    char name[128], msg[512];
    /* the streams its start-up opened, one a worker of its own, handed out
     * as workers first ask: a worker never calls into the driver while CUDA
     * and nvJPEG start */
    gf_gpu **ready;
    int nready, nworkers;
    pthread_t start_thread;
    int start_on;
    /* its feeders: read the list's next files for the decoder */
    pthread_t fthread[GF_JPEG_GPU_LANES];
    int nfthreads;
    pthread_cond_t feed;
    /* the hardware decoder: jstate 0 not started, 1 opening, 2 ready, -1 not;
     * a thread a lane, each with its context (its output buffers) */
    int jstate, njthreads, nlanes; /* nlanes: threads that took a lane */
    pthread_t jthread[GF_JPEG_GPU_LANES];
    gf_gpu *jgpu[GF_JPEG_GPU_LANES];
    pthread_cond_t jwork;
    gf_jpeg_gpu *jpeg;
    gf_job *qhead, *qtail; /* queued for the decoder */
    int nqueued;
    gf_job *dhead, *dtail; /* decoded: for a worker of this GPU */
    int ndecoded;
    /* while the decoder never waits for files, the cores its and its
     * feeders' threads kept busy over the last BUSY_WINDOW_MS, rounded up
     * (else 0): as many workers sit out */
    int busy, waited;
    double win_start, win_cpu;
    gf_dimage *spare;   /* output buffers given back, for reuse */
    int nspare, spare_cap;
    /* where the time went (--timings json's summary), ms summed over the
     * decoder's lanes and the feeders: */
    int hw_files, hw_batches;  /* files the decoder took, in batches */
    double hw_busy_ms;         /* in nvJPEG's batched decode */
    double hw_idle_ms;         /* lanes waiting for files */
    double feed_wait_ms;       /* feeders waiting for room in the queue */
    double queued_ms;          /* files waiting in the queue for a lane */
    double decoded_ms;         /* decoded files waiting for a worker */
} slot;

/* Where one worker's time went, and its files' steps summed by step and
 * variant (--timings json's summary). */
typedef struct step_sum {
    char step[48], variant[24];
    double ms;
    int files;
} step_sum;

typedef struct step_sums {
    step_sum *v;
    int n, cap;
} step_sums;

typedef struct worker_stats {
    int files;            /* processed or failed (not skipped) */
    double busy_ms;       /* on its files */
    double wait_ms;       /* waiting for a file */
    double out_ms;        /* sitting out (sits_out) */
    int slot_files[GF_MAX_DEVICES];   /* of its files, those each GPU ran */
    double slot_ms[GF_MAX_DEVICES];   /* their upload, stages, download and GPU encode */
    step_sums steps;
} worker_stats;

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
    int inflight;       /* files handed over by feeders, not yet resumed */
    int feeding;        /* files feeders took from the list and are reading */
    gf_job *rhead, *rtail; /* for the CPU: what the decoders refused or failed, and
                              what the feeders read that they do not take */
    /* GPU start-up: 0 pending, 1 some GPU usable, -1 none */
    int gpu_state;
    int probing;        /* the start-up thread was started */
    int cpu_chosen;     /* --backend auto chose the CPU for the single file */
    pthread_t probe_thread;
    slot slots[GF_MAX_DEVICES];
    int nslots;         /* known once gpu_state leaves 0, or slots_known */
    int slots_known;
    char gpu_msg[1024];
    int notice_done;
    int early;          /* files that ran on the CPU before the start-up was over */
    double t_start;
    int njobs;
    int worker_threads; /* OpenMP threads a worker's CPU paths use */
    int jstop;          /* the decoder threads end */
    worker_stats *stats; /* one a worker, or NULL (out of memory: no summary of them) */
} pool;

static void *jpeg_main(void *arg);
static void *feeder_main(void *arg);

/* Starts s's first hardware decoder thread once (it starts the others
 * once nvJPEG is open), and in a batch that decodes JPEGs on it, its
 * feeders: they read and queue the first files while nvJPEG starts, so the
 * first batches are whole; lock held. */
static void start_jpeg(slot *s)
{
    if (s->jstate != 0)
        return;
    s->jstate = 1;
    if (pthread_create(&s->jthread[0], NULL, jpeg_main, s) != 0) {
        s->jstate = -1;
        return;
    }
    s->njthreads = 1;
    while (s->P->plan->batch && gf_job_gpu_jpeg(s->P->plan) &&
           s->nfthreads < GF_JPEG_GPU_LANES &&
           pthread_create(&s->fthread[s->nfthreads], NULL, feeder_main, s) == 0)
        s->nfthreads++;
}

/* The auto backend's one-line notice that the CPU runs, once; lock held. */
static void notice(pool *P)
{
    if (!P->notice_done && !P->plan->quiet)
        fprintf(stderr, "gpufilt: %s; using the CPU backend\n", P->gpu_msg);
    P->notice_done = 1;
}

/* 1 when the batch decodes JPEGs on the hardware and its first name is a
 * .jpg: decoders start with CUDA, not at the first JPEG a worker meets. */
static int starts_with_jpeg(const pool *P)
{
    return P->plan->batch && P->n > 0 && gf_job_gpu_jpeg(P->plan) &&
           gf_format_from_name(P->items[0].path) == GF_FMT_JPEG;
}

/* Opens GPU s: its context, warmed, and its workers' streams; then says so. */
static void *slot_start(void *arg)
{
    slot *s = arg;
    pool *P = s->P;
    const gf_plan *p = P->plan;
    gf_pipeline pl = {.stages = p->stages, .nstages = p->nstages};
    gf_gpu *g = NULL;
    int rc, n = 0;

    if (starts_with_jpeg(P)) { /* its decoder beside the context */
        pthread_mutex_lock(&P->lock);
        start_jpeg(s);
        pthread_mutex_unlock(&P->lock);
    }
    rc = gf_gpu_open(s->device, &g, s->name, sizeof s->name);
    /* the layouts of most inputs: photos (RGB) and scans (gray) */
    if (rc == 0 && ((rc = gf_pipeline_warm(&pl, g, &(gf_shape){0, 0, 3, 8})) ||
                    (rc = gf_pipeline_warm(&pl, g, &(gf_shape){0, 0, 1, 8})))) {
        gf_gpu_close(g);
        g = NULL;
    }
    if (rc == 0) {
        s->ready[n++] = g;
        /* the other workers' streams; one that fails is opened by its worker */
        while (n < s->nworkers && gf_gpu_open(s->device, &s->ready[n], NULL, 0) == 0)
            n++;
    }
    pthread_mutex_lock(&P->lock);
    if (rc)
        snprintf(s->msg, sizeof s->msg, "%s", gf_errmsg());
    s->nready = n;
    s->state = rc ? -1 : 1;
    pthread_cond_broadcast(&P->cond);
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* The start-up: which GPUs (--device, or every one for a batch), then each
 * opened in a thread of its own. */
static void *gpu_start_main(void *arg)
{
    pool *P = arg;
    const gf_plan *p = P->plan;
    int devices[GF_MAX_DEVICES], n = 0, count = 0, rc = 0, usable = 0;

    /* nvJPEG's hardware decoder takes about a second to start (more than
     * the driver and the context): the first GPU's starts before anything */
    if (starts_with_jpeg(P)) {
        pthread_mutex_lock(&P->lock);
        P->slots[0].device = p->ndevices ? p->devices[0] : 0;
        start_jpeg(&P->slots[0]);
        pthread_mutex_unlock(&P->lock);
    }
    if (p->ndevices) {
        memcpy(devices, p->devices, (size_t)p->ndevices * sizeof *devices);
        n = p->ndevices;
    } else if (p->all_devices || p->batch) {
        if ((rc = gf_gpu_count(&count)) == 0 && count == 0)
            rc = gf_err(GF_ENOGPU, NULL, "no usable GPU: no CUDA device found");
        for (n = 0; rc == 0 && n < count && n < GF_MAX_DEVICES; n++)
            devices[n] = n;
    } else {
        devices[n++] = 0;
    }
    if (n > P->njobs) /* every GPU needs a worker */
        n = P->njobs;
    pthread_mutex_lock(&P->lock);
    if (rc)
        snprintf(P->gpu_msg, sizeof P->gpu_msg, "%s", gf_errmsg());
    for (int k = 0; k < n; k++) {
        slot *s = &P->slots[k];
        s->device = devices[k];
        s->nworkers = P->njobs / n + (k < P->njobs % n);
        s->ready = calloc((size_t)s->nworkers, sizeof *s->ready);
        if (!s->ready) {
            s->state = -1;
            snprintf(s->msg, sizeof s->msg, "out of memory");
        }
    }
    P->nslots = rc ? 0 : n;
    P->slots_known = 1;
    pthread_cond_broadcast(&P->cond);
    pthread_mutex_unlock(&P->lock);
    for (int k = 1; k < P->nslots; k++)
        if (P->slots[k].state == 0)
            P->slots[k].start_on =
                pthread_create(&P->slots[k].start_thread, NULL, slot_start, &P->slots[k]) == 0;
    if (P->nslots && P->slots[0].state == 0)
        slot_start(&P->slots[0]);
    for (int k = 1; k < P->nslots; k++)
        if (P->slots[k].start_on)
            pthread_join(P->slots[k].start_thread, NULL);
        else if (P->slots[k].state == 0)
            slot_start(&P->slots[k]);
    pthread_mutex_lock(&P->lock);
    for (int k = 0; k < P->nslots; k++) {
        slot *s = &P->slots[k];
        if (s->state > 0) {
            usable++;
        } else if (P->nslots > 1 && !p->quiet) {
            fprintf(stderr, "gpufilt: GPU %d: %s; its files go to the other GPUs\n", s->device,
                    s->msg);
        }
        if (!P->gpu_msg[0] && s->state < 0)
            snprintf(P->gpu_msg, sizeof P->gpu_msg, "%s", s->msg);
    }
    P->gpu_state = usable ? 1 : -1;
    pthread_cond_broadcast(&P->cond);
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* Starts CUDA in its thread (once), or in the caller when no thread can be
 * made. */
static void start_gpu(pool *P)
{
    if (P->probing || P->slots_known)
        return;
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

/* A GPU for worker w, lock held: its own share's (worker id modulo the
 * GPUs) while that one is usable, else the next usable one; -1 for none
 * (or, with wait 0, none started yet). Waits for that GPU's start-up when
 * wait. */
static int pick_slot(pool *P, gf_worker *w, int wait, int *waited)
{
    for (;;) {
        int pending = 0;
        for (int i = 0; i < P->nslots; i++) {
            slot *s = &P->slots[(w->id + i) % P->nslots];
            if (s->state > 0)
                return (int)(s - P->slots);
            pending |= s->state == 0;
        }
        if (!wait || (!pending && P->slots_known))
            return -1;
        *waited = 1;
        pthread_cond_wait(&P->cond, &P->lock);
    }
}

/* A batch file on the CPU because the GPUs' start-up is not over (under
 * --backend auto, where workers do not wait for it); unlocks P->lock. */
static int before_start(pool *P, gf_report *rep)
{
    P->early++;
    pthread_mutex_unlock(&P->lock);
    snprintf(rep->why, sizeof rep->why, "%s", STARTING);
    return 0;
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
    int rc = 0, waited = 0; /* 1: for the start-up, 2: for a context */
    slot *s = NULL;

    *out = NULL;
    if (p->backend == GF_BACKEND_CPU || P->cpu_chosen)
        return 0;
    pthread_mutex_lock(&P->lock);
    if (w->gpu && P->slots[w->slot].state > 0) {
        s = &P->slots[w->slot];
        pthread_mutex_unlock(&P->lock);
    } else {
        const int no_wait = p->batch && p->backend == GF_BACKEND_AUTO && !p->gpu_forced;
        int k;
        w->gpu = NULL; /* its GPU was lost: another one, or the CPU */
        if (no_wait && (!P->slots_known || P->gpu_state == 0))
            return before_start(P, rep);
        while (!P->slots_known) {
            waited = 1;
            pthread_cond_wait(&P->cond, &P->lock);
        }
        k = pick_slot(P, w, 1, &waited);
        if (k < 0 && P->gpu_state == 0) /* none usable, the start-up not yet over */
            return before_start(P, rep);
        if (k < 0) {
            if (p->backend == GF_BACKEND_CUDA)
                rc = gf_err(GF_ENOGPU, NULL, "%s (--backend cuda)",
                            P->gpu_msg[0] ? P->gpu_msg : "no usable GPU");
            else if (P->gpu_state < 0)
                notice(P);
        } else {
            s = &P->slots[k];
            w->slot = k;
            if (s->nready > 0)
                w->gpu = s->ready[--s->nready];
        }
        pthread_mutex_unlock(&P->lock);
        if (s && !w->gpu) {
            waited = 2; /* a stream of its own */
            if (gf_gpu_open(s->device, &w->gpu, NULL, 0))
                s = NULL; /* this file on the CPU; the next asks again */
        }
    }
    if (rc == 0 && !s && !rep->why[0] && P->gpu_state < 0)
        snprintf(rep->why, sizeof rep->why, "no usable GPU");
    if (rc == 0 && s && w->gpu) {
        rep->backend = "cuda";
        if (!strcmp(rep->why, STARTING)) /* started after all: it runs the stages */
            rep->why[0] = 0;
        snprintf(rep->device, sizeof rep->device, "%s", s->name);
        if (waited)
            gf_report_step(rep, "gpu start", waited == 2 ? "context" : "wait", gf_now_ms() - t0, 0);
        *out = w->gpu;
    }
    return rc;
}

/* Appends j to a queue (head, tail); lock held. */
static void push(gf_job **head, gf_job **tail, gf_job *j)
{
    j->next = NULL;
    if (*tail)
        (*tail)->next = j;
    else
        *head = j;
    *tail = j;
}

static gf_job *pop(gf_job **head, gf_job **tail)
{
    gf_job *j = *head;
    if (j && !(*head = j->next))
        *tail = NULL;
    return j;
}

/* Keeps buffer d of GPU s for the next batch; lock held. */
static void give_back(slot *s, gf_dimage *d)
{
    if (!d->data)
        return;
    if (s->nspare == s->spare_cap) {
        int cap = s->spare_cap ? 2 * s->spare_cap : 16;
        gf_dimage *m = realloc(s->spare, (size_t)cap * sizeof *m);
        if (!m) {
            gf_dimage_free(d);
            return;
        }
        s->spare = m;
        s->spare_cap = cap;
    }
    s->spare[s->nspare++] = *d;
    memset(d, 0, sizeof *d);
}

/* The next file GPU s decoded, or NULL; lock held. Its feeder may read
 * another. */
static gf_job *pop_decoded(slot *s)
{
    gf_job *j = pop(&s->dhead, &s->dtail);

    if (j) {
        s->decoded_ms += gf_now_ms() - j->t_decoded;
        s->ndecoded--;
        pthread_cond_signal(&s->feed);
    }
    return j;
}

/* Job j, decoded (status DONE) for the workers of its GPU, or not for
 * any worker to decode on the CPU; lock held. */
static void decoded(pool *P, slot *s, gf_job *j)
{
    if (j->status == GF_JPEG_GPU_DONE && s->state > 0) {
        push(&s->dhead, &s->dtail, j);
        s->ndecoded++;
    } else {
        if (j->status == GF_JPEG_GPU_DONE)
            j->status = GF_JPEG_GPU_FAILED;
        give_back(s, &j->hw);
        push(&P->rhead, &P->rtail, j);
    }
}

/* The output buffers of a batch of n jobs, each with room for its stages
 * to run in it (a worker runs them there), reused where one is large
 * enough, else allocated in context g, shaped; 0, or an error (device
 * memory). */
static int batch_buffers(slot *s, gf_gpu *g, gf_job **jobs, int n)
{
    pool *P = s->P;
    int rc = 0, fresh = 0;

    for (int k = 0; k < n && rc == 0; k++) {
        const gf_pipeline pl = {.stages = jobs[k]->stages, .nstages = jobs[k]->nstages};
        const size_t need = gf_pipeline_capacity(&pl, &jobs[k]->shape);
        pthread_mutex_lock(&P->lock);
        for (int i = 0; i < s->nspare; i++)
            if (s->spare[i].capacity >= need) {
                jobs[k]->hw = s->spare[i];
                s->spare[i] = s->spare[--s->nspare];
                break;
            }
        pthread_mutex_unlock(&P->lock);
        if (!jobs[k]->hw.data) {
            rc = gf_dimage_alloc(g, &jobs[k]->hw, need);
            fresh = 1;
        }
        if (rc == 0)
            rc = gf_dimage_shape(&jobs[k]->hw, &jobs[k]->shape);
    }
    if (rc == 0 && fresh) /* alloc's zeroing, before the decoder's stream writes */
        rc = gf_gpu_sync(g);
    return rc;
}

/* CPU time thread t has used, ms; 0 when it cannot be read (it ended). */
static double thread_cpu_ms(pthread_t t)
{
    clockid_t c;
    struct timespec ts;

    if (pthread_getcpuclockid(t, &c) || clock_gettime(c, &ts))
        return 0;
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* s->busy from the CPU time of s's decoder and feeder threads, once a
 * BUSY_WINDOW_MS: the hardware decoder is what bounds the batch when it
 * never waited for files meanwhile, and then its threads should find a
 * core free whenever they are ready (a histogram batch keeps 1.3-1.5 cores
 * busy with one lane; a PNG batch, bound by deflate on the workers, 0.4-0.6
 * with waits); lock held. */
static void measure_busy(slot *s)
{
    const double now = gf_now_ms();
    double cpu = 0;

    if (now - s->win_start < BUSY_WINDOW_MS)
        return;
    for (int k = 0; k < s->njthreads; k++)
        cpu += thread_cpu_ms(s->jthread[k]);
    for (int k = 0; k < s->nfthreads; k++)
        cpu += thread_cpu_ms(s->fthread[k]);
    s->busy = s->win_start > 0 && !s->waited && cpu > s->win_cpu
                  ? (int)ceil((cpu - s->win_cpu) / (now - s->win_start))
                  : 0;
    if (s->busy > GF_JPEG_GPU_LANES + 1)
        s->busy = GF_JPEG_GPU_LANES + 1;
    s->waited = 0;
    s->win_start = now;
    s->win_cpu = cpu;
}

/* A decoder thread's work, on lane `lane` of s's decoder (its context
 * s->jgpu[lane]), lock held: decodes what the feeders queue, a batch at a
 * time, and hands the files back, until the batch ends or the decoder
 * fails; then no file is left in its queue. */
static void decode_loop(slot *s, int lane)
{
    pool *P = s->P;
    int rc;

    while (s->jstate == 2 && s->state >= 0) {
        const unsigned char *data[HW_BATCH_MAX];
        size_t len[HW_BATCH_MAX];
        gf_dimage *out[HW_BATCH_MAX];
        gf_job *jobs[HW_BATCH_MAX];
        int status[HW_BATCH_MAX], n = 0;
        double t0 = gf_now_ms(), t1;
        while (!P->jstop && !s->qhead && s->state >= 0 && s->jstate == 2) {
            s->waited = 1;
            pthread_cond_wait(&s->jwork, &P->lock);
        }
        t1 = gf_now_ms();
        s->hw_idle_ms += t1 - t0;
        if (!s->qhead || s->state < 0 || s->jstate != 2)
            break;
        while (s->qhead && n < HW_BATCH_MAX) {
            gf_job *j = pop(&s->qhead, &s->qtail);
            s->queued_ms += t1 - j->t_queued;
            jobs[n] = j;
            data[n] = j->buf;
            len[n] = j->len;
            out[n++] = &j->hw;
        }
        s->nqueued -= n;
        pthread_cond_broadcast(&s->feed);
        pthread_mutex_unlock(&P->lock);
        rc = batch_buffers(s, s->jgpu[lane], jobs, n);
        if (rc == 0)
            rc = gf_jpeg_gpu_decode(s->jpeg, n, data, len, out, status);
        pthread_mutex_lock(&P->lock);
        t0 = gf_now_ms();
        s->hw_busy_ms += t0 - t1;
        s->hw_files += n;
        s->hw_batches++;
        if (rc) /* CUDA failed: this GPU decodes no more JPEGs */
            s->jstate = -1;
        for (int k = 0; k < n; k++) {
            jobs[k]->status = rc ? GF_JPEG_GPU_FAILED : status[k];
            jobs[k]->t_decoded = t0;
            decoded(P, s, jobs[k]);
        }
        measure_busy(s);
        pthread_cond_broadcast(&P->cond);
    }
    if (s->jstate == 2)
        s->jstate = -1;
    for (gf_job *j; (j = pop(&s->qhead, &s->qtail));) { /* never leave a file behind */
        j->status = GF_JPEG_GPU_FAILED;
        decoded(P, s, j);
    }
    s->nqueued = 0;
    pthread_cond_broadcast(&s->jwork);
    pthread_cond_broadcast(&s->feed);
    pthread_cond_broadcast(&P->cond);
}

/* A GPU's other decoder threads: a context each, then decode_loop. */
static void *lane_main(void *arg)
{
    slot *s = arg;
    pool *P = s->P;
    int lane;

    pthread_mutex_lock(&P->lock);
    lane = s->nlanes++;
    pthread_mutex_unlock(&P->lock);
    const int rc = gf_gpu_open(s->device, &s->jgpu[lane], NULL, 0);
    pthread_mutex_lock(&P->lock);
    if (rc == 0)
        decode_loop(s, lane);
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* A GPU's first hardware decoder thread: opens nvJPEG, starts the other
 * lanes' threads, then decodes as they do. */
static void *jpeg_main(void *arg)
{
    slot *s = arg;
    pool *P = s->P;
    gf_jpeg_gpu *jd = NULL;
    /* the library loads while the start-up thread creates the context */
    int rc = gf_jpeg_gpu_load();

    if (rc == 0)
        rc = gf_gpu_open(s->device, &s->jgpu[0], NULL, 0);
    if (rc == 0)
        rc = gf_jpeg_gpu_open(s->device, &jd);
    pthread_mutex_lock(&P->lock);
    s->jpeg = jd;
    s->jstate = rc ? -1 : 2;
    s->nlanes = 1;
    while (rc == 0 && s->njthreads < GF_JPEG_GPU_LANES &&
           pthread_create(&s->jthread[s->njthreads], NULL, lane_main, s) == 0)
        s->njthreads++;
    pthread_cond_broadcast(&P->cond);
    decode_loop(s, 0);
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* gf_worker's give_back: j's decoded image's buffer back to its GPU, once
 * gpu's stream is done with it. */
static void worker_give_back(gf_worker *w, gf_gpu *gpu, gf_job *j)
{
    pool *P = w->pool;
    slot *s = &P->slots[j->slot];

    if (gpu)
        gf_gpu_sync(gpu); /* on an error, the buffer is free all the same */
    pthread_mutex_lock(&P->lock);
    give_back(s, &j->hw);
    pthread_mutex_unlock(&P->lock);
}

/* gf_worker's jpeg_seen: a list whose first file was no JPEG starts the
 * worker's GPU's decoder at its first JPEG. */
static void worker_jpeg_seen(gf_worker *w)
{
    pool *P = w->pool;

    if (!P->plan->batch || !gf_job_gpu_jpeg(P->plan))
        return;
    pthread_mutex_lock(&P->lock);
    if (w->gpu && P->slots[w->slot].state > 0)
        start_jpeg(&P->slots[w->slot]);
    pthread_mutex_unlock(&P->lock);
}

/* --backend cuda and a JPEG output: nvJPEG of the worker's GPU encodes. */
static int worker_gpu_encode(gf_worker *w, gf_gpu *gpu, const gf_dimage *in, int quality,
                             unsigned char **out, size_t *len)
{
    pool *P = w->pool;
    slot *s = &P->slots[w->slot];
    int state;

    pthread_mutex_lock(&P->lock);
    start_jpeg(s);
    while (s->jstate == 1)
        pthread_cond_wait(&P->cond, &P->lock);
    state = s->jstate;
    pthread_mutex_unlock(&P->lock);
    if (state != 2)
        return gf_err(GF_ENOGPU, NULL, "nvJPEG is unavailable (--backend cuda encodes JPEG "
                                       "with it)");
    return gf_jpeg_gpu_encode(s->jpeg, gf_gpu_stream(gpu), in, quality, out, len);
}

/* The worker's GPU failed: no more files for it; the others, or the CPU,
 * take them. Said once a GPU. */
static void worker_gpu_lost(gf_worker *w, const char *why)
{
    pool *P = w->pool;
    slot *s = &P->slots[w->slot];
    int left = 0;

    pthread_mutex_lock(&P->lock);
    if (s->state > 0) {
        s->state = -1;
        for (int k = 0; k < P->nslots; k++)
            left += P->slots[k].state > 0;
        if (!P->plan->quiet)
            fprintf(stderr, "gpufilt: the GPU failed (%s%s%d); %s\n", why,
                    P->nslots > 1 ? ", GPU " : "", P->nslots > 1 ? s->device : 0,
                    left ? "its files go to the other GPUs" : "the rest runs on the CPU");
        if (!left)
            P->gpu_state = -1;
        for (gf_job *j; (j = pop_decoded(s));) {
            j->status = GF_JPEG_GPU_FAILED;
            decoded(P, s, j);
        }
        pthread_cond_broadcast(&s->jwork);
        pthread_cond_broadcast(&P->cond);
    }
    w->gpu = NULL;
    pthread_mutex_unlock(&P->lock);
}

/* 1 while worker w sits out, lock held: with the default --jobs (one
 * worker a core), as many workers sit out as the slots' busy cores. A
 * histogram batch on the H100 machine's 16 cores ran at 2,940-3,003
 * images/s steady with 14 workers, 2,744-2,913 with 16 (docs/benchmarks.md).
 * At least half the workers, and one a GPU, stay. */
static int sits_out(const pool *P, const gf_worker *w)
{
    int active = P->njobs;

    if (P->plan->jobs)
        return 0;
    for (int k = 0; k < P->nslots; k++)
        if (P->slots[k].jstate == 2)
            active -= P->slots[k].busy;
    if (active < P->njobs / 2)
        active = P->njobs / 2;
    if (active < P->nslots)
        active = P->nslots;
    return w->id >= active;
}

/* The next thing for worker w, lock held: a file its GPU decoded, one a
 * hardware decoder gave back, or the next of the list (*item); NULL and -1
 * when all is done. */
static gf_job *next_work(pool *P, gf_worker *w, int *item)
{
    worker_stats *ws = P->stats ? &P->stats[w->id] : NULL;

    for (;;) {
        gf_job *j = NULL;
        double t0;
        *item = -1;
        if (sits_out(P, w)) {
            if (P->next >= P->n && P->inflight == 0 && P->feeding == 0)
                return NULL;
            t0 = gf_now_ms();
            pthread_cond_wait(&P->cond, &P->lock);
            if (ws)
                ws->out_ms += gf_now_ms() - t0;
            continue;
        }
        if (w->gpu && P->slots[w->slot].dhead)
            j = pop_decoded(&P->slots[w->slot]);
        else if (P->rhead)
            j = pop(&P->rhead, &P->rtail);
        else if (P->next < P->n)
            *item = P->next++;
        else if (P->inflight == 0 && P->feeding == 0)
            return NULL;
        else /* nothing else to do: another GPU's decoded file (this worker's
              * GPU is another, or none: it decodes the file again on the CPU) */
            for (int k = 0; k < P->nslots && !j; k++)
                j = pop_decoded(&P->slots[k]);
        if (j)
            P->inflight--;
        if (j || *item >= 0)
            return j;
        t0 = gf_now_ms();
        pthread_cond_wait(&P->cond, &P->lock);
        if (ws)
            ws->wait_ms += gf_now_ms() - t0;
    }
}

/* Item it is done with status (skipped: -1); lock held. */
static void record(pool *P, gf_item *it, int status)
{
    it->status = status;
    P->done++;
    P->failed += status > 0;
    P->skipped += status < 0;
    pthread_cond_broadcast(&P->cond);
}

/* A feeder's offload: job j into its decoder's queue, or to the CPU
 * workers when the decoder refuses it or has stopped (it may stop while
 * the feeder reads). */
static void feeder_offload(gf_worker *w, gf_job *j)
{
    pool *P = w->pool;
    slot *s = &P->slots[w->slot];

    pthread_mutex_lock(&P->lock);
    j->slot = w->slot;
    P->inflight++;
    if (j->status == GF_JPEG_GPU_REFUSED || s->jstate < 0 || s->state < 0) {
        push(&P->rhead, &P->rtail, j);
        pthread_cond_broadcast(&P->cond);
    } else {
        push(&s->qhead, &s->qtail, j);
        s->nqueued++;
        pthread_cond_signal(&s->jwork);
    }
    pthread_mutex_unlock(&P->lock);
}

/* A GPU's feeder: while its decoder starts or runs, takes the list's next
 * file whenever fewer than HW_AHEAD wait for the decoder (and fewer than
 * HW_HELD for it or a worker), and reads it (through gf_job_run, which
 * hands it on). */
static void *feeder_main(void *arg)
{
    slot *s = arg;
    pool *P = s->P;
    gf_worker fw = {.plan = P->plan, .get_gpu = worker_gpu, .choose = choose_backend,
                    .offload = feeder_offload, .give_back = worker_give_back,
                    .pool = P, .id = -1, .slot = (int)(s - P->slots)};

    pthread_mutex_lock(&P->lock);
    for (;;) {
        int i, status;
        const double t0 = gf_now_ms();
        while (!P->jstop && s->state >= 0 && s->jstate > 0 && P->next < P->n &&
               (s->nqueued >= HW_AHEAD || s->nqueued + s->ndecoded >= HW_HELD))
            pthread_cond_wait(&s->feed, &P->lock);
        s->feed_wait_ms += gf_now_ms() - t0;
        if (P->jstop || s->state < 0 || s->jstate <= 0 || P->next >= P->n)
            break;
        i = P->next++;
        P->feeding++;
        pthread_mutex_unlock(&P->lock);
        status = gf_job_run(&fw, &P->items[i]);
        pthread_mutex_lock(&P->lock);
        P->feeding--;
        if (status != GF_JOB_PENDING)
            record(P, &P->items[i], status);
        pthread_cond_broadcast(&P->cond);
    }
    pthread_mutex_unlock(&P->lock);
    return NULL;
}

/* The steps of a file's report that are not the GPU's work: the rest of
 * a file run on a GPU (upload, its stages, download) is. */
static int host_step(const gf_row *r)
{
    static const char *const host[] = {"start-up", "gpu start", "read", "decode", "queue",
                                       "reports", "encode", "write", "total", NULL};

    if (!strcmp(r->step, "encode") && !strcmp(r->variant, "jpeg-gpu"))
        return 0;
    if (!strcmp(r->variant, "cpu"))
        return 1;
    for (int i = 0; host[i]; i++)
        if (!strcmp(r->step, host[i]))
            return 1;
    return 0;
}

/* Adds ms over files to the sum of step and variant in s (a new one when
 * it has none); out of memory, the time is left out of the sums. */
static void sums_add(step_sums *s, const char *step, const char *variant, double ms, int files)
{
    int k = 0;

    while (k < s->n && (strcmp(s->v[k].step, step) || strcmp(s->v[k].variant, variant)))
        k++;
    if (k == s->n) {
        if (k == s->cap) {
            const int cap = s->cap ? 2 * s->cap : 16;
            step_sum *m = realloc(s->v, (size_t)cap * sizeof *m);
            if (!m)
                return;
            s->v = m;
            s->cap = cap;
        }
        memset(&s->v[k], 0, sizeof s->v[k]);
        snprintf(s->v[k].step, sizeof s->v[k].step, "%s", step);
        snprintf(s->v[k].variant, sizeof s->v[k].variant, "%s", variant);
        s->n++;
    }
    s->v[k].ms += ms;
    s->v[k].files += files;
}

/* Adds the file worker w has just finished (status, not skipped), which
 * took it ms, to its statistics: w->rep's steps summed by step and
 * variant, and the GPU's share. */
static void count_file(worker_stats *ws, const gf_worker *w, int status, double ms)
{
    const gf_report *rep = &w->rep;
    const int on_gpu = rep->backend && !strcmp(rep->backend, "cuda");

    ws->busy_ms += ms;
    if (status < 0) /* skipped, or handed to a decoder (a feeder's) */
        return;
    ws->files++;
    if (on_gpu)
        ws->slot_files[w->slot]++;
    for (int i = 0; i < rep->steps.n; i++) {
        const gf_row *r = gf_table_row(&rep->steps, i);
        if (on_gpu && !host_step(r))
            ws->slot_ms[w->slot] += r->ms;
        sums_add(&ws->steps, r->step, r->variant, r->ms, 1);
    }
}

static void *worker_main(void *arg)
{
    gf_worker *w = arg;
    pool *P = w->pool;

    gf_set_cpu_threads(P->worker_threads);
    pthread_mutex_lock(&P->lock);
    for (;;) {
        int i, status;
        gf_job *j = next_work(P, w, &i);
        gf_item *it = j ? j->it : i >= 0 ? &P->items[i] : NULL;
        if (!it)
            break;
        pthread_mutex_unlock(&P->lock);
        if (!P->plan->batch)
            w->t_process = gf_now_ms() - gf_process_t0;
        const double t0 = gf_now_ms();
        status = j ? gf_job_resume(w, j) : gf_job_run(w, it);
        if (P->stats)
            count_file(&P->stats[w->id], w, status, gf_now_ms() - t0);
        pthread_mutex_lock(&P->lock);
        if (status != GF_JOB_PENDING) /* a worker has no offload: never */
            record(P, it, status);
    }
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
    gf_limits lim = {.max_pixels = 1, .max_file_bytes = (uint64_t)1 << 31, .max_image_bytes = 1};
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

/* The cores this process may run on: its affinity mask (what taskset, a
 * cgroup cpuset or a Slurm allocation of part of a node leaves it), else
 * the online ones. */
static int usable_cores(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* The summary's account of where the time went: the workers' files, busy
 * and waiting time; every file's steps summed (each decoder's share is the
 * decode step's variants); each GPU's files, its streams' time and its
 * hardware decoder's; and the bottleneck, the busiest of the workers and
 * the decoders (the share of their time they were at work). Lock held. */
static void time_account(const pool *P, json_t *sum)
{
    json_t *workers = json_array(), *steps = json_array(), *gpus = json_array(),
           *busy = json_object();
    step_sums all = {0};
    double wbusy = 0, wwait = 0, best = -1;
    char best_name[64] = "", name[64];

    for (int i = 0; P->stats && i < P->njobs; i++) {
        const worker_stats *ws = &P->stats[i];
        json_array_append_new(workers,
                              json_pack("{s:i,s:i,s:o,s:o,s:o}", "id", i, "files", ws->files,
                                        "busy_ms", gf_json_real(ws->busy_ms, 1), "wait_ms",
                                        gf_json_real(ws->wait_ms, 1), "out_ms",
                                        gf_json_real(ws->out_ms, 1)));
        wbusy += ws->busy_ms;
        wwait += ws->wait_ms;
        for (int k = 0; k < ws->steps.n; k++)
            sums_add(&all, ws->steps.v[k].step, ws->steps.v[k].variant, ws->steps.v[k].ms,
                     ws->steps.v[k].files);
    }
    for (int a = 0; a < all.n; a++) {
        const step_sum *t = &all.v[a];
        json_t *o = json_pack("{s:s}", "step", t->step);
        if (t->variant[0])
            json_object_set_new(o, "variant", json_string(t->variant));
        json_object_set_new(o, "files", json_integer(t->files));
        json_object_set_new(o, "ms", gf_json_real(t->ms, 1));
        json_object_set_new(o, "ms_per_file", gf_json_real(t->ms / t->files, 3));
        json_array_append_new(steps, o);
    }
    free(all.v);
    if (P->stats && wbusy + wwait > 0) {
        best = wbusy / (wbusy + wwait);
        snprintf(best_name, sizeof best_name, "workers");
        json_object_set_new(busy, "workers", gf_json_real(best, 3));
    }
    for (int k = 0; k < P->nslots; k++) {
        const slot *s = &P->slots[k];
        int files = 0;
        double ms = 0;
        for (int i = 0; P->stats && i < P->njobs; i++) {
            files += P->stats[i].slot_files[k];
            ms += P->stats[i].slot_ms[k];
        }
        json_t *g = json_pack("{s:i,s:s,s:i,s:o}", "device", s->device, "name", s->name, "files",
                              files, "stream_ms", gf_json_real(ms, 1));
        if (s->hw_batches) {
            const double on = s->hw_busy_ms / (s->hw_busy_ms + s->hw_idle_ms);
            json_object_set_new(
                g, "decoder",
                json_pack("{s:i,s:i,s:o,s:o,s:o,s:o,s:o}", "files", s->hw_files, "batches",
                          s->hw_batches, "busy_ms", gf_json_real(s->hw_busy_ms, 1), "idle_ms",
                          gf_json_real(s->hw_idle_ms, 1), "queued_ms_per_file",
                          gf_json_real(s->queued_ms / s->hw_files, 3),
                          "decoded_wait_ms_per_file", gf_json_real(s->decoded_ms / s->hw_files, 3),
                          "feeders_wait_ms", gf_json_real(s->feed_wait_ms, 1)));
            int again = 0; /* entries of the same GPU before this one */
            for (int j = 0; j < k; j++)
                again += P->slots[j].device == s->device;
            if (again)
                snprintf(name, sizeof name, "gpu %d decoder %d", s->device, again + 1);
            else
                snprintf(name, sizeof name, "gpu %d decoder", s->device);
            json_object_set_new(busy, name, gf_json_real(on, 3));
            if (on > best) {
                best = on;
                snprintf(best_name, sizeof best_name, "%s", name);
            }
        }
        json_array_append_new(gpus, g);
    }
    json_object_set_new(sum, "workers", workers);
    json_object_set_new(sum, "steps", steps);
    json_object_set_new(sum, "gpus", gpus);
    json_object_set_new(sum, "busy", busy);
    json_object_set_new(sum, "bottleneck", best_name[0] ? json_string(best_name) : json_null());
}

static void summary(pool *P, double wall_ms)
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
        json_t *j = json_pack("{s:{s:i,s:i,s:i,s:i,s:o,s:o,s:s,s:i,s:o}}", "summary", "files",
                              P->n, "processed", processed, "failed", P->failed, "skipped",
                              P->skipped, "wall_ms", gf_json_real(wall_ms, 3), "images_per_s",
                              gf_json_real(rate, 3), "backend", P->gpu_state > 0 ? "cuda" : "cpu",
                              "jobs", P->njobs, "failures", failed);
        pthread_mutex_lock(&P->lock); /* the decoders may still be waiting */
        time_account(P, json_object_get(j, "summary"));
        pthread_mutex_unlock(&P->lock);
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
    for (int k = 0; k < GF_MAX_DEVICES; k++) {
        P.slots[k].P = &P;
        pthread_cond_init(&P.slots[k].jwork, NULL);
        pthread_cond_init(&P.slots[k].feed, NULL);
    }
    if ((rc = build_list(&P)) || (rc = build_items(&P))) {
        fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
        status = -rc;
        goto done;
    }
    if (p->dry_run) {
        dry_run(&P);
        goto done;
    }
    njobs = p->jobs ? p->jobs : usable_cores();
    if (njobs < 1)
        njobs = 1;
    /* one a core: no worker waits for a hardware decoder (its feeder thread
     * does), and 16 workers on 16 cores ran a JPEG histogram batch in 2.0 s
     * where 24 took 2.4 (docs/benchmarks.md) */
    if (njobs > P.n)
        njobs = P.n ? P.n : 1;
    P.njobs = njobs;
    /* the cores shared among the workers; one worker keeps them all */
    P.worker_threads = njobs > 1 ? gf_cpu_threads() / njobs : gf_cpu_threads();
    if (P.worker_threads < 1)
        P.worker_threads = 1;
    P.gpu_state = p->backend == GF_BACKEND_CPU ? -1 : 0;
    if (p->backend != GF_BACKEND_CPU && p->batch && P.n >= LONG_BATCH)
        gf_gpu_env_long_batch(); /* no other thread yet */
    if (p->backend != GF_BACKEND_CPU && P.n &&
        (p->batch || p->gpu_forced || p->backend == GF_BACKEND_CUDA))
        start_gpu(&P);
    workers = calloc((size_t)njobs, sizeof *workers);
    if (!workers) {
        fprintf(stderr, "gpufilt: out of memory\n");
        status = -GF_EINTERNAL;
        goto join;
    }
    P.stats = p->batch ? calloc((size_t)njobs, sizeof *P.stats) : NULL;
    for (int i = 0; i < njobs; i++)
        workers[i] = (gf_worker){.plan = p, .get_gpu = worker_gpu, .choose = choose_backend,
                                 .give_back = worker_give_back, .jpeg_seen = worker_jpeg_seen,
                                 .gpu_encode = worker_gpu_encode, .gpu_lost = worker_gpu_lost,
                                 .pool = &P, .id = i};
    run_workers(&P, workers, njobs);
    for (int i = 0; i < P.n; i++)
        if (P.items[i].status > 0) {
            status = P.items[i].status; /* the earliest file's failure */
            break;
        }
    if (p->batch)
        summary(&P, gf_now_ms() - P.t_start);
join:
    if (P.probing) /* first: it may start the decoder threads */
        pthread_join(P.probe_thread, NULL);
    if (P.early && P.gpu_state < 0) /* no worker has said it yet */
        notice(&P);
    pthread_mutex_lock(&P.lock);
    P.jstop = 1;
    for (int k = 0; k < GF_MAX_DEVICES; k++) {
        pthread_cond_broadcast(&P.slots[k].jwork);
        pthread_cond_broadcast(&P.slots[k].feed);
    }
    pthread_mutex_unlock(&P.lock);
    /* every output is written and renamed by now; the GPU contexts are left
     * to the process's exit, whose CUDA teardown main skips (gf_gpu_finish) */
    for (int k = 0; k < GF_MAX_DEVICES; k++) {
        slot *s = &P.slots[k];
        for (int i = 0; i < s->njthreads; i++)
            pthread_join(s->jthread[i], NULL);
        for (int i = 0; i < s->nfthreads; i++)
            pthread_join(s->fthread[i], NULL);
        for (int i = 0; i < GF_JPEG_GPU_LANES; i++)
            gf_gpu_finish(s->jgpu[i]);
        for (int i = 0; i < s->nready; i++)
            gf_gpu_finish(s->ready[i]);
        free(s->ready);
        free(s->spare);
    }
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
    for (int i = 0; P.stats && i < P.njobs; i++)
        free(P.stats[i].steps.v);
    free(P.stats);
    pthread_mutex_destroy(&P.lock);
    pthread_cond_destroy(&P.cond);
    for (int k = 0; k < GF_MAX_DEVICES; k++) {
        pthread_cond_destroy(&P.slots[k].jwork);
        pthread_cond_destroy(&P.slots[k].feed);
    }
    return status;
}
