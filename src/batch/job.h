/* job.h - one input file, start to end: read, decode, the pipeline, the
 * reports, encode and write; its timing report and statistics. */
#ifndef GF_JOB_H
#define GF_JOB_H

#include <stdint.h>

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

/* Decodes a JPEG (buf, len) on the GPU into *out (the pipeline's input,
 * shaped to its size and layout: one channel for its Y, three for RGB): 1
 * when done, 0 when the CPU must decode it (nvJPEG unavailable or busy, or
 * the file refused). */
typedef int (*gf_gpu_decode_fn)(gf_worker *w, const unsigned char *buf, size_t len,
                                gf_dimage *out);

/* Encodes device image in as a JPEG on gpu (nvJPEG). Errors as gf_encode. */
typedef int (*gf_gpu_encode_fn)(gf_worker *w, gf_gpu *gpu, const gf_dimage *in, int quality,
                                unsigned char **out, size_t *len);

/* The GPU failed (why): the rest of the run uses the CPU. */
typedef void (*gf_gpu_lost_fn)(gf_worker *w, const char *why);

struct gf_worker {
    const gf_plan *plan;
    gf_gpu_fn get_gpu;
    gf_choose_fn choose;
    gf_gpu_decode_fn gpu_decode;
    gf_gpu_encode_fn gpu_encode;
    gf_gpu_lost_fn gpu_lost;
    void *pool;          /* the pool's own state, for get_gpu */
    gf_gpu *gpu;         /* this worker's context, once it has one */
    int id;
    gf_report rep;
    double t_process;    /* ms since the process started, at the first step (single runs) */
    double t_lap;        /* when the last timed step ended */
    int cpu_alone;       /* one file on the CPU: the cores are all this worker's */
};

/* 1 when a run of plan p decodes JPEGs with nvJPEG where it can: not with
 * --compare (every path from the same decoded image). */
int gf_job_gpu_jpeg(const gf_plan *p);

/* gf_decode's flags for plan p's files: GF_DECODE_LUMA when its first stage
 * is --gray (a JPEG then gives its own Y), else 0. */
int gf_job_decode_flags(const gf_plan *p);

/* Processes it with w and returns its exit status: 0, a GF_E* code's value,
 * or -1 when skipped (--skip-existing). Prints "gpufilt: FILE: reason" on
 * failure (a JSON line with --timings json), the timing report, the
 * statistics. */
int gf_job_run(gf_worker *w, gf_item *it);

#endif
