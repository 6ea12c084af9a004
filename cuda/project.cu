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

/* colsum_sample_kernel (`byte`): a thread a sample column. */
template <typename T>
__global__ void colsum_sample_kernel(const unsigned char *__restrict__ in, int w, int h,
                                     size_t pitch, unsigned *__restrict__ sums)
{
    const int x = blockIdx.x * COL_THREADS + threadIdx.x;
    unsigned s = 0;

    if (x >= w)
        return;
    for (int y = 0; y < h; y++)
        s += ((const T *)(in + (size_t)y * pitch))[x];
    sums[x] = s;
}

/* Samples of T in a 32-bit word. */
template <typename T> __host__ __device__ constexpr int per_word() { return 4 / (int)sizeof(T); }

/* Sums the samples of words at sample column x (a multiple of S =
 * per_word<T>()) over rows [y0, y1) into s[S]; samples past w are not
 * read. */
template <typename T>
__device__ __forceinline__ void sum_words(const unsigned char *__restrict__ in, int w,
                                          size_t pitch, int x, int y0, int y1, unsigned *s)
{
    constexpr int S = per_word<T>(), BITS = 8 * (int)sizeof(T);
    constexpr unsigned MASK = (1u << BITS) - 1;
    if (x + S - 1 < w) {
        for (int y = y0; y < y1; y++) {
            const unsigned v = *(const unsigned *)(in + (size_t)y * pitch + x * sizeof(T));
#pragma unroll
            for (int q = 0; q < S; q++)
                s[q] += (v >> (BITS * q)) & MASK;
        }
    } else {
        for (int y = y0; y < y1; y++)
            for (int q = 0; q < S && x + q < w; q++)
                s[q] += ((const T *)(in + (size_t)y * pitch))[x + q];
    }
}

/* colsum_word_kernel (`word`): a thread the samples of a 32-bit word a row,
 * over all rows; with split (`split`), over SPLIT_ROWS rows a block, added
 * atomically into zeroed sums. */
template <typename T>
__global__ void colsum_word_kernel(const unsigned char *__restrict__ in, int w, int h,
                                   size_t pitch, unsigned *__restrict__ sums, int split)
{
    constexpr int S = per_word<T>();
    const int x = S * (blockIdx.x * COL_THREADS + threadIdx.x);
    const int y0 = split ? blockIdx.y * SPLIT_ROWS : 0, y1 = split ? min(h, y0 + SPLIT_ROWS) : h;
    unsigned s[S] = {};

    if (x >= w)
        return;
    sum_words<T>(in, w, pitch, x, y0, y1, s);
    for (int q = 0; q < S && x + q < w; q++) {
        if (split)
            atomicAdd(&sums[x + q], s[q]);
        else
            sums[x + q] = s[q];
    }
}

/* colsum_vector_kernel (`vector`): a warp sums 32 x 16 bytes of columns
 * (16 8-bit or 8 16-bit samples a lane, one 16-byte load per row, 8 loads in
 * flight) over VEC_ROWS rows: 8-bit samples in packed 16-bit lanes (even and
 * odd bytes; up to 257 rows of 255 fit), 16-bit ones in 32-bit sums. The 8
 * warps of a block take consecutive row chunks of the same columns and add
 * their sums in shared memory, then one atomic per column per block (the
 * sums are zeroed first). */
#define VEC_ROWS 32
#define VEC_WARPS 8

/* Adds a 16-byte vector's samples into a lane's 8 sums: for 8-bit, word g's
 * even bytes into acc[2g] and odd bytes into acc[2g+1] (two 16-bit lanes
 * each); for 16-bit, its two samples. */
template <typename T> __device__ __forceinline__ void add_vector(uint4 v, unsigned acc[8])
{
    const unsigned wd[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int g = 0; g < 4; g++) {
        if (sizeof(T) == 1) {
            acc[2 * g] += wd[g] & 0x00ff00ffu;
            acc[2 * g + 1] += (wd[g] >> 8) & 0x00ff00ffu;
        } else {
            acc[2 * g] += wd[g] & 0xffffu;
            acc[2 * g + 1] += wd[g] >> 16;
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(VEC_WARPS * 32)
    colsum_vector_kernel(const unsigned char *__restrict__ in, int w, int h, size_t pitch,
                         unsigned *__restrict__ sums)
{
    constexpr int PER = 16 / (int)sizeof(T), SPAN = 32 * PER; /* samples a lane, a warp */
    __shared__ unsigned part[SPAN];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int x0 = blockIdx.x * SPAN + PER * lane;
    const int y0 = (blockIdx.y * VEC_WARPS + warp) * VEC_ROWS, y1 = min(h, y0 + VEC_ROWS);
    unsigned acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};

    for (int i = threadIdx.x; i < SPAN; i += VEC_WARPS * 32)
        part[i] = 0;
    __syncthreads();
    if (x0 < w) {
        const unsigned char *p = in + sizeof(T) * (size_t)x0;
        int y = y0;
        for (; y + 8 <= y1; y += 8) {
            uint4 v[8];
#pragma unroll
            for (int k = 0; k < 8; k++)
                v[k] = __ldg((const uint4 *)(p + (size_t)(y + k) * pitch));
#pragma unroll
            for (int k = 0; k < 8; k++)
                add_vector<T>(v[k], acc);
        }
        for (; y < y1; y++)
            add_vector<T>(__ldg((const uint4 *)(p + (size_t)y * pitch)), acc);
        /* samples of the vector past w were summed too; they are not stored */
#pragma unroll
        for (int g = 0; g < 4; g++) {
            if (sizeof(T) == 1) {
                atomicAdd(&part[16 * lane + 4 * g], acc[2 * g] & 0xffffu);
                atomicAdd(&part[16 * lane + 4 * g + 1], acc[2 * g + 1] & 0xffffu);
                atomicAdd(&part[16 * lane + 4 * g + 2], acc[2 * g] >> 16);
                atomicAdd(&part[16 * lane + 4 * g + 3], acc[2 * g + 1] >> 16);
            } else {
                atomicAdd(&part[8 * lane + 2 * g], acc[2 * g]);
                atomicAdd(&part[8 * lane + 2 * g + 1], acc[2 * g + 1]);
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < SPAN; i += VEC_WARPS * 32) {
        const int x = blockIdx.x * SPAN + i;
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

/* rowsum_warp_kernel (`warp`): a warp per row, 8 16-byte loads per
 * lane in flight, samples added by __dp4a or __dp2a_lo, then a shuffle
 * reduction, for every layout. Sample j of
 * vector k of the row is channel (c0 + j) % C, c0 = k * PER % C (0 when C
 * divides PER, the samples a vector): a vector's C phase sums
 * (phase_sum) are added to the channels they rotate onto; the C sums are
 * then reduced by shuffles. */
template <typename T, int C>
__global__ void rowsum_warp_kernel(const unsigned char *__restrict__ in, int w, int h,
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

/* Column sums of img (device), as one channel of width x channels samples
 * of T, by variant. */
template <typename T>
static int colsum_cuda(const gf_dimage *in, unsigned *sums, int variant, cudaStream_t st)
{
    constexpr int S = per_word<T>(), SPAN = 32 * 16 / (int)sizeof(T);
    const int w = in->width, h = in->height;

    if (variant != COLSUM_BYTE && variant != COLSUM_WORD) /* atomics into zeroed sums */
        GF_CUDA_CHECK(cudaMemsetAsync(sums, 0, (size_t)w * sizeof *sums, st));
    if (variant == COLSUM_BYTE) {
        colsum_sample_kernel<T><<<(w + COL_THREADS - 1) / COL_THREADS, COL_THREADS, 0, st>>>(
            in->data, w, h, in->pitch, sums);
    } else if (variant == COLSUM_WORD || variant == COLSUM_SPLIT) {
        const int split = variant == COLSUM_SPLIT;
        dim3 grid((w + S * COL_THREADS - 1) / (S * COL_THREADS),
                  split ? (h + SPLIT_ROWS - 1) / SPLIT_ROWS : 1);
        colsum_word_kernel<T><<<grid, COL_THREADS, 0, st>>>(in->data, w, h, in->pitch, sums, split);
    } else { /* 16-byte loads: rows are on GF_PITCH_ALIGN boundaries */
        const int rows = VEC_ROWS * VEC_WARPS;
        dim3 grid((w + SPAN - 1) / SPAN, (h + rows - 1) / rows);
        colsum_vector_kernel<T><<<grid, VEC_WARPS * 32, 0, st>>>(in->data, w, h, in->pitch, sums);
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

static int colsum_cuda(const gf_dimage *img, unsigned *sums, int variant, cudaStream_t st)
{
    const gf_dimage flat = gf_dimage_flat(img);
    return flat.bits == 16 ? colsum_cuda<uint16_t>(&flat, sums, variant, st)
                           : colsum_cuda<uint8_t>(&flat, sums, variant, st);
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
#define LAUNCH(T, C)                                                                          \
    rowsum_warp_kernel<T, C><<<blocks, ROW_THREADS, 0, st>>>(in->data, in->width, in->height, \
                                                                in->pitch, sums)
    GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}
