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
 *
 * A minimum or maximum never mixes samples, so both passes work on packed
 * 32-bit words with the SIMD intrinsics __vminu4 / __vmaxu4 (four 8-bit
 * samples) and __vminu2 / __vmaxu2 (two 16-bit ones). Open and close run
 * one operation's passes after the other's, ping-ponging between out and
 * one scratch image (st_scratch), so that the last pass writes out. A side
 * of 1 skips its pass, and 1x1 copies. */
#include "check.h"
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

template <typename T, bool MAX> __device__ __forceinline__ uint4 vext4(uint4 a, uint4 b)
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
        for (int dy = -ry; dy <= ry; dy++)
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
 * segment of SEG samples of each row (h_seg: about H_SEG, a multiple of C
 * and of 4). Three steps, a barrier between each:
 *  1. stage: the padded samples [s0 - rC, s0 + SEG + rC) of the group's rows
 *     into X, word u holding sample u of each of the RPW rows (a 4x4 byte or
 *     2x2 half transpose of the rows' words by __byte_perm). Inside the row
 *     a thread loads one aligned word from each row; at the row's ends it
 *     gathers the samples through the border. The staged range starts at
 *     the aligned word A <= s0 - rC; d = s0 - rC - A.
 *  2. blocks: in padded coordinates p = u - d, channel c's samples of block
 *     b are p = b K C + c + j C (j = 0..K-1). A thread per (group, block,
 *     channel) computes the prefix extremes into P, another the suffix
 *     extremes into S: K steps of one word each. Consecutive threads take
 *     consecutive (block, channel) pairs, K C words apart, with (K odd) no
 *     two in one bank for C = 1, 2 or 4.
 *  3. out: sample s0 + i of each row is the window p = i .. i + (K-1) C:
 *     ext(S[i], P[i + (K-1) C]); a thread takes RPW consecutive samples,
 *     transposes them back to one word a row, and stores each word (4-byte
 *     stores, coalesced along the row).
 * Shared words sit at sw(u) = u + u/32, a spare word after every 32, so
 * that threads reading RPW consecutive words (steps 1 and 3) hit distinct
 * banks. */
#define H_THREADS 256
#define H_GROUPS 2 /* row groups a block: 8 rows of 8-bit samples, 4 of 16-bit */
#define H_SEG 1024 /* samples of each row a block takes, about */

__host__ __device__ constexpr int h_seg(int C)
{
    return 4 * (H_SEG / 4 / C) * C;
}

/* Words of a staged segment with K-wide windows (RPW samples a word). */
__host__ __device__ __forceinline__ int h_words(int seg, int K, int C, int rpw)
{
    const int np = seg + (K - 1) * C; /* padded samples */
    return (np + 2 * (rpw - 1)) / rpw * rpw;
}

/* Shared words an array of a group takes: the words and their spares. */
__host__ __device__ __forceinline__ int h_stride(int nu)
{
    return nu + nu / 32 + 1;
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

template <typename T, int C, bool MAX>
__global__ void __launch_bounds__(H_THREADS)
    morph_hrow_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out, int w,
                      int h, size_t ipitch, size_t opitch, gf_border b, int K)
{
    constexpr int RPW = 4 / (int)sizeof(T), SEG = h_seg(C), ROWS = RPW * H_GROUPS;
    extern __shared__ __align__(16) unsigned h_smem[];
    const int n = w * C, NP = SEG + (K - 1) * C, NU = h_words(SEG, K, C, RPW), NS = h_stride(NU);
    unsigned *X = h_smem, *S = X + H_GROUPS * NS, *P = S + H_GROUPS * NS;
    const int s0 = blockIdx.x * SEG, y0 = blockIdx.y * ROWS, tid = threadIdx.x;
    const int start = s0 - (K / 2) * C, A = floor_div(start, RPW) * RPW, d = start - A;

    /* 1. stage */
    for (int i = tid; i < H_GROUPS * (NU / RPW); i += H_THREADS) {
        const int g = i / (NU / RPW), q = i % (NU / RPW), base = A + q * RPW;
        unsigned v[RPW];
#pragma unroll
        for (int k = 0; k < RPW; k++) {
            const int y = min(y0 + g * RPW + k, h - 1); /* rows past the end: discarded */
            const unsigned char *row = in + (size_t)y * ipitch;
            v[k] = base >= 0 && base + RPW <= n
                       ? __ldg((const unsigned *)(row + (size_t)base * sizeof(T)))
                       : gather<T, C>(row, base, w, b);
        }
        transpose<T>(v);
#pragma unroll
        for (int k = 0; k < RPW; k++)
            X[g * NS + sw(q * RPW + k)] = v[k];
    }
    __syncthreads();

    /* 2. prefix and suffix extremes of each block of K samples of a channel */
    const int KC = K * C, nb = (NP + KC - 1) / KC, ntask = H_GROUPS * nb * C;
    for (int t = tid; t < 2 * ntask; t += H_THREADS) {
        const bool suffix = t >= ntask;
        const int tt = suffix ? t - ntask : t, g = tt / (nb * C), bc = tt % (nb * C);
        const int p0 = bc / C * KC + bc % C;
        if (p0 >= NP)
            continue;
        const int len = min(K, (NP - p0 + C - 1) / C), u0 = p0 + d;
        const unsigned *x = X + g * NS;
        unsigned *o = (suffix ? S : P) + g * NS;
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
    __syncthreads();

    /* 3. each window from one suffix and one prefix; back to rows */
    for (int i = tid; i < H_GROUPS * (SEG / RPW); i += H_THREADS) {
        const int g = i / (SEG / RPW), q = i % (SEG / RPW), s = s0 + q * RPW;
        if (s >= n)
            continue;
        unsigned v[RPW];
#pragma unroll
        for (int k = 0; k < RPW; k++) {
            const int u = q * RPW + k + d;
            v[k] = vext<T, MAX>(S[g * NS + sw(u)], P[g * NS + sw(u + (K - 1) * C)]);
        }
        transpose<T>(v);
#pragma unroll
        for (int k = 0; k < RPW; k++) {
            const int y = y0 + g * RPW + k;
            if (y >= h)
                break;
            unsigned char *row = out + (size_t)y * opitch;
            if (s + RPW <= n) {
                *(unsigned *)(row + (size_t)s * sizeof(T)) = v[k];
            } else {
                for (int e = 0; s + e < n; e++)
                    ((T *)row)[s + e] = (T)(v[k] >> (8 * (int)sizeof(T) * e));
            }
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
 * thread, slot-major: a warp's 16-byte accesses are consecutive), and
 * writes the output row whose window ends at t: ext(S[j + 1], P), S the
 * previous block's suffix extremes, still in slot j + 1; at j = K - 1 the
 * window is the block itself (P), and the thread turns its slots into the
 * block's suffix extremes S[K-1..1]. No thread reads another's slots, so
 * there is no barrier. Bands are K * (a whole number of blocks) rows:
 * about V_ROWS, fewer where the grid would not fill the device. */
#define V_THREADS 64
#define V_PF 8      /* rows fetched ahead */
#define V_ROWS 256 /* a band's rows, at most about */

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
    const int y0 = blockIdx.y * band, y1 = min(y0 + band, h), nt = y1 - y0 + K - 1;
    const unsigned c = splat<T>(b.value);
    const uint4 konst = make_uint4(c, c, c, c);
    const auto fetch = [&](int t) {
        const int yy = gf_border_index(y0 - r + t, h, b.mode);
        return yy < 0 ? konst : load_chunk(in + (size_t)yy * ipitch + x, valid);
    };
    uint4 *slot = v_slots + tid; /* slot j at slot[j * V_THREADS] */
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
            P = j == 0 ? row : vext4<T, MAX>(P, row);
            /* the output row whose window ends at row t, once t >= K - 1 */
            unsigned char *o = out + (size_t)max(y0 + t - (K - 1), 0) * opitch + x;
            if (j == K - 1) {
                store_chunk(o, P, valid); /* the window is this block */
                uint4 s = row;
                slot[j * V_THREADS] = s;
                for (int i = K - 2; i >= 1; i--) {
                    s = vext4<T, MAX>(slot[i * V_THREADS], s);
                    slot[i * V_THREADS] = s;
                }
                j = 0;
            } else {
                if (t >= K - 1)
                    store_chunk(o, vext4<T, MAX>(slot[(j + 1) * V_THREADS], P), valid);
                slot[j * V_THREADS] = row;
                j++;
            }
        }
    }
}

/* ---- The launchers. */

/* One horizontal pass of K (odd, >= 3) over src -> dst. */
template <typename T, int C, bool MAX>
static int h_pass(const gf_dimage *src, gf_dimage *dst, int K, gf_border b, cudaStream_t st)
{
    constexpr int RPW = 4 / (int)sizeof(T), SEG = h_seg(C);
    const int w = src->width, h = src->height, n = w * C;
    const size_t smem = (size_t)3 * H_GROUPS * h_stride(h_words(SEG, K, C, RPW)) * 4;
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
    const int h = src->height,
              nbytes = src->width * src->channels * (int)sizeof(T);
    const size_t smem = (size_t)K * V_THREADS * sizeof(uint4);
    const int cols = (nbytes + 16 * V_THREADS - 1) / (16 * V_THREADS);
    int rc, sms, per_sm = 1, nb = max(1, (V_ROWS + K / 2) / K);

    if ((rc = st_allow_smem(morph_vcol_kernel<T, MAX>, smem)) || (rc = gf_cuda_sms(&sms)))
        return rc;
    GF_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, morph_vcol_kernel<T, MAX>, V_THREADS, smem));
    /* shorter bands (more halo rows read) until the grid fills the device */
    while (nb > 1 && (long)cols * ((h + nb * K - 1) / (nb * K)) < (long)sms * max(per_sm, 1))
        nb--;
    dim3 grid(cols, (h + nb * K - 1) / (nb * K));
    morph_vcol_kernel<T, MAX><<<grid, V_THREADS, smem, st>>>(src->data, dst->data, h, nbytes,
                                                            src->pitch, dst->pitch, b, K, nb * K);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}

/* One pass of a chain: horizontal, vertical or 2-D (global), min or max. */
enum { PASS_H, PASS_V, PASS_2D };
typedef struct morph_pass {
    int kind, max;
} morph_pass;

template <typename T, int C>
static int run_pass(morph_pass p, const gf_morph_params *prm, const gf_dimage *src,
                    gf_dimage *dst, cudaStream_t st)
{
    if (p.kind == PASS_2D)
        return p.max ? st_launch_2d<T, C>(ST_GLOBAL, morph_rule_2d<true>{prm->kw / 2, prm->kh / 2},
                                          src, dst, prm->border, st)
                     : st_launch_2d<T, C>(ST_GLOBAL, morph_rule_2d<false>{prm->kw / 2, prm->kh / 2},
                                          src, dst, prm->border, st);
    if (p.kind == PASS_H)
        return p.max ? h_pass<T, C, true>(src, dst, prm->kw, prm->border, st)
                     : h_pass<T, C, false>(src, dst, prm->kw, prm->border, st);
    return p.max ? v_pass<T, true>(src, dst, prm->kh, prm->border, st)
                 : v_pass<T, false>(src, dst, prm->kh, prm->border, st);
}

enum { MORPH_GLOBAL, MORPH_VANHERK };

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
        if (variant == MORPH_VANHERK && p->kw > 1)
            pass[n++] = morph_pass{PASS_H, ops[i]};
        if (variant == MORPH_VANHERK && p->kh > 1)
            pass[n++] = morph_pass{PASS_V, ops[i]};
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
#define RUN_PASS(T, C) rc = run_pass<T, C>(pass[i], p, src, dst, st)
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
