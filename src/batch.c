/* batch.c - one file or many: the input list, output names, a pool of CPU
 * workers, each with its own CUDA stream, pinned staging and device buffers
 * (so one image's upload, kernels and download overlap others' decoding and
 * encoding), progress and the summary. */
#include "batch.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu.h"
#include "image.h"
#include "pipeline.h"
#include "report.h"

#define PROGRESS_MS 250 /* progress line refresh on a terminal */

int gf_expand_template(const char *tmpl, const char *path, int index, char *out, size_t n)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t stem_len = dot && dot != name ? (size_t)(dot - name) : strlen(name);
    size_t len = 0;

    for (const char *p = tmpl; *p; p++) {
        char buf[PATH_MAX];
        const char *val = NULL;
        size_t vlen;
        if (*p != '{') {
            if (len + 1 >= n)
                return gf_err(GF_EUSAGE, tmpl, "output name too long");
            out[len++] = *p;
            continue;
        }
        const char *end = strchr(p, '}');
        size_t key = end ? (size_t)(end - p - 1) : 0;
        if (end && key == 4 && !strncmp(p + 1, "stem", 4)) {
            val = name;
            vlen = stem_len;
        } else if (end && key == 4 && !strncmp(p + 1, "name", 4)) {
            val = name;
            vlen = strlen(name);
        } else if (end && key == 3 && !strncmp(p + 1, "ext", 3)) {
            val = dot && dot != name ? dot + 1 : "";
            vlen = strlen(val);
        } else if (end && key == 3 && !strncmp(p + 1, "dir", 3)) {
            val = slash ? path : ".";
            vlen = slash ? (size_t)(slash - path) : 1;
            if (slash == path)
                vlen = 1; /* "/" */
        } else if (end && key == 5 && !strncmp(p + 1, "index", 5)) {
            snprintf(buf, sizeof buf, "%d", index);
            val = buf;
            vlen = strlen(buf);
        } else {
            return gf_err(GF_EUSAGE, tmpl,
                          "unknown template field (use {stem}, {name}, {ext}, {dir}, {index})");
        }
        if (len + vlen >= n)
            return gf_err(GF_EUSAGE, tmpl, "output name too long");
        memcpy(out + len, val, vlen);
        len += vlen;
        p = end;
    }
    out[len] = 0;
    return 0;
}

/* One file of the list, with its expanded output names. */
typedef struct item {
    const char *path;
    int index;          /* 1-based position in the whole list (before --shard) */
    char *out;          /* image output, or NULL */
    char **reports;     /* per stage: expanded report path, or NULL */
    int status;         /* exit status once done; -1 skipped */
} item;

typedef struct job {
    const gf_options *o;
    item *items;
    int n;
    char **list;        /* the whole list; list_own: from --files-from */
    int nlist;
    char *list_buf;
    /* shared state, under lock */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int next, done, failed, skipped, running;
    /* GPU start-up: 0 pending, 1 usable, -1 not */
    int gpu_state;
    gf_gpu *probe;      /* the start-up thread's context, handed to the first worker */
    char gpu_msg[1024], gpu_name[128];
    int notice_done;
    size_t hint;        /* the first image's size, for the start-up thread's pinned buffer */
    double t_start;
    uint32_t (*rgb)[3][256]; /* per worker */
} job;

typedef struct worker {
    job *j;
    int id;
    gf_gpu *gpu;
    gf_report *rep;
} worker;

static void *gpu_start_main(void *arg)
{
    job *j = arg;
    gf_gpu *g = NULL;
    char name[128] = "";
    int rc = gf_gpu_open(j->o->device, &g, name, sizeof name);
    size_t hint;

    if (rc == 0 && (rc = gf_pipeline_warm(j->o, g))) {
        gf_gpu_close(g);
        g = NULL;
    }
    hint = __atomic_load_n(&j->hint, __ATOMIC_ACQUIRE);
    if (rc == 0 && hint) /* the first header is usually read by now */
        gf_gpu_reserve(g, hint); /* best effort: upload allocates otherwise */
    pthread_mutex_lock(&j->lock);
    if (rc)
        snprintf(j->gpu_msg, sizeof j->gpu_msg, "%s", gf_errmsg());
    snprintf(j->gpu_name, sizeof j->gpu_name, "%s", name);
    j->probe = g;
    j->gpu_state = rc ? -1 : 1;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* The worker's GPU, once start-up is over: NULL for the CPU backend. Prints
 * the auto backend's one-line notice once. Errors: GF_ENOGPU with
 * --backend cuda. */
static int worker_gpu(worker *w, gf_gpu **out)
{
    job *j = w->j;
    int rc = 0;

    *out = NULL;
    if (j->o->backend == GF_BACKEND_CPU)
        return 0;
    if (w->gpu) {
        *out = w->gpu;
        return 0;
    }
    pthread_mutex_lock(&j->lock);
    while (j->gpu_state == 0)
        pthread_cond_wait(&j->cond, &j->lock);
    if (j->gpu_state < 0) {
        if (j->o->backend == GF_BACKEND_CUDA)
            rc = gf_err(GF_ENOGPU, NULL, "%s (--backend cuda)", j->gpu_msg);
        else if (!j->notice_done && !j->o->quiet)
            fprintf(stderr, "gpufilt: %s; using the CPU backend\n", j->gpu_msg);
        j->notice_done = 1;
    } else if (j->probe) {
        w->gpu = j->probe; /* the first worker takes the start-up context */
        j->probe = NULL;
    }
    pthread_mutex_unlock(&j->lock);
    if (rc == 0 && j->gpu_state > 0 && !w->gpu)
        rc = gf_gpu_open(j->o->device, &w->gpu, NULL, 0);
    *out = w->gpu;
    return rc;
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

/* Reads and decodes the input, reserving the worker's pinned staging as
 * soon as the header gives the size (or, before the worker has a GPU,
 * telling the start-up thread); counts R, G and B into rgb when not NULL. */
static int load(const gf_options *o, gf_gpu *gpu, size_t *hint, gf_image *img,
                gf_load_info *info, uint32_t (*rgb)[256])
{
    unsigned char *buf;
    size_t len;
    int rc = gf_read_all(o->input, &o->limits, &buf, &len), w, h;

    if (rc)
        return rc;
    if (gf_peek_size(buf, len, &w, &h) == 0 && (uint64_t)w * h <= o->limits.max_pixels) {
        if (gpu)
            gf_gpu_reserve(gpu, (size_t)w * h); /* best effort */
        else
            __atomic_store_n(hint, (size_t)w * h, __ATOMIC_RELEASE);
    }
    rc = gf_decode_rgb(strcmp(o->input, "-") ? o->input : "(stdin)", buf, len, &o->limits, img,
                       info, rgb);
    free(buf);
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

static int exists(const char *path)
{
    struct stat st;
    return path && strcmp(path, "-") && stat(path, &st) == 0;
}

/* One file, start to end. Returns its exit status (0, or a GF_E* code's
 * value), -1 when skipped. */
static int process(worker *w, item *it)
{
    job *j = w->j;
    gf_options fo = *j->o;
    gf_report *rep = w->rep;
    gf_result results[GF_MAX_STAGES];
    gf_image img = {0}, result = {0};
    gf_load_info info;
    gf_gpu *gpu = NULL;
    uint32_t(*rgb)[256] = j->rgb[w->id];
    double t_start = gf_now_ms(), t0;
    int rc, owned = 0, all_exist = 1;
    const char *name = strcmp(it->path, "-") ? it->path : "(stdin)";

    fo.input = it->path;
    fo.output = it->out;
    all_exist = !it->out || exists(it->out);
    for (int s = 0; s < fo.nstages; s++)
        if (gf_stage_is_report(&fo.stages[s])) {
            fo.stages[s].u.report.path = it->reports[s];
            all_exist &= !it->reports[s] || exists(it->reports[s]);
        }
    if (fo.skip_existing && all_exist && (it->out || fo.nstages))
        return -1;

    memset(rep, 0, sizeof *rep);
    memset(results, 0, sizeof results);
    rep->input = name;
    rep->backend = "cpu";
    if ((rc = check_output(&fo, fo.output)))
        goto out;
    for (int s = 0; rc == 0 && s < fo.nstages; s++)
        if (gf_stage_is_report(&fo.stages[s]))
            rc = check_output(&fo, fo.stages[s].u.report.path);
    if (rc)
        goto out;

    t0 = gf_now_ms();
    rc = load(&fo, w->gpu, &j->hint, &img, &info, fo.hist_rgb ? rgb : NULL);
    if (rc)
        goto out;
    gf_report_step(rep, "decode", NULL, gf_now_ms() - t0, 0);
    if (info.bits == 16 && !fo.quiet)
        fprintf(stderr, "gpufilt: %s: %d-bit samples reduced to 8 bits\n", name, info.bits);
    t0 = gf_now_ms();
    if ((rc = worker_gpu(w, &gpu)))
        goto out;
    if (fo.backend != GF_BACKEND_CPU)
        gf_report_step(rep, "gpu start", "wait", gf_now_ms() - t0, 0);
    if (gpu) {
        rep->backend = "cuda";
        snprintf(rep->device, sizeof rep->device, "%s", j->gpu_name);
    }
    rep->width = img.width;
    rep->height = img.height;

    fo.report.batch = fo.batch;
    for (int s = 0; s < fo.nstages; s++) {
        results[s].rgb = (const uint32_t(*)[256])rgb;
        results[s].input = name;
    }
    rc = gf_pipeline_run(&fo, gpu, &img, &result, &owned, rep, results);
    if (rc == 0)
        rc = write_reports(&fo, results, rep);
    if (rc == 0 && fo.output) {
        unsigned char *buf;
        size_t len;
        t0 = gf_now_ms();
        rc = gf_encode(&result, fo.format, &buf, &len);
        if (rc == 0) {
            gf_report_step(rep, "encode", fo.format == GF_FMT_PNG ? "png" : "pgm",
                           gf_now_ms() - t0, 0);
            t0 = gf_now_ms();
            rc = gf_write(fo.output, buf, len);
            free(buf);
            if (rc == 0)
                gf_report_step(rep, "write", NULL, gf_now_ms() - t0, (double)len);
        }
    }
    if (rc == 0 || (fo.compare && rep->ncompare)) {
        rep->out_width = result.width ? result.width : rep->width;
        rep->out_height = result.height ? result.height : rep->height;
        gf_report_step(rep, "total", NULL, gf_now_ms() - t_start, 0);
        if (!fo.quiet && (fo.timings == GF_TIMINGS_JSON || !fo.batch)) {
            flockfile(stderr);
            if (fo.timings == GF_TIMINGS_JSON)
                gf_report_json(rep, stderr);
            else
                gf_report_text(rep, stderr);
            funlockfile(stderr);
        }
    }
out:
    if (rc)
        fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
    for (int s = 0; s < fo.nstages; s++)
        free(results[s].vals);
    if (owned)
        gf_image_free(&result);
    gf_image_free(&img);
    return -rc;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    job *j = w->j;

    for (;;) {
        pthread_mutex_lock(&j->lock);
        int i = j->next < j->n ? j->next++ : -1;
        pthread_mutex_unlock(&j->lock);
        if (i < 0)
            break;
        int status = process(w, &j->items[i]);
        pthread_mutex_lock(&j->lock);
        j->items[i].status = status;
        j->done++;
        j->failed += status > 0;
        j->skipped += status < 0;
        pthread_cond_broadcast(&j->cond);
        pthread_mutex_unlock(&j->lock);
    }
    pthread_mutex_lock(&j->lock);
    j->running--;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* The whole list: operands, then --files-from lines (empty lines and a
 * trailing carriage return ignored). */
static int build_list(job *j)
{
    const gf_options *o = j->o;
    gf_limits lim = {1, (uint64_t)1 << 31};
    unsigned char *buf = NULL;
    size_t len = 0, lines = 0;
    int rc;

    if (o->files_from) {
        if ((rc = gf_read_all(o->files_from, &lim, &buf, &len)))
            return rc;
        for (size_t i = 0; i < len; i++)
            lines += buf[i] == '\n';
        lines++;
    }
    j->list = malloc(((size_t)o->ninputs + lines + 1) * sizeof *j->list);
    if (!j->list) {
        free(buf);
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    }
    for (int i = 0; i < o->ninputs; i++)
        j->list[j->nlist++] = o->inputs[i];
    if (buf) {
        char *p = (char *)buf, *end = p + len; /* gf_read_all ends it with a NUL */
        while (p < end) {
            char *nl = memchr(p, '\n', (size_t)(end - p));
            char *e = nl ? nl : end;
            if (e > p && e[-1] == '\r')
                e[-1] = 0;
            *e = 0;
            if (*p) {
                if (!strcmp(p, "-")) {
                    free(buf);
                    return gf_err(GF_EUSAGE, o->files_from, "'-' (stdin) cannot be listed");
                }
                j->list[j->nlist++] = p;
            }
            p = e + 1;
        }
        j->list_buf = (char *)buf;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* mkdir -p of path's directory part (of path itself when dir). */
static int make_dirs(const char *path, int dir)
{
    char buf[PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return gf_err(GF_ECREATE, path, "path too long");
    if (!dir) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            return 0;
        *slash = 0;
    }
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (buf[0] && stat(buf, &st) != 0 && mkdir(buf, 0777) != 0 && errno != EEXIST)
                return gf_err(GF_ECREATE, path, "cannot create directory %s: %s", buf,
                              strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

/* This shard's items with their output names; two inputs with one output
 * name are a usage error, found here before any work. */
static int build_items(job *j)
{
    const gf_options *o = j->o;
    char path[PATH_MAX];
    char **names;
    size_t nn = 0;
    int rc = 0;

    j->items = calloc((size_t)j->nlist + 1, sizeof *j->items);
    names = calloc(((size_t)j->nlist + 1) * ((size_t)o->nstages + 1), sizeof *names);
    if (!j->items || !names) {
        free(names);
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    }
    for (int i = 0; i < j->nlist; i++) {
        item *it;
        if (o->shard_n && i % o->shard_n != o->shard_k - 1)
            continue;
        it = &j->items[j->n++];
        it->path = j->list[i];
        it->index = i + 1;
        it->reports = calloc((size_t)o->nstages + 1, sizeof *it->reports);
        if (!it->reports)
            return free(names), gf_err(GF_EINTERNAL, NULL, "out of memory");
        if (o->output) {
            if (o->output_dir) {
                size_t n = strlen(o->output);
                rc = gf_expand_template("{stem}", it->path, it->index, path, sizeof path);
                if (rc == 0 && snprintf(path + strlen(path), sizeof path - strlen(path), ".%s",
                                        o->format == GF_FMT_PGM ? "pgm" : "png") >=
                                   (int)(sizeof path - strlen(path)))
                    rc = gf_err(GF_EUSAGE, it->path, "output name too long");
                if (rc == 0) {
                    char full[PATH_MAX];
                    if (snprintf(full, sizeof full, "%s%s%s", o->output,
                                 o->output[n - 1] == '/' ? "" : "/", path) >= (int)sizeof full)
                        rc = gf_err(GF_EUSAGE, it->path, "output name too long");
                    snprintf(path, sizeof path, "%s", full);
                }
            } else {
                rc = gf_expand_template(o->output, it->path, it->index, path, sizeof path);
            }
            if (rc || !(it->out = strdup(path)))
                return free(names), rc ? rc : gf_err(GF_EINTERNAL, NULL, "out of memory");
            if (strcmp(path, "-"))
                names[nn++] = it->out;
        }
        for (int s = 0; s < o->nstages; s++) {
            const char *t = o->stages[s].u.report.path;
            if (!gf_stage_is_report(&o->stages[s]) || !t)
                continue;
            if ((rc = gf_expand_template(t, it->path, it->index, path, sizeof path)) ||
                !(it->reports[s] = strdup(path)))
                return free(names), rc ? rc : gf_err(GF_EINTERNAL, NULL, "out of memory");
            if (strcmp(path, "-"))
                names[nn++] = it->reports[s];
        }
    }
    qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 1; i < nn && rc == 0; i++)
        if (!strcmp(names[i], names[i - 1]))
            rc = gf_err(GF_EUSAGE, names[i],
                        "two inputs map to this one output name; use {stem}, {dir} or {index}");
    /* create the directories the outputs go into: -o DIR, and in a batch the
     * directories the templates name */
    if (rc == 0 && o->output && o->output_dir)
        rc = make_dirs(o->output, 1);
    for (size_t i = 0; i < nn && rc == 0 && o->batch; i++)
        rc = make_dirs(names[i], 0);
    free(names);
    return rc;
}

static void progress(job *j, int final)
{
    double el = (gf_now_ms() - j->t_start) / 1e3, rate = el > 0 ? j->done / el : 0;

    if (final) {
        fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[Kgpufilt: %d/%d files, %.1f/s, ETA %.0f s", j->done, j->n, rate,
            rate > 0 ? (j->n - j->done) / rate : 0.0);
}

static void summary(const job *j, double wall_ms)
{
    const gf_options *o = j->o;
    int processed = j->done - j->failed - j->skipped;

    if (o->quiet)
        return;
    if (o->timings == GF_TIMINGS_JSON) {
        fprintf(stderr,
                "{\"summary\":{\"files\":%d,\"processed\":%d,\"failed\":%d,\"skipped\":%d,"
                "\"wall_ms\":%.3f,\"images_per_s\":%.3f,\"backend\":\"%s\"}}\n",
                j->n, processed, j->failed, j->skipped, wall_ms,
                wall_ms > 0 ? processed / (wall_ms / 1e3) : 0.0, j->gpu_state > 0 ? "cuda" : "cpu");
    } else {
        fprintf(stderr, "gpufilt: %d processed, %d failed", processed, j->failed);
        if (j->skipped)
            fprintf(stderr, ", %d skipped", j->skipped);
        fprintf(stderr, " (%.2f s, %.1f images/s)\n", wall_ms / 1e3,
                wall_ms > 0 ? processed / (wall_ms / 1e3) : 0.0);
    }
}

int gf_run(const gf_options *o)
{
    job j;
    pthread_t probe, *threads = NULL;
    worker *workers = NULL;
    int rc, njobs, probing = 0, status = 0;

    memset(&j, 0, sizeof j);
    j.o = o;
    j.t_start = gf_now_ms();
    pthread_mutex_init(&j.lock, NULL);
    pthread_cond_init(&j.cond, NULL);
    if ((rc = build_list(&j)) || (rc = build_items(&j))) {
        fprintf(stderr, "gpufilt: %s\n", gf_errmsg());
        status = -rc;
        goto done;
    }
    njobs = o->jobs ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (njobs < 1)
        njobs = 1;
    if (njobs > j.n)
        njobs = j.n ? j.n : 1;
    j.gpu_state = o->backend == GF_BACKEND_CPU ? -1 : 0;
    if (o->backend != GF_BACKEND_CPU && j.n) {
        probing = pthread_create(&probe, NULL, gpu_start_main, &j) == 0;
        if (!probing)
            gpu_start_main(&j);
    }
    workers = calloc((size_t)njobs, sizeof *workers);
    threads = calloc((size_t)njobs, sizeof *threads);
    j.rgb = calloc((size_t)njobs, sizeof *j.rgb);
    if (!workers || !threads || !j.rgb) {
        fprintf(stderr, "gpufilt: out of memory\n");
        status = 70;
        goto join;
    }
    for (int i = 0; i < njobs; i++) {
        workers[i].j = &j;
        workers[i].id = i;
        workers[i].rep = calloc(1, sizeof *workers[i].rep);
        if (!workers[i].rep) {
            fprintf(stderr, "gpufilt: out of memory\n");
            status = 70;
            goto join;
        }
    }
    if (njobs == 1) {
        j.running = 1;
        worker_main(&workers[0]); /* one file, or --jobs 1: no thread */
    } else {
        int show = o->batch && !o->quiet && isatty(STDERR_FILENO);
        for (int i = 0; i < njobs; i++)
            if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) == 0)
                j.running++;
        pthread_mutex_lock(&j.lock);
        while (j.running > 0) {
            if (show) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += PROGRESS_MS * 1000000L;
                ts.tv_sec += ts.tv_nsec / 1000000000L;
                ts.tv_nsec %= 1000000000L;
                pthread_cond_timedwait(&j.cond, &j.lock, &ts);
                flockfile(stderr);
                progress(&j, 0);
                funlockfile(stderr);
            } else {
                pthread_cond_wait(&j.cond, &j.lock);
            }
        }
        pthread_mutex_unlock(&j.lock);
        for (int i = 0; i < njobs; i++)
            pthread_join(threads[i], NULL);
        if (show)
            progress(&j, 1);
    }
    for (int i = 0; i < j.n; i++)
        if (j.items[i].status > 0) {
            status = j.items[i].status; /* the earliest file's failure */
            break;
        }
    if (o->batch)
        summary(&j, gf_now_ms() - j.t_start);
join:
    if (probing)
        pthread_join(probe, NULL);
    gf_gpu_close(j.probe);
    for (int i = 0; workers && i < njobs; i++) {
        gf_gpu_close(workers[i].gpu);
        free(workers[i].rep);
    }
done:
    for (int i = 0; j.items && i < j.n; i++) {
        free(j.items[i].out);
        for (int s = 0; j.items[i].reports && s < o->nstages; s++)
            free(j.items[i].reports[s]);
        free(j.items[i].reports);
    }
    free(j.items);
    free(j.list);
    free(j.list_buf);
    free(workers);
    free(threads);
    free(j.rgb);
    pthread_mutex_destroy(&j.lock);
    pthread_cond_destroy(&j.cond);
    return status;
}
