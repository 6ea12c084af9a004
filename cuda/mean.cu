/* mean.cu - box mean (box filter) kernels, 3x3 and 5x5, every pixel written
 * with the border modes of src/border.h. The rounding and border rules are
 * the CPU reference's (src/stages/mean.c); both variants equal it bit for bit.
 *
 * Origin: the box-mean experiment in docs (seed 1): a non-shared kernel with
 * one thread per pixel and a shared-memory kernel that stages rows plus
 * halo. The seed skipped borders and its shared kernel read shared cells
 * nothing wrote; these do neither. */
#include "check.h"

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

/* Pixel (x, y) of the padded image (any x, y). */
__device__ __forceinline__ unsigned padded(const unsigned char *in, size_t pitch, int x, int y,
                                           int w, int h, gf_border b)
{
    int xx = gf_border_index(x, w, b.mode), yy = gf_border_index(y, h, b.mode);
    return (xx < 0 || yy < 0) ? (unsigned)b.value : in[(size_t)yy * pitch + xx];
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

/* mean_warp_kernel: no shared memory and no barrier. A warp computes a
 * strip WARP_COLS pixels wide and T rows tall: lane l in 1..30 owns the 16
 * columns from x0 = strip + 16 (l - 1), reads them as one 16-byte load per
 * row and takes the 4 bytes on either side from its neighbours by shuffle;
 * lanes 0 and 31 only load, for their neighbours. Lanes store only where
 * the whole window lies inside the image's columns (16 <= x0, x0 + 16 + R
 * <= w); the columns left and right of those, at most 16 + 15 + R of them,
 * go to the grid's first blocks, a thread a pixel (mean_at). Rows go down through
 * registers: each input row is loaded PREFETCH rows ahead, summed
 * horizontally once, and kept for the K output rows that need it.
 *
 * Sums stay packed, two 16-bit lanes to a word: for 4 pixels from 4g,
 * E(T) = T & 0x00ff00ff holds bytes 4g+d and 4g+d+2 of the word T starting
 * at byte 4g+d, so the sum of E over d = -R..R is the horizontal sums of
 * pixels 4g and 4g+2, and over d = -R+1..R+1 those of 4g+1 and 4g+3. A
 * 5x5 sum is at most 6375, so no lane carries into the next.
 *
 * Rounding: (2s + K*K) / (2K*K) = round(s / K*K), halves up, and s / K*K is
 * never within 1/(2K*K) of a half, so one float multiply-add by 1/(K*K)
 * rounding to nearest at 2^23 (whose low byte is then the mean) is exact:
 * gf_mean_round_bits, which tests/unit/test_mean.c checks for every s. */
#define WARP_COLS 480 /* 30 lanes of 16 columns */
#define WARP_THREADS 128
#define PREFETCH 4

/* 2^23 + m for a 16-bit lane m of v, as float bits: lane 0 (sel 0x7610) or 1
 * (sel 0x7632). */
#define MAGIC_LANE(v, sel) __byte_perm((v), 0x4b000000u, (sel))

template <int R>
__device__ __forceinline__ unsigned round_lane(unsigned magic)
{
    constexpr float inv = 1.0f / ((2 * R + 1) * (2 * R + 1));
    return gf_mean_round_bits(__uint_as_float(magic) - 8388608.0f, inv);
}

/* The 4 rounded means of the packed sums e (pixels 0, 2) and o (1, 3). */
template <int R>
__device__ __forceinline__ unsigned round_word(unsigned e, unsigned o)
{
    const unsigned q0 = round_lane<R>(MAGIC_LANE(e, 0x7610)),
                   q2 = round_lane<R>(MAGIC_LANE(e, 0x7632)),
                   q1 = round_lane<R>(MAGIC_LANE(o, 0x7610)),
                   q3 = round_lane<R>(MAGIC_LANE(o, 0x7632));
    return __byte_perm(__byte_perm(q0, q1, 0x0040), __byte_perm(q2, q3, 0x0040), 0x5410);
}

/* Row y's source: a row index, or -1 where the constant border applies. */
__device__ __forceinline__ int source_row(int y, int h, gf_border b)
{
    return gf_border_index(y, h, b.mode);
}

/* The lane's 16 bytes of source row `row` (x0 aligned to 16; `loads` when
 * 0 <= x0 < w, so the vector lies inside the pitch). */
__device__ __forceinline__ uint4 load16(const unsigned char *__restrict__ in, size_t pitch,
                                        int row, int x0, bool loads, unsigned splat)
{
    if (row < 0)
        return make_uint4(splat, splat, splat, splat);
    if (!loads)
        return make_uint4(0, 0, 0, 0);
    return __ldg((const uint4 *)(in + (size_t)row * pitch + x0));
}

template <int R, int T>
__global__ void __launch_bounds__(WARP_THREADS)
    mean_warp_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int w,
                     int h, size_t ipitch, size_t opitch, gf_border b, int strips_x,
                     int edge_blocks, int xr)
{
    constexpr int K = 2 * R + 1, NR = T + 2 * R;

    if ((int)blockIdx.x < edge_blocks) {
        /* columns 0 .. min(16, w)-1 and max(16, xr) .. w-1, a thread a pixel */
        const int left = min(16, w), right = max(0, w - max(16, xr)), cols = left + right;
        const long i = (long)blockIdx.x * WARP_THREADS + threadIdx.x;
        if (i < (long)cols * h) {
            const int y = (int)(i / cols), c = (int)(i % cols);
            const int x = c < left ? c : w - right + (c - left);
            out[(size_t)y * opitch + x] = mean_at<R>(in, ipitch, x, y, w, h, b);
        }
        return;
    }
    const int lane = threadIdx.x % 32;
    const int warp = ((blockIdx.x - edge_blocks) * WARP_THREADS + threadIdx.x) / 32;
    const int y0 = warp / strips_x * T, x0 = warp % strips_x * WARP_COLS + 16 * (lane - 1);
    const unsigned splat = (unsigned)b.value * 0x01010101u;

    if (y0 >= h)
        return; /* the whole warp */
    const bool loads = x0 >= 0 && x0 < w;
    const bool stores = lane >= 1 && lane <= 30 && x0 >= 16 && x0 + 16 + R <= w;
    uint4 ahead[PREFETCH];
    unsigned he[K][4], ho[K][4]; /* packed horizontal sums of the last K rows */

#pragma unroll
    for (int r = 0; r < PREFETCH && r < NR; r++)
        ahead[r] = load16(in, ipitch, source_row(y0 - R + r, h, b), x0, loads, splat);
#pragma unroll
    for (int r = 0; r < NR; r++) {
        const uint4 v = ahead[r % PREFETCH];
        if (r + PREFETCH < NR)
            ahead[r % PREFETCH] =
                load16(in, ipitch, source_row(y0 - R + r + PREFETCH, h, b), x0, loads, splat);
        const unsigned wd[6] = {__shfl_up_sync(0xffffffffu, v.w, 1), v.x, v.y, v.z, v.w,
                                __shfl_down_sync(0xffffffffu, v.x, 1)};
#pragma unroll
        for (int g = 0; g < 4; g++) {
            unsigned e[2 * R + 2]; /* E(T_d) for d = -R .. R+1 */
#pragma unroll
            for (int d = -R; d <= R + 1; d++) {
                const unsigned t = d < 0    ? __funnelshift_r(wd[g], wd[g + 1], 8 * (4 + d))
                                   : d == 0 ? wd[g + 1]
                                            : __funnelshift_r(wd[g + 1], wd[g + 2], 8 * d);
                e[d + R] = t & 0x00ff00ffu;
            }
            unsigned se = 0;
#pragma unroll
            for (int d = 0; d < K; d++)
                se += e[d];
            he[r % K][g] = se;
            ho[r % K][g] = se - e[0] + e[K];
        }
        if (r < 2 * R)
            continue;
        const int y = y0 + r - 2 * R;
        unsigned res[4];
#pragma unroll
        for (int g = 0; g < 4; g++) {
            unsigned se = 0, so = 0;
#pragma unroll
            for (int k = 0; k < K; k++)
                se += he[k][g], so += ho[k][g];
            res[g] = round_word<R>(se, so);
        }
        if (stores && y < h)
            *(uint4 *)(out + (size_t)y * opitch + x0) = make_uint4(res[0], res[1], res[2], res[3]);
    }
}

template <int R, int T>
static void launch_rows(const gf_dimage *in, gf_dimage *out, gf_border b, int strips_x, int xr,
                        cudaStream_t st)
{
    const int w = in->width, h = in->height;
    const long edge_px = (long)(min(16, w) + max(0, w - max(16, xr))) * h;
    const long edge_blocks = (edge_px + WARP_THREADS - 1) / WARP_THREADS;
    const long warps = xr > 16 ? (long)strips_x * ((h + T - 1) / T) : 0;
    const long blocks = edge_blocks + (warps * 32 + WARP_THREADS - 1) / WARP_THREADS;
    mean_warp_kernel<R, T><<<(unsigned)blocks, WARP_THREADS, 0, st>>>(
        in->data, out->data, w, h, in->pitch, out->pitch, b, strips_x, (int)edge_blocks, xr);
}

/* Strips of 32 rows where that still gives 4 warps per SM (fewer halo rows
 * read twice), else 16, else 8 (more warps for small images). The rows are
 * unrolled whole: looping K rows at a time measured 20% slower on an H100
 * (docs/benchmarks.md). */
template <int R>
static int launch_warp(const gf_dimage *in, gf_dimage *out, gf_border b, cudaStream_t st)
{
    const int w = in->width, h = in->height;
    const int strips_x = (w + WARP_COLS - 1) / WARP_COLS;
    const int xr = (w - R) / 16 * 16; /* lanes store columns 16 .. xr-1 */
    int sms, rc;

    if ((rc = gf_cuda_sms(&sms)))
        return rc;
    if ((long)strips_x * ((h + 31) / 32) >= 4L * sms)
        launch_rows<R, 32>(in, out, b, strips_x, xr, st);
    else if ((long)strips_x * ((h + 15) / 16) >= 4L * sms)
        launch_rows<R, 16>(in, out, b, strips_x, xr, st);
    else
        launch_rows<R, 8>(in, out, b, strips_x, xr, st);
    return 0;
}

enum { MEAN_GLOBAL, MEAN_SHARED, MEAN_WARP };

template <int R>
static int launch(const gf_dimage *in, gf_dimage *out, gf_border b, int variant,
                  cudaStream_t st)
{
    const int w = in->width, h = in->height;

    if (variant == MEAN_WARP) /* rows on GF_PITCH_ALIGN boundaries */
        return launch_warp<R>(in, out, b, st);
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

static int mean_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                     void *stream)
{
    const gf_mean_params *p = GF_CPARAMS(s, gf_mean_params);
    cudaStream_t st = (cudaStream_t)stream;
    int rc;

    if ((p->ksize != 3 && p->ksize != 5) || in->height > 65535)
        return gf_err(GF_EINTERNAL, NULL, "mean: bad arguments (ksize %d)", p->ksize);
    if ((rc = gf_dimage_shape(out, in->width, in->height)))
        return rc;
    rc = p->ksize == 3 ? launch<1>(in, out, p->border, variant, st)
                       : launch<2>(in, out, p->border, variant, st);
    if (rc)
        return rc;
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
