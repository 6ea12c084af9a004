/* median.c - the median filter stage: --median K, on the stencil framework. */
#include "median.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(gf_median_params) <= GF_STAGE_PARAMS, "median params");

static int check_args(const gf_image *in, const gf_image *out, int k)
{
    if (k < GF_MEDIAN_MIN_SIDE || k > GF_MEDIAN_MAX_SIDE || k % 2 == 0 ||
        out->width != in->width || out->height != in->height || out->channels != in->channels ||
        out->bits != in->bits || !gf_layout_valid(in->channels, in->bits))
        return gf_err(GF_EINTERNAL, NULL, "median: bad arguments (window %dx%d)", k, k);
    return 0;
}

/* ---- The gold reference: for each channel, the padded image the border
 * mode defines (gf_stencil_at, K/2 pixels each side) is written out, then
 * each output sample is the middle value of its K x K window there, found
 * by a counting sort (by the top 4 bits of the byte counted, then by all 8:
 * at most 16 + 16 steps to the middle, where 256 bins took 128 on
 * average). */

/* Counts of bytes: 256 bins and 16 of their top 4 bits. */
typedef struct byte_counts {
    uint32_t fine[256], coarse[16];
} byte_counts;

/* The byte of rank `half` (from 0) among those counted in h, given `below`
 * samples below byte 0; *cum becomes the count below it. */
static unsigned rank_in(const byte_counts *h, int below, int half, int *cum)
{
    unsigned b = 0, m;
    while (below + (int)h->coarse[b] <= half)
        below += (int)h->coarse[b++];
    m = 16 * b;
    while (below + (int)h->fine[m] <= half)
        below += (int)h->fine[m++];
    *cum = below;
    return m;
}

/* The counts of the window's bytes (v >> shift & 255 of each sample v of
 * the k x k window at win, rows pw apart), those with the high byte `hi`
 * only where only_hi; count is +1 to count, 0 to clear. */
static void count_window(byte_counts *h, const uint16_t *win, size_t pw, int k, int shift,
                         int only_hi, unsigned hi, int count)
{
    for (int dy = 0; dy < k; dy++)
        for (int dx = 0; dx < k; dx++) {
            const unsigned v = win[(size_t)dy * pw + (size_t)dx];
            if (only_hi && v >> 8 != hi)
                continue;
            const unsigned byte = v >> shift & 255;
            if (count) {
                h->fine[byte]++;
                h->coarse[byte >> 4]++;
            } else {
                h->fine[byte] = 0;
                h->coarse[byte >> 4] = 0;
            }
        }
}

/* Back to zero counts: the window's bins where it is small, else all. */
static void clear_counts(byte_counts *h, const uint16_t *win, size_t pw, int k, int shift,
                         int only_hi, unsigned hi)
{
    if (k * k <= 64)
        count_window(h, win, pw, k, shift, only_hi, hi, 0);
    else
        memset(h, 0, sizeof *h);
}

int gf_median_gold(const gf_image *in, gf_image *out, int k, gf_border border)
{
    const int w = in->width, h = in->height, r = k / 2, half = k * k / 2;
    const size_t pw = (size_t)w + 2 * (size_t)r, ph = (size_t)h + 2 * (size_t)r;
    const int par = (uint64_t)w * (uint64_t)h * (uint64_t)(k * k) >= 9u * GF_PARALLEL_PIXELS;
    uint16_t *pad; /* pw x ph samples of one channel */
    int rc = check_args(in, out, k);

    (void)par; /* read only by the OpenMP pragmas */
    if (rc)
        return rc;
    if (!(pad = malloc(pw * ph * sizeof *pad)))
        return gf_err(GF_EINTERNAL, NULL, "median: out of memory");
    for (int c = 0; c < in->channels; c++) {
        /* threads only where the work pays for starting them */
#pragma omp parallel for schedule(static) if (par)
        for (long y = 0; y < (long)ph; y++)
            for (size_t x = 0; x < pw; x++)
                pad[(size_t)y * pw + x] =
                    (uint16_t)gf_stencil_at(in, (int)x - r, (int)y - r, c, border);
#pragma omp parallel if (par)
        {
            byte_counts counts;
            memset(&counts, 0, sizeof counts);
#pragma omp for schedule(static)
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    const uint16_t *win = pad + (size_t)y * pw + (size_t)x; /* its top left */
                    unsigned m;
                    int cum;
                    if (in->bits == 8) {
                        count_window(&counts, win, pw, k, 0, 0, 0, 1);
                        m = rank_in(&counts, 0, half, &cum);
                        clear_counts(&counts, win, pw, k, 0, 0, 0);
                    } else { /* the high byte, then the low byte among those with it */
                        count_window(&counts, win, pw, k, 8, 0, 0, 1);
                        const unsigned hi = rank_in(&counts, 0, half, &cum);
                        clear_counts(&counts, win, pw, k, 8, 0, 0);
                        count_window(&counts, win, pw, k, 0, 1, hi, 1);
                        m = hi << 8 | rank_in(&counts, cum, half, &cum);
                        clear_counts(&counts, win, pw, k, 0, 1, hi);
                    }
                    gf_sample_set(out, x, y, c, m);
                }
        }
    }
    free(pad);
    return 0;
}

/* ---- The fast path's rules (stencil.h; no row rule: the ring holds the
 * padded rows, sample c of the window's column d of output sample i at
 * i + d * C). */

#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define MAX_(a, b) ((a) < (b) ? (b) : (a))
/* A network step on the named values v<a>, v<b> of the loops below, whose
 * functions name their sample type sample_t. */
#define NET_STEP(dst, OP, a, b) const sample_t v##dst = OP##_(v##a, v##b);
/* A compare-exchange of the named column values c<a>, c<b>. */
#define COL_CS(a, b)                                                                          \
    {                                                                                         \
        const sample_t t_ = MIN_(c##a, c##b);                                                 \
        c##b = MAX_(c##a, c##b);                                                              \
        c##a = t_;                                                                            \
    }

/* 3x3: each output's three columns sorted, then GF_MEDIAN3_NET, in one loop
 * over the row that the compiler turns into vector minima and maxima
 * (target_clones: AVX-512, AVX2 and baseline x86-64). */
#define COL3(NAME, T)                                                                         \
    static inline void NAME##_net(const T *restrict r0, const T *restrict r1,                 \
                                  const T *restrict r2, T *restrict o, size_t n, size_t C)    \
    {                                                                                         \
        typedef T sample_t;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                      \
            T c0 = r0[i], c1 = r1[i], c2 = r2[i];                                             \
            GF_MEDIAN_SORT3(COL_CS)                                                           \
            const T v0 = c0, v3 = c1, v6 = c2;                                                \
            c0 = r0[i + C], c1 = r1[i + C], c2 = r2[i + C];                                   \
            GF_MEDIAN_SORT3(COL_CS)                                                           \
            const T v1 = c0, v4 = c1, v7 = c2;                                                \
            c0 = r0[i + 2 * C], c1 = r1[i + 2 * C], c2 = r2[i + 2 * C];                       \
            GF_MEDIAN_SORT3(COL_CS)                                                           \
            const T v2 = c0, v5 = c1, v8 = c2;                                                \
            GF_MEDIAN3_NET(NET_STEP)                                                          \
            o[i] = v20;                                                                       \
        }                                                                                     \
    }                                                                                         \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src, unsigned char *out, \
                               void *acc, int first)                                          \
    {                                                                                         \
        (void)gone, (void)src, (void)acc, (void)first;                                        \
        NAME##_net(win[0], win[1], win[2], (T *)(void *)out, j->n, (size_t)j->channels);     \
    }
COL3(col3_8, uint8_t)
COL3(col3_16, uint16_t)

/* 5x5: the row's np columns sorted once into five rows of ranks s0..s4
 * (each column serves five outputs), then GF_MEDIAN5_NET on each output's
 * 25 ranks; both loops vectorise. The rows and ranks come in as restrict
 * parameters, which GCC keeps through inlining: restrict pointers derived
 * in the function from the one scratch pointer it took for possible
 * aliases, and left the loops scalar. */
#define COL5(NAME, T)                                                                         \
    static inline void NAME##_sort(const T *restrict r0, const T *restrict r1,                \
                                   const T *restrict r2, const T *restrict r3,                \
                                   const T *restrict r4, T *restrict s0, T *restrict s1,      \
                                   T *restrict s2, T *restrict s3, T *restrict s4, size_t np) \
    {                                                                                         \
        typedef T sample_t;                                                                   \
        for (size_t i = 0; i < np; i++) {                                                     \
            T c0 = r0[i], c1 = r1[i], c2 = r2[i], c3 = r3[i], c4 = r4[i];                     \
            GF_MEDIAN_SORT5(COL_CS)                                                           \
            s0[i] = c0, s1[i] = c1, s2[i] = c2, s3[i] = c3, s4[i] = c4;                       \
        }                                                                                     \
    }                                                                                         \
    static inline void NAME##_net(const T *restrict s0, const T *restrict s1,                 \
                                  const T *restrict s2, const T *restrict s3,                 \
                                  const T *restrict s4, T *restrict o, size_t n, size_t C)    \
    {                                                                                         \
        typedef T sample_t;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                      \
            const T v0 = s0[i], v1 = s0[i + C], v2 = s0[i + 2 * C], v3 = s0[i + 3 * C],       \
                    v4 = s0[i + 4 * C];                                                       \
            const T v5 = s1[i], v6 = s1[i + C], v7 = s1[i + 2 * C], v8 = s1[i + 3 * C],       \
                    v9 = s1[i + 4 * C];                                                       \
            const T v10 = s2[i], v11 = s2[i + C], v12 = s2[i + 2 * C], v13 = s2[i + 3 * C],   \
                    v14 = s2[i + 4 * C];                                                      \
            const T v15 = s3[i], v16 = s3[i + C], v17 = s3[i + 2 * C], v18 = s3[i + 3 * C],   \
                    v19 = s3[i + 4 * C];                                                      \
            const T v20 = s4[i], v21 = s4[i + C], v22 = s4[i + 2 * C], v23 = s4[i + 3 * C],   \
                    v24 = s4[i + 4 * C];                                                      \
            GF_MEDIAN5_NET(NET_STEP)                                                          \
            o[i] = v142;                                                                      \
        }                                                                                     \
    }                                                                                         \
    GF_CLONES static void NAME(const gf_stencil_job *j, const void *const *win,               \
                               const void *gone, const unsigned char *src, unsigned char *out, \
                               void *acc, int first)                                          \
    {                                                                                         \
        const size_t n = j->n, C = (size_t)j->channels, np = n + 4 * C;                      \
        T *s = acc;                                                                           \
        (void)gone, (void)src, (void)first;                                                   \
        NAME##_sort(win[0], win[1], win[2], win[3], win[4], s, s + np, s + 2 * np,            \
                    s + 3 * np, s + 4 * np, np);                                              \
        NAME##_net(s, s + np, s + 2 * np, s + 3 * np, s + 4 * np, (T *)(void *)out, n, C);    \
    }
COL5(col5_8, uint8_t)
COL5(col5_16, uint16_t)

/* K >= 7, 8-bit: Perreault and Hebert's constant-time median. `acc` holds
 * a histogram of each padded column's K samples, a record of PH_REC bytes
 * each (16 coarse counts of the top 4 bits, then 256 fine counts; a count
 * is at most K < 256), slid down the rows: the row that left the window
 * out, the new one in. Along each channel's row the window's coarse
 * histogram slides (one column's counts in, one out), the coarse bin of
 * the median is found from it, and the window's fine counts of that bin
 * alone are brought up to date: slid from where they were last made if
 * that is at most half a window back, else summed afresh from the K
 * columns (the paper's lazy fine histogram, section III.C).
 *
 * The window's 16 counts of a level are one vector of 16-bit lanes (GCC's
 * vector extensions, compiled for each of GF_CLONES' targets: the sixteen
 * lanes are too few for the loop vectoriser, which left them scalar), and
 * the bin holding the median is found without a branch on the counts:
 * prefix sums by four shifted adds, a compare against the median's rank,
 * and one sum of the lanes that packs how many bins lie below it (bits
 * 12-15) with how many samples they hold (bits 0-11: at most K*K = 3969). */
#define PH_REC 272

typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint8_t u8x16 __attribute__((vector_size(16)));

/* The 16 counts at p (bytes, any alignment), and as 16-bit lanes (a
 * macro, as find16 takes a pointer: 32-byte vectors passed by value would
 * change the ABI of the baseline clone, which has no AVX). */
static inline u8x16 load_u8x16(const unsigned char *p)
{
    u8x16 v;
    memcpy(&v, p, sizeof v);
    return v;
}
#define LOAD_COUNTS(p) __builtin_convertvector(load_u8x16(p), u16x16)

/* The bin of the 16 counts *hp that holds the sample of rank half (from 0),
 * given cum samples in the bins below h's: the first q with cum + h[0] +
 * ... + h[q] > half (one exists); *cum becomes the count below bin q. */
static inline int find16(const u16x16 *hp, unsigned *cum, unsigned half)
{
    const u16x16 z = {0}, h = *hp;
    /* Lane i of SHR(v, n) is v[i - n], 0 below lane n; lane i of FOLD(v, n)
     * is v[(i % n) + n] (n = 8, 4, 2, 1): the upper half of each group of 2n. */
#define SHR1(v) __builtin_shufflevector(v, z, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
#define SHR2(v) __builtin_shufflevector(v, z, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
#define SHR4(v) __builtin_shufflevector(v, z, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
#define SHR8(v) __builtin_shufflevector(v, z, 16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7)
#define FOLD8(v) __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15)
#define FOLD4(v) __builtin_shufflevector(v, v, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7)
#define FOLD2(v) __builtin_shufflevector(v, v, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3)
#define FOLD1(v) __builtin_shufflevector(v, v, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
    u16x16 p = h + SHR1(h);
    p += SHR2(p);
    p += SHR4(p);
    p += SHR8(p);
    const u16x16 below = (u16x16)(p + (uint16_t)*cum <= (uint16_t)half); /* lanes of 0xffff */
    const u16x16 tag = {0x1000, 0x1000, 0x1000, 0x1000, 0x1000, 0x1000, 0x1000, 0x1000,
                        0x1000, 0x1000, 0x1000, 0x1000, 0x1000, 0x1000, 0x1000, 0x1000};
    u16x16 r = (h & below) | (below & tag);
    r += FOLD8(r);
    r += FOLD4(r);
    r += FOLD2(r);
    r += FOLD1(r);
#undef SHR1
#undef SHR2
#undef SHR4
#undef SHR8
#undef FOLD8
#undef FOLD4
#undef FOLD2
#undef FOLD1
    *cum += r[0] & 0xfffu;
    return r[0] >> 12;
}

GF_CLONES static void col_ph(const gf_stencil_job *j, const void *const *win, const void *gone,
                             const unsigned char *src, unsigned char *out, void *accv, int first)
{
    const int K = j->kw, W = j->width, C = j->channels, stale = K / 2;
    const size_t np = (size_t)(W + K - 1) * (size_t)C, rec_c = (size_t)C * PH_REC;
    const unsigned half = (unsigned)(K * K / 2);
    unsigned char *restrict H = accv;
    uint8_t *restrict o = out;

    (void)src;
    if (first) {
        memset(H, 0, np * PH_REC);
        for (int k = 0; k < K; k++) {
            const uint8_t *row = win[k];
            for (size_t p = 0; p < np; p++) {
                unsigned char *rec = H + p * PH_REC;
                rec[row[p] >> 4]++;
                rec[16 + row[p]]++;
            }
        }
    } else {
        const uint8_t *restrict nw = win[K - 1], *restrict gn = gone;
        for (size_t p = 0; p < np; p++) {
            unsigned char *rec = H + p * PH_REC;
            const unsigned v = nw[p], u = gn[p];
            rec[u >> 4]--;
            rec[16 + u]--;
            rec[v >> 4]++;
            rec[16 + v]++;
        }
    }
    for (int c = 0; c < C; c++) {
        const unsigned char *col = H + (size_t)c * PH_REC; /* the channel's first column */
        u16x16 kc = {0}, kf[16];
        int stamp[16];
        for (int q = 0; q < 16; q++)
            stamp[q] = -1 - K; /* never made */
        for (int d = 0; d < K; d++)
            kc += LOAD_COUNTS(col + (size_t)d * rec_c);
        for (int x = 0; x < W; x++) {
            const unsigned char *left = col + (size_t)x * rec_c; /* the window's first column */
            if (x)
                kc += LOAD_COUNTS(left + (size_t)(K - 1) * rec_c) - LOAD_COUNTS(left - rec_c);
            unsigned cum = 0;
            const int b = find16(&kc, &cum, half);
            const size_t fb = 16 + 16 * (size_t)b; /* bin b's fine counts in a record */
            u16x16 f = kf[b];
            if (x - stamp[b] > stale) {
                f = LOAD_COUNTS(left + fb);
                for (int d = 1; d < K; d++)
                    f += LOAD_COUNTS(left + (size_t)d * rec_c + fb);
            } else {
                for (int xs = stamp[b] + 1; xs <= x; xs++) {
                    const unsigned char *l = col + (size_t)xs * rec_c;
                    f += LOAD_COUNTS(l + (size_t)(K - 1) * rec_c + fb) -
                         LOAD_COUNTS(l - rec_c + fb);
                }
            }
            kf[b] = f;
            stamp[b] = x;
            o[(size_t)x * C + c] = (uint8_t)(16 * b + find16(&f, &cum, half));
        }
    }
}

/* K >= 7, 16-bit: Huang's sliding histogram along each channel's row, on
 * three levels of counts in `acc` (zero between calls): 256 by the top 8
 * bits, 4096 by the top 12 and 65536 by all 16. As the window moves one
 * pixel right, its left column's K samples leave and the new right
 * column's enter; the median's top-level bin mb is tracked with lt, the
 * count of samples in the bins below it (Huang's "ltmdn"), and the median
 * found within mb through the lower levels, 16 bins of each (find16). */
#define H16_BYTES ((256 + 4096 + 65536) * sizeof(uint16_t))

GF_CLONES static void col_huang16(const gf_stencil_job *j, const void *const *win,
                                  const void *gone, const unsigned char *src, unsigned char *out,
                                  void *accv, int first)
{
    const int K = j->kw, W = j->width, C = j->channels, half = K * K / 2;
    uint16_t *restrict h1 = accv, *restrict h2 = h1 + 256, *restrict h3 = h2 + 4096;
    uint16_t *restrict o = (uint16_t *)(void *)out;
    const uint16_t *rows[GF_MEDIAN_MAX_SIDE];

    (void)gone, (void)src;
    if (first)
        memset(h1, 0, H16_BYTES);
    for (int k = 0; k < K; k++)
        rows[k] = win[k];
    for (int c = 0; c < C; c++) {
        unsigned mb = 0;
        int lt = 0;
        for (int k = 0; k < K; k++)
            for (int d = 0; d < K; d++) {
                const unsigned v = rows[k][d * C + c];
                h1[v >> 8]++, h2[v >> 4]++, h3[v]++;
            }
        for (int x = 0; x < W; x++) {
            if (x)
                for (int k = 0; k < K; k++) {
                    const unsigned u = rows[k][(size_t)(x - 1) * C + c],
                                   v = rows[k][(size_t)(x + K - 1) * C + c];
                    h1[u >> 8]--, h2[u >> 4]--, h3[u]--;
                    h1[v >> 8]++, h2[v >> 4]++, h3[v]++;
                    lt += ((v >> 8) < mb) - ((u >> 8) < mb);
                }
            while (lt > half)
                lt -= h1[--mb];
            while (lt + h1[mb] <= half)
                lt += h1[mb++];
            unsigned cum = (unsigned)lt;
            u16x16 v16;
            memcpy(&v16, h2 + mb * 16, sizeof v16);
            const unsigned q = mb * 16 + (unsigned)find16(&v16, &cum, (unsigned)half);
            memcpy(&v16, h3 + q * 16, sizeof v16);
            o[(size_t)x * C + c] =
                (uint16_t)(q * 16 + (unsigned)find16(&v16, &cum, (unsigned)half));
        }
        for (int k = 0; k < K; k++) /* the counts back to zero */
            for (int d = 0; d < K; d++) {
                const unsigned v = rows[k][(size_t)(W - 1 + d) * C + c];
                h1[v >> 8]--, h2[v >> 4]--, h3[v]--;
            }
    }
}

int gf_median_cpu(const gf_image *in, gf_image *out, int k, gf_border border)
{
    const int b16 = in->bits == 16;
    const size_t n = (size_t)in->width * (size_t)in->channels;
    const size_t np = (size_t)(in->width + k - 1) * (size_t)in->channels;
    const gf_stencil_job j = {NULL, NULL, in->width, in->height, in->channels, in->bits,
                              k, k, border, n};
    gf_stencil_cpu r = {NULL, 0, NULL, 0};
    size_t need = 0; /* bytes of acc */
    int rc = check_args(in, out, k);

    if (rc)
        return rc;
    if (k == 3) {
        r.col = b16 ? col3_16 : col3_8;
    } else if (k == 5) {
        r.col = b16 ? col5_16 : col5_8;
        need = 5 * np * (b16 ? 2 : 1);
    } else if (!b16) {
        r.col = col_ph;
        need = np * PH_REC;
    } else {
        r.col = col_huang16;
        need = H16_BYTES;
    }
    r.acc_bytes = (need + n - 1) / n;
    return gf_stencil_cpu_run(&r, &j, in, out);
}

/* ---- The stage. */

static int median_gold(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_median_params *p = GF_CPARAMS(s, gf_median_params);
    return gf_median_gold(in, out, p->kw, p->border);
}

static int median_cpu(const gf_stage *s, const gf_image *in, gf_image *out)
{
    const gf_median_params *p = GF_CPARAMS(s, gf_median_params);
    return gf_median_cpu(in, out, p->kw, p->border);
}

static int median_in_place(const gf_stage *s, gf_image *img)
{
    return median_cpu(s, img, img);
}

static void median_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "median %d", GF_CPARAMS(s, gf_median_params)->kw);
}

static int parse_median(gf_stage *s, const char *arg)
{
    gf_median_params *p = GF_PARAMS(s, gf_median_params);
    int k;

    p->border.mode = GF_BORDER_REPLICATE;
    if (gf_parse_int("--median", arg, 0, 65535, &k) || k < GF_MEDIAN_MIN_SIDE ||
        k > GF_MEDIAN_MAX_SIDE || k % 2 == 0)
        return gf_err(GF_EUSAGE, NULL, "--median: size must be K, odd, %d..%d, not '%s'",
                      GF_MEDIAN_MIN_SIDE, GF_MEDIAN_MAX_SIDE, arg);
    p->kw = p->kh = k;
    return 0;
}

/* Test configurations: 3 and 5 with every border mode (a random constant
 * within 8 bits, so it suits every layout), then 7 and 15, and last the
 * slow ones, 31 and 63 (their gold takes minutes on 8000x8000, which make
 * test-gpu leaves them: .large_configs). Bench: 3, 5 and 15, replicate. */
static int median_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    static const int bench_k[] = {3, 5, 15}, big_k[] = {7, 15, 31, 63};
    gf_median_params *p = GF_PARAMS(s, gf_median_params);

    if (bench) {
        if (i >= 3)
            return 0;
        p->kw = p->kh = bench_k[i];
        p->border.mode = GF_BORDER_REPLICATE;
        p->border.value = 0;
        return 1;
    }
    if (i >= 10)
        return 0;
    if (i < 6) {
        p->kw = p->kh = i % 2 ? 5 : 3;
        p->border.mode = modes[i / 2];
    } else {
        p->kw = p->kh = big_k[i - 6];
        p->border.mode = modes[(i - 6) % 3];
    }
    p->border.value = p->border.mode == GF_BORDER_CONSTANT ? (int)(gf_rand(rng) & 255) : 0;
    return 1;
}

static const gf_stage_opt median_opts[] = {
    {"median", "K", "median filter: the median of each channel's K x K window (K odd, 3-63)",
     GF_OPT_ADD, parse_median},
    GF_STENCIL_BORDER_OPT,
    {NULL, NULL, NULL, 0, NULL},
};

static const gf_variant median_variants[] = {
    {"global", GF_CUDA(gf_median_global_cuda)},
    {"shared", GF_CUDA(gf_median_shared_cuda)},
    {"histogram", GF_CUDA(gf_median_histogram_cuda)},
    {NULL, NULL},
};

/* `histogram` picks its method by K (the register networks for 3 and 5,
 * the sliding histogram from 7); measured the fastest at 3, 5 and 15 on the
 * H100 (docs/benchmarks.md). */
static const gf_default median_defaults[] = {
    {0, 0, "histogram"},
    {0, 0, NULL},
};

/* cpu_cost: 5x5 on 8-bit gray, one thread, this machine (2-core Xeon,
 * AVX-512): 16 ms for 5120x2880, 1.1 ns a byte; 3x3 takes 0.23, and K >= 7
 * 20-40 (Perreault-Hebert, 8-bit) or 40-60 (16-bit): median_cost gives
 * --backend auto each. */
static double median_cost(const gf_stage *s, const gf_shape *in)
{
    const int k = GF_CPARAMS(s, gf_median_params)->kw;
    return k == 3 ? 0.23 : k == 5 ? 1.1 : in->bits == 8 ? 30.0 : 50.0;
}

const gf_stage_ops gf_stage_median = {
    .cpu_cost = 1.1,
    .cpu_cost_of = median_cost,
    .name = "median",
    .group = "median",
    .opts = median_opts,
    .variants = median_variants,
    .defaults = median_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = gf_stencil_check,
    .label = median_label,
    .gold = median_gold,
    .cpu = median_cpu,
    .cpu_in_place = median_in_place,
    .config = median_config,
    .large_configs = 8,
};
