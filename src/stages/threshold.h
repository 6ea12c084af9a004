/* threshold.h - the binary threshold stage: --threshold T|otsu. A pixel
 * greater than T becomes 255, any other 0 (ImageMagick's -threshold,
 * OpenCV's THRESH_BINARY). With otsu, T is the image's own Otsu threshold
 * (src/otsu.h), so the upper class [T+1, 255] becomes 255. Shared by
 * src/stages/threshold.c and cuda/threshold.cu. */
#ifndef GF_THRESHOLD_H
#define GF_THRESHOLD_H

#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's parameters (gf_stage.params). */
typedef struct gf_threshold_params {
    int t;    /* 0..255; unused with otsu */
    int otsu; /* 1: T is the image's Otsu threshold */
} gf_threshold_params;

/* in (host, any stride) -> out (host, the same size, allocated by the
 * caller, any stride): out = in > t ? 255 : 0. gf_threshold_gold goes one
 * pixel at a time; gf_threshold_cpu is the CPU backend's path, rows in
 * parallel (OpenMP) with a loop the compiler vectorises. t in 0..255.
 * Returns 0, or GF_EINTERNAL on a size mismatch. */
int gf_threshold_gold(const gf_image *in, gf_image *out, int t);
int gf_threshold_cpu(const gf_image *in, gf_image *out, int t);

/* CUDA launchers (cuda/threshold.cu), as gf_launch_fn: `global`, one thread
 * per pixel; `vector`, 16 pixels per thread as one 16-byte load and store.
 * With otsu both first take the histogram (gf_hist_device) and Otsu's t on
 * the device (one block), in stream-ordered scratch memory. */
int gf_threshold_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);
int gf_threshold_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                             void *stream);

#ifdef __cplusplus
}
#endif

#endif
