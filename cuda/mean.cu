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

template <int R>
__global__ void mean_global_kernel(const unsigned char *__restrict__ in,
                                   unsigned char *__restrict__ out, int w, int h,
                                   size_t ipitch, size_t opitch, gf_border b)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    unsigned s = 0;

    if (x >= w)
        return;
    if (x >= R && x < w - R && y >= R && y < h - R) {
#pragma unroll
        for (int dy = -R; dy <= R; dy++)
#pragma unroll
            for (int dx = -R; dx <= R; dx++)
                s += in[(size_t)(y + dy) * ipitch + x + dx];
    } else {
        for (int dy = -R; dy <= R; dy++)
            for (int dx = -R; dx <= R; dx++)
                s += padded(in, ipitch, x + dx, y + dy, w, h, b);
    }
    out[(size_t)y * opitch + x] = round_mean<R>(s);
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

template <int R>
static void launch(const gf_dimage *in, gf_dimage *out, gf_border b, int variant,
                   cudaStream_t st)
{
    const int w = in->width, h = in->height;

    if (variant == 0) { /* MEAN_GLOBAL */
        dim3 grid((w + GLOBAL_BLOCK_X - 1) / GLOBAL_BLOCK_X, h);
        mean_global_kernel<R><<<grid, GLOBAL_BLOCK_X, 0, st>>>(in->data, out->data, w, h,
                                                               in->pitch, out->pitch, b);
    } else {
        dim3 grid((w + TILE_W - 1) / TILE_W, (h + TILE_H - 1) / TILE_H);
        mean_shared_kernel<R><<<grid, dim3(THREADS_X, THREADS_Y), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b);
    }
}

enum { MEAN_GLOBAL, MEAN_SHARED };

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
    if (p->ksize == 3)
        launch<1>(in, out, p->border, variant, st);
    else
        launch<2>(in, out, p->border, variant, st);
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
