/* hist.cu - 256-bin histogram of an 8-bit image, exact.
 *
 * Origin: the histogram experiment (seed 3): one global atomicAdd per pixel,
 * against a 256-bin histogram per block in shared memory, merged into the
 * global one with one atomic per non-zero bin. */
#include "check.h"

#include "../src/stages/hist.h"

#define BINS 256

/* hist_global_kernel: one thread per pixel, 32x8 blocks. */
#define GLOBAL_BX 32
#define GLOBAL_BY 8

/* hist_shared_kernel: 256 threads; each reads 16 pixels per load (one uint4);
 * blocks take rows with a grid stride. Runs of equal values within those
 * 16 pixels go in as one atomic, so flat regions (photos, constant images)
 * do not serialise on one bin. The grid is a few blocks per SM, so the merge
 * costs 256 global atomics per block, not per tile. */
#define SHARED_THREADS 256
#define BLOCKS_PER_SM 4

__global__ void hist_global_kernel(const unsigned char *__restrict__ in, int w, int h,
                                   size_t pitch, unsigned *__restrict__ hist)
{
    const int x = blockIdx.x * GLOBAL_BX + threadIdx.x, y = blockIdx.y * GLOBAL_BY + threadIdx.y;

    if (x < w && y < h)
        atomicAdd(&hist[in[(size_t)y * pitch + x]], 1u);
}

/* Adds the 16 bytes of v, merging runs of equal bytes into one atomic. */
__device__ __forceinline__ void count16(unsigned *sh, uint4 v)
{
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
    unsigned cur = words[0] & 0xff, run = 0;
#pragma unroll
    for (int k = 0; k < 16; k++) {
        const unsigned b = (words[k / 4] >> (8 * (k % 4))) & 0xff;
        if (b != cur) {
            atomicAdd(&sh[cur], run);
            cur = b;
            run = 0;
        }
        run++;
    }
    atomicAdd(&sh[cur], run);
}

__global__ void __launch_bounds__(SHARED_THREADS)
    hist_shared_kernel(const unsigned char *__restrict__ in, int w, int h, size_t pitch,
                       unsigned *__restrict__ hist)
{
    __shared__ unsigned sh[BINS];
    const int vecs = w / 16; /* whole uint4s per row; the rest of the row is bytes */
    const int per_row = vecs + (w % 16 ? 1 : 0);

    for (int i = threadIdx.x; i < BINS; i += SHARED_THREADS)
        sh[i] = 0;
    __syncthreads();
    for (int y = blockIdx.x; y < h; y += gridDim.x) {
        const unsigned char *row = in + (size_t)y * pitch;
        for (int k = threadIdx.x; k < per_row; k += SHARED_THREADS) {
            if (k < vecs) {
                count16(sh, *(const uint4 *)(row + 16 * k));
            } else {
                for (int x = 16 * vecs; x < w; x++)
                    atomicAdd(&sh[row[x]], 1u);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += SHARED_THREADS)
        if (sh[i])
            atomicAdd(&hist[i], sh[i]);
}

/* hist_warp_kernel: a 256-bin histogram per warp in shared memory, so only
 * the 32 lanes of one warp ever meet on a bin. A warp takes a row at a
 * time, 4 16-byte loads per lane (2 KB per warp) issued before the
 * atomics of the 4 before them; a vector of 16 equal bytes is one atomic.
 * Bytes past the last whole vector go one per lane. The block's 8 histograms are summed into the global one at the end. */
#define WARP_THREADS 256
#define WARP_WARPS (WARP_THREADS / 32)

__device__ __forceinline__ void count_vector(unsigned *sh, uint4 v)
{
    const unsigned b0 = v.x & 0xffu;
    if (v.x == b0 * 0x01010101u && v.y == v.x && v.z == v.x && v.w == v.x) {
        atomicAdd(&sh[b0], 16u);
        return;
    }
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 16; k++)
        atomicAdd(&sh[(words[k / 4] >> (8 * (k % 4))) & 0xffu], 1u);
}

/* The warp's next 4 vectors after (y, base): the rest of row y, else the
 * warp's next row. */
__device__ __forceinline__ void next_step(int &y, int &base, int vecs, int stride)
{
    base += 128;
    if (base >= vecs) {
        base = 0;
        y += stride;
    }
}

__device__ __forceinline__ void load_step(const unsigned char *__restrict__ in, size_t pitch,
                                          int y, int h, int base, int vecs, int lane, uint4 v[4])
{
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const int k = base + lane + 32 * q;
        v[q] = y < h && k < vecs ? __ldg((const uint4 *)(in + (size_t)y * pitch + 16 * k))
                                 : make_uint4(0, 0, 0, 0);
    }
}

__global__ void __launch_bounds__(WARP_THREADS)
    hist_warp_kernel(const unsigned char *__restrict__ in, int w, int h, size_t pitch,
                     unsigned *__restrict__ hist)
{
    __shared__ unsigned sh[WARP_WARPS][BINS];
    const int lane = threadIdx.x % 32, stride = gridDim.x * WARP_WARPS;
    const int vecs = w / 16;
    unsigned *mine = sh[threadIdx.x / 32];

    for (int i = threadIdx.x; i < WARP_WARPS * BINS; i += WARP_THREADS)
        (&sh[0][0])[i] = 0;
    __syncthreads();
    const int y_first = blockIdx.x * WARP_WARPS + threadIdx.x / 32;
    if (vecs > 0) {
        /* the next step's loads go out before this step's atomics */
        int y = y_first, base = 0;
        uint4 cur[4], nxt[4];
        load_step(in, pitch, y, h, base, vecs, lane, cur);
        while (y < h) {
            int ny = y, nbase = base;
            next_step(ny, nbase, vecs, stride);
            load_step(in, pitch, ny, h, nbase, vecs, lane, nxt);
#pragma unroll
            for (int q = 0; q < 4; q++)
                if (base + lane + 32 * q < vecs)
                    count_vector(mine, cur[q]);
#pragma unroll
            for (int q = 0; q < 4; q++)
                cur[q] = nxt[q];
            y = ny, base = nbase;
        }
    }
    if (16 * vecs + lane < w) /* at most 15 bytes left in each row */
        for (int y = y_first; y < h; y += stride)
            atomicAdd(&mine[in[(size_t)y * pitch + 16 * vecs + lane]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += WARP_THREADS) {
        unsigned sum = 0;
#pragma unroll
        for (int k = 0; k < WARP_WARPS; k++)
            sum += sh[k][b];
        if (sum)
            atomicAdd(&hist[b], sum);
    }
}

enum { HIST_GLOBAL, HIST_SHARED, HIST_WARP };

/* Blocks of `threads` (smem bytes of dynamic shared memory) that fill the
 * GPU once, at most `want`. */
static int resident_blocks(const void *kernel, int threads, size_t smem, int want, int *blocks)
{
    int rc = gf_cuda_resident(kernel, threads, smem, blocks);

    if (*blocks > want)
        *blocks = want;
    if (*blocks < 1)
        *blocks = 1;
    return rc;
}

static int hist_cuda(const gf_dimage *in, unsigned *hist, int variant, cudaStream_t st)
{
    const int w = in->width, h = in->height;

    GF_CUDA_CHECK(cudaMemsetAsync(hist, 0, BINS * sizeof *hist, st));
    if (variant == HIST_GLOBAL) {
        dim3 grid((w + GLOBAL_BX - 1) / GLOBAL_BX, (h + GLOBAL_BY - 1) / GLOBAL_BY);
        hist_global_kernel<<<grid, dim3(GLOBAL_BX, GLOBAL_BY), 0, st>>>(in->data, w, h, in->pitch,
                                                                       hist);
    } else if (variant == HIST_SHARED) {
        int sms, rc;
        if ((rc = gf_cuda_sms(&sms)))
            return rc;
        const int blocks = h < sms * BLOCKS_PER_SM ? h : sms * BLOCKS_PER_SM;
        hist_shared_kernel<<<blocks, SHARED_THREADS, 0, st>>>(in->data, w, h, in->pitch, hist);
    } else if (variant == HIST_WARP) {
        int blocks = 1, rc;
        if ((rc = resident_blocks((const void *)hist_warp_kernel, WARP_THREADS, 0,
                                  (h + WARP_WARPS - 1) / WARP_WARPS, &blocks)))
            return rc;
        hist_warp_kernel<<<blocks, WARP_THREADS, 0, st>>>(in->data, w, h, in->pitch, hist);
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

extern "C" int gf_hist_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    (void)s;
    return hist_cuda(in, (unsigned *)(void *)out->data, HIST_GLOBAL, (cudaStream_t)stream);
}

extern "C" int gf_hist_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    (void)s;
    return hist_cuda(in, (unsigned *)(void *)out->data, HIST_SHARED, (cudaStream_t)stream);
}

extern "C" int gf_hist_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                 void *stream)
{
    (void)s;
    return hist_cuda(in, (unsigned *)(void *)out->data, HIST_WARP, (cudaStream_t)stream);
}

extern "C" int gf_hist_device(const gf_dimage *in, unsigned *bins, void *stream)
{
    return hist_cuda(in, bins, HIST_WARP, (cudaStream_t)stream);
}
