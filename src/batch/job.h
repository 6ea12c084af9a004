/* job.h - one input file, start to end: read, decode, the pipeline, the
 * reports, encode and write; its timing report and statistics. */
#ifndef GF_JOB_H
#define GF_JOB_H

#include <stdint.h>

#include "../gpu.h"
#include "../plan.h"
#include "../report/timing.h"

/* One file of the list, with its expanded output names. */
typedef struct gf_item {
    const char *path;   /* input; "-" is stdin */
    int index;          /* 1-based position in the whole list (before --shard) */
    char *out;          /* image output, or NULL */
    char **reports;     /* per stage: report output, or NULL */
    int status;         /* exit status once done (0 ok); -1 skipped */
} gf_item;

/* What a worker keeps from file to file. */
typedef struct gf_worker gf_worker;

/* The GPU a file runs on: sets *gpu (NULL for the CPU backend) and fills
 * rep's backend fields; may wait for CUDA's start-up. Errors: GF_ENOGPU
 * when the GPU is required but unusable. */
typedef int (*gf_gpu_fn)(gf_worker *w, gf_gpu **gpu, gf_report *rep);

/* Called once the input's bytes (buf, len) are read, before they decode:
 * lets --backend auto choose the backend for a single file from the size
 * its header gives, and start CUDA only if it wants the GPU. */
typedef void (*gf_choose_fn)(gf_worker *w, const unsigned char *buf, size_t len, gf_report *rep);

/* gf_job_run's return for a file the pool's hardware decoder took: it
 * comes back through gf_job_resume. */
#define GF_JOB_PENDING (-2)

/* One file between its read and its end: what gf_job_run keeps while the
 * file waits for a JPEG hardware decoder. */
typedef struct gf_job {
    gf_item *it;
    unsigned char *buf;   /* the file's bytes (host memory), len of them */
    size_t len;
    double t_start;       /* when its run began (gf_now_ms) */
    double t_queued;      /* when it was handed to the hardware decoder */
    double t_decoded;     /* when the hardware decoder was done with it */
    gf_report rep;        /* its report so far */
    gf_stage stages[GF_MAX_STAGES + 1]; /* an --auto-orient turn, then the plan's */
    int nstages, first;   /* the stages' count; the plan's first's index */
    gf_shape shape;       /* what the JPEG decodes to: width x height, 1 or 3 channels, 8 bits */
    gf_dimage hw;         /* the hardware decoder's output, in device memory of the GPU the
                             pool queued it on, with room for every image of its stages
                             (gf_pipeline_capacity); zeroed once given back */
    int status;           /* GF_JPEG_GPU_DONE, _REFUSED or _FAILED (then the CPU decodes) */
    int slot;             /* the pool's GPU it was queued on */
    gf_meta meta;         /* the input's ICC profile and EXIF, for the output (not with
                             --strip) */
    int meta_read;        /* meta is read (once: its warnings are said once) */
    int draft_w, draft_h; /* --draft: the first --resize's size for the whole image, which
                             the JPEG decoded shrunk is resized to exactly; 0: none */
    struct gf_job *next;
} gf_job;

/* Hands job j, read, to the pool, which finishes it through gf_job_resume
 * on a worker: with j->status GF_JPEG_GPU_FAILED (a JPEG the hardware takes,
 * of j->shape) after the hardware decoder, on a worker of its GPU; with
 * GF_JPEG_GPU_REFUSED on any CPU worker, which decodes it. */
typedef void (*gf_offload_fn)(gf_worker *w, gf_job *j);

/* Gives j->hw, which the stages may have run in, back to the pool once
 * gpu's stream is done with it (gpu NULL: it was not used). */
typedef void (*gf_give_back_fn)(gf_worker *w, gf_gpu *gpu, gf_job *j);

/* The worker decoded a JPEG on the CPU: the pool may start its hardware
 * decoder. */
typedef void (*gf_jpeg_seen_fn)(gf_worker *w);

/* Encodes device image in as a JPEG on gpu (nvJPEG). Errors as gf_encode. */
typedef int (*gf_gpu_encode_fn)(gf_worker *w, gf_gpu *gpu, const gf_dimage *in, int quality,
                                unsigned char **out, size_t *len);

/* The GPU failed (why): the rest of the run uses the CPU. */
typedef void (*gf_gpu_lost_fn)(gf_worker *w, const char *why);

struct gf_worker {
    const gf_plan *plan;
    gf_gpu_fn get_gpu;
    gf_choose_fn choose;
    gf_offload_fn offload; /* a feeder of a hardware decoder; NULL: a worker */
    gf_give_back_fn give_back;
    gf_jpeg_seen_fn jpeg_seen;
    gf_gpu_encode_fn gpu_encode;
    gf_gpu_lost_fn gpu_lost;
    void *pool;          /* the pool's own state, for get_gpu */
    gf_gpu *gpu;         /* this worker's context, once it has one */
    int slot;            /* the pool's index of gpu's GPU */
    int id;
    gf_report rep;
    double t_process;    /* ms since the process started, at the first step (single runs) */
    double t_lap;        /* when the last timed step ended */
    int cpu_alone;       /* one file on the CPU: the cores are all this worker's */
};

/* 1 when a run of plan p decodes JPEGs with nvJPEG where it can: not with
 * --compare (every path from the same decoded image), nor with --draft
 * (libjpeg-turbo's scaled decode on every worker, no feeder threads). */
int gf_job_gpu_jpeg(const gf_plan *p);

/* gf_decode's flags for plan p's files: GF_DECODE_LUMA when its first stage
 * is --gray (a JPEG then gives its own Y), else 0. */
int gf_job_decode_flags(const gf_plan *p);

/* Processes it with w and returns its exit status: 0, a GF_E* code's value,
 * -1 when skipped (--skip-existing), or GF_JOB_PENDING when w->offload took
 * it. Prints "gpufilt: FILE: reason" on failure (a JSON line with
 * --timings json), the timing report, the statistics. */
int gf_job_run(gf_worker *w, gf_item *it);

/* Finishes job j, which w->offload took and the hardware decoder is done
 * with (or refused), on w (whose GPU is the one j was queued on); frees j.
 * Returns j->it's exit status as gf_job_run. */
int gf_job_resume(gf_worker *w, gf_job *j);

#endif
