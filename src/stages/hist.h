/* hist.h - the histogram stage: --hist FILE, with --hist-log. A bin per
 * value of each channel: 256 a channel for 8-bit images, 65536 for 16-bit
 * (as libvips' hist_find). Shared by src/stages/hist.c, cuda/hist.cu and
 * the stages that need a histogram first (threshold's Otsu). */
#ifndef GF_HIST_H
#define GF_HIST_H

#include <stdint.h>

#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gf_stage_ops gf_stage_hist;

/* Bins a channel has at `bits` bits a sample: one a value. */
static inline int gf_hist_bins(int bits)
{
    return bits == 8 ? 256 : 65536;
}

/* The histogram of in (host, any layout and stride) into bins (host,
 * channels x gf_hist_bins(bits) counts, channel after channel: the count
 * of value v in channel c at bins[c * nbins + v]; zeroed here).
 * gf_hist_gold counts one sample at a time: the reference. gf_hist_cpu is
 * the CPU backend's path: per-thread partial histograms over blocks of rows,
 * merged (OpenMP; libvips' hist_find has the same shape), 8-bit gray into
 * four per thread taking pixels in turn so that equal neighbours do not
 * serialise on one counter.
 * Returns 0, or GF_EINTERNAL out of memory. */
int gf_hist_gold(const gf_image *in, uint32_t *bins);
int gf_hist_cpu(const gf_image *in, uint32_t *bins);

/* CUDA launchers (cuda/hist.cu), as gf_launch_fn, for every layout:
 * `global`, one global atomicAdd per sample (seed 3's first scheme);
 * `shared`, a histogram per block in shared memory added to the result with
 * one atomic per non-zero bin (seed 3's second scheme), 8-bit samples 16 a
 * load with runs of equal values merged; `warp`, for 8-bit images a
 * histogram per warp in shared memory (8 a block), a warp a row with 4
 * 16-byte loads per lane in flight, a vector of 16 equal bytes of a gray
 * image one atomic, the next loads in flight while it counts; for 16-bit
 * images a channel's 65536 bins per block as 16-bit counters packed two to
 * a word of shared memory (carries into the global counts). All zero the
 * counts first. */
int gf_hist_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_hist_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_hist_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

/* The histogram of in (device, any layout) into bins (device, channels x
 * gf_hist_bins(bits) counts, channel after channel, zeroed here) with the
 * fastest kernel, for other stages' launchers (threshold's Otsu, the tone
 * stages). Launches on `stream`; returns 0 or GF_EINTERNAL. */
int gf_hist_device(const gf_dimage *in, unsigned *bins, void *stream);

#ifdef __cplusplus
}
#endif

#endif
