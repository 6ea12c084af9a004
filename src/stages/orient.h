/* orient.h - the orientation stages: transpose, transverse, rotate
 * 90/180/270 (clockwise), flip and flop, the eight symmetries of the
 * rectangle (the dihedral group D4). Two stage kinds share this file: the
 * ops that swap the axes (gf_stage_transpose, tiled kernels) and the mirrors
 * (gf_stage_mirror, no tile needed). Shared by src/stages/orient.c and
 * cuda/orient.cu. */
#ifndef GF_ORIENT_H
#define GF_ORIENT_H

#include "../gf.h"
#include "../stage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gf_orient_op {
    GF_TRANSPOSE = 0, /* swap the axes (reflect about the main diagonal): numpy a.T */
    GF_TRANSVERSE,    /* reflect about the anti-diagonal: numpy rot90(a, 2).T */
    GF_ROTATE90,      /* clockwise: numpy rot90(a, -1) */
    GF_ROTATE270,     /* clockwise: numpy rot90(a, -3) */
    GF_ROTATE180,     /* numpy rot90(a, 2) */
    GF_FLIP,          /* top to bottom: numpy flipud(a) */
    GF_FLOP,          /* left to right: numpy fliplr(a) */
    GF_ORIENT_NOPS
} gf_orient_op;

/* The stage's parameters (gf_stage.params). */
typedef struct gf_orient_params {
    gf_orient_op op;
} gf_orient_params;

/* 1 when op swaps width and height (transpose, transverse, rotate 90/270). */
static inline int gf_orient_swaps(gf_orient_op op)
{
    return op <= GF_ROTATE270;
}

/* Where input pixel (x, y) of a w x h image lands in the output (whose size
 * is h x w when the op swaps, else w x h). Host and device. */
#ifdef __CUDACC__
__host__ __device__ __forceinline__
#else
static inline
#endif
void gf_orient_dest(gf_orient_op op, int x, int y, int w, int h, int *ox, int *oy)
{
    switch (op) {
    case GF_TRANSPOSE: *ox = y; *oy = x; break;
    case GF_TRANSVERSE: *ox = h - 1 - y; *oy = w - 1 - x; break;
    case GF_ROTATE90: *ox = h - 1 - y; *oy = x; break;
    case GF_ROTATE270: *ox = y; *oy = w - 1 - x; break;
    case GF_ROTATE180: *ox = w - 1 - x; *oy = h - 1 - y; break;
    case GF_FLIP: *ox = x; *oy = h - 1 - y; break;
    default: *ox = w - 1 - x; *oy = y; break; /* GF_FLOP */
    }
}

/* in (host, w x h of any layout, any stride) -> out (host, allocated by
 * the caller with the output size and the same layout, any stride): whole
 * pixels move, their samples in order. gf_orient_gold moves one pixel at a
 * time by gf_orient_dest: the reference. gf_orient_cpu is the CPU backend's
 * path: cache-blocked, parallel over blocks of rows (OpenMP); equal to the
 * gold. Returns 0, or GF_EINTERNAL on a size or layout mismatch. */
int gf_orient_gold(const gf_image *in, gf_image *out, gf_orient_op op);
int gf_orient_cpu(const gf_image *in, gf_image *out, gf_orient_op op);

/* The stage that op belongs to: gf_stage_transpose or gf_stage_mirror. */
const gf_stage_ops *gf_orient_stage(gf_orient_op op);

/* CUDA launchers (cuda/orient.cu), as gf_launch_fn, for every layout (a
 * pixel of 1 to 8 bytes). `global`: one thread per input pixel, reads
 * coalesced, writes scattered (the naive transpose of seed 2), for every
 * op. `shared` (the ops that swap the axes): tiles of 64x64 bytes of
 * 8u_C1, or of pixels, staged in shared memory with padding against bank
 * conflicts, so reads and writes are both coalesced (seed 2's tiled
 * transpose). `vector`, 16-byte loads and stores: for 8u_C1 and the ops
 * that swap the axes, 128x128 tiles staged as words in shared memory
 * (swizzled against bank conflicts) and transposed 4x4 bytes at a time in
 * registers; for other layouts, tiles of pixels staged in shared memory
 * and each output row's 16-byte vectors gathered from it; for flip, rows
 * copied 16 bytes a lane; for flop and rotate 180 of 8u_C1, a lane reverses
 * one aligned 16-byte vector and its neighbour's (by shuffle) with funnel
 * shifts and byte permutes, and of other layouts, a row's pixels staged in
 * shared memory and gathered reversed. */
int gf_orient_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_orient_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);
int gf_orient_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
