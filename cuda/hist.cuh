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

#endif
