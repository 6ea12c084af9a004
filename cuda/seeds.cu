/* seeds.cu - the float kernels of gpufilt bench's tutorial experiments, made
 * correct for any size: the 32-bit matrix transpose of seed 2 (naive, a
 * 16x16 shared tile, the same tile padded to 16x17) and the matrix multiply
 * of seed 5 (naive, 16x16 shared tiles), after the CUDA Programming Guide's
 * shared-memory examples. */
#include "check.h"

#include "../src/peers.h"

#define T 16 /* tile side: the seeds' 16x16 blocks */

/* Transpose of a rows x cols float matrix (row-major, dense) into cols x rows. */
__global__ void transpose_naive_kernel(const float *__restrict__ in, float *__restrict__ out,
                                       int rows, int cols)
{
    const int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;

    if (x < cols && y < rows)
        out[(size_t)x * rows + y] = in[(size_t)y * cols + x];
}

template <int PAD>
__global__ void transpose_tile_kernel(const float *__restrict__ in, float *__restrict__ out,
                                      int rows, int cols)
{
    __shared__ float tile[T][T + PAD];
    int x = blockIdx.x * T + threadIdx.x, y = blockIdx.y * T + threadIdx.y;

    if (x < cols && y < rows)
        tile[threadIdx.y][threadIdx.x] = in[(size_t)y * cols + x];
    __syncthreads();
    x = blockIdx.y * T + threadIdx.x; /* output column = input row */
    y = blockIdx.x * T + threadIdx.y;
    if (x < rows && y < cols)
        out[(size_t)y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

/* C (m x n) = A (m x k) * B (k x n), row-major, dense. */
__global__ void matmul_naive_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                    float *__restrict__ c, int m, int n, int k)
{
    const int col = blockIdx.x * T + threadIdx.x, row = blockIdx.y * T + threadIdx.y;
    float s = 0;

    if (row >= m || col >= n)
        return;
    for (int i = 0; i < k; i++)
        s += a[(size_t)row * k + i] * b[(size_t)i * n + col];
    c[(size_t)row * n + col] = s;
}

__global__ void matmul_tiled_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                    float *__restrict__ c, int m, int n, int k)
{
    __shared__ float as[T][T], bs[T][T];
    const int col = blockIdx.x * T + threadIdx.x, row = blockIdx.y * T + threadIdx.y;
    float s = 0;

    for (int t = 0; t < k; t += T) {
        /* cells past the matrix edges are zero, so they add nothing */
        const int ak = t + threadIdx.x, bk = t + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = row < m && ak < k ? a[(size_t)row * k + ak] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = bk < k && col < n ? b[(size_t)bk * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int i = 0; i < T; i++)
            s += as[threadIdx.y][i] * bs[i][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n)
        c[(size_t)row * n + col] = s;
}

extern "C" int gf_seed_transpose_f32(const float *in, float *out, int rows, int cols, int variant,
                                     void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    dim3 grid((cols + T - 1) / T, (rows + T - 1) / T), block(T, T);

    if (variant == GF_SEED_NAIVE)
        transpose_naive_kernel<<<grid, block, 0, st>>>(in, out, rows, cols);
    else if (variant == GF_SEED_TILED)
        transpose_tile_kernel<0><<<grid, block, 0, st>>>(in, out, rows, cols);
    else
        transpose_tile_kernel<1><<<grid, block, 0, st>>>(in, out, rows, cols);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

extern "C" int gf_seed_matmul_f32(const float *a, const float *b, float *c, int m, int n, int k,
                                  int variant, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    dim3 grid((n + T - 1) / T, (m + T - 1) / T), block(T, T);

    if (variant == GF_SEED_NAIVE)
        matmul_naive_kernel<<<grid, block, 0, st>>>(a, b, c, m, n, k);
    else
        matmul_tiled_kernel<<<grid, block, 0, st>>>(a, b, c, m, n, k);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}
