/* project.cu - projection profiles: column sums and row sums of every
 * channel, exact in 32 bits (a side is at most 65535 pixels, so a sum is at
 * most 65535 * 65535 < 2^32). Column sums take the image as one channel of
 * width x channels samples, whose columns are the channels' columns in the
 * order of the report; row sums keep a sum per channel.
 *
 * Origin: the 1-byte against 4-byte loads experiment (seed 4): one thread
 * per column reading a byte per row, against one thread per 4 columns
 * reading a 32-bit word. With one thread per column an 8192-wide image gives
 * an H100 too few threads; `split` also divides the rows among blocks. */
#include "check.h"

#include "../src/stages/project.h"

#define COL_THREADS 128 /* byte and word kernels: threads per block along x */
/* split: each block sums SPLIT_ROWS rows of its 4*COL_THREADS columns and
 * adds the partial sums atomically; 64 rows of 8000 give ~250K threads. */
#define SPLIT_ROWS 64
#define ROW_THREADS 256 /* rowsum: one block of 8 warps per 8 rows, a warp a row */

__global__ void colsum_byte_kernel(const unsigned char *__restrict__ in, int w, int h,
                                   size_t pitch, unsigned *__restrict__ sums)
{
    const int x = blockIdx.x * COL_THREADS + threadIdx.x;
    unsigned s = 0;

    if (x >= w)
        return;
    for (int y = 0; y < h; y++)
        s += in[(size_t)y * pitch + x];
    sums[x] = s;
}

/* Sums the 4 bytes of words at column x (a multiple of 4) over rows
 * [y0, y1) into s[4]; bytes past w are not read. */
__device__ __forceinline__ void sum_words(const unsigned char *__restrict__ in, int w,
                                          size_t pitch, int x, int y0, int y1, unsigned s[4])
{
    if (x + 3 < w) {
        for (int y = y0; y < y1; y++) {
            const unsigned v = *(const unsigned *)(in + (size_t)y * pitch + x);
            s[0] += v & 0xff;
            s[1] += (v >> 8) & 0xff;
            s[2] += (v >> 16) & 0xff;
            s[3] += v >> 24;
        }
    } else {
        for (int y = y0; y < y1; y++)
            for (int q = 0; q < 4 && x + q < w; q++)
                s[q] += in[(size_t)y * pitch + x + q];
    }
}

__global__ void colsum_word_kernel(const unsigned char *__restrict__ in, int w, int h,
                                   size_t pitch, unsigned *__restrict__ sums)
{
    const int x = 4 * (blockIdx.x * COL_THREADS + threadIdx.x);
    unsigned s[4] = {0, 0, 0, 0};

    if (x >= w)
        return;
    sum_words(in, w, pitch, x, 0, h, s);
    for (int q = 0; q < 4 && x + q < w; q++)
        sums[x + q] = s[q];
}

__global__ void colsum_split_kernel(const unsigned char *__restrict__ in, int w, int h,
                                    size_t pitch, unsigned *__restrict__ sums)
{
    const int x = 4 * (blockIdx.x * COL_THREADS + threadIdx.x);
    const int y0 = blockIdx.y * SPLIT_ROWS, y1 = min(h, y0 + SPLIT_ROWS);
    unsigned s[4] = {0, 0, 0, 0};

    if (x >= w)
        return;
    sum_words(in, w, pitch, x, y0, y1, s);
    for (int q = 0; q < 4 && x + q < w; q++)
        atomicAdd(&sums[x + q], s[q]);
}

/* A warp per row: 8 16-byte loads per lane in flight, bytes summed 4 at a
 * time by __dp4a, then a shuffle reduction. */
__global__ void rowsum_warp_kernel(const unsigned char *__restrict__ in, int w, int h,
                                   size_t pitch, unsigned *__restrict__ sums)
{
    const int lane = threadIdx.x % 32, y = blockIdx.x * (ROW_THREADS / 32) + threadIdx.x / 32;
    unsigned s = 0;

    if (y >= h)
        return;
    const unsigned char *row = in + (size_t)y * pitch;
    const int vecs = w / 16;
    for (int base = 0; base < vecs; base += 256) {
        uint4 v[8];
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int k = base + lane + 32 * q;
            v[q] = k < vecs ? __ldg((const uint4 *)(row + 16 * k)) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int q = 0; q < 8; q++) {
            s = __dp4a(v[q].x, 0x01010101u, s);
            s = __dp4a(v[q].y, 0x01010101u, s);
            s = __dp4a(v[q].z, 0x01010101u, s);
            s = __dp4a(v[q].w, 0x01010101u, s);
        }
    }
    if (16 * vecs + lane < w) /* at most 15 bytes left */
        s += row[16 * vecs + lane];
    for (int off = 16; off; off /= 2)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0)
        sums[y] = s;
}

/* colsum_vector_kernel: a warp sums 512 columns (16 a lane, one 16-byte
 * load per row, 8 loads in flight) over VEC_ROWS rows, in packed 16-bit
 * lanes (even and odd bytes; up to 257 rows of 255 fit); the 8 warps of a block
 * take consecutive row chunks of the same columns and add their sums in
 * shared memory, then one atomic per column per block (the sums are zeroed
 * first). */
#define VEC_ROWS 32
#define VEC_WARPS 8

__global__ void __launch_bounds__(VEC_WARPS * 32)
    colsum_vector_kernel(const unsigned char *__restrict__ in, int w, int h, size_t pitch,
                         unsigned *__restrict__ sums)
{
    __shared__ unsigned part[512];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int x0 = blockIdx.x * 512 + 16 * lane;
    const int y0 = (blockIdx.y * VEC_WARPS + warp) * VEC_ROWS, y1 = min(h, y0 + VEC_ROWS);
    unsigned e[4] = {0, 0, 0, 0}, o[4] = {0, 0, 0, 0}; /* columns 4g, 4g+2 and 4g+1, 4g+3 */

    for (int i = threadIdx.x; i < 512; i += VEC_WARPS * 32)
        part[i] = 0;
    __syncthreads();
    if (x0 < w) {
        const unsigned char *p = in + x0;
        int y = y0;
        for (; y + 8 <= y1; y += 8) {
            uint4 v[8];
#pragma unroll
            for (int k = 0; k < 8; k++)
                v[k] = __ldg((const uint4 *)(p + (size_t)(y + k) * pitch));
#pragma unroll
            for (int k = 0; k < 8; k++) {
                const unsigned wd[4] = {v[k].x, v[k].y, v[k].z, v[k].w};
#pragma unroll
                for (int g = 0; g < 4; g++) {
                    e[g] += wd[g] & 0x00ff00ffu;
                    o[g] += (wd[g] >> 8) & 0x00ff00ffu;
                }
            }
        }
        for (; y < y1; y++) {
            const uint4 v = __ldg((const uint4 *)(p + (size_t)y * pitch));
            const unsigned wd[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int g = 0; g < 4; g++) {
                e[g] += wd[g] & 0x00ff00ffu;
                o[g] += (wd[g] >> 8) & 0x00ff00ffu;
            }
        }
        /* bytes of the vector past w were summed too; they are not stored */
#pragma unroll
        for (int g = 0; g < 4; g++) {
            atomicAdd(&part[16 * lane + 4 * g], e[g] & 0xffffu);
            atomicAdd(&part[16 * lane + 4 * g + 1], o[g] & 0xffffu);
            atomicAdd(&part[16 * lane + 4 * g + 2], e[g] >> 16);
            atomicAdd(&part[16 * lane + 4 * g + 3], o[g] >> 16);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 512; i += VEC_WARPS * 32) {
        const int x = blockIdx.x * 512 + i;
        if (x < w && part[i])
            atomicAdd(&sums[x], part[i]);
    }
}

/* The 16-bit column sums: colsum16_sample_kernel, a thread a sample
 * column (as colsum_byte_kernel); colsum16_pair_kernel, a thread two
 * columns from one 32-bit word a row (as colsum_word_kernel), over all rows
 * or (split) SPLIT_ROWS of them, added atomically; colsum16_vector_kernel,
 * 8 columns a lane from one 16-byte load a row, 8 loads in flight, 32-bit
 * sums over VEC_ROWS rows, a block's 8 row chunks added in shared memory,
 * then atomically (as colsum_vector_kernel). */
__global__ void colsum16_sample_kernel(const unsigned char *__restrict__ in, int w, int h,
                                       size_t pitch, unsigned *__restrict__ sums)
{
    const int x = blockIdx.x * COL_THREADS + threadIdx.x;
    unsigned s = 0;

    if (x >= w)
        return;
    for (int y = 0; y < h; y++)
        s += ((const uint16_t *)(in + (size_t)y * pitch))[x];
    sums[x] = s;
}

__global__ void colsum16_pair_kernel(const unsigned char *__restrict__ in, int w, int h,
                                     size_t pitch, unsigned *__restrict__ sums, int split)
{
    const int x = 2 * (blockIdx.x * COL_THREADS + threadIdx.x);
    const int y0 = split ? blockIdx.y * SPLIT_ROWS : 0, y1 = split ? min(h, y0 + SPLIT_ROWS) : h;
    unsigned s0 = 0, s1 = 0;

    if (x >= w)
        return;
    for (int y = y0; y < y1; y++) {
        const uint16_t *row = (const uint16_t *)(in + (size_t)y * pitch);
        if (x + 1 < w) {
            const unsigned v = *(const unsigned *)(const void *)(row + x);
            s0 += v & 0xffffu, s1 += v >> 16;
        } else {
            s0 += row[x];
        }
    }
    if (!split) {
        sums[x] = s0;
        if (x + 1 < w)
            sums[x + 1] = s1;
    } else {
        atomicAdd(&sums[x], s0);
        if (x + 1 < w)
            atomicAdd(&sums[x + 1], s1);
    }
}

__global__ void __launch_bounds__(VEC_WARPS * 32)
    colsum16_vector_kernel(const unsigned char *__restrict__ in, int w, int h, size_t pitch,
                           unsigned *__restrict__ sums)
{
    __shared__ unsigned part[256];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int x0 = blockIdx.x * 256 + 8 * lane;
    const int y0 = (blockIdx.y * VEC_WARPS + warp) * VEC_ROWS, y1 = min(h, y0 + VEC_ROWS);
    unsigned s[8] = {0, 0, 0, 0, 0, 0, 0, 0};

    for (int i = threadIdx.x; i < 256; i += VEC_WARPS * 32)
        part[i] = 0;
    __syncthreads();
    if (x0 < w) {
        const unsigned char *p = in + 2 * (size_t)x0;
        int y = y0;
        for (; y + 8 <= y1; y += 8) {
            uint4 v[8];
#pragma unroll
            for (int k = 0; k < 8; k++)
                v[k] = __ldg((const uint4 *)(p + (size_t)(y + k) * pitch));
#pragma unroll
            for (int k = 0; k < 8; k++) {
                const unsigned wd[4] = {v[k].x, v[k].y, v[k].z, v[k].w};
#pragma unroll
                for (int g = 0; g < 4; g++)
                    s[2 * g] += wd[g] & 0xffffu, s[2 * g + 1] += wd[g] >> 16;
            }
        }
        for (; y < y1; y++) {
            const uint4 v = __ldg((const uint4 *)(p + (size_t)y * pitch));
            const unsigned wd[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int g = 0; g < 4; g++)
                s[2 * g] += wd[g] & 0xffffu, s[2 * g + 1] += wd[g] >> 16;
        }
        /* samples of the vector past w were summed too; they are not stored */
#pragma unroll
        for (int k = 0; k < 8; k++)
            atomicAdd(&part[8 * lane + k], s[k]);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += VEC_WARPS * 32) {
        const int x = blockIdx.x * 256 + i;
        if (x < w && part[i])
            atomicAdd(&sums[x], part[i]);
    }
}

/* Sum of the samples j of a 16-byte vector (words wd) with j % C == i:
 * __dp4a (8-bit) or __dp2a_lo (16-bit) against constant masks of ones. */
template <typename T, int C>
__device__ __forceinline__ unsigned phase_sum(const unsigned *wd, int i)
{
    constexpr int S = 4 / (int)sizeof(T); /* samples a word */
    unsigned t = 0;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        unsigned m = 0;
#pragma unroll
        for (int b = 0; b < S; b++)
            m |= (S * q + b) % C == i ? 1u << (8 * b) : 0u;
        t = S == 4 ? __dp4a(wd[q], m, t) : __dp2a_lo(wd[q], m, t);
    }
    return t;
}

/* rowsum_channels_kernel: a warp per row, as rowsum_warp_kernel, for every
 * layout but 8-bit gray: 8 16-byte loads per lane in flight. Sample j of
 * vector k of the row is channel (c0 + j) % C, c0 = k * PER % C (0 when C
 * divides PER, the samples a vector): a vector's C phase sums
 * (phase_sum) are added to the channels they rotate onto; the C sums are
 * then reduced by shuffles. */
template <typename T, int C>
__global__ void rowsum_channels_kernel(const unsigned char *__restrict__ in, int w, int h,
                                       size_t pitch, unsigned *__restrict__ sums)
{
    constexpr int PER = 16 / (int)sizeof(T); /* samples a vector */
    const int lane = threadIdx.x % 32, y = blockIdx.x * (ROW_THREADS / 32) + threadIdx.x / 32;
    const int n = w * C, vecs = n / PER;
    unsigned s[C];

    if (y >= h)
        return;
#pragma unroll
    for (int c = 0; c < C; c++)
        s[c] = 0;
    const unsigned char *row = in + (size_t)y * pitch;
    for (int base = 0; base < vecs; base += 256) {
        uint4 v[8];
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int k = base + lane + 32 * q;
            v[q] = k < vecs ? __ldg((const uint4 *)(row + 16 * k)) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int q = 0; q < 8; q++) {
            const int k = base + lane + 32 * q;
            const unsigned wd[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
            const int c0 = PER % C ? (int)((unsigned)k * PER % C) : 0;
#pragma unroll
            for (int i = 0; i < C; i++) {
                const unsigned t = phase_sum<T, C>(wd, i);
#pragma unroll
                for (int c = 0; c < C; c++)
                    s[c] += (c0 + i) % C == c ? t : 0;
            }
        }
    }
    for (int i = PER * vecs + lane; i < n; i += 32) { /* fewer than PER samples left */
        const unsigned x = ((const T *)row)[i];
#pragma unroll
        for (int c = 0; c < C; c++)
            s[c] += i % C == c ? x : 0;
    }
#pragma unroll
    for (int c = 0; c < C; c++)
        for (int off = 16; off; off /= 2)
            s[c] += __shfl_down_sync(0xffffffffu, s[c], off);
    if (lane == 0)
#pragma unroll
        for (int c = 0; c < C; c++)
            sums[(size_t)y * C + c] = s[c];
}

enum { COLSUM_BYTE, COLSUM_WORD, COLSUM_SPLIT, COLSUM_VECTOR };

/* 16-bit column sums of f (one channel, device) by variant. */
static int colsum16_cuda(const gf_dimage *f, unsigned *sums, int variant, cudaStream_t st)
{
    const int w = f->width, h = f->height;

    if (variant == COLSUM_BYTE) {
        colsum16_sample_kernel<<<(w + COL_THREADS - 1) / COL_THREADS, COL_THREADS, 0, st>>>(
            f->data, w, h, f->pitch, sums);
    } else if (variant == COLSUM_WORD || variant == COLSUM_SPLIT) {
        const int split = variant == COLSUM_SPLIT;
        if (split)
            GF_CUDA_CHECK(cudaMemsetAsync(sums, 0, (size_t)w * sizeof *sums, st));
        dim3 grid((w + 2 * COL_THREADS - 1) / (2 * COL_THREADS),
                  split ? (h + SPLIT_ROWS - 1) / SPLIT_ROWS : 1);
        colsum16_pair_kernel<<<grid, COL_THREADS, 0, st>>>(f->data, w, h, f->pitch, sums, split);
    } else {
        GF_CUDA_CHECK(cudaMemsetAsync(sums, 0, (size_t)w * sizeof *sums, st));
        const int rows = VEC_ROWS * VEC_WARPS;
        dim3 grid((w + 255) / 256, (h + rows - 1) / rows);
        colsum16_vector_kernel<<<grid, VEC_WARPS * 32, 0, st>>>(f->data, w, h, f->pitch, sums);
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

static int colsum_cuda(const gf_dimage *img, unsigned *sums, int variant, cudaStream_t st)
{
    const gf_dimage flat = gf_dimage_flat(img), *in = &flat;
    const int w = in->width, h = in->height;

    if (in->bits == 16)
        return colsum16_cuda(in, sums, variant, st);
    if (variant == COLSUM_BYTE) {
        colsum_byte_kernel<<<(w + COL_THREADS - 1) / COL_THREADS, COL_THREADS, 0, st>>>(
            in->data, w, h, in->pitch, sums);
    } else if (variant == COLSUM_WORD) {
        colsum_word_kernel<<<(w + 4 * COL_THREADS - 1) / (4 * COL_THREADS), COL_THREADS, 0, st>>>(
            in->data, w, h, in->pitch, sums);
    } else if (variant == COLSUM_SPLIT) {
        GF_CUDA_CHECK(cudaMemsetAsync(sums, 0, (size_t)w * sizeof *sums, st));
        dim3 grid((w + 4 * COL_THREADS - 1) / (4 * COL_THREADS), (h + SPLIT_ROWS - 1) / SPLIT_ROWS);
        colsum_split_kernel<<<grid, COL_THREADS, 0, st>>>(in->data, w, h, in->pitch, sums);
    } else { /* 16-byte loads: rows are on GF_PITCH_ALIGN boundaries */
        GF_CUDA_CHECK(cudaMemsetAsync(sums, 0, (size_t)w * sizeof *sums, st));
        const int rows = VEC_ROWS * VEC_WARPS;
        dim3 grid((w + 511) / 512, (h + rows - 1) / rows);
        colsum_vector_kernel<<<grid, VEC_WARPS * 32, 0, st>>>(in->data, w, h, in->pitch, sums);
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

#define COLSUM_LAUNCHER(name, variant)                                                        \
    extern "C" int name(const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream) \
    {                                                                                         \
        (void)s;                                                                              \
        return colsum_cuda(in, (unsigned *)(void *)out->data, variant, (cudaStream_t)stream); \
    }
COLSUM_LAUNCHER(gf_colsum_byte_cuda, COLSUM_BYTE)
COLSUM_LAUNCHER(gf_colsum_word_cuda, COLSUM_WORD)
COLSUM_LAUNCHER(gf_colsum_split_cuda, COLSUM_SPLIT)
COLSUM_LAUNCHER(gf_colsum_vector_cuda, COLSUM_VECTOR)

extern "C" int gf_rowsum_warp_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    const int rows_per_block = ROW_THREADS / 32;
    const int blocks = (in->height + rows_per_block - 1) / rows_per_block;
    cudaStream_t st = (cudaStream_t)stream;
    unsigned *sums = (unsigned *)(void *)out->data;
    (void)s;
    if (in->channels == 1 && in->bits == 8) {
        rowsum_warp_kernel<<<blocks, ROW_THREADS, 0, st>>>(in->data, in->width, in->height,
                                                          in->pitch, sums);
    } else {
#define LAUNCH(T, C)                                                                          \
    rowsum_channels_kernel<T, C><<<blocks, ROW_THREADS, 0, st>>>(in->data, in->width, in->height, \
                                                                in->pitch, sums)
        GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}
