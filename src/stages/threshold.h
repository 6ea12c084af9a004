/* threshold.h - the binary threshold stage: --threshold T|otsu. A sample
 * greater than T becomes the largest sample (255, or 65535 in a 16-bit
 * image), any other 0, in every channel alike (ImageMagick's -threshold,
 * OpenCV's THRESH_BINARY). With otsu, T is the image's own Otsu threshold
 * (src/otsu.h) over all its levels (256, or 65536 for 16 bits), so the
 * upper class [T+1, max] becomes the maximum; otsu takes one channel.
 * Shared by src/stages/threshold.c and cuda/threshold.cu. */
#ifndef GF_THRESHOLD_H
#define GF_THRESHOLD_H

#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's parameters (gf_stage.params). */
typedef struct gf_threshold_params {
    int t;    /* 0..65535 (at most 255 on an 8-bit image); unused with otsu */
    int otsu; /* 1: T is the image's Otsu threshold */
} gf_threshold_params;

/* in (host, any layout, any stride) -> out (host, the same size and
 * layout, allocated by the caller, any stride): each sample
 * out = in > t ? max : 0. gf_threshold_gold goes one sample at a time;
 * gf_threshold_cpu is the CPU backend's path, rows in parallel (OpenMP)
 * with a loop the compiler vectorises. t in 0..max.
 * Returns 0, or GF_EINTERNAL on a size or layout mismatch. */
int gf_threshold_gold(const gf_image *in, gf_image *out, int t);
int gf_threshold_cpu(const gf_image *in, gf_image *out, int t);

/* CUDA launchers (cuda/threshold.cu), as gf_launch_fn, for every layout
 * (each sample alike: the image as one channel of width x channels
 * samples): `global`, one thread per sample; `vector`, 16 bytes per thread
 * as one 16-byte load and store. With otsu both first take the histogram
 * (gf_hist_device) and Otsu's t on the device, in stream-ordered scratch
 * memory. */
int gf_threshold_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);
int gf_threshold_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);

#ifdef __cplusplus
}
#endif

#endif
