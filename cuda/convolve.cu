/* convolve.cu - correlation with a user kernel (--convolve), on the stencil
 * framework's 2-D kernels (cuda/stencil.cuh). One rule, convolve_rule, whose
 * weight source is a template parameter: the variants differ only in where
 * the pixels (global memory, a shared-memory tile, a texture) and the
 * weights (global memory, or the rule struct itself, a __grid_constant__
 * kernel parameter in the constant bank) live. Every variant equals the CPU
 * reference (src/stages/convolve.c) bit for bit: the sums are exact integers
 * and the rounding is convolve.h's.
 *
 * Origin: the constant-memory experiment of the seed articles (weights in
 * __constant__ memory, read by every thread of a warp at once: the
 * broadcast case), as cuda-samples convolutionSeparable keeps c_Kernel. */
#include <stdint.h>

#include "check.h"
#include "stencil.cuh"

#include "../src/stages/convolve.h"

/* Weights in the rule struct: with the rule a __grid_constant__ kernel
 * parameter they are read from the constant bank, and with a window known
 * at compile time each one is an operand of its multiply-add. */
struct const_weights {
    int32_t w[GF_CONVOLVE_MAX_TAPS];
    __host__ __device__ __forceinline__ int operator()(int k) const { return w[k]; }
};

/* Weights in global memory: a device copy (st_weights), read through the
 * read-only cache. */
struct global_weights {
    const int32_t *__restrict__ w;
    __device__ __forceinline__ int operator()(int k) const { return __ldg(w + k); }
};

/* The rule: the window's weighted sum, then convolve.h's rounding. K is the
 * window's side when known at compile time (3 or 5, square; 32-bit sums),
 * else 0 and the radii rx, ry hold it, and `wide` picks 64-bit sums and
 * gf_convolve_finish_wide for kernels whose bound reaches 2^30
 * (gf_convolve_narrow), 32-bit sums and gf_convolve_finish otherwise. */
template <class Wt, int K> struct convolve_rule {
    int rx, ry;
    bool wide;             /* K == 0 only */
    gf_convolve_div d;     /* narrow rounding */
    int32_t divisor, bias; /* wide rounding */
    unsigned max;          /* 255 or 65535 */
    Wt wt;

    template <typename S, class W>
    __host__ __device__ __forceinline__ S sum(const W &win, int c) const
    {
        const int ry_ = K ? K / 2 : ry, rx_ = K ? K / 2 : rx, kw = 2 * rx_ + 1;
        S s = 0;
#ifdef __CUDA_ARCH__ /* (the host compiler does not know the pragma) */
#pragma unroll(K ? K : 1)
#endif
        for (int dy = -ry_; dy <= ry_; dy++) {
            const int row = (dy + ry_) * kw + rx_;
#ifdef __CUDA_ARCH__
#pragma unroll(K ? K : 4)
#endif
            for (int dx = -rx_; dx <= rx_; dx++)
                s += (S)wt(row + dx) * (S)win(dx, dy, c);
        }
        return s;
    }

    template <class W> __host__ __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        if (K == 0 && wide)
            return gf_convolve_finish_wide(sum<long long>(win, c), divisor, bias, max);
        return gf_convolve_finish(sum<int>(win, c), d);
    }
};

/* ---- convolve_packed_kernel: 8-bit gray with a 3x3 or 5x5 kernel whose
 * weights fit in a signed byte (-128..127); every other case runs the
 * `constant` variant. A warp owns a strip PACKED_COLS bytes wide and
 * PACKED_ROWS rows tall: lane l the 16 pixels from x0 = strip + 16 l, read
 * as one 16-byte load a row, with the 4 pixels on either side from the
 * neighbouring lanes by shuffle (lanes 0 and 31 load theirs), as
 * cuda/edges.cu's packed kernel. The warp walks down its rows, each input
 * row loaded once and kept, as words, for the K output rows that read it.
 * A kernel row's products for one output pixel are one dp4a (four unsigned
 * pixel bytes times four signed weight bytes, added to a 32-bit sum) on the
 * four pixels from the window's left end, plus, for 5x5, a second on the
 * fifth (weights w4, 0, 0, 0); the bytes come from the lane's words by a
 * funnel shift. The sums are rounded by gf_convolve_finish (every such
 * kernel is narrow: |sum| <= 25 * 128 * 255). A lane whose window leaves
 * the row (the first 16 pixels of a row and the last 16 + K/2) computes
 * each pixel by the 2-D rule through the border instead; rows outside the
 * image come through the border mode. */
#define PACKED_COLS 512 /* 32 lanes of 16 bytes */
#define PACKED_ROWS 8   /* output rows a warp: the loop over them is unrolled */
#define PACKED_THREADS 128
#define PACKED_MIN_BLOCKS 4 /* up to 128 registers a thread */

/* c plus the four products of the unsigned bytes of a and the signed bytes
 * of b (PTX dp4a.u32.s32; also on the host, for tests there). */
__host__ __device__ __forceinline__ int dp4a_us(unsigned a, unsigned b, int c)
{
#ifdef __CUDA_ARCH__
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
#else
    for (int i = 0; i < 4; i++)
        c += (int)((a >> (8 * i)) & 255u) * (int)(signed char)(unsigned char)(b >> (8 * i));
    return c;
#endif
}

/* Bytes p .. p+3 (p constant once the callers unroll) of the lane's 24
 * bytes w[0..5] (the left neighbour's last word, its own four, the right
 * neighbour's first); bytes past the 24th read as 0. */
__host__ __device__ __forceinline__ unsigned bytes_at(const unsigned (&w)[6], int p)
{
    const int q = p / 4, r = p % 4;
    const unsigned lo = w[q], hi = q + 1 < 6 ? w[q + 1] : 0u;
    if (r == 0)
        return lo;
#ifdef __CUDA_ARCH__
    return __funnelshift_r(lo, hi, 8 * r);
#else
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (8 * r));
#endif
}

/* The packed kernel's parameters: the 2-D rule (for the lanes at the row's
 * ends, and the rounding) and each kernel row's weights as signed bytes:
 * wa the first four (3x3: w0, w1, w2, 0), wb the fifth (5x5: w4, 0, 0, 0). */
template <int K> struct convolve_packed {
    convolve_rule<const_weights, K> rule;
    unsigned wa[K], wb[K];
};

/* Adds kernel row k's products to the 16 sums of the lane's pixels s =
 * 0..15 (byte s + 4 of w). */
template <int K>
__host__ __device__ __forceinline__ void add_row(const unsigned (&w)[6], unsigned wa, unsigned wb,
                                                 int (&acc)[16])
{
    constexpr int R = K / 2;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int s = 0; s < 16; s++) {
        acc[s] = dp4a_us(bytes_at(w, s + 4 - R), wa, acc[s]);
        if (K == 5)
            acc[s] = dp4a_us(bytes_at(w, s + 8 - R), wb, acc[s]);
    }
}

template <int K>
__global__ void __launch_bounds__(PACKED_THREADS, PACKED_MIN_BLOCKS)
    convolve_packed_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                           int w, int h, size_t ipitch, size_t opitch, gf_border b, int strips_x,
                           const __grid_constant__ convolve_packed<K> pk)
{
    constexpr int R = K / 2;
    const int lane = threadIdx.x % 32;
    const long warp = ((long)blockIdx.x * PACKED_THREADS + threadIdx.x) / 32;
    const int y0 = (int)(warp / strips_x) * PACKED_ROWS;
    const int x0 = (int)(warp % strips_x) * PACKED_COLS + 16 * lane; /* pixels: bytes */

    if (y0 >= h)
        return; /* the whole warp: y0 is the same for all its lanes */
    const bool loads = x0 < w; /* x0 + 16 <= the pitch */
    const bool fast = x0 >= 16 && x0 + 16 + R <= w;
    const unsigned splat = (unsigned)b.value * 0x01010101u;

    /* Row wy (any) of the lane: the words either side of its 16 bytes too. */
    const auto fetch = [&](int wy, unsigned (&r)[6]) {
        const int src = gf_border_index(wy, h, b.mode);
        uint4 v = make_uint4(splat, splat, splat, splat);
        const unsigned char *row = in + (size_t)(src < 0 ? 0 : src) * ipitch;
        if (src >= 0 && loads)
            v = __ldg((const uint4 *)(row + x0));
        const unsigned fromleft = __shfl_up_sync(0xffffffffu, v.w, 1);
        const unsigned fromright = __shfl_down_sync(0xffffffffu, v.x, 1);
        r[0] = r[5] = splat;
        if (src >= 0) {
            r[0] = lane > 0              ? fromleft
                   : x0 >= 16 && loads ? __ldg((const unsigned *)(row + x0 - 4))
                                       : 0u;
            r[5] = lane < 31     ? fromright
                   : x0 + 16 < w ? __ldg((const unsigned *)(row + x0 + 16))
                                 : 0u;
        }
        r[1] = v.x, r[2] = v.y, r[3] = v.z, r[4] = v.w;
    };

    unsigned rows[K][6]; /* input row t (from y0 - R) in slot t % K */
#pragma unroll
    for (int t = 0; t < K - 1; t++)
        fetch(y0 - R + t, rows[t]);
#pragma unroll
    for (int i = 0; i < PACKED_ROWS; i++) {
        const int y = y0 + i;
        if (y >= h)
            break; /* the whole warp */
        fetch(y + R, rows[(i + K - 1) % K]);
        if (fast) {
            int acc[16];
#pragma unroll
            for (int s = 0; s < 16; s++)
                acc[s] = 0;
#pragma unroll
            for (int k = 0; k < K; k++)
                add_row<K>(rows[(i + k) % K], pk.wa[k], pk.wb[k], acc);
            unsigned o[4];
#pragma unroll
            for (int g = 0; g < 4; g++)
                o[g] = gf_convolve_finish(acc[4 * g], pk.rule.d) |
                       gf_convolve_finish(acc[4 * g + 1], pk.rule.d) << 8 |
                       gf_convolve_finish(acc[4 * g + 2], pk.rule.d) << 16 |
                       gf_convolve_finish(acc[4 * g + 3], pk.rule.d) << 24;
            *(uint4 *)(out + (size_t)y * opitch + x0) = make_uint4(o[0], o[1], o[2], o[3]);
        } else if (loads) {
            /* the row's first or last pixels: each through the border */
            for (int j = 0; j < 16 && x0 + j < w; j++) {
                const st_global_win<uint8_t, 1> win = {in, ipitch, w, h, x0 + j, y, b, false};
                out[(size_t)y * opitch + x0 + j] = (unsigned char)pk.rule.at(win, 0);
            }
        }
    }
}

/* The packed kernel's weights for p (8-bit gray, K x K): 0 where they do
 * not fit in signed bytes. */
template <int K> static int pack_weights(const gf_convolve_params *p, convolve_packed<K> *pk)
{
    for (int k = 0; k < K * K; k++)
        if (p->weights[k] < -128 || p->weights[k] > 127)
            return 0;
    for (int k = 0; k < K; k++) {
        const int32_t *r = p->weights + k * K;
        pk->wa[k] = (r[0] & 255u) | (r[1] & 255u) << 8 | (r[2] & 255u) << 16 |
                    (K == 5 ? (r[3] & 255u) << 24 : 0u);
        pk->wb[k] = K == 5 ? r[K - 1] & 255u : 0u;
    }
    return 1;
}

template <int K>
static int launch_packed(const gf_convolve_params *p, const gf_dimage *in, gf_dimage *out,
                         cudaStream_t st, bool *done)
{
    convolve_packed<K> pk;
    const gf_shape sh = gf_dimage_shape_of(in);
    const int w = in->width, h = in->height;
    int rc;

    *done = false;
    if (!pack_weights<K>(p, &pk))
        return 0;
    pk.rule.rx = pk.rule.ry = K / 2;
    pk.rule.wide = false;
    pk.rule.d = gf_convolve_div_of(p, 8);
    pk.rule.divisor = p->divisor;
    pk.rule.bias = p->bias;
    pk.rule.max = 255;
    memcpy(pk.rule.wt.w, p->weights, sizeof pk.rule.wt.w);
    if ((rc = gf_dimage_shape(out, &sh)))
        return rc;
    const int strips_x = (w + PACKED_COLS - 1) / PACKED_COLS;
    const long warps = (long)strips_x * ((h + PACKED_ROWS - 1) / PACKED_ROWS);
    const unsigned blocks = (unsigned)((warps * 32 + PACKED_THREADS - 1) / PACKED_THREADS);
    convolve_packed_kernel<K><<<blocks, PACKED_THREADS, 0, st>>>(
        in->data, out->data, w, h, in->pitch, out->pitch, p->st.border, strips_x, pk);
    GF_CUDA_CHECK(cudaGetLastError());
    *done = true;
    return 0;
}

enum { CONV_GLOBAL, CONV_SHARED, CONV_CONSTANT, CONV_TEXTURE, CONV_PACKED };

/* The 2-D kernel variant of stencil.cuh each variant runs. */
static int schedule(int variant)
{
    return variant == CONV_GLOBAL ? ST_GLOBAL : variant == CONV_TEXTURE ? ST_TEXTURE : ST_SHARED;
}

template <typename T, int C, class Wt, int K>
static int launch_rule(int variant, const gf_convolve_params *p, bool wide, const Wt &wt,
                       const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    convolve_rule<Wt, K> r;
    r.rx = p->st.kw / 2;
    r.ry = p->st.kh / 2;
    r.wide = wide;
    r.d = gf_convolve_div_of(p, (int)(8 * sizeof(T)));
    r.divisor = p->divisor;
    r.bias = p->bias;
    r.max = sizeof(T) == 1 ? 255u : 65535u;
    r.wt = wt;
    return st_launch_2d<T, C>(schedule(variant), r, in, out, p->st.border, st);
}

/* Constant weights: the 3x3 and 5x5 windows known at compile time. */
template <typename T, int C>
static int launch_const(int variant, const gf_convolve_params *p, bool wide,
                        const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    const_weights wt;
    const int k = p->st.kw == p->st.kh && (p->st.kw == 3 || p->st.kw == 5) ? p->st.kw : 0;

    memcpy(wt.w, p->weights, sizeof wt.w);
    if (!wide && k == 3)
        return launch_rule<T, C, const_weights, 3>(variant, p, false, wt, in, out, st);
    if (!wide && k == 5)
        return launch_rule<T, C, const_weights, 5>(variant, p, false, wt, in, out, st);
    return launch_rule<T, C, const_weights, 0>(variant, p, wide, wt, in, out, st);
}

/* Global weights: a device copy, freed (stream-ordered) once the kernel is
 * queued. */
template <typename T, int C>
static int launch_global(int variant, const gf_convolve_params *p, bool wide,
                         const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    int *dev = NULL, rc;

    if ((rc = st_weights(p->weights, p->st.kw * p->st.kh, &dev, st)))
        return rc;
    const global_weights wt = {dev};
    rc = launch_rule<T, C, global_weights, 0>(variant, p, wide, wt, in, out, st);
    const int frc = st_weights_free(dev, st);
    return rc ? rc : frc;
}

static int convolve_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                         void *stream)
{
    const gf_convolve_params *p = GF_CPARAMS(s, gf_convolve_params);
    const cudaStream_t st = (cudaStream_t)stream;
    int rc = GF_EINTERNAL;

    if (p->st.kw < 1 || p->st.kh < 1 || p->st.kw > GF_CONVOLVE_MAX_SIDE ||
        p->st.kh > GF_CONVOLVE_MAX_SIDE || p->st.kw % 2 == 0 || p->st.kh % 2 == 0 ||
        p->divisor == 0 || in->width < 1 || in->height < 1 || in->width > 65535 ||
        in->height > 65535)
        return gf_err(GF_EINTERNAL, NULL, "convolve: bad arguments (window %dx%d, divisor %d)",
                      p->st.kw, p->st.kh, (int)p->divisor);
    const bool wide = !gf_convolve_narrow(p, in->bits);
    if (variant == CONV_PACKED) {
        const int k = p->st.kw == p->st.kh ? p->st.kw : 0;
        bool done = false;
        if (in->channels == 1 && in->bits == 8 && (k == 3 || k == 5)) {
            rc = k == 3 ? launch_packed<3>(p, in, out, st, &done)
                        : launch_packed<5>(p, in, out, st, &done);
            if (rc || done)
                return rc;
        }
        variant = CONV_CONSTANT; /* every other case */
    }
    if (variant == CONV_GLOBAL || variant == CONV_SHARED) {
#define LAUNCH(T, C) rc = launch_global<T, C>(variant, p, wide, in, out, st)
        GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    } else {
#define LAUNCH(T, C) rc = launch_const<T, C>(variant, p, wide, in, out, st)
        GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    }
    return rc;
}

extern "C" int gf_convolve_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                       void *stream)
{
    return convolve_cuda(s, in, out, CONV_GLOBAL, stream);
}

extern "C" int gf_convolve_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                       void *stream)
{
    return convolve_cuda(s, in, out, CONV_SHARED, stream);
}

extern "C" int gf_convolve_constant_cuda(const gf_stage *s, const gf_dimage *in,
                                         gf_dimage *out, void *stream)
{
    return convolve_cuda(s, in, out, CONV_CONSTANT, stream);
}

extern "C" int gf_convolve_texture_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                        void *stream)
{
    return convolve_cuda(s, in, out, CONV_TEXTURE, stream);
}

extern "C" int gf_convolve_packed_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                       void *stream)
{
    return convolve_cuda(s, in, out, CONV_PACKED, stream);
}
