/* kernels.h - extern "C" launchers of the CUDA kernels (cuda/ directory).
 * Each launches on `stream` (a cudaStream_t) without waiting, checks the
 * launch with cudaGetLastError, and returns 0 or GF_EINTERNAL. Images are
 * device memory with pitches from gf_dimage_pitch(). */
#ifndef GF_KERNELS_H
#define GF_KERNELS_H

#include "border.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Box mean variants, in the order of gf_stage_mean.variants. */
enum { GF_MEAN_GLOBAL = 0, GF_MEAN_SHARED = 1, GF_MEAN_NVARIANTS };

/* Box mean (box filter) of ksize x ksize (3 or 5) over in -> out, both
 * width x height; out's shape is set to in's. Each pixel becomes
 * floor((2*sum + area) / (2*area)), area = ksize^2, the sum taken over the
 * padded image that `border` defines (border.h). in and out must not
 * overlap; out->capacity >= gf_dimage_bytes(width, height).
 * Variants: GF_MEAN_GLOBAL, one thread per pixel reading its window from
 * global memory (the non-shared kernel of the box-mean seed, completed to
 * every pixel); GF_MEAN_SHARED, 128x64-pixel tiles staged with their halo in
 * shared memory and summed separably, 4x8 pixels per thread. */
int gf_mean_cuda(const gf_dimage *in, gf_dimage *out, int ksize, gf_border border,
                 int variant, void *stream);

/* Orientation variants: GF_ORIENT_GLOBAL for every op; GF_ORIENT_SHARED for
 * the ops that swap the axes, GF_ORIENT_VECTOR for flip, flop, rotate 180. */
enum { GF_ORIENT_GLOBAL = 0, GF_ORIENT_SHARED = 1, GF_ORIENT_VECTOR = 1 };

/* Orientation op (a gf_orient_op, stages/orient.h) of in -> out; out's shape
 * is set to h x w for the ops that swap the axes, else w x h. in and out must
 * not overlap. Variants: GF_ORIENT_GLOBAL, one thread per input pixel, the
 * read coalesced and the write scattered (the naive transpose of seed 2);
 * GF_ORIENT_SHARED, 64x64-byte tiles staged in shared memory with one byte of
 * row padding against bank conflicts, so reads and writes are both
 * coalesced 4-byte words (seed 2's tiled transpose, for bytes);
 * GF_ORIENT_VECTOR, 16 output bytes per thread as aligned 4-byte words, each
 * reversed with byte permutes (mirrors need no tile). */
int gf_orient_cuda(const gf_dimage *in, gf_dimage *out, int op, int variant, void *stream);

/* Histogram variants, in the order of gf_stage_hist.variants. */
enum { GF_HIST_GLOBAL = 0, GF_HIST_SHARED = 1, GF_HIST_NVARIANTS };

/* 256-bin histogram of in into hist (device memory, 256 counts, zeroed by the
 * launcher). GF_HIST_GLOBAL: one global atomicAdd per pixel (seed 3's first
 * scheme); GF_HIST_SHARED: a histogram per block in shared memory, 16 pixels
 * per load with runs of equal values merged, added to hist with one atomic
 * per non-zero bin (seed 3's second scheme). */
int gf_hist_cuda(const gf_dimage *in, unsigned *hist, int variant, void *stream);

/* Column-sum variants, in the order of gf_stage_colsum.variants. */
enum { GF_COLSUM_BYTE = 0, GF_COLSUM_WORD = 1, GF_COLSUM_SPLIT = 2, GF_COLSUM_NVARIANTS };

/* Column sums of in into sums (device memory, width values): GF_COLSUM_BYTE,
 * one thread per column, a byte per row (seed 4's first kernel);
 * GF_COLSUM_WORD, one thread per 4 columns, a 32-bit word per row (seed 4's
 * second); GF_COLSUM_SPLIT, as word with the rows split among blocks of 64
 * and the partial sums added atomically. Exact: a side is at most 65535. */
int gf_colsum_cuda(const gf_dimage *in, unsigned *sums, int variant, void *stream);

/* Row sums of in into sums (device memory, height values): a warp per row,
 * 16-byte loads, a shuffle reduction. variant must be 0. */
int gf_rowsum_cuda(const gf_dimage *in, unsigned *sums, int variant, void *stream);

#ifdef __cplusplus
}
#endif

#endif
