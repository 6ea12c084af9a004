/* orient.h - transpose, transverse, rotate, flip and flop: the eight
 * symmetries of the rectangle (the dihedral group D4). */
#ifndef GF_ORIENT_H
#define GF_ORIENT_H

#include "../gf.h"

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

/* CPU reference: in (host, w x h, any stride) -> out (host, allocated by the
 * caller with the output size, any stride). Cache-blocked, parallel over
 * blocks of rows (OpenMP). Returns 0, or GF_EINTERNAL on a size mismatch. */
int gf_orient_cpu(const gf_image *in, gf_image *out, gf_orient_op op);

#endif
