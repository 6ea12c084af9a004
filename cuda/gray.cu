/* gray.cu - the luma of an image as one channel (src/stages/gray.h's rule,
 * gf_luma), for every layout. */
#include "check.h"

#include "../src/stages/gray.h"

/* gray_global_kernel: a thread takes 4 pixels of a row: their 4 C samples
 * of T come as 32-bit words (aligned: rows start on 256-byte boundaries and
 * 4 pixels are a whole number of words), the 4 lumas go out as one 4- or
 * 8-byte store. 64x4 threads a block. */
#define GRAY_BX 64
#define GRAY_BY 4
#define GRAY_PIX 4

template <typename T, int C>
__global__ void __launch_bounds__(GRAY_BX *GRAY_BY)
    gray_global_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                       int w, int h, size_t ipitch, size_t opitch)
{
    constexpr int WORDS = GRAY_PIX * C * (int)sizeof(T) / 4;
    const int x = (blockIdx.x * GRAY_BX + threadIdx.x) * GRAY_PIX,
              y = blockIdx.y * GRAY_BY + threadIdx.y;

    if (x >= w || y >= h)
        return;
    const T *src = (const T *)(in + (size_t)y * ipitch) + (size_t)x * C;
    T *dst = (T *)(out + (size_t)y * opitch) + x;
    T s[GRAY_PIX * C];
    if (x + GRAY_PIX <= w) {
        unsigned wd[WORDS];
#pragma unroll
        for (int k = 0; k < WORDS; k++)
            wd[k] = __ldg((const unsigned *)(const void *)src + k);
#pragma unroll
        for (int k = 0; k < GRAY_PIX * C; k++)
            s[k] = sizeof(T) == 1 ? (T)((wd[k / 4] >> (8 * (k % 4))) & 0xffu)
                                  : (T)((wd[k / 2] >> (16 * (k % 2))) & 0xffffu);
    } else {
#pragma unroll
        for (int k = 0; k < GRAY_PIX * C; k++)
            s[k] = x + k / C < w ? src[k] : (T)0;
    }
    T o[GRAY_PIX];
#pragma unroll
    for (int p = 0; p < GRAY_PIX; p++)
        o[p] = C <= 2 ? s[p * C] : (T)gf_luma(s[p * C], s[p * C + 1], s[p * C + 2]);
    if (x + GRAY_PIX <= w) {
        if (sizeof(T) == 1)
            *(unsigned *)(void *)dst = (unsigned)o[0] | (unsigned)o[1] << 8 |
                                       (unsigned)o[2] << 16 | (unsigned)o[3] << 24;
        else
            *(uint2 *)(void *)dst = make_uint2((unsigned)o[0] | (unsigned)o[1] << 16,
                                               (unsigned)o[2] | (unsigned)o[3] << 16);
    } else {
        for (int p = 0; x + p < w; p++)
            dst[p] = o[p];
    }
}

extern "C" int gf_gray_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    const gf_shape os = {in->width, in->height, 1, in->bits};
    cudaStream_t st = (cudaStream_t)stream;
    const dim3 grid((in->width + GRAY_BX * GRAY_PIX - 1) / (GRAY_BX * GRAY_PIX),
                    (in->height + GRAY_BY - 1) / GRAY_BY);
    int rc;
    (void)s;

    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
#define LAUNCH(T, C)                                                                          \
    gray_global_kernel<T, C><<<grid, dim3(GRAY_BX, GRAY_BY), 0, st>>>(                        \
        in->data, out->data, in->width, in->height, in->pitch, out->pitch)
    GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}
