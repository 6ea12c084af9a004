/* packed.cuh - the warp-strip walker: one kernel shape for small windows (3x3
 * and 5x5) whose arithmetic runs on whole 32-bit words of samples, several
 * samples an instruction (the edges' 16-bit lanes, morphology's __vminu4,
 * convolution's dp4a). The arithmetic is an "op" and never sees a border,
 * as in OpenCV's FilterEngine: the walker stages every input row, border
 * included, in shared memory first.
 *
 * Shape: a warp owns a strip PK_COLS = 512 bytes wide (lane l the 16 bytes
 * from xs + 16 l, bytes counted along the row: w C sizeof(T) a row) and
 * `rows` output rows (8..PK_ROWS, chosen by pk_launch for the image so that
 * the last wave of warps is nearly full). It stages its rows + 2R input
 * rows, each with PK_HALO = 16 bytes on either side, into shared memory in
 * one go: the
 * 16-byte chunks inside the image by cp.async (sm_80 and later; a load and a
 * store before), so that every chunk of the strip is in flight at once; the
 * few chunks that reach past the row's ends, and the rows outside the image,
 * byte by byte through the border mode (gf_border_index on the pixel and on
 * the row, as the CPU reference pads). Then each lane reads its 16 bytes and
 * HW words either side (HW 4-byte words: R pixels, rounded up to 1, 2 or 4
 * words), the op turns the row into its own form once (prep), and for each
 * output row the op combines the 2R + 1 prepared rows of its window into 16
 * output bytes (apply). The row loop is unrolled over rounds of 2R + 1 rows
 * only, so that the ring's slots are constants and the code fits the
 * instruction cache (unrolled over all 16-20 rows, 44% of the warps' stalls
 * were instruction fetches). A lane whose bytes pass the row's end stores
 * only the bytes inside.
 *
 * An op is a struct, passed as a __grid_constant__ kernel parameter, with
 *   typedef ... row_t;                                  a prepared row
 *   __device__ row_t prep(const unsigned (&wd)[4 + 2 HW]) const;
 *       wd: the row's bytes from 4 HW before the lane's first to 4 HW after
 *       its last, as little-endian words
 *   __device__ uint4 apply(const row_t (&ring)[2R + 1], int first) const;
 *       the lane's 16 output bytes from window rows ring[(first + k) %
 *       (2R + 1)], k = 0..2R from the top
 * `first` is a constant once the walker's round of rows unrolls.
 *
 * Constraints: rows start on 16-byte boundaries (gf_dimage_pitch: 256);
 * R <= 2 and R pixels <= 16 bytes; images up to 65535 x 65535. */
#ifndef GF_PACKED_CUH
#define GF_PACKED_CUH

#include <math.h>
#include <stdint.h>

#include "check.h"

#include "../src/border.h"
#include "../src/gpu.h"

#define PK_COLS 512 /* bytes a warp's strip: 32 lanes of 16 */
#define PK_HALO 16  /* bytes staged on either side of a strip */
#define PK_SROW (PK_COLS + 2 * PK_HALO) /* bytes a staged row */
#define PK_ROWS 16  /* output rows a warp */
#define PK_WARPS 4  /* warps a block */

/* #pragma unroll in code also compiled for the host (whose compiler would
 * warn of an unknown pragma). */
#ifdef __CUDA_ARCH__
#define PK_UNROLL _Pragma("unroll")
#else
#define PK_UNROLL
#endif

/* Words of halo either side of a lane's 16 bytes for R pixels of PB bytes. */
__host__ __device__ constexpr int pk_halo_words(int r, int pb)
{
    return r * pb <= 4 ? 1 : r * pb <= 8 ? 2 : 4;
}

/* Bytes p .. p + 3 of the words w[0..N-1] (p a constant once the callers
 * unroll); bytes past the last word read as 0. */
template <int N>
__host__ __device__ __forceinline__ unsigned pk_bytes_at(const unsigned (&w)[N], int p)
{
    const int q = p / 4, r = p % 4;
    const unsigned lo = w[q], hi = q + 1 < N ? w[q + 1] : 0u;
    if (r == 0)
        return lo;
#ifdef __CUDA_ARCH__
    return __funnelshift_r(lo, hi, 8 * r);
#else
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (8 * r));
#endif
}

/* The 16 bytes of the padded row from byte qx (any; a row of n = w C
 * sizeof(T) bytes), each through the border: row is the image row, or NULL
 * for a row wholly outside (constant border). Bytes from n + 16 on are read
 * by no stored output: 0. */
template <typename T, int C>
__device__ __forceinline__ uint4 pk_border_chunk(const unsigned char *__restrict__ row, int qx,
                                                 int n, int w, gf_border b)
{
    constexpr int PB = C * (int)sizeof(T);
    unsigned wd[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < 16; j++) {
        const int q = qx + j;
        if (q >= n + 16)
            break;
        const int x = q >= 0 ? q / PB : -((PB - 1 - q) / PB); /* floor(q / PB) */
        const int k = q - x * PB;                             /* the byte in its pixel */
        const int xx = gf_border_index(x, w, b.mode);
        const unsigned v = row && xx >= 0 ? row[xx * PB + k]
                                          : ((unsigned)b.value >> (8 * (k % (int)sizeof(T)))) & 255u;
        wd[j / 4] |= v << (8 * (j % 4));
    }
    return make_uint4(wd[0], wd[1], wd[2], wd[3]);
}

/* 16 bytes from global src to shared dst, both 16-byte aligned, queued
 * (cp.async on sm_80 and later; pk_wait makes them visible to the lane). */
__device__ __forceinline__ void pk_copy16(unsigned char *dst, const unsigned char *src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
#else
    *(uint4 *)dst = __ldg((const uint4 *)src);
#endif
}

__device__ __forceinline__ void pk_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

template <typename T, int C, int R, class Op>
__global__ void __launch_bounds__(PK_WARPS * 32, 4)
    packed_walk_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                       int w, int h, size_t ipitch, size_t opitch, gf_border b, int strips_x,
                       int rows, const __grid_constant__ Op op)
{
    constexpr int PB = C * (int)sizeof(T), HW = pk_halo_words(R, PB), K = 2 * R + 1;
    constexpr int NR = PK_ROWS + 2 * R, CHUNKS = PK_SROW / 16;
    static_assert(R >= 1 && 4 * HW <= PK_HALO, "the halo fits the staged bytes");
    __shared__ __align__(16) unsigned char stage[PK_WARPS][NR * PK_SROW];

    const int lane = threadIdx.x % 32, wib = threadIdx.x / 32;
    const long warp = (long)blockIdx.x * PK_WARPS + wib;
    const int y0 = (int)(warp / strips_x) * rows; /* rows <= PK_ROWS */
    const int xs = (int)(warp % strips_x) * PK_COLS; /* the strip's first byte */
    const int n = w * PB;                             /* bytes a row */
    unsigned char *s = stage[wib];

    if (y0 >= h)
        return; /* the whole warp: y0 is the same for all its lanes */
    const int nr = min(rows + 2 * R, h - y0 + 2 * R); /* the rows that some output row reads */

    /* stage rows y0 - R .. y0 - R + nr - 1, bytes xs - PK_HALO .. */
    for (int r = 0; r < nr; r++) {
        const int src = gf_border_index(y0 - R + r, h, b.mode);
        const unsigned char *row = src < 0 ? NULL : in + (size_t)src * ipitch;
        for (int c = lane; c < CHUNKS; c += 32) {
            const int qx = xs - PK_HALO + 16 * c;
            unsigned char *d = s + r * PK_SROW + 16 * c;
            if (row && qx >= 0 && qx + 16 <= n)
                pk_copy16(d, row + qx);
            else
                *(uint4 *)d = pk_border_chunk<T, C>(row, qx, n, w, b);
        }
    }
    pk_wait();
    __syncwarp();

    const int x0 = xs + 16 * lane; /* the lane's first byte */
    const unsigned char *base = s + PK_HALO + 16 * lane;
    typename Op::row_t ring[K]; /* row i in slot i % K */
    /* Row i's words, prepared, into its slot. */
    const auto load = [&](int i, typename Op::row_t &slot) {
        unsigned wd[4 + 2 * HW];
        const unsigned char *p = base + i * PK_SROW;
        const uint4 v = *(const uint4 *)p;
        wd[HW] = v.x, wd[HW + 1] = v.y, wd[HW + 2] = v.z, wd[HW + 3] = v.w;
        if constexpr (HW == 1) {
            wd[0] = *(const unsigned *)(p - 4);
            wd[5] = *(const unsigned *)(p + 16);
        } else if constexpr (HW == 2) {
            const uint2 l = *(const uint2 *)(p - 8), r = *(const uint2 *)(p + 16);
            wd[0] = l.x, wd[1] = l.y, wd[6] = r.x, wd[7] = r.y;
        } else {
            const uint4 l = *(const uint4 *)(p - 16), r = *(const uint4 *)(p + 16);
            wd[0] = l.x, wd[1] = l.y, wd[2] = l.z, wd[3] = l.w;
            wd[8] = r.x, wd[9] = r.y, wd[10] = r.z, wd[11] = r.w;
        }
        slot = op.prep(wd);
    };
#pragma unroll
    for (int i = 0; i < 2 * R; i++)
        load(i, ring[i]);
    /* output rows in rounds of K, unrolled within a round only, so that
     * each slot index is a constant and the code stays small (the
     * instruction cache) */
    for (int i0 = 2 * R; i0 < nr; i0 += K) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int i = i0 + k; /* i % K == (2R + k) % K */
            if (i >= nr)
                break; /* the whole warp */
            load(i, ring[(2 * R + k) % K]);
            const int y = y0 + i - 2 * R;
            const uint4 o = op.apply(ring, k);
            unsigned char *dst = out + (size_t)y * opitch + x0;
            if (x0 + 16 <= n) {
                *(uint4 *)dst = o;
            } else if (x0 < n) { /* the row's last bytes */
                const unsigned ow[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
                for (int j = 0; j < 16; j++)
                    if (x0 + j < n)
                        dst[j] = (unsigned char)(ow[j / 4] >> (8 * (j % 4)));
            }
        }
    }
}

/* Runs op over in -> out (same shape, set by the caller) on stream st:
 * T samples, C channels, window radius R rows (and at most R pixels across,
 * within pk_halo_words). The rows a warp (8..PK_ROWS) are chosen so that
 * the last wave of warps is nearly full, and few rows are staged twice.
 * Returns 0 or GF_EINTERNAL. */
template <typename T, int C, int R, class Op>
static int pk_launch(const Op &op, const gf_dimage *in, gf_dimage *out, gf_border b,
                     cudaStream_t st)
{
    const int w = in->width, h = in->height, n = w * C * (int)sizeof(T);
    const int strips_x = (n + PK_COLS - 1) / PK_COLS;
    int blocks_all, rc, rows = PK_ROWS;
    double best = -1;

    if ((rc = gf_cuda_resident((const void *)packed_walk_kernel<T, C, R, Op>, PK_WARPS * 32, 0,
                               &blocks_all)))
        return rc;
    /* the warps resident at once */
    const double resident = (double)(blocks_all > 0 ? blocks_all : 1) * PK_WARPS;
    for (int r = 8; r <= PK_ROWS; r++) {
        const double waves = (double)strips_x * ((h + r - 1) / r) / resident;
        const double eff = waves / ceil(waves) * r / (r + 2 * R);
        if (eff > best)
            best = eff, rows = r;
    }
    const long warps = (long)strips_x * ((h + rows - 1) / rows);
    const unsigned blocks = (unsigned)((warps + PK_WARPS - 1) / PK_WARPS);
    packed_walk_kernel<T, C, R, Op><<<blocks, PK_WARPS * 32, 0, st>>>(
        in->data, out->data, w, h, in->pitch, out->pitch, b, strips_x, rows, op);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

#endif
