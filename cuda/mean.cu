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

/* mean_warp_kernel: no shared memory and no barrier. A warp computes a
 * strip WARP_COLS pixels wide and WARP_ROWS rows tall: lane l in 1..30 owns
 * the 16 columns from x0 = strip + 16 (l - 1), reads them as one 16-byte
 * load per row, and lanes 0 and 31 only load, for their neighbours. Lanes
 * store only where the whole window lies inside the image's columns
 * (16 <= x0, x0 + 16 + R <= w); the columns left and right of those, at
 * most 16 + 15 + R of them, go to the grid's first blocks, a thread a
 * column of EDGE_ROWS rows (edge_column). Rows go down through registers:
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

/* Column x, rows y0 .. y0+EDGE_ROWS-1 (those below h), for the columns
 * the warp kernel's lanes leave: the window's K column indices go through
 * the border mode once, each input row is read as K bytes, and its
 * horizontal sum is kept for the K output rows that need it. Four rows a
 * thread: 16 were as fast at 8000x8000 on an H100 but a third slower at
 * 1920x1080, where too few threads share the edge. */
#define EDGE_ROWS 4
template <int R>
__device__ __forceinline__ void edge_column(const unsigned char *__restrict__ in,
                                            unsigned char *__restrict__ out, int x, int y0, int w,
                                            int h, size_t ipitch, size_t opitch, gf_border b)
{
    constexpr int K = 2 * R + 1;
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
            s += border_pixel(in, ipitch, cx[k], row, b);
        hs[r % K] = s;
        if (r >= 2 * R && y - R < h) {
            unsigned t = 0;
#pragma unroll
            for (int k = 0; k < K; k++)
                t += hs[k];
            out[(size_t)(y - R) * opitch + x] = (unsigned char)(gf_mean_div_bits(t, K * K) >> 24);
        }
    }
}

template <int R>
__global__ void __launch_bounds__(WARP_THREADS)
    mean_warp_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int w,
                     int h, size_t ipitch, size_t opitch, gf_border b, int strips_x,
                     int edge_blocks, int xr)
{
    constexpr int K = 2 * R + 1, NR = WARP_ROWS + 2 * R;
    static_assert(NR <= 32, "a source row a lane");

    if ((int)blockIdx.x < edge_blocks) {
        /* columns 0 .. min(16, w)-1 and max(16, xr) .. w-1 */
        const int left = min(16, w), right = max(0, w - max(16, xr)), cols = left + right;
        const long i = (long)blockIdx.x * WARP_THREADS + threadIdx.x;
        if (i < (long)cols * ((h + EDGE_ROWS - 1) / EDGE_ROWS)) {
            const int c = (int)(i % cols);
            edge_column<R>(in, out, c < left ? c : w - right + (c - left),
                           (int)(i / cols) * EDGE_ROWS, w, h, ipitch, opitch, b);
        }
        return;
    }
    const int lane = threadIdx.x % 32;
    const int warp = ((blockIdx.x - edge_blocks) * WARP_THREADS + threadIdx.x) / 32;
    const int y0 = warp / strips_x * WARP_ROWS, x0 = warp % strips_x * WARP_COLS + 16 * (lane - 1);

    if (y0 >= h)
        return; /* the whole warp */
    const bool stores = lane >= 1 && lane <= 30 && x0 >= 16 && x0 + 16 + R <= w;
    const int nout = min(WARP_ROWS, h - y0);
    /* Lane i's byte offset of source row y0-R+i: below 2^32 (at most 65535
     * rows of at most 65536 bytes), ~0 for the constant border. */
    const int srow = gf_border_index(y0 - R + lane, h, b.mode);
    const unsigned off = srow < 0 ? ~0u : (unsigned)srow * (unsigned)ipitch;
    const bool constant = b.mode == GF_BORDER_CONSTANT;
    const unsigned splat = (unsigned)b.value * 0x01010101u;
    /* Lanes outside the columns read column 0: no storing lane uses them. */
    const unsigned char *src = in + (x0 >= 0 && x0 < w ? x0 : 0);
    const auto fetch = [&](int r) {
        const unsigned o = __shfl_sync(0xffffffffu, off, r);
        return constant && o == ~0u ? make_uint4(splat, splat, splat, splat)
                                    : __ldg((const uint4 *)(src + o));
    };
    uint4 ahead[PREFETCH];
    unsigned ue[K][4], uo[K][4]; /* even and odd bytes of the last K rows */

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
        unsigned E[6], O[6]; /* vertical sums of words -1 .. 4 */
#pragma unroll
        for (int g = 0; g < 4; g++) {
            E[g + 1] = ue[0][g], O[g + 1] = uo[0][g];
#pragma unroll
            for (int k = 1; k < K; k++)
                E[g + 1] += ue[k][g], O[g + 1] += uo[k][g];
        }
        E[0] = __shfl_up_sync(0xffffffffu, E[4], 1);
        O[0] = __shfl_up_sync(0xffffffffu, O[4], 1);
        E[5] = __shfl_down_sync(0xffffffffu, E[1], 1);
        O[5] = __shfl_down_sync(0xffffffffu, O[1], 1);
        unsigned res[4];
#pragma unroll
        for (int g = 1; g <= 4; g++) {
            const unsigned ob = mid_lanes(O[g - 1], O[g]), ef = mid_lanes(E[g], E[g + 1]);
            if (R == 1) {
                const unsigned c = E[g] + O[g];
                res[g - 1] = round_word<R>(c + ob, c + ef);
            } else {
                const unsigned c = E[g] + ef + ob + O[g];
                res[g - 1] = round_word<R>(c + mid_lanes(E[g - 1], E[g]),
                                           c + mid_lanes(O[g], O[g + 1]));
            }
        }
        if (stores && r - 2 * R < nout)
            *(uint4 *)(out + (size_t)(y0 + r - 2 * R) * opitch + x0) =
                make_uint4(res[0], res[1], res[2], res[3]);
    }
}

template <int R>
static void launch_warp(const gf_dimage *in, gf_dimage *out, gf_border b, cudaStream_t st)
{
    const int w = in->width, h = in->height;
    const int strips_x = (w + WARP_COLS - 1) / WARP_COLS;
    const int xr = (w - R) / 16 * 16; /* lanes store columns 16 .. xr-1 */
    const long edge_threads =
        (long)(min(16, w) + max(0, w - max(16, xr))) * ((h + EDGE_ROWS - 1) / EDGE_ROWS);
    const long edge_blocks = (edge_threads + WARP_THREADS - 1) / WARP_THREADS;
    const long warps = xr > 16 ? (long)strips_x * ((h + WARP_ROWS - 1) / WARP_ROWS) : 0;
    const long blocks = edge_blocks + (warps * 32 + WARP_THREADS - 1) / WARP_THREADS;
    mean_warp_kernel<R><<<(unsigned)blocks, WARP_THREADS, 0, st>>>(
        in->data, out->data, w, h, in->pitch, out->pitch, b, strips_x, (int)edge_blocks, xr);
}

enum { MEAN_GLOBAL, MEAN_SHARED, MEAN_WARP };

template <int R>
static int launch(const gf_dimage *in, gf_dimage *out, gf_border b, int variant,
                  cudaStream_t st)
{
    const int w = in->width, h = in->height;

    if (variant == MEAN_WARP) { /* rows on GF_PITCH_ALIGN boundaries */
        launch_warp<R>(in, out, b, st);
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
