/* gray.h - the gray stage: --gray, an image's luma as one channel. RGB and
 * RGBA give (77 R + 150 G + 29 B) >> 8 of the same depth (the weights are
 * ITU-R BT.601's 0.299, 0.587 and 0.114 in 8-bit fixed point, summing to
 * 256, so white stays white at 8 and 16 bits); gray+alpha gives its gray;
 * alpha is dropped (OpenCV's cvtColor RGBA2GRAY drops it too). A gray image
 * passes unchanged. A JPEG whose first stage is --gray is decoded to its
 * own luma (Y) component instead, as libjpeg-turbo's grayscale decode gives
 * it. Shared by src/stages/gray.c and cuda/gray.cu. */
#ifndef GF_GRAY_H
#define GF_GRAY_H

#include "../border.h" /* GF_HD */
#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const gf_stage_ops gf_stage_gray;

/* The luma of r, g, b (0..255 or 0..65535): the same range. */
GF_HD unsigned gf_luma(unsigned r, unsigned g, unsigned b)
{
    return (77u * r + 150u * g + 29u * b) >> 8;
}

/* in (host, any layout) -> out (host, width x height, one channel of in's
 * depth, allocated by the caller). gf_gray_gold: a pixel at a time, the
 * reference; gf_gray_cpu: rows in parallel (OpenMP), loops the compiler
 * vectorises. Returns 0, or GF_EINTERNAL on a size or layout mismatch. */
int gf_gray_gold(const gf_image *in, gf_image *out);
int gf_gray_cpu(const gf_image *in, gf_image *out);

/* CUDA launcher (cuda/gray.cu), as gf_launch_fn, for every layout:
 * `global`, a thread per 16 output bytes, reading its pixels' samples. */
int gf_gray_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
