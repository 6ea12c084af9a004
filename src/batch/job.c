/* job.c - one input file, start to end (job.h). */
#include "job.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../gpujpeg.h"
#include "../pipeline.h"
#include "../report/files.h"
#include "../stages/gray.h"
#include "../stages/orient.h"
#include "../stages/resize.h"
#include "../report/json.h"
#include "naming.h"

/* A step row timed from the end of the previous one, so that the rows of a
 * file's table add up to its total. */
static gf_row *lap(gf_worker *w, const char *step, const char *variant, double bytes)
{
    double now = gf_now_ms();
    gf_row *r = gf_report_step(&w->rep, step, variant, now - w->t_lap, bytes);
    w->t_lap = now;
    return r;
}

static const char *display_name(const char *path)
{
    return strcmp(path, "-") ? path : "(stdin)";
}

/* Refuses an output that is the input file (unless --force); creates the
 * directories it goes into and checks that it can be created there. */
static int check_output(const gf_plan *p, const char *input, const char *path)
{
    struct stat si, so;
    char copy[PATH_MAX];
    const char *dir;
    int rc;

    if (!path || !strcmp(path, "-"))
        return 0;
    if (strcmp(input, "-") && !p->force && stat(input, &si) == 0 && stat(path, &so) == 0 &&
        si.st_dev == so.st_dev && si.st_ino == so.st_ino)
        return gf_err(GF_EUSAGE, path, "is the input file; use --force to replace it");
    if ((rc = gf_make_dirs(path, 0)))
        return rc;
    snprintf(copy, sizeof copy, "%s", path);
    dir = dirname(copy);
    if (stat(path, &so) == 0 && !S_ISREG(so.st_mode) && !S_ISDIR(so.st_mode))
        return 0; /* a device or a FIFO is written in place */
    if (access(dir, W_OK | X_OK))
        return gf_err(GF_ECREATE, path, "cannot create: %s: %s", dir, strerror(errno));
    return 0;
}

static int exists(const char *path)
{
    struct stat st;
    return path && strcmp(path, "-") && stat(path, &st) == 0;
}

/* 1 when every output of it exists already. */
static int all_exist(const gf_plan *p, const gf_item *it)
{
    int any = 0;

    if (it->out) {
        if (!exists(it->out))
            return 0;
        any = 1;
    }
    for (int s = 0; s < p->nstages; s++)
        if (it->reports[s]) {
            if (!exists(it->reports[s]))
                return 0;
            any = 1;
        }
    return any;
}

int gf_job_gpu_jpeg(const gf_plan *p)
{
    /* --draft: every JPEG decodes shrunk on the CPU, each on the worker
     * that reads it; a feeder in front of them would be one queue for all */
    return !p->compare && !p->draft;
}

int gf_job_decode_flags(const gf_plan *p)
{
    return p->nstages > 0 && p->stages[0].ops == &gf_stage_gray ? GF_DECODE_LUMA : 0;
}

/* The label of the stage that a report at position i follows, or NULL. */
static const char *after_label(const gf_plan *p, int i, char *buf, size_t n)
{
    for (int j = i - 1; j >= 0; j--)
        if (!gf_stage_is_report(&p->stages[j]))
            return gf_stage_label(&p->stages[j], buf, n);
    return NULL;
}

/* Statistics of report stages that have them, once per point of the
 * pipeline: key=value lines on stdout with --stats, else one line of
 * information on stderr (or fields of the JSON line). */
static void print_stats(const gf_plan *p, const gf_item *it, const gf_result *results,
                        json_t *json)
{
    json_t *list = NULL;

    for (int i = 0; i < p->nstages; i++) {
        const gf_stage *s = &p->stages[i];
        gf_stat st[GF_MAX_STATS];
        char label[48];
        int n;
        if (!gf_stage_is_report(s) || !s->ops->stats || gf_stage_same_report(p->stages, i) >= 0)
            continue;
        n = s->ops->stats(s, &results[i], st);
        const char *after = after_label(p, i, label, sizeof label);
        if (p->stats) {
            flockfile(stdout); /* one block per file, whole, in a batch */
            if (p->batch)
                printf("file=%s\n", it->path);
            for (int k = 0; k < n; k++)
                printf("%s=%s\n", st[k].key, st[k].value);
            funlockfile(stdout);
        } else if (json) {
            json_t *o = json_object();
            json_object_set_new(o, "stage", json_string(s->ops->name));
            if (after)
                json_object_set_new(o, "after", json_string(after));
            for (int k = 0; k < n; k++)
                json_object_set_new(o, st[k].key, json_string(st[k].value));
            if (!list)
                list = json_array();
            json_array_append_new(list, o);
        } else if (!p->quiet) {
            /* a line per channel: keys "red.mean" go on the line "... red:" as "mean";
             * the file's lines are built in memory and written at once */
            char *text = NULL;
            size_t len = 0;
            FILE *o = open_memstream(&text, &len);
            if (!o) /* out of memory: straight to stderr, under its lock */
                flockfile(o = stderr);
            for (int k = 0; k < n; k++) {
                const char *dot = strchr(st[k].key, '.');
                const int chan = dot ? (int)(dot - st[k].key) : 0;
                if (k == 0 || (chan && strncmp(st[k].key, st[k - 1].key, (size_t)chan + 1))) {
                    if (k)
                        fputc('\n', o);
                    fprintf(o, "%s of %s%s%s%s%.*s:", s->ops->name, display_name(it->path),
                            after ? " after " : "", after ? after : "", chan ? ", " : "", chan,
                            st[k].key);
                }
                fprintf(o, " %s=%s", st[k].key + (chan ? chan + 1 : 0), st[k].value);
            }
            fputc('\n', o);
            if (o == stderr) {
                funlockfile(stderr);
            } else if (fclose(o) == 0) {
                fwrite(text, 1, len, stderr);
            }
            free(text);
        }
    }
    if (list)
        json_object_set_new(json, "stats", list);
}

/* Writes every report stage's file, timed as one step. */
static int write_reports(gf_worker *w, const gf_item *it, const gf_result *results)
{
    const gf_plan *p = w->plan;
    int rc = 0, any = 0;

    for (int i = 0; rc == 0 && i < p->nstages; i++)
        if (gf_stage_is_report(&p->stages[i]) && it->reports[i]) {
            rc = gf_report_write(&p->stages[i], &results[i], it->reports[i]);
            any = 1;
        }
    if (rc == 0 && any)
        lap(w, "reports", NULL, 0);
    return rc;
}

/* Reads the input and lets the pool choose the backend from its header
 * (a look at the header, CUDA started in its own thread: in the next lap). */
static int read_input(gf_worker *w, const gf_item *it, unsigned char **buf, size_t *len)
{
    int rc = gf_read_image(it->path, &w->plan->limits, buf, len);

    if (rc)
        return rc;
    lap(w, "read", NULL, (double)*len);
    w->choose(w, *buf, *len, &w->rep);
    return 0;
}

/* GF_DECODE_META when job j's input metadata is wanted and not yet read:
 * an image output, no --strip. */
static int meta_flag(const gf_plan *p, const gf_job *j)
{
    return j->it->out && !p->strip && !j->meta_read ? GF_DECODE_META : 0;
}

/* Keeps the metadata a decoder read (flags had GF_DECODE_META) in j. */
static void take_meta(gf_job *j, int flags, gf_load_info *info)
{
    if (!(flags & GF_DECODE_META))
        return;
    gf_meta_free(&j->meta);
    j->meta = info->meta;
    memset(&info->meta, 0, sizeof info->meta);
    j->meta_read = 1;
}

/* --draft: when job j's file is a JPEG, the size its first --resize gives
 * the whole image (turned upright first with --auto-orient) into j, and
 * the size to decode for, twice that (Pillow's draft(mode, (2w, 2h)), in the
 * file's axes), into lim. */
static int upright_op(int o);

static void draft_size(const gf_plan *p, gf_job *j, gf_limits *lim)
{
    int w, h, o, tw, th, swap;

    j->draft_w = j->draft_h = 0;
    if (!p->draft || gf_jpeg_peek(j->buf, j->len, &w, &h, &o))
        return;
    swap = p->auto_orient && upright_op(o) >= 0 && gf_orient_swaps((gf_orient_op)upright_op(o));
    if (gf_resize_size(&p->stages[0], swap ? h : w, swap ? w : h, &tw, &th) ||
        (uint64_t)tw * (uint64_t)th > p->limits.max_pixels)
        return; /* the stage refuses it, with its message, after the decode */
    j->draft_w = tw;
    j->draft_h = th;
    lim->draft_w = 2u * (uint32_t)(swap ? th : tw);
    lim->draft_h = 2u * (uint32_t)(swap ? tw : th);
}

/* Decodes job j's input on the CPU. */
static int decode_cpu(gf_worker *w, gf_job *j, gf_image *img, gf_load_info *info)
{
    const gf_plan *p = w->plan;
    const int flags = gf_job_decode_flags(p) | meta_flag(p, j);
    gf_limits lim = p->limits;
    int rc;

    draft_size(p, j, &lim);
    rc = gf_decode(display_name(j->it->path), j->buf, j->len, &lim, flags, img, info);
    if (rc == 0) {
        take_meta(j, flags, info);
        lap(w, "decode", info->format, 0);
    }
    return rc;
}

/* 1 when one of stages[0, n) turns or mirrors the image (--auto-orient's
 * turn, --rotate and the like): the output's EXIF Orientation is then 1. */
static int turns(const gf_stage *stages, int n)
{
    for (int i = 0; i < n; i++)
        if (stages[i].ops == gf_orient_stage(GF_TRANSPOSE) ||
            stages[i].ops == gf_orient_stage(GF_FLIP))
            return 1;
    return 0;
}

/* Encodes and writes the image output: from the host image, or with
 * --backend cuda and a JPEG output, by nvJPEG from the device image; with
 * the input's ICC profile and EXIF (unless --strip), readied for the
 * output's channels and, after a turn, Orientation 1 (gf_meta_prepare). */
static int save(gf_worker *w, gf_job *j, const gf_image *img, const gf_dimage *dev,
                gf_gpu *gpu)
{
    const gf_plan *p = w->plan;
    const gf_item *it = j->it;
    const int any = j->meta.icc || j->meta.exif;
    const gf_encode_opts eo = {.format = p->format,
                               .png_level = p->png_level,
                               .quality = p->jpeg_quality,
                               .compress = p->tiff_compress,
                               .lossless = p->webp_lossless,
                               .meta = any && !p->strip ? &j->meta : NULL,
                               .name = strcmp(it->out, "-") ? it->out : "(stdout)"};
    unsigned char *buf;
    size_t len;
    int rc;

    if (eo.meta)
        gf_meta_prepare(&j->meta, w->rep.out.channels, turns(j->stages, j->nstages));
    rc = dev ? w->gpu_encode(w, gpu, dev, p->jpeg_quality, &buf, &len)
             : gf_encode(img, &eo, &buf, &len);
    if (rc == 0 && dev && eo.meta && (rc = gf_jpeg_add_meta(&buf, &len, eo.meta, eo.name)))
        free(buf);
    if (rc)
        return rc;
    lap(w, "encode", dev ? "jpeg-gpu" : gf_format_name(p->format), 0);
    rc = gf_write(it->out, buf, len);
    free(buf);
    if (rc == 0)
        lap(w, "write", NULL, (double)len);
    return rc;
}

static void print_report(const gf_plan *p, gf_report *rep, json_t *json)
{
    if (p->quiet)
        return;
    if (json) {
        gf_json_line(json, stderr);
    } else if (!p->batch) {
        flockfile(stderr);
        gf_report_text(rep, stderr);
        funlockfile(stderr);
    }
}

/* The orientation op that turns an image with EXIF Orientation o upright
 * (as ImageMagick's -auto-orient), or -1 for none. */
static int upright_op(int o)
{
    static const int ops[9] = {-1, -1, GF_FLOP, GF_ROTATE180, GF_FLIP, GF_TRANSPOSE, GF_ROTATE90,
                               GF_TRANSVERSE, GF_ROTATE270};
    return o >= 1 && o <= 8 ? ops[o] : -1;
}

/* The stages this file runs: with --auto-orient and a turned JPEG, the
 * orientation stage that turns it upright, then the plan's. *first is the
 * index of the plan's first stage in stages. */
static int file_stages(const gf_plan *p, const gf_load_info *info, gf_stage *stages, int *first)
{
    int op = p->auto_orient ? upright_op(info->orientation) : -1;

    *first = op >= 0;
    if (op >= 0) {
        gf_stage_init(&stages[0], gf_orient_stage((gf_orient_op)op));
        GF_PARAMS(&stages[0], gf_orient_params)->op = (gf_orient_op)op;
    }
    memcpy(stages + *first, p->stages, (size_t)p->nstages * sizeof *stages);
    return *first + p->nstages;
}

/* The file's stages take an input of shape in, and the output format
 * holds what they give: 0, or GF_EUSAGE naming the stage or the format,
 * before any work. Sets rep's shapes. */
static int check_layouts(const gf_plan *p, const gf_item *it, const gf_stage *stages, int n,
                         const gf_shape *in, gf_report *rep)
{
    int rc = gf_stages_check(stages, n, in, &rep->out);
    gf_shape cur = *in;

    rep->in = *in;
    /* a stage that enlarges (--resize) keeps to the pixel limit too */
    for (int i = 0; rc == 0 && i < n; i++) {
        gf_stage_out_shape(&stages[i], &cur, &cur);
        if ((uint64_t)cur.width * (uint64_t)cur.height > p->limits.max_pixels)
            rc = gf_err(GF_EUSAGE, NULL,
                        "--%s: its output, %dx%d, is over the pixel limit (--max-pixels %llu)",
                        stages[i].ops->name, cur.width, cur.height,
                        (unsigned long long)p->limits.max_pixels);
    }
    if (rc == 0 && it->out)
        rc = gf_format_holds(p->format, rep->out.channels, rep->out.bits);
    if (rc) { /* the message names the stage or format; add the file */
        char msg[GF_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "%s", gf_errmsg());
        return gf_err(rc, display_name(it->path), "%s", msg);
    }
    return 0;
}

/* The GPU's JPEG encoder writes this output (--backend cuda, JPEG). */
static int encodes_on_gpu(const gf_plan *p, const gf_item *it, gf_gpu *gpu)
{
    return gpu && it->out && p->format == GF_FMT_JPEG && p->backend == GF_BACKEND_CUDA;
}

/* Most CPU work a single file's stages may have before they use more than
 * one thread: starting OpenMP's threads costs milliseconds, and its idle
 * threads spin on cores the encoder could use. */
#define ALONE_SERIAL_MS 20.0

/* One file on the CPU (nothing else runs): its stages on one thread when
 * they are that small, on every core otherwise. */
static int run_alone(gf_worker *w, const gf_item *it, gf_pipeline *pl, gf_image *img,
                     gf_image *result, int *owned, gf_result *all)
{
    const int threads = gf_cpu_threads();
    int rc;

    const gf_shape sh = gf_image_shape(img);

    if (gf_stages_cpu_ms(pl->stages, pl->nstages, &sh, 1) < ALONE_SERIAL_MS)
        gf_set_cpu_threads(1);
    rc = gf_pipeline_run(pl, NULL, img, it->out ? result : NULL, owned, NULL, &w->rep, all);
    gf_set_cpu_threads(threads);
    return rc;
}

/* The worker's GPU (NULL for the CPU). A wait for its start-up that gave
 * one has a row of its own, and the next lap starts that much later; the
 * rest of the asking (a wait that gave none too) is in the next lap. */
static int ask_gpu(gf_worker *w, gf_gpu **gpu)
{
    const int n = w->rep.steps.n;
    int rc = w->get_gpu(w, gpu, &w->rep);

    if (w->rep.steps.n > n)
        w->t_lap += gf_table_row(&w->rep.steps, n)->ms;
    return rc;
}

/* --backend auto in a batch: a file decoded on the CPU keeps to the CPU
 * when its stages cost less there, on the worker's threads, than its trip
 * to the GPU and back: the upload through pinned staging ran at about 5
 * GB/s a worker and the download at about 25 GB/s on the H100 machine
 * (docs/benchmarks.md: an RGB photo's histogram, 1.4 ms on one core, against
 * 2.5 ms of upload). */
#define UPLOAD_GBPS 5.0
#define DOWNLOAD_GBPS 25.0

static int cheaper_on_cpu(const gf_plan *p, const gf_item *it, const gf_job *j,
                          const gf_shape *in, const gf_shape *out)
{
    const double up = (double)in->width * in->height * GF_PIXEL_BYTES(in->channels, in->bits),
                 down = it->out ? (double)out->width * out->height *
                                      GF_PIXEL_BYTES(out->channels, out->bits)
                                : 0;
    return p->batch && p->backend == GF_BACKEND_AUTO && !p->gpu_forced &&
           gf_stages_cpu_ms(j->stages, j->nstages, in, gf_cpu_threads()) <
               up / (UPLOAD_GBPS * 1e6) + down / (DOWNLOAD_GBPS * 1e6);
}

/* Decodes job j's file on the CPU and runs its stages, on the GPU when the
 * worker has one (with use_gpu 0 on the CPU). The GPU is asked for once the
 * file is decoded, so a file that is not an image fails before any GPU
 * start-up. *gpu is the GPU used or NULL; *result is the image to encode
 * (owned when *owned), or *dev the device image the GPU's encoder reads. */
static int run_file(gf_worker *w, gf_job *j, int use_gpu, gf_gpu **gpu, gf_result *all,
                    gf_image *result, int *owned, gf_dimage *dev)
{
    const gf_plan *p = w->plan;
    const gf_item *it = j->it;
    gf_pipeline pl = {.stages = j->stages, .compare = p->compare};
    gf_image img = {0};
    gf_load_info info;
    gf_shape sh;
    int rc;

    *gpu = NULL;
    memset(dev, 0, sizeof *dev);
    if ((rc = decode_cpu(w, j, &img, &info)))
        return rc;
    sh = gf_image_shape(&img);
    if (info.format && !strcmp(info.format, "jpeg") && w->jpeg_seen && use_gpu)
        w->jpeg_seen(w);
    pl.nstages = j->nstages = file_stages(p, &info, j->stages, &j->first);
    if (j->draft_w) /* the JPEG decoded shrunk: its resize to the whole image's size */
        gf_resize_set_size(&j->stages[j->first], j->draft_w, j->draft_h);
    if ((rc = check_layouts(p, it, j->stages, pl.nstages, &sh, &w->rep)) == 0 && use_gpu &&
        cheaper_on_cpu(p, it, j, &sh, &w->rep.out)) {
        use_gpu = 0;
        snprintf(w->rep.why, sizeof w->rep.why,
                 "auto: decoded on the CPU, whose stages cost less than the GPU's transfers");
    }
    if (rc || (use_gpu && (rc = ask_gpu(w, gpu)))) {
        gf_image_free(&img);
        return rc;
    }
    if (!*gpu) /* the stages' rows go on from the decode's */
        pl.lap = &w->t_lap;
    if (*gpu || !w->cpu_alone)
        return gf_pipeline_run(&pl, *gpu, &img,
                               it->out && !encodes_on_gpu(p, it, *gpu) ? result : NULL, owned,
                               *gpu ? dev : NULL, &w->rep, all);
    return run_alone(w, it, &pl, &img, result, owned, all);
}

/* The stages of job j on gpu in the hardware decoder's output buffer. */
static int run_decoded(gf_worker *w, gf_job *j, gf_gpu *gpu, gf_result *all, gf_image *result,
                       gf_dimage *dev)
{
    const gf_plan *p = w->plan;
    gf_pipeline pl = {.stages = j->stages, .nstages = j->nstages};

    memset(dev, 0, sizeof *dev);
    return gf_pipeline_run_device(&pl, gpu, &j->hw,
                                  j->it->out && !encodes_on_gpu(p, j->it, gpu) ? result : NULL,
                                  dev, &w->rep, all);
}

/* Job j's decode and stages (from the hardware decoder's output when it has
 * one, else decoding on the CPU), with a GPU that fails retried on the CPU,
 * then its reports, output, statistics and timing report; frees j and
 * returns its exit status. rc: an error already met. */
static int finish(gf_worker *w, gf_job *j, int rc)
{
    const gf_plan *p = w->plan;
    gf_item *it = j->it;
    gf_report *rep = &w->rep;
    gf_result all[GF_MAX_STAGES + 1], *results;
    gf_image result = {0};
    gf_dimage dev = {0};
    gf_gpu *gpu = NULL;
    json_t *json = NULL;
    const char *name = display_name(it->path);
    int owned = 0;

    memset(all, 0, sizeof all);
    for (int s = 0; s < GF_MAX_STAGES + 1; s++)
        all[s].input = name;
    if (rc == 0 && j->status == GF_JPEG_GPU_DONE && j->hw.data) {
        /* on the GPU that decoded it; a worker of another decodes it again */
        if ((rc = ask_gpu(w, &gpu)) == 0 && gpu && w->slot == j->slot)
            rc = run_decoded(w, j, gpu, all, &result, &dev);
        else if (rc == 0)
            rc = run_file(w, j, 1, &gpu, all, &result, &owned, &dev);
    } else if (rc == 0) {
        rc = run_file(w, j, 1, &gpu, all, &result, &owned, &dev);
    }
    if (rc == GF_EINTERNAL && gpu && !p->compare && p->backend != GF_BACKEND_CUDA) {
        /* a GPU that failed (a CUDA error, device memory): no more of this
         * GPU for this run, and this file again on the CPU */
        char msg[GF_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "%s", gf_errmsg());
        w->gpu_lost(w, msg);
        gpu = NULL;
        memset(rep->steps.rows, 0, sizeof rep->steps.rows);
        rep->steps.n = 0;
        rep->backend = "cpu";
        rep->device[0] = 0;
        snprintf(rep->why, sizeof rep->why, "the GPU failed: %.150s", msg);
        for (int s = 0; s < GF_MAX_STAGES + 1; s++) {
            free(all[s].vals);
            all[s].vals = NULL;
        }
        w->t_lap = gf_now_ms();
        rc = run_file(w, j, 0, &gpu, all, &result, &owned, &dev);
    }
    free(j->buf);
    j->buf = NULL;
    if (gpu) /* its rows are CUDA events: the next lap starts now */
        w->t_lap = gf_now_ms();
    results = all + j->first; /* the plan's stages' results */
    if (rc == 0)
        rc = write_reports(w, it, results);
    if (rc == 0 && it->out)
        rc = save(w, j, &result, encodes_on_gpu(p, it, gpu) ? &dev : NULL, gpu);
    if (j->hw.data) /* the result is downloaded or encoded: the buffer is free */
        w->give_back(w, gpu, j);
    if (rc == 0 || (p->compare && rep->compare.n)) {
        gf_report_step(rep, "total", NULL, w->t_lap - j->t_start + w->t_process, 0);
        rep->done_ms = gf_now_ms() - gf_process_t0;
        if (p->timings == GF_TIMINGS_JSON)
            json = gf_report_json(rep);
        if (rc == 0)
            print_stats(p, it, results, json);
        print_report(p, rep, json);
        json_decref(json);
        json = NULL;
    }
    if (rc) {
        char msg[GF_ERRMSG_MAX];
        snprintf(msg, sizeof msg, "%s", gf_errmsg());
        if (p->timings == GF_TIMINGS_JSON && !p->quiet) {
            json = json_pack("{s:s,s:i,s:s}", "input", name, "status", -rc, "error", msg);
            gf_json_line(json, stderr);
            json_decref(json);
        }
        fprintf(stderr, "gpufilt: %s\n", msg);
    }
    for (int s = 0; s < GF_MAX_STAGES + 1; s++)
        free(all[s].vals);
    if (owned)
        gf_image_free(&result);
    gf_meta_free(&j->meta);
    free(j);
    return -rc;
}

/* A feeder of a hardware decoder (w->offload set) hands job j, read, on:
 * to the decoder when its file is a JPEG the decoder takes, else to the CPU
 * workers. 1 when handed on; 0 otherwise, with an error in its layouts in
 * *rc. */
static int offload(gf_worker *w, gf_job *j, int *rc)
{
    const gf_plan *p = w->plan;
    gf_load_info info;
    const int flags = gf_job_decode_flags(p) | meta_flag(p, j);
    gf_limits lim = p->limits;
    int subsamp;

    if (!w->offload)
        return 0;
    j->status = GF_JPEG_GPU_REFUSED;
    draft_size(p, j, &lim); /* --draft: the hardware decoder refuses it; the CPU shrinks it */
    if (gf_jpeg_gpu_candidate(display_name(j->it->path), j->buf, j->len, &lim, flags,
                              &j->shape.width, &j->shape.height, &subsamp, &info)) {
        take_meta(j, flags, &info);
        j->shape.channels = info.channels;
        j->shape.bits = 8;
        j->nstages = file_stages(p, &info, j->stages, &j->first);
        if ((*rc = check_layouts(p, j->it, j->stages, j->nstages, &j->shape, &w->rep)))
            return 0;
        j->status = GF_JPEG_GPU_FAILED; /* until the decoder says */
    }
    j->rep = w->rep; /* before another worker may resume it */
    j->t_queued = gf_now_ms();
    w->offload(w, j);
    return 1;
}

int gf_job_run(gf_worker *w, gf_item *it)
{
    const gf_plan *p = w->plan;
    gf_report *rep = &w->rep;
    gf_job *j;
    int rc;

    if (p->skip_existing && all_exist(p, it))
        return -1;
    memset(rep, 0, sizeof *rep);
    rep->input = display_name(it->path);
    rep->backend = "cpu";
    if (!(j = calloc(1, sizeof *j))) {
        fprintf(stderr, "gpufilt: %s: out of memory\n", rep->input);
        return -GF_EINTERNAL;
    }
    j->it = it;
    j->t_start = w->t_lap = gf_now_ms();
    if (w->t_process > 0)
        gf_report_step(rep, "start-up", NULL, w->t_process, 0);
    rc = check_output(p, it->path, it->out);
    for (int s = 0; rc == 0 && s < p->nstages; s++)
        rc = check_output(p, it->path, it->reports[s]);
    if (rc == 0 && (rc = read_input(w, it, &j->buf, &j->len)) == 0 && offload(w, j, &rc))
        return GF_JOB_PENDING;
    return finish(w, j, rc);
}

int gf_job_resume(gf_worker *w, gf_job *j)
{
    w->rep = j->rep;
    w->t_lap = j->t_queued;
    if (j->status == GF_JPEG_GPU_DONE)
        lap(w, "decode", "jpeg-gpu", 0); /* its wait in the queue, and the batch */
    else
        lap(w, "queue", NULL, 0); /* its wait for a CPU worker */
    return finish(w, j, 0);
}
