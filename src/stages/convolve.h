/* convolve.h - the user convolution stage: --convolve KERNEL with the
 * settings --divisor N and --bias B (modifiers of the --convolve after
 * them) and --border MODE. Shared by src/stages/convolve.c (options, CPU
 * paths) and cuda/convolve.cu. */
#ifndef GF_CONVOLVE_H
#define GF_CONVOLVE_H

#include <stdint.h>

#include "../border.h"
#include "../gf.h"
#include "../stage.h"
#include "../stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits of --convolve, --divisor and --bias. */
#define GF_CONVOLVE_MAX_SIDE 15        /* W and H: odd, 1..15 */
#define GF_CONVOLVE_MAX_WEIGHT 65535   /* each weight in -65535..65535 */
#define GF_CONVOLVE_MAX_DIVISOR 2147483647 /* N: nonzero, |N| <= this */
#define GF_CONVOLVE_MAX_BIAS 2147483647    /* |B| <= this */
#define GF_CONVOLVE_MAX_TAPS (GF_CONVOLVE_MAX_SIDE * GF_CONVOLVE_MAX_SIDE)

/* The stage's parameters (gf_stage.params): the window (kw x kh) and the
 * border, then the divisor N (never 0), the bias B and the kw * kh weights,
 * row by row: weights[dy * kw + dx] weighs the pixel at (x + dx - kw/2,
 * y + dy - kh/2). 12 + 8 + 900 bytes. */
typedef struct gf_convolve_params {
    gf_stencil_params st;
    int32_t divisor;
    int32_t bias;
    int32_t weights[GF_CONVOLVE_MAX_TAPS];
} gf_convolve_params;

/* The rule, per channel (cv2.filter2D's correlation, the kernel not
 * flipped, in exact integers): s = sum of weights[k] times the padded
 * image's samples under the window (a 64-bit sum: |s| <= 225 * 65535 *
 * 65535 < 2^40), then
 *   q = round(s / N), to nearest with ties away from zero
 *     = sign(s) sign(N) floor((2|s| + |N|) / (2|N|)),
 *   sample = clamp(q + B, 0, maxval)   (maxval 255 or 65535).
 *
 * The fast paths (the CPU's and every kernel) take 32-bit sums when the
 * bound on |s|, maxval times the sum of |weights|, is below 2^30
 * (gf_convolve_narrow); then the rounding is one 32 x 32 -> 64-bit multiply
 * and a shift (gf_convolve_div_of: division by invariant integers,
 * Granlund and Montgomery, PLDI 1994) and the bias a 32-bit clamp
 * (gf_convolve_finish). Otherwise they take 64-bit sums and divide
 * (gf_convolve_finish_wide). */
typedef struct gf_convolve_div {
    uint32_t add;  /* floor(|N| / 2) */
    uint32_t m;    /* ceil(2^shift / |N|); 0 where |N| > 2 * bound (every q is 0) */
    int shift;     /* 31 + ceil(log2 |N|) */
    int neg;       /* N < 0 */
    int32_t lo, hi; /* q is clamped to [lo, hi] = [-B, min(maxval - B, 2^31 - 1)] ... */
    int32_t bias;   /* ... then B added: the sample, in 0..maxval */
} gf_convolve_div;

/* maxval times the sum of |weights| of p: the bound on |s|. */
GF_HD int64_t gf_convolve_bound(const gf_convolve_params *p, int bits)
{
    int64_t b = 0;
    for (int k = 0; k < p->st.kw * p->st.kh; k++)
        b += p->weights[k] < 0 ? -(int64_t)p->weights[k] : p->weights[k];
    return b * (bits == 8 ? 255 : 65535);
}

/* 1 when the 32-bit sums and gf_convolve_finish are exact for p on samples
 * of `bits`: the bound below 2^30 (so |s| + floor(|N| / 2) < 2^31 once a
 * divisor above twice the bound is taken as "every q is 0"). */
GF_HD int gf_convolve_narrow(const gf_convolve_params *p, int bits)
{
    return gf_convolve_bound(p, bits) < (1 << 30);
}

/* The rounding constants of p for samples of `bits` (a narrow p). With
 * t = |s| + floor(|N|/2) < 2^31 and L = 31 + ceil(log2 |N|) <= 62, m =
 * ceil(2^L / |N|) < 2^32 and t m < 2^63, and floor(t m / 2^L) = floor(t /
 * |N|) because t (m |N| - 2^L) < 2^31 |N| <= 2^L; and floor((|s| +
 * floor(|N|/2)) / |N|) is floor((2|s| + |N|) / (2|N|)) for odd and even |N|.
 * tests/unit/test_convolve.c checks it at the ties. */
GF_HD gf_convolve_div gf_convolve_div_of(const gf_convolve_params *p, int bits)
{
    const int64_t bound = gf_convolve_bound(p, bits), n = p->divisor < 0 ? -(int64_t)p->divisor
                                                                        : p->divisor;
    const int64_t max = bits == 8 ? 255 : 65535, hi = max - p->bias;
    gf_convolve_div d;
    int lg = 0;

    d.neg = p->divisor < 0;
    d.bias = p->bias;
    d.lo = -p->bias;
    d.hi = hi > 2147483647 ? 2147483647 : (int32_t)hi;
    if (n > 2 * bound) { /* |s| <= bound < ceil(|N| / 2): every q is 0 */
        d.add = 0;
        d.m = 0;
        d.shift = 0;
        return d;
    }
    while ((1ll << lg) < n)
        lg++;
    d.add = (uint32_t)(n / 2);
    d.shift = 31 + lg;
    d.m = (uint32_t)(((1ull << d.shift) + (uint64_t)n - 1) / (uint64_t)n);
    return d;
}

/* The sample from a 32-bit window sum s (a narrow p's: |s| < 2^30). */
GF_HD unsigned gf_convolve_finish(int32_t s, gf_convolve_div d)
{
    const uint32_t a = (uint32_t)(s < 0 ? -s : s);
    const int32_t q = (int32_t)(((uint64_t)(a + d.add) * d.m) >> d.shift);
    int32_t v = (s < 0) != d.neg ? -q : q;
    v = v < d.lo ? d.lo : v > d.hi ? d.hi : v;
    return (unsigned)(v + d.bias);
}

/* The sample from a 64-bit window sum s, for any p: |s| + floor(|N|/2)
 * divided by |N| in 64-bit integers. */
GF_HD unsigned gf_convolve_finish_wide(int64_t s, int32_t divisor, int32_t bias, unsigned max)
{
    const int64_t n = divisor < 0 ? -(int64_t)divisor : divisor, a = s < 0 ? -s : s;
    const int64_t q = (a + n / 2) / n, v = ((s < 0) != (divisor < 0) ? -q : q) + bias;
    return (unsigned)(v < 0 ? 0 : v > (int64_t)max ? (int64_t)max : v);
}

/* Parses KERNEL, the argument of --convolve (text, not @FILE): "WxH:V,V,..."
 * (W and H odd, 1..15; exactly W*H integer weights in -65535..65535, row by
 * row, separated by a comma and/or white space; white space allowed around
 * every part) into p's window and weights, and sets p's divisor to the
 * default: the sum of the weights if positive, else 1. `what` names the
 * source in messages ("--convolve" or "--convolve @FILE"). Returns 0 or
 * GF_EUSAGE with a message that names the flag and the allowed range. */
int gf_convolve_parse_kernel(const char *what, const char *text, gf_convolve_params *p);

/* Correlation of in -> out with p (host memory, both width x height of one
 * layout, any strides; out allocated by the caller), each channel on its
 * own, alpha included, reading the padded image p's border defines; every
 * sample written.
 * gf_convolve_gold sums each window in 64-bit integers by the definition
 * and rounds as above: the reference.
 * gf_convolve_cpu is the CPU backend's fast path on the stencil framework
 * (stencil.h): for each chunk of an output row, a loop over the window's
 * taps with the row as the inner loop (16-bit sums for 8-bit images whose
 * bound is below 2^15, else 32-bit, else 64-bit), then the rounding in a
 * vector loop; parallel over bands of rows (OpenMP). It equals the gold bit
 * for bit; out may be in itself (the result replaces the input).
 * Returns 0, or GF_EINTERNAL for a bad window or divisor, mismatched shapes
 * or out of memory. */
int gf_convolve_gold(const gf_image *in, gf_image *out, const gf_convolve_params *p);
int gf_convolve_cpu(const gf_image *in, gf_image *out, const gf_convolve_params *p);

/* CUDA launchers (cuda/convolve.cu), as gf_launch_fn, for every layout. The
 * first four run on the stencil framework's 2-D kernels (cuda/stencil.cuh),
 * one thread a pixel, and differ in where the pixels and the weights live:
 *   global    image and weights from global memory (ST_GLOBAL, the weights
 *             a device copy: st_weights)
 *   shared    the block's tile and halo in shared memory (ST_SHARED), the
 *             weights from global memory
 *   constant  the tile in shared memory, the weights in the rule struct, a
 *             __grid_constant__ kernel parameter: the constant bank, read
 *             by every thread of a warp at once (the broadcast case)
 *   texture   texture reads (ST_TEXTURE; waits for its kernel), constant
 *             weights;
 *   packed    8-bit gray with a 3x3 or 5x5 kernel of weights in -128..127: a
 *             warp walks down a strip of rows, each lane 16 pixels wide with
 *             one 16-byte load a row, a kernel row's products for a pixel in
 *             one or two dp4a instructions; every other case runs `constant`.
 * A side may not exceed 65535. */
int gf_convolve_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                            void *stream);
int gf_convolve_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                            void *stream);
int gf_convolve_constant_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                              void *stream);
int gf_convolve_texture_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);
int gf_convolve_packed_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                            void *stream);

#ifdef __cplusplus
}
#endif

#endif
