/* resize.cu - the resize stage on the device (src/stages/resize.h's rule,
 * Pillow 9.4's Image.resize). The weights come from the host's
 * gf_resize_axis_init, the same as the CPU paths use, computed once per
 * geometry and kept on the device (tables below); the exact kernels sum them
 * with the same roundings, in Pillow's pass order (rows, then columns).
 * Double sums use __dmul_rn / __dadd_rn, so that no multiply-add is
 * contracted. Variants:
 *   global   a thread an output sample in each pass, weights and sources
 *            read from global memory (the baseline);
 *   shared   8 bits: the row pass stages a block of 32 input rows in shared
 *            memory as planes of one channel (16-byte loads, the alpha
 *            layouts premultiplied there) and sums four taps at a time with
 *            dp4a (the 22-bit weights as three byte planes); the column pass
 *            sums four samples of a 32-bit word a thread; 16 bits and
 *            nearest: the global kernels;
 *   texture  hardware bilinear filtering (cudaFilterModeLinear): two taps of
 *            one sign become one fetch between them, weighted by their sum.
 *            Its 8-bit fractions make it inexact (gf_stage_ops.inexact). */
#include "check.h"

#include "../src/stages/resize.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Threads a block: 32 output pixels of a row (a warp) by 8 rows. */
#define RS_BX 32
#define RS_BY 8

/* One pass of the separable resampling, a thread an output pixel of
 * ow x oh: along x (HORIZ) or y, from source samples S (uint8_t input or
 * row pass, uint16_t input, int32_t row pass) to D (uint8_t, int32_t for
 * the row pass at 16 bits, uint16_t the final 16-bit samples). The sources
 * of output index i are first[i] .. first[i] + count[i] - 1 with weights
 * at i * ksize (k8 at 8 bits, k at 16). premul: the source is the 8-bit
 * input with alpha last, premultiplied as it is read; unpremul: the result
 * is divided back by its alpha (the last pass). */
template <typename S, typename D, int C, bool HORIZ>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    resize_global_kernel(const unsigned char *__restrict__ src, size_t spitch,
                         unsigned char *__restrict__ dst, size_t dpitch, int ow, int oh,
                         const int *__restrict__ first, const int *__restrict__ count,
                         const int32_t *__restrict__ k8, const double *__restrict__ k, int ksize,
                         int premul, int unpremul)
{
    const int x = blockIdx.x * RS_BX + threadIdx.x, y = blockIdx.y * RS_BY + threadIdx.y;
    if (x >= ow || y >= oh)
        return;
    const int i = HORIZ ? x : y, lo = first[i], n = count[i];
    D *out = (D *)(dst + (size_t)y * dpitch) + (size_t)x * C;

    if (sizeof(S) == 1) { /* 8 bits: fixed point */
        int32_t ss[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            ss[c] = 1 << (GF_RESIZE_BITS - 1);
        for (int j = 0; j < n; j++) {
            const int sx = HORIZ ? lo + j : x, sy = HORIZ ? y : lo + j;
            const S *p = (const S *)(src + (size_t)sy * spitch) + (size_t)sx * C;
            const int32_t w = k8[(size_t)i * ksize + j];
            const unsigned a = p[C - 1];
#pragma unroll
            for (int c = 0; c < C; c++) {
                unsigned v = p[c];
                if (premul && c < C - 1)
                    v = gf_resize_premul(v, a);
                ss[c] += (int32_t)v * w;
            }
        }
        /* the alpha first: each colour is divided by the result's alpha.
         * Through a volatile: CUDA 13.0's ptxas (sm_90, -O1 to -O3, and the
         * driver's JIT) otherwise mis-derived this clamped alpha and left the
         * first colour, or with selects every colour, premultiplied
         * (test_gpu; -Xptxas -O0 and this copy divide correctly). */
        volatile unsigned va = gf_resize_clip8(ss[C - 1]);
        const unsigned a = va;
#pragma unroll
        for (int c = 0; c < C; c++) {
            unsigned r = gf_resize_clip8(ss[c]);
            if (unpremul && c < C - 1)
                r = gf_resize_unpremul(r, a);
            out[c] = (D)r;
        }
    } else { /* 16 bits: Pillow's mode I, double sums */
        double ss[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            ss[c] = 0.0;
        for (int j = 0; j < n; j++) {
            const int sx = HORIZ ? lo + j : x, sy = HORIZ ? y : lo + j;
            const S *p = (const S *)(src + (size_t)sy * spitch) + (size_t)sx * C;
            const double w = k[(size_t)i * ksize + j];
#pragma unroll
            for (int c = 0; c < C; c++)
                ss[c] = __dadd_rn(ss[c], __dmul_rn((double)p[c], w));
        }
#pragma unroll
        for (int c = 0; c < C; c++) {
            const int32_t r = gf_resize_round(ss[c]);
            out[c] = sizeof(D) == 4 ? (D)r : (D)gf_resize_clip16(r);
        }
    }
}

/* Nearest: a gather through the index tables (-1: Pillow's 0). */
template <typename T, int C>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    resize_nearest_kernel(const unsigned char *__restrict__ src, size_t spitch,
                          unsigned char *__restrict__ dst, size_t dpitch, int ow, int oh,
                          const int *__restrict__ sxs, const int *__restrict__ sys)
{
    const int x = blockIdx.x * RS_BX + threadIdx.x, y = blockIdx.y * RS_BY + threadIdx.y;
    if (x >= ow || y >= oh)
        return;
    const int sx = sxs[x], sy = sys[y];
    T *out = (T *)(dst + (size_t)y * dpitch) + (size_t)x * C;
#pragma unroll
    for (int c = 0; c < C; c++)
        out[c] = sx < 0 || sy < 0 ? (T)0 : ((const T *)(src + (size_t)sy * spitch))[(size_t)sx * C + c];
}

/* ---- the tables of an axis on the device ---- */

/* What a table holds for one axis of in -> out pixels. */
enum {
    TAB_AXIS = 0, /* gf_resize_axis's first, count, k8, k (nearest: src) */
    TAB_PACKED,   /* the shared row pass's groups of four taps, for `channels` */
    TAB_FETCH     /* the texture variant's fetches */
};

/* Rows of input a block of the shared row pass: a warp's lanes, one each. */
#define RH_ROWS 32
#define RH_WARPS 8
/* Pixels a staging step of a thread: 2 x 16, a whole 32-byte sector of
 * 8-bit gray. */
#define RH_CHUNK 32
/* Most outputs a block of the row pass. */
#define RH_TILE 64
/* Dynamic shared memory a block of the row pass may take (staged planes and
 * the output tile): under the 48 KB a launch takes without opting in. */
#define RH_SMEM (46 * 1024)

/* A table's pointers on the device (those of its kind; the rest NULL). */
typedef struct tab_view {
    const int *first, *count, *src;
    const int32_t *k8;
    const double *k;
    int ksize;
    /* TAB_PACKED: output o sums ng[o] groups of four taps from source pixel
     * base[o] (a multiple of 4), weights w[goff[o] ..]: .x, .y the bits 0-7
     * and 8-15 of each tap's weight, .z bits 16-23 (signed), a byte a tap.
     * tile outputs a block, staged rows of pitch words (odd); tile 0: the
     * taps do not fit shared memory (or a weight is not within +-2^23): the
     * global kernel instead. */
    const int *base, *ng, *goff;
    const uint4 *w;
    int tile, pitch;
    /* TAB_FETCH: output i takes nf[i] fetches at source coordinates
     * pos[i * fmax ..] (texel centres at + 0.5) with weights fw[..]. */
    const float *pos, *fw;
    const int *nf;
    int fmax;
} tab_view;

/* A table being built on the host: its bytes, each array at a 256-byte
 * offset, and the view with offsets in place of pointers. */
typedef struct blob {
    unsigned char *h;
    size_t n, cap;
    int failed;
} blob;

/* Bytes of a row of the row pass's output tile (t outputs of C samples): an
 * odd count of words, so that the lanes' rows fall in different banks. */
__host__ __device__ static inline int tile_stride(int t, int C)
{
    return 4 * (((t * C + 3) / 4) | 1);
}

static size_t round_up(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

/* Appends bytes of data; returns their offset (never 0, which stands for
 * no array until relocate()). */
static size_t blob_add(blob *b, const void *data, size_t bytes)
{
    const size_t off = round_up(b->n ? b->n : 1);
    if (off + bytes > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < off + bytes)
            cap *= 2;
        unsigned char *h = (unsigned char *)realloc(b->h, cap);
        if (!h) {
            b->failed = 1;
            return 0;
        }
        b->h = h;
        b->cap = cap;
    }
    if (bytes)
        memcpy(b->h + off, data, bytes);
    b->n = off + bytes;
    return off;
}

#define AT(type, off) ((type)(uintptr_t)(off)) /* an offset, until relocated */

static void tab_axis(const gf_resize_axis *a, blob *b, tab_view *v)
{
    if (a->src) {
        v->src = AT(const int *, blob_add(b, a->src, (size_t)a->out * sizeof(int)));
        return;
    }
    v->first = AT(const int *, blob_add(b, a->first, (size_t)a->out * sizeof(int)));
    v->count = AT(const int *, blob_add(b, a->count, (size_t)a->out * sizeof(int)));
    v->k8 = AT(const int32_t *,
               blob_add(b, a->k8, (size_t)a->out * a->ksize * sizeof(int32_t)));
    v->k = AT(const double *, blob_add(b, a->k, (size_t)a->out * a->ksize * sizeof(double)));
    v->ksize = a->ksize;
}

/* The row pass's tiles for C channels: the most outputs a block (a power of
 * two up to RH_TILE) whose staged rows fit RH_SMEM, into *tile and *pitch;
 * *tile 0 when even one output's do not. Output o's sources lie in
 * [base[o], end4(o)), both nondecreasing in o; a block stages whole chunks of
 * RH_CHUNK pixels from its first output's. */
static void pick_tile(const gf_resize_axis *a, const int *base, int C, int *tile, int *pitch)
{
    for (int t = RH_TILE; t >= 1; t /= 2) {
        int words = 1;
        for (int o0 = 0; o0 < a->out; o0 += t) {
            const int o1 = o0 + t < a->out ? o0 + t : a->out;
            const int xb = base[o0] & ~(RH_CHUNK - 1);
            const int e = (a->first[o1 - 1] + a->count[o1 - 1] + 3) & ~3;
            const int xe = (e + RH_CHUNK - 1) & ~(RH_CHUNK - 1);
            if ((xe - xb) / 4 > words)
                words = (xe - xb) / 4;
        }
        words |= 1; /* odd: the lanes' rows fall in different banks */
        const size_t tbytes = (size_t)RH_ROWS * tile_stride(t, C);
        if ((size_t)C * RH_ROWS * words * 4 + tbytes <= RH_SMEM) {
            *tile = t;
            *pitch = words;
            return;
        }
    }
    *tile = 0;
    *pitch = 0;
}

static void tab_packed(const gf_resize_axis *a, int C, blob *b, tab_view *v)
{
    int *base = (int *)malloc((size_t)a->out * sizeof(int));
    int *ng = (int *)malloc((size_t)a->out * sizeof(int));
    int *goff = (int *)malloc((size_t)a->out * sizeof(int));
    uint4 *w = NULL;
    size_t groups = 0;
    int fits = 1;

    if (!base || !ng || !goff) {
        b->failed = 1;
        goto out;
    }
    for (int o = 0; o < a->out; o++) {
        base[o] = a->first[o] & ~3;
        ng[o] = (a->first[o] + a->count[o] - base[o] + 3) / 4;
        goff[o] = (int)groups;
        groups += (size_t)ng[o];
    }
    if (groups > (size_t)INT32_MAX || !(w = (uint4 *)calloc(groups ? groups : 1, sizeof *w))) {
        b->failed = 1;
        goto out;
    }
    for (int o = 0; o < a->out; o++)
        for (int g = 0; g < ng[o]; g++) {
            uint4 q = {0, 0, 0, 0};
            for (int i = 0; i < 4; i++) {
                const int j = base[o] + 4 * g + i - a->first[o];
                const int32_t k = j >= 0 && j < a->count[o] ? a->k8[(size_t)o * a->ksize + j] : 0;
                const int32_t hi = k >> 16; /* arithmetic: the signed top byte */
                if (hi < -128 || hi > 127)
                    fits = 0;
                q.x |= ((unsigned)k & 0xffu) << (8 * i);
                q.y |= ((unsigned)k >> 8 & 0xffu) << (8 * i);
                q.z |= ((unsigned)hi & 0xffu) << (8 * i);
            }
            w[goff[o] + g] = q;
        }
    pick_tile(a, base, C, &v->tile, &v->pitch);
    if (!fits)
        v->tile = 0;
    v->base = AT(const int *, blob_add(b, base, (size_t)a->out * sizeof(int)));
    v->ng = AT(const int *, blob_add(b, ng, (size_t)a->out * sizeof(int)));
    v->goff = AT(const int *, blob_add(b, goff, (size_t)a->out * sizeof(int)));
    v->w = AT(const uint4 *, blob_add(b, w, groups * sizeof *w));
out:
    free(base);
    free(ng);
    free(goff);
    free(w);
}

/* The texture variant's fetches: taps j and j + 1 of one sign (and a
 * nonzero sum) become one linear fetch at lo + j + 0.5 + k[j+1] / (k[j] +
 * k[j+1]) weighted k[j] + k[j+1]; any other tap a fetch at its texel's
 * centre. */
static void tab_fetch(const gf_resize_axis *a, blob *b, tab_view *v)
{
    const size_t n = (size_t)a->out * a->ksize;
    float *pos = (float *)malloc(n * sizeof(float)), *fw = (float *)malloc(n * sizeof(float));
    int *nf = (int *)malloc((size_t)a->out * sizeof(int));

    if (!pos || !fw || !nf) {
        b->failed = 1;
        goto out;
    }
    for (int i = 0; i < a->out; i++) {
        const double *k = a->k + (size_t)i * a->ksize;
        float *p = pos + (size_t)i * a->ksize, *q = fw + (size_t)i * a->ksize;
        int f = 0;
        for (int j = 0; j < a->count[i]; f++) {
            const double s = j + 1 < a->count[i] ? k[j] + k[j + 1] : 0.0;
            if (j + 1 < a->count[i] && k[j] * k[j + 1] >= 0.0 && s != 0.0) {
                p[f] = (float)(a->first[i] + j + 0.5 + k[j + 1] / s);
                q[f] = (float)s;
                j += 2;
            } else {
                p[f] = (float)(a->first[i] + j + 0.5);
                q[f] = (float)k[j];
                j++;
            }
        }
        nf[i] = f;
    }
    v->pos = AT(const float *, blob_add(b, pos, n * sizeof(float)));
    v->fw = AT(const float *, blob_add(b, fw, n * sizeof(float)));
    v->nf = AT(const int *, blob_add(b, nf, (size_t)a->out * sizeof(int)));
    v->fmax = a->ksize;
out:
    free(pos);
    free(fw);
    free(nf);
}

/* v's offsets made pointers into base (device). */
static void relocate(tab_view *v, const unsigned char *base)
{
#define R(f) v->f = v->f ? (decltype(v->f))(base + (uintptr_t)v->f) : NULL
    R(first); R(count); R(src); R(k8); R(k); R(base); R(ng); R(goff); R(w); R(pos); R(fw);
    R(nf);
#undef R
}

/* Built tables are kept on the device for the life of the process (the
 * next image of the same geometry takes them as they are), TAB_CACHE of them
 * and TAB_CACHE_BYTES at most; past that a table is built for the call and
 * freed after it. Entries are never freed: a kernel in flight on any stream
 * may read them. */
#define TAB_CACHE 64
#define TAB_CACHE_BYTES ((size_t)256 << 20)

typedef struct tab_key {
    int device, kind, in, out, filter, channels;
} tab_key;

static struct {
    pthread_mutex_t lock;
    int n;
    size_t bytes;
    struct {
        tab_key key;
        tab_view view;
    } e[TAB_CACHE];
} cache = {PTHREAD_MUTEX_INITIALIZER, 0, 0, {}};

/* The table of `kind` for an axis of in -> out pixels with filter f (and C
 * channels, for TAB_PACKED) into *v: from the cache, or built; when it could
 * not be cached, *tmp is device memory the caller frees with cudaFreeAsync
 * on st after its kernels (else NULL). Errors: GF_EINTERNAL. */
static int tab_get(int kind, int in, int out, gf_resize_filter f, int C, cudaStream_t st,
                   tab_view *v, unsigned char **tmp)
{
    tab_key key;
    gf_resize_axis a;
    blob b = {NULL, 0, 0, 0};
    unsigned char *mem = NULL;
    int rc, cached = 0;

    memset(&key, 0, sizeof key);
    memset(v, 0, sizeof *v);
    *tmp = NULL;
    GF_CUDA_CHECK(cudaGetDevice(&key.device));
    key.kind = kind;
    key.in = in;
    key.out = out;
    key.filter = (int)f;
    key.channels = kind == TAB_PACKED ? C : 0;
    pthread_mutex_lock(&cache.lock);
    for (int i = 0; i < cache.n; i++)
        if (!memcmp(&cache.e[i].key, &key, sizeof key)) {
            *v = cache.e[i].view;
            pthread_mutex_unlock(&cache.lock);
            return 0;
        }
    pthread_mutex_unlock(&cache.lock);

    if ((rc = gf_resize_axis_init(&a, in, out, f)))
        return rc;
    if (kind == TAB_AXIS || a.src)
        tab_axis(&a, &b, v);
    else if (kind == TAB_PACKED)
        tab_packed(&a, C, &b, v);
    else
        tab_fetch(&a, &b, v);
    gf_resize_axis_free(&a);
    if (b.failed) {
        free(b.h);
        return gf_err(GF_EINTERNAL, NULL, "resize: out of memory");
    }
    pthread_mutex_lock(&cache.lock);
    if (cache.n < TAB_CACHE && cache.bytes + b.n <= TAB_CACHE_BYTES &&
        cudaMalloc((void **)&mem, b.n ? b.n : 1) == cudaSuccess) {
        /* a synchronous copy: the table is whole before any stream reads it */
        if (cudaMemcpy(mem, b.h, b.n, cudaMemcpyHostToDevice) == cudaSuccess) {
            relocate(v, mem);
            cache.e[cache.n].key = key;
            cache.e[cache.n].view = *v;
            cache.n++;
            cache.bytes += b.n;
            cached = 1;
        } else {
            cudaFree(mem);
        }
    }
    pthread_mutex_unlock(&cache.lock);
    if (!cached) {
        cudaError_t e = cudaMallocAsync((void **)&mem, b.n ? b.n : 1, st);
        if (e == cudaSuccess &&
            (e = cudaMemcpyAsync(mem, b.h, b.n, cudaMemcpyHostToDevice, st)) != cudaSuccess)
            cudaFreeAsync(mem, st);
        if (e != cudaSuccess) {
            free(b.h);
            return gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s: %s", __FILE__, __LINE__,
                          cudaGetErrorName(e), cudaGetErrorString(e));
        }
        /* the copy from pageable memory is done when cudaMemcpyAsync returns */
        relocate(v, mem);
        *tmp = mem;
    }
    free(b.h);
    return 0;
}
/* ---- the shared variant: 8 bits ---- */

/* d = c + the dot product of a's four unsigned bytes with b's four signed
 * ones (PTX dp4a.u32.s32). */
__device__ __forceinline__ int dp4a_us(unsigned a, unsigned b, int c)
{
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* Byte i of v. */
__device__ __forceinline__ unsigned byte_of(uint32_t v, int i)
{
    return v >> (8 * i) & 0xffu;
}

/* Stages 16 pixels of C channels from source pixel x of row `row` (iw
 * pixels; those past it read as 0) into shared memory: plane c's 4 words at
 * plane[c * plane_stride]; premultiplied by their alpha (the last channel)
 * when premul. */
template <int C>
__device__ __forceinline__ void stage16(const unsigned char *__restrict__ row, int x, int iw,
                                        int premul, uint32_t *plane, int plane_stride)
{
    uint32_t in[4 * C];
    if (x + 16 <= iw) { /* whole: C 16-byte loads (x is a multiple of 16, rows 256-aligned) */
        const uint4 *p = (const uint4 *)(row + (size_t)x * C);
#pragma unroll
        for (int i = 0; i < C; i++) {
            const uint4 q = p[i];
            in[4 * i] = q.x;
            in[4 * i + 1] = q.y;
            in[4 * i + 2] = q.z;
            in[4 * i + 3] = q.w;
        }
    } else { /* the row's end */
#pragma unroll
        for (int i = 0; i < 4 * C; i++)
            in[i] = 0;
#pragma unroll
        for (int j = 0; j < 16 * C; j++)
            if (x + j / C < iw)
                in[j / 4] |= (uint32_t)row[(size_t)x * C + j] << (8 * (j % 4));
    }
    if (C == 2 || C == 4) {
        if (premul) {
#pragma unroll
            for (int px = 0; px < 16; px++) {
                const int ja = px * C + C - 1;
                const unsigned a = byte_of(in[ja / 4], ja % 4);
#pragma unroll
                for (int c = 0; c < C - 1; c++) {
                    const int j = px * C + c;
                    const unsigned v = gf_resize_premul(byte_of(in[j / 4], j % 4), a);
                    in[j / 4] = (in[j / 4] & ~(0xffu << (8 * (j % 4)))) | v << (8 * (j % 4));
                }
            }
        }
    }
#pragma unroll
    for (int c = 0; c < C; c++)
#pragma unroll
        for (int k = 0; k < 4; k++) {
            uint32_t v = 0;
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int j = (4 * k + i) * C + c;
                v |= byte_of(in[j / 4], j % 4) << (8 * i);
            }
            plane[c * plane_stride + k] = v;
        }
}

/* The row pass at 8 bits, C channels: input rows y0 .. y0 + RH_ROWS - 1
 * (blockIdx.y) into output pixels o0 .. o0 + tile - 1 (blockIdx.x) of the
 * same rows of dst (ow pixels). Staged: each row's sources, a plane per
 * channel, RH_CHUNK pixels a thread (lanes take consecutive rows, so that
 * the stores fall in different banks); then lane r sums row r's outputs, a
 * warp an output at a time (its weights the same address for every lane),
 * four taps a dp4a per weight byte; the results go through a tile in shared
 * memory and out a pixel a thread. premul: the input is premultiplied as it
 * is staged; unpremul: the results are divided back by their alpha (no
 * column pass follows). */
template <int C>
__global__ void __launch_bounds__(RH_ROWS *RH_WARPS)
    resize_h_shared_kernel(const unsigned char *__restrict__ src, size_t spitch, int iw, int ih,
                           unsigned char *__restrict__ dst, size_t dpitch, int ow, int tile,
                           int pitch, const int *__restrict__ base, const int *__restrict__ ng,
                           const int *__restrict__ goff, const uint4 *__restrict__ w, int premul,
                           int unpremul)
{
    extern __shared__ uint32_t sm[]; /* C planes x RH_ROWS rows x pitch words; the tile */
    const int tstride = tile_stride(tile, C);
    unsigned char *ot = (unsigned char *)(sm + C * RH_ROWS * pitch);
    const int o0 = blockIdx.x * tile, o1 = min(o0 + tile, ow), y0 = blockIdx.y * RH_ROWS;
    const int nr = min(RH_ROWS, ih - y0), lane = threadIdx.x;
    const int tid = threadIdx.y * RH_ROWS + lane;
    const int xb = base[o0] & ~(RH_CHUNK - 1);
    const int xe = ((base[o1 - 1] + 4 * ng[o1 - 1]) + RH_CHUNK - 1) & ~(RH_CHUNK - 1);
    const int chunks = (xe - xb) / RH_CHUNK;

    for (int i = tid; i < chunks * RH_ROWS; i += RH_ROWS * RH_WARPS) {
        const int r = i % RH_ROWS, q = i / RH_ROWS;
        if (r < nr) {
            const unsigned char *row = src + (size_t)(y0 + r) * spitch;
            uint32_t *pl = sm + r * pitch + q * (RH_CHUNK / 4);
            stage16<C>(row, xb + q * RH_CHUNK, iw, premul, pl, RH_ROWS * pitch);
            stage16<C>(row, xb + q * RH_CHUNK + 16, iw, premul, pl + 4, RH_ROWS * pitch);
        }
    }
    __syncthreads();
    if (lane < nr)
        for (int o = o0 + threadIdx.y; o < o1; o += RH_WARPS) {
            const int n = ng[o];
            const uint4 *wo = w + goff[o];
            const uint32_t *row = sm + lane * pitch + (base[o] - xb) / 4;
            const uint32_t *end = row + n;
            unsigned s0[C], s1[C];
            int s2[C];
#pragma unroll
            for (int c = 0; c < C; c++)
                s0[c] = s1[c] = 0u, s2[c] = 0;
            for (; row < end; row++, wo++) {
                const uint4 k = *wo;
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const uint32_t v = row[c * RH_ROWS * pitch];
                    s0[c] = __dp4a(v, k.x, s0[c]);
                    s1[c] = __dp4a(v, k.y, s1[c]);
                    s2[c] = dp4a_us(v, k.z, s2[c]);
                }
            }
#pragma unroll
            for (int c = 0; c < C; c++) {
                /* the 32-bit sum wraps as Pillow's int does not need to: the
                 * whole sum is within int32 */
                const unsigned ss = s0[c] + (s1[c] << 8) + ((unsigned)s2[c] << 16) +
                                    (1u << (GF_RESIZE_BITS - 1));
                ot[lane * tstride + (o - o0) * C + c] = (unsigned char)gf_resize_clip8((int32_t)ss);
            }
        }
    __syncthreads();
    const int np = o1 - o0;
    for (int i = tid; i < nr * np; i += RH_ROWS * RH_WARPS) {
        const int r = i / np, px = i - r * np;
        const unsigned char *t = ot + r * tstride + px * C;
        unsigned char *d = dst + (size_t)(y0 + r) * dpitch + (size_t)(o0 + px) * C;
        /* the alpha through a volatile, as in the global kernel: CUDA 13.0's
         * ptxas mis-derived a clamped alpha used as a divisor */
        volatile unsigned va = t[C - 1];
        const unsigned a = va;
#pragma unroll
        for (int c = 0; c < C; c++)
            d[c] = (unsigned char)(unpremul && c < C - 1 ? gf_resize_unpremul(t[c], a) : t[c]);
    }
}

/* Threads of a block of the column pass: RV_X words (4 samples each) of a
 * row by RV_Y, each RV_ROWS output rows. */
#define RV_X 64
#define RV_Y 4
#define RV_ROWS 4

/* The column pass at 8 bits: rows of W samples from src (the row pass's
 * result, or the input with C channels, premultiplied as it is read when
 * premul) to oh rows of dst. A thread sums a 32-bit word of four samples for
 * RV_ROWS output rows, the weights of a row the same address for the whole
 * warp; the sources' last partial word is read a byte at a time. unpremul:
 * the results are divided back by their alpha (a word holds whole pixels:
 * C is 2 or 4 there). */
template <int C>
__global__ void __launch_bounds__(RV_X *RV_Y)
    resize_v_shared_kernel(const unsigned char *__restrict__ src, size_t spitch, int W,
                           unsigned char *__restrict__ dst, size_t dpitch, int oh,
                           const int *__restrict__ first, const int *__restrict__ count,
                           const int32_t *__restrict__ k8, int ksize, int premul, int unpremul)
{
    const int wi = blockIdx.x * RV_X + threadIdx.x;
    const int y0 = (blockIdx.y * RV_Y + threadIdx.y) * RV_ROWS;
    const int x = 4 * wi;
    if (x >= W)
        return;
    const bool whole = x + 4 <= W;
    for (int oy = y0; oy < y0 + RV_ROWS && oy < oh; oy++) {
        const int lo = first[oy], n = count[oy];
        const int32_t *k = k8 + (size_t)oy * ksize;
        int32_t s[4];
#pragma unroll
        for (int b = 0; b < 4; b++)
            s[b] = 1 << (GF_RESIZE_BITS - 1);
        const unsigned char *p = src + (size_t)lo * spitch + x;
        for (int j = 0; j < n; j++, p += spitch) {
            uint32_t v;
            if (whole) {
                v = *(const uint32_t *)p;
            } else {
                v = 0;
#pragma unroll
                for (int b = 0; b < 4; b++)
                    if (x + b < W)
                        v |= (uint32_t)p[b] << (8 * b);
            }
            unsigned u[4];
#pragma unroll
            for (int b = 0; b < 4; b++)
                u[b] = byte_of(v, b);
            if ((C == 2 || C == 4) && premul) {
#pragma unroll
                for (int b = 0; b < 4; b++)
                    if (b % C != C - 1)
                        u[b] = gf_resize_premul(u[b], u[b - b % C + C - 1]);
            }
            const int32_t wj = k[j];
#pragma unroll
            for (int b = 0; b < 4; b++)
                s[b] += (int32_t)u[b] * wj;
        }
        unsigned r[4];
#pragma unroll
        for (int b = 0; b < 4; b++)
            r[b] = gf_resize_clip8(s[b]);
        if ((C == 2 || C == 4) && unpremul) {
            /* the alphas through a volatile, as in the global kernel: CUDA
             * 13.0's ptxas mis-derived a clamped alpha used as a divisor */
            volatile unsigned va = r[C - 1], vb = r[3];
            const unsigned a = va, a2 = vb;
#pragma unroll
            for (int b = 0; b < 4; b++)
                if (b % C != C - 1)
                    r[b] = gf_resize_unpremul(r[b], b < C ? a : a2);
        }
        unsigned char *d = dst + (size_t)oy * dpitch + x;
        if (whole) {
            *(uint32_t *)d = r[0] | r[1] << 8 | r[2] << 16 | r[3] << 24;
        } else {
#pragma unroll
            for (int b = 0; b < 4; b++)
                if (x + b < W)
                    d[b] = (unsigned char)r[b];
        }
    }
}
/* ---- the texture variant ---- */

/* Texel channels of the texture variant for C channels: RGB is fetched as
 * RGBx (no three-channel texel format filters). */
#define TEX_CT(C) ((C) == 3 ? 4 : (C))

/* The CT channels of texel (x, y) of tex, as floats (8 and 16 bits
 * normalised to 0..1 by the read mode; float texels as they are). */
template <int CT>
__device__ __forceinline__ void tex_fetch(cudaTextureObject_t tex, float x, float y, float *v)
{
    if (CT == 1) {
        v[0] = tex2D<float>(tex, x, y);
    } else if (CT == 2) {
        const float2 t = tex2D<float2>(tex, x, y);
        v[0] = t.x;
        v[1] = t.y;
    } else {
        const float4 t = tex2D<float4>(tex, x, y);
        v[0] = t.x;
        v[1] = t.y;
        v[2] = t.z;
        v[3] = t.w;
    }
}

/* What a texture pass writes. */
enum { TEX_OUT8 = 0, TEX_OUTF, TEX_OUT16 };

/* One pass of the texture variant, a thread an output pixel of ow x oh:
 * along x (HORIZ) or y, output i's fetches at pos (the other coordinate at
 * the texel's centre) summed with their weights, times scale (255 or 65535
 * for normalised texels, 1 for float ones), rounded as the gold rounds:
 * TEX_OUT8 floor(v + 0.5) clamped to 0..255; TEX_OUTF half away from zero
 * to a float (the 16-bit row pass, unclamped); TEX_OUT16 the same clamped to
 * 0..65535. oc channels are written (CT for the row pass's result, the
 * image's C at the end); unpremul divides the colours by the alpha (oc 2 or
 * 4, 8 bits). */
template <int CT, bool HORIZ>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    resize_texture_kernel(cudaTextureObject_t tex, unsigned char *__restrict__ dst, size_t dpitch,
                          int ow, int oh, const float *__restrict__ pos,
                          const float *__restrict__ fw, const int *__restrict__ nf, int fmax,
                          float scale, int mode, int oc, int unpremul)
{
    const int x = blockIdx.x * RS_BX + threadIdx.x, y = blockIdx.y * RS_BY + threadIdx.y;
    if (x >= ow || y >= oh)
        return;
    const int i = HORIZ ? x : y, n = nf[i];
    const float *p = pos + (size_t)i * fmax, *w = fw + (size_t)i * fmax;
    float acc[CT], v[CT];
#pragma unroll
    for (int c = 0; c < CT; c++)
        acc[c] = 0.0f;
    for (int f = 0; f < n; f++) {
        tex_fetch<CT>(tex, HORIZ ? p[f] : x + 0.5f, HORIZ ? y + 0.5f : p[f], v);
#pragma unroll
        for (int c = 0; c < CT; c++)
            acc[c] += w[f] * v[c];
    }
    unsigned char *row = dst + (size_t)y * dpitch;
    if (mode == TEX_OUT8) {
        unsigned r[CT];
#pragma unroll
        for (int c = 0; c < CT; c++)
            r[c] = (unsigned)fminf(fmaxf(floorf(acc[c] * scale + 0.5f), 0.0f), 255.0f);
        if (unpremul) { /* oc == CT, 2 or 4: the alpha is the last */
            volatile unsigned va = r[CT - 1]; /* as the other kernels' alpha */
            const unsigned a = va;
#pragma unroll
            for (int c = 0; c < CT - 1; c++)
                r[c] = gf_resize_unpremul(r[c], a);
        }
#pragma unroll
        for (int c = 0; c < CT; c++)
            if (c < oc)
                row[(size_t)x * oc + c] = (unsigned char)r[c];
        return;
    }
#pragma unroll
    for (int c = 0; c < CT; c++) {
        const float s = acc[c] * scale, r = s >= 0.0f ? floorf(s + 0.5f) : ceilf(s - 0.5f);
        if (c >= oc)
            continue;
        if (mode == TEX_OUTF)
            ((float *)row)[(size_t)x * oc + c] = r;
        else
            ((uint16_t *)row)[(size_t)x * oc + c] = (uint16_t)fminf(fmaxf(r, 0.0f), 65535.0f);
    }
}

/* The texture variant's source: the input's C channels as CT (RGB gains a
 * fourth of 0), premultiplied by the alpha when premul (8 bits). */
template <typename T, int C, int CT>
__global__ void __launch_bounds__(RS_BX *RS_BY)
    resize_prep_kernel(const unsigned char *__restrict__ src, size_t spitch, int w, int h,
                       unsigned char *__restrict__ dst, size_t dpitch, int premul)
{
    const int x = blockIdx.x * RS_BX + threadIdx.x, y = blockIdx.y * RS_BY + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const T *s = (const T *)(src + (size_t)y * spitch) + (size_t)x * C;
    T *d = (T *)(dst + (size_t)y * dpitch) + (size_t)x * CT;
#pragma unroll
    for (int c = 0; c < CT; c++) {
        unsigned v = c < C ? s[c] : 0u;
        if (premul && c < C - 1)
            v = gf_resize_premul(v, s[C - 1]);
        d[c] = (T)v;
    }
}

/* Texture objects are kept (TEX_CACHE of them) by what they describe, so
 * that the same buffers (the bench's, a batch's) take no new object a call;
 * an object past that is destroyed once its stream has finished with it. */
#define TEX_CACHE 32

typedef struct tex_key {
    int device, kind, ct, w, h; /* kind: 0 8-bit, 1 16-bit, 2 float */
    const void *ptr;
    size_t pitch;
} tex_key;

static struct {
    pthread_mutex_t lock;
    int n;
    struct {
        tex_key key;
        cudaTextureObject_t tex;
    } e[TEX_CACHE];
} texes = {PTHREAD_MUTEX_INITIALIZER, 0, {}};

/* A linear-filtering, clamping texture of w x h texels of ct channels of
 * `kind` over ptr (device, pitch bytes a row) into *tex; *owned 1 when the
 * caller destroys it after its stream is done. Errors: GF_EINTERNAL, also
 * for an image past the device's pitched-texture limits. */
static int tex_get(const void *ptr, size_t pitch, int w, int h, int ct, int kind,
                   cudaTextureObject_t *tex, int *owned)
{
    tex_key key;
    int maxw = 0, maxh = 0, maxp = 0;

    memset(&key, 0, sizeof key);
    GF_CUDA_CHECK(cudaGetDevice(&key.device));
    key.kind = kind;
    key.ct = ct;
    key.w = w;
    key.h = h;
    key.ptr = ptr;
    key.pitch = pitch;
    *owned = 0;
    pthread_mutex_lock(&texes.lock);
    for (int i = 0; i < texes.n; i++)
        if (!memcmp(&texes.e[i].key, &key, sizeof key)) {
            *tex = texes.e[i].tex;
            pthread_mutex_unlock(&texes.lock);
            return 0;
        }
    pthread_mutex_unlock(&texes.lock);
    GF_CUDA_CHECK(cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxTexture2DLinearWidth, key.device));
    GF_CUDA_CHECK(cudaDeviceGetAttribute(&maxh, cudaDevAttrMaxTexture2DLinearHeight, key.device));
    GF_CUDA_CHECK(cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxTexture2DLinearPitch, key.device));
    if (w > maxw || h > maxh || pitch > (size_t)maxp)
        return gf_err(GF_EINTERNAL, NULL,
                      "resize: variant texture: %dx%d exceeds the device's pitched textures "
                      "(%dx%d, %d bytes a row)",
                      w, h, maxw, maxh, maxp);
    const int bits = kind == 0 ? 8 : kind == 1 ? 16 : 32;
    const cudaChannelFormatKind fk = kind == 2 ? cudaChannelFormatKindFloat
                                               : cudaChannelFormatKindUnsigned;
    cudaResourceDesc rd;
    cudaTextureDesc td;
    memset(&rd, 0, sizeof rd);
    memset(&td, 0, sizeof td);
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = (void *)ptr;
    rd.res.pitch2D.desc = cudaCreateChannelDesc(bits, ct >= 2 ? bits : 0, ct >= 3 ? bits : 0,
                                                ct >= 4 ? bits : 0, fk);
    rd.res.pitch2D.width = (size_t)w;
    rd.res.pitch2D.height = (size_t)h;
    rd.res.pitch2D.pitchInBytes = pitch;
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = kind == 2 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
    td.normalizedCoords = 0;
    GF_CUDA_CHECK(cudaCreateTextureObject(tex, &rd, &td, NULL));
    pthread_mutex_lock(&texes.lock);
    if (texes.n < TEX_CACHE) {
        texes.e[texes.n].key = key;
        texes.e[texes.n].tex = *tex;
        texes.n++;
    } else {
        *owned = 1;
    }
    pthread_mutex_unlock(&texes.lock);
    return 0;
}
/* ---- the launchers ---- */

/* A call: its sizes and passes, and the device memory to free after it. */
typedef struct job {
    gf_resize_filter f;
    int iw, ih, ow, oh, C, w8, need_h, need_v, alpha;
    unsigned char *mem[8];
    int nmem;
} job;

/* Sets out's shape for s on in and fills *j: 0, or 1 when the output is
 * done already (a copy at the same size), or an error. */
static int job_begin(const gf_stage *s, const gf_dimage *in, gf_dimage *out, cudaStream_t st,
                     job *j)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    int rc;

    memset(j, 0, sizeof *j);
    j->f = GF_CPARAMS(s, gf_resize_params)->filter;
    j->iw = in->width;
    j->ih = in->height;
    j->C = in->channels;
    j->w8 = in->bits == 8;
    if (gf_resize_size(s, in->width, in->height, &j->ow, &j->oh))
        return gf_err(GF_EINTERNAL, NULL, "resize: no output size for %dx%d", in->width,
                      in->height);
    const gf_shape os = {j->ow, j->oh, in->channels, in->bits};
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    if (j->ow == in->width && j->oh == in->height) { /* the pipeline skips this; a copy keeps
                                                        the contract */
        GF_CUDA_CHECK(cudaMemcpy2DAsync(out->data, out->pitch, in->data, in->pitch,
                                        (size_t)j->ow * px, (size_t)j->oh,
                                        cudaMemcpyDeviceToDevice, st));
        return 1;
    }
    j->need_h = j->ow != in->width;
    j->need_v = j->oh != in->height;
    j->alpha = j->w8 && j->f != GF_FILTER_NEAREST && (j->C == 2 || j->C == 4);
    return 0;
}

/* The table of `kind` for the x axis (x != 0) or the y axis into *v. */
static int job_table(job *j, int kind, int x, cudaStream_t st, tab_view *v)
{
    unsigned char *tmp;
    int rc = tab_get(kind, x ? j->iw : j->ih, x ? j->ow : j->oh, j->f, j->C, st, v, &tmp);

    if (rc == 0 && tmp)
        j->mem[j->nmem++] = tmp;
    return rc;
}

/* bytes of device scratch, freed after the call's kernels. */
static int job_alloc(job *j, size_t bytes, cudaStream_t st, unsigned char **p)
{
    GF_CUDA_CHECK(cudaMallocAsync((void **)p, bytes ? bytes : 1, st));
    j->mem[j->nmem++] = *p;
    return 0;
}

/* Checks the launches (when rc is 0) and frees j's memory after them. */
static int job_end(job *j, cudaStream_t st, int rc)
{
    cudaError_t e = cudaGetLastError();

    if (rc == 0 && e != cudaSuccess)
        rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s: %s", __FILE__, __LINE__,
                    cudaGetErrorName(e), cudaGetErrorString(e));
    for (int i = 0; i < j->nmem; i++)
        if ((e = cudaFreeAsync(j->mem[i], st)) != cudaSuccess && rc == 0)
            rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s: %s", __FILE__, __LINE__,
                        cudaGetErrorName(e), cudaGetErrorString(e));
    return rc;
}

/* Bytes a row of the row pass's result: ow x C samples of `bytes`. */
static size_t tmp_pitch(const job *j, int channels, size_t bytes)
{
    return round_up((size_t)j->ow * channels * bytes);
}

template <typename S, typename D, int C, bool HORIZ>
static void pass(const unsigned char *src, size_t spitch, unsigned char *dst, size_t dpitch,
                 int ow, int oh, const tab_view *a, int premul, int unpremul, cudaStream_t st)
{
    const dim3 grid((ow + RS_BX - 1) / RS_BX, (oh + RS_BY - 1) / RS_BY);
    resize_global_kernel<S, D, C, HORIZ><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
        src, spitch, dst, dpitch, ow, oh, a->first, a->count, a->k8, a->k, a->ksize, premul,
        unpremul);
}

/* The global variant's passes for C channels. 8 bits: row pass to tmp (or
 * out), column pass from tmp (or the input) to out. 16 bits: the same with
 * int32 between. */
template <int C>
static void global_passes(const job *j, const gf_dimage *in, gf_dimage *out, unsigned char *tmp,
                          size_t tpitch, const tab_view *ax, const tab_view *ay, cudaStream_t st)
{
    const int ow = j->ow, oh = j->oh, ih = j->ih, need_h = j->need_h, need_v = j->need_v;
    const int alpha = j->alpha;

    if (j->w8) {
        if (need_h)
            pass<uint8_t, uint8_t, C, true>(in->data, in->pitch, need_v ? tmp : out->data,
                                            need_v ? tpitch : out->pitch, ow, ih, ax, alpha,
                                            alpha && !need_v, st);
        if (need_v)
            pass<uint8_t, uint8_t, C, false>(need_h ? tmp : in->data,
                                             need_h ? tpitch : in->pitch, out->data, out->pitch,
                                             ow, oh, ay, alpha && !need_h, alpha, st);
        return;
    }
    if (need_h && need_v) {
        pass<uint16_t, int32_t, C, true>(in->data, in->pitch, tmp, tpitch, ow, ih, ax, 0, 0, st);
        pass<int32_t, uint16_t, C, false>(tmp, tpitch, out->data, out->pitch, ow, oh, ay, 0, 0,
                                          st);
    } else if (need_h)
        pass<uint16_t, uint16_t, C, true>(in->data, in->pitch, out->data, out->pitch, ow, ih, ax,
                                          0, 0, st);
    else
        pass<uint16_t, uint16_t, C, false>(in->data, in->pitch, out->data, out->pitch, ow, oh,
                                           ay, 0, 0, st);
}

template <typename T, int C>
static void nearest(const job *j, const gf_dimage *in, gf_dimage *out, const tab_view *ax,
                    const tab_view *ay, cudaStream_t st)
{
    const dim3 grid((j->ow + RS_BX - 1) / RS_BX, (j->oh + RS_BY - 1) / RS_BY);
    resize_nearest_kernel<T, C><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
        in->data, in->pitch, out->data, out->pitch, j->ow, j->oh, ax->src, ay->src);
}

/* The global variant's work (also the shared variant's at 16 bits and for
 * nearest). */
static int run_global(job *j, const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    tab_view ax, ay;
    unsigned char *tmp = NULL;
    size_t tpitch = 0;
    int rc;

    memset(&ax, 0, sizeof ax);
    memset(&ay, 0, sizeof ay);
    if (j->f == GF_FILTER_NEAREST) {
        if ((rc = job_table(j, TAB_AXIS, 1, st, &ax)) || (rc = job_table(j, TAB_AXIS, 0, st, &ay)))
            return rc;
#define NEAREST(T, C) nearest<T, C>(j, in, out, &ax, &ay, st)
        GF_LAYOUT_SWITCH(j->C, in->bits, NEAREST);
#undef NEAREST
        return 0;
    }
    if ((j->need_h && (rc = job_table(j, TAB_AXIS, 1, st, &ax))) ||
        (j->need_v && (rc = job_table(j, TAB_AXIS, 0, st, &ay))))
        return rc;
    if (j->need_h && j->need_v) {
        tpitch = tmp_pitch(j, j->C, j->w8 ? 1 : 4);
        if ((rc = job_alloc(j, tpitch * (size_t)j->ih, st, &tmp)))
            return rc;
    }
    switch (j->C) {
    case 1: global_passes<1>(j, in, out, tmp, tpitch, &ax, &ay, st); break;
    case 2: global_passes<2>(j, in, out, tmp, tpitch, &ax, &ay, st); break;
    case 3: global_passes<3>(j, in, out, tmp, tpitch, &ax, &ay, st); break;
    default: global_passes<4>(j, in, out, tmp, tpitch, &ax, &ay, st); break;
    }
    return 0;
}

/* The shared variant's passes at 8 bits for C channels. */
template <int C>
static int shared_passes(job *j, const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    const int alpha = j->alpha;
    const unsigned char *vsrc = in->data;
    size_t vpitch = in->pitch;
    tab_view ax, ay;
    int rc;

    if (j->need_h) {
        unsigned char *dst = out->data;
        size_t dpitch = out->pitch;
        if (j->need_v) {
            dpitch = tmp_pitch(j, C, 1);
            if ((rc = job_alloc(j, dpitch * (size_t)j->ih, st, &dst)))
                return rc;
            vsrc = dst;
            vpitch = dpitch;
        }
        if ((rc = job_table(j, TAB_PACKED, 1, st, &ax)))
            return rc;
        if (ax.tile) {
            const size_t smem = (size_t)C * RH_ROWS * ax.pitch * 4 +
                                (size_t)RH_ROWS * tile_stride(ax.tile, C);
            const dim3 grid((j->ow + ax.tile - 1) / ax.tile, (j->ih + RH_ROWS - 1) / RH_ROWS);
            resize_h_shared_kernel<C><<<grid, dim3(RH_ROWS, RH_WARPS), smem, st>>>(
                in->data, in->pitch, j->iw, j->ih, dst, dpitch, j->ow, ax.tile, ax.pitch,
                ax.base, ax.ng, ax.goff, ax.w, alpha, alpha && !j->need_v);
        } else { /* taps too wide for shared memory: the global kernel */
            if ((rc = job_table(j, TAB_AXIS, 1, st, &ax)))
                return rc;
            pass<uint8_t, uint8_t, C, true>(in->data, in->pitch, dst, dpitch, j->ow, j->ih, &ax,
                                            alpha, alpha && !j->need_v, st);
        }
    }
    if (j->need_v) {
        const int W = j->ow * C, words = (W + 3) / 4;
        const dim3 grid((words + RV_X - 1) / RV_X,
                        (j->oh + RV_Y * RV_ROWS - 1) / (RV_Y * RV_ROWS));
        if ((rc = job_table(j, TAB_AXIS, 0, st, &ay)))
            return rc;
        resize_v_shared_kernel<C><<<grid, dim3(RV_X, RV_Y), 0, st>>>(
            vsrc, vpitch, W, out->data, out->pitch, j->oh, ay.first, ay.count, ay.k8, ay.ksize,
            alpha && !j->need_h, alpha);
    }
    return 0;
}

/* One texture pass of CT-channel texels over src (w x h texels of `kind`)
 * into dst: the row pass (HORIZ) or the column pass over the output's ow x
 * oh. */
template <int CT>
static int tex_pass(bool horiz, const unsigned char *src, size_t spitch, int w, int h, int kind,
                    unsigned char *dst, size_t dpitch, int ow, int oh, const tab_view *a,
                    int mode, int oc, int unpremul, cudaStream_t st)
{
    const dim3 grid((ow + RS_BX - 1) / RS_BX, (oh + RS_BY - 1) / RS_BY);
    const float scale = kind == 0 ? 255.0f : kind == 1 ? 65535.0f : 1.0f;
    cudaTextureObject_t tex;
    int owned, rc;

    if ((rc = tex_get(src, spitch, w, h, CT, kind, &tex, &owned)))
        return rc;
    if (horiz)
        resize_texture_kernel<CT, true><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
            tex, dst, dpitch, ow, oh, a->pos, a->fw, a->nf, a->fmax, scale, mode, oc, unpremul);
    else
        resize_texture_kernel<CT, false><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
            tex, dst, dpitch, ow, oh, a->pos, a->fw, a->nf, a->fmax, scale, mode, oc, unpremul);
    if (owned) { /* past the cache: done with once the stream is */
        GF_CUDA_CHECK(cudaStreamSynchronize(st));
        GF_CUDA_CHECK(cudaDestroyTextureObject(tex));
    }
    return 0;
}

template <int C>
static int texture_passes(job *j, const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    const int CT = TEX_CT(C), ebytes = j->w8 ? 1 : 2;
    int kind = j->w8 ? 0 : 1;
    const unsigned char *src = in->data;
    size_t spitch = in->pitch;
    tab_view ax, ay;
    int rc;

    if (CT != C || j->alpha) { /* RGBx, or premultiplied */
        unsigned char *prep;
        const size_t pp = round_up((size_t)j->iw * CT * ebytes);
        const dim3 grid((j->iw + RS_BX - 1) / RS_BX, (j->ih + RS_BY - 1) / RS_BY);
        if ((rc = job_alloc(j, pp * (size_t)j->ih, st, &prep)))
            return rc;
        if (j->w8)
            resize_prep_kernel<uint8_t, C, CT><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
                in->data, in->pitch, j->iw, j->ih, prep, pp, j->alpha);
        else
            resize_prep_kernel<uint16_t, C, CT><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
                in->data, in->pitch, j->iw, j->ih, prep, pp, 0);
        src = prep;
        spitch = pp;
    }
    if (j->need_h) {
        unsigned char *dst = out->data;
        size_t dpitch = out->pitch;
        int mode = j->w8 ? TEX_OUT8 : TEX_OUT16, oc = C;
        if (j->need_v) { /* the row pass's result: CT channels, 8-bit or float */
            dpitch = tmp_pitch(j, CT, j->w8 ? 1 : 4);
            if ((rc = job_alloc(j, dpitch * (size_t)j->ih, st, &dst)))
                return rc;
            mode = j->w8 ? TEX_OUT8 : TEX_OUTF;
            oc = CT;
        }
        if ((rc = job_table(j, TAB_FETCH, 1, st, &ax)) ||
            (rc = tex_pass<CT>(true, src, spitch, j->iw, j->ih, kind, dst, dpitch, j->ow, j->ih,
                               &ax, mode, oc, j->alpha && !j->need_v, st)))
            return rc;
        src = dst;
        spitch = dpitch;
        kind = j->w8 ? 0 : 2;
    }
    if (j->need_v) {
        if ((rc = job_table(j, TAB_FETCH, 0, st, &ay)) ||
            (rc = tex_pass<CT>(false, src, spitch, j->ow, j->ih, kind, out->data, out->pitch,
                               j->ow, j->oh, &ay, j->w8 ? TEX_OUT8 : TEX_OUT16, C, j->alpha,
                               st)))
            return rc;
    }
    return 0;
}

enum { V_GLOBAL, V_SHARED, V_TEXTURE };

/* 1 when every texture of the texture passes over j (the input, and the
 * row pass's result, up to CT float texels a column) lies within the
 * device's pitched-texture limits; 0 past them, where the global kernels
 * run instead (as the stencil framework's texture variant does). */
static int tex_fits(const job *j)
{
    int dev, maxw = 0, maxh = 0, maxp = 0;
    const int w = j->iw > j->ow ? j->iw : j->ow;

    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxTexture2DLinearWidth, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&maxh, cudaDevAttrMaxTexture2DLinearHeight, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxTexture2DLinearPitch, dev) != cudaSuccess)
        return 0;
    return w <= maxw && j->ih <= maxh && j->oh <= maxh &&
           (size_t)w * (size_t)TEX_CT(j->C) * 4 + 512 <= (size_t)maxp;
}

/* Variant v's passes over C channels. */
template <int C>
static int passes_of(int v, job *j, const gf_dimage *in, gf_dimage *out, cudaStream_t st)
{
    return v == V_SHARED ? shared_passes<C>(j, in, out, st) : texture_passes<C>(j, in, out, st);
}

/* Variant v on in into out: the global kernels for the global variant, for
 * nearest (a gather, exact already), for the shared variant at 16 bits and
 * for the texture variant past the texture limits. */
static int launch(int v, const gf_stage *s, const gf_dimage *in, gf_dimage *out, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    job j;
    int rc = job_begin(s, in, out, st, &j);

    if (rc)
        return rc < 0 ? rc : 0;
    if (v == V_GLOBAL || j.f == GF_FILTER_NEAREST || (v == V_SHARED && !j.w8) ||
        (v == V_TEXTURE && !tex_fits(&j)))
        rc = run_global(&j, in, out, st);
    else
        switch (j.C) {
        case 1: rc = passes_of<1>(v, &j, in, out, st); break;
        case 2: rc = passes_of<2>(v, &j, in, out, st); break;
        case 3: rc = passes_of<3>(v, &j, in, out, st); break;
        default: rc = passes_of<4>(v, &j, in, out, st); break;
        }
    return job_end(&j, st, rc);
}

extern "C" int gf_resize_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return launch(V_GLOBAL, s, in, out, stream);
}

extern "C" int gf_resize_shared_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    return launch(V_SHARED, s, in, out, stream);
}

extern "C" int gf_resize_texture_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                      void *stream)
{
    return launch(V_TEXTURE, s, in, out, stream);
}
