/* hist.h - the histogram stage: --hist FILE, with --hist-log and
 * --hist-channels. Shared by src/stages/hist.c, cuda/hist.cu and the stages
 * that need a histogram first (threshold's Otsu). */
#ifndef GF_HIST_H
#define GF_HIST_H

#include <stdint.h>

#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gf_stage_ops gf_stage_hist;

/* 256-bin histogram of in (host, any stride) into bins[256] (host, zeroed
 * here). gf_hist_gold counts one pixel at a time: the reference.
 * gf_hist_cpu is the CPU backend's path: per-thread partial histograms over
 * blocks of rows, merged (OpenMP; libvips' hist_find has the same shape),
 * four per thread taking pixels in turn so that equal neighbours do not
 * serialise on one counter.
 * Returns 0, or GF_EINTERNAL out of memory. */
int gf_hist_gold(const gf_image *in, uint32_t *bins);
int gf_hist_cpu(const gf_image *in, uint32_t *bins);

/* CUDA launchers (cuda/hist.cu), as gf_launch_fn: `global`, one global
 * atomicAdd per pixel (seed 3's first scheme); `shared`, a histogram per
 * block in shared memory, 16 pixels per load with runs of equal values
 * merged, added to the result with one atomic per non-zero bin (seed 3's
 * second scheme); `warp`, a histogram per warp in shared memory (8 a
 * block), a warp a row with 4 16-byte loads per lane in flight, a vector of
 * 16 equal bytes one atomic, the next loads in flight while it counts.
 * All zero the 256 counts first. */
int gf_hist_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_hist_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_hist_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

/* The 256-bin histogram of in (device) into bins (device, 256 counts) with
 * the fastest kernel, for other stages' launchers. Launches on `stream`;
 * returns 0 or GF_EINTERNAL. */
int gf_hist_device(const gf_dimage *in, unsigned *bins, void *stream);

#ifdef __cplusplus
}
#endif

#endif
