/* gaussian.cuh - the Gaussian's rule (src/stages/gaussian.h) for the stencil
 * framework's kernels, shared by cuda/gaussian.cu and cuda/unsharp.cu: a
 * separable form (row pass, then the column pass in 32 bits by
 * gf_gauss_round) and a 2-D form that sums each window directly. The weights
 * come from a weight source: gauss_wconst holds w_0 .. w_c in the rule
 * itself (a kernel parameter: the constant bank), gauss_wglobal reads them
 * from a device buffer. */
#ifndef GF_GAUSSIAN_CUH
#define GF_GAUSSIAN_CUH

#include <type_traits>

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

/* ---- The register schedule (GAUSS_REGISTER). Both passes of the rule are
 * exact integer sums, so their order does not change the result: this
 * schedule takes the column pass first, c = sum_i w_i x_i down each sample
 * column, then the row pass v = sum_j w_j c_j along the row, and rounds
 * once, (v + 2^27) >> 28, as the gold does.
 *
 * A block owns a strip of GR_STRIP(THREADS) samples (HALO of them on each
 * side only feed the others) and walks down its rows four at a time:
 *   column pass: each thread owns 4 adjacent samples (one 4-byte load a row
 *     at 8 bits, 8 bytes at 16; the next four rows are loaded while these
 *     are summed) and runs the column filter in transposed direct form, K
 *     running partial sums a sample in registers: each input row adds
 *     w_t x to every partial sum it belongs to, and the sum that is then
 *     complete is the output row's column sum. No ring to rotate, so the
 *     loop over rows is not unrolled K times. The four rows' sums go to
 *     shared memory (two banks; one barrier every four rows).
 *   row pass: a warp takes one of the four rows, 16 samples a lane (512 a
 *     warp), reads the window of its samples with 16-byte loads of shared
 *     memory and stores 16 bytes (8-bit) or 32 (16-bit) of output.
 * The border is applied when a row is loaded: the row index once per row,
 * the column index only by the threads whose samples cross the image's
 * edge; the padded image's columns commute with its rows, so a halo column
 * outside the image holds the column sums of the column the border maps it
 * to.
 *
 * Arithmetic, 8-bit: the samples become floats (2^23 + b, less 2^23); the
 * column sums (below 2^22) are exact in single precision. The row pass in
 * single precision, with the weights scaled by 2^-28 (exact), gives y with
 * |y - v / 2^28| <= K 2^-17 (each fused multiply-add rounds by at most half
 * an ulp of a value below 256): y rounded to the nearest integer is the
 * gold's (v + 2^27) >> 28 unless y lies within that bound of a half, where
 * the row pass is redone exactly in double precision (products below
 * 2^36). 16-bit: the column sums (below 2^30) in 32-bit integers, the row
 * pass in double precision, exact (below 2^44).
 *
 * R is a template parameter (the window's offsets and the partial sums are
 * constants): 8-bit up to GR_MAX_R8 (K 31, SIGMA 5 by the default window),
 * 16-bit up to GR_MAX_R16, and R C up to GR_MAX_RC; larger windows run
 * GAUSS_CONSTANT. */
#define GR_MAX_R8 15
#define GR_MAX_R16 8
/* R C at most 32 samples: past it the strip's halo (48 or 64 samples) and
 * the partial sums (K - 1 a sample) leave one block of 256 threads an SM,
 * slower than GAUSS_CONSTANT on an H200 (RGB at SIGMA 5: 8.7 ms against
 * 5.1, docs/benchmarks.md) */
#define GR_MAX_RC 32
#define GR_KMAX (2 * GR_MAX_R8 + 1)
#define GR_ROWS 4   /* rows a barrier; also the column pass's loads ahead */
#define GR_LANE 16  /* samples a lane of the row pass */
#define GR_SEG 512  /* samples a warp of the row pass: 32 lanes of 16 */
#define GR_STRIP(threads) ((threads) * 4) /* samples a strip: 4 a thread */

/* Where a strip's sample m lies in its shared-memory row of H values: 16
 * bytes of padding after every 128, so that the row pass's lanes, 64 or 128
 * bytes apart, read 16 bytes each from different banks, and the column
 * pass's 16-byte stores stay without conflicts. A row takes
 * GR_PSTRIP(threads) values. */
template <typename H> __device__ __forceinline__ int gr_phys(int m)
{
    return m + (int)(16 / sizeof(H)) * (m * (int)sizeof(H) / 128);
}
#define GR_PSTRIP(threads) (GR_STRIP(threads) / 8 * 9)

/* The weights in the forms the register schedule multiplies by: f, the
 * column pass at 8 bits (w_i as floats); w, at 16 bits; s and d, the row
 * pass's w_j 2^-28 in single and double precision. */
struct gauss_wreg {
    float f[GR_KMAX], s[GR_KMAX];
    double d[GR_KMAX];
    unsigned w[GR_KMAX];
};

template <typename T> struct gr_traits;
template <> struct gr_traits<uint8_t> {
    typedef uint32_t raw; /* 4 samples as loaded */
    typedef float col;    /* the column pass's partial sums */
    typedef float row;    /* the row pass's values (in shared memory) */
};
template <> struct gr_traits<uint16_t> {
    typedef uint2 raw;
    typedef uint32_t col;
    typedef double row;
};

/* Sample j of a raw load as the column pass takes it: 8-bit, a float built
 * from its exponent bits (exact, no conversion instruction); 16-bit, an
 * integer. */
__device__ __forceinline__ float gr_unpack(uint32_t r, int j)
{
    return __uint_as_float(__byte_perm(r, 0x4B000000u, 0x7440 + j)) - 8388608.0f;
}
__device__ __forceinline__ uint32_t gr_unpack(uint2 r, int j)
{
    const uint32_t v = j < 2 ? r.x : r.y;
    return j % 2 ? v >> 16 : v & 0xffffu;
}

/* The exact row pass of one sample from its window in shared memory (cb[m]
 * its own column sum): the 8-bit path's rare case near a half. */
template <int C, int R>
__device__ __noinline__ unsigned gr_exact(const float *cb, int m, const gauss_wreg &wt)
{
    double e = 0.0;
#pragma unroll 1
    for (int t = 0; t < 2 * R + 1; t++)
        e = fma(wt.d[t], (double)cb[gr_phys<float>(m + C * (t - R))], e);
    return (unsigned)__double2uint_rd(e + 0.5);
}

/* The register schedule's last step: the Gaussian g itself, or with
 * sharpen the unsharp mask of the centre sample x (gf_unsharp_sample). One
 * kernel serves both stages. */
struct gr_fin {
    int sharpen, amount, threshold, max;
    __device__ __forceinline__ unsigned operator()(unsigned g, unsigned x) const
    {
        return sharpen ? gf_unsharp_sample((int)x, (int)g, amount, threshold, max) : g;
    }
};

static inline gr_fin gr_fin_of(const gauss_fin_2d &) { return gr_fin{0, 0, 0, 0}; }
static inline gr_fin gr_fin_of(const unsharp_fin_2d &f)
{
    return gr_fin{1, f.amount, f.threshold, f.max};
}

template <typename T, int C, int R, int THREADS>
__global__ void __launch_bounds__(THREADS)
    gauss_register_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int w, int h, size_t ipitch, size_t opitch, gf_border b,
                          int strip_rows, const __grid_constant__ gauss_wreg wt, const gr_fin fin)
{
    constexpr int K = 2 * R + 1, RC = R * C, HALO = (RC + 15) / 16 * 16;
    constexpr int STRIP = GR_STRIP(THREADS), PSTRIP = GR_PSTRIP(THREADS), SW = STRIP - 2 * HALO;
    constexpr int RQ = (RC + 3) / 4, NC = (GR_LANE - 1 + RC) / 4 + RQ + 1; /* window chunks */
    constexpr bool B8 = sizeof(T) == 1;
    static_assert(SW > 0 && STRIP % GR_SEG == 0 && THREADS / 32 % GR_ROWS == 0, "strip");
    typedef typename gr_traits<T>::raw RAW;
    typedef typename gr_traits<T>::col V;
    typedef typename gr_traits<T>::row H;
    extern __shared__ __align__(16) unsigned char gr_smem[];
    H(*cbuf)[GR_ROWS][PSTRIP] = (H(*)[GR_ROWS][PSTRIP])(void *)gr_smem; /* [2] */

    const int tid = threadIdx.x, n = w * C, x0 = blockIdx.x * SW - HALO;
    const int s0 = x0 + 4 * tid; /* the column pass's first sample */
    const int y0 = blockIdx.y * strip_rows, rows = min(strip_rows, h - y0), nin = rows + 2 * R;
    const bool inside = s0 >= 0 && s0 + 4 <= n;
    /* every row of the strip inside the image: rows a pitch apart from here */
    const bool yin = y0 - R >= 0 && y0 + rows + R <= h;
    const unsigned char *top = in + (ptrdiff_t)(y0 - R) * (ptrdiff_t)ipitch + (ptrdiff_t)s0 * (ptrdiff_t)sizeof(T);
    const unsigned splat = B8 ? (unsigned)b.value * 0x01010101u : (unsigned)b.value * 0x10001u;

    /* Input row i of the strip (image row y0 - R + i, through the border). */
    const auto load = [&](int i) -> RAW {
        RAW r;
        if constexpr (B8)
            r = splat;
        else
            r = make_uint2(splat, splat);
        if (i >= nin)
            return r;
        if (yin && inside)
            return __ldg((const RAW *)(const void *)(top + (size_t)i * ipitch));
        const int yy = gf_border_index(y0 - R + i, h, b.mode);
        if (yy < 0)
            return r;
        const unsigned char *row = in + (size_t)yy * ipitch;
        if (inside)
            return __ldg((const RAW *)(const void *)(row + (size_t)s0 * sizeof(T)));
        uint32_t v[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int s = s0 + j, p = (s >= 0 ? s : s - (C - 1)) / C, c = s - p * C;
            const int pp = gf_border_index(p, w, b.mode);
            v[j] = pp < 0 ? (unsigned)b.value : ((const T *)(const void *)row)[pp * C + c];
        }
        if constexpr (B8)
            r = v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24;
        else
            r = make_uint2(v[0] | v[1] << 16, v[2] | v[3] << 16);
        return r;
    };

    /* the row pass's warp: its row of the four, and its 512 samples */
    const int warp = tid / 32, lane = tid % 32, slot = warp % GR_ROWS;
    const int m0 = (warp / GR_ROWS) * GR_SEG + GR_LANE * lane; /* strip sample of its first */
    const bool lane_out = m0 >= HALO && m0 < HALO + SW && x0 + m0 < n;

    RAW q[GR_ROWS];
    V z[4][K - 1]; /* partial sums: z[j][t] awaits rows with weights t+1 .. K-1 */
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
        for (int t = 0; t < K - 1; t++)
            z[j][t] = 0;
#pragma unroll
    for (int k = 0; k < GR_ROWS; k++)
        q[k] = load(k);
    for (int i0 = 0; i0 < nin; i0 += GR_ROWS) {
        H(*cb)[PSTRIP] = cbuf[(i0 / GR_ROWS) & 1];
#pragma unroll
        for (int k = 0; k < GR_ROWS; k++) {
            const RAW r = q[k];
            q[k] = load(i0 + GR_ROWS + k);
            H c[4];
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const V x = gr_unpack(r, j);
                V y;
                if constexpr (B8) {
                    y = fmaf(wt.f[0], x, z[j][0]);
#pragma unroll
                    for (int t = 0; t < K - 2; t++)
                        z[j][t] = fmaf(wt.f[t + 1], x, z[j][t + 1]);
                    z[j][K - 2] = wt.f[K - 1] * x;
                } else {
                    y = wt.w[0] * x + z[j][0];
#pragma unroll
                    for (int t = 0; t < K - 2; t++)
                        z[j][t] = wt.w[t + 1] * x + z[j][t + 1];
                    z[j][K - 2] = wt.w[K - 1] * x;
                }
                c[j] = (H)y;
            }
            if constexpr (B8)
                *(float4 *)(void *)&cb[k][gr_phys<H>(4 * tid)] = make_float4(c[0], c[1], c[2], c[3]);
            else {
                *(double2 *)(void *)&cb[k][gr_phys<H>(4 * tid)] = make_double2(c[0], c[1]);
                *(double2 *)(void *)&cb[k][gr_phys<H>(4 * tid + 2)] = make_double2(c[2], c[3]);
            }
        }
        __syncthreads();
        /* the row pass of the column sums of input row i0 + slot: output row
         * y0 + i0 + slot - 2R */
        const int yo = i0 + slot - 2 * R;
        if (!lane_out || yo < 0 || yo >= rows)
            continue;
        const H *row = cb[slot];
        H acc[GR_LANE];
#pragma unroll
        for (int j = 0; j < GR_LANE; j++)
            acc[j] = 0;
#pragma unroll
        for (int ci = 0; ci < NC; ci++) {
            const int base = m0 + 4 * (ci - RQ); /* the chunk's first sample */
            H v[4];
            if constexpr (B8) {
                const float4 f = *(const float4 *)(const void *)(row + gr_phys<H>(base));
                v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
            } else {
                const double2 d0 = *(const double2 *)(const void *)(row + gr_phys<H>(base)),
                              d1 = *(const double2 *)(const void *)(row + gr_phys<H>(base + 2));
                v[0] = d0.x, v[1] = d0.y, v[2] = d1.x, v[3] = d1.y;
            }
#pragma unroll
            for (int e = 0; e < 4; e++)
#pragma unroll
                for (int j = 0; j < GR_LANE; j++) {
                    const int d = 4 * (ci - RQ) + e - j; /* offset from sample j */
                    if (d % C == 0 && d / C >= -R && d / C <= R) {
                        if constexpr (B8)
                            acc[j] = fmaf(wt.s[d / C + R], v[e], acc[j]);
                        else
                            acc[j] = fma(wt.d[d / C + R], v[e], acc[j]);
                    }
                }
        }
        const int y = y0 + yo, sx = x0 + m0;
        const T *ctr = (const T *)(const void *)(in + (size_t)y * ipitch) + sx;
        unsigned o[GR_LANE];
#pragma unroll
        for (int j = 0; j < GR_LANE; j++) {
            unsigned g;
            if constexpr (B8) {
                const float r = acc[j] + 12582912.0f; /* 1.5 2^23: to the nearest integer */
                const float d = fabsf(acc[j] - (r - 12582912.0f));
                g = __float_as_uint(r) - 0x4B400000u;
                if (d >= 0.5f - (float)(K + 1) * (1.0f / 131072.0f))
                    g = gr_exact<C, R>(row, m0 + j, wt);
            } else {
                g = (unsigned)__double2uint_rd(acc[j] + 0.5);
            }
            o[j] = fin.sharpen ? fin(g, sx + j < n ? (unsigned)ctr[j] : 0u) : g;
        }
        T *dst = (T *)(void *)(out + (size_t)y * opitch) + sx;
        if (sx + GR_LANE <= n) {
            if constexpr (B8) {
                uint4 v;
                v.x = o[0] | o[1] << 8 | o[2] << 16 | o[3] << 24;
                v.y = o[4] | o[5] << 8 | o[6] << 16 | o[7] << 24;
                v.z = o[8] | o[9] << 8 | o[10] << 16 | o[11] << 24;
                v.w = o[12] | o[13] << 8 | o[14] << 16 | o[15] << 24;
                *(uint4 *)(void *)dst = v;
            } else {
#pragma unroll
                for (int u = 0; u < 2; u++)
                    *(uint4 *)(void *)(dst + 8 * u) =
                        make_uint4(o[8 * u] | o[8 * u + 1] << 16, o[8 * u + 2] | o[8 * u + 3] << 16,
                                   o[8 * u + 4] | o[8 * u + 5] << 16,
                                   o[8 * u + 6] | o[8 * u + 7] << 16);
            }
        } else {
#pragma unroll
            for (int j = 0; j < GR_LANE; j++)
                if (sx + j < n)
                    dst[j] = (T)o[j];
        }
    }
}

/* Runs the register schedule (above) on in -> out (same shape; out's shape
 * set here) for the weights of a window of radius r, with the last step
 * fin: 0 when launched; 1, with nothing launched, where r is past
 * GR_MAX_R8 (8-bit) or GR_MAX_R16 (16-bit); GF_EINTERNAL on a CUDA error.
 * Instantiated in cuda/gaussian.cu for every layout (unsharp.cu uses the
 * same kernels). */
template <typename T, int C>
int gauss_register_run(int r, const gauss_wreg &wt, const gr_fin &fin, const gf_dimage *in,
                       gf_dimage *out, gf_border b, cudaStream_t st);

/* The Gaussian (FIN gauss_fin / gauss_fin_2d) or unsharp mask of in -> out
 * on one of the variants: GAUSS_GLOBAL (2-D, constant weights, window from
 * global memory), GAUSS_SHARED (separable, weights from global memory),
 * GAUSS_CONSTANT (separable, constant weights), GAUSS_REGISTER (the column
 * window in registers, above; GAUSS_CONSTANT past its radii). fin2 and fin
 * are the two forms of the last step. */
enum { GAUSS_GLOBAL, GAUSS_SHARED, GAUSS_CONSTANT, GAUSS_REGISTER };

template <typename T, int C, class FIN2, class FIN>
static int gauss_launch(int variant, double sigma, int k, gf_border b, const FIN2 &fin2,
                        const FIN &fin, const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    gauss_wconst wc;
    int *dev = NULL, rc;

    if ((rc = gauss_weights(sigma, k, &wc, variant == GAUSS_SHARED ? &dev : NULL, st)))
        return rc;
    if (variant == GAUSS_REGISTER) {
        const int r = k / 2;
        gauss_wreg wt;
        memset(&wt, 0, sizeof wt);
        for (int i = 0; i < k && r <= GR_MAX_R8; i++) {
            const int v = wc.w[i <= r ? i : k - 1 - i];
            wt.w[i] = v;
            wt.f[i] = (float)v;
            wt.s[i] = (float)v * 0x1p-28f;
            wt.d[i] = (double)v * 0x1p-28;
        }
        if ((rc = gauss_register_run<T, C>(r, wt, gr_fin_of(fin2), in, out, b, st)) <= 0)
            return rc;
        variant = GAUSS_CONSTANT; /* past the radii it is instantiated for */
    }
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
