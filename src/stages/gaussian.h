/* gaussian.h - the Gaussian blur (--gaussian SIGMA[,K]) and the unsharp mask
 * built on it (--unsharp SIGMA[,AMOUNT[,THRESHOLD]]): their parameters, the
 * integer weights, the CPU paths, and the split arithmetic both backends'
 * fast paths share. Shared by src/stages/gaussian.c, src/stages/unsharp.c
 * and cuda/gaussian.cu.
 *
 * The rule, exact in integers:
 *   g_i = exp(-(i - c)^2 / (2 SIGMA^2)) in double, i = 0 .. K-1, c = (K-1)/2;
 *   w_i = floor(16384 g_i / sum(g) + 0.5), then w_c += 16384 - sum(w), so
 *   the weights sum to 16384 (2^14);
 *   row pass h = sum_j w_j x (an exact integer, below 2^30);
 *   column pass v = sum_i w_i h_i (an exact integer, below 2^44);
 *   output (v + 2^27) >> 28: one rounding, to nearest, of v / 2^28.
 * On 8-bit images, measured against the float64 convolution with the same
 * K and border (bench/gauss_accuracy.py, docs/benchmarks.md), it is within
 * 0.53 on random noise and 0.55 on a photo for SIGMA up to 5 (0.57 up to
 * 20), and the nearest integer on all but about 1% of pixels; an image made
 * against the weights reaches 0.53 up to SIGMA 5 and 0.84 up to 20.
 * OpenCV's 8-bit GaussianBlur, whose fixed point rounds between the passes,
 * errs by up to 1.9 on noise for SIGMA up to 5 (2.7-3.5 beyond) and is not
 * the nearest integer on 16-22% of a noise image's pixels. */
#ifndef GF_GAUSSIAN_H
#define GF_GAUSSIAN_H

#include <stdint.h>

#include "../border.h"
#include "../gf.h"
#include "../stage.h"
#include "../stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GF_GAUSS_MIN_K 3
#define GF_GAUSS_MAX_K 127
#define GF_GAUSS_HALF ((GF_GAUSS_MAX_K + 1) / 2) /* weights w_0 .. w_c of the largest window */
#define GF_GAUSS_MIN_SIGMA 0.1
#define GF_GAUSS_MAX_SIGMA 20.0
#define GF_GAUSS_ONE 16384 /* the weights' sum, 2^14 */

/* --gaussian's parameters. k is the K given, or 0 for the default by
 * depth; the window of a run is gf_gauss_ksize(sigma, k, bits), and kw, kh
 * stay 0. */
typedef struct gf_gauss_params {
    gf_border border;
    int kw, kh;
    double sigma;
    int k;
} gf_gauss_params;

/* --unsharp's: the Gaussian's (its default K), the amount as
 * a = round(AMOUNT * 256) (0 .. 2560) and the threshold in sample units. */
typedef struct gf_unsharp_params {
    gf_gauss_params g;
    double amount_given; /* AMOUNT as given, for labels */
    int amount;
    int threshold;
} gf_unsharp_params;

/* The window side for SIGMA and a given K (0: the default) on samples of
 * `bits` bits: K itself, else OpenCV's rule floor(6 SIGMA + 1.5) | 1 for
 * 8-bit and floor(8 SIGMA + 1.5) | 1 for 16-bit, capped at 127. */
int gf_gauss_ksize(double sigma, int k, int bits);

/* The weights w_0 .. w_{K-1} of SIGMA and K (odd, 3..127) into w (host, K
 * values), as the rule above; they are symmetric (w_i = w_{K-1-i}) and
 * non-negative. */
void gf_gauss_weights(double sigma, int ksize, int32_t *w);

/* The column pass and the rounding without 64-bit products: v = sum_i w_i
 * h_i with each h split as hi 2^16 + lo gives v = A 2^16 + B, A = sum w_i
 * hi_i < 2^28 and B = sum w_i lo_i < 2^30 (the weights sum to 2^14), so
 * (v + 2^27) >> 28 = (A + ((B + 2^27) >> 16)) >> 12, all in 32 bits. The
 * fast paths pair the symmetric rows first (h_i + h_{K-1-i} < 2^31). */
GF_HD unsigned gf_gauss_round(uint32_t a, uint32_t b)
{
    return (a + ((b + (1u << 27)) >> 16)) >> 12;
}

/* Gaussian of in -> out (host memory, the same width x height and layout,
 * any strides), each channel alike, through border; SIGMA in [0.1, 20], K
 * odd in [3, 127]. gf_gauss_gold is the rule by its definition in 64-bit
 * integers (a row pass over every padded row, then the column pass): the
 * reference. gf_gauss_cpu is the fast path on the stencil framework, bands
 * of rows on the CPU threads: 8-bit on AVX-512 (gf_gauss_avx512) the column
 * pass first from the ring of padded input rows (pmaddwd) and the row pass
 * in single precision, checked, the rare lanes near a half redone exactly;
 * else the row pass into the ring and the column pass (16-bit in 32 bits as
 * gf_gauss_round says, 8-bit in double precision). out may be in itself.
 * Both return 0, or GF_EINTERNAL for bad arguments or out of memory. */
int gf_gauss_gold(const gf_image *in, gf_image *out, double sigma, int ksize, gf_border border);
int gf_gauss_cpu(const gf_image *in, gf_image *out, double sigma, int ksize, gf_border border);

/* The fast path's row and column rules for samples of `bits` bits, for the
 * stencil driver (no row rule on the AVX-512 path): a job's ctx is the K
 * weights (int32_t). */
gf_stencil_cpu gf_gauss_rules(int bits);

/* 1 (the default): 8-bit images take the AVX-512 path (the column pass
 * first, gaussian.c) where the CPU has it; 0: the portable path
 * everywhere. Read when the rules are chosen; tests set it to run both. */
extern int gf_gauss_simd;

/* 1 when 8-bit images take the AVX-512 path: gf_gauss_simd is 1 and the
 * CPU has AVX-512 F, BW, DQ and VL (x86-64-v4); else 0. */
int gf_gauss_avx512(void);

/* The CPU path's time for a K x K window on samples of `bits` bits, in ns
 * a byte of image on one thread (measured; gf_stage_ops.cpu_cost_of). */
double gf_gauss_cpu_cost(int ksize, int bits);

/* Unsharp mask of in -> out (host, same shape, not the same memory): with g
 * the Gaussian above of SIGMA (K by gf_gauss_ksize) and d = x - g for each
 * sample x, out = clamp(x + floor((d a + 128) / 256), 0, max) where |d| >
 * threshold, else x (a = round(AMOUNT * 256)). gold and fast as above.
 * Errors as above. */
int gf_unsharp_gold(const gf_image *in, gf_image *out, const gf_unsharp_params *p);
int gf_unsharp_cpu(const gf_image *in, gf_image *out, const gf_unsharp_params *p);

/* The unsharp mask of one sample x with blurred value g. */
GF_HD unsigned gf_unsharp_sample(int x, int g, int amount, int threshold, int max)
{
    const int d = x - g;
    int v;
    if (d <= threshold && -d <= threshold)
        return (unsigned)x;
    /* floor((d a + 128) / 256): an arithmetic shift floors (|d a| < 2^28) */
    v = x + ((d * amount + 128) >> 8);
    return (unsigned)(v < 0 ? 0 : v > max ? max : v);
}

/* A decimal number (digits, at most one '.'; no sign, exponent or hex) at
 * the start of s into *v, *end after it: 0, or -1 where there is none. */
int gf_gauss_parse_decimal(const char *s, double *v, const char **end);

/* Parses "SIGMA" (0.1..20, a decimal) at the start of s for option opt;
 * *end receives what follows. Returns 0 or GF_EUSAGE. */
int gf_gauss_parse_sigma(const char *opt, const char *s, double *sigma, const char **end);

/* CUDA launchers (cuda/gaussian.cu), as gf_launch_fn, every layout:
 * `global` (each thread sums its K x K window from global memory, the row
 * sums then the column sum: O(K^2) a pixel), `shared` (the framework's
 * separable strip kernel: row segments staged in shared memory, the row
 * pass into a shared ring, the column pass from it; weights read from a
 * device buffer in global memory), `constant` (the same with the weights
 * in the kernel's parameters, the constant bank) and `register` (the column
 * pass first, its window held in registers as the strip slides down, the
 * row pass from shared memory, in floating point where that is exact and
 * checked where it is not: cuda/gaussian.cuh; `constant` past its windows). */
int gf_gauss_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_gauss_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_gauss_constant_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_unsharp_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_unsharp_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_unsharp_constant_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);
int gf_gauss_register_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_unsharp_register_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);

#ifdef __cplusplus
}
#endif

#endif
