/* mean.h - the box mean (box filter) stage: --mean K|WxH, --border MODE.
 * Shared by src/stages/mean.c (options, CPU paths) and cuda/mean.cu. */
#ifndef GF_MEAN_H
#define GF_MEAN_H

#include "../border.h"
#include "../gf.h"
#include "../stage.h"
#include "../stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The mean of a window sum s (0 .. 255*area, area 9 or 25) by one integer
 * multiply-add: (s + (area-1)/2) * ceil(2^24 / area), whose top byte (bits
 * 24..31) is floor((2s + area) / (2 area)), the gold rounding. Exact: the
 * reciprocal's error (ceil(2^24/area) * area - 2^24, 8 or 9) times the
 * largest dividend stays below 2^24 / area (division by invariant integers
 * by multiplication, Granlund and Montgomery, PLDI 1994), and the product
 * stays below 2^32 for both areas. tests/unit/test_mean.c checks every s.
 * The 8-bit warp kernel's rounding. */
GF_HD unsigned gf_mean_div_bits(unsigned s, unsigned area)
{
    return (s + (area - 1u) / 2u) * ((16777216u + area - 1u) / area);
}

/* The same for 16-bit sums (0 .. 65535*area): (s + (area-1)/2) *
 * ceil(2^37 / area) >> 37 is floor((2s + area) / (2 area)), exact by the
 * same argument (error 5 or 23 times a dividend below 2^21, under
 * 2^37 / area); the product needs 64 bits. tests/unit/test_mean.c checks
 * every s. */
GF_HD unsigned gf_mean_div16(unsigned s, unsigned area)
{
    return (unsigned)(((unsigned long long)(s + (area - 1u) / 2u) *
                       ((137438953472ull + area - 1u) / area)) >> 37);
}

/* A reciprocal for the box mean's rounding with a window of `area` pixels
 * (1 .. 63 * 63, odd): floor((2s + area) /
 * (2 area)), which for odd areas is floor((s + (area-1)/2) / area), as one
 * 32 x 32 -> 64-bit multiply and a shift: with t = s + (area-1)/2 below
 * 2^B (B = 20 for sums of 8-bit samples, 28 for 16-bit: 65535 * 3969 <
 * 2^28), L = B + ceil(log2 area) and m = ceil(2^L / area) < 2^(B+1),
 * floor(t m / 2^L) = floor(t / area) because t (m area - 2^L) < 2^B area
 * <= 2^L (division by invariant integers, Granlund and Montgomery, PLDI
 * 1994). tests/unit/test_mean.c checks it at every quotient's edges. The
 * rounding of every window but the 3x3 and 5x5 kernels' own. */
typedef struct gf_mean_div {
    uint32_t add, m;
    int shift;
} gf_mean_div;

GF_HD gf_mean_div gf_mean_div_of(unsigned area, int bits)
{
    gf_mean_div d;
    int lg = 0;
    while ((1u << lg) < area)
        lg++;
    d.shift = (bits == 8 ? 20 : 28) + lg;
    d.add = (area - 1u) / 2u;
    d.m = (uint32_t)(((1ull << d.shift) + area - 1u) / area);
    return d;
}

GF_HD unsigned gf_mean_div_apply(unsigned s, gf_mean_div d)
{
    return (unsigned)(((unsigned long long)(s + d.add) * d.m) >> d.shift);
}

/* The stage's parameters (gf_stage.params): the window and the border. */
typedef gf_stencil_params gf_mean_params;

/* The largest window side of --mean. */
#define GF_MEAN_MAX_SIDE 63

/* Box mean of kw x kh (odd, 1..63 each) over in -> out (host memory, both
 * width x height of one layout, any strides; out allocated by the caller),
 * each channel on its own, alpha included (as OpenCV's cv::blur). Each
 * sample is the nearest integer to sum/area, computed exactly as
 * floor((2*sum + area) / (2*area)) with area = kw * kh; for odd areas no
 * exact .5 exists, so this equals cv::blur on 8- and 16-bit images. The
 * window reads the padded image `border` defines (border.h; a constant
 * border pads every channel with its value); every pixel, border included,
 * is written.
 * gf_mean_gold sums each window directly, by the definition: the reference.
 * gf_mean_cpu is the CPU backend's fast path on the stencil framework
 * (stencil.h): row sums into the ring, then column sums slid down the rows,
 * parallel over bands of rows (OpenMP); it equals the gold bit for bit. out
 * may be in itself (the result replaces the input).
 * Returns 0, or GF_EINTERNAL for a bad window, size or layout, or out of
 * memory. */
int gf_mean_gold(const gf_image *in, gf_image *out, int kw, int kh, gf_border border);
int gf_mean_cpu(const gf_image *in, gf_image *out, int kw, int kh, gf_border border);

/* CUDA launchers (cuda/mean.cu), as gf_launch_fn, for every layout:
 * `global` (one thread per pixel reading its window from global memory,
 * the box-mean seed's non-shared kernel completed to every pixel),
 * `shared` (tiles staged with their halo in shared memory and summed
 * separably) and `warp` (no shared memory: a warp slides down a strip, each
 * lane 16 bytes wide, with 16-byte loads and stores, neighbours' columns by
 * shuffle and the sums in registers; mean_warp_8u for 8-bit layouts,
 * mean_warp_16u for 16-bit). These three are the box-mean experiment's
 * kernels, for 3x3 and 5x5; every other window runs on the stencil
 * framework's kernels (cuda/stencil.cuh): `global` reads each window from
 * global memory, `shared` and `warp` stream rows through a shared-memory
 * ring (row sums, then column sums). A side may not exceed 65535. */
int gf_mean_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_mean_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_mean_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
