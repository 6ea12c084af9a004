/* hist.cuh - device steps shared by the kernels that count histograms in
 * shared memory (cuda/hist.cu; CLAHE's tiles, cuda/clahe.cu). */
#ifndef GF_HIST_CUH
#define GF_HIST_CUH

/* Adds the 16 bytes of a gray vector to the 256 counts at sh (shared
 * memory), a run of equal bytes as one atomic: flat regions (photos,
 * constant images) do not serialise on one bin. */
__device__ __forceinline__ void hist_count16(unsigned *sh, uint4 v)
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

/* 16-bit counts in shared memory, two to a 32-bit word: bin b (0 .. 2 nw -
 * 1) of a range is the low half of words[b] for b < nw, else the high half
 * of words[b - nw]. An atomicAdd's old value says when it carried: a low
 * counter that wraps past 65535 has carried 1 into the high one, which is
 * then also corrected, and a high counter that wraps has lost 65536; the
 * thread whose add wrapped puts those 65536s (and the -1) into the global
 * counts at once (global[g0 + b], 32-bit), so no count is ever lost,
 * whatever the order of the adds (mod 2^32 sums; the true counts fit in 32
 * bits). The caller adds the counters to the global counts at the end
 * (hist16_flush). Used by cuda/hist.cu and CLAHE's 16-bit tiles. */

/* Adds k to bin b of the range whose first bin is global[g0]. */
__device__ __forceinline__ void hist16_add(unsigned *words, int nw, int b, unsigned k,
                                           unsigned *__restrict__ global, int g0)
{
    const int hi = b >= nw, i = hi ? b - nw : b;
    const unsigned old = atomicAdd(&words[i], hi ? k << 16 : k);
    if (!hi) {
        if ((old & 0xffffu) + k > 0xffffu) { /* the low counter wrapped: carried into high */
            atomicAdd(&global[g0 + i], 65536u);
            atomicAdd(&global[g0 + nw + i], 0xffffffffu); /* the carry is not a count */
            if ((old >> 16) == 0xffffu) /* and the carry wrapped the high counter */
                atomicAdd(&global[g0 + nw + i], 65536u);
        }
    } else if ((old >> 16) + k > 0xffffu) {
        atomicAdd(&global[g0 + nw + i], 65536u);
    }
}

/* Adds the counters of words (nw words, shared memory) to global[g0 ..
 * g0 + 2 nw - 1], by the THREADS threads of the block (after a
 * __syncthreads), one atomic a non-zero counter. */
template <int THREADS>
__device__ __forceinline__ void hist16_flush(const unsigned *words, int nw,
                                             unsigned *__restrict__ global, int g0)
{
    for (int i = threadIdx.x; i < nw; i += THREADS) {
        const unsigned v = words[i];
        if (v & 0xffffu)
            atomicAdd(&global[g0 + i], v & 0xffffu);
        if (v >> 16)
            atomicAdd(&global[g0 + nw + i], v >> 16);
    }
}

#endif
