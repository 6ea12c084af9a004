/* hist.cu - histograms of every channel, a bin per value (256 for 8-bit
 * samples, 65536 for 16-bit), exact. The counts of channel c are at
 * hist[c * bins + v].
 *
 * Origin: the histogram experiment (seed 3): one global atomicAdd per pixel,
 * against a 256-bin histogram per block in shared memory, merged into the
 * global one with one atomic per non-zero bin. */
#include "check.h"
#include "hist.cuh"

#include "../src/stages/hist.h"

#define BINS 256

/* hist_global_kernel: one thread per sample, 32x8 blocks. */
#define GLOBAL_BX 32
#define GLOBAL_BY 8

/* hist_shared_kernel: 256 threads; each reads 16 bytes per load (one uint4);
 * blocks take rows with a grid stride. For gray, runs of equal values
 * within those 16 bytes go in as one atomic, so flat regions (photos,
 * constant images) do not serialise on one bin. The grid is a few blocks
 * per SM, so the merge costs C x 256 global atomics per block, not per
 * tile. */
#define SHARED_THREADS 256
#define BLOCKS_PER_SM 4

/* Samples of T in a 16-byte vector. */
template <typename T> __device__ __forceinline__ unsigned sample_of(const unsigned *wd, int k)
{
    return sizeof(T) == 1 ? (wd[k / 4] >> (8 * (k % 4))) & 0xffu
                          : (wd[k / 2] >> (16 * (k % 2))) & 0xffffu;
}

template <typename T, int C>
__global__ void hist_global_kernel(const unsigned char *__restrict__ in, int n, int h,
                                   size_t pitch, unsigned *__restrict__ hist)
{
    constexpr int NB = sizeof(T) == 1 ? 256 : 65536;
    const int x = blockIdx.x * GLOBAL_BX + threadIdx.x, y = blockIdx.y * GLOBAL_BY + threadIdx.y;

    if (x < n && y < h)
        atomicAdd(&hist[(x % C) * NB + ((const T *)(in + (size_t)y * pitch))[x]], 1u);
}

/* The 16 bytes of vector k of a row of C channels, each into its channel's
 * bins: byte j is channel (16 k + j) % C. */
template <int C>
__device__ __forceinline__ void count16_channels(unsigned *sh, uint4 v, int k)
{
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
    const int c0 = (16 * k) % C;
#pragma unroll
    for (int j = 0; j < 16; j++)
        atomicAdd(&sh[((c0 + j) % C) * BINS + sample_of<uint8_t>(words, j)], 1u);
}

template <int C>
__global__ void __launch_bounds__(SHARED_THREADS)
    hist_shared_kernel(const unsigned char *__restrict__ in, int n, int h, size_t pitch,
                       unsigned *__restrict__ hist)
{
    __shared__ unsigned sh[C * BINS];
    const int vecs = n / 16; /* whole uint4s per row; the rest of the row is bytes */
    const int per_row = vecs + (n % 16 ? 1 : 0);

    for (int i = threadIdx.x; i < C * BINS; i += SHARED_THREADS)
        sh[i] = 0;
    __syncthreads();
    for (int y = blockIdx.x; y < h; y += gridDim.x) {
        const unsigned char *row = in + (size_t)y * pitch;
        for (int k = threadIdx.x; k < per_row; k += SHARED_THREADS) {
            if (k < vecs) {
                if (C == 1)
                    hist_count16(sh, *(const uint4 *)(row + 16 * k));
                else
                    count16_channels<C>(sh, *(const uint4 *)(row + 16 * k), k);
            } else {
                for (int x = 16 * vecs; x < n; x++)
                    atomicAdd(&sh[(x % C) * BINS + row[x]], 1u);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < C * BINS; i += SHARED_THREADS)
        if (sh[i])
            atomicAdd(&hist[i], sh[i]);
}

/* hist_warp_kernel: a histogram per warp in shared memory (C x 256 bins),
 * so only the 32 lanes of one warp ever meet on a bin. A warp takes a row
 * at a time, 4 16-byte loads per lane (2 KB per warp) issued before the
 * atomics of the 4 before them; a gray vector of 16 equal bytes is one
 * atomic. Bytes past the last whole vector go one per lane. The block's 8
 * histograms are summed into the global one at the end. */
#define WARP_THREADS 256
#define WARP_WARPS (WARP_THREADS / 32)

template <int C> __device__ __forceinline__ void count_vector(unsigned *sh, uint4 v, int k)
{
    if (C > 1) {
        count16_channels<C>(sh, v, k);
        return;
    }
    const unsigned b0 = v.x & 0xffu; /* a gray vector of 16 equal bytes is one add */
    if (v.x == b0 * 0x01010101u && v.y == v.x && v.z == v.x && v.w == v.x)
        atomicAdd(&sh[b0], 16u);
    else
        count16_channels<1>(sh, v, k);
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

template <int C>
__global__ void __launch_bounds__(WARP_THREADS)
    hist_warp_kernel(const unsigned char *__restrict__ in, int n, int h, size_t pitch,
                     unsigned *__restrict__ hist)
{
    __shared__ unsigned sh[WARP_WARPS][C * BINS];
    const int lane = threadIdx.x % 32, stride = gridDim.x * WARP_WARPS;
    const int vecs = n / 16;
    unsigned *mine = sh[threadIdx.x / 32];

    for (int i = threadIdx.x; i < WARP_WARPS * C * BINS; i += WARP_THREADS)
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
                    count_vector<C>(mine, cur[q], base + lane + 32 * q);
#pragma unroll
            for (int q = 0; q < 4; q++)
                cur[q] = nxt[q];
            y = ny, base = nbase;
        }
    }
    if (16 * vecs + lane < n) /* at most 15 bytes left in each row */
        for (int y = y_first; y < h; y += stride) {
            const int x = 16 * vecs + lane;
            atomicAdd(&mine[(x % C) * BINS + in[(size_t)y * pitch + x]], 1u);
        }
    __syncthreads();
    for (int b = threadIdx.x; b < C * BINS; b += WARP_THREADS) {
        unsigned sum = 0;
#pragma unroll
        for (int k = 0; k < WARP_WARPS; k++)
            sum += sh[k][b];
        if (sum)
            atomicAdd(&hist[b], sum);
    }
}

/* 16-bit histograms: a channel's 65536 bins (or a range of them, where a
 * block's shared memory holds fewer) per block, as 16-bit counters packed
 * two to a 32-bit word of shared memory (hist16_add: bin b of the range in
 * the low half of word b % NW, bin b + NW in the high half, NW = half the
 * range, so that neighbouring values, common in photos, fall in different
 * words; a counter that wraps puts its 65536 into the global counts at
 * once). At the end the counters are added to the global counts. One block
 * of HIST16_THREADS per SM, the rows shared out by a grid stride. `shared`
 * takes a sample at a time; `warp` 16 bytes a lane, a vector of 8 equal
 * gray samples one add of 8. */
#define HIST16_THREADS 1024

/* Channel c's samples in [lo, lo + 2 nw) of a w x h image of C channels
 * (n = w C samples a row). VEC: 16-byte loads. */
template <int C, bool VEC>
__global__ void __launch_bounds__(HIST16_THREADS)
    hist16_kernel(const unsigned char *__restrict__ in, int n, int h, size_t pitch, int c,
                  int lo, int nw, unsigned *__restrict__ hist)
{
    extern __shared__ unsigned words[];
    unsigned *global = hist + (size_t)c * 65536;

    for (int i = threadIdx.x; i < nw; i += HIST16_THREADS)
        words[i] = 0;
    __syncthreads();
    const unsigned span = 2u * (unsigned)nw;
    if (!VEC) {
        const int per_row = (n - c + C - 1) / C; /* channel c's samples in a row */
        for (int y = blockIdx.x; y < h; y += gridDim.x) {
            const uint16_t *row = (const uint16_t *)(in + (size_t)y * pitch);
            for (int k = threadIdx.x; k < per_row; k += HIST16_THREADS) {
                const unsigned b = (unsigned)row[k * C + c] - (unsigned)lo;
                if (b < span)
                    hist16_add(words, nw, (int)b, 1u, global, lo);
            }
        }
    } else {
        const int vecs = n / 8;
        for (int y = blockIdx.x; y < h; y += gridDim.x) {
            const unsigned char *row = in + (size_t)y * pitch;
            for (int k = threadIdx.x; k < vecs; k += HIST16_THREADS) {
                const uint4 v = __ldg((const uint4 *)(row + 16 * k));
                const unsigned wd[4] = {v.x, v.y, v.z, v.w};
                if (C == 1 && v.x == v.y && v.x == v.z && v.x == v.w &&
                    (v.x >> 16) == (v.x & 0xffffu)) { /* 8 equal samples */
                    const unsigned b = (v.x & 0xffffu) - (unsigned)lo;
                    if (b < span)
                        hist16_add(words, nw, (int)b, 8u, global, lo);
                    continue;
                }
                const int c0 = (8 * k) % C;
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    const unsigned b = sample_of<uint16_t>(wd, j) - (unsigned)lo;
                    if ((c0 + j) % C == c && b < span)
                        hist16_add(words, nw, (int)b, 1u, global, lo);
                }
            }
            const uint16_t *row16 = (const uint16_t *)row;
            for (int x = 8 * vecs + (int)threadIdx.x; x < n; x += HIST16_THREADS) {
                const unsigned b = (unsigned)row16[x] - (unsigned)lo;
                if (x % C == c && b < span)
                    hist16_add(words, nw, (int)b, 1u, global, lo);
            }
        }
    }
    __syncthreads();
    hist16_flush<HIST16_THREADS>(words, nw, global, lo);
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

/* The packed 16-bit kernel for channel c, in as many bin ranges as the
 * device's shared memory a block needs (one on a GPU with 128 KB a block). */
template <int C>
static int hist16_cuda(const gf_dimage *in, unsigned *hist, bool vec, cudaStream_t st)
{
    const void *kernel = vec ? (const void *)hist16_kernel<C, true> : (const void *)hist16_kernel<C, false>;
    int optin = 0, sms, rc;

    if ((rc = gf_cuda_smem_optin(&optin)))
        return rc;
    int range = 65536;
    while ((size_t)range * 2 > (size_t)optin - 1024 && range > 4096) /* 2 bytes a bin */
        range /= 2;
    const size_t smem = (size_t)range * 2;
    GF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)smem));
    if ((rc = resident_blocks(kernel, HIST16_THREADS, smem, in->height, &sms)))
        return rc;
    for (int c = 0; c < C; c++)
        for (int lo = 0; lo < 65536; lo += range) {
            if (vec)
                hist16_kernel<C, true><<<sms, HIST16_THREADS, smem, st>>>(
                    in->data, in->width * C, in->height, in->pitch, c, lo, range / 2, hist);
            else
                hist16_kernel<C, false><<<sms, HIST16_THREADS, smem, st>>>(
                    in->data, in->width * C, in->height, in->pitch, c, lo, range / 2, hist);
        }
    return 0;
}

template <typename T, int C>
static int hist_layout(const gf_dimage *in, unsigned *hist, int variant, cudaStream_t st)
{
    const int n = in->width * C, h = in->height;

    if (variant == HIST_GLOBAL) {
        dim3 grid((n + GLOBAL_BX - 1) / GLOBAL_BX, (h + GLOBAL_BY - 1) / GLOBAL_BY);
        hist_global_kernel<T, C><<<grid, dim3(GLOBAL_BX, GLOBAL_BY), 0, st>>>(in->data, n, h,
                                                                             in->pitch, hist);
    } else if (sizeof(T) == 2) {
        return hist16_cuda<C>(in, hist, variant == HIST_WARP, st);
    } else if (variant == HIST_SHARED) {
        int sms, rc;
        if ((rc = gf_cuda_sms(&sms)))
            return rc;
        const int blocks = h < sms * BLOCKS_PER_SM ? h : sms * BLOCKS_PER_SM;
        hist_shared_kernel<C><<<blocks, SHARED_THREADS, 0, st>>>(in->data, n, h, in->pitch, hist);
    } else {
        int blocks = 1, rc;
        if ((rc = resident_blocks((const void *)hist_warp_kernel<C>, WARP_THREADS, 0,
                                  (h + WARP_WARPS - 1) / WARP_WARPS, &blocks)))
            return rc;
        hist_warp_kernel<C><<<blocks, WARP_THREADS, 0, st>>>(in->data, n, h, in->pitch, hist);
    }
    return 0;
}

static int hist_cuda(const gf_dimage *in, unsigned *hist, int variant, cudaStream_t st)
{
    const size_t count = (size_t)in->channels * (size_t)gf_hist_bins(in->bits);
    int rc = 0;

    GF_CUDA_CHECK(cudaMemsetAsync(hist, 0, count * sizeof *hist, st));
#define LAUNCH(T, C) rc = hist_layout<T, C>(in, hist, variant, st)
    GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    if (rc)
        return rc;
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
