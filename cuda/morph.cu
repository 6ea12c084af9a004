/* morph.cu - erode, dilate, open and close with a rectangular structuring
 * element (src/stages/morph.h): every layout, every border mode, each
 * variant equal to the CPU reference (src/stages/morph.c) bit for bit.
 *
 *   global   one thread per pixel: the minimum (maximum) of its window read
 *            from global memory through the border, O(kw kh) a sample (the
 *            stencil framework's ST_GLOBAL, cuda/stencil.cuh).
 *   vanherk  a horizontal pass (morph_hrow_kernel) into a scratch image, then
 *            a vertical pass (morph_vcol_kernel), each O(1) a sample by van
 *            Herk / Gil-Werman (M. van Herk, "A fast algorithm for local
 *            minimum and maximum filters on rectangular and octagonal
 *            kernels", Pattern Recognition Letters 13(7), 1992; J. Gil and
 *            M. Werman, "Computing 2-D min, median, and max filters", IEEE
 *            PAMI 15(5), 1993): cut a line into blocks of K samples and take
 *            in each the prefix minima P (from the block's start) and the
 *            suffix minima S (to its end); a window of K that starts at
 *            offset j of a block is that block's S[j] and the next block's
 *            P[j - 1], so its minimum is min(S[j], P[j - 1]): three minima a
 *            sample whatever K.
 *   fused    the same two passes in one kernel (morph_fused_kernel): the
 *            horizontal pass's minima of a few rows at a time go from shared
 *            memory and registers straight into the vertical walk, so the
 *            image goes through device memory once (vanherk: twice, the
 *            scratch image written and read back between the passes).
 *   packed   3x3 and 5x5 squares: the warp-strip walker (cuda/packed.cuh)
 *            with morph_op, each row's horizontal extreme once (prep), then
 *            the window's rows' extremes (apply), 16 bytes a lane, in one
 *            pass through device memory; other windows run vanherk's passes.
 *
 * A minimum or maximum never mixes samples, so both passes work on packed
 * 32-bit words with the SIMD intrinsics __vminu4 / __vmaxu4 (four 8-bit
 * samples) and __vminu2 / __vmaxu2 (two 16-bit ones). Open and close run
 * one operation's passes after the other's, ping-ponging between out and
 * one scratch image (st_scratch), so that the last pass writes out. A side
 * of 1 skips its pass, and 1x1 copies. */
#include "check.h"
#include "packed.cuh"
#include "stencil.cuh"

#include "../src/stages/morph.h"

/* ---- The extremes of packed words. */

template <typename T, bool MAX> __device__ __forceinline__ unsigned vext(unsigned a, unsigned b)
{
    if constexpr (sizeof(T) == 1)
        return MAX ? __vmaxu4(a, b) : __vminu4(a, b);
    else
        return MAX ? __vmaxu2(a, b) : __vminu2(a, b);
}

template <typename T, bool MAX> __device__ __forceinline__ uint4 vext(uint4 a, uint4 b)
{
    return make_uint4(vext<T, MAX>(a.x, b.x), vext<T, MAX>(a.y, b.y), vext<T, MAX>(a.z, b.z),
                      vext<T, MAX>(a.w, b.w));
}

/* The border's constant in every sample of a word. */
template <typename T> __host__ __device__ __forceinline__ unsigned splat(int v)
{
    return sizeof(T) == 1 ? (unsigned)v * 0x01010101u : (unsigned)v * 0x00010001u;
}

/* ---- global: the 2-D rule, by the definition. */

template <bool MAX> struct morph_rule_2d {
    int rx, ry;
    template <class W> __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        unsigned v = win(-rx, -ry, c);
        /* unrolled further, the loops spill in some layouts' kernels */
#pragma unroll 1
        for (int dy = -ry; dy <= ry; dy++)
#pragma unroll 2
            for (int dx = -rx; dx <= rx; dx++) {
                const unsigned s = win(dx, dy, c);
                v = MAX ? max(v, s) : min(v, s);
            }
        return v;
    }
};

/* ---- vanherk, the horizontal pass.
 *
 * A block of H_THREADS threads takes H_GROUPS groups of RPW rows (RPW = 4
 * for 8-bit samples, 2 for 16-bit: the samples a 32-bit word holds) and a
 * segment of SEG samples of each row (h_seg: about H_SEG_BYTES, a multiple
 * of C and of RPW, so at most H_THREADS words). Three steps, a barrier
 * between each:
 *  1. stage (h_load, h_store): the padded samples [s0 - rC, s0 + SEG + rC)
 *     of the group's rows into X, word u holding sample u of each of the RPW
 *     rows (a 4x4 byte or 2x2 half transpose of the rows' words by
 *     __byte_perm). Inside the row a thread loads one aligned word from each
 *     row; at the row's ends it gathers the samples through the border. The
 *     staged range starts at the aligned word A <= s0 - rC; d = s0 - rC - A.
 *  2. blocks (h_blocks): in padded coordinates p = u - d, channel c's
 *     samples of block b are p = b K C + c + j C (j = 0..K-1). A thread per
 *     (group, block, channel) computes the prefix extremes into P, another
 *     the suffix extremes into S: K steps of one word each. Consecutive
 *     threads take consecutive (block, channel) pairs, K C words apart, with
 *     (K odd) no two in one bank for C = 1, 2 or 4.
 *  3. windows (h_window): sample s0 + i of each row is the window p = i ..
 *     i + (K-1) C: ext(S[i], P[i + (K-1) C]) (for K <= H_DIRECT, without
 *     step 2: the K words of X); a thread takes RPW consecutive samples
 *     (column word q) and transposes them back to one word a row.
 *     morph_hrow_kernel stores each word (4-byte stores, coalesced along
 *     the row); morph_fused_kernel hands them to its vertical pass.
 * Shared words sit at sw(u) = u + u/32, a spare word after every 32, so
 * that threads reading RPW consecutive words (steps 1 and 3) hit distinct
 * banks. */
#define H_THREADS 256
#define H_GROUPS 2       /* row groups a block: 8 rows of 8-bit samples, 4 of 16-bit */
#define H_SEG_BYTES 1024 /* bytes of each row a block takes, about: a word a thread */
/* Windows up to this width skip step 2: their K words of X directly cost
 * fewer shared-memory accesses than the blocks' four a word. */
#define H_DIRECT 5

template <typename T> __host__ __device__ constexpr int h_seg(int C)
{
    return (4 / (int)sizeof(T)) * (H_SEG_BYTES / 4 / C) * C;
}

/* Words of a staged segment of seg samples with K-wide windows (RPW
 * samples a word): the padded samples and up to RPW - 1 before them. */
__host__ __device__ __forceinline__ int h_words(int seg, int K, int C, int rpw)
{
    const int np = seg + (K - 1) * C;
    return (np + 2 * (rpw - 1)) / rpw * rpw;
}

/* Shared words an array of a group takes: the words and their spares. */
__host__ __device__ __forceinline__ int h_stride(int nu)
{
    return nu + nu / 32 + 1;
}

/* Shared bytes of X, S and P. */
template <typename T, int C> __host__ __device__ __forceinline__ size_t h_smem_bytes(int K)
{
    return (size_t)3 * H_GROUPS * h_stride(h_words(h_seg<T>(C), K, C, 4 / (int)sizeof(T))) * 4;
}

__device__ __forceinline__ int sw(int u)
{
    return u + (u >> 5);
}

__device__ __forceinline__ int floor_div(int a, int b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Transposes RPW words of RPW samples (rows -> columns; its own inverse). */
template <typename T> __device__ __forceinline__ void transpose(unsigned *v)
{
    if constexpr (sizeof(T) == 1) {
        const unsigned a = __byte_perm(v[0], v[1], 0x5140), b = __byte_perm(v[0], v[1], 0x7362);
        const unsigned c = __byte_perm(v[2], v[3], 0x5140), e = __byte_perm(v[2], v[3], 0x7362);
        v[0] = __byte_perm(a, c, 0x5410);
        v[1] = __byte_perm(a, c, 0x7632);
        v[2] = __byte_perm(b, e, 0x5410);
        v[3] = __byte_perm(b, e, 0x7632);
    } else {
        const unsigned a = __byte_perm(v[0], v[1], 0x5410), b = __byte_perm(v[0], v[1], 0x7632);
        v[0] = a;
        v[1] = b;
    }
}

/* Samples base .. base + RPW - 1 (any, through the border) of a row of w
 * pixels of C channels, packed in a word. */
template <typename T, int C>
__device__ __forceinline__ unsigned gather(const unsigned char *__restrict__ row, int base, int w,
                                           gf_border b)
{
    constexpr int RPW = 4 / (int)sizeof(T);
    unsigned v = 0;
#pragma unroll
    for (int e = 0; e < RPW; e++) {
        const int i = base + e, px = floor_div(i, C), c = i - px * C;
        const int bx = gf_border_index(px, w, b.mode);
        const unsigned s = bx < 0 ? (unsigned)b.value : ((const T *)row)[(size_t)bx * C + c];
        v |= s << (8 * (int)sizeof(T) * e);
    }
    return v;
}

/* A block's row segment: K, the row's n samples, the padded samples NP,
 * the staged words NU (NS with spares), the segment's first sample s0 and
 * the staging offset d. */
typedef struct h_geom {
    int K, n, NP, NU, NS, s0, A, d;
} h_geom;

template <typename T, int C> __device__ __forceinline__ h_geom h_geom_of(int K, int w, int seg)
{
    constexpr int RPW = 4 / (int)sizeof(T), SEG = h_seg<T>(C);
    h_geom G;
    G.K = K;
    G.n = w * C;
    G.NP = SEG + (K - 1) * C;
    G.NU = h_words(SEG, K, C, RPW);
    G.NS = h_stride(G.NU);
    G.s0 = seg * SEG;
    const int start = G.s0 - (K / 2) * C;
    G.A = floor_div(start, RPW) * RPW;
    G.d = start - G.A;
    return G;
}

/* Step 1, the load of staging task i (group g, word quad q): row k of the
 * group's word of samples A + q RPW ..., from image row row_of(g, k) (-1:
 * the constant border's row). */
template <typename T, int C, class Rows>
__device__ __forceinline__ void h_load(const h_geom &G, int i, const unsigned char *__restrict__ in,
                                       size_t ipitch, int w, gf_border b, const Rows &row_of,
                                       unsigned *v)
{
    constexpr int RPW = 4 / (int)sizeof(T);
    const int g = i / (G.NU / RPW), base = G.A + i % (G.NU / RPW) * RPW;
#pragma unroll
    for (int k = 0; k < RPW; k++) {
        const int y = row_of(g, k);
        const unsigned char *row = in + (size_t)max(y, 0) * ipitch;
        v[k] = y < 0 ? splat<T>(b.value)
               : base >= 0 && base + RPW <= G.n
                   ? __ldg((const unsigned *)(row + (size_t)base * sizeof(T)))
                   : gather<T, C>(row, base, w, b);
    }
}

/* Step 1, the store: task i's words, transposed, into X. */
template <typename T>
__device__ __forceinline__ void h_store(const h_geom &G, unsigned *X, int i, unsigned *v)
{
    constexpr int RPW = 4 / (int)sizeof(T);
    const int g = i / (G.NU / RPW), q = i % (G.NU / RPW);
    transpose<T>(v);
#pragma unroll
    for (int k = 0; k < RPW; k++)
        X[g * G.NS + sw(q * RPW + k)] = v[k];
}

/* Step 2: the prefix extremes of every block into P, the suffix extremes
 * into S, all the block's threads. */
template <typename T, int C, bool MAX>
__device__ __forceinline__ void h_blocks(const h_geom &G, const unsigned *X, unsigned *S,
                                         unsigned *P)
{
    const int K = G.K, KC = K * C, nb = (G.NP + KC - 1) / KC, ntask = H_GROUPS * nb * C;
    for (int t = threadIdx.x; t < 2 * ntask; t += H_THREADS) {
        const bool suffix = t >= ntask;
        const int tt = suffix ? t - ntask : t, g = tt / (nb * C), bc = tt % (nb * C);
        const int p0 = bc / C * KC + bc % C;
        if (p0 >= G.NP)
            continue;
        const int len = min(K, (G.NP - p0 + C - 1) / C), u0 = p0 + G.d;
        const unsigned *x = X + g * G.NS;
        unsigned *o = (suffix ? S : P) + g * G.NS;
        if (!suffix) {
            unsigned v = x[sw(u0)];
            o[sw(u0)] = v;
            int j = 1;
            for (; j + 3 < len; j += 4) { /* the loads first, then the chain */
                const unsigned a0 = x[sw(u0 + j * C)], a1 = x[sw(u0 + (j + 1) * C)],
                               a2 = x[sw(u0 + (j + 2) * C)], a3 = x[sw(u0 + (j + 3) * C)];
                v = vext<T, MAX>(v, a0);
                o[sw(u0 + j * C)] = v;
                v = vext<T, MAX>(v, a1);
                o[sw(u0 + (j + 1) * C)] = v;
                v = vext<T, MAX>(v, a2);
                o[sw(u0 + (j + 2) * C)] = v;
                v = vext<T, MAX>(v, a3);
                o[sw(u0 + (j + 3) * C)] = v;
            }
            for (; j < len; j++) {
                v = vext<T, MAX>(v, x[sw(u0 + j * C)]);
                o[sw(u0 + j * C)] = v;
            }
        } else {
            int j = len - 1;
            unsigned v = x[sw(u0 + j * C)];
            o[sw(u0 + j * C)] = v;
            j--;
            for (; j >= 3; j -= 4) {
                const unsigned a0 = x[sw(u0 + j * C)], a1 = x[sw(u0 + (j - 1) * C)],
                               a2 = x[sw(u0 + (j - 2) * C)], a3 = x[sw(u0 + (j - 3) * C)];
                v = vext<T, MAX>(v, a0);
                o[sw(u0 + j * C)] = v;
                v = vext<T, MAX>(v, a1);
                o[sw(u0 + (j - 1) * C)] = v;
                v = vext<T, MAX>(v, a2);
                o[sw(u0 + (j - 2) * C)] = v;
                v = vext<T, MAX>(v, a3);
                o[sw(u0 + (j - 3) * C)] = v;
            }
            for (; j >= 0; j--) {
                v = vext<T, MAX>(v, x[sw(u0 + j * C)]);
                o[sw(u0 + j * C)] = v;
            }
        }
    }
}

/* Step 3 for K <= H_DIRECT: the window's K words of X directly. */
template <typename T, int C, bool MAX, int K>
__device__ __forceinline__ void h_direct(const h_geom &G, const unsigned *X, int g, int q,
                                         unsigned *v)
{
    constexpr int RPW = 4 / (int)sizeof(T);
    const unsigned *x = X + g * G.NS;
    const int u0 = q * RPW + G.d;
#pragma unroll
    for (int k = 0; k < RPW; k++) {
        unsigned m = x[sw(u0 + k)];
#pragma unroll
        for (int j = 1; j < K; j++)
            m = vext<T, MAX>(m, x[sw(u0 + k + j * C)]);
        v[k] = m;
    }
}

/* Step 3: column word q (samples s0 + q RPW ...) of group g's rows, one
 * word a row, into v: from S and P, or for K <= H_DIRECT from X. */
template <typename T, int C, bool MAX>
__device__ __forceinline__ void h_window(const h_geom &G, const unsigned *X, const unsigned *S,
                                         const unsigned *P, int g, int q, unsigned *v)
{
    constexpr int RPW = 4 / (int)sizeof(T);
    static_assert(H_DIRECT == 5, "the direct widths below");
    if (G.K == 1) {
        h_direct<T, C, MAX, 1>(G, X, g, q, v);
    } else if (G.K == 3) {
        h_direct<T, C, MAX, 3>(G, X, g, q, v);
    } else if (G.K == 5) {
        h_direct<T, C, MAX, 5>(G, X, g, q, v);
    } else {
#pragma unroll
        for (int k = 0; k < RPW; k++) {
            const int u = q * RPW + k + G.d;
            v[k] = vext<T, MAX>(S[g * G.NS + sw(u)], P[g * G.NS + sw(u + (G.K - 1) * C)]);
        }
    }
    transpose<T>(v);
}

/* A word of samples s .. s + RPW - 1 into row (those below n). */
template <typename T>
__device__ __forceinline__ void store_word(unsigned char *__restrict__ row, int s, int n,
                                           unsigned v)
{
    constexpr int RPW = 4 / (int)sizeof(T);
    if (s + RPW <= n) {
        *(unsigned *)(row + (size_t)s * sizeof(T)) = v;
    } else {
        for (int e = 0; s + e < n; e++)
            ((T *)row)[s + e] = (T)(v >> (8 * (int)sizeof(T) * e));
    }
}

template <typename T, int C, bool MAX>
__global__ void __launch_bounds__(H_THREADS)
    morph_hrow_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int w,
                      int h, size_t ipitch, size_t opitch, gf_border b, int K)
{
    constexpr int RPW = 4 / (int)sizeof(T), SEG = h_seg<T>(C), ROWS = RPW * H_GROUPS;
    extern __shared__ __align__(16) unsigned h_smem[];
    const h_geom G = h_geom_of<T, C>(K, w, blockIdx.x);
    unsigned *X = h_smem, *S = X + H_GROUPS * G.NS, *P = S + H_GROUPS * G.NS;
    const int y0 = blockIdx.y * ROWS;
    /* rows past the end load the last row; their results are dropped */
    const auto row_of = [&](int g, int k) { return min(y0 + g * RPW + k, h - 1); };

    for (int i = threadIdx.x; i < H_GROUPS * (G.NU / RPW); i += H_THREADS) {
        unsigned v[RPW];
        h_load<T, C>(G, i, in, ipitch, w, b, row_of, v);
        h_store<T>(G, X, i, v);
    }
    __syncthreads();
    if (K > H_DIRECT) {
        h_blocks<T, C, MAX>(G, X, S, P);
        __syncthreads();
    }
    for (int i = threadIdx.x; i < H_GROUPS * (SEG / RPW); i += H_THREADS) {
        const int g = i / (SEG / RPW), q = i % (SEG / RPW), s = G.s0 + q * RPW;
        if (s >= G.n)
            continue;
        unsigned v[RPW];
        h_window<T, C, MAX>(G, X, S, P, g, q, v);
#pragma unroll
        for (int k = 0; k < RPW; k++) {
            const int y = y0 + g * RPW + k;
            if (y >= h)
                break;
            store_word<T>(out + (size_t)y * opitch, s, G.n, v[k]);
        }
    }
}

/* ---- vanherk, the vertical pass.
 *
 * The pass treats a row as bytes: a column's window is its own samples, so
 * the layout does not matter. A thread takes a 16-byte column chunk (one
 * uint4; the row's last chunk may be shorter) of a band of rows [y0, y1)
 * and walks down the input rows y0 - r .. y1 + r - 1 (through the border)
 * in blocks of K rows, fetching V_PF rows ahead into registers. For each
 * row t (offset j in its block) it takes the block's prefix P = ext(P,
 * row), keeps the raw row in its slot j of shared memory (K slots a
 * thread, slot-major: a warp's accesses are consecutive), and writes the
 * output row whose window ends at t: ext(S[j + 1], P), S the previous
 * block's suffix extremes, still in slot j + 1; at j = K - 1 the window is
 * the block itself (P), and the thread turns its slots into the block's
 * suffix extremes S[K-1..1] (v_step). No thread reads another's slots, so
 * there is no barrier. Bands are about V_ROWS rows, a whole number of
 * blocks, fewer where the grid would not fill the device. */
#define V_THREADS 64
#define V_PF 8     /* rows fetched ahead */
#define V_ROWS 256 /* a band's rows, at most about */

/* One row of the vertical walk (the word type W: unsigned or uint4): row
 * t of the input rows, j its offset in its block of K, P the block's
 * prefix, slot[i * stride] the thread's slot i; store(t, v) writes the
 * output row whose window ends at row t. */
template <typename T, bool MAX, typename W, class Store>
__device__ __forceinline__ void v_step(W row, int t, int K, int &j, W &P, W *slot, int stride,
                                       const Store &store)
{
    P = j == 0 ? row : vext<T, MAX>(P, row);
    if (j == K - 1) {
        store(t, P); /* the window is this block */
        W s = row;
        slot[j * stride] = s;
        int i = K - 2;
        for (; i >= 4; i -= 4) { /* the loads first, then the chain */
            const W a0 = slot[i * stride], a1 = slot[(i - 1) * stride],
                    a2 = slot[(i - 2) * stride], a3 = slot[(i - 3) * stride];
            s = vext<T, MAX>(a0, s);
            slot[i * stride] = s;
            s = vext<T, MAX>(a1, s);
            slot[(i - 1) * stride] = s;
            s = vext<T, MAX>(a2, s);
            slot[(i - 2) * stride] = s;
            s = vext<T, MAX>(a3, s);
            slot[(i - 3) * stride] = s;
        }
        for (; i >= 1; i--) {
            s = vext<T, MAX>(slot[i * stride], s);
            slot[i * stride] = s;
        }
        j = 0;
    } else {
        if (t >= K - 1)
            store(t, vext<T, MAX>(slot[(j + 1) * stride], P));
        slot[j * stride] = row;
        j++;
    }
}

/* The 16 bytes (or the first `valid`) at p, and storing them. */
__device__ __forceinline__ uint4 load_chunk(const unsigned char *__restrict__ p, int valid)
{
    if (valid == 16)
        return __ldg((const uint4 *)p);
    unsigned v[4] = {0, 0, 0, 0};
    for (int e = 0; e < valid; e++)
        v[e / 4] |= (unsigned)p[e] << (8 * (e % 4));
    return make_uint4(v[0], v[1], v[2], v[3]);
}

__device__ __forceinline__ void store_chunk(unsigned char *__restrict__ p, uint4 x, int valid)
{
    if (valid == 16) {
        *(uint4 *)p = x;
        return;
    }
    const unsigned v[4] = {x.x, x.y, x.z, x.w};
    for (int e = 0; e < valid; e++)
        p[e] = (unsigned char)(v[e / 4] >> (8 * (e % 4)));
}

template <typename T, bool MAX>
__global__ void __launch_bounds__(V_THREADS)
    morph_vcol_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                      int h, int nbytes, size_t ipitch, size_t opitch, gf_border b, int K,
                      int band)
{
    extern __shared__ __align__(16) uint4 v_slots[];
    const int tid = threadIdx.x, x = (blockIdx.x * V_THREADS + tid) * 16;

    if (x >= nbytes)
        return; /* no barrier follows */
    const int valid = min(16, nbytes - x), r = K / 2;
    const int y0 = blockIdx.y * band, nt = min(y0 + band, h) - y0 + K - 1;
    const unsigned c = splat<T>(b.value);
    const uint4 konst = make_uint4(c, c, c, c);
    const auto fetch = [&](int t) {
        const int yy = gf_border_index(y0 - r + t, h, b.mode);
        return yy < 0 ? konst : load_chunk(in + (size_t)yy * ipitch + x, valid);
    };
    const auto store = [&](int t, uint4 v) {
        store_chunk(out + (size_t)(y0 + t - (K - 1)) * opitch + x, v, valid);
    };
    uint4 ahead[V_PF], P = konst;
    int j = 0;

#pragma unroll
    for (int k = 0; k < V_PF; k++)
        if (k < nt)
            ahead[k] = fetch(k);
    for (int t0 = 0; t0 < nt; t0 += V_PF) {
#pragma unroll
        for (int k = 0; k < V_PF; k++) {
            const int t = t0 + k;
            if (t >= nt)
                break;
            const uint4 row = ahead[k];
            if (t + V_PF < nt)
                ahead[k] = fetch(t + V_PF);
            v_step<T, MAX>(row, t, K, j, P, v_slots + tid, V_THREADS, store);
        }
    }
}

/* ---- fused: both passes in one kernel, no scratch image.
 *
 * A block takes the horizontal pass's segment (h_seg samples, a column
 * word a thread) of a band of output rows [y0, y1), and walks down the
 * padded image's rows y0 - ry .. y1 + ry - 1, H_GROUPS * RPW rows (8 of
 * 8-bit samples, 4 of 16-bit) at a time: steps 1-3 of the horizontal pass
 * (rows outside the image through the border: a constant row's minima are
 * the constant, a replicated or reflected row's those of its image row)
 * leave each thread its column word of each row's minima, which it feeds
 * to the vertical walk (v_step, its slots kh words in shared memory). The
 * next rows' words are loaded before the current rows' steps 2 and 3, so
 * their latency hides behind them. The horizontal minima never leave the
 * block: the image is read once (and a band's ky - 1 halo rows again) and
 * written once. Bands are about F_ROWS rows, fewer where the grid would not
 * fill the device. */
#define F_PRE 3    /* staging tasks a thread: H_GROUPS NU / RPW <= F_PRE H_THREADS */
#define F_ROWS 256 /* a band's rows, at most */
/* Two blocks an SM: the 8-bit kernels then take 96 registers and spill
 * none (ptxas's own choice for one block, 80, spilled 16-24 bytes). */
#define F_MIN_BLOCKS 2

template <typename T, int C, bool MAX>
__global__ void __launch_bounds__(H_THREADS, F_MIN_BLOCKS)
    morph_fused_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                       int w, int h, size_t ipitch, size_t opitch, gf_border b, int kw, int kh,
                       int band)
{
    constexpr int RPW = 4 / (int)sizeof(T), SEG = h_seg<T>(C), ROWS = RPW * H_GROUPS;
    extern __shared__ __align__(16) unsigned f_smem[];
    const h_geom G = h_geom_of<T, C>(kw, w, blockIdx.x);
    unsigned *X = f_smem, *S = X + H_GROUPS * G.NS, *P = S + H_GROUPS * G.NS;
    unsigned *slot = P + H_GROUPS * G.NS + threadIdx.x; /* slot j at slot[j * H_THREADS] */
    const int tid = threadIdx.x, y0 = blockIdx.y * band, nt = min(y0 + band, h) - y0 + kh - 1;
    const int ntask = H_GROUPS * (G.NU / RPW), s = G.s0 + tid * RPW;
    const bool mine = tid < SEG / RPW && s < G.n; /* a column word of the row */
    int yv = y0 - kh / 2; /* the padded image's row of the next rows' first */
    const auto row_of = [&](int g, int k) {
        return gf_border_index(yv + g * RPW + k, h, b.mode);
    };
    const auto store = [&](int t, unsigned v) {
        store_word<T>(out + (size_t)(y0 + t - (kh - 1)) * opitch, s, G.n, v);
    };
    unsigned pre[F_PRE][RPW], Pv = 0;
    int j = 0;

#pragma unroll
    for (int m = 0; m < F_PRE; m++)
        if (tid + m * H_THREADS < ntask)
            h_load<T, C>(G, tid + m * H_THREADS, in, ipitch, w, b, row_of, pre[m]);
    for (int t0 = 0; t0 < nt; t0 += ROWS) {
#pragma unroll
        for (int m = 0; m < F_PRE; m++)
            if (tid + m * H_THREADS < ntask)
                h_store<T>(G, X, tid + m * H_THREADS, pre[m]);
        __syncthreads();
        yv += ROWS;
        if (t0 + ROWS < nt) {
#pragma unroll
            for (int m = 0; m < F_PRE; m++)
                if (tid + m * H_THREADS < ntask)
                    h_load<T, C>(G, tid + m * H_THREADS, in, ipitch, w, b, row_of, pre[m]);
        }
        if (kw > H_DIRECT) {
            h_blocks<T, C, MAX>(G, X, S, P);
            __syncthreads();
        }
        if (mine) {
#pragma unroll
            for (int g = 0; g < H_GROUPS; g++) {
                unsigned v[RPW];
                h_window<T, C, MAX>(G, X, S, P, g, tid, v);
#pragma unroll
                for (int k = 0; k < RPW; k++)
                    if (t0 + g * RPW + k < nt)
                        v_step<T, MAX>(v[k], t0 + g * RPW + k, kh, j, Pv, slot, H_THREADS,
                                       store);
            }
        }
        if (kw <= H_DIRECT)
            __syncthreads(); /* X read; the next rows' store may follow */
    }
}

/* ---- The launchers. */

/* Blocks of `kernel` (threads, smem bytes) resident on the whole device at
 * once, into *blocks. */
template <typename K>
static int resident_blocks(K kernel, int threads, size_t smem, long *blocks)
{
    int sms, per_sm = 1, rc;

    if ((rc = gf_cuda_sms(&sms)))
        return rc;
    GF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    *blocks = (long)sms * max(per_sm, 1);
    return 0;
}

/* One horizontal pass of K (odd, >= 3) over src -> dst. */
template <typename T, int C, bool MAX>
static int h_pass(const gf_dimage *src, gf_dimage *dst, int K, gf_border b, cudaStream_t st)
{
    constexpr int RPW = 4 / (int)sizeof(T), SEG = h_seg<T>(C);
    const int w = src->width, h = src->height, n = w * C;
    const size_t smem = h_smem_bytes<T, C>(K);
    int rc;

    if ((rc = st_allow_smem(morph_hrow_kernel<T, C, MAX>, smem)))
        return rc;
    dim3 grid((n + SEG - 1) / SEG, (h + RPW * H_GROUPS - 1) / (RPW * H_GROUPS));
    morph_hrow_kernel<T, C, MAX><<<grid, H_THREADS, smem, st>>>(src->data, dst->data, w, h,
                                                               src->pitch, dst->pitch, b, K);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* One vertical pass of K (odd, >= 3) over src -> dst. */
template <typename T, bool MAX>
static int v_pass(const gf_dimage *src, gf_dimage *dst, int K, gf_border b, cudaStream_t st)
{
    const int h = src->height, nbytes = src->width * src->channels * (int)sizeof(T);
    const size_t smem = (size_t)K * V_THREADS * sizeof(uint4);
    const int cols = (nbytes + 16 * V_THREADS - 1) / (16 * V_THREADS);
    int rc, nb = max(1, (V_ROWS + K / 2) / K);
    long resident;

    if ((rc = st_allow_smem(morph_vcol_kernel<T, MAX>, smem)) ||
        (rc = resident_blocks(morph_vcol_kernel<T, MAX>, V_THREADS, smem, &resident)))
        return rc;
    /* shorter bands (more halo rows read) until the grid fills the device */
    while (nb > 1 && (long)cols * ((h + nb * K - 1) / (nb * K)) < resident)
        nb--;
    dim3 grid(cols, (h + nb * K - 1) / (nb * K));
    morph_vcol_kernel<T, MAX><<<grid, V_THREADS, smem, st>>>(src->data, dst->data, h, nbytes,
                                                            src->pitch, dst->pitch, b, K, nb * K);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* Both passes (kw, kh odd, >= 3) in one kernel over src -> dst. */
template <typename T, int C, bool MAX>
static int fused_pass(const gf_dimage *src, gf_dimage *dst, int kw, int kh, gf_border b,
                      cudaStream_t st)
{
    constexpr int RPW = 4 / (int)sizeof(T), SEG = h_seg<T>(C), ROWS = RPW * H_GROUPS;
    const int w = src->width, h = src->height, n = w * C, strips = (n + SEG - 1) / SEG;
    const size_t smem = h_smem_bytes<T, C>(kw) + (size_t)kh * H_THREADS * 4;
    const int min_band = max(ROWS, (kh + 1) / 2);
    int rc, band = F_ROWS;
    long resident;

    if (H_GROUPS * h_words(SEG, kw, C, RPW) / RPW > F_PRE * H_THREADS)
        return gf_err(GF_EINTERNAL, NULL, "morph: %dx%d: staging exceeds F_PRE", kw, kh);
    if ((rc = st_allow_smem(morph_fused_kernel<T, C, MAX>, smem)) ||
        (rc = resident_blocks(morph_fused_kernel<T, C, MAX>, H_THREADS, smem, &resident)))
        return rc;
    /* shorter bands (more halo rows) until the grid fills the device */
    while (band - ROWS >= min_band && (long)strips * ((h + band - 1) / band) < resident)
        band -= ROWS;
    dim3 grid(strips, (h + band - 1) / band);
    morph_fused_kernel<T, C, MAX><<<grid, H_THREADS, smem, st>>>(
        src->data, dst->data, w, h, src->pitch, dst->pitch, b, kw, kh, band);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* ---- packed: the walker's op for a (2R + 1) square of T samples, C a
 * pixel: prep takes each of the lane's 4 words' extreme with the words R
 * pixels either side (funnel shifts of the row's words), apply the
 * extreme of the window's 2R + 1 such rows. */
template <typename T, int C, int R, bool MAX> struct morph_op {
    static constexpr int PB = C * (int)sizeof(T), HW = pk_halo_words(R, PB);
    struct row_t {
        unsigned v[4];
    };
    __device__ __forceinline__ row_t prep(const unsigned (&wd)[4 + 2 * HW]) const
    {
        row_t r;
#pragma unroll
        for (int g = 0; g < 4; g++) {
            unsigned v = wd[HW + g];
#pragma unroll
            for (int d = 1; d <= R; d++)
                v = vext<T, MAX>(vext<T, MAX>(v, pk_bytes_at(wd, 4 * (HW + g) - d * PB)),
                                 pk_bytes_at(wd, 4 * (HW + g) + d * PB));
            r.v[g] = v;
        }
        return r;
    }
    __device__ __forceinline__ uint4 apply(const row_t (&ring)[2 * R + 1], int first) const
    {
        row_t m = ring[first % (2 * R + 1)];
#pragma unroll
        for (int k = 1; k <= 2 * R; k++)
#pragma unroll
            for (int g = 0; g < 4; g++)
                m.v[g] = vext<T, MAX>(m.v[g], ring[(first + k) % (2 * R + 1)].v[g]);
        return make_uint4(m.v[0], m.v[1], m.v[2], m.v[3]);
    }
};

/* Whether the packed pass takes p's window. */
static bool packed_takes(const gf_morph_params *p)
{
    return p->kw == p->kh && (p->kw == 3 || p->kw == 5);
}

template <typename T, int C, bool MAX>
static int packed_pass(const gf_dimage *src, gf_dimage *dst, int k, gf_border b, cudaStream_t st)
{
    const gf_shape sh = gf_dimage_shape_of(src);
    int rc;

    if ((rc = gf_dimage_shape(dst, &sh)))
        return rc;
    if (k == 3)
        return pk_launch<T, C, 1>(morph_op<T, C, 1, MAX>(), src, dst, b, st);
    return pk_launch<T, C, 2>(morph_op<T, C, 2, MAX>(), src, dst, b, st);
}

/* One pass of a chain: horizontal, vertical, both fused, or 2-D (global);
 * minimum or maximum. */
enum { PASS_H, PASS_V, PASS_FUSED, PASS_2D, PASS_PACKED };
typedef struct morph_pass {
    int kind, max;
} morph_pass;

template <typename T, int C, bool MAX>
static int run_pass(int kind, const gf_morph_params *p, const gf_dimage *src, gf_dimage *dst,
                    cudaStream_t st)
{
    switch (kind) {
    case PASS_2D:
        return st_launch_2d_as<ST_GLOBAL, T, C>(morph_rule_2d<MAX>{p->kw / 2, p->kh / 2}, src, dst,
                                  p->border, st);
    case PASS_H:
        return h_pass<T, C, MAX>(src, dst, p->kw, p->border, st);
    case PASS_V:
        return v_pass<T, MAX>(src, dst, p->kh, p->border, st);
    case PASS_PACKED:
        return packed_pass<T, C, MAX>(src, dst, p->kw, p->border, st);
    default:
        return fused_pass<T, C, MAX>(src, dst, p->kw, p->kh, p->border, st);
    }
}

enum { MORPH_GLOBAL, MORPH_VANHERK, MORPH_FUSED, MORPH_PACKED };

static int morph_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                      void *stream)
{
    const gf_morph_params *p = GF_CPARAMS(s, gf_morph_params);
    const gf_morph_op op = gf_morph_op_of(s);
    const gf_shape sh = gf_dimage_shape_of(in);
    cudaStream_t st = (cudaStream_t)stream;
    const int ops[2] = {op == GF_MORPH_DILATE || op == GF_MORPH_CLOSE,
                        op == GF_MORPH_OPEN ? 1 : op == GF_MORPH_CLOSE ? 0 : -1};
    morph_pass pass[4];
    gf_dimage tmp = {0, 0, 0, 0, 0, 0, NULL};
    int n = 0, rc;

    if (p->kw < 1 || p->kh < 1 || p->kw > GF_MORPH_MAX_SIDE || p->kh > GF_MORPH_MAX_SIDE ||
        p->kw % 2 == 0 || p->kh % 2 == 0 || in->height > 65535 || in->width > 65535)
        return gf_err(GF_EINTERNAL, NULL, "morph: bad arguments (window %dx%d)", p->kw, p->kh);
    if ((rc = gf_dimage_shape(out, &sh)))
        return rc;
    for (int i = 0; i < 2 && ops[i] >= 0; i++) {
        if (variant == MORPH_GLOBAL && (p->kw > 1 || p->kh > 1))
            pass[n++] = morph_pass{PASS_2D, ops[i]};
        else if (variant == MORPH_PACKED && packed_takes(p))
            pass[n++] = morph_pass{PASS_PACKED, ops[i]};
        else if (variant == MORPH_FUSED && p->kw > 1 && p->kh > 1)
            pass[n++] = morph_pass{PASS_FUSED, ops[i]};
        else if (variant != MORPH_GLOBAL) {
            if (p->kw > 1)
                pass[n++] = morph_pass{PASS_H, ops[i]};
            if (p->kh > 1)
                pass[n++] = morph_pass{PASS_V, ops[i]};
        }
    }
    if (n == 0) { /* 1x1 */
        GF_CUDA_CHECK(cudaMemcpy2DAsync(out->data, out->pitch, in->data, in->pitch,
                                        (size_t)in->width * in->channels * (in->bits / 8),
                                        (size_t)in->height, cudaMemcpyDeviceToDevice, st));
        return 0;
    }
    if (n > 1 && (rc = st_scratch(in, &tmp, st)))
        return rc;
    /* the last pass writes out, the one before it tmp, and so on back */
    const gf_dimage *src = in;
    for (int i = 0; i < n && rc == 0; i++) {
        gf_dimage *dst = (n - 1 - i) % 2 == 0 ? out : &tmp;
#define RUN_PASS(T, C)                                                                        \
    rc = pass[i].max ? run_pass<T, C, true>(pass[i].kind, p, src, dst, st)                    \
                     : run_pass<T, C, false>(pass[i].kind, p, src, dst, st)
        GF_LAYOUT_SWITCH(in->channels, in->bits, RUN_PASS)
#undef RUN_PASS
        src = dst;
    }
    if (n > 1) {
        const int rc2 = st_scratch_free(&tmp, st);
        if (rc == 0)
            rc = rc2;
    }
    return rc;
}

extern "C" int gf_morph_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return morph_cuda(s, in, out, MORPH_GLOBAL, stream);
}

extern "C" int gf_morph_vanherk_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return morph_cuda(s, in, out, MORPH_VANHERK, stream);
}

extern "C" int gf_morph_fused_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    return morph_cuda(s, in, out, MORPH_FUSED, stream);
}

extern "C" int gf_morph_packed_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return morph_cuda(s, in, out, MORPH_PACKED, stream);
}
