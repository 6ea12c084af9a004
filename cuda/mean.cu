/* mean.cu - box mean (box filter) kernels: the box-mean experiment's own for
 * 3x3 and 5x5, every other window on the stencil framework. Every pixel and
 * channel written with the border modes of src/border.h, for every layout:
 * the 8-bit gray kernels first, then those of the other layouts. The
 * rounding and border rules are the CPU reference's (src/stages/mean.c);
 * every variant equals it bit for bit.
 *
 * Origin: the box-mean experiment in docs (seed 1): a non-shared kernel with
 * one thread per pixel and a shared-memory kernel that stages rows plus
 * halo. The seed skipped borders and its shared kernel read shared cells
 * nothing wrote; these do neither. */
#include "check.h"
#include "stencil.cuh"

#include "../src/stages/mean.h"

/* mean_global_kernel: 128x1 blocks, as the seed's non-shared kernel. */
#define GLOBAL_BLOCK_X 128

/* mean_shared_kernel geometry. A block of 32x8 threads writes a 128x64-pixel
 * tile: each thread 4 adjacent pixels (one 4-byte store; a warp stores one
 * 128-byte row segment) in 8 consecutive rows (the vertical window slides
 * down them, so each partial sum is read once per row). 8 rows rather than 4:
 * 5x5 0.100 -> 0.092 ms on the H100. */
#define THREADS_X 32
#define THREADS_Y 8
#define PIX_X 4
#define PIX_Y 8
#define TILE_W (THREADS_X * PIX_X)
#define TILE_H (THREADS_Y * PIX_Y)
/* The left and right halo is 16 bytes (>= the radius 2), so an interior
 * tile loads as aligned 16-byte vectors: the pitch is a multiple of 256 and
 * x0 of 128. Edge tiles load 4-byte words. */
#define HALO_W 16

template <int R>
__device__ __forceinline__ unsigned char round_mean(unsigned sum)
{
    constexpr unsigned area = (2 * R + 1) * (2 * R + 1);
    return (unsigned char)((2 * sum + area) / (2 * area));
}

/* The pixel at column xx, row yy as gf_border_index gives them: the
 * constant border's value where either is -1. */
__device__ __forceinline__ unsigned border_pixel(const unsigned char *in, size_t pitch, int xx,
                                                 int yy, gf_border b)
{
    return (xx < 0 || yy < 0) ? (unsigned)b.value : in[(size_t)yy * pitch + xx];
}

/* Pixel (x, y) of the padded image (any x, y). */
__device__ __forceinline__ unsigned padded(const unsigned char *in, size_t pitch, int x, int y,
                                           int w, int h, gf_border b)
{
    return border_pixel(in, pitch, gf_border_index(x, w, b.mode), gf_border_index(y, h, b.mode),
                        b);
}

/* The rounded mean at (x, y) of the padded image: direct reads inside,
 * through the border mode near the edges. */
template <int R>
__device__ __forceinline__ unsigned char mean_at(const unsigned char *__restrict__ in,
                                                 size_t pitch, int x, int y, int w, int h,
                                                 gf_border b)
{
    unsigned s = 0;

    if (x >= R && x < w - R && y >= R && y < h - R) {
#pragma unroll
        for (int dy = -R; dy <= R; dy++)
#pragma unroll
            for (int dx = -R; dx <= R; dx++)
                s += in[(size_t)(y + dy) * pitch + x + dx];
    } else {
        for (int dy = -R; dy <= R; dy++)
            for (int dx = -R; dx <= R; dx++)
                s += padded(in, pitch, x + dx, y + dy, w, h, b);
    }
    return round_mean<R>(s);
}

template <int R>
__global__ void mean_global_kernel(const unsigned char *__restrict__ in,
                                   unsigned char *__restrict__ out, int w, int h,
                                   size_t ipitch, size_t opitch, gf_border b)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;

    if (x < w)
        out[(size_t)y * opitch + x] = mean_at<R>(in, ipitch, x, y, w, h, b);
}

template <int R>
__global__ void __launch_bounds__(THREADS_X *THREADS_Y)
    mean_shared_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                       int w, int h, size_t ipitch, size_t opitch, gf_border b)
{
    constexpr int K = 2 * R + 1;
    constexpr int IN_H = TILE_H + 2 * R;
    constexpr int IN_W = TILE_W + 2 * HALO_W;
    constexpr int IN_WORDS = IN_W / 4;
    constexpr int NTHREADS = THREADS_X * THREADS_Y;
    __shared__ __align__(16) unsigned char tile[IN_H][IN_W];
    __shared__ __align__(16) unsigned short hsum[IN_H][TILE_W];

    const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
    const int tid = threadIdx.y * THREADS_X + threadIdx.x;

    /* 1. Stage the input rows y0-R .. y0+TILE_H+R-1, columns x0-HALO_W ..
     * x0+TILE_W+HALO_W-1. In a block wholly inside the image all the loads
     * go out before the first store, so their latencies overlap; at the
     * edges, words wholly inside load directly and the others go byte by
     * byte through the border mode. Every cell is written. */
    constexpr int IN_VECS = IN_W / 16;
    constexpr int PER_THREAD = (IN_H * IN_VECS + NTHREADS - 1) / NTHREADS;
    if (x0 - HALO_W >= 0 && x0 + TILE_W + HALO_W <= w && y0 - R >= 0 && y0 + TILE_H + R <= h) {
        const unsigned char *base = in + (size_t)(y0 - R) * ipitch + (x0 - HALO_W);
        uint4 v[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) {
            const int i = tid + k * NTHREADS;
            if (i < IN_H * IN_VECS)
                v[k] = *(const uint4 *)(base + (size_t)(i / IN_VECS) * ipitch + 16 * (i % IN_VECS));
        }
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) {
            const int i = tid + k * NTHREADS;
            if (i < IN_H * IN_VECS)
                *(uint4 *)&tile[i / IN_VECS][16 * (i % IN_VECS)] = v[k];
        }
    } else {
        for (int i = tid; i < IN_H * IN_WORDS; i += NTHREADS) {
            const int row = i / IN_WORDS, word = i % IN_WORDS;
            const int gy = y0 - R + row, gx = x0 - HALO_W + 4 * word;
            unsigned v;
            if (gy >= 0 && gy < h && gx >= 0 && gx + 3 < w) {
                v = *(const unsigned *)(in + (size_t)gy * ipitch + gx);
            } else {
                v = 0;
#pragma unroll
                for (int k = 0; k < 4; k++)
                    v |= padded(in, ipitch, gx + k, gy, w, h, b) << (8 * k);
            }
            *(unsigned *)&tile[row][4 * word] = v;
        }
    }
    __syncthreads();

    /* 2. Horizontal sums of K for every staged row: hsum[row][c] covers tile
     * columns HALO_W + c - R .. HALO_W + c + R. A thread does 4 columns from 3
     * aligned words, the first 4 bytes left of them. */
    for (int i = tid; i < IN_H * (TILE_W / 4); i += NTHREADS) {
        const int row = i / (TILE_W / 4), g = i % (TILE_W / 4);
        const unsigned *p = (const unsigned *)&tile[row][HALO_W - 4 + 4 * g];
        const unsigned wd[3] = {p[0], p[1], p[2]};
        unsigned by[12];
#pragma unroll
        for (int k = 0; k < 12; k++)
            by[k] = (wd[k / 4] >> (8 * (k % 4))) & 0xffu;
        unsigned s[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            s[j] = 0;
#pragma unroll
            for (int d = -R; d <= R; d++)
                s[j] += by[4 + j + d];
        }
        *(ushort4 *)&hsum[row][4 * g] = make_ushort4(s[0], s[1], s[2], s[3]);
    }
    __syncthreads();

    /* 3. Vertical sums of K, sliding down PIX_Y rows; round and store. */
    const int cx = PIX_X * threadIdx.x, oy = PIX_Y * threadIdx.y;
    const int gx = x0 + cx;
    if (gx >= w)
        return; /* no barrier follows */
    unsigned s[4] = {0, 0, 0, 0};
#pragma unroll
    for (int k = 0; k < K; k++) {
        ushort4 v = *(const ushort4 *)&hsum[oy + k][cx];
        s[0] += v.x, s[1] += v.y, s[2] += v.z, s[3] += v.w;
    }
#pragma unroll
    for (int j = 0; j < PIX_Y; j++) {
        const int gy = y0 + oy + j;
        if (gy >= h)
            break;
        unsigned char *o = out + (size_t)gy * opitch + gx;
        if (gx + 3 < w) {
            *(uchar4 *)o = make_uchar4(round_mean<R>(s[0]), round_mean<R>(s[1]),
                                       round_mean<R>(s[2]), round_mean<R>(s[3]));
        } else {
            for (int k = 0; gx + k < w; k++)
                o[k] = round_mean<R>(s[k]);
        }
        if (j + 1 < PIX_Y) {
            ushort4 add = *(const ushort4 *)&hsum[oy + j + K][cx];
            ushort4 sub = *(const ushort4 *)&hsum[oy + j][cx];
            s[0] += add.x - sub.x, s[1] += add.y - sub.y;
            s[2] += add.z - sub.z, s[3] += add.w - sub.w;
        }
    }
}

/* mean_warp8_kernel (below), for 8-bit gray: no shared memory and no
 * barrier. A warp computes a strip WARP_COLS pixels wide and WARP_ROWS rows
 * tall: lane l in 1..30 owns the 16 columns from x0 = strip + 16 (l - 1),
 * reads them as one 16-byte load per row, and lanes 0 and 31 only load, for
 * their neighbours. Lanes store only where the whole window lies inside the
 * image's columns (16 <= x0, x0 + 16 + R <= w); the columns left and right
 * of those, at most 16 + 15 + R of them, go to the grid's first blocks, a
 * thread a column of EDGE_ROWS rows (edge_block). Rows go down through registers:
 * each input row is loaded PREFETCH rows ahead and kept, unpacked, for the
 * K output rows that need it. The border mode is applied once per strip: lane i works out the byte
 * offset of the strip's source row i, and each row's load takes it by
 * shuffle.
 *
 * Vertical sums first, packed two 16-bit lanes to a word: E_g holds the
 * even bytes (pixels 4g, 4g+2) of word g, O_g the odd ones (4g+1, 4g+3),
 * each summed over the window's K rows (at most 5 * 255, no carry between
 * lanes). Then the horizontal sums: with B(X_g) = pixels shifted one lane
 * back (__byte_perm of X_{g-1} and X_g) and F(X_g) one lane forward, the
 * window sums of the even and odd pixels of word g are
 *   3x3: E + O + B(O)  and  E + O + F(E);
 *   5x5: E + F(E) + B(O) + O + B(E)  and  the same four + F(O),
 * the columns beyond the lane's 16 coming from its neighbours by shuffle.
 * Each sum is rounded by one multiply-add (gf_mean_div_bits).
 *
 * Strips are short because the rows are unrolled whole: on an H100, 8 rows
 * ran faster than 12, 16, 24, 32 or 40 at every size measured, and than a
 * loop over the rows (docs/benchmarks.md). */
#define WARP_COLS 480 /* 30 lanes of 16 columns */
#define WARP_ROWS 8
#define WARP_THREADS 128
#define PREFETCH 4

/* The 4 means of word g from the window sums of its even (pixels 0, 2) and
 * odd (1, 3) pixels, packed two 16-bit lanes to a word. */
template <int R>
__device__ __forceinline__ unsigned round_word(unsigned e, unsigned o)
{
    constexpr unsigned area = (2 * R + 1) * (2 * R + 1);
    const unsigned q0 = gf_mean_div_bits(e & 0xffffu, area), q2 = gf_mean_div_bits(e >> 16, area),
                   q1 = gf_mean_div_bits(o & 0xffffu, area), q3 = gf_mean_div_bits(o >> 16, area);
    return __byte_perm(__byte_perm(q0, q1, 0x0073), __byte_perm(q2, q3, 0x0073), 0x5410);
}

/* Lanes 1 of a and 0 of b: the 16-bit lanes of a word pair shifted by one. */
__device__ __forceinline__ unsigned mid_lanes(unsigned a, unsigned b)
{
    return __byte_perm(a, b, 0x5432);
}

/* The warp kernels' edge columns go to threads of EDGE_ROWS rows each
 * (edge_block): four rows a thread; 16 were as fast at 8000x8000 on an H100
 * but a third slower at 1920x1080, where too few threads share the edge. */
#define EDGE_ROWS 4

/* ---- Any layout: each channel is a gray image of its own, its samples C
 * apart (the global and shared kernels above stay for 8-bit gray). */

/* Sample c of pixel (x, y) of an image of C channels of T. */
template <typename T, int C>
__device__ __forceinline__ unsigned sample_at(const unsigned char *__restrict__ in, size_t pitch,
                                              int x, int y, int c)
{
    return ((const T *)(in + (size_t)y * pitch))[(size_t)x * C + c];
}

/* Sample c of pixel (x, y) of the padded image (any x, y). */
template <typename T, int C>
__device__ __forceinline__ unsigned padded_px(const unsigned char *__restrict__ in, size_t pitch,
                                              int x, int y, int c, int w, int h, gf_border b)
{
    const int xx = gf_border_index(x, w, b.mode), yy = gf_border_index(y, h, b.mode);
    return xx < 0 || yy < 0 ? (unsigned)b.value : sample_at<T, C>(in, pitch, xx, yy, c);
}

/* floor((2s + area) / (2 area)), for sums of 8- or 16-bit samples (2s +
 * area < 2^32): a multiply-high by the compiler's constant. */
template <int R> __device__ __forceinline__ unsigned round_any(unsigned s)
{
    constexpr unsigned area = (2 * R + 1) * (2 * R + 1);
    return (2 * s + area) / (2 * area);
}

/* mean_global_px_kernel: one thread per pixel, its C windows read from
 * global memory (directly inside, through the border mode near the
 * edges); 128x1 blocks, as mean_global_kernel. */
template <typename T, int C, int R>
__global__ void mean_global_px_kernel(const unsigned char *__restrict__ in,
                                      unsigned char *__restrict__ out, int w, int h,
                                      size_t ipitch, size_t opitch, gf_border b)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;

    if (x >= w)
        return;
    const bool inside = x >= R && x < w - R && y >= R && y < h - R;
#pragma unroll
    for (int c = 0; c < C; c++) {
        unsigned s = 0;
        for (int dy = -R; dy <= R; dy++)
            for (int dx = -R; dx <= R; dx++)
                s += inside ? sample_at<T, C>(in, ipitch, x + dx, y + dy, c)
                            : padded_px<T, C>(in, ipitch, x + dx, y + dy, c, w, h, b);
        ((T *)(out + (size_t)y * opitch))[(size_t)x * C + c] = (T)round_any<R>(s);
    }
}

/* mean_shared_px_kernel: a tile of PXS_W x PXS_H pixels per block of
 * PXS_W x PXS_BY threads, staged with its halo in shared memory (through
 * the border mode), summed along rows into shared memory, then down
 * columns, a thread a column of PXS_H / PXS_BY rows of each channel. */
#define PXS_W 32
#define PXS_H 32
#define PXS_BY 8

template <typename T, int C, int R>
__global__ void __launch_bounds__(PXS_W *PXS_BY)
    mean_shared_px_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int w, int h, size_t ipitch, size_t opitch, gf_border b)
{
    constexpr int K = 2 * R + 1, IW = PXS_W + 2 * R, IH = PXS_H + 2 * R, N = PXS_W * PXS_BY;
    __shared__ T tile[IH][IW * C];
    __shared__ unsigned hs[IH][PXS_W * C];
    const int x0 = blockIdx.x * PXS_W, y0 = blockIdx.y * PXS_H;
    const int tid = threadIdx.y * PXS_W + threadIdx.x;

    for (int i = tid; i < IH * IW * C; i += N) {
        const int r = i / (IW * C), q = i % (IW * C), gx = x0 - R + q / C, gy = y0 - R + r;
        tile[r][q] = (T)(gx >= 0 && gx < w && gy >= 0 && gy < h
                             ? sample_at<T, C>(in, ipitch, gx, gy, q % C)
                             : padded_px<T, C>(in, ipitch, gx, gy, q % C, w, h, b));
    }
    __syncthreads();
    for (int i = tid; i < IH * PXS_W * C; i += N) {
        const int r = i / (PXS_W * C), q = i % (PXS_W * C);
        unsigned s = 0;
#pragma unroll
        for (int d = 0; d < K; d++)
            s += tile[r][q + d * C];
        hs[r][q] = s;
    }
    __syncthreads();
    constexpr int ROWS = PXS_H / PXS_BY;
    const int x = x0 + threadIdx.x, r0 = threadIdx.y * ROWS;
    if (x >= w)
        return;
#pragma unroll
    for (int c = 0; c < C; c++) {
        const int q = threadIdx.x * C + c;
        unsigned s = 0;
#pragma unroll
        for (int k = 0; k < K; k++)
            s += hs[r0 + k][q];
#pragma unroll
        for (int j = 0; j < ROWS; j++) {
            const int y = y0 + r0 + j;
            if (y < h)
                ((T *)(out + (size_t)y * opitch))[(size_t)x * C + c] = (T)round_any<R>(s);
            if (j + 1 < ROWS)
                s += hs[r0 + j + K][q] - hs[r0 + j][q];
        }
    }
}

/* Sample column j (pixel j / C, channel j % C) of a C-channel image of T,
 * rows y0 .. y0+EDGE_ROWS-1 (those below h), for the columns the warp
 * kernels' lanes leave: the window's K column indices go through the border
 * mode once, each input row is read as K samples, and its horizontal sum is
 * kept for the K output rows that need it. */
template <typename T, int C, int R>
__device__ __forceinline__ void edge_sample(const unsigned char *__restrict__ in,
                                            unsigned char *__restrict__ out, int j, int y0, int w,
                                            int h, size_t ipitch, size_t opitch, gf_border b)
{
    constexpr int K = 2 * R + 1;
    const int x = j / C, c = j % C;
    int cx[K];
    unsigned hs[K];

#pragma unroll
    for (int k = 0; k < K; k++)
        cx[k] = gf_border_index(x - R + k, w, b.mode);
#pragma unroll
    for (int r = 0; r < EDGE_ROWS + 2 * R; r++) {
        const int y = y0 - R + r;
        const int row = gf_border_index(y, h, b.mode);
        unsigned s = 0;
#pragma unroll
        for (int k = 0; k < K; k++)
            s += cx[k] < 0 || row < 0 ? (unsigned)b.value : sample_at<T, C>(in, ipitch, cx[k], row, c);
        hs[r % K] = s;
        if (r >= 2 * R && y - R < h) {
            unsigned t = 0;
#pragma unroll
            for (int k = 0; k < K; k++)
                t += hs[k];
            ((T *)(out + (size_t)(y - R) * opitch))[j] = (T)round_any<R>(t);
        }
    }
}

/* The first blocks of a warp kernel's grid: a thread a sample column of
 * EDGE_ROWS rows, for the columns 0 .. min(lead, n)-1 and max(lead, xr) ..
 * n-1 of the n samples a row that the lanes do not store. */
template <typename T, int C, int R>
__device__ __forceinline__ void edge_block(const unsigned char *__restrict__ in,
                                           unsigned char *__restrict__ out, int w, int h,
                                           size_t ipitch, size_t opitch, gf_border b, int lead,
                                           int xr)
{
    const int n = w * C, left = min(lead, n), right = max(0, n - max(lead, xr)),
              cols = left + right;
    const long i = (long)blockIdx.x * WARP_THREADS + threadIdx.x;
    if (i < (long)cols * ((h + EDGE_ROWS - 1) / EDGE_ROWS)) {
        const int c = (int)(i % cols);
        edge_sample<T, C, R>(in, out, c < left ? c : n - right + (c - left),
                             (int)(i / cols) * EDGE_ROWS, w, h, ipitch, opitch, b);
    }
}

/* A 16-bit lane sequence, as words X[0..7] (word g of the lane's four at
 * X[g + 2], two of each neighbour's beside them), shifted by s lanes: the
 * result's word g holds lanes 2g+s and 2g+s+1. s is a constant once the
 * callers' loops unroll. */
__device__ __forceinline__ unsigned lane_shift(const unsigned *X, int g, int s)
{
    return s % 2 == 0 ? X[g + 2 + s / 2] : mid_lanes(X[g + 2 + (s - 1) / 2], X[g + 2 + (s + 1) / 2]);
}

/* mean_warp8_kernel: the warp kernel above for 8-bit pixels of P = 1 (gray),
 * 2, 3 or 4 bytes. The vertical sums are the same on bytes; a sample's
 * window along the row takes the column sums P bytes apart: with A the
 * even bytes' sums (E, as 16-bit lanes) and B the odd bytes' (O), the
 * window of an even byte 2m sums A[m + dP/2] for even dP and B[m + (dP-1)/2]
 * for odd dP, over d in -R..R; of an odd byte 2m+1, B[m + dP/2] and
 * A[m + (dP+1)/2]. The shifts reach 2 words into each neighbour lane. Lanes
 * store the bytes whose windows lie inside the row (16 <= x0, x0 + 16 + R P
 * <= w P); the rest go to the first blocks (edge_block). */
template <int R, int P>
__global__ void __launch_bounds__(WARP_THREADS)
    mean_warp8_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                      int w, int h, size_t ipitch, size_t opitch, gf_border b, int strips_x,
                      int edge_blocks, int xr)
{
    constexpr int K = 2 * R + 1, NR = WARP_ROWS + 2 * R;
    static_assert(NR <= 32, "a source row a lane");
    const int n = w * P; /* bytes a row */

    if ((int)blockIdx.x < edge_blocks) {
        edge_block<uint8_t, P, R>(in, out, w, h, ipitch, opitch, b, 16, xr);
        return;
    }
    const int lane = threadIdx.x % 32;
    const int warp = ((blockIdx.x - edge_blocks) * WARP_THREADS + threadIdx.x) / 32;
    const int y0 = warp / strips_x * WARP_ROWS, x0 = warp % strips_x * WARP_COLS + 16 * (lane - 1);

    if (y0 >= h)
        return; /* the whole warp */
    const bool stores = lane >= 1 && lane <= 30 && x0 >= 16 && x0 + 16 + R * P <= n;
    const int nout = min(WARP_ROWS, h - y0);
    const int srow = gf_border_index(y0 - R + lane, h, b.mode);
    const unsigned off = srow < 0 ? ~0u : (unsigned)srow * (unsigned)ipitch;
    const bool constant = b.mode == GF_BORDER_CONSTANT;
    const unsigned splat = (unsigned)b.value * 0x01010101u;
    const unsigned char *src = in + (x0 >= 0 && x0 < n ? x0 : 0);
    const auto fetch = [&](int r) {
        const unsigned o = __shfl_sync(0xffffffffu, off, r);
        return constant && o == ~0u ? make_uint4(splat, splat, splat, splat)
                                    : __ldg((const uint4 *)(src + o));
    };
    uint4 ahead[PREFETCH];
    unsigned ue[K][4], uo[K][4];

#pragma unroll
    for (int r = 0; r < PREFETCH; r++)
        ahead[r] = fetch(r);
#pragma unroll
    for (int r = 0; r < NR; r++) {
        const uint4 v = ahead[r % PREFETCH];
        if (r + PREFETCH < NR)
            ahead[r % PREFETCH] = fetch(r + PREFETCH);
        const unsigned wd[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int g = 0; g < 4; g++) {
            ue[r % K][g] = __byte_perm(wd[g], 0, 0x4240);
            uo[r % K][g] = __byte_perm(wd[g], 0, 0x4341);
        }
        if (r < 2 * R)
            continue;
        unsigned E[8], O[8]; /* vertical sums of words -2 .. 5 */
#pragma unroll
        for (int g = 0; g < 4; g++) {
            E[g + 2] = ue[0][g], O[g + 2] = uo[0][g];
#pragma unroll
            for (int k = 1; k < K; k++)
                E[g + 2] += ue[k][g], O[g + 2] += uo[k][g];
        }
#pragma unroll
        for (int g = 0; g < 2; g++) {
            E[g] = __shfl_up_sync(0xffffffffu, E[g + 4], 1);
            O[g] = __shfl_up_sync(0xffffffffu, O[g + 4], 1);
            E[g + 6] = __shfl_down_sync(0xffffffffu, E[g + 2], 1);
            O[g + 6] = __shfl_down_sync(0xffffffffu, O[g + 2], 1);
        }
        unsigned res[4];
#pragma unroll
        for (int g = 0; g < 4; g++) {
            unsigned se = 0, so = 0;
#pragma unroll
            for (int d = -R; d <= R; d++) {
                const int dp = d * P;
                if (dp % 2 == 0) {
                    se += lane_shift(E, g, dp / 2);
                    so += lane_shift(O, g, dp / 2);
                } else {
                    se += lane_shift(O, g, (dp - 1) / 2);
                    so += lane_shift(E, g, (dp + 1) / 2);
                }
            }
            res[g] = round_word<R>(se, so);
        }
        if (stores && r - 2 * R < nout)
            *(uint4 *)(out + (size_t)(y0 + r - 2 * R) * opitch + x0) =
                make_uint4(res[0], res[1], res[2], res[3]);
    }
}

/* mean_warp16_kernel: the warp kernel for 16-bit samples of C channels. A
 * lane owns 8 samples (16 bytes) of the strip, WARP_COLS16 samples wide;
 * each row's samples are kept unpacked for the K output rows that use
 * them, their vertical sums taken in 32-bit lanes, the R C sums beyond the
 * lane's 8 on either side come from its neighbours by shuffle, and each
 * window's sum of samples C apart is rounded by gf_mean_div16. Lanes store
 * samples whose windows lie inside the row (8 <= x0, x0 + 8 + R C <= w C);
 * the rest go to the first blocks (edge_block). */
#define WARP_COLS16 240 /* 30 lanes of 8 samples */

template <int R, int C>
__global__ void __launch_bounds__(WARP_THREADS)
    mean_warp16_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                       int w, int h, size_t ipitch, size_t opitch, gf_border b, int strips_x,
                       int edge_blocks, int xr)
{
    constexpr int K = 2 * R + 1, NR = WARP_ROWS + 2 * R, RC = R * C;
    static_assert(NR <= 32 && RC <= 8, "a source row a lane; neighbours' sums from one lane");
    const int n = w * C; /* samples a row */

    if ((int)blockIdx.x < edge_blocks) {
        edge_block<uint16_t, C, R>(in, out, w, h, ipitch, opitch, b, 8, xr);
        return;
    }
    const int lane = threadIdx.x % 32;
    const int warp = ((blockIdx.x - edge_blocks) * WARP_THREADS + threadIdx.x) / 32;
    const int y0 = warp / strips_x * WARP_ROWS,
              x0 = warp % strips_x * WARP_COLS16 + 8 * (lane - 1); /* in samples */

    if (y0 >= h)
        return;
    const bool stores = lane >= 1 && lane <= 30 && x0 >= 8 && x0 + 8 + RC <= n;
    const int nout = min(WARP_ROWS, h - y0);
    const int srow = gf_border_index(y0 - R + lane, h, b.mode);
    const unsigned off = srow < 0 ? ~0u : (unsigned)srow * (unsigned)ipitch;
    const bool constant = b.mode == GF_BORDER_CONSTANT;
    const unsigned splat = (unsigned)b.value * 0x00010001u;
    const unsigned char *src = in + 2 * (size_t)(x0 >= 0 && x0 < n ? x0 : 0);
    const auto fetch = [&](int r) {
        const unsigned o = __shfl_sync(0xffffffffu, off, r);
        return constant && o == ~0u ? make_uint4(splat, splat, splat, splat)
                                    : __ldg((const uint4 *)(src + o));
    };
    uint4 ahead[PREFETCH];
    unsigned u[K][8]; /* the last K rows' samples */

#pragma unroll
    for (int r = 0; r < PREFETCH; r++)
        ahead[r] = fetch(r);
#pragma unroll
    for (int r = 0; r < NR; r++) {
        const uint4 v = ahead[r % PREFETCH];
        if (r + PREFETCH < NR)
            ahead[r % PREFETCH] = fetch(r + PREFETCH);
        const unsigned wd[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < 8; i++)
            u[r % K][i] = (wd[i / 2] >> (16 * (i % 2))) & 0xffffu;
        if (r < 2 * R)
            continue;
        unsigned V[8 + 2 * RC]; /* vertical sums of samples -RC .. 8+RC-1 */
#pragma unroll
        for (int i = 0; i < 8; i++) {
            V[RC + i] = u[0][i];
#pragma unroll
            for (int k = 1; k < K; k++)
                V[RC + i] += u[k][i];
        }
#pragma unroll
        for (int i = 0; i < RC; i++) {
            V[i] = __shfl_up_sync(0xffffffffu, V[RC + 8 - RC + i], 1);
            V[RC + 8 + i] = __shfl_down_sync(0xffffffffu, V[RC + i], 1);
        }
        unsigned o[4];
#pragma unroll
        for (int i = 0; i < 8; i++) {
            unsigned s = 0;
#pragma unroll
            for (int d = -R; d <= R; d++)
                s += V[RC + i + d * C];
            const unsigned m = gf_mean_div16(s, K * K);
            o[i / 2] = i % 2 ? o[i / 2] | m << 16 : m;
        }
        if (stores && r - 2 * R < nout)
            *(uint4 *)(out + (size_t)(y0 + r - 2 * R) * opitch + 2 * (size_t)x0) =
                make_uint4(o[0], o[1], o[2], o[3]);
    }
}

/* The warp kernel of C channels of T: edge blocks first, then a warp per
 * strip of WARP_ROWS rows, 30 lanes of L samples wide (16 bytes a lane),
 * over n samples a row; lanes store samples L .. xr-1, where the whole
 * window lies inside the row. */
template <typename T, int C, int R>
static void launch_warp(const gf_dimage *in, gf_dimage *out, gf_border b, cudaStream_t st)
{
    constexpr int L = 16 / (int)sizeof(T);
    const int w = in->width, h = in->height, n = w * C;
    constexpr int SPAN = sizeof(T) == 1 ? WARP_COLS : WARP_COLS16; /* 30 L */
    const int strips_x = (n + SPAN - 1) / SPAN;
    const int xr = (n - R * C) / L * L;
    const long edge_threads =
        (long)(min(L, n) + max(0, n - max(L, xr))) * ((h + EDGE_ROWS - 1) / EDGE_ROWS);
    const long edge_blocks = (edge_threads + WARP_THREADS - 1) / WARP_THREADS;
    const long warps = xr > L ? (long)strips_x * ((h + WARP_ROWS - 1) / WARP_ROWS) : 0;
    const unsigned blocks =
        (unsigned)(edge_blocks + (warps * 32 + WARP_THREADS - 1) / WARP_THREADS);
    if constexpr (sizeof(T) == 1)
        mean_warp8_kernel<R, C><<<blocks, WARP_THREADS, 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b, strips_x, (int)edge_blocks, xr);
    else
        mean_warp16_kernel<R, C><<<blocks, WARP_THREADS, 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b, strips_x, (int)edge_blocks, xr);
}

enum { MEAN_GLOBAL, MEAN_SHARED, MEAN_WARP };

/* A layout other than 8-bit gray. */
template <typename T, int C, int R>
static void launch_px(const gf_dimage *in, gf_dimage *out, gf_border b, int variant,
                      cudaStream_t st)
{
    const int w = in->width, h = in->height;

    if (variant == MEAN_GLOBAL) {
        dim3 grid((w + GLOBAL_BLOCK_X - 1) / GLOBAL_BLOCK_X, h);
        mean_global_px_kernel<T, C, R><<<grid, GLOBAL_BLOCK_X, 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b);
    } else if (variant == MEAN_SHARED) {
        dim3 grid((w + PXS_W - 1) / PXS_W, (h + PXS_H - 1) / PXS_H);
        mean_shared_px_kernel<T, C, R><<<grid, dim3(PXS_W, PXS_BY), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b);
    } else {
        launch_warp<T, C, R>(in, out, b, st);
    }
}



template <int R>
static int launch(const gf_dimage *in, gf_dimage *out, gf_border b, int variant,
                  cudaStream_t st)
{
    const int w = in->width, h = in->height;

    if (variant == MEAN_WARP) { /* rows on GF_PITCH_ALIGN boundaries */
        launch_warp<uint8_t, 1, R>(in, out, b, st);
        return 0;
    }
    if (variant == MEAN_GLOBAL) {
        dim3 grid((w + GLOBAL_BLOCK_X - 1) / GLOBAL_BLOCK_X, h);
        mean_global_kernel<R><<<grid, GLOBAL_BLOCK_X, 0, st>>>(in->data, out->data, w, h,
                                                               in->pitch, out->pitch, b);
    } else {
        dim3 grid((w + TILE_W - 1) / TILE_W, (h + TILE_H - 1) / TILE_H);
        mean_shared_kernel<R><<<grid, dim3(THREADS_X, THREADS_Y), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b);
    }
    return 0;
}

/* ---- Every other window, on the stencil framework (cuda/stencil.cuh). */

/* The 2-D rule: the window's sum, by its definition. */
struct mean_rule_2d {
    int rx, ry;
    gf_mean_div div;
    template <class W> __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        unsigned s = 0;
        for (int dy = -ry; dy <= ry; dy++)
            for (int dx = -rx; dx <= rx; dx++)
                s += win(dx, dy, c);
        return gf_mean_div_apply(s, div);
    }
};

/* The separable rule: row sums, then the sum of the window's row sums. */
template <typename T> struct mean_rule_sep {
    typedef uint32_t acc;
    int rx, ry, channels;
    gf_mean_div div;
    __device__ __forceinline__ unsigned row(const T *s, int c) const
    {
        unsigned v = 0;
        for (int j = 0; j <= 2 * rx; j++)
            v += s[j * channels];
        return v;
    }
    template <class R> __device__ __forceinline__ unsigned col(const R &ring, int x, int y, int c) const
    {
        unsigned v = 0;
        for (int k = 0; k <= 2 * ry; k++)
            v += ring(k);
        return gf_mean_div_apply(v, div);
    }
};

template <typename T, int C>
static int launch_any(const gf_mean_params *p, const gf_dimage *in, gf_dimage *out, int variant,
                      cudaStream_t st)
{
    const gf_mean_div div = gf_mean_div_of((unsigned)(p->kw * p->kh), in->bits);

    if (variant == MEAN_GLOBAL)
        return st_launch_2d_as<ST_GLOBAL, T, C>(mean_rule_2d{p->kw / 2, p->kh / 2, div}, in, out,
                                  p->border, st);
    return st_launch_sep<T, C>(mean_rule_sep<T>{p->kw / 2, p->kh / 2, C, div}, in, out,
                               p->border, st);
}

static int mean_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                     void *stream)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    cudaStream_t st = (cudaStream_t)stream;
    const int k = p->kw == p->kh && (p->kw == 3 || p->kw == 5) ? p->kw : 0;
    int rc = 0;

    const gf_shape os = gf_dimage_shape_of(in);

    if (p->kw < 1 || p->kh < 1 || p->kw > GF_MEAN_MAX_SIDE || p->kh > GF_MEAN_MAX_SIDE ||
        p->kw % 2 == 0 || p->kh % 2 == 0 || in->height > 65535)
        return gf_err(GF_EINTERNAL, NULL, "mean: bad arguments (window %dx%d)", p->kw, p->kh);
    if (!k) {
#define LAUNCH_ANY(T, C) rc = launch_any<T, C>(p, in, out, variant, st)
        GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH_ANY)
#undef LAUNCH_ANY
        return rc;
    }
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    if (in->channels == 1 && in->bits == 8) {
        rc = k == 3 ? launch<1>(in, out, p->border, variant, st)
                    : launch<2>(in, out, p->border, variant, st);
        if (rc)
            return rc;
    } else {
#define LAUNCH(T, C)                                                                          \
    if (k == 3)                                                                               \
        launch_px<T, C, 1>(in, out, p->border, variant, st);                                  \
    else                                                                                      \
        launch_px<T, C, 2>(in, out, p->border, variant, st)
        GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

extern "C" int gf_mean_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    return mean_cuda(s, in, out, MEAN_GLOBAL, stream);
}

extern "C" int gf_mean_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    return mean_cuda(s, in, out, MEAN_SHARED, stream);
}

extern "C" int gf_mean_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                 void *stream)
{
    return mean_cuda(s, in, out, MEAN_WARP, stream);
}
