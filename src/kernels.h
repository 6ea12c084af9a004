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
 * every pixel); GF_MEAN_SHARED, 128x32-pixel tiles staged with their halo in
 * shared memory and summed separably, 4x4 pixels per thread. */
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

#ifdef __cplusplus
}
#endif

#endif
