/* clahe.cu - contrast-limited adaptive histogram equalisation on the GPU:
 * OpenCV's CLAHE on each colour channel, alpha kept (the rule:
 * src/stages/clahe.h). Three steps, all on the device:
 *   1. each tile's histogram of the padded image (reflect101 at the right
 *      and bottom), per colour channel, into device memory;
 *   2. a block a tile and channel cuts the histogram, spreads the excess and
 *      makes the table (the running sum by a block scan);
 *   3. every sample through the four tables of its tile centres, in single
 *      precision with __fmul_rn / __fadd_rn (never a fused multiply-add, as
 *      OpenCV's x86-64 build), rounded half to even.
 * The `global` variant counts with one global atomic a sample and reads the
 * four tables of a sample from global memory. The `shared` variant counts
 * a band of a tile's rows in shared memory (a histogram per warp, runs of
 * equal gray bytes one atomic) and adds it to the tile's with one atomic a
 * non-zero bin, then packs, once, each segment's four tables (the pixels
 * between four tile centres read the same four) into one 32-bit word a
 * value, and its blocks stage the words of the segments they cover in
 * shared memory: one shared load a sample. On 16-bit images (65536 bins,
 * a colour channel's histograms at a time) the `shared` variant counts a
 * band of a tile in 16-bit counters packed two to a word of shared memory
 * (128 KiB a block: hist16_add), where tiles hold at least 65536 pixels,
 * and packs each segment's four tables into one 64-bit word a value, read
 * from global memory (one 8-byte load a sample), where those words take at
 * most QUADS16_MAX bytes; otherwise, and in the `global` variant, it counts
 * with global atomics and reads the four tables from global memory. */
#include <type_traits>

#include "check.h"
#include "hist.cuh"
#include "lut.cuh"

#include "../src/stages/clahe.h"

#define BINS8 256

/* Histograms. clahe_hist_global_kernel: a thread per pixel of the padded
 * image, 32x8 blocks. */
#define HG_BX 32
#define HG_BY 8

/* clahe_hist_shared_kernel: 8 warps; a block takes a band of a tile's
 * rows (about HS_BLOCKS_PER_SM blocks a multiprocessor in all), a warp a row
 * at a time in 16-byte loads. */
#define HS_THREADS 256
#define HS_WARPS (HS_THREADS / 32)
#define HS_BLOCKS_PER_SM 8

/* Interpolation: 16 bytes a thread (8 for 8-bit colour, whose 16 samples a
 * thread would spill registers), 32 x 8 threads a block; a block goes on
 * down INTERP_ROWS rows (4 steps), so that what it stages serves 16 KiB of
 * samples. The histograms' loads are 16 bytes too. */
#define VEC 16
#define INTERP_BX 32
#define INTERP_BY 8
#define INTERP_ROWS 32
/* Shared memory for the staged words of a block: 16 KiB, 16 segments of a
 * gray image; a block that covers more (tiles narrower than it) reads the
 * words from global memory. */
#define STAGE_WORDS 4096

/* 16-bit tiles' histograms in shared memory: a block of CH16_THREADS, 16-bit
 * counters two to a word; the packed 64-bit words of the 16-bit tables,
 * where they take at most QUADS16_MAX bytes (8 x 8 tiles: 42 MiB a
 * colour). */
#define CH16_THREADS 1024
#define CH16_WORDS 32768
#define QUADS16_MAX ((size_t)256 << 20)

/* The packed word of a value's four tables (clahe_pack_kernel). */
template <typename T>
using quad_of = typename std::conditional<sizeof(T) == 1, unsigned, uint2>::type;

/* ---- 1. Histograms ---- */

/* hist[(k * tiles + tile) * bins + v]: channel c0 + k's count of v in tile. */
template <typename T, int C>
__global__ void clahe_hist_global_kernel(const unsigned char *__restrict__ in, int w, int h,
                                         size_t pitch, gf_clahe_geom g, int c0, int nc,
                                         unsigned *__restrict__ hist)
{
    const int x = blockIdx.x * HG_BX + threadIdx.x, y = blockIdx.y * HG_BY + threadIdx.y;
    if (x >= g.gw * g.tw || y >= g.gh * g.th)
        return;
    const int sx = gf_border_index(x, w, GF_BORDER_REFLECT101);
    const int sy = gf_border_index(y, h, GF_BORDER_REFLECT101);
    const T *p = (const T *)(in + (size_t)sy * pitch) + (size_t)sx * C + c0;
    const size_t tile = (size_t)(y / g.th) * g.gw + x / g.tw, tiles = (size_t)g.gw * g.gh;
    for (int k = 0; k < nc; k++)
        atomicAdd(&hist[((size_t)k * tiles + tile) * g.bins + p[k]], 1u);
}

/* Adds the bytes of the 16 at v whose sample index s0 + j lies in [lo, hi)
 * to their channel's bins (channel (s0 + j) % C, the colours only). A gray
 * vector wholly inside goes in runs of equal bytes, one atomic a run. */
template <int C>
__device__ __forceinline__ void count_vector(unsigned *sh, uint4 v, int s0, int lo, int hi, int nc)
{
    if (C == 1 && s0 >= lo && s0 + VEC <= hi) {
        hist_count16(sh, v);
        return;
    }
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
    const int c0 = s0 % C;
#pragma unroll
    for (int j = 0; j < VEC; j++) {
        const int c = (c0 + j) % C;
        if (s0 + j >= lo && s0 + j < hi && c < nc)
            atomicAdd(&sh[c * BINS8 + ((words[j / 4] >> (8 * (j % 4))) & 0xff)], 1u);
    }
}

/* 8 bits: block (tx, ty * bands + b) counts band b (`rows` rows) of tile
 * (tx, ty), every colour channel, into a histogram per warp; a warp takes a
 * row at a time, the tile's samples inside the image in 16-byte loads (the
 * row's last bytes one at a time), then the padding's columns (reflect101)
 * a sample a lane. */
template <int C>
__global__ void __launch_bounds__(HS_THREADS, 4)
    clahe_hist_shared_kernel(const unsigned char *__restrict__ in, int w, int h, size_t pitch,
                             gf_clahe_geom g, int nc, int bands, int rows,
                             unsigned *__restrict__ hist)
{
    __shared__ unsigned sh[HS_WARPS][3 * BINS8];
    const int lane = threadIdx.x % 32, wp = threadIdx.x / 32;
    const int tx = blockIdx.x, ty = blockIdx.y / bands, band = blockIdx.y % bands;
    const int y0 = ty * g.th + band * rows;
    const int y1 = min(y0 + rows, (ty + 1) * g.th);
    const int x0 = tx * g.tw, x1 = x0 + g.tw, xe = max(min(x1, w), x0), xp = max(x0, w);
    const int lo = x0 * C, hi = xe * C; /* the samples inside the image */
    /* whole 16-byte vectors of the row's w C bytes, then the rest a byte a
     * lane (no load reaches past the row into the pitch's padding) */
    const int k0 = lo / VEC, k1 = min((hi + VEC - 1) / VEC, w * C / VEC), tail = max(lo, VEC * k1);
    unsigned *mine = sh[wp];

    for (int i = threadIdx.x; i < HS_WARPS * 3 * BINS8; i += HS_THREADS)
        (&sh[0][0])[i] = 0;
    __syncthreads();
    for (int y = y0 + wp; y < y1; y += HS_WARPS) {
        const unsigned char *row =
            in + (size_t)gf_border_index(y, h, GF_BORDER_REFLECT101) * pitch;
        for (int k = k0 + lane; k < k1; k += 32)
            count_vector<C>(mine, __ldg((const uint4 *)(row + (size_t)VEC * k)), VEC * k, lo, hi,
                            nc);
        for (int i = tail + lane; i < hi; i += 32)
            if (i % C < nc)
                atomicAdd(&mine[i % C * BINS8 + row[i]], 1u);
        for (int x = xp + lane; x < x1; x += 32) {
            const unsigned char *p =
                row + (size_t)gf_border_index(x, w, GF_BORDER_REFLECT101) * C;
            for (int c = 0; c < nc; c++)
                atomicAdd(&mine[c * BINS8 + p[c]], 1u);
        }
    }
    __syncthreads();
    const size_t tile = (size_t)ty * g.gw + tx, tiles = (size_t)g.gw * g.gh;
    for (int i = threadIdx.x; i < nc * BINS8; i += HS_THREADS) {
        unsigned sum = 0;
#pragma unroll
        for (int k = 0; k < HS_WARPS; k++)
            sum += sh[k][i];
        if (sum)
            atomicAdd(&hist[((size_t)(i / BINS8) * tiles + tile) * BINS8 + i % BINS8], sum);
    }
}

/* 16 bits (the shared variant): block (tx, ty * bands + b) counts colour
 * c's samples of band b (`rows` rows) of tile (tx, ty) of the padded image
 * (reflect101 at the right and bottom) in 16-bit counters, two to a word of
 * its CH16_WORDS words of dynamic shared memory (hist16_add), then adds them
 * to the tile's counts hist[tile * 65536 + v]. The band's rows of the tile
 * are laid end to end: a thread takes samples i, i + CH16_THREADS, ... */
template <int C>
__global__ void __launch_bounds__(CH16_THREADS)
    clahe_hist16_kernel(const unsigned char *__restrict__ in, int w, int h, size_t pitch,
                        gf_clahe_geom g, int c, int bands, int rows, unsigned *__restrict__ hist)
{
    extern __shared__ unsigned words[];
    const int tx = blockIdx.x, ty = blockIdx.y / bands, band = blockIdx.y % bands;
    const int y0 = ty * g.th + band * rows, y1 = min(y0 + rows, (ty + 1) * g.th);
    const int x0 = tx * g.tw, dy = CH16_THREADS / g.tw, dx = CH16_THREADS % g.tw;
    unsigned *tile = hist + ((size_t)ty * g.gw + tx) * 65536;

    for (int i = threadIdx.x; i < CH16_WORDS; i += CH16_THREADS)
        words[i] = 0;
    __syncthreads();
    for (int y = y0 + (int)threadIdx.x / g.tw, x = (int)threadIdx.x % g.tw; y < y1;) {
        const int sy = y < h ? y : gf_border_index(y, h, GF_BORDER_REFLECT101);
        const int px = x0 + x, sx = px < w ? px : gf_border_index(px, w, GF_BORDER_REFLECT101);
        const unsigned v = __ldg((const uint16_t *)(in + (size_t)sy * pitch) + (size_t)sx * C + c);
        hist16_add(words, CH16_WORDS, (int)v, 1u, tile, 0);
        x += dx, y += dy;
        if (x >= g.tw)
            x -= g.tw, y++;
    }
    __syncthreads();
    hist16_flush<CH16_THREADS>(words, CH16_WORDS, tile, 0);
}

/* ---- 2. Tables ---- */

/* Bin i of count n cut to the limit, with the batch and the residual's one
 * (bins 0, s, 2s, ..., r of them); n itself without a limit. */
__device__ __forceinline__ unsigned long long cut_bin(unsigned n, unsigned i, const gf_clahe_geom &g,
                                                      unsigned limit, unsigned long long batch,
                                                      unsigned r, unsigned s)
{
    return g.limit ? (unsigned long long)min(n, limit) + batch + (i % s == 0 && i / s < r) : n;
}

/* Block (tile, k): channel k's table of the tile, tables[(k * tiles +
 * tile) * bins + v], from its histogram at the same place of hist, by a
 * block of lut_shape<T>::THREADS threads, PER consecutive bins a thread:
 * the excess over the limit summed over the block; the sums of the cut
 * bins before each thread's by a block scan; then its running sum scaled,
 * bin by bin. */
template <typename T>
__global__ void __launch_bounds__(lut_shape<T>::THREADS)
    clahe_table_kernel(const unsigned *__restrict__ hist, gf_clahe_geom g, T *__restrict__ tables)
{
    typedef lut_shape<T> S;
    const size_t at = ((size_t)blockIdx.y * g.gw * g.gh + blockIdx.x) * S::NB;
    const unsigned i0 = threadIdx.x * S::PER;
    const unsigned *hh = hist + at + i0;
    const unsigned limit = (unsigned)min(g.limit, (int64_t)0xffffffffu); /* counts are 32-bit */
    unsigned long long excess = 0, total;

    if (g.limit)
        for (int j = 0; j < S::PER; j++)
            excess += hh[j] > limit ? hh[j] - limit : 0;
    lut_block_scan<S::THREADS>(excess, &excess);
    const unsigned long long batch = excess / S::NB;
    const unsigned r = (unsigned)(excess % S::NB), s = (unsigned)gf_clahe_step(S::NB, r);
    unsigned long long mine = 0;
    for (int j = 0; j < S::PER; j++)
        mine += cut_bin(hh[j], i0 + j, g, limit, batch, r, s);
    unsigned long long cum = lut_block_scan<S::THREADS>(mine, &total);
    for (int j = 0; j < S::PER; j++) {
        cum += cut_bin(hh[j], i0 + j, g, limit, batch, r, s);
        tables[at + i0 + j] = (T)gf_clahe_value((int64_t)cum, g.scale, S::MAX);
    }
}

/* ---- 3. Interpolation ---- */

/* Exact single-precision steps without the conversion units (a quarter of
 * the arithmetic rate): v (below 2^23) as a float, from the bits of 2^23 +
 * v; and r (0 <= r < 2^22) rounded half to even, as the low bits of r +
 * 2^23, whose rounding to the nearest integer (ties to even, the default)
 * is rint's. */
__device__ __forceinline__ float small_float(unsigned v)
{
    return __fsub_rn(__uint_as_float(0x4B000000u | v), 8388608.0f);
}

/* Byte b of q as a float. */
__device__ __forceinline__ float byte_float(unsigned q, int b)
{
    return __fsub_rn(__uint_as_float(__byte_perm(q, 0x4B000000u, 0x7540u | (unsigned)b)),
                     8388608.0f);
}

__device__ __forceinline__ unsigned round_small(float r, unsigned max)
{
    return min(__float_as_uint(__fadd_rn(r, 8388608.0f)) & 0x7fffffu, max);
}

/* Column x's weight xa[x] and segment seg[x] (gf_clahe_axis,
 * gf_clahe_segment), once for every row. */
__global__ void clahe_columns_kernel(int w, gf_clahe_geom g, float *__restrict__ xa,
                                     unsigned char *__restrict__ seg)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    int t1, t2;
    float a;
    if (x >= w)
        return;
    gf_clahe_axis(x, g.inv_tw, g.gw, &t1, &t2, &a);
    xa[x] = a;
    seg[x] = (unsigned char)gf_clahe_segment(t1, t2, g.gw);
}

/* The packed word of segment (sx, sy), colour k and value v (the shared
 * variant): quads[(seg * nc + k) * NB + v], seg = sy * (W + 1) + sx, the
 * tables' values L11, L12, L21, L22 in its bytes (8 bits: one 32-bit word)
 * or its 16-bit halves (16 bits: a uint2, L11 | L12 << 16, L21 | L22 << 16).
 * Block (seg * NB / 256 + v / 256, k), a thread a value. */
template <typename T>
__global__ void clahe_pack_kernel(const T *__restrict__ tables, gf_clahe_geom g, int nc,
                                  quad_of<T> *__restrict__ quads)
{
    constexpr int NB = lut_shape<T>::NB, PER = NB / 256;
    const int seg = blockIdx.x / PER, k = blockIdx.y, v = blockIdx.x % PER * 256 + threadIdx.x;
    int t1x, t2x, t1y, t2y;
    gf_clahe_segment_tiles(seg % (g.gw + 1), g.gw, &t1x, &t2x);
    gf_clahe_segment_tiles(seg / (g.gw + 1), g.gh, &t1y, &t2y);
    const T *t = tables + (size_t)k * g.gw * g.gh * NB + v;
#define L(ty, tx) (unsigned)t[((size_t)(ty) * g.gw + (tx)) * NB]
    quad_of<T> &q = quads[((size_t)seg * nc + k) * NB + v];
    if constexpr (sizeof(T) == 1)
        q = L(t1y, t1x) | L(t1y, t2x) << 8 | L(t2y, t1x) << 16 | L(t2y, t2x) << 24;
    else
        q = make_uint2(L(t1y, t1x) | L(t1y, t2x) << 16, L(t2y, t1x) | L(t2y, t2x) << 16);
#undef L
}

/* Where the interpolation reads a sample's four table values: the tables
 * in global memory (four reads), the packed words in global memory, or the
 * packed words staged in shared memory (one read). */
enum { FROM_TABLES, FROM_WORDS, FROM_STAGED };

/* The colour channels of C (a constant): gf_lut_colours. */
template <int C> struct colours {
    static constexpr int value = C == 2 || C == 4 ? C - 1 : C;
};

/* A row's part of the rule: its tiles and weights, and where its words
 * start (FROM_WORDS: in quads; FROM_STAGED: in the block's staged words,
 * less the block's first column segment). */
struct row_at {
    int t1y, t2y;
    float ya, ya1;
    int base;
};

/* What a block reads: tables[(k * tiles + tile) * bins + v]; the packed
 * words quads[((sy * (W + 1) + sx) * nc + k) * bins + v] (8 bits: 32-bit
 * words; 16 bits: uint2); the staged words (8 bits)
 * staged[(((sy - sy0) * nsx + sx - sx0) * nc + k) * 256 + v]. Indices fit
 * 32 bits: 3 channels x 4096 tiles x 65536 values at most. */
struct lookup {
    const void *tables;
    const void *quads;
    const unsigned *staged;
    int sx0, sy0, nsx;
};

/* Row y's part for a read FROM, of tables of T. */
template <typename T, int C, int FROM>
__device__ __forceinline__ row_at row_of(const gf_clahe_geom &g, const lookup &lk, int y)
{
    constexpr int nc = colours<C>::value, NB = lut_shape<T>::NB;
    row_at r;
    gf_clahe_axis(y, g.inv_th, g.gh, &r.t1y, &r.t2y, &r.ya);
    r.ya1 = __fsub_rn(1.0f, r.ya);
    const int sy = gf_clahe_segment(r.t1y, r.t2y, g.gh);
    r.base = FROM == FROM_STAGED ? ((sy - lk.sy0) * lk.nsx - lk.sx0) * nc * NB
                                 : sy * (g.gw + 1) * nc * NB;
    return r;
}

/* The output of channel k's sample v, at column weight xa and column
 * segment sx, of row r, in an image of C channels. */
template <typename T, int C, int FROM>
__device__ __forceinline__ unsigned interp_sample(const gf_clahe_geom &g, const lookup &lk, int k,
                                                  unsigned v, float xa, int sx, const row_at &r)
{
    constexpr int nc = colours<C>::value;
    float l11, l12, l21, l22;
    if (k >= nc)
        return v; /* alpha */
    if (FROM != FROM_TABLES && sizeof(T) == 2) {
        const int i = r.base + (sx * nc + k) * lut_shape<T>::NB + (int)v;
        const uint2 q = __ldg((const uint2 *)lk.quads + i);
        l11 = small_float(q.x & 0xffffu), l12 = small_float(q.x >> 16);
        l21 = small_float(q.y & 0xffffu), l22 = small_float(q.y >> 16);
    } else if (FROM != FROM_TABLES) {
        const int i = r.base + (sx * nc + k) * BINS8 + (int)v;
        const unsigned q =
            FROM == FROM_STAGED ? lk.staged[i] : __ldg((const unsigned *)lk.quads + i);
        l11 = byte_float(q, 0), l12 = byte_float(q, 1);
        l21 = byte_float(q, 2), l22 = byte_float(q, 3);
    } else {
        int t1x, t2x;
        gf_clahe_segment_tiles(sx, g.gw, &t1x, &t2x);
        const T *t = (const T *)lk.tables + v;
        const unsigned k0 = (unsigned)(k * g.gh), nb = (unsigned)g.bins; /* rows of tiles before */
        const unsigned r1 = (k0 + r.t1y) * g.gw, r2 = (k0 + r.t2y) * g.gw;
        l11 = small_float(__ldg(&t[(r1 + t1x) * nb]));
        l12 = small_float(__ldg(&t[(r1 + t2x) * nb]));
        l21 = small_float(__ldg(&t[(r2 + t1x) * nb]));
        l22 = small_float(__ldg(&t[(r2 + t2x) * nb]));
    }
    /* every term is >= 0 and the sum at most the largest sample, below 2^22 */
    return round_small(gf_clahe_mix(l11, l12, l21, l22, xa, __fsub_rn(1.0f, xa), r.ya, r.ya1),
                       (unsigned)g.bins - 1);
}

/* Bytes a thread of the interpolation takes from a row: 16 (8 for 8-bit
 * colour, whose 16 samples a thread would spill registers). */
template <typename T, int C> struct interp_bytes {
    static constexpr int value = sizeof(T) == 1 && C > 1 ? 8 : VEC;
};

/* A thread's samples s0 .. s0 + N - 1 of rows ybase + threadIdx.y, then
 * every INTERP_BY rows, before yend: a vector wholly inside the row (n
 * samples) is one load and one store, the row's last part a sample at a
 * time; gray rows read the N columns' weights and segments as vectors. */
template <typename T, int C, int FROM>
__device__ __forceinline__ void interp_rows(const unsigned char *__restrict__ in,
                                            unsigned char *__restrict__ out, int n, int s0,
                                            int ybase, int yend, size_t ipitch, size_t opitch,
                                            const gf_clahe_geom &g, const lookup &lk,
                                            const float *__restrict__ xa,
                                            const unsigned char *__restrict__ seg)
{
    constexpr int VB = interp_bytes<T, C>::value, N = VB / (int)sizeof(T);
    typedef typename std::conditional<VB == 16, uint4, uint2>::type vec_t;

    for (int y = ybase + threadIdx.y; y < yend; y += INTERP_BY) {
        const row_at r = row_of<T, C, FROM>(g, lk, y);
        const T *src = (const T *)(in + (size_t)y * ipitch) + s0;
        T *dst = (T *)(out + (size_t)y * opitch) + s0;
        if (s0 + N <= n) {
            union {
                vec_t v;
                T t[N];
            } a, b;
            a.v = __ldg((const vec_t *)src);
            if (C == 1) {
                union {
                    uint4 v[N / 4];
                    float f[N];
                } wx;
                union {
                    uint4 v;
                    unsigned char c[16];
                } sg;
#pragma unroll
                for (int q = 0; q < N / 4; q++)
                    wx.v[q] = __ldg((const uint4 *)(xa + s0) + q);
                if (N == 16)
                    sg.v = __ldg((const uint4 *)(seg + s0));
                else
                    *(uint2 *)sg.c = __ldg((const uint2 *)(seg + s0));
#pragma unroll
                for (int j = 0; j < N; j++)
                    b.t[j] = (T)interp_sample<T, C, FROM>(g, lk, 0, a.t[j], wx.f[j], sg.c[j], r);
            } else {
#pragma unroll
                for (int j = 0; j < N; j++) {
                    const int x = (s0 + j) / C;
                    b.t[j] = (T)interp_sample<T, C, FROM>(g, lk, (s0 + j) % C, a.t[j],
                                                          __ldg(&xa[x]), __ldg(&seg[x]), r);
                }
            }
            *(vec_t *)dst = b.v;
        } else {
            for (int j = 0; s0 + j < n; j++) {
                const int x = (s0 + j) / C;
                dst[j] = (T)interp_sample<T, C, FROM>(g, lk, (s0 + j) % C, src[j], __ldg(&xa[x]),
                                                      __ldg(&seg[x]), r);
            }
        }
    }
}

/* in -> out, both w x h of C channels of T: a thread takes interp_bytes<T,
 * C> bytes of a row on each of INTERP_ROWS / INTERP_BY rows (interp_rows),
 * with the columns' weights and segments from xa and seg. PACKED, 8 bits:
 * the block first stages the packed words of the segments it covers in
 * shared memory where they fit STAGE_WORDS, else reads them from global
 * memory; PACKED, 16 bits: the packed words from global memory; otherwise
 * the four tables from global memory. */
template <typename T, int C, bool PACKED>
__global__ void __launch_bounds__(INTERP_BX *INTERP_BY, PACKED ? 3 : 2)
    clahe_interp_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                        int w, int h, size_t ipitch, size_t opitch, gf_clahe_geom g,
                        const float *__restrict__ xa, const unsigned char *__restrict__ seg,
                        const void *__restrict__ tables, const void *__restrict__ quads)
{
    constexpr int N = interp_bytes<T, C>::value / (int)sizeof(T), nc = colours<C>::value;
    __shared__ __align__(16) unsigned sh[PACKED ? STAGE_WORDS : 4];
    const int n = w * C;
    const int s0 = (blockIdx.x * INTERP_BX + threadIdx.x) * N;
    const int ybase = blockIdx.y * INTERP_ROWS, yend = min(ybase + INTERP_ROWS, h);
    lookup lk = {tables, quads, NULL, 0, 0, 0};

    if (!PACKED || sizeof(T) == 2) {
        if (s0 < n)
            interp_rows<T, C, PACKED ? FROM_WORDS : FROM_TABLES>(in, out, n, s0, ybase, yend,
                                                                 ipitch, opitch, g, lk, xa, seg);
        return;
    }
    /* the block's segments: those of its first and last pixel and row */
    const int px0 = blockIdx.x * INTERP_BX * N / C;
    const int px1 = min(((int)(blockIdx.x + 1) * INTERP_BX * N - 1) / C, w - 1);
    int a1, a2, b1, b2;
    float f;
    gf_clahe_axis(ybase, g.inv_th, g.gh, &a1, &a2, &f);
    gf_clahe_axis(yend - 1, g.inv_th, g.gh, &b1, &b2, &f);
    lk.sx0 = __ldg(&seg[px0]), lk.nsx = __ldg(&seg[px1]) - lk.sx0 + 1;
    lk.sy0 = gf_clahe_segment(a1, a2, g.gh);
    const int nsy = gf_clahe_segment(b1, b2, g.gh) - lk.sy0 + 1;
    const int words = lk.nsx * nsy * nc * BINS8;
    if (words > STAGE_WORDS) { /* the same for the whole block */
        if (s0 < n)
            interp_rows<T, C, FROM_WORDS>(in, out, n, s0, ybase, yend, ipitch, opitch, g, lk, xa,
                                          seg);
        return;
    }
    for (int i = threadIdx.y * INTERP_BX + threadIdx.x; i < words / 4;
         i += INTERP_BX * INTERP_BY) {
        const int e = 4 * i, v = e % BINS8, kk = e / BINS8 % nc, sg = e / BINS8 / nc;
        const int gs = (lk.sy0 + sg / lk.nsx) * (g.gw + 1) + lk.sx0 + sg % lk.nsx;
        *(uint4 *)&sh[e] = __ldg((const uint4 *)quads + ((gs * nc + kk) * BINS8 + v) / 4);
    }
    lk.staged = sh;
    __syncthreads();
    if (s0 < n)
        interp_rows<T, C, FROM_STAGED>(in, out, n, s0, ybase, yend, ipitch, opitch, g, lk, xa,
                                       seg);
}

/* ---- The launchers ---- */

enum { CLAHE_GLOBAL, CLAHE_SHARED };

/* The shared histogram kernels' bands: about `bands` a tile (at least 1),
 * into *rows (rows a band) and *n (bands a tile, the last one shorter). */
static void tile_bands(const gf_clahe_geom &g, long bands, int *rows, int *n)
{
    const long r = ((long)g.th + (bands < 1 ? 1 : bands) - 1) / (bands < 1 ? 1 : bands);
    *rows = (int)r;
    *n = (int)(((long)g.th + r - 1) / r);
}

template <typename T, int C>
static void launch_hist_global(const gf_dimage *in, const gf_clahe_geom &g, int c0, int nc,
                               unsigned *hist, cudaStream_t st)
{
    const dim3 grid((g.gw * g.tw + HG_BX - 1) / HG_BX, (g.gh * g.th + HG_BY - 1) / HG_BY);
    clahe_hist_global_kernel<T, C><<<grid, dim3(HG_BX, HG_BY), 0, st>>>(
        in->data, in->width, in->height, in->pitch, g, c0, nc, hist);
}

template <typename T, int C>
static int run(const gf_dimage *in, gf_dimage *out, const gf_clahe_geom &g, int variant,
               cudaStream_t st)
{
    const int nc = gf_lut_colours(C), tiles = g.gw * g.gh, segs = (g.gw + 1) * (g.gh + 1);
    typedef quad_of<T> quad_t;
    const bool eight = sizeof(T) == 1, shared = variant == CLAHE_SHARED;
    /* 16 bits: the tiles' histograms in shared memory where they hold at
     * least as many pixels as bins and the device lends a block 128 KiB;
     * the packed words where they take at most QUADS16_MAX bytes */
    const size_t all_quads = (size_t)segs * nc * g.bins * sizeof(quad_t);
    const bool packed = shared && (eight || all_quads <= QUADS16_MAX);
    int optin = 0, sms, rows, bands, rc = 0;
    if (!eight && shared && g.area >= 65536 && (rc = gf_cuda_smem_optin(&optin)))
        return rc;
    const size_t smem16 = CH16_WORDS * sizeof(unsigned);
    const bool hist16 = (size_t)optin >= smem16;
    /* scratch: the histograms (8-bit: every colour; 16-bit: one at a
     * time), the tables, the packed words */
    const size_t hist_bytes = (size_t)(eight ? nc : 1) * tiles * g.bins * sizeof(unsigned);
    const size_t table_bytes = ((size_t)nc * tiles * g.bins * sizeof(T) + 15) / 16 * 16;
    const size_t quad_bytes = packed ? all_quads : 0;
    /* the columns' weights and segments, padded for the last vector loads */
    const size_t w16 = ((size_t)in->width + 15) / 16 * 16;
    unsigned char *scratch = NULL;

    GF_CUDA_CHECK(cudaMallocAsync((void **)&scratch,
                                  hist_bytes + table_bytes + quad_bytes + w16 * 5, st));
    unsigned *hist = (unsigned *)(void *)scratch;
    T *tables = (T *)(void *)(scratch + hist_bytes);
    quad_t *quads = packed ? (quad_t *)(void *)(scratch + hist_bytes + table_bytes) : NULL;
    float *xa = (float *)(void *)(scratch + hist_bytes + table_bytes + quad_bytes);
    unsigned char *seg = (unsigned char *)(xa + w16);
    cudaError_t e = cudaSuccess;
    for (int c = 0; c < (eight ? 1 : nc) && e == cudaSuccess; c++) {
        const int k0 = eight ? 0 : c, kn = eight ? nc : 1;
        if ((e = cudaMemsetAsync(hist, 0, hist_bytes, st)) != cudaSuccess)
            break;
        if (eight && shared) {
            /* about HS_BLOCKS_PER_SM blocks a multiprocessor */
            if ((rc = gf_cuda_sms(&sms)))
                break;
            tile_bands(g, ((long)sms * HS_BLOCKS_PER_SM + tiles - 1) / tiles, &rows, &bands);
            clahe_hist_shared_kernel<C><<<dim3(g.gw, g.gh * bands), HS_THREADS, 0, st>>>(
                in->data, in->width, in->height, in->pitch, g, nc, bands, rows, hist);
        } else if (hist16) {
            /* a block an SM: the tiles' bands in one wave */
            if ((rc = gf_cuda_sms(&sms)))
                break;
            tile_bands(g, sms / tiles, &rows, &bands);
            if ((e = cudaFuncSetAttribute(clahe_hist16_kernel<C>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)smem16)) != cudaSuccess)
                break;
            clahe_hist16_kernel<C><<<dim3(g.gw, g.gh * bands), CH16_THREADS, smem16, st>>>(
                in->data, in->width, in->height, in->pitch, g, c, bands, rows, hist);
        } else {
            launch_hist_global<T, C>(in, g, k0, kn, hist, st);
        }
        clahe_table_kernel<T><<<dim3(tiles, kn), lut_shape<T>::THREADS, 0, st>>>(
            hist, g, tables + (size_t)k0 * tiles * g.bins);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess && rc == 0) {
        constexpr int N = interp_bytes<T, C>::value / (int)sizeof(T);
        const int n = in->width * C;
        const dim3 grid((n + INTERP_BX * N - 1) / (INTERP_BX * N),
                        (in->height + INTERP_ROWS - 1) / INTERP_ROWS);
        clahe_columns_kernel<<<(in->width + 255) / 256, 256, 0, st>>>(in->width, g, xa, seg);
        if (packed) {
            clahe_pack_kernel<T><<<dim3(segs * (g.bins / 256), nc), 256, 0, st>>>(tables, g, nc,
                                                                                  quads);
            clahe_interp_kernel<T, C, true><<<grid, dim3(INTERP_BX, INTERP_BY), 0, st>>>(
                in->data, out->data, in->width, in->height, in->pitch, out->pitch, g, xa, seg,
                tables, quads);
        } else {
            clahe_interp_kernel<T, C, false><<<grid, dim3(INTERP_BX, INTERP_BY), 0, st>>>(
                in->data, out->data, in->width, in->height, in->pitch, out->pitch, g, xa, seg,
                tables, NULL);
        }
        e = cudaGetLastError();
    }
    cudaFreeAsync(scratch, st);
    if (rc)
        return rc;
    GF_CUDA_CHECK(e);
    return 0;
}

static int clahe_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                      void *stream)
{
    const gf_clahe_params *p = GF_CPARAMS(s, gf_clahe_params);
    const gf_shape os = gf_dimage_shape_of(in);
    int rc;

    if (!(p->clip >= 0 && p->clip <= GF_CLAHE_MAX_CLIP) || p->gw < 1 ||
        p->gw > GF_CLAHE_MAX_GRID || p->gh < 1 || p->gh > GF_CLAHE_MAX_GRID)
        return gf_err(GF_EINTERNAL, NULL, "clahe: bad arguments (clip %g, grid %dx%d)", p->clip,
                      p->gw, p->gh);
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    const gf_clahe_geom g = gf_clahe_geom_of(in->width, in->height, in->bits, p->clip, p->gw, p->gh);
    cudaStream_t st = (cudaStream_t)stream;
#define RUN(T, C) rc = run<T, C>(in, out, g, variant, st)
    GF_LAYOUT_SWITCH(in->channels, in->bits, RUN);
#undef RUN
    return rc;
}

extern "C" int gf_clahe_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return clahe_cuda(s, in, out, CLAHE_GLOBAL, stream);
}

extern "C" int gf_clahe_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                    void *stream)
{
    return clahe_cuda(s, in, out, CLAHE_SHARED, stream);
}
