/* peers.cu - library implementations that gpufilt bench times beside its own
 * kernels. CUB ships with the CUDA toolkit and is always built in. */
/* MultiHistogramEven's pointer-array overload serves CUDA 12 and 13 alike;
 * CUDA 13 prefers one taking cuda::std::arrays and deprecates this one. */
#define CCCL_IGNORE_DEPRECATED_API
#define CUB_IGNORE_DEPRECATED_API
#include <cub/device/device_histogram.cuh>

#include "check.h"

#include "../src/peers.h"

extern "C" int gf_cub_hist(const gf_dimage *in, unsigned *hist, void *temp, size_t *temp_bytes,
                           void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;

    if (in->channels == 1 && in->bits == 8) {
        GF_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, *temp_bytes, in->data, hist, 257,
                                                          0, 256, in->width, in->height,
                                                          in->pitch, st));
    } else if (in->channels == 1 && in->bits == 16) {
        GF_CUDA_CHECK(cub::DeviceHistogram::HistogramEven(
            temp, *temp_bytes, (const unsigned short *)(const void *)in->data, hist, 65537, 0,
            65536, in->width, in->height, in->pitch, st));
    } else if (in->channels == 3 && in->bits == 8) {
        /* MultiHistogramEven: the channels' counts at hist, hist+256, hist+512 */
        unsigned *h[3] = {hist, hist + 256, hist + 512};
        int levels[3] = {257, 257, 257};
        unsigned lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
        GF_CUDA_CHECK((cub::DeviceHistogram::MultiHistogramEven<3, 3>(
            temp, *temp_bytes, in->data, h, levels, lower, upper, in->width, in->height,
            in->pitch, st)));
    } else {
        return 1; /* no such call */
    }
    if (temp)
        GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}
