/* plan.h - what a command line asks for: the inputs, the outputs, the
 * stages in order and how to run them. src/cli.c builds it; src/batch/
 * carries it out. */
#ifndef GF_PLAN_H
#define GF_PLAN_H

#include "codec/codec.h"
#include "stage.h"

#define GF_MAX_STAGES 64
#define GF_MAX_DEVICES 16 /* GPUs one process uses */

typedef enum gf_backend { GF_BACKEND_AUTO = 0, GF_BACKEND_CUDA, GF_BACKEND_CPU } gf_backend;
typedef enum gf_timings { GF_TIMINGS_TEXT = 0, GF_TIMINGS_JSON } gf_timings;

typedef struct gf_plan {
    /* inputs */
    char **inputs;          /* the operands; "-" is stdin (a single input only) */
    int ninputs;
    const char *files_from; /* --files-from: a file of paths ("-": stdin), or NULL */
    int files_null;         /* -0/--null: --files-from names end with NUL, not newline */
    int shard_k, shard_n;   /* --shard K/N (1 <= K <= N); 0/0 for all */
    int batch;              /* several inputs, or --files-from: templates, summary */
    /* outputs */
    const char *output;     /* image output: path or template, "-" stdout; NULL: none */
    int output_dir;         /* output names a directory */
    gf_format format;       /* of the image output */
    int png_level;          /* 0..12 */
    int jpeg_quality;       /* 1..100: JPEG and lossy WebP */
    int webp_lossless;      /* --lossless: WebP output lossless */
    int tiff_compress;      /* --compress: a gf_tiff_compress */
    int strip;              /* --strip: no ICC profile or EXIF written */
    int draft;              /* --draft: JPEG inputs shrink on load for the first --resize */
    int force;              /* allow an output that is the input */
    int skip_existing;      /* skip inputs whose outputs all exist */
    int dry_run;            /* list what would be read and written, do nothing */
    /* stages */
    gf_stage stages[GF_MAX_STAGES]; /* in the order of their options */
    int nstages;
    int auto_orient;        /* apply the EXIF orientation first */
    /* running */
    gf_backend backend;
    int gpu_forced;         /* --backend cuda, --compare, --shared, --no-shared, --variant:
                               the GPU is used (and waited for) whenever there is one */
    int devices[GF_MAX_DEVICES]; /* --device N[,M...]: GPU numbers, distinct, in order */
    int ndevices;           /* 0: the default, every GPU for a batch, GPU 0 otherwise */
    int all_devices;        /* --device all */
    int jobs;               /* CPU workers; 0: one per core */
    int compare;            /* time and check every variant */
    gf_limits limits;
    /* reporting */
    int quiet;
    int stats;              /* histogram statistics as key=value lines on stdout */
    gf_timings timings;
} gf_plan;

#endif
