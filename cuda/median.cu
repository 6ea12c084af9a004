/* median.cu - median filter kernels (src/stages/median.h): the exact median
 * of each channel's K x K window (K odd, 3..63) of the padded image, every
 * layout, every border mode of src/border.h, equal bit for bit to the CPU
 * reference (src/stages/median.c).
 *
 * Variants:
 *   global     the stencil framework's one-thread-a-pixel kernel (window read
 *              from global memory through the border), then a selection:
 *              the networks of median.h for K = 3 and 5, else radix_select.
 *   shared     the same rule on the framework's tile staged in shared memory.
 *   histogram  K = 3 and 5: median_network_kernel (a warp a strip, the
 *              networks two samples a word, columns sorted once and shared by
 *              shuffle); K >= 7, 8-bit: median_histogram_kernel (a thread a
 *              sample column with a sliding 256-bin histogram in shared
 *              memory, Huang's tracked median); K >= 7, 16-bit: `shared`. */
#include "check.h"
#include "stencil.cuh"

#include "../src/stages/median.h"

enum { MEDIAN_GLOBAL, MEDIAN_SHARED, MEDIAN_HISTOGRAM };

/* ---- Selection on one window's values. A value is either one sample
 * (unsigned) or two 16-bit samples of a word (pair16), minima and maxima
 * taken lane by lane: min.u16x2 / max.u16x2, one instruction on sm_90
 * (__vminu2, __vmaxu2). */
struct pair16 {
    unsigned w;
};
__device__ __forceinline__ unsigned vmin(unsigned a, unsigned b) { return min(a, b); }
__device__ __forceinline__ unsigned vmax(unsigned a, unsigned b) { return max(a, b); }
__device__ __forceinline__ pair16 vmin(pair16 a, pair16 b) { return {__vminu2(a.w, b.w)}; }
__device__ __forceinline__ pair16 vmax(pair16 a, pair16 b) { return {__vmaxu2(a.w, b.w)}; }

#define MIN_(a, b) vmin(a, b)
#define MAX_(a, b) vmax(a, b)
#define NET_STEP(dst, OP, a, b) const S v##dst = OP##_(v##a, v##b);
#define CS_AT(a, b)                                                                           \
    {                                                                                         \
        const S t_ = MIN_(x[a], x[b]);                                                        \
        x[b] = MAX_(x[a], x[b]);                                                              \
        x[a] = t_;                                                                            \
    }

/* Sorts the K (3 or 5) values x ascending (GF_MEDIAN_SORT3/5). */
template <int K, typename S> __device__ __forceinline__ void sort_column(S *x)
{
    if constexpr (K == 3) {
        GF_MEDIAN_SORT3(CS_AT)
    } else {
        GF_MEDIAN_SORT5(CS_AT)
    }
}

/* The median of a K x K window (K = 3 or 5) from its sorted columns: v[r K +
 * d] the r-th smallest of column d (GF_MEDIAN3_NET / GF_MEDIAN5_NET). */
template <int K, typename S> __device__ __forceinline__ S median_sorted(const S *v)
{
    if constexpr (K == 3) {
        const S v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3], v4 = v[4], v5 = v[5], v6 = v[6],
                v7 = v[7], v8 = v[8];
        GF_MEDIAN3_NET(NET_STEP)
        return v20;
    } else {
        const S v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3], v4 = v[4], v5 = v[5], v6 = v[6],
                v7 = v[7], v8 = v[8], v9 = v[9], v10 = v[10], v11 = v[11], v12 = v[12],
                v13 = v[13], v14 = v[14], v15 = v[15], v16 = v[16], v17 = v[17], v18 = v[18],
                v19 = v[19], v20 = v[20], v21 = v[21], v22 = v[22], v23 = v[23], v24 = v[24];
        GF_MEDIAN5_NET(NET_STEP)
        return v142;
    }
}

/* The median of sample c's K x K window (K = 3 or 5) read through win(dx,
 * dy, c): its columns sorted, then the network. */
template <int K, class W> __device__ __forceinline__ unsigned median_window(const W &win, int c)
{
    constexpr int R = K / 2;
    unsigned v[K * K];
#pragma unroll
    for (int d = 0; d < K; d++) {
        unsigned x[K];
#pragma unroll
        for (int k = 0; k < K; k++)
            x[k] = win(d - R, k - R, c);
        sort_column<K>(x);
#pragma unroll
        for (int r = 0; r < K; r++)
            v[r * K + d] = x[r];
    }
    return median_sorted<K>(v);
}

/* The median of sample c's (2r+1) x (2r+1) window by radix selection: the
 * median M is the largest value v with at most half = (2r+1)^2 / 2 samples
 * below v (all v <= M have that, no v > M has); its bits are found from the
 * top, each candidate kept when the window's samples below it number at
 * most half: one pass over the window a bit. */
template <int BITS, class W>
__device__ __forceinline__ unsigned radix_select(const W &win, int c, int r)
{
    const int half = (2 * r + 1) * (2 * r + 1) / 2;
    unsigned m = 0;

    for (int bit = BITS - 1; bit >= 0; bit--) {
        const unsigned cand = m | 1u << bit;
        int below = 0;
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++)
                below += win(dx, dy, c) < cand;
        if (below <= half)
            m = cand;
    }
    return m;
}

/* The stencil framework's 2-D rule (cuda/stencil.cuh): K = 3 or 5 by the
 * networks, K = 0 (any other) by radix selection over BITS bits. */
template <int BITS, int K> struct median_rule {
    int rx, ry;
    template <class W> __device__ __forceinline__ unsigned at(const W &win, int c) const
    {
        if constexpr (K == 3 || K == 5)
            return median_window<K>(win, c);
        else
            return radix_select<BITS>(win, c, rx);
    }
};

/* ---- median_network_kernel: K = 3 or 5, every layout. No shared memory
 * and no barrier, in the shape of the box mean's warp kernel (cuda/mean.cu):
 * a warp computes a strip NET_ROWS rows tall; lanes 1..30 each own 16 bytes
 * of it (L = 16 samples of 8 bits or 8 of 16), loaded as one 16-byte vector
 * a row, a row ahead, and lanes 0 and 31 load only, for their
 * neighbours. Lanes store only where the whole window lies inside the
 * row's samples (L <= x0, x0 + L + R C <= n); the columns left and right of
 * those go to the grid's first blocks, a thread a sample column of
 * EDGE_ROWS rows. The border mode is applied once per strip: lane i works
 * out the strip's source row i, and each load takes it by shuffle.
 *
 * Each row's samples are kept as 16-bit lanes, two to a word (8-bit samples
 * spread by one byte permute a word), with the R C samples beyond the
 * lane's on either side (NB words) from its neighbours by shuffle, once a
 * row; the last K rows stay in registers. For each output row every word
 * column of the lane (and its halo) is sorted down the window's K rows
 * once, each sort serving the K outputs whose windows hold that column, and
 * each output word's window is then its K sorted columns d C samples away
 * (a byte permute of two words where d C is odd), given to the network two
 * samples at a time. The row loop is not unrolled (the 5x5 network over a
 * lane's words is about a thousand instructions a row, and the box mean's
 * unrolled strips stalled on instruction fetch past ~100 KB of code); its
 * K rows move down one register set a row instead of being indexed. */
#define NET_THREADS 128
#define NET_LANES 30  /* lanes that store; 0 and 31 load for them */
#define NET_ROWS 16   /* output rows a strip: the 2R halo rows a small share */
#define EDGE_ROWS 4   /* rows a thread of the edge columns */

/* The 16-bit lanes s and s+1 of a run of words (lane i of word i/2): the
 * high lane of a and the low lane of b. */
__device__ __forceinline__ unsigned mid_pair(unsigned a, unsigned b)
{
    return __byte_perm(a, b, 0x5432);
}

/* Sample column j (pixel j / C, channel j % C), rows y0 .. y0+EDGE_ROWS-1
 * below h: each window gathered through the border mode (its K column
 * indices mapped once) and selected by the networks. */
template <typename T, int C, int K>
__device__ __forceinline__ void edge_sample(const unsigned char *__restrict__ in,
                                            unsigned char *__restrict__ out, int j, int y0, int w,
                                            int h, size_t ipitch, size_t opitch, gf_border b)
{
    constexpr int R = K / 2;
    const int x = j / C, c = j % C;
    int cx[K];

#pragma unroll
    for (int k = 0; k < K; k++)
        cx[k] = gf_border_index(x - R + k, w, b.mode);
    for (int y = y0; y < y0 + EDGE_ROWS && y < h; y++) {
        unsigned v[K * K];
#pragma unroll
        for (int d = 0; d < K; d++) {
            unsigned col[K];
#pragma unroll
            for (int k = 0; k < K; k++) {
                const int row = gf_border_index(y - R + k, h, b.mode);
                col[k] = cx[d] < 0 || row < 0 ? (unsigned)b.value
                                              : st_sample<T, C>(in, ipitch, cx[d], row, c);
            }
            sort_column<K>(col);
#pragma unroll
            for (int r = 0; r < K; r++)
                v[r * K + d] = col[r];
        }
        ((T *)(out + (size_t)y * opitch))[j] = (T)median_sorted<K>(v);
    }
}

template <typename T, int C, int R>
__global__ void __launch_bounds__(NET_THREADS)
    median_network_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                          int w, int h, size_t ipitch, size_t opitch, gf_border b, int strips_x,
                          int edge_blocks, int xr)
{
    constexpr int K = 2 * R + 1, L = 16 / (int)sizeof(T), NW = L / 2, RC = R * C;
    constexpr int NB = (RC + 1) / 2, NE = NW + 2 * NB; /* halo words each side; all words */
    static_assert(NB <= NW && NET_ROWS + 2 * R <= 32, "halo from one lane; a row a lane");
    const int n = w * C; /* samples a row */

    if ((int)blockIdx.x < edge_blocks) {
        const int left = min(L, n), right = max(0, n - max(L, xr)), cols = left + right;
        const long i = (long)blockIdx.x * NET_THREADS + threadIdx.x;
        if (i < (long)cols * ((h + EDGE_ROWS - 1) / EDGE_ROWS)) {
            const int c = (int)(i % cols);
            edge_sample<T, C, K>(in, out, c < left ? c : n - right + (c - left),
                                 (int)(i / cols) * EDGE_ROWS, w, h, ipitch, opitch, b);
        }
        return;
    }
    const int lane = threadIdx.x % 32;
    const int warp = ((blockIdx.x - edge_blocks) * NET_THREADS + threadIdx.x) / 32;
    const int y0 = warp / strips_x * NET_ROWS,
              x0 = warp % strips_x * (NET_LANES * L) + L * (lane - 1); /* in samples */

    if (y0 >= h)
        return; /* the whole warp */
    const bool stores = lane >= 1 && lane <= NET_LANES && x0 >= L && x0 + L + RC <= n;
    const int nr = min(NET_ROWS, h - y0) + 2 * R; /* rows the strip reads */
    const int srow = gf_border_index(y0 - R + lane, h, b.mode); /* -1: the constant */
    const unsigned splat = (unsigned)b.value * (sizeof(T) == 1 ? 0x01010101u : 0x00010001u);
    const unsigned char *src = in + (size_t)(x0 >= 0 && x0 < n ? x0 : 0) * sizeof(T);
    const auto fetch = [&](int r) {
        const int row = __shfl_sync(0xffffffffu, srow, r);
        return row < 0 ? make_uint4(splat, splat, splat, splat)
                       : __ldg((const uint4 *)(src + (size_t)row * ipitch));
    };
    unsigned u[K][NE]; /* the window's rows: words of two 16-bit samples, halo included */
    uint4 next = fetch(0); /* a row ahead: two took 128 registers and spilled (5x5) */

#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
        for (int e = 0; e < NE; e++)
            u[k][e] = 0;
#pragma unroll 1
    for (int r = 0; r < nr; r++) {
        const uint4 v = next;
        if (r + 1 < nr)
            next = fetch(r + 1);
#pragma unroll
        for (int k = 0; k + 1 < K; k++)
#pragma unroll
            for (int e = 0; e < NE; e++)
                u[k][e] = u[k + 1][e];
        const unsigned wd[4] = {v.x, v.y, v.z, v.w};
        unsigned *nw = u[K - 1];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if constexpr (sizeof(T) == 1) {
                nw[NB + 2 * i] = __byte_perm(wd[i], 0, 0x4140);
                nw[NB + 2 * i + 1] = __byte_perm(wd[i], 0, 0x4342);
            } else {
                nw[NB + i] = wd[i];
            }
        }
#pragma unroll
        for (int i = 0; i < NB; i++) {
            nw[i] = __shfl_up_sync(0xffffffffu, nw[NW + i], 1);
            nw[NB + NW + i] = __shfl_down_sync(0xffffffffu, nw[NB + i], 1);
        }
        if (r < 2 * R || !stores)
            continue;
        /* the sorted word columns e, in order; output word o once columns
         * o .. o + 2 NB are sorted */
        pair16 sc[NE][K], res[NW];
#pragma unroll
        for (int e = 0; e < NE; e++) {
#pragma unroll
            for (int k = 0; k < K; k++)
                sc[e][k].w = u[k][e];
            sort_column<K>(sc[e]);
            if (e < 2 * NB)
                continue;
            const int o = e - 2 * NB;
            pair16 win[K * K];
#pragma unroll
            for (int d = -R; d <= R; d++) {
                /* column d's samples lie s = d C on from the output's: word
                 * o + floor(s / 2) (after the NB halo words), and where s
                 * is odd, its high lane with the next word's low lane */
                const int s = d * C, q = NB + o + (s >= 0 ? s / 2 : -((1 - s) / 2));
#pragma unroll
                for (int rk = 0; rk < K; rk++)
                    win[rk * K + d + R].w =
                        s % 2 == 0 ? sc[q][rk].w : mid_pair(sc[q][rk].w, sc[q + 1][rk].w);
            }
            res[o] = median_sorted<K>(win);
        }
        uint4 st;
        if constexpr (sizeof(T) == 1)
            st = make_uint4(__byte_perm(res[0].w, res[1].w, 0x6420),
                            __byte_perm(res[2].w, res[3].w, 0x6420),
                            __byte_perm(res[4].w, res[5].w, 0x6420),
                            __byte_perm(res[6].w, res[7].w, 0x6420));
        else
            st = make_uint4(res[0].w, res[1].w, res[2].w, res[3].w);
        *(uint4 *)(out + (size_t)(y0 + r - 2 * R) * opitch + (size_t)x0 * sizeof(T)) = st;
    }
}

/* The network kernel for C channels of T: edge blocks first, then a warp a
 * strip of NET_ROWS rows, 30 lanes of L samples wide, over n samples a row;
 * lanes store samples L .. xr-1, where the whole window lies inside the
 * row. */
template <typename T, int C, int R>
static void launch_network(const gf_dimage *in, gf_dimage *out, gf_border b, cudaStream_t st)
{
    constexpr int L = 16 / (int)sizeof(T);
    const int w = in->width, h = in->height, n = w * C;
    const int strips_x = (n + NET_LANES * L - 1) / (NET_LANES * L);
    const int xr = (n - R * C) / L * L;
    const long edge_threads =
        (long)(min(L, n) + max(0, n - max(L, xr))) * ((h + EDGE_ROWS - 1) / EDGE_ROWS);
    const long edge_blocks = (edge_threads + NET_THREADS - 1) / NET_THREADS;
    const long warps = xr > L ? (long)strips_x * ((h + NET_ROWS - 1) / NET_ROWS) : 0;
    const unsigned blocks = (unsigned)(edge_blocks + (warps * 32 + NET_THREADS - 1) / NET_THREADS);
    median_network_kernel<T, C, R><<<blocks, NET_THREADS, 0, st>>>(
        in->data, out->data, w, h, in->pitch, out->pitch, b, strips_x, (int)edge_blocks, xr);
}

/* ---- median_histogram_kernel: K >= 7, 8-bit samples of C channels. A
 * block of HIST_THREADS threads takes HIST_THREADS adjacent sample columns
 * (sample j: pixel j / C, channel j % C) and walks down a strip of rows;
 * each thread keeps the 256-bin histogram of its window (its K samples C
 * apart in each of K rows) in shared memory and slides it down a row at a
 * time: the row that left the window out, the new one in (Huang's
 * algorithm turned on its side). The block stages the input rows,
 * HIST_BATCH at a time, in a ring of K + HIST_BATCH row segments (its
 * columns and the R C samples beyond them each side) through the border
 * mode, so the window's samples are shared-memory reads and no thread
 * meets a border.
 *
 * Counters: bytes where K*K fits (K <= 15), else 16 bits, laid out
 * [bin / P][thread][P] with P counters a 32-bit word: thread t's counters
 * all lie in words t mod 32 of the rows of words, its own bank, so a warp's
 * read-modify-writes never conflict whatever bins its lanes hit, and no
 * atomics are needed (a thread's counters are its own).
 *
 * The median is tracked as the window moves (Huang's "ltmdn"): m, and lt,
 * the count of samples below m, kept as samples enter and leave; then m
 * steps down while more than half lie below it, and up while at most half
 * lie at or below it. On random or smooth images m moves a few bins a row.
 * (Perreault and Hebert's 16-bin coarse histogram beside it would find m
 * from scratch in at most 32 steps, but would double the read-modify-writes
 * that bound this kernel.) */
#define HIST_THREADS 128
#define HIST_BATCH 8       /* rows staged between two barriers */
#define HIST_MIN_ROWS 64   /* rows a strip at least: a strip's first window */
#define HIST_ROWS_PER_K 8  /* costs K*K adds, against 2K a row after it */

template <int C, typename CT>
__global__ void __launch_bounds__(HIST_THREADS)
    median_histogram_kernel(const unsigned char *__restrict__ in, unsigned char *__restrict__ out,
                            int w, int h, size_t ipitch, size_t opitch, gf_border b, int K,
                            int strip_rows, int seg_bytes)
{
    constexpr int NT = HIST_THREADS, P = 4 / (int)sizeof(CT);
    extern __shared__ __align__(16) unsigned char hist_smem[];
    unsigned char *const hist = hist_smem;                         /* NT * 256 counters */
    unsigned char *const ring = hist_smem + NT * 256 * sizeof(CT); /* K + HIST_BATCH rows */
    const int R = K / 2, RC = R * C, n = w * C, ring_rows = K + HIST_BATCH;
    const int half = K * K / 2, seg = NT + 2 * RC, t = threadIdx.x;
    const int j0 = blockIdx.x * NT, j = j0 + t;
    const int y0 = blockIdx.y * strip_rows, y1 = min(y0 + strip_rows, h);
    const bool active = j < n;
    /* thread t's counter of bin v: byte offset in hist */
    const auto at = [&](unsigned v) -> CT * {
        return (CT *)(hist + ((v / P) * NT + t) * 4 + (v % P) * sizeof(CT));
    };

#pragma unroll 4
    for (int i = 0; i < 256 / P; i++)
        ((unsigned *)hist)[i * NT + t] = 0;
    unsigned m = 0;
    int lt = 0;
    for (int yb = y0; yb < y1; yb += HIST_BATCH) {
        const int ye = min(yb + HIST_BATCH, y1);
        __syncthreads(); /* the last batch is done with the slots staged over now */
        for (int wy = yb == y0 ? y0 - R : yb + R; wy < ye + R; wy++) {
            unsigned char *row = ring + (size_t)((wy - (y0 - R)) % ring_rows) * seg_bytes;
            const int yy = gf_border_index(wy, h, b.mode);
            for (int q = t; q < seg; q += NT) {
                const int js = j0 - RC + q, px = js >= 0 ? js / C : (js - C + 1) / C;
                const int xx = gf_border_index(px, w, b.mode);
                row[q] = (unsigned char)(yy < 0 || xx < 0 ? (unsigned)b.value
                                                          : in[(size_t)yy * ipitch +
                                                               (size_t)xx * C + (js - px * C)]);
            }
        }
        __syncthreads(); /* the batch's rows are staged */
        if (!active)
            continue;
        for (int y = yb; y < ye; y++) {
            if (y == y0) {
                for (int k = 0; k < K; k++) {
                    const unsigned char *row =
                        ring + (size_t)((y - R + k - (y0 - R)) % ring_rows) * seg_bytes + t;
                    for (int d = 0; d < K; d++)
                        (*at(row[d * C]))++;
                }
            } else {
                const unsigned char *old =
                    ring + (size_t)((y - R - 1 - (y0 - R)) % ring_rows) * seg_bytes + t;
                const unsigned char *neu =
                    ring + (size_t)((y + R - (y0 - R)) % ring_rows) * seg_bytes + t;
#pragma unroll 4
                for (int d = 0; d < K; d++) {
                    const unsigned u = old[d * C], v = neu[d * C];
                    (*at(u))--;
                    (*at(v))++;
                    lt += (int)(v < m) - (int)(u < m);
                }
            }
            while (lt > half)
                lt -= *at(--m);
            for (int c = *at(m); lt + c <= half; c = *at(m)) {
                lt += c;
                m++;
            }
            out[(size_t)y * opitch + j] = (unsigned char)m;
        }
    }
}

/* The histogram kernel over in -> out (8-bit, C channels, window K >= 7). */
template <int C>
static int launch_histogram(const gf_dimage *in, gf_dimage *out, int K, gf_border b,
                            cudaStream_t st)
{
    const int w = in->width, h = in->height, n = w * C, R = K / 2;
    const int rows = max(HIST_MIN_ROWS, HIST_ROWS_PER_K * K);
    const int seg_bytes = (HIST_THREADS + 2 * R * C + 3) / 4 * 4;
    const size_t ring = (size_t)(K + HIST_BATCH) * seg_bytes;
    dim3 grid((n + HIST_THREADS - 1) / HIST_THREADS, (h + rows - 1) / rows);
    int rc;

    if (K * K < 256) {
        const size_t smem = HIST_THREADS * 256 * sizeof(uint8_t) + ring;
        if ((rc = st_allow_smem(median_histogram_kernel<C, uint8_t>, smem)))
            return rc;
        median_histogram_kernel<C, uint8_t><<<grid, HIST_THREADS, smem, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b, K, rows, seg_bytes);
    } else {
        const size_t smem = HIST_THREADS * 256 * sizeof(uint16_t) + ring;
        if ((rc = st_allow_smem(median_histogram_kernel<C, uint16_t>, smem)))
            return rc;
        median_histogram_kernel<C, uint16_t><<<grid, HIST_THREADS, smem, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, b, K, rows, seg_bytes);
    }
    return 0;
}

/* ---- Dispatch. */

/* The framework's 2-D kernel V (ST_GLOBAL or ST_SHARED) with the rule for
 * K (3 and 5 by their networks, other sizes by radix selection). */
template <int V, typename T, int C, int BITS>
static int median_2d(int K, int r, const gf_dimage *in, gf_dimage *out, gf_border b,
                     cudaStream_t st)
{
    if (K == 3)
        return st_launch_2d_as<V, T, C>(median_rule<BITS, 3>{r, r}, in, out, b, st);
    if (K == 5)
        return st_launch_2d_as<V, T, C>(median_rule<BITS, 5>{r, r}, in, out, b, st);
    return st_launch_2d_as<V, T, C>(median_rule<BITS, 0>{r, r}, in, out, b, st);
}

template <typename T, int C>
static int launch_any(const gf_median_params *p, const gf_dimage *in, gf_dimage *out,
                      int variant, cudaStream_t st)
{
    constexpr int BITS = 8 * (int)sizeof(T);
    const int K = p->kw, r = K / 2;
    const gf_shape sh = gf_dimage_shape_of(in);
    int rc;

    if (variant == MEDIAN_HISTOGRAM && K <= 5) {
        if ((rc = gf_dimage_shape(out, &sh)))
            return rc;
        if (K == 3)
            launch_network<T, C, 1>(in, out, p->border, st);
        else
            launch_network<T, C, 2>(in, out, p->border, st);
        GF_CUDA_CHECK(cudaGetLastError());
        return 0;
    }
    if (variant == MEDIAN_HISTOGRAM && BITS == 8) {
        if ((rc = gf_dimage_shape(out, &sh)) ||
            (rc = launch_histogram<C>(in, out, K, p->border, st)))
            return rc;
        GF_CUDA_CHECK(cudaGetLastError());
        return 0;
    }
    if (variant == MEDIAN_GLOBAL)
        return median_2d<ST_GLOBAL, T, C, BITS>(K, r, in, out, p->border, st);
    return median_2d<ST_SHARED, T, C, BITS>(K, r, in, out, p->border, st);
}

static int median_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                       void *stream)
{
    const gf_median_params *p = GF_CPARAMS(s, gf_median_params);
    int rc = 0;

    if (p->kw != p->kh || p->kw < GF_MEDIAN_MIN_SIDE || p->kw > GF_MEDIAN_MAX_SIDE ||
        p->kw % 2 == 0 || in->width > 65535 || in->height > 65535 ||
        !gf_layout_valid(in->channels, in->bits))
        return gf_err(GF_EINTERNAL, NULL, "median: bad arguments (window %dx%d, %dx%d image)",
                      p->kw, p->kh, in->width, in->height);
#define LAUNCH_ANY(T, C) rc = launch_any<T, C>(p, in, out, variant, (cudaStream_t)stream)
    GF_LAYOUT_SWITCH(in->channels, in->bits, LAUNCH_ANY)
#undef LAUNCH_ANY
    return rc;
}

extern "C" int gf_median_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return median_cuda(s, in, out, MEDIAN_GLOBAL, stream);
}

extern "C" int gf_median_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return median_cuda(s, in, out, MEDIAN_SHARED, stream);
}

extern "C" int gf_median_histogram_cuda(const gf_stage *s, const gf_dimage *in,
                                        gf_dimage *out, void *stream)
{
    return median_cuda(s, in, out, MEDIAN_HISTOGRAM, stream);
}
