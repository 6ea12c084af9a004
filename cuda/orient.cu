/* orient.cu - transpose, transverse, rotate 90/180/270, flip and flop of
 * images of any size and layout (pixels of P = 1 to 8 bytes move whole).
 * Mappings are src/stages/orient.h's, shared with the CPU reference.
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


/* Copies a pixel of P bytes (1, 2, 3, 4, 6 or 8) from s to d, in the
 * widest units its alignment allows: rows start on 256-byte boundaries, so
 * a pixel's offset is a multiple of P. */
template <int P>
__device__ __forceinline__ void copy_px(unsigned char *__restrict__ d,
                                        const unsigned char *__restrict__ s)
{
    if (P == 8) {
        *(uint2 *)(void *)d = *(const uint2 *)(const void *)s;
    } else if (P == 4) {
        *(unsigned *)(void *)d = *(const unsigned *)(const void *)s;
    } else if (P % 2 == 0) {
#pragma unroll
        for (int k = 0; k < P / 2; k++)
            ((uint16_t *)(void *)d)[k] = ((const uint16_t *)(const void *)s)[k];
    } else {
#pragma unroll
        for (int k = 0; k < P; k++)
            d[k] = s[k];
    }
}

/* Calls CALL(P) with the pixel bytes P (1, 2, 3, 4, 6 or 8) as a constant. */
#define PIXEL_SWITCH(bytes, CALL)                                                             \
    switch (bytes) {                                                                          \
    case 1: CALL(1); break;                                                                   \
    case 2: CALL(2); break;                                                                   \
    case 3: CALL(3); break;                                                                   \
    case 4: CALL(4); break;                                                                   \
    case 6: CALL(6); break;                                                                   \
    default: CALL(8); break;                                                                  \
    }

template <int P>
__global__ void orient_global_kernel(const unsigned char *__restrict__ in,
                                     unsigned char *__restrict__ out, int w, int h,
                                     size_t ipitch, size_t opitch, gf_orient_op op)
{
    const int x = blockIdx.x * GLOBAL_BX + threadIdx.x, y = blockIdx.y * GLOBAL_BY + threadIdx.y;
    int ox, oy;

    if (x >= w || y >= h)
        return;
    gf_orient_dest(op, x, y, w, h, &ox, &oy);
    copy_px<P>(out + (size_t)oy * opitch + (size_t)ox * P, in + (size_t)y * ipitch + (size_t)x * P);
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

/* orient_vector_kernel (flip, flop, rotate 180): output row j is input row
 * (flipy ? h-1-j : j), reversed when revx. A lane writes 16 output bytes
 * from one aligned 16-byte load and one store: reversed, output bytes
 * o..o+15 come from input bytes w-16-o .. w-1-o, which start s = w % 16
 * bytes into the aligned vector at a = w - s - 16 - o; the vector after it
 * is the left neighbour lane's, taken by shuffle (lane 0 loads its own).
 * 32x8 threads a block, a warp along a row. */
#define MIRROR_BX 32
#define MIRROR_BY 8

/* Reversed 4 bytes starting at byte `sh` of word i of the 8 words v:
 * funnel-shifted, then byte-swapped. */
#define REV4(v, i, sh) __byte_perm(__funnelshift_r((v)[i], (v)[(i) + 1], 8 * (sh)), 0, 0x0123)

__global__ void __launch_bounds__(MIRROR_BX *MIRROR_BY)
    orient_vector_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                         int w, int h, size_t ipitch, size_t opitch, int revx, int flipy)
{
    const int o = (blockIdx.x * MIRROR_BX + threadIdx.x) * 16;
    const int j = blockIdx.y * MIRROR_BY + threadIdx.y;

    if (j >= h)
        return; /* the whole warp: a warp is one row */
    const unsigned char *src = in + (size_t)(flipy ? h - 1 - j : j) * ipitch;
    unsigned char *dst = out + (size_t)j * opitch;
    uint4 r;
    if (!revx) {
        if (o >= w)
            return;
        if (o + 16 > w) {
            for (int q = o; q < w; q++)
                dst[q] = src[q];
            return;
        }
        *(uint4 *)(dst + o) = __ldg((const uint4 *)(src + o));
        return;
    }
    const int s = w % 16, a = w - s - 16 - o;
    /* a >= 0, or a == -16 for the last vector of a row; every lane takes
     * part in the shuffle. */
    const uint4 c0 = a >= 0 ? __ldg((const uint4 *)(src + a)) : make_uint4(0, 0, 0, 0);
    uint4 c1;
    c1.x = __shfl_up_sync(0xffffffffu, c0.x, 1);
    c1.y = __shfl_up_sync(0xffffffffu, c0.y, 1);
    c1.z = __shfl_up_sync(0xffffffffu, c0.z, 1);
    c1.w = __shfl_up_sync(0xffffffffu, c0.w, 1);
    if (o >= w)
        return;
    if (s && threadIdx.x == 0) /* ends inside the pitch, which is >= w - s + 16 */
        c1 = __ldg((const uint4 *)(src + a + 16));
    const unsigned v[8] = {c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w};
    const int sh = s % 4;
    /* output word k is input bytes s+12-4k .. s+15-4k of v, reversed */
    switch (s / 4) {
    case 0:
        r = make_uint4(REV4(v, 3, sh), REV4(v, 2, sh), REV4(v, 1, sh), REV4(v, 0, sh));
        break;
    case 1:
        r = make_uint4(REV4(v, 4, sh), REV4(v, 3, sh), REV4(v, 2, sh), REV4(v, 1, sh));
        break;
    case 2:
        r = make_uint4(REV4(v, 5, sh), REV4(v, 4, sh), REV4(v, 3, sh), REV4(v, 2, sh));
        break;
    default:
        r = make_uint4(REV4(v, 6, sh), REV4(v, 5, sh), REV4(v, 4, sh), REV4(v, 3, sh));
        break;
    }
    if (o + 16 <= w) {
        *(uint4 *)(dst + o) = r;
    } else {
        const unsigned words[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
        for (int q = 0; q < 16; q++)
            if (o + q < w)
                dst[o + q] = (words[q / 4] >> (8 * (q % 4))) & 0xffu;
    }
}

/* orient_tile_kernel (transpose, transverse, rotate 90 and 270): a block of
 * 256 threads moves a 128x128 tile with 16-byte loads and stores. Input
 * columns xa.. (aligned) and 128 rows are staged as words in shared memory;
 * a thread then reads 16 words down one word column, transposes them 4x4
 * bytes at a time in registers (8 byte permutes each) and stores 4 output
 * rows of 16 bytes. Word column c of tile row r lives at c ^ 4*(r/16 % 8),
 * so both the staging stores and the column reads of a warp touch 32
 * different banks. With revy the tile's rows are counted from the bottom,
 * so output columns still start on 16-byte boundaries. */
#define TT 128
#define TT_THREADS 256

template <bool REVX, bool REVY>
__global__ void __launch_bounds__(TT_THREADS)
    orient_tile_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                       int w, int h, size_t ipitch, size_t opitch)
{
    __shared__ __align__(16) unsigned tile[TT][TT / 4];
    const int t = threadIdx.x;
    const int xa = blockIdx.x * TT;                                   /* input columns */
    const int ya = REVY ? h - TT * (blockIdx.y + 1) : TT * blockIdx.y; /* input rows */
    const int oc0 = TT * blockIdx.y;                                  /* output columns */

    /* 1. Stage: thread t loads 16 bytes of rows t/8 + 32k, columns 16*(t%8). */
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int r = t / 8 + 32 * k, y = ya + r, x = xa + 16 * (t % 8);
        v[k] = y >= 0 && y < h && x < w ? __ldg((const uint4 *)(in + (size_t)y * ipitch + x))
                                        : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int r = t / 8 + 32 * k;
        *(uint4 *)&tile[r][(4 * (t % 8)) ^ (4 * ((r / 16) % 8))] = v[k];
    }
    __syncthreads();

    /* 2. Thread t: word column wc (input columns 4wc..4wc+3, 4 output
     * rows) and output columns oc0 + 16ib .. +15; the 8 threads of one wc
     * write 128 contiguous output bytes. */
    const int ib = t % 8, wc = t / 8;
    unsigned m[16];
#pragma unroll
    for (int q = 0; q < 16; q++) {
        const int c = 16 * ib + q, r = REVY ? TT - 1 - c : c;
        m[q] = tile[r][wc ^ (4 * ((r / 16) % 8))];
    }
    unsigned o[4][4]; /* o[b][g]: output row 4wc+b, columns 16ib+4g .. +3 */
#pragma unroll
    for (int g = 0; g < 4; g++) {
        const unsigned a0 = m[4 * g], a1 = m[4 * g + 1], a2 = m[4 * g + 2], a3 = m[4 * g + 3];
        const unsigned t0 = __byte_perm(a0, a1, 0x5140), t1 = __byte_perm(a0, a1, 0x7362);
        const unsigned t2 = __byte_perm(a2, a3, 0x5140), t3 = __byte_perm(a2, a3, 0x7362);
        o[0][g] = __byte_perm(t0, t2, 0x5410);
        o[1][g] = __byte_perm(t0, t2, 0x7632);
        o[2][g] = __byte_perm(t1, t3, 0x5410);
        o[3][g] = __byte_perm(t1, t3, 0x7632);
    }
    const int oc = oc0 + 16 * ib; /* output width is h */
#pragma unroll
    for (int b = 0; b < 4; b++) {
        const int x = xa + 4 * wc + b;
        if (x >= w || oc >= h)
            continue;
        unsigned char *d = out + (size_t)(REVX ? w - 1 - x : x) * opitch + oc;
        if (oc + 16 <= h) {
            *(uint4 *)d = make_uint4(o[b][0], o[b][1], o[b][2], o[b][3]);
        } else {
#pragma unroll
            for (int q = 0; q < 16; q++)
                if (oc + q < h)
                    d[q] = (o[b][q / 4] >> (8 * (q % 4))) & 0xffu;
        }
    }
}

/* orient_shared_px_kernel (the ops that swap the axes, pixels of P > 1
 * bytes): a 32x32-pixel tile per block of 32x8 threads, staged pixel by
 * pixel in shared memory whose rows are padded to an odd number of words,
 * so that reading a column hits 32 banks; reads and writes both go along
 * rows. Output pixel (i, j) reads input (sx(j), sy(i)). */
#define PX_TILE 32
#define PX_BY 8

template <int P>
__global__ void __launch_bounds__(PX_TILE *PX_BY)
    orient_shared_px_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                            int w, int h, size_t ipitch, size_t opitch, int revx, int revy)
{
    constexpr int PITCH = PX_TILE * P + 4; /* bytes: an odd number of words */
    __shared__ __align__(8) unsigned char tile[PX_TILE][PITCH];
    const int i0 = blockIdx.x * PX_TILE, j0 = blockIdx.y * PX_TILE; /* output tile origin */
    const int tx = threadIdx.x;

    /* tile[ii][jj] = input (sx(j0 + jj), sy(i0 + ii)) */
    for (int ii = threadIdx.y; ii < PX_TILE; ii += PX_BY) {
        const int i = i0 + ii, j = j0 + tx;
        if (i < h && j < w) {
            const int x = revx ? w - 1 - j : j, y = revy ? h - 1 - i : i;
            const unsigned char *src = in + (size_t)y * ipitch + (size_t)x * P;
#pragma unroll
            for (int k = 0; k < P; k++)
                tile[ii][tx * P + k] = src[k];
        }
    }
    __syncthreads();
    /* output row j0 + jj, pixel i0 + tx */
    for (int jj = threadIdx.y; jj < PX_TILE; jj += PX_BY) {
        const int i = i0 + tx, j = j0 + jj;
        if (i < h && j < w) {
            unsigned char *dst = out + (size_t)j * opitch + (size_t)i * P;
#pragma unroll
            for (int k = 0; k < P; k++)
                dst[k] = tile[tx][jj * P + k];
        }
    }
}

/* orient_tile_px_kernel (the ops that swap the axes, pixels of P > 1
 * bytes; the `vector` variant): a block of 256 threads moves a 64x64-pixel
 * tile with 16-byte loads and stores. Input columns xa.. (aligned) and 64
 * rows are staged in shared memory as words (rows padded to an odd number
 * of words, so a column of the tile reads from 32 banks); then each thread
 * gathers P 16-byte vectors of output rows from it, a byte (or, for even P,
 * two) at a time, and stores each whole. With revy the tile's rows are
 * counted from the bottom, so output stores stay aligned, as in
 * orient_tile_kernel. */
#define TP 64
#define TP_THREADS 256

template <int P, bool REVX, bool REVY>
__global__ void __launch_bounds__(TP_THREADS)
    orient_tile_px_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int w, int h, size_t ipitch, size_t opitch)
{
    constexpr int ROW = TP * P;    /* bytes of a tile row */
    constexpr int PITCH = ROW + 4; /* an odd number of words */
    constexpr int VECS = ROW / 16; /* 16-byte vectors a tile row */
    __shared__ __align__(16) unsigned char tile[TP * PITCH];
    const int t = threadIdx.x;
    const int xa = blockIdx.x * TP;                                   /* input columns */
    const int ya = REVY ? h - TP * (blockIdx.y + 1) : TP * blockIdx.y; /* input rows */
    const int oc0 = TP * blockIdx.y;                                  /* output columns */
    const size_t rowbytes = (size_t)w * P;

    /* 1. Stage: vector v of tile row r, as 4 words. */
    for (int q = t; q < TP * VECS; q += TP_THREADS) {
        const int r = q / VECS, v = q % VECS, y = ya + r;
        const size_t off = (size_t)xa * P + 16 * (size_t)v;
        uint4 val = make_uint4(0, 0, 0, 0);
        if (y >= 0 && y < h && off < rowbytes) /* the vector ends inside the pitch */
            val = __ldg((const uint4 *)(in + (size_t)y * ipitch + off));
        unsigned *d = (unsigned *)(void *)(tile + r * PITCH + 16 * v);
        d[0] = val.x, d[1] = val.y, d[2] = val.z, d[3] = val.w;
    }
    __syncthreads();

    /* 2. Output: vector k of the output row of tile column j (input column
     * xa + j), whose bytes are pixels i = b / P (input row ya + i, or
     * ya + TP-1-i with REVY), channel bytes b % P. */
    for (int q = t; q < TP * VECS; q += TP_THREADS) {
        const int j = q / VECS, k = q % VECS, x = xa + j;
        const size_t ob = (size_t)oc0 * P + 16 * (size_t)k; /* byte in the output row */
        if (x >= w || ob >= (size_t)h * P)
            continue;
        unsigned wd[4];
        if (P % 2 == 0) {
#pragma unroll
            for (int m = 0; m < 8; m++) {
                const int b = 16 * k + 2 * m, i = b / P, r = REVY ? TP - 1 - i : i;
                const unsigned v = *(const uint16_t *)(const void *)(tile + r * PITCH + j * P +
                                                                     b % P);
                wd[m / 2] = m % 2 ? wd[m / 2] | v << 16 : v;
            }
        } else {
#pragma unroll
            for (int m = 0; m < 16; m++) {
                const int b = 16 * k + m, i = b / P, r = REVY ? TP - 1 - i : i;
                const unsigned v = tile[r * PITCH + j * P + b % P];
                wd[m / 4] = m % 4 ? wd[m / 4] | v << (8 * (m % 4)) : v;
            }
        }
        unsigned char *d = out + (size_t)(REVX ? w - 1 - x : x) * opitch + ob;
        if (ob + 16 <= (size_t)h * P) {
            *(uint4 *)(void *)d = make_uint4(wd[0], wd[1], wd[2], wd[3]);
        } else {
            const size_t left = (size_t)h * P - ob;
#pragma unroll
            for (int m = 0; m < 16; m++)
                if ((size_t)m < left)
                    d[m] = (wd[m / 4] >> (8 * (m % 4))) & 0xffu;
        }
    }
}

/* orient_flop_px_kernel (flop and rotate 180, pixels of P > 1 bytes; the
 * `vector` variant): a thread writes 16 output pixels o0 .. o0+15 of a row,
 * 16 P bytes stored as P aligned 16-byte vectors (rows start aligned and
 * o0 P is a multiple of 16). They are input pixels w-16-o0 .. w-1-o0
 * reversed, 16 P contiguous bytes that start s = (w P) % 16 bytes into an
 * aligned vector, the same s for every thread of the row. A thread loads P
 * aligned vectors (P + 1 when s > 0; the last ends inside the pitch),
 * realigns them by s with funnel shifts and reverses the pixels with
 * constant indices, in units of 4, 2 or 1 bytes as P allows. The last
 * thread of a row, with fewer than 16 pixels, copies them one at a time.
 * 32x8 threads a block, a warp along a row, as orient_vector_kernel. */
#define FLOP_PX 16

/* Unit i (of U bytes) of the words wd. */
template <int U>
__device__ __forceinline__ unsigned unit_at(const unsigned *wd, int i)
{
    return U == 4 ? wd[i] : U == 2 ? (wd[i / 2] >> (16 * (i % 2))) & 0xffffu
                                   : (wd[i / 4] >> (8 * (i % 4))) & 0xffu;
}

template <int P>
__global__ void __launch_bounds__(MIRROR_BX *MIRROR_BY)
    orient_flop_px_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int w, int h, size_t ipitch, size_t opitch, int flipy)
{
    constexpr int NW = FLOP_PX * P / 4;                  /* words of 16 pixels */
    constexpr int U = P % 4 == 0 ? 4 : P % 2 == 0 ? 2 : 1; /* bytes a unit */
    constexpr int PU = P / U, WU = 4 / U;                /* units a pixel, a word */
    const int o0 = (blockIdx.x * MIRROR_BX + threadIdx.x) * FLOP_PX;
    const int j = blockIdx.y * MIRROR_BY + threadIdx.y;

    if (j >= h || o0 >= w)
        return;
    const unsigned char *src = in + (size_t)(flipy ? h - 1 - j : j) * ipitch;
    unsigned char *dst = out + (size_t)j * opitch + (size_t)o0 * P;
    if (o0 + FLOP_PX > w) {
        for (int o = o0; o < w; o++)
            copy_px<P>(dst + (size_t)(o - o0) * P, src + (size_t)(w - 1 - o) * P);
        return;
    }
    const size_t start = (size_t)(w - FLOP_PX - o0) * P;
    const int s = (int)(start % 16), sh = 8 * (s % 4);
    const uint4 *a = (const uint4 *)(const void *)(src + start - s);
    unsigned v[NW + 4], wd[NW];
#pragma unroll
    for (int q = 0; q <= P; q++) {
        const uint4 t = q < P || s ? __ldg(a + q) : make_uint4(0, 0, 0, 0);
        v[4 * q] = t.x, v[4 * q + 1] = t.y, v[4 * q + 2] = t.z, v[4 * q + 3] = t.w;
    }
#define ALIGN(k)                                                                              \
    _Pragma("unroll") for (int i = 0; i < NW; i++) wd[i] = __funnelshift_r(v[i + (k)], v[i + (k) + 1], sh)
    switch (s / 4) {
    case 0: ALIGN(0); break;
    case 1: ALIGN(1); break;
    case 2: ALIGN(2); break;
    default: ALIGN(3); break;
    }
#undef ALIGN
    /* output unit u: pixel u / PU, unit u % PU of it, from input pixel
     * FLOP_PX-1 - u / PU */
    unsigned r[NW];
#pragma unroll
    for (int k = 0; k < NW; k++) {
        unsigned x = 0;
#pragma unroll
        for (int b = 0; b < WU; b++) {
            const int u = WU * k + b;
            x |= unit_at<U>(wd, (FLOP_PX - 1 - u / PU) * PU + u % PU) << (8 * U * b);
        }
        r[k] = x;
    }
#pragma unroll
    for (int q = 0; q < P; q++)
        ((uint4 *)(void *)dst)[q] = make_uint4(r[4 * q], r[4 * q + 1], r[4 * q + 2], r[4 * q + 3]);
}

enum { ORIENT_GLOBAL, ORIENT_SHARED, ORIENT_VECTOR };

/* The ops that swap the axes with 16-byte vectors, for pixels of P bytes. */
template <int P>
static void launch_tile(const gf_dimage *in, gf_dimage *out, int revx, int revy, cudaStream_t st)
{
    const int w = in->width, h = in->height;

    if (P == 1) {
        dim3 grid((w + TT - 1) / TT, (h + TT - 1) / TT);
        auto k = revx ? (revy ? orient_tile_kernel<true, true> : orient_tile_kernel<true, false>)
                      : (revy ? orient_tile_kernel<false, true> : orient_tile_kernel<false, false>);
        k<<<grid, TT_THREADS, 0, st>>>(in->data, out->data, w, h, in->pitch, out->pitch);
        return;
    }
    constexpr int Q = P == 1 ? 2 : P; /* P 1 never gets here */
    dim3 grid((w + TP - 1) / TP, (h + TP - 1) / TP);
    auto k = revx ? (revy ? orient_tile_px_kernel<Q, true, true> : orient_tile_px_kernel<Q, true, false>)
                  : (revy ? orient_tile_px_kernel<Q, false, true> : orient_tile_px_kernel<Q, false, false>);
    k<<<grid, TP_THREADS, 0, st>>>(in->data, out->data, w, h, in->pitch, out->pitch);
}

static int orient_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                       void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const gf_orient_op o = GF_CPARAMS(s, gf_orient_params)->op;
    const int w = in->width, h = in->height, sw = gf_orient_swaps(o);
    const int px = (int)GF_PIXEL_BYTES(in->channels, in->bits);
    const gf_shape os = {sw ? h : w, sw ? w : h, in->channels, in->bits};
    int rc;

    if ((int)o < 0 || o >= GF_ORIENT_NOPS)
        return gf_err(GF_EINTERNAL, NULL, "orient: bad op %d", (int)o);
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    const int revx = o == GF_TRANSVERSE || o == GF_ROTATE270;
    const int revy = o == GF_TRANSVERSE || o == GF_ROTATE90;
    if (variant == ORIENT_GLOBAL) {
        dim3 grid((w + GLOBAL_BX - 1) / GLOBAL_BX, (h + GLOBAL_BY - 1) / GLOBAL_BY);
#define LAUNCH(P)                                                                             \
    orient_global_kernel<P><<<grid, dim3(GLOBAL_BX, GLOBAL_BY), 0, st>>>(                     \
        in->data, out->data, w, h, in->pitch, out->pitch, o)
        PIXEL_SWITCH(px, LAUNCH)
#undef LAUNCH
    } else if (sw && variant == ORIENT_SHARED && px == 1) {
        dim3 grid((h + TILE - 1) / TILE, (w + TILE - 1) / TILE);
        orient_shared_kernel<<<grid, dim3(TILE_THREADS, TILE_THREADS), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, revx, revy);
    } else if (sw && variant == ORIENT_SHARED) {
        dim3 grid((h + PX_TILE - 1) / PX_TILE, (w + PX_TILE - 1) / PX_TILE);
#define LAUNCH(P)                                                                             \
    orient_shared_px_kernel<P><<<grid, dim3(PX_TILE, PX_BY), 0, st>>>(                        \
        in->data, out->data, w, h, in->pitch, out->pitch, revx, revy)
        PIXEL_SWITCH(px, LAUNCH)
#undef LAUNCH
    } else if (sw) {
#define LAUNCH(P) launch_tile<P>(in, out, revx, revy, st)
        PIXEL_SWITCH(px, LAUNCH)
#undef LAUNCH
    } else if (o == GF_FLIP || px == 1) {
        /* 16-byte accesses (rows are on GF_PITCH_ALIGN boundaries); a flip
         * moves whole rows, so any layout is a row of bytes */
        const int n = o == GF_FLIP ? w * px : w;
        dim3 grid((n + 16 * MIRROR_BX - 1) / (16 * MIRROR_BX), (h + MIRROR_BY - 1) / MIRROR_BY);
        orient_vector_kernel<<<grid, dim3(MIRROR_BX, MIRROR_BY), 0, st>>>(
            in->data, out->data, n, h, in->pitch, out->pitch, o != GF_FLIP, o != GF_FLOP);
    } else {
        dim3 grid((w + FLOP_PX * MIRROR_BX - 1) / (FLOP_PX * MIRROR_BX),
                  (h + MIRROR_BY - 1) / MIRROR_BY);
#define LAUNCH(P)                                                                             \
    orient_flop_px_kernel<P><<<grid, dim3(MIRROR_BX, MIRROR_BY), 0, st>>>(                    \
        in->data, out->data, w, h, in->pitch, out->pitch, o != GF_FLOP)
        PIXEL_SWITCH(px, LAUNCH)
#undef LAUNCH
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

extern "C" int gf_orient_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return orient_cuda(s, in, out, ORIENT_GLOBAL, stream);
}

/* The shared-memory tiled kernel, for the ops that swap the axes. */
extern "C" int gf_orient_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    if (!gf_orient_swaps(GF_CPARAMS(s, gf_orient_params)->op))
        return gf_err(GF_EINTERNAL, NULL, "orient: shared is for the ops that swap the axes");
    return orient_cuda(s, in, out, ORIENT_SHARED, stream);
}

/* The 16-byte kernels: tiles for the ops that swap the axes, rows for the
 * mirrors. */
extern "C" int gf_orient_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return orient_cuda(s, in, out, ORIENT_VECTOR, stream);
}
