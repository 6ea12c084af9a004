/* depth.cu - every sample to 8 or 16 bits (src/stages/depth.h's rules), for
 * every layout: the image as one channel of width x channels samples. */
#include <type_traits>

#include "check.h"

#include "../src/stages/depth.h"

/* depth_global_kernel: a thread converts 8 samples of a row: one 16-byte
 * side and one 8-byte side (rows start on 256-byte boundaries, so both are
 * aligned), 64x4 threads a block. TO: the output's bits. */
#define DEPTH_BX 64
#define DEPTH_BY 4
#define DEPTH_N 8

template <int TO>
__global__ void __launch_bounds__(DEPTH_BX *DEPTH_BY)
    depth_global_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                        int n, int h, size_t ipitch, size_t opitch)
{
    using In = typename std::conditional<TO == 8, uint16_t, uint8_t>::type;
    using Out = typename std::conditional<TO == 8, uint8_t, uint16_t>::type;
    const int x = (blockIdx.x * DEPTH_BX + threadIdx.x) * DEPTH_N,
              y = blockIdx.y * DEPTH_BY + threadIdx.y;

    if (x >= n || y >= h)
        return;
    const In *src = (const In *)(in + (size_t)y * ipitch) + x;
    Out *dst = (Out *)(out + (size_t)y * opitch) + x;
    if (x + DEPTH_N > n) {
        for (int k = 0; x + k < n; k++)
            dst[k] = (Out)(TO == 8 ? gf_depth_16to8(src[k]) : gf_depth_8to16(src[k]));
        return;
    }
    if (TO == 8) {
        const uint4 v = __ldg((const uint4 *)(const void *)src);
        const unsigned wd[4] = {v.x, v.y, v.z, v.w};
        unsigned o[2] = {0, 0};
#pragma unroll
        for (int k = 0; k < 8; k++)
            o[k / 4] |= gf_depth_16to8((wd[k / 2] >> (16 * (k % 2))) & 0xffffu) << (8 * (k % 4));
        *(uint2 *)(void *)dst = make_uint2(o[0], o[1]);
    } else {
        const uint2 v = __ldg((const uint2 *)(const void *)src);
        const unsigned wd[2] = {v.x, v.y};
        unsigned o[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            o[k] = gf_depth_8to16((wd[k / 2] >> (16 * (k % 2))) & 0xffu) |
                   gf_depth_8to16((wd[k / 2] >> (16 * (k % 2) + 8)) & 0xffu) << 16;
        *(uint4 *)(void *)dst = make_uint4(o[0], o[1], o[2], o[3]);
    }
}

extern "C" int gf_depth_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    const int to = GF_CPARAMS(s, gf_depth_params)->bits;
    const gf_shape os = {in->width, in->height, in->channels, to};
    const int n = in->width * in->channels;
    cudaStream_t st = (cudaStream_t)stream;
    const dim3 grid((n + DEPTH_BX * DEPTH_N - 1) / (DEPTH_BX * DEPTH_N),
                    (in->height + DEPTH_BY - 1) / DEPTH_BY);
    int rc;

    if ((to != 8 && to != 16) || (rc = gf_dimage_shape(out, &os)))
        return to != 8 && to != 16 ? gf_err(GF_EINTERNAL, NULL, "depth: bad bits %d", to) : rc;
    if (in->bits == to) { /* the pipeline skips this; a copy keeps the contract */
        GF_CUDA_CHECK(cudaMemcpy2DAsync(out->data, out->pitch, in->data, in->pitch,
                                        (size_t)n * (size_t)(to / 8), (size_t)in->height,
                                        cudaMemcpyDeviceToDevice, st));
        return 0;
    }
    if (to == 8)
        depth_global_kernel<8><<<grid, dim3(DEPTH_BX, DEPTH_BY), 0, st>>>(
            in->data, out->data, n, in->height, in->pitch, out->pitch);
    else
        depth_global_kernel<16><<<grid, dim3(DEPTH_BX, DEPTH_BY), 0, st>>>(
            in->data, out->data, n, in->height, in->pitch, out->pitch);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}
