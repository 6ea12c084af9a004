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
    __device__ __forceinline__ int operator()(int k) const { return w[k]; }
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

    template <typename S, class W> __device__ __forceinline__ S sum(const W &win, int c) const
    {
        const int ry_ = K ? K / 2 : ry, rx_ = K ? K / 2 : rx, kw = 2 * rx_ + 1;
        S s = 0;
#pragma unroll(K ? K : 1)
        for (int dy = -ry_; dy <= ry_; dy++) {
            const int row = (dy + ry_) * kw + rx_;
#pragma unroll(K ? K : 4)
            for (int dx = -rx_; dx <= rx_; dx++)
                s += (S)wt(row + dx) * (S)win(dx, dy, c);
        }
        return s;
    }

    template <class W> __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        if (K == 0 && wide)
            return gf_convolve_finish_wide(sum<long long>(win, c), divisor, bias, max);
        return gf_convolve_finish(sum<int>(win, c), d);
    }
};

enum { CONV_GLOBAL, CONV_SHARED, CONV_CONSTANT, CONV_TEXTURE };

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
