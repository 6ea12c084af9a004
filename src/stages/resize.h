/* resize.h - the resize stage: --resize GEOMETRY with --filter NAME, the
 * resampling of Pillow's Image.resize (libImaging/Resample.c, as Pillow 9.4
 * runs it), bit for bit. Shared by src/stages/resize.c (options, the
 * coefficients, the CPU paths) and cuda/resize.cu.
 *
 * The rule, per axis whose size changes (the row pass first, then the
 * column pass, as Pillow 9.4 always does):
 *   scale = in / out; filterscale = max(scale, 1); support = the filter's
 *   support (box 0.5, bilinear and hamming 1, bicubic 2, lanczos 3) x
 *   filterscale. Output pixel i has centre c = (i + 0.5) x scale, sources
 *   from (int)(c - support + 0.5) (at least 0) to (int)(c + support + 0.5)
 *   (at most in), exclusive, weighted by filter((j - c + 0.5) / filterscale)
 *   and normalised to sum to 1 (in double precision).
 *   8 bits: the weights in fixed point with 22 fractional bits (rounded
 *   half away from zero), sums started at 2^21, the result
 *   clamp(sum >> 22, 0, 255); the row pass's result is 8-bit too.
 *   16 bits: each channel as Pillow's mode I: double sums in source order,
 *   rounded half away from zero to an integer between the passes (not
 *   clamped), and clamped to 0..65535 at the end.
 *   Gray+alpha and RGBA at 8 bits are premultiplied first (v x a / 255 as
 *   Pillow's MULDIV255: t = v a + 128, ((t >> 8) + t) >> 8), resampled, and
 *   divided back (min(255, 255 v / a), truncated, unless a is 0 or 255), as
 *   Pillow's modes La and RGBa. 16-bit alpha is a channel like the others.
 *   nearest: Pillow's affine nearest scaling: the source position of
 *   output column i is the double sum 0.5 s + s + s + ... (i times,
 *   s = in / out), truncated; the same for rows; no premultiplying.
 *   A resize to the same size is a copy, whatever the filter.
 * The arithmetic is compiled without contracting multiply-adds (Makefile:
 * -ffp-contract=off; the CUDA kernels use __dmul_rn / __dadd_rn), as
 * Pillow's x86-64 build computes it. */
#ifndef GF_RESIZE_H
#define GF_RESIZE_H

#include <stdint.h>

#include "../border.h" /* GF_HD */
#include "../geometry.h"
#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The resampling filters, in --filter's order. */
typedef enum gf_resize_filter {
    GF_FILTER_NEAREST = 0,
    GF_FILTER_BOX,
    GF_FILTER_BILINEAR,
    GF_FILTER_HAMMING,
    GF_FILTER_BICUBIC,
    GF_FILTER_LANCZOS,
    GF_FILTER_COUNT
} gf_resize_filter;

/* --filter's names, indexed by gf_resize_filter. */
extern const char *const gf_resize_filter_names[GF_FILTER_COUNT];

/* The stage's parameters (gf_stage.params). */
typedef struct gf_resize_params {
    gf_geometry geom;
    gf_resize_filter filter; /* default lanczos */
    char text[48];           /* the geometry as given, for labels */
} gf_resize_params;

/* Fixed-point fraction bits of the 8-bit weights (Pillow's PRECISION_BITS:
 * 8 bits of result, 2 of headroom for filters with negative lobes). */
#define GF_RESIZE_BITS 22

/* One axis's resampling from `in` to `out` pixels (host memory): output
 * pixel i reads `count[i]` sources from first[i], with weights
 * k[i * ksize + j] (double) and k8[i * ksize + j] (22-bit fixed point);
 * for nearest, only src[i] (the source index, or -1 where Pillow writes 0). */
typedef struct gf_resize_axis {
    int in, out, ksize;
    int *first, *count;
    double *k;
    int32_t *k8;
    int *src;
} gf_resize_axis;

/* Fills a for in -> out pixels (both >= 1) with filter f. Errors:
 * GF_EINTERNAL (out of memory), a zeroed a. */
int gf_resize_axis_init(gf_resize_axis *a, int in, int out, gf_resize_filter f);
void gf_resize_axis_free(gf_resize_axis *a);

/* v (0..255) premultiplied by alpha a (0..255), Pillow's MULDIV255. */
GF_HD unsigned gf_resize_premul(unsigned v, unsigned a)
{
    const unsigned t = v * a + 128u;
    return ((t >> 8) + t) >> 8;
}

/* A premultiplied v divided back by a, as Pillow's RGBa -> RGBA. */
GF_HD unsigned gf_resize_unpremul(unsigned v, unsigned a)
{
    unsigned q;
    if (a == 0u || a == 255u)
        return v;
    q = 255u * v / a;
    return q > 255u ? 255u : q;
}

/* A fixed-point sum (started at 2^21) to 0..255. */
GF_HD unsigned gf_resize_clip8(int32_t ss)
{
    const int32_t v = ss >> GF_RESIZE_BITS;
    return v < 0 ? 0u : v > 255 ? 255u : (unsigned)v;
}

/* A double sum to the nearest integer, halves away from zero (Pillow's
 * ROUND_UP). */
GF_HD int32_t gf_resize_round(double ss)
{
    return (int32_t)(ss >= 0.0 ? ss + 0.5 : ss - 0.5);
}

/* 0..65535. */
GF_HD unsigned gf_resize_clip16(int32_t v)
{
    return v < 0 ? 0u : v > 65535 ? 65535u : (unsigned)v;
}

/* The output size of s for an input of w x h into *ow, *oh: 0, or -1 when
 * it does not fit in an int. */
int gf_resize_size(const gf_stage *s, int w, int h, int *ow, int *oh);

/* Makes s resize to exactly w x h (>= 1) pixels, whatever its geometry
 * was: --draft's resize of a JPEG decoded shrunk, to the size the geometry
 * gives the whole image. */
void gf_resize_set_size(gf_stage *s, int w, int h);

/* in (host) -> out (host, allocated by the caller at the stage's output
 * shape), the rule above. gf_resize_gold: a sample at a time; the CPU
 * backend's path: rows in parallel, the column pass a row of sums at a
 * time. Errors: GF_EINTERNAL (out of memory, a shape mismatch). */
int gf_resize_gold(const gf_stage *s, const gf_image *in, gf_image *out);

/* The widest vector path the CPU path's 8-bit passes may take (resize.c):
 * 2 (the default) AVX-512 where the CPU has it, else AVX2; 1 AVX2 at most;
 * 0 the portable passes. Read when a resize runs; tests set it to run each
 * path. */
extern int gf_resize_simd;

/* The 8-bit passes' path now, by gf_resize_simd and the CPU (gf_cpu_avx512,
 * gf_cpu_avx2): 2 AVX-512, 1 AVX2, 0 portable. */
int gf_resize_level(void);

/* CUDA launchers (cuda/resize.cu), as gf_launch_fn, every layout. The
 * weights of a geometry are computed on the host once and kept on the
 * device for the next call.
 * `global` (the baseline): a thread an output sample in each pass, the
 * weights and sources in global memory.
 * `shared` (the default): at 8 bits the row pass stages 32 input rows in
 * shared memory, one plane a channel, and sums four taps a dp4a (the 22-bit
 * weights as three byte planes); the column pass sums a 32-bit word of four
 * samples a thread; 16 bits and nearest as `global`.
 * `texture` (inexact: gf_stage_ops.inexact): hardware bilinear filtering, two
 * taps of one sign a fetch between them; its 8-bit fractions differ from the
 * gold by a level or two at 8 bits (more where the alpha divides the colours
 * back) and by up to a few hundred at 16 bits; past the device's pitched
 * textures (131072 texels wide on sm_90) it runs `global`. Errors:
 * GF_EINTERNAL. */
int gf_resize_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_resize_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_resize_texture_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
