/* crop.h - the crop stage: --crop WxH+X+Y (ImageMagick's geometry; WxH
 * alone is +0+0), the region cut to the image as `convert -crop GEOMETRY
 * +repage` cuts it. Shared by src/stages/crop.c and cuda/crop.cu. */
#ifndef GF_CROP_H
#define GF_CROP_H

#include "../geometry.h"
#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stage's parameters (gf_stage.params). */
typedef struct gf_crop_params {
    gf_crop region;
    char text[48]; /* the geometry as given, for labels and messages */
} gf_crop_params;

/* The region of s in an image of w x h: 0 with its left, top, width and
 * height (>= 1), or -1 when it lies wholly outside the image. */
int gf_crop_of(const gf_stage *s, int w, int h, int *x, int *y, int *cw, int *ch);

/* CUDA launchers (cuda/crop.cu), as gf_launch_fn, every layout: `copy` (the
 * baseline), the region's rows by one 2-D device-to-device copy; `vector`
 * (the default), a kernel of aligned 16-byte stores, the input's bytes
 * funnel-shifted from the aligned vectors around them (it reads up to 15
 * bytes either side of a row of the region, within the input row's pitch). */
int gf_crop_copy_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_crop_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
