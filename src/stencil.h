/* stencil.h - the neighbourhood-stage framework: what every stage that reads
 * a window around each pixel (box mean, Gaussian, median, morphology, edges,
 * convolution, unsharp mask) shares, on the CPU. Its CUDA half is
 * cuda/stencil.cuh.
 *
 * A stencil stage gives its window (kw x kh pixels, both odd) and its rule,
 * either one 2-D rule over the window or, when separable, a row rule and a
 * column rule. The framework owns everything else: the border (--border,
 * border.h), the layouts (C1-C4 x 8/16-bit, every channel alike, alpha
 * included), the rows and the threads. The rule never sees a border.
 *
 * The CPU driver is OpenCV's FilterEngine in shape (imgproc/src/filter.
 * dispatch.cpp): each thread takes a band of output rows and feeds the input
 * rows through a ring buffer. A row enters the ring padded with kw/2 border
 * pixels each side, or, for a separable stage, as the row rule's output;
 * the column rule then makes each output row from the kh ring rows of its
 * window. Because every input row a thread reads is copied into its ring
 * (and the few rows that another band owns are copied before any band
 * writes), the driver can write the result over its input: a stage's
 * cpu_in_place needs no second image. */
#ifndef GF_STENCIL_H
#define GF_STENCIL_H

#include "border.h"
#include "gf.h"
#include "stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest window side any stencil stage takes (the Gaussian's 127). */
#define GF_STENCIL_MAX_SIDE 127

/* The start of every stencil stage's parameters (gf_stage.params): the
 * border and the window. A stage's own parameters follow it. */
typedef struct gf_stencil_params {
    gf_border border; /* how the window reads outside the image */
    int kw, kh;       /* window width and height in pixels, odd, >= 1 */
} gf_stencil_params;

/* The --border setting, shared by every stencil stage (each lists it among
 * its options; the command line keeps one): replicate (the default),
 * reflect101, constant (0) or constant=V. */
int gf_stencil_parse_border(gf_stage *s, const char *arg);
#define GF_STENCIL_BORDER_OPT                                                                 \
    {"border", "MODE",                                                                        \
     "how the neighbourhood stages read outside the image: replicate (default), reflect101, " \
     "constant[=V]",                                                                          \
     GF_OPT_SETTING, gf_stencil_parse_border}

/* Parses a window "K" (K x K) or "WxH" for option opt (its name with the
 * dashes, for messages): W and H odd, in [lo, hi]. Returns 0 with *kw, *kh
 * set, or GF_EUSAGE: "--mean: size must be K or WxH, odd, 1..63, not '4'". */
int gf_stencil_parse_window(const char *opt, const char *arg, int lo, int hi, int *kw, int *kh);

/* Stage check for every stencil stage: a constant border's value must be a
 * sample of the image (0..255 for 8-bit). Returns 0 or GF_EUSAGE. */
int gf_stencil_check(const gf_stage *s, const gf_shape *in);

/* Sample c of pixel (x, y) of the padded image that border b defines, for
 * any x, y (host memory): what every gold reference reads. */
static inline unsigned gf_stencil_at(const gf_image *im, int x, int y, int c, gf_border b)
{
    const int xx = gf_border_index(x, im->width, b.mode), yy = gf_border_index(y, im->height, b.mode);
    return xx < 0 || yy < 0 ? (unsigned)b.value : gf_sample(im, xx, yy, c);
}

/* One run of the CPU driver: the stage, its per-run data and the image's
 * shape. Row and column rules read it. */
typedef struct gf_stencil_job {
    const gf_stage *s; /* the stage, or NULL */
    const void *ctx;   /* the stage's own data for this run (weights), or NULL */
    int width, height; /* the image, in pixels */
    int channels, bits;
    int kw, kh;        /* the window */
    gf_border border;  /* how it reads outside the image */
    size_t n;          /* samples a row: width * channels */
} gf_stencil_job;

/* A stage's CPU rules for the driver (all host memory).
 *   row: from `padded`, one input row with kw/2 border pixels each side
 *     ((width + kw - 1) * channels samples of the image's type, sample c of
 *     pixel x at (x + kw/2) * channels + c), writes the row rule's n values
 *     of ring_bytes each to `ring`. NULL: the ring keeps the padded rows.
 *   col: output row (n samples of the image's type, `out`) from the kh ring
 *     rows of its window, win[0] the top one, and `src`, the same row of the
 *     input (n samples; out itself when the driver runs in place, which a
 *     stage that reads src must not ask for). `gone` is the ring row that
 *     left the window since the last call and `acc` a scratch row of
 *     n * acc_bytes bytes that the driver keeps between calls, for stages
 *     that slide a sum down the rows; both only where first == 0 (the first
 *     row of a band has first == 1 and gone == NULL). */
typedef struct gf_stencil_cpu {
    void (*row)(const gf_stencil_job *j, const unsigned char *padded, void *ring);
    size_t ring_bytes;
    void (*col)(const gf_stencil_job *j, const void *const *win, const void *gone,
                const unsigned char *src, unsigned char *out, void *acc, int first);
    size_t acc_bytes;
} gf_stencil_cpu;

/* Runs rules r over in -> out (host memory, the same width x height and
 * layout, any strides) with j's window and border, over bands of rows on the CPU threads (OpenMP) where
 * the image is large enough (GF_PARALLEL). out may be in itself (the same
 * data and stride): the result then replaces the input. Every sample of
 * out is written. Returns 0, or GF_EINTERNAL when out of memory or for
 * mismatched shapes. */
int gf_stencil_cpu_run(const gf_stencil_cpu *r, const gf_stencil_job *j, const gf_image *in,
                       gf_image *out);

/* A job for stage s on an image of in's shape, with data ctx, the window
 * and border of s's gf_stencil_params. */
gf_stencil_job gf_stencil_job_of(const gf_stage *s, const void *ctx, const gf_image *in);

#ifdef __cplusplus
}
#endif

#endif
