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
#include "packed.cuh"
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

/* ---- convolve_op: the `packed` variant for 8-bit gray with a 3x3 or 5x5
 * kernel whose weights fit in a signed byte (-128..127), on the warp-strip
 * walker (cuda/packed.cuh); every other case runs the `constant` variant. A
 * lane makes 16 output pixels a row. A kernel row's products for one output
 * pixel are one dp4a (four unsigned pixel bytes times four signed weight
 * bytes, added to a 32-bit sum) on the four pixels from the window's left
 * end, plus, for 5x5, a second on the fifth (weights w4, 0, 0, 0); the
 * bytes come from the lane's words by a funnel shift (pk_bytes_at). The
 * sums are rounded by gf_convolve_finish (every such kernel is narrow:
 * |sum| <= 25 * 128 * 255). */

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

/* The op: each kernel row's weights as signed bytes, wa the first four
 * (3x3: w0, w1, w2, 0), wb the fifth (5x5: w4, 0, 0, 0), and the rounding. */
template <int K> struct convolve_op {
    struct row_t {
        unsigned w[6]; /* the row's bytes from 4 before the lane's first */
    };
    unsigned wa[K], wb[K];
    gf_convolve_div d;
    __device__ __forceinline__ row_t prep(const unsigned (&wd)[6]) const
    {
        row_t r;
#pragma unroll
        for (int k = 0; k < 6; k++)
            r.w[k] = wd[k];
        return r;
    }
    __device__ __forceinline__ uint4 apply(const row_t (&ring)[K], int first) const
    {
        constexpr int R = K / 2;
        int acc[16];
#pragma unroll
        for (int s = 0; s < 16; s++)
            acc[s] = 0;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const unsigned(&w)[6] = ring[(first + k) % K].w;
#pragma unroll
            for (int s = 0; s < 16; s++) {
                acc[s] = dp4a_us(pk_bytes_at(w, s + 4 - R), wa[k], acc[s]);
                if (K == 5)
                    acc[s] = dp4a_us(pk_bytes_at(w, s + 8 - R), wb[k], acc[s]);
            }
        }
        unsigned o[4];
#pragma unroll
        for (int g = 0; g < 4; g++)
            o[g] = gf_convolve_finish(acc[4 * g], d) | gf_convolve_finish(acc[4 * g + 1], d) << 8 |
                   gf_convolve_finish(acc[4 * g + 2], d) << 16 |
                   gf_convolve_finish(acc[4 * g + 3], d) << 24;
        return make_uint4(o[0], o[1], o[2], o[3]);
    }
};

/* The packed op's weights for p (8-bit gray, K x K): 0 where they do not
 * fit in signed bytes. */
template <int K> static int pack_weights(const gf_convolve_params *p, convolve_op<K> *op)
{
    for (int k = 0; k < K * K; k++)
        if (p->weights[k] < -128 || p->weights[k] > 127)
            return 0;
    for (int k = 0; k < K; k++) {
        const int32_t *r = p->weights + k * K;
        op->wa[k] = (r[0] & 255u) | (r[1] & 255u) << 8 | (r[2] & 255u) << 16 |
                    (K == 5 ? (r[3] & 255u) << 24 : 0u);
        op->wb[k] = K == 5 ? r[K - 1] & 255u : 0u;
    }
    return 1;
}

template <int K>
static int launch_packed(const gf_convolve_params *p, const gf_dimage *in, gf_dimage *out,
                         cudaStream_t st, bool *done)
{
    convolve_op<K> op;
    const gf_shape sh = gf_dimage_shape_of(in);
    int rc;

    *done = false;
    if (!pack_weights<K>(p, &op))
        return 0;
    op.d = gf_convolve_div_of(p, 8);
    if ((rc = gf_dimage_shape(out, &sh)) ||
        (rc = pk_launch<uint8_t, 1, K / 2>(op, in, out, p->st.border, st)))
        return rc;
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
