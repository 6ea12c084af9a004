/* lut.cuh - block-wide steps for the kernels that make lookup tables from
 * histograms on the device (cuda/equalize.cu, cuda/autocontrast.cu; CLAHE's
 * per-tile tables have the same shape): a block of THREADS threads (a
 * multiple of 32, at most 1024) takes a channel's NB bins, NB / THREADS
 * consecutive bins a thread. Every thread of the block calls each step
 * (they synchronise the block). */
#ifndef GF_LUT_CUH
#define GF_LUT_CUH

#include <stdint.h>

#include "check.h"

#include "../src/stages/hist.h"

/* The sum of v over the threads before this one (an exclusive scan), and
 * over the whole block into *total. */
template <int THREADS>
__device__ __forceinline__ unsigned long long lut_block_scan(unsigned long long v,
                                                             unsigned long long *total)
{
    __shared__ unsigned long long warp_sums[THREADS / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned long long x = v;

    for (int off = 1; off < 32; off *= 2) {
        const unsigned long long y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off)
            x += y;
    }
    __syncthreads(); /* an earlier call's readers are done */
    if (lane == 31)
        warp_sums[warp] = x;
    __syncthreads();
    unsigned long long before = 0, all = 0;
    for (int k = 0; k < THREADS / 32; k++) {
        before += k < warp ? warp_sums[k] : 0;
        all += warp_sums[k];
    }
    *total = all;
    return before + x - v;
}

/* The least (MAX == false) or greatest (MAX == true) v over the block. */
template <int THREADS, bool MAX>
__device__ __forceinline__ int lut_block_extreme(int v)
{
    __shared__ int warp_best[THREADS / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    for (int off = 16; off; off /= 2) {
        const int y = __shfl_xor_sync(0xffffffffu, v, off);
        v = MAX ? max(v, y) : min(v, y);
    }
    __syncthreads();
    if (lane == 0)
        warp_best[warp] = v;
    __syncthreads();
    for (int k = 0; k < THREADS / 32; k++)
        v = MAX ? max(v, warp_best[k]) : min(v, warp_best[k]);
    return v;
}

/* Threads a block and bins a thread for tables of T (uint8_t: 256 bins;
 * uint16_t: 65536). */
template <typename T> struct lut_shape {
    static constexpr int NB = sizeof(T) == 1 ? 256 : 65536;
    static constexpr int THREADS = sizeof(T) == 1 ? 256 : 1024;
    static constexpr int PER = NB / THREADS;
    static constexpr unsigned MAX = (unsigned)NB - 1;
};

/* A tone stage's device tables (gf_lut_device_fn): in's histogram
 * (gf_hist_device, every channel, in stream-ordered scratch memory), then
 * launch(hist) on the stream, which makes one table a colour channel from
 * it; the scratch is freed after. Returns 0 or GF_EINTERNAL. */
template <class Launch>
static int lut_tables_from_hist(const gf_dimage *in, cudaStream_t st, Launch launch)
{
    const size_t nb = (size_t)gf_hist_bins(in->bits);
    unsigned *hist = NULL;
    int rc;

    GF_CUDA_CHECK(cudaMallocAsync((void **)&hist, (size_t)in->channels * nb * sizeof *hist, st));
    if ((rc = gf_hist_device(in, hist, st)) == 0)
        launch((const unsigned *)hist);
    cudaError_t e = cudaGetLastError();
    cudaFreeAsync(hist, st);
    if (rc)
        return rc;
    GF_CUDA_CHECK(e);
    return 0;
}

#endif
