/* stage.h - what a pipeline stage is. Each kind of stage is one
 * gf_stage_ops descriptor in its own file under src/stages/, listed once in
 * src/stages/registry.c; the command line, --help, the pipeline, make
 * test-gpu and gpufilt bench all read it from there.
 *
 * A stage either turns an image into an image (box mean, threshold,
 * orientation) or reports on it (histogram, projection profiles), passing it
 * on unchanged. Its parameters are its own: they live in gf_stage.params,
 * which only the stage's file (and its .cu file) interprets. */
#ifndef GF_STAGE_H
#define GF_STAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gf.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Build with CUDA (the default) or without (make CUDA=0): launchers named
 * with GF_CUDA() are NULL in a CPU-only build. */
#ifndef GF_HAVE_CUDA
#define GF_HAVE_CUDA 1
#endif
#if GF_HAVE_CUDA
#define GF_CUDA(fn) fn
#else
#define GF_CUDA(fn) NULL
#endif

typedef struct gf_stage gf_stage;
typedef struct gf_stage_ops gf_stage_ops;
struct json_t;

/* Bytes of a stage's own parameters (gf_stage.params). */
#define GF_STAGE_PARAMS 1024

/* A stage's parameters as its own type T: GF_PARAMS(s, T) for reading and
 * writing. Each stage file checks sizeof(T) <= GF_STAGE_PARAMS. */
#define GF_PARAMS(s, T) ((T *)(void *)(s)->params.bytes)
#define GF_CPARAMS(s, T) ((const T *)(const void *)(s)->params.bytes)

/* How a report stage's plot looks (report modifiers, set per stage). */
typedef struct gf_report_mods {
    int log;            /* histogram: log10(1 + count) scale */
    int plot_w, plot_h; /* plot size in pixels; 0: the default */
} gf_report_mods;

/* One use of a stage on the command line. */
struct gf_stage {
    const gf_stage_ops *ops;
    int variant;         /* index into ops->variants; -1: the default for the device and size */
    const char *path;    /* report stages: output file or template ("-": stdout); NULL: none */
    gf_report_mods mods; /* report stages */
    union {
        long double align_;
        void *ptr_;
        unsigned char bytes[GF_STAGE_PARAMS];
    } params;
};

/* A CUDA launcher: stage s on in (device) into out (device). Image stages
 * set out's shape and layout (capacity already large enough); report stages
 * write report_len() 32-bit values at out->data, zeroing them first where
 * they accumulate. Every launcher takes every layout its stage accepts. Launches on `stream` (a cudaStream_t) without waiting, checks
 * the launch, and returns 0 or GF_EINTERNAL. */
typedef int (*gf_launch_fn)(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                            void *stream);

/* A kernel variant: its name (--variant NAME) and launcher (NULL without
 * CUDA). Variant 0 is the baseline that --compare and bench measure the
 * others against. */
typedef struct gf_variant {
    const char *name;
    gf_launch_fn launch;
} gf_variant;

/* The default variant where no --variant is given: the first row whose
 * compute capability (major * 10 + minor) and pixel count are at least its
 * minimums; the table ends with a row of variant NULL. */
typedef struct gf_default {
    int min_cc;
    uint64_t min_pixels;
    const char *variant;
} gf_default;

/* How a command-line option of a stage acts. */
typedef enum gf_opt_kind {
    GF_OPT_ADD = 0, /* adds a stage at this point of the pipeline: --mean 5 */
    GF_OPT_SETTING, /* applies to every stage of this kind, wherever given: --border */
    GF_OPT_MODIFIER /* applies to the report stages given after it: --hist-log */
} gf_opt_kind;

/* A long option that a stage owns. parse() fills s from the argument
 * (optarg; NULL for a flag, and for an optional value that is absent): for
 * GF_OPT_ADD a zeroed stage whose ops is this descriptor, which parse may
 * replace by a sibling (--rotate 180 is a mirror); otherwise the stage to
 * change, for which parse returns 1 when the option does not apply to it.
 * Errors: GF_EUSAGE with a message. */
typedef struct gf_stage_opt {
    const char *name; /* "mean" for --mean */
    /* The argument's name in --help ("3|5"); NULL: a flag. A name in
     * brackets ("[LOW[,HIGH]]") makes the value optional: it is the next
     * word when that word starts with a digit, '.' or ',', or with '-' and
     * a digit, or what follows '=' (--opt=VALUE); see src/cli.c. */
    const char *arg;
    const char *help; /* one line for --help */
    gf_opt_kind kind;
    int (*parse)(gf_stage *s, const char *arg);
} gf_stage_opt;

/* A report stage's result: n 32-bit values (host memory) about the image
 * of shape `shape` it saw. */
typedef struct gf_result {
    const char *input; /* the input's name, for titles and messages */
    gf_shape shape;
    size_t n;
    uint32_t *vals;
} gf_result;

/* A series of a report plot. */
typedef struct gf_plot_series {
    const char *name;     /* legend entry, or NULL for none */
    const uint32_t *vals; /* plot->n values, host memory */
    unsigned char rgb[3];
    int bars; /* 1: bars from 0; 0: a line */
} gf_plot_series;

#define GF_PLOT_MAX_SERIES 4
#define GF_PLOT_W 800 /* default plot size in pixels */
#define GF_PLOT_H 450
#define GF_PLOT_MIN_SIDE 200 /* --plot-size limits */
#define GF_PLOT_MAX_SIDE 8000

/* What a report stage plots: series over an index axis. */
typedef struct gf_plot {
    size_t n; /* values per series, >= 1 */
    gf_plot_series series[GF_PLOT_MAX_SERIES];
    int nseries;
    int log;                  /* y is log10(1 + v) */
    int x_max;                /* the x axis runs from 0 to x_max (n - 1 unless set) */
    char title[256];
    const char *x_title, *y_title;
    int width, height;        /* pixels; 0: the default */
    uint32_t *owned[GF_PLOT_MAX_SERIES]; /* arrays plot() made for its series (malloc'd,
                                            freed after drawing), or NULL */
} gf_plot;

/* One line of key=value statistics a report stage prints per image. */
typedef struct gf_stat {
    char key[24];
    char value[32];
} gf_stat;
#define GF_MAX_STATS 64

struct gf_stage_ops {
    const char *name;          /* the stage's name: "mean"; also its --compare label base */
    const char *group;         /* gpufilt bench experiment that runs it: "mean", "transpose" */
    const gf_stage_opt *opts;  /* its command-line options, ending with {NULL} */
    const gf_variant *variants; /* CUDA variants, ending with {NULL}; [0] the baseline */
    /* The names of its inexact variants, ending with NULL (NULL: none): by
     * design not bit-exact (texture filtering's 8-bit fractions), so that
     * --compare, gpufilt bench and make test-gpu report their difference
     * from the gold (the largest, and the count of samples that differ)
     * instead of failing them; never a default, never the baseline. */
    const char *const *inexact;
    const gf_default *defaults; /* default variant by device and size */
    /* The layouts it takes (GF_LAYOUT_BIT()s; 0: all eight). Every path,
     * CPU and CUDA, takes every one of them. */
    unsigned layouts;
    /* What else its parameters ask of an input of shape in (threshold's
     * Otsu wants one channel): 0, or GF_EUSAGE with a message that names the
     * stage and says what to do. NULL: nothing. */
    int (*check)(const gf_stage *s, const gf_shape *in);
    /* 1 when s leaves an input of shape in as it is (--gray of a gray
     * image): the pipeline then skips it. NULL: never. */
    int (*unchanged)(const gf_stage *s, const gf_shape *in);

    /* The label in timing tables ("mean 5"), at most n bytes. */
    void (*label)(const gf_stage *s, char *buf, size_t n);
    /* Output shape for an input of shape in; NULL: the same. */
    void (*out_shape)(const gf_stage *s, const gf_shape *in, gf_shape *out);
    /* The CPU path's time in ns per input byte on one thread (measured,
     * docs/benchmarks.md), for --backend auto's choice of backend. */
    double cpu_cost;
    /* Where the cost depends on the parameters (a window's size): the same
     * for s on an input of shape in; NULL: cpu_cost. */
    double (*cpu_cost_of)(const gf_stage *s, const gf_shape *in);
    /* Bytes the stage must move through device memory for an input of
     * shape in (its floor); NULL: the input read once and the output written
     * once (report stages: read once). */
    double (*floor_bytes)(const gf_stage *s, const gf_shape *in);

    /* Image stages. gold: the plain CPU reference, the result every other
     * path must equal bit for bit; in (host) -> *out (host, allocated by the
     * caller at gf_stage_out_shape, every pixel written here). cpu: the CPU
     * backend's fast path with the same contract, or NULL to run gold.
     * Errors: GF_EINTERNAL (out of memory). */
    int (*gold)(const gf_stage *s, const gf_image *in, gf_image *out);
    int (*cpu)(const gf_stage *s, const gf_image *in, gf_image *out);
    /* Optional, for stages whose output has the input's shape: cpu's result
     * written over img itself (host), so that no output buffer is
     * allocated and faulted in; the CPU backend's pipeline takes it where
     * nothing else needs the input. Errors as cpu's. */
    int (*cpu_in_place)(const gf_stage *s, gf_image *img);

    /* Report stages: report_len values about an image of shape in;
     * report_gold and report_cpu as gold and cpu, into vals (host,
     * report_len values). */
    size_t (*report_len)(const gf_stage *s, const gf_shape *in);
    int (*report_gold)(const gf_stage *s, const gf_image *in, uint32_t *vals);
    int (*report_cpu)(const gf_stage *s, const gf_image *in, uint32_t *vals);
    /* The report as CSV rows (header included) on f, as a JSON object (a
     * jansson json_t *, new reference), and as a plot; stats (may be NULL)
     * gives the key=value statistics printed per image, returning their
     * count. */
    void (*write_csv)(const gf_stage *s, const gf_result *r, FILE *f);
    struct json_t *(*to_json)(const gf_stage *s, const gf_result *r);
    void (*plot)(const gf_stage *s, const gf_result *r, gf_plot *p);
    int (*stats)(const gf_stage *s, const gf_result *r, gf_stat *out);

    /* Test and bench configurations: fills s (a zeroed stage whose ops is
     * this descriptor) with configuration i and returns 1, or returns 0 past
     * the last. bench != 0 asks for the bench rows only. rng seeds any
     * random parameter (gf_rand). make test-gpu runs every configuration on
     * images of awkward sizes; gpufilt bench the bench ones. */
    int (*config)(gf_stage *s, int i, int bench, uint64_t *rng);
    /* make test-gpu runs only the test configurations below this index on
     * images of GF_TEST_LARGE_PIXELS or more, where the gold reference of
     * the others (large windows) would take minutes; 0: every one. */
    int large_configs;
};

#define GF_TEST_LARGE_PIXELS 4000000

/* The registry: every kind of stage, ending with NULL (src/stages/registry.c). */
extern const gf_stage_ops *const gf_stages[];

/* The registered stage named `name`, or NULL. */
const gf_stage_ops *gf_stage_find(const char *name);

/* 1 when s reports (the image passes unchanged). */
static inline int gf_stage_is_report(const gf_stage *s)
{
    return s->ops->report_len != NULL;
}

/* Sets *s to a zeroed stage of ops with the default variant. */
void gf_stage_init(gf_stage *s, const gf_stage_ops *ops);

/* Index of variant `name` in ops->variants, or -1. */
int gf_stage_variant_index(const gf_stage_ops *ops, const char *name);

/* Number of variants of ops. */
int gf_stage_nvariants(const gf_stage_ops *ops);

/* 1 when variant v of ops is inexact (ops->inexact names it), else 0. */
int gf_stage_variant_inexact(const gf_stage_ops *ops, int v);

/* The variant s runs on a device of compute capability cc (major * 10 +
 * minor) for an input of shape in: s->variant when set, else the first
 * matching row of ops->defaults (pixels counted as width x height) unless it
 * names an inexact variant, else 0. */
int gf_stage_pick(const gf_stage *s, int cc, const gf_shape *in);

/* Output shape of s for an input of shape in (out may be in). */
void gf_stage_out_shape(const gf_stage *s, const gf_shape *in, gf_shape *out);

/* 0 when s takes an input of shape in: a layout it declares, and what its
 * check asks. Otherwise GF_EUSAGE with a message naming the stage and the
 * layout. */
int gf_stage_accepts(const gf_stage *s, const gf_shape *in);

/* 1 when s leaves an input of shape in unchanged (the pipeline skips it). */
int gf_stage_unchanged(const gf_stage *s, const gf_shape *in);

/* The n stages at s in order, from an input of shape in: 0 with *out the
 * final shape (out may be NULL) when every stage takes what the one before
 * gives it, else the first refusal (gf_stage_accepts). */
int gf_stages_check(const gf_stage *s, int n, const gf_shape *in, gf_shape *out);

/* What s's CPU path should take on `threads` threads for an input of shape
 * in, in ms (from cpu_cost). */
double gf_stage_cpu_ms(const gf_stage *s, const gf_shape *in, int threads);

/* The same for the n stages at s, in order, from an input of shape in. */
double gf_stages_cpu_ms(const gf_stage *s, int n, const gf_shape *in, int threads);

/* The earlier report stage among stages[0..i) whose values report stage i
 * repeats (the same kind, no image stage between them), or -1. */
int gf_stage_same_report(const gf_stage *stages, int i);

/* Bytes s must move through device memory for an input of shape in. */
double gf_stage_bytes(const gf_stage *s, const gf_shape *in);

/* The timing-table label of s, in buf (n bytes). */
const char *gf_stage_label(const gf_stage *s, char *buf, size_t n);

/* Runs the CPU path of s (fast, or gold when gold != 0) on in: an image
 * stage fills *out (allocated here at gf_stage_out_shape, freed on error); a
 * report stage fills *vals (malloc'd, *n values; vals and n may be NULL for
 * an image stage). Errors: GF_EINTERNAL. */
int gf_stage_run_cpu(const gf_stage *s, int gold, const gf_image *in, gf_image *out,
                     uint32_t **vals, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
