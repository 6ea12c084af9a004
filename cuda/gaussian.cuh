/* gaussian.cuh - the Gaussian's rule (src/stages/gaussian.h) for the stencil
 * framework's kernels, shared by cuda/gaussian.cu and cuda/unsharp.cu: a
 * separable form (row pass, then the column pass in 32 bits by
 * gf_gauss_round) and a 2-D form that sums each window directly. The weights
 * come from a weight source: gauss_wconst holds w_0 .. w_c in the rule
 * itself (a kernel parameter: the constant bank), gauss_wglobal reads them
 * from a device buffer. */
#ifndef GF_GAUSSIAN_CUH
#define GF_GAUSSIAN_CUH

#include "stencil.cuh"

#include "../src/stages/gaussian.h"

struct gauss_wconst {
    int w[GF_GAUSS_HALF];
    __device__ __forceinline__ unsigned operator[](int i) const { return (unsigned)w[i]; }
};

struct gauss_wglobal {
    const int *__restrict__ w;
    __device__ __forceinline__ unsigned operator[](int i) const { return (unsigned)__ldg(w + i); }
};

/* The column pass of the window's row values h(0) .. h(2r) (any accessor),
 * rounded: symmetric rows paired, each pair split into 16-bit halves. */
template <class WS, class H>
__device__ __forceinline__ unsigned gauss_col(const WS &w, int r, const H &h)
{
    const uint32_t hc = h(r), wc = w[r];
    uint32_t a = wc * (hc >> 16), b = wc * (hc & 0xffffu);
    for (int k = 0; k < r; k++) {
        const uint32_t p = h(k) + h(2 * r - k), wk = w[k];
        a += wk * (p >> 16);
        b += wk * (p & 0xffffu);
    }
    return gf_gauss_round(a, b);
}

/* The row pass of the samples s(0) .. s(2r), symmetric taps paired. */
template <class WS, class S>
__device__ __forceinline__ uint32_t gauss_row(const WS &w, int r, const S &s)
{
    uint32_t v = w[r] * s(r);
    for (int j = 0; j < r; j++)
        v += w[j] * (s(j) + s(2 * r - j));
    return v;
}

/* The separable rule; FIN makes the output sample from the blurred one g
 * (gauss_fin: g itself; unsharp_fin: the unsharp mask, which reads the
 * centre sample from the input). */
template <typename T, class WS, class FIN> struct gauss_rule_sep {
    typedef uint32_t acc;
    int rx, ry, channels;
    WS w;
    FIN fin;
    __device__ __forceinline__ unsigned row(const T *s, int) const
    {
        const int C = channels;
        return gauss_row(w, rx, [&](int j) { return (uint32_t)s[j * C]; });
    }
    template <class R> __device__ __forceinline__ unsigned col(const R &ring, int x, int y, int c) const
    {
        return fin(gauss_col(w, ry, ring), x, y, c);
    }
};

struct gauss_fin {
    __device__ __forceinline__ unsigned operator()(unsigned g, int, int, int) const { return g; }
};

template <typename T, int C> struct unsharp_fin {
    const unsigned char *__restrict__ in;
    size_t pitch;
    int amount, threshold, max;
    __device__ __forceinline__ unsigned operator()(unsigned g, int x, int y, int c) const
    {
        return gf_unsharp_sample((int)st_sample<T, C>(in, pitch, x, y, c), (int)g, amount,
                                 threshold, max);
    }
};

/* The 2-D rule: each of the window's rows summed with the weights, then
 * the column pass of those sums; FIN2 makes the output from g and the
 * centre sample. */
template <class WS, class FIN2> struct gauss_rule_2d {
    int rx, ry;
    WS w;
    FIN2 fin;
    template <class W> __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        const int r = rx, q = ry;
        const unsigned g = gauss_col(w, ry, [&](int k) {
            return gauss_row(w, r, [&](int j) { return (uint32_t)win(j - r, k - q, c); });
        });
        return fin(g, win(0, 0, c));
    }
};

struct gauss_fin_2d {
    __device__ __forceinline__ unsigned operator()(unsigned g, unsigned) const { return g; }
};

struct unsharp_fin_2d {
    int amount, threshold, max;
    __device__ __forceinline__ unsigned operator()(unsigned g, unsigned x) const
    {
        return gf_unsharp_sample((int)x, (int)g, amount, threshold, max);
    }
};

/* The weights w_0 .. w_c of SIGMA and K, for both sources: *wc the
 * constant one; with dev != NULL also a device copy (st_weights) in *dev. */
static inline int gauss_weights(double sigma, int k, gauss_wconst *wc, int **dev, cudaStream_t st)
{
    int32_t w[GF_GAUSS_MAX_K];
    gf_gauss_weights(sigma, k, w);
    for (int i = 0; i <= k / 2; i++)
        wc->w[i] = w[i];
    return dev ? st_weights(wc->w, k / 2 + 1, dev, st) : 0;
}

/* The Gaussian (FIN gauss_fin / gauss_fin_2d) or unsharp mask of in -> out
 * on one of the variants: GAUSS_GLOBAL (2-D, constant weights, window from
 * global memory), GAUSS_SHARED (separable, weights from global memory),
 * GAUSS_CONSTANT (separable, constant weights). fin2 and fin are the two
 * forms of the last step. */
enum { GAUSS_GLOBAL, GAUSS_SHARED, GAUSS_CONSTANT };

template <typename T, int C, class FIN2, class FIN>
static int gauss_launch(int variant, double sigma, int k, gf_border b, const FIN2 &fin2,
                        const FIN &fin, const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    gauss_wconst wc;
    int *dev = NULL, rc;

    if ((rc = gauss_weights(sigma, k, &wc, variant == GAUSS_SHARED ? &dev : NULL, st)))
        return rc;
    if (variant == GAUSS_GLOBAL)
        return st_launch_2d_as<ST_GLOBAL, T, C>(gauss_rule_2d<gauss_wconst, FIN2>{k / 2, k / 2, wc, fin2},
                                  in, out, b, st);
    if (variant == GAUSS_CONSTANT)
        return st_launch_sep<T, C>(gauss_rule_sep<T, gauss_wconst, FIN>{k / 2, k / 2, C, wc, fin},
                                   in, out, b, st);
    rc = st_launch_sep<T, C>(gauss_rule_sep<T, gauss_wglobal, FIN>{k / 2, k / 2, C, {dev}, fin},
                             in, out, b, st);
    const int rc2 = st_weights_free(dev, st);
    return rc ? rc : rc2;
}

#endif
