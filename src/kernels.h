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

#ifdef __cplusplus
}
#endif

#endif
