/* edges.cu - Sobel, Scharr and Laplacian kernels. The rules are written once
 * (sobel_rule, scharr_rule, laplacian_rule) and run by the stencil
 * framework's 2-D kernels (cuda/stencil.cuh) as the `global`, `shared` and
 * `texture` variants, on every layout and border; `packed` runs the
 * warp-strip walker (cuda/packed.cuh) with edges_op on 8-bit layouts and
 * edges_op16 on 16-bit ones. Every variant equals the
 * CPU reference (src/stages/edges.c) bit for bit. */
#include <stdint.h>

#include "check.h"
#include "packed.cuh"
#include "stencil.cuh"

#include "../src/stages/edges.h"

/* ---- The rules, for the 2-D kernels: win(dx, dy, c) is sample c of the
 * pixel (dx, dy) from the thread's own, through the border. */

/* |Gx| + |Gy| with the smoothing (A, B, A): Sobel (1, 2, 1), Scharr
 * (3, 10, 3); |Gx| + |Gy| <= 2 (2A + B) max < 2^22. */
template <int A, int B> struct gradient_rule {
    int rx, ry; /* 1, 1 */
    int max;    /* 255 or 65535 */
    template <class W> __host__ __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        const int p00 = (int)win(-1, -1, c), p10 = (int)win(0, -1, c), p20 = (int)win(1, -1, c);
        const int p01 = (int)win(-1, 0, c), p21 = (int)win(1, 0, c);
        const int p02 = (int)win(-1, 1, c), p12 = (int)win(0, 1, c), p22 = (int)win(1, 1, c);
        const int gx = A * (p20 - p00) + B * (p21 - p01) + A * (p22 - p02);
        const int gy = A * (p02 - p00) + B * (p12 - p10) + A * (p22 - p20);
        return (unsigned)min(abs(gx) + abs(gy), max);
    }
};
typedef gradient_rule<GF_SOBEL_A, GF_SOBEL_B> sobel_rule;
typedef gradient_rule<GF_SCHARR_A, GF_SCHARR_B> scharr_rule;

/* |up + down + left + right - 4 centre|. */
struct laplacian_rule {
    int rx, ry; /* 1, 1 */
    int max;
    template <class W> __host__ __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        const int l = (int)win(0, -1, c) + (int)win(0, 1, c) + (int)win(-1, 0, c) +
                      (int)win(1, 0, c) - 4 * (int)win(0, 0, c);
        return (unsigned)min(abs(l), max);
    }
};

/* ---- edges_op: 8-bit samples, C (= P) bytes a pixel, on the warp-strip
 * walker (cuda/packed.cuh): a lane's 16 output bytes a row, computed in
 * 16-bit lanes, two to a 32-bit word (edges_packed16), from its three rows,
 * each split once into even and odd lanes (prep).
 *
 * The arithmetic (edges_packed16): E_k holds the even bytes (0, 2) of word
 * k as two 16-bit lanes, O_k the odd ones (1, 3), for the words k = 0..5
 * (the word before the lane's 16 bytes, its four, the word after). The
 * vertical parts go two columns at a time: for Sobel and
 * Scharr vs = A (up + down) + B centre and vd = down - up + 255 (biased so
 * that no lane borrows from the next); then the samples P bytes to the left
 * and right come from the same sequences shifted by whole or half words
 * (shifted()). With X = Gx + K and Y = Gy + K (K = (2A + B) 255, the
 * largest |Gx|), and M a multiple of 256 at least 2K,
 *   M + |Gx| + |Gy| = max(X + Y + M - 2K, M + 2K - X - Y, X - Y + M, Y - X + M),
 * every term in 0..M + 2K < 2^16, a 16-bit-lane max (max.u16x2, a DPX
 * instruction of sm_90); clamped to M + 255 its low byte is the output.
 * The Laplacian likewise: T = up + down + left + right + 1020 - 4 centre,
 * M + |L| = max(T + M - 1020, M + 1020 - T). */
enum { PK_SOBEL, PK_SCHARR, PK_LAPLACIAN };

/* __byte_perm, also on the host (for tests of edges_packed16 there). */
__host__ __device__ __forceinline__ unsigned perm(unsigned a, unsigned b, unsigned s)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(a, b, s);
#else
    const unsigned long long x = (unsigned long long)b << 32 | a;
    unsigned r = 0;
    for (int i = 0; i < 4; i++)
        r |= (unsigned)((x >> (8 * ((s >> (4 * i)) & 7))) & 0xffu) << (8 * i);
    return r;
#endif
}

/* Lane-wise max and min of two pairs of 16-bit unsigned lanes. */
__host__ __device__ __forceinline__ unsigned max_u16x2(unsigned a, unsigned b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned r;
    asm("max.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#elif defined(__CUDA_ARCH__)
    return __vmaxu2(a, b);
#else
    const unsigned lo = (a & 0xffffu) > (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
    const unsigned hi = (a >> 16) > (b >> 16) ? a >> 16 : b >> 16;
    return hi << 16 | lo;
#endif
}

__host__ __device__ __forceinline__ unsigned min_u16x2(unsigned a, unsigned b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned r;
    asm("min.u16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#elif defined(__CUDA_ARCH__)
    return __vminu2(a, b);
#else
    const unsigned lo = (a & 0xffffu) < (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
    const unsigned hi = (a >> 16) < (b >> 16) ? a >> 16 : b >> 16;
    return hi << 16 | lo;
#endif
}

/* The even and odd bytes of a word as two 16-bit lanes. */
__host__ __device__ __forceinline__ unsigned even_lanes(unsigned w)
{
    return perm(w, 0, 0x4240);
}

__host__ __device__ __forceinline__ unsigned odd_lanes(unsigned w)
{
    return perm(w, 0, 0x4341);
}

/* A sequence of 16-bit lanes held as words X[0..5] (word k: lanes 2k and
 * 2k + 1), shifted by t lanes (-2..2): the result's word for the lane's
 * own word g (0..3, X[g + 1]) holds lanes 2(g + 1) + t and 2(g + 1) + t + 1.
 * t is a constant once the callers' loops unroll. */
__host__ __device__ __forceinline__ unsigned shifted(const unsigned *X, int g, int t)
{
    const int k = g + 1;
    if (t % 2 == 0)
        return X[k + t / 2];
    const int a = k + (t - 1) / 2; /* floor(t / 2) */
    return perm(X[a], X[a + 1], 0x5432);
}

/* Sample d (-4..4) from output sample 4g + 2i (even == 1) or 4g + 1 + 2i,
 * as the word of lanes i = 0, 1 of the even (E) and odd (O) sequences. */
__host__ __device__ __forceinline__ unsigned at_offset(const unsigned *E, const unsigned *O,
                                                       int g, int even, int d)
{
    if (even)
        return d % 2 == 0 ? shifted(E, g, d / 2) : shifted(O, g, (d - 1) / 2);
    return d % 2 == 0 ? shifted(O, g, d / 2) : shifted(E, g, (d + 1) / 2);
}

/* The 16 output bytes of a lane (4 words) from the even and odd lanes of
 * its three rows (up u, centre m, down d; words 0..5 as above), for 8-bit
 * pixels of P bytes. */
template <int P, int RULE>
__host__ __device__ __forceinline__ void edges_packed16(const unsigned (&uE)[6],
                                                        const unsigned (&uO)[6],
                                                        const unsigned (&mE)[6],
                                                        const unsigned (&mO)[6],
                                                        const unsigned (&dE)[6],
                                                        const unsigned (&dO)[6], unsigned (&o)[4])
{
    constexpr unsigned L2 = 0x00010001u; /* a value in both lanes */
    if (RULE == PK_LAPLACIAN) {
        constexpr unsigned M = 1024;
        unsigned vE[6], vO[6];
        PK_UNROLL
        for (int k = 0; k < 6; k++)
            vE[k] = uE[k] + dE[k], vO[k] = uO[k] + dO[k];
        PK_UNROLL
        for (int g = 0; g < 4; g++) {
            unsigned r[2];
            PK_UNROLL
            for (int e = 1; e >= 0; e--) {
                const unsigned *V = e ? vE : vO, *C = e ? mE : mO;
                const unsigned t = V[g + 1] + at_offset(mE, mO, g, e, -P) +
                                   at_offset(mE, mO, g, e, P) + (1020 * L2 - 4 * C[g + 1]);
                r[e] = min_u16x2(max_u16x2(t + (M - 1020) * L2, (M + 1020) * L2 - t),
                                 (M + 255) * L2);
            }
            o[g] = perm(r[1], r[0], 0x6240);
        }
    } else {
        constexpr unsigned A = RULE == PK_SOBEL ? GF_SOBEL_A : GF_SCHARR_A;
        constexpr unsigned B = RULE == PK_SOBEL ? GF_SOBEL_B : GF_SCHARR_B;
        constexpr unsigned K = (2 * A + B) * 255;
        constexpr unsigned M = RULE == PK_SOBEL ? 2048 : 8192; /* >= 2K, M + 2K < 2^16 */
        static_assert(M >= 2 * K && M + 2 * K < 65536 && M % 256 == 0, "the lanes' range");
        unsigned sE[6], sO[6], dfE[6], dfO[6];
        PK_UNROLL
        for (int k = 0; k < 6; k++) {
            sE[k] = A * (uE[k] + dE[k]) + B * mE[k];
            sO[k] = A * (uO[k] + dO[k]) + B * mO[k];
            dfE[k] = dE[k] + 255 * L2 - uE[k];
            dfO[k] = dO[k] + 255 * L2 - uO[k];
        }
        PK_UNROLL
        for (int g = 0; g < 4; g++) {
            unsigned r[2];
            PK_UNROLL
            for (int e = 1; e >= 0; e--) {
                const unsigned *D = e ? dfE : dfO;
                const unsigned x =
                    at_offset(sE, sO, g, e, P) + K * L2 - at_offset(sE, sO, g, e, -P);
                const unsigned y =
                    A * (at_offset(dfE, dfO, g, e, -P) + at_offset(dfE, dfO, g, e, P)) +
                    B * D[g + 1];
                const unsigned t1 = x + y + (M - 2 * K) * L2, t2 = (M + 2 * K) * L2 - x - y;
                const unsigned t3 = x + M * L2 - y, t4 = y + M * L2 - x;
                r[e] = min_u16x2(max_u16x2(max_u16x2(t1, t2), max_u16x2(t3, t4)), (M + 255) * L2);
            }
            o[g] = perm(r[1], r[0], 0x6240);
        }
    }
}

/* One input row of the lane: its words split into even and odd lanes. */
struct packed_row {
    unsigned E[6], O[6];
};

template <int P, int RULE> struct edges_op {
    typedef packed_row row_t;
    __device__ __forceinline__ row_t prep(const unsigned (&wd)[6]) const
    {
        row_t r;
#pragma unroll
        for (int k = 0; k < 6; k++) {
            r.E[k] = even_lanes(wd[k]);
            r.O[k] = odd_lanes(wd[k]);
        }
        return r;
    }
    __device__ __forceinline__ uint4 apply(const row_t (&ring)[3], int first) const
    {
        const row_t &u = ring[first % 3], &m = ring[(first + 1) % 3], &d = ring[(first + 2) % 3];
        unsigned o[4];
        edges_packed16<P, RULE>(u.E, u.O, m.E, m.O, d.E, d.O, o);
        return make_uint4(o[0], o[1], o[2], o[3]);
    }
};

/* ---- edges_op16: 16-bit samples, C a pixel, on the warp-strip walker: a
 * lane's 8 samples (16 bytes) a row, with HW words (2 HW samples, at least
 * one pixel) either side, unpacked in registers (prep); each output sample
 * is the 2-D rule on its 3x3 window copied from them (the sums need 32-bit
 * lanes: no packing). */

/* The 3x3 window of one sample, from registers. */
struct reg_win {
    unsigned p[3][3];
    __host__ __device__ __forceinline__ unsigned operator()(int dx, int dy, int c) const
    {
        (void)c;
        return p[dy + 1][dx + 1];
    }
};

/* The output samples j = 0..7 of a lane from its rows' samples (u, m, d:
 * N each, sample j of the lane at index S0 + j), packed two to a word. */
template <int C, int S0, int N, class Rule>
__host__ __device__ __forceinline__ void edges_packed8x16(const Rule &rule, const unsigned (&u)[N],
                                                          const unsigned (&m)[N],
                                                          const unsigned (&d)[N], unsigned (&o)[4])
{
    PK_UNROLL
    for (int j = 0; j < 8; j++) {
        reg_win win;
        PK_UNROLL
        for (int dx = -1; dx <= 1; dx++) {
            win.p[0][dx + 1] = u[S0 + j + dx * C];
            win.p[1][dx + 1] = m[S0 + j + dx * C];
            win.p[2][dx + 1] = d[S0 + j + dx * C];
        }
        const unsigned v = rule.at(win, 0);
        o[j / 2] = j % 2 ? o[j / 2] | v << 16 : v;
    }
}

template <int C, class Rule> struct edges_op16 {
    static constexpr int HW = pk_halo_words(1, 2 * C), N = 8 + 4 * HW;
    struct row_t {
        unsigned v[N]; /* the row's samples, the lane's first at 2 HW */
    };
    Rule rule;
    __device__ __forceinline__ row_t prep(const unsigned (&wd)[4 + 2 * HW]) const
    {
        row_t r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = (wd[i / 2] >> (16 * (i % 2))) & 0xffffu;
        return r;
    }
    __device__ __forceinline__ uint4 apply(const row_t (&ring)[3], int first) const
    {
        unsigned o[4];
        edges_packed8x16<C, 2 * HW, N>(rule, ring[first % 3].v, ring[(first + 1) % 3].v,
                                       ring[(first + 2) % 3].v, o);
        return make_uint4(o[0], o[1], o[2], o[3]);
    }
};

enum { EDGES_GLOBAL = ST_GLOBAL, EDGES_SHARED = ST_SHARED, EDGES_TEXTURE = ST_TEXTURE,
       EDGES_PACKED };

template <typename T, int C>
static int launch(int variant, gf_edge_rule r, const gf_dimage *in, gf_dimage *out, gf_border b,
                  cudaStream_t st)
{
    const int max = sizeof(T) == 1 ? 255 : 65535;
    const sobel_rule sobel = {1, 1, max};
    const scharr_rule scharr = {1, 1, max};
    const laplacian_rule laplacian = {1, 1, max};

    if (variant == EDGES_PACKED) {
        const gf_shape sh = gf_dimage_shape_of(in);
        int rc;
        if ((rc = gf_dimage_shape(out, &sh)))
            return rc;
        if constexpr (sizeof(T) == 1) {
            if (r == GF_EDGE_SOBEL)
                return pk_launch<uint8_t, C, 1>(edges_op<C, PK_SOBEL>(), in, out, b, st);
            if (r == GF_EDGE_SCHARR)
                return pk_launch<uint8_t, C, 1>(edges_op<C, PK_SCHARR>(), in, out, b, st);
            return pk_launch<uint8_t, C, 1>(edges_op<C, PK_LAPLACIAN>(), in, out, b, st);
        } else {
            if (r == GF_EDGE_SOBEL)
                return pk_launch<uint16_t, C, 1>(edges_op16<C, sobel_rule>{sobel}, in, out, b, st);
            if (r == GF_EDGE_SCHARR)
                return pk_launch<uint16_t, C, 1>(edges_op16<C, scharr_rule>{scharr}, in, out, b,
                                                 st);
            return pk_launch<uint16_t, C, 1>(edges_op16<C, laplacian_rule>{laplacian}, in, out, b,
                                             st);
        }
    }
    if (r == GF_EDGE_SOBEL)
        return st_launch_2d<T, C>(variant, sobel, in, out, b, st);
    if (r == GF_EDGE_SCHARR)
        return st_launch_2d<T, C>(variant, scharr, in, out, b, st);
    return st_launch_2d<T, C>(variant, laplacian, in, out, b, st);
}

static int edges_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                      void *stream)
{
    const gf_edges_params *p = GF_CPARAMS(s, gf_edges_params);
    int rc = GF_EINTERNAL;

    if ((unsigned)p->rule > GF_EDGE_LAPLACIAN || p->st.kw != 3 || p->st.kh != 3 ||
        in->width > 65535 || in->height > 65535 || in->width < 1 || in->height < 1)
        return gf_err(GF_EINTERNAL, NULL, "edges: bad arguments (rule %d, %dx%d)", (int)p->rule,
                      in->width, in->height);
#define LAUNCH(T, C)                                                                          \
    rc = launch<T, C>(variant, p->rule, in, out, p->st.border, (cudaStream_t)stream)
    GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH)
#undef LAUNCH
    return rc;
}

extern "C" int gf_edges_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return edges_cuda(s, in, out, EDGES_GLOBAL, stream);
}

extern "C" int gf_edges_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return edges_cuda(s, in, out, EDGES_SHARED, stream);
}

extern "C" int gf_edges_texture_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return edges_cuda(s, in, out, EDGES_TEXTURE, stream);
}

extern "C" int gf_edges_packed_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return edges_cuda(s, in, out, EDGES_PACKED, stream);
}
