/* stencil.cuh - the neighbourhood-stage framework's CUDA half (the CPU half
 * is src/stencil.h). A stencil stage writes its rule once, as a small struct
 * (a "rule"), and these templates run it on every layout (T = uint8_t or
 * uint16_t samples, C = 1..4 channels, each channel alike) with every border
 * mode. The variants differ only in where the pixels and the weights live
 * (the Halide split of algorithm and schedule):
 *
 *   2-D rules (any window; a rule reads win(dx, dy, c)):
 *     ST_GLOBAL   each thread reads its window from global memory, through
 *                 the caches; border indices only near the edges
 *     ST_SHARED   a block stages its tile and the halo in shared memory once,
 *                 through the border mode, and every thread reads from there
 *     ST_TEXTURE  reads through a texture object (point sampling). Its clamp
 *                 addressing is the replicate border in hardware for one
 *                 channel; other borders and channel counts index in software.
 *                 Past the texture's size limits it runs ST_GLOBAL.
 *   Separable rules (a row rule and a column rule): stencil_sep_kernel, the
 *     CPU driver's ring in shared memory. A block owns a strip of columns and
 *     walks down its rows: each input row segment (with the halo columns) is
 *     staged once, each thread applies the row rule to its sample and keeps
 *     the result in its own column of a ring of the last kh rows, and once
 *     the ring holds a window, applies the column rule.
 *   Weights: a rule holds them in its own struct, which a kernel receives as
 *     a __grid_constant__ parameter: kernel parameters live in the constant
 *     bank, where every thread of a warp reading the same weight is the
 *     broadcast case (cuda-samples convolutionSeparable keeps c_Kernel in
 *     __constant__ memory for the same reason; a parameter also keeps
 *     concurrent launches from sharing one symbol). The "global" weight
 *     source instead reads them from a device buffer (st_weights).
 *
 * Every launcher launches on the given stream, checks the launch and returns
 * 0 or GF_EINTERNAL. */
#ifndef GF_STENCIL_CUH
#define GF_STENCIL_CUH

#include <string.h>

#include "check.h"

#include "../src/gpu.h"
#include "../src/stencil.h"

enum { ST_GLOBAL = 0, ST_SHARED = 1, ST_TEXTURE = 2 };

/* Sample c of pixel (x, y), inside the image. */
template <typename T, int C>
__device__ __forceinline__ unsigned st_sample(const unsigned char *__restrict__ in, size_t pitch,
                                              int x, int y, int c)
{
    return ((const T *)(in + (size_t)y * pitch))[(size_t)x * C + c];
}

/* Sample c of pixel (x, y) of the padded image, for any x, y. */
template <typename T, int C>
__device__ __forceinline__ unsigned st_padded(const unsigned char *__restrict__ in, size_t pitch,
                                              int x, int y, int c, int w, int h, gf_border b)
{
    const int xx = gf_border_index(x, w, b.mode), yy = gf_border_index(y, h, b.mode);
    return xx < 0 || yy < 0 ? (unsigned)b.value : st_sample<T, C>(in, pitch, xx, yy, c);
}

/* ---- Window readers: win(dx, dy, c) is sample c of the pixel (dx, dy) from
 * the thread's own, through the border. */

template <typename T, int C> struct st_global_win {
    const unsigned char *__restrict__ in;
    size_t pitch;
    int w, h, x, y;
    gf_border b;
    bool inside; /* the whole window lies inside the image */
    __device__ __forceinline__ unsigned operator()(int dx, int dy, int c) const
    {
        return inside ? st_sample<T, C>(in, pitch, x + dx, y + dy, c)
                      : st_padded<T, C>(in, pitch, x + dx, y + dy, c, w, h, b);
    }
};

template <typename T, int C> struct st_shared_win {
    const T *tile; /* the thread's pixel, in a staged tile */
    int stride;    /* samples a tile row */
    __device__ __forceinline__ unsigned operator()(int dx, int dy, int c) const
    {
        return tile[dy * stride + dx * C + c];
    }
};

template <typename T, int C> struct st_texture_win {
    cudaTextureObject_t tex; /* w C x h samples, one channel, clamp addressing */
    int w, h, x, y;
    gf_border b;
    bool hw; /* the clamp addressing is the border: replicate, one channel */
    __device__ __forceinline__ unsigned operator()(int dx, int dy, int c) const
    {
        if (hw)
            return tex2D<T>(tex, (float)(x + dx) + 0.5f, (float)(y + dy) + 0.5f);
        const int xx = gf_border_index(x + dx, w, b.mode), yy = gf_border_index(y + dy, h, b.mode);
        if (xx < 0 || yy < 0)
            return (unsigned)b.value;
        return tex2D<T>(tex, (float)(xx * C + c) + 0.5f, (float)yy + 0.5f);
    }
};

/* ---- 2-D rules. A rule struct has int members rx, ry (the window's radii)
 * and
 *   template <class W> __device__ unsigned at(const W &win, int c) const;
 * the output sample c of the thread's pixel. */

#define ST_BX 32 /* threads a block across: a warp reads 32 adjacent pixels */
#define ST_BY 8
#define ST_ROWS 4 /* rows a thread of the shared kernel writes: the tile is 32 x 32 */

template <typename T, int C, class Rule>
__global__ void __launch_bounds__(ST_BX *ST_BY)
    stencil_global_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int w, int h, size_t ipitch, size_t opitch, gf_border b,
                          const __grid_constant__ Rule rule)
{
    const int x = blockIdx.x * ST_BX + threadIdx.x, y = blockIdx.y * ST_BY + threadIdx.y;

    if (x >= w || y >= h)
        return;
    const st_global_win<T, C> win = {in, ipitch, w, h, x, y, b,
                                     x >= rule.rx && x < w - rule.rx && y >= rule.ry &&
                                         y < h - rule.ry};
    T *o = (T *)(out + (size_t)y * opitch) + (size_t)x * C;
#pragma unroll
    for (int c = 0; c < C; c++)
        o[c] = (T)rule.at(win, c);
}

template <typename T, int C, class Rule>
__global__ void __launch_bounds__(ST_BX *ST_BY)
    stencil_texture_kernel(cudaTextureObject_t tex, unsigned char *__restrict__ out, int w, int h,
                           size_t opitch, gf_border b, const __grid_constant__ Rule rule)
{
    const int x = blockIdx.x * ST_BX + threadIdx.x, y = blockIdx.y * ST_BY + threadIdx.y;

    if (x >= w || y >= h)
        return;
    const st_texture_win<T, C> win = {tex, w, h, x, y, b,
                                      C == 1 && b.mode == GF_BORDER_REPLICATE};
    T *o = (T *)(out + (size_t)y * opitch) + (size_t)x * C;
#pragma unroll
    for (int c = 0; c < C; c++)
        o[c] = (T)rule.at(win, c);
}

/* Stages the padded image's pixels [x0, x0 + tw) x [y0, y0 + th), every
 * channel, into tile (tw C samples a row), with all the block's threads. */
template <typename T, int C>
__device__ __forceinline__ void st_stage(T *tile, const unsigned char *__restrict__ in,
                                         size_t pitch, int x0, int y0, int tw, int th, int w,
                                         int h, gf_border b)
{
    const int n = tw * C, tid = threadIdx.y * blockDim.x + threadIdx.x,
              nt = blockDim.x * blockDim.y;
    const bool inside = x0 >= 0 && y0 >= 0 && x0 + tw <= w && y0 + th <= h;

    for (int i = tid; i < n * th; i += nt) {
        const int r = i / n, q = i % n, x = x0 + q / C, y = y0 + r;
        tile[i] = (T)(inside ? st_sample<T, C>(in, pitch, x, y, q % C)
                             : st_padded<T, C>(in, pitch, x, y, q % C, w, h, b));
    }
}

template <typename T, int C, class Rule>
__global__ void __launch_bounds__(ST_BX *ST_BY)
    stencil_shared_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int w, int h, size_t ipitch, size_t opitch, gf_border b,
                          const __grid_constant__ Rule rule)
{
    extern __shared__ __align__(16) unsigned char st_smem[];
    T *tile = (T *)st_smem;
    constexpr int TH = ST_BY * ST_ROWS;
    const int tw = ST_BX + 2 * rule.rx, th = TH + 2 * rule.ry, stride = tw * C;
    const int x0 = blockIdx.x * ST_BX, y0 = blockIdx.y * TH;

    st_stage<T, C>(tile, in, ipitch, x0 - rule.rx, y0 - rule.ry, tw, th, w, h, b);
    __syncthreads();
    const int x = x0 + threadIdx.x;
    if (x >= w)
        return; /* no barrier follows */
#pragma unroll
    for (int k = 0; k < ST_ROWS; k++) {
        const int ty = threadIdx.y + k * ST_BY, y = y0 + ty;
        if (y >= h)
            break;
        const st_shared_win<T, C> win = {tile + (ty + rule.ry) * stride + (threadIdx.x + rule.rx) * C,
                                         stride};
        T *o = (T *)(out + (size_t)y * opitch) + (size_t)x * C;
#pragma unroll
        for (int c = 0; c < C; c++)
            o[c] = (T)rule.at(win, c);
    }
}

/* Dynamic shared memory above the default 48 KB needs the kernel's
 * permission, asked once per kernel (227 KB on Hopper). */
template <typename K> static int st_allow_smem(K kernel, size_t bytes)
{
    if (bytes > 48 * 1024)
        GF_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           (int)bytes));
    return 0;
}

/* A texture object over in's samples (w C x h, one channel of T, point
 * sampling, clamp addressing), or 0 (with *ok 0) where the image is past
 * the device's pitched 2-D texture limits. */
template <typename T>
static int st_texture(const gf_dimage *in, cudaTextureObject_t *tex, int *ok)
{
    static int max_w, max_h;
    cudaResourceDesc rd;
    cudaTextureDesc td;

    *ok = 0;
    if (!max_w) {
        int dev;
        GF_CUDA_CHECK(cudaGetDevice(&dev));
        GF_CUDA_CHECK(cudaDeviceGetAttribute(&max_w, cudaDevAttrMaxTexture2DLinearWidth, dev));
        GF_CUDA_CHECK(cudaDeviceGetAttribute(&max_h, cudaDevAttrMaxTexture2DLinearHeight, dev));
    }
    if (in->width * in->channels > max_w || in->height > max_h)
        return 0;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = in->data;
    rd.res.pitch2D.desc = cudaCreateChannelDesc<T>();
    rd.res.pitch2D.width = (size_t)in->width * (size_t)in->channels;
    rd.res.pitch2D.height = (size_t)in->height;
    rd.res.pitch2D.pitchInBytes = in->pitch;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 0;
    GF_CUDA_CHECK(cudaCreateTextureObject(tex, &rd, &td, NULL));
    *ok = 1;
    return 0;
}

/* Runs 2-D rule `rule` over in -> out (same shape; out's shape set here)
 * with variant V, ST_GLOBAL, ST_SHARED or ST_TEXTURE: only that variant's
 * kernel is instantiated. The texture variant waits for its kernel before it
 * destroys its texture object, and runs ST_GLOBAL past the texture limits. */
template <int V, typename T, int C, class Rule>
static int st_launch_2d_as(const Rule &rule, const gf_dimage *in, gf_dimage *out, gf_border b,
                           cudaStream_t st)
{
    const gf_shape sh = gf_dimage_shape_of(in);
    const int w = in->width, h = in->height;
    int rc;

    if ((rc = gf_dimage_shape(out, &sh)))
        return rc;
    if constexpr (V == ST_TEXTURE) {
        cudaTextureObject_t tex = 0;
        int ok;
        if ((rc = st_texture<T>(in, &tex, &ok)))
            return rc;
        if (!ok)
            return st_launch_2d_as<ST_GLOBAL, T, C>(rule, in, out, b, st);
        dim3 grid((w + ST_BX - 1) / ST_BX, (h + ST_BY - 1) / ST_BY);
        stencil_texture_kernel<T, C, Rule>
            <<<grid, dim3(ST_BX, ST_BY), 0, st>>>(tex, out->data, w, h, out->pitch, b, rule);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(st);
        cudaDestroyTextureObject(tex);
        GF_CUDA_CHECK(e); /* then the check below, which finds no error */
    } else if constexpr (V == ST_SHARED) {
        const size_t smem = (size_t)(ST_BX + 2 * rule.rx) * (ST_BY * ST_ROWS + 2 * rule.ry) * C *
                            sizeof(T);
        if ((rc = st_allow_smem(stencil_shared_kernel<T, C, Rule>, smem)))
            return rc;
        dim3 grid((w + ST_BX - 1) / ST_BX, (h + ST_BY * ST_ROWS - 1) / (ST_BY * ST_ROWS));
        stencil_shared_kernel<T, C, Rule><<<grid, dim3(ST_BX, ST_BY), smem, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b, rule);
    } else {
        dim3 grid((w + ST_BX - 1) / ST_BX, (h + ST_BY - 1) / ST_BY);
        stencil_global_kernel<T, C, Rule><<<grid, dim3(ST_BX, ST_BY), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b, rule);
    }
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* The same with the variant chosen at run time: every variant's kernel is
 * instantiated. */
template <typename T, int C, class Rule>
static int st_launch_2d(int variant, const Rule &rule, const gf_dimage *in, gf_dimage *out,
                        gf_border b, cudaStream_t st)
{
    if (variant == ST_TEXTURE)
        return st_launch_2d_as<ST_TEXTURE, T, C>(rule, in, out, b, st);
    if (variant == ST_SHARED)
        return st_launch_2d_as<ST_SHARED, T, C>(rule, in, out, b, st);
    return st_launch_2d_as<ST_GLOBAL, T, C>(rule, in, out, b, st);
}

/* ---- Separable rules. A rule struct has int members rx, ry and
 *   __device__ unsigned row(const T *s, int c) const;
 *     the row rule of the sample whose window's first sample is s[0] (the
 *     window's samples are s[0], s[C], ..., s[2 rx C]; c its channel);
 *   template <class R> __device__ unsigned col(const R &ring, int x, int y, int c) const;
 *     the output sample c of pixel (x, y) from ring(k), the row rule's
 *     values of the window's rows k = 0 .. 2 ry;
 * and a type `acc` (the row rule's values: uint32_t). */

/* The ring's rows of one thread: window row k of the current output row. */
template <typename U> struct st_ring {
    const U *base; /* the first window row's slot, in the thread's column */
    int stride;    /* the block's threads: one slot's values */
    __device__ __forceinline__ U operator()(int k) const { return base[k * stride]; }
};

/* Columns of a strip, as threads: about ST_SEP_THREADS samples wide, fewer
 * for tall windows so that the ring (2 kh rows of 4 bytes a thread) stays in
 * about 48 KB. Output rows a strip: at least 64, and 2 kh for tall windows,
 * so that the halo rows' row rule is a fraction of the work. */
#define ST_SEP_THREADS 128
#define ST_SEP_RING_BYTES (48 * 1024)
#define ST_SEP_MIN_ROWS 64

template <typename T, int C, class Rule>
__global__ void stencil_sep_kernel(const unsigned char *__restrict__ in,
                                   unsigned char *__restrict__ out, int w, int h, size_t ipitch,
                                   size_t opitch, gf_border b, int strip_px, int strip_rows,
                                   const __grid_constant__ Rule rule)
{
    typedef typename Rule::acc U;
    extern __shared__ __align__(16) unsigned char st_smem[];
    const int kh = 2 * rule.ry + 1, nt = strip_px * C, seg_n = (strip_px + 2 * rule.rx) * C;
    /* the ring: 2 kh slots of nt values; row i goes to slots i % kh and
     * i % kh + kh, so that any window's kh rows are consecutive slots */
    U *ring = (U *)st_smem;
    T *seg = (T *)(ring + (size_t)2 * kh * nt); /* two staged row segments */
    const int tid = threadIdx.x, x0 = blockIdx.x * strip_px, y0 = blockIdx.y * strip_rows;
    const int y1 = min(y0 + strip_rows, h), p = tid / C, c = tid % C, x = x0 + p;
    const bool active = tid < nt && x < w;

    for (int wy = y0 - rule.ry, i = 0; wy < y1 + rule.ry; wy++, i++) {
        T *s = seg + (i & 1) * seg_n;
        const int src = gf_border_index(wy, h, b.mode);
        for (int q = tid; q < seg_n; q += blockDim.x) {
            const int xx = gf_border_index(x0 - rule.rx + q / C, w, b.mode);
            s[q] = (T)(src < 0 || xx < 0 ? (unsigned)b.value
                                         : st_sample<T, C>(in, ipitch, xx, src, q % C));
        }
        __syncthreads(); /* the segment is whole; the one before it is no longer read */
        if (tid < nt) {
            const U v = (U)rule.row(s + p * C + c, c);
            const int slot = i % kh;
            ring[slot * nt + tid] = v;
            ring[(slot + kh) * nt + tid] = v;
        }
        if (i >= 2 * rule.ry && active) {
            const int y = wy - rule.ry, first = (i - 2 * rule.ry) % kh;
            const st_ring<U> r = {ring + first * nt + tid, nt};
            ((T *)(out + (size_t)y * opitch))[(size_t)x * C + c] = (T)rule.col(r, x, y, c);
        }
    }
}

/* Runs separable rule `rule` over in -> out (same shape; out's shape set
 * here). */
template <typename T, int C, class Rule>
static int st_launch_sep(const Rule &rule, const gf_dimage *in, gf_dimage *out, gf_border b,
                         cudaStream_t st)
{
    typedef typename Rule::acc U;
    const gf_shape sh = gf_dimage_shape_of(in);
    const int w = in->width, h = in->height, kh = 2 * rule.ry + 1;
    int threads = ST_SEP_THREADS, rc;

    if ((rc = gf_dimage_shape(out, &sh)))
        return rc;
    while (threads > 32 && (size_t)2 * kh * threads * sizeof(U) > ST_SEP_RING_BYTES)
        threads /= 2;
    const int strip_px = threads / C >= 1 ? threads / C : 1;
    const int rows = max(ST_SEP_MIN_ROWS, 2 * kh);
    const size_t smem = (size_t)2 * kh * strip_px * C * sizeof(U) +
                        (size_t)2 * (strip_px + 2 * rule.rx) * C * sizeof(T);
    if ((rc = st_allow_smem(stencil_sep_kernel<T, C, Rule>, smem)))
        return rc;
    dim3 grid((w + strip_px - 1) / strip_px, (h + rows - 1) / rows);
    stencil_sep_kernel<T, C, Rule><<<grid, strip_px * C, smem, st>>>(
        in->data, out->data, w, h, in->pitch, out->pitch, b, strip_px, rows, rule);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* A device copy of n 32-bit weights for the global weight source: *dev
 * (freed with st_weights_free once the kernel that reads it is queued;
 * stream-ordered, so the kernel still sees it). */
static inline int st_weights(const int *w, int n, int **dev, cudaStream_t st)
{
    GF_CUDA_CHECK(cudaMallocAsync((void **)dev, (size_t)n * sizeof(int), st));
    GF_CUDA_CHECK(
        cudaMemcpyAsync(*dev, w, (size_t)n * sizeof(int), cudaMemcpyHostToDevice, st));
    return 0;
}

static inline int st_weights_free(int *dev, cudaStream_t st)
{
    GF_CUDA_CHECK(cudaFreeAsync(dev, st));
    return 0;
}

/* A scratch image of in's shape on the device for a stage of two passes
 * (open, close), stream-ordered: allocated with cudaMallocAsync and given
 * back with st_scratch_free after the second pass is queued. */
static inline int st_scratch(const gf_dimage *in, gf_dimage *tmp, cudaStream_t st)
{
    const gf_shape sh = gf_dimage_shape_of(in);
    memset(tmp, 0, sizeof *tmp);
    tmp->capacity = gf_dimage_bytes(&sh);
    GF_CUDA_CHECK(cudaMallocAsync((void **)&tmp->data, tmp->capacity, st));
    return gf_dimage_shape(tmp, &sh);
}

static inline int st_scratch_free(gf_dimage *tmp, cudaStream_t st)
{
    GF_CUDA_CHECK(cudaFreeAsync(tmp->data, st));
    tmp->data = NULL;
    return 0;
}

#endif
