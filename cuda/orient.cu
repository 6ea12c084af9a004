/* orient.cu - transpose, transverse, rotate 90/180/270, flip and flop of
 * 8-bit images of any size. Mappings are src/stages/orient.h's, shared with
 * the CPU reference.
 *
 * Origin: the tiled-transpose experiment (seed 2, after NVIDIA's
 * "An Efficient Matrix Transpose in CUDA C/C++"): a naive kernel whose writes
 * are scattered against one that stages tiles in padded shared memory so that
 * reads and writes are both coalesced. Here for bytes, any size, and the
 * reflections and rotations as well. */
#include "check.h"

#include "../src/stages/orient.h"

/* orient_global_kernel: 32x8 threads, one input pixel each. */
#define GLOBAL_BX 32
#define GLOBAL_BY 8

/* orient_shared_kernel: a 64x64-byte tile per block of 16x16 threads; each
 * thread moves one 4-byte word in each of 4 rows, in and out. The tile is
 * staged from aligned words, so it holds up to 3 extra columns on the left
 * (68 in all), plus 1 byte of padding: a column read by 16 threads then hits
 * 16 different banks (row stride 69 bytes). */
#define TILE 64
#define TILE_THREADS 16
#define TILE_WORDS (TILE / 4 + 1)
#define TILE_PITCH (TILE_WORDS * 4 + 1)

/* orient_vector_kernel: 16 output bytes per thread, 64x4 threads a block. */
#define VEC_BYTES 16
#define VEC_BX 64
#define VEC_BY 4

__global__ void orient_global_kernel(const unsigned char *__restrict__ in,
                                     unsigned char *__restrict__ out, int w, int h,
                                     size_t ipitch, size_t opitch, gf_orient_op op)
{
    const int x = blockIdx.x * GLOBAL_BX + threadIdx.x, y = blockIdx.y * GLOBAL_BY + threadIdx.y;
    int ox, oy;

    if (x >= w || y >= h)
        return;
    gf_orient_dest(op, x, y, w, h, &ox, &oy);
    out[(size_t)oy * opitch + ox] = in[(size_t)y * ipitch + x];
}

/* The ops that swap the axes: output pixel (i, j) reads input
 * (sx(j), sy(i)), with sx(j) = j or w-1-j (revx) and sy(i) = i or h-1-i
 * (revy). An output tile thus reads one contiguous 64x64 input block. */
__global__ void __launch_bounds__(TILE_THREADS *TILE_THREADS)
    orient_shared_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                         int w, int h, size_t ipitch, size_t opitch, int revx, int revy)
{
    __shared__ __align__(4) unsigned char tile[TILE][TILE_PITCH];
    const int i0 = blockIdx.x * TILE, j0 = blockIdx.y * TILE; /* output tile origin */
    const int ow = h, oh = w;
    const int xb = revx ? w - TILE - j0 : j0, yb = revy ? h - TILE - i0 : i0;
    const int xa = xb & ~3, d = xb - xa; /* aligned start, and the offset into it */
    const int tid = threadIdx.y * TILE_THREADS + threadIdx.x;

    /* 1. Input rows yb..yb+63, columns xa..xa+67, as aligned words where the
     * whole word is inside the image; cells outside it are zeroed (never
     * stored, but written so no uninitialised byte is read). */
    for (int k = tid; k < TILE * TILE_WORDS; k += TILE_THREADS * TILE_THREADS) {
        const int r = k / TILE_WORDS, wi = k % TILE_WORDS;
        const int gy = yb + r, gx = xa + 4 * wi;
        unsigned v = 0;
        if (gy >= 0 && gy < h) {
            const unsigned char *row = in + (size_t)gy * ipitch;
            if (gx >= 0 && gx + 3 < w) {
                v = *(const unsigned *)(row + gx);
            } else {
                for (int q = 0; q < 4; q++)
                    if (gx + q >= 0 && gx + q < w)
                        v |= (unsigned)row[gx + q] << (8 * q);
            }
        }
        unsigned char *t = &tile[r][4 * wi];
        t[0] = v & 0xff;
        t[1] = (v >> 8) & 0xff;
        t[2] = (v >> 16) & 0xff;
        t[3] = v >> 24;
    }
    __syncthreads();

    /* 2. Output rows j0+jj, 4 bytes at columns i0+4*tx.. each. */
    const int tx = threadIdx.x;
    const int i = i0 + 4 * tx;
    if (i >= ow)
        return; /* no barrier follows */
#pragma unroll
    for (int k = 0; k < TILE / TILE_THREADS; k++) {
        const int jj = threadIdx.y + TILE_THREADS * k, j = j0 + jj;
        if (j >= oh)
            break;
        const int c = revx ? TILE - 1 - jj + d : jj + d;
        unsigned v = 0;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int r = revy ? TILE - 1 - 4 * tx - q : 4 * tx + q;
            v |= (unsigned)tile[r][c] << (8 * q);
        }
        unsigned char *o = out + (size_t)j * opitch + i;
        if (i + 3 < ow) {
            *(unsigned *)o = v;
        } else {
            for (int q = 0; i + q < ow; q++)
                o[q] = (v >> (8 * q)) & 0xff;
        }
    }
}

/* Flip, flop, rotate 180: output row j reads input row (flipy ? h-1-j : j),
 * reversed when revx. 16 output bytes per thread, as 4 aligned words. */
__global__ void orient_vector_kernel(const unsigned char *__restrict__ in,
                                     unsigned char *__restrict__ out, int w, int h,
                                     size_t ipitch, size_t opitch, int revx, int flipy)
{
    const int i = (blockIdx.x * VEC_BX + threadIdx.x) * VEC_BYTES;
    const int j = blockIdx.y * VEC_BY + threadIdx.y;

    if (i >= w || j >= h)
        return;
    const unsigned char *src = in + (size_t)(flipy ? h - 1 - j : j) * ipitch;
    unsigned char *dst = out + (size_t)j * opitch;
    if (!revx) {
        if (i + VEC_BYTES <= w) {
            *(uint4 *)(dst + i) = *(const uint4 *)(src + i);
        } else {
            for (int q = i; q < w; q++)
                dst[q] = src[q];
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < VEC_BYTES / 4; k++) {
        const int o = i + 4 * k; /* output bytes o..o+3 <- input w-1-o .. w-4-o */
        const int s = w - 4 - o;
        if (o >= w)
            break;
        if (s >= 0) {
            const int a = s & ~3, sh = s - a;
            const unsigned lo = *(const unsigned *)(src + a);
            unsigned hi = 0; /* the next word, only when needed and only what is inside */
            if (sh && a + 7 < w)
                hi = *(const unsigned *)(src + a + 4);
            else
                for (int q = 0; q < sh; q++)
                    hi |= (unsigned)src[a + 4 + q] << (8 * q);
            const unsigned sel = (sh + 3) | (sh + 2) << 4 | (sh + 1) << 8 | sh << 12;
            *(unsigned *)(dst + o) = __byte_perm(lo, hi, sel);
        } else {
            for (int q = 0; o + q < w; q++)
                dst[o + q] = src[w - 1 - o - q];
        }
    }
}

enum { ORIENT_GLOBAL, ORIENT_TILED };

static int orient_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                       void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const gf_orient_op o = GF_CPARAMS(s, gf_orient_params)->op;
    const int w = in->width, h = in->height, sw = gf_orient_swaps(o);
    int rc;

    if ((int)o < 0 || o >= GF_ORIENT_NOPS)
        return gf_err(GF_EINTERNAL, NULL, "orient: bad op %d", (int)o);
    if ((rc = gf_dimage_shape(out, sw ? h : w, sw ? w : h)))
        return rc;
    if (variant == ORIENT_GLOBAL) {
        dim3 grid((w + GLOBAL_BX - 1) / GLOBAL_BX, (h + GLOBAL_BY - 1) / GLOBAL_BY);
        orient_global_kernel<<<grid, dim3(GLOBAL_BX, GLOBAL_BY), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, o);
    } else if (sw) {
        dim3 grid((h + TILE - 1) / TILE, (w + TILE - 1) / TILE);
        orient_shared_kernel<<<grid, dim3(TILE_THREADS, TILE_THREADS), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch,
            o == GF_TRANSVERSE || o == GF_ROTATE270, o == GF_TRANSVERSE || o == GF_ROTATE90);
    } else {
        dim3 grid((w + VEC_BX * VEC_BYTES - 1) / (VEC_BX * VEC_BYTES), (h + VEC_BY - 1) / VEC_BY);
        orient_vector_kernel<<<grid, dim3(VEC_BX, VEC_BY), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, o != GF_FLIP, o != GF_FLOP);
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

extern "C" int gf_orient_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return orient_cuda(s, in, out, ORIENT_GLOBAL, stream);
}

/* The tiled kernel for the ops that swap the axes. */
extern "C" int gf_orient_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    if (!gf_orient_swaps(GF_CPARAMS(s, gf_orient_params)->op))
        return gf_err(GF_EINTERNAL, NULL, "orient: shared is for the ops that swap the axes");
    return orient_cuda(s, in, out, ORIENT_TILED, stream);
}

/* The vector kernel for the mirrors. */
extern "C" int gf_orient_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    if (gf_orient_swaps(GF_CPARAMS(s, gf_orient_params)->op))
        return gf_err(GF_EINTERNAL, NULL, "orient: vector is for flip, flop and rotate 180");
    return orient_cuda(s, in, out, ORIENT_TILED, stream);
}
