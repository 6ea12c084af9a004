/* depth.h - the depth stage: --depth 8|16, every sample to 8 or 16 bits.
 * 16 -> 8 is the nearest value, (v * 255 + 32767) / 65535 (as
 * ImageMagick's -depth 8 rounds); 8 -> 16 is v * 257, exact (255 becomes
 * 65535). An image already at the depth passes unchanged. Shared by
 * src/stages/depth.c and cuda/depth.cu. */
#ifndef GF_DEPTH_H
#define GF_DEPTH_H

#include "../border.h" /* GF_HD */
#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's parameters (gf_stage.params). */
typedef struct gf_depth_params {
    int bits; /* 8 or 16 */
} gf_depth_params;

GF_HD unsigned gf_depth_16to8(unsigned v)
{
    return (v * 255u + 32767u) / 65535u;
}

GF_HD unsigned gf_depth_8to16(unsigned v)
{
    return v * 257u;
}

/* in (host, any layout) -> out (host, the same size and channels at `bits`,
 * allocated by the caller). gf_depth_gold: a sample at a time, the
 * reference; gf_depth_cpu: rows in parallel (OpenMP), loops the compiler
 * vectorises. Returns 0, or GF_EINTERNAL on a size or layout mismatch. */
int gf_depth_gold(const gf_image *in, gf_image *out);
int gf_depth_cpu(const gf_image *in, gf_image *out);

/* CUDA launcher (cuda/depth.cu), as gf_launch_fn, for every layout (each
 * sample alike): `global`, a thread per 8 samples. */
int gf_depth_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
