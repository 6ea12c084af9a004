/* threshold.cu - binary threshold of every sample: out = in > t ? max : 0,
 * with t given or Otsu's of the image (one channel). The image is taken as
 * one channel of width x channels samples. Otsu's t comes from the
 * histogram (gf_hist_device) and the exact integer comparison of
 * src/otsu.h, the same code the CPU reference runs, computed on the device
 * so the image never leaves it. */
#include "check.h"

#include "../src/otsu.h"
#include "../src/stages/hist.h"
#include "../src/stages/threshold.h"

/* threshold_global_kernel: one thread per sample, 32x8 blocks. */
#define GLOBAL_BX 32
#define GLOBAL_BY 8
/* threshold_vector_kernel: 16 bytes per thread (one 16-byte load and
 * store; rows start on 256-byte boundaries), 64x4 blocks. */
#define VEC 16
#define VEC_BX 64
#define VEC_BY 4

/* The level: *t_dev when given (Otsu's, computed on the device), else t. */
__device__ __forceinline__ unsigned level(const int *t_dev, int t)
{
    return (unsigned)(t_dev ? *t_dev : t);
}

template <typename T>
__global__ void threshold_global_kernel(const unsigned char *__restrict__ in,
                                        unsigned char *__restrict__ out, int w, int h,
                                        size_t ipitch, size_t opitch, const int *t_dev, int t)
{
    const int x = blockIdx.x * GLOBAL_BX + threadIdx.x, y = blockIdx.y * GLOBAL_BY + threadIdx.y;

    if (x < w && y < h)
        ((T *)(out + (size_t)y * opitch))[x] =
            ((const T *)(in + (size_t)y * ipitch))[x] > level(t_dev, t) ? (T)~(T)0 : (T)0;
}

/* 16 bytes a thread: 16 samples of 8 bits (__vcmpgtu4: 0xff in each byte
 * above the level) or 8 of 16 (__vcmpgtu2: 0xffff in each half). */
template <typename T>
__global__ void threshold_vector_kernel(const unsigned char *__restrict__ in,
                                        unsigned char *__restrict__ out, int w, int h,
                                        size_t ipitch, size_t opitch, const int *t_dev, int t)
{
    constexpr int N = VEC / (int)sizeof(T); /* samples a thread */
    const int x = (blockIdx.x * VEC_BX + threadIdx.x) * N, y = blockIdx.y * VEC_BY + threadIdx.y;

    if (x >= w || y >= h)
        return;
    const unsigned lv = level(t_dev, t);
    const unsigned tt = sizeof(T) == 1 ? lv * 0x01010101u : lv * 0x00010001u;
    const T *src = (const T *)(in + (size_t)y * ipitch) + x;
    T *dst = (T *)(out + (size_t)y * opitch) + x;
    if (x + N <= w) {
        uint4 v = *(const uint4 *)(const void *)src;
        if (sizeof(T) == 1) {
            v.x = __vcmpgtu4(v.x, tt), v.y = __vcmpgtu4(v.y, tt);
            v.z = __vcmpgtu4(v.z, tt), v.w = __vcmpgtu4(v.w, tt);
        } else {
            v.x = __vcmpgtu2(v.x, tt), v.y = __vcmpgtu2(v.y, tt);
            v.z = __vcmpgtu2(v.z, tt), v.w = __vcmpgtu2(v.w, tt);
        }
        *(uint4 *)(void *)dst = v;
    } else {
        for (int k = 0; x + k < w; k++)
            dst[k] = src[k] > lv ? (T)~(T)0 : (T)0;
    }
}

/* Otsu's t of nb bins, gf_otsu's answer, by blocks of THREADS threads that
 * each take CH consecutive bins a thread: 1 block of 256 x 1 for 256 bins,
 * 64 of 256 x 4 (one 16-byte load a thread) for 65536.
 *
 * otsu_sums_kernel: each block's count and value sum, when there are
 * several blocks.
 *
 * otsu_chunk_kernel: the splits of a block's bins. The counts and value
 * sums before each split are a scan over the block, started from the sums
 * of the blocks before it; each split's score in double (gf_otsu_approx)
 * gives the block's highest score M. Every split within GF_OTSU_NEAR of M
 * whose bin is not empty is a candidate (the block's exact maximum is among
 * them); each thread keeps its best candidate by the exact 256-bit
 * comparison of src/otsu.h, and the block reduces them the same way, the
 * smaller t winning ties. One block writes t; several write their best.
 *
 * otsu_pick_kernel: one warp picks t from the blocks' bests the same way
 * (the image's best split is its block's best). */
#define OTSU_CH 4        /* 65536 bins: 4 a thread, */
#define OTSU_THREADS 256 /* 1024 a block */

struct otsu_sums {
    unsigned long long n, s; /* pixels; sum of their values */
};

struct otsu_best {
    gf_u256 num, den;
    int v; /* -1: none */
};

__device__ __forceinline__ otsu_best otsu_pick(const otsu_best &a, const otsu_best &b)
{
    if (b.v < 0)
        return a;
    if (a.v < 0)
        return b;
    const int c = gf_u256_cmp(gf_u256_mul(b.num, a.den), gf_u256_mul(a.num, b.den));
    return c > 0 || (c == 0 && b.v < a.v) ? b : a;
}

__device__ __forceinline__ otsu_best otsu_shfl(const otsu_best &a, int off)
{
    otsu_best r;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        r.num.l[i] = __shfl_xor_sync(0xffffffffu, a.num.l[i], off);
        r.den.l[i] = __shfl_xor_sync(0xffffffffu, a.den.l[i], off);
    }
    r.v = __shfl_xor_sync(0xffffffffu, a.v, off);
    return r;
}

__device__ __forceinline__ otsu_best warp_best(otsu_best b)
{
    for (int off = 16; off; off /= 2)
        b = otsu_pick(b, otsu_shfl(b, off));
    return b;
}

__device__ __forceinline__ double warp_max(double x)
{
    for (int off = 16; off; off /= 2)
        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, off));
    return x;
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long x)
{
    for (int off = 16; off; off /= 2)
        x += __shfl_xor_sync(0xffffffffu, x, off);
    return x;
}

/* The CH counts bins[v0 ..] (v0 a multiple of CH; CH 1 or 4, one load)
 * into cnt; returns their sum, and their value sum in *cs. */
template <int CH>
__device__ __forceinline__ unsigned long long otsu_counts(const unsigned *__restrict__ bins, int v0,
                                                         unsigned *cnt, unsigned long long *cs)
{
    if (CH == 4) {
        const uint4 c = __ldg((const uint4 *)(bins + v0));
        cnt[0] = c.x, cnt[1] = c.y, cnt[2] = c.z, cnt[3] = c.w;
    } else {
        cnt[0] = __ldg(bins + v0);
    }
    unsigned long long n = 0, s = 0;
#pragma unroll
    for (int i = 0; i < CH; i++)
        n += cnt[i], s += (unsigned long long)(v0 + i) * cnt[i];
    *cs = s;
    return n;
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    otsu_sums_kernel(const unsigned *__restrict__ bins, otsu_sums *__restrict__ sums)
{
    __shared__ unsigned long long wn[THREADS / 32], ws[THREADS / 32];
    const int tid = threadIdx.x, v0 = blockIdx.x * OTSU_CH * THREADS + OTSU_CH * tid;
    unsigned cnt[OTSU_CH];
    unsigned long long cs;
    const unsigned long long cw = warp_sum(otsu_counts<OTSU_CH>(bins, v0, cnt, &cs));

    cs = warp_sum(cs);
    if (tid % 32 == 0)
        wn[tid / 32] = cw, ws[tid / 32] = cs;
    __syncthreads();
    if (tid == 0) {
        otsu_sums t = {0, 0};
        for (int k = 0; k < THREADS / 32; k++)
            t.n += wn[k], t.s += ws[k];
        sums[blockIdx.x] = t;
    }
}

template <int THREADS, int CH>
__global__ void __launch_bounds__(THREADS)
    otsu_chunk_kernel(const unsigned *__restrict__ bins, int nb, const otsu_sums *__restrict__ sums,
                      otsu_best *__restrict__ bests, int *t_out)
{
    constexpr int WARPS = THREADS / 32;
    __shared__ unsigned long long wsum[WARPS], ssum[WARPS], before[2], all[2];
    __shared__ double wmax[WARPS];
    __shared__ otsu_best wbest[WARPS];
    const int tid = threadIdx.x, lane = tid % 32, wp = tid / 32;
    const int v0 = blockIdx.x * CH * THREADS + CH * tid;
    unsigned cnt[CH];
    unsigned long long cs;
    const unsigned long long cw = otsu_counts<CH>(bins, v0, cnt, &cs);

    /* inclusive scan in the warp, then across warps */
    unsigned long long w = cw, s = cs;
    for (int off = 1; off < 32; off *= 2) {
        const unsigned long long aw = __shfl_up_sync(0xffffffffu, w, off);
        const unsigned long long as = __shfl_up_sync(0xffffffffu, s, off);
        if (lane >= off)
            w += aw, s += as;
    }
    if (lane == 31)
        wsum[wp] = w, ssum[wp] = s;
    if (sums && wp == 0) { /* the blocks before this one, and all of them */
        unsigned long long bn = 0, bs = 0, an = 0, as = 0;
        for (int k = lane; k < (int)gridDim.x; k += 32) {
            const otsu_sums t = sums[k];
            an += t.n, as += t.s;
            if (k < (int)blockIdx.x)
                bn += t.n, bs += t.s;
        }
        bn = warp_sum(bn), bs = warp_sum(bs), an = warp_sum(an), as = warp_sum(as);
        if (lane == 0)
            before[0] = bn, before[1] = bs, all[0] = an, all[1] = as;
    }
    __syncthreads();
    unsigned long long n = 0, total = 0;
    for (int k = 0; k < WARPS; k++) {
        if (k < wp)
            w += wsum[k], s += ssum[k];
        n += wsum[k], total += ssum[k];
    }
    if (sums)
        w += before[0], s += before[1], n = all[0], total = all[1];
    w -= cw, s -= cs; /* exclusive: the splits before this thread's bins */
    const unsigned long long w_start = w, s_start = s;
    double m = -1.0;
#pragma unroll
    for (int i = 0; i < CH; i++) {
        const int v = v0 + i;
        w += cnt[i];
        s += (unsigned long long)v * cnt[i];
        if (v < nb - 1)
            m = fmax(m, gf_otsu_approx(n, total, w, s));
    }
    m = warp_max(m);
    if (lane == 0)
        wmax[wp] = m;
    __syncthreads();
    for (int k = 0; k < WARPS; k++)
        m = fmax(m, wmax[k]);
    otsu_best best;
    best.v = -1;
    w = w_start, s = s_start;
#pragma unroll
    for (int i = 0; i < CH; i++) {
        const int v = v0 + i;
        w += cnt[i];
        s += (unsigned long long)v * cnt[i];
        otsu_best c;
        if (m < 0 || v >= nb - 1 || (v > 0 && !cnt[i]) ||
            gf_otsu_approx(n, total, w, s) < m * GF_OTSU_NEAR ||
            !gf_otsu_score(n, total, w, s, &c.num, &c.den))
            continue;
        c.v = v;
        best = otsu_pick(best, c);
    }
    best = warp_best(best);
    if (lane == 0)
        wbest[wp] = best;
    __syncthreads();
    if (tid == 0) {
        for (int k = 1; k < WARPS; k++)
            best = otsu_pick(best, wbest[k]);
        if (t_out)
            *t_out = best.v < 0 ? 0 : best.v; /* 0: no split separates the pixels */
        else
            bests[blockIdx.x] = best;
    }
}

__global__ void otsu_pick_kernel(const otsu_best *__restrict__ bests, int nblocks, int *t_out)
{
    otsu_best best;
    best.v = -1;
    for (int k = threadIdx.x; k < nblocks; k += 32)
        best = otsu_pick(best, bests[k]);
    best = warp_best(best);
    if (threadIdx.x == 0)
        *t_out = best.v < 0 ? 0 : best.v;
}

/* Otsu's t of the nb counts at bins (device) into *t_dev, by the kernels
 * above; sums and bests: scratch for nb / (OTSU_CH * OTSU_THREADS) blocks. */
static void otsu_launch(const unsigned *bins, int nb, otsu_sums *sums, otsu_best *bests, int *t_dev,
                        cudaStream_t st)
{
    if (nb == 256) {
        otsu_chunk_kernel<256, 1><<<1, 256, 0, st>>>(bins, nb, NULL, NULL, t_dev);
        return;
    }
    const int blocks = nb / (OTSU_CH * OTSU_THREADS);
    otsu_sums_kernel<OTSU_THREADS><<<blocks, OTSU_THREADS, 0, st>>>(bins, sums);
    otsu_chunk_kernel<OTSU_THREADS, OTSU_CH><<<blocks, OTSU_THREADS, 0, st>>>(bins, nb, sums, bests, NULL);
    otsu_pick_kernel<<<1, 32, 0, st>>>(bests, blocks, t_dev);
}

enum { THRESHOLD_GLOBAL, THRESHOLD_VECTOR };

template <typename T>
static void launch(const gf_dimage *f, gf_dimage *out, const int *t_dev, int t, int variant,
                   cudaStream_t st)
{
    const int w = f->width, h = f->height;

    if (variant == THRESHOLD_GLOBAL) {
        dim3 grid((w + GLOBAL_BX - 1) / GLOBAL_BX, (h + GLOBAL_BY - 1) / GLOBAL_BY);
        threshold_global_kernel<T><<<grid, dim3(GLOBAL_BX, GLOBAL_BY), 0, st>>>(
            f->data, out->data, w, h, f->pitch, out->pitch, t_dev, t);
    } else {
        constexpr int N = VEC / (int)sizeof(T);
        dim3 grid((w + VEC_BX * N - 1) / (VEC_BX * N), (h + VEC_BY - 1) / VEC_BY);
        threshold_vector_kernel<T><<<grid, dim3(VEC_BX, VEC_BY), 0, st>>>(
            f->data, out->data, w, h, f->pitch, out->pitch, t_dev, t);
    }
}

static int threshold_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                          void *stream)
{
    const gf_threshold_params *p = GF_CPARAMS(s, gf_threshold_params);
    cudaStream_t st = (cudaStream_t)stream;
    const gf_shape os = gf_dimage_shape_of(in);
    const int nbins = gf_hist_bins(in->bits);
    /* scratch: nbins counts, the blocks' sums and bests, then t */
    const size_t blocks = (size_t)nbins / (OTSU_CH * OTSU_THREADS) + 1;
    const size_t o_sums = (size_t)nbins * sizeof(unsigned), o_bests = o_sums + blocks * sizeof(otsu_sums);
    const size_t o_t = o_bests + blocks * sizeof(otsu_best);
    unsigned char *scratch = NULL;
    int *t_dev = NULL, rc;

    if ((!p->otsu && (p->t < 0 || (unsigned)p->t > gf_sample_max(in->bits))) ||
        (p->otsu && in->channels != 1))
        return gf_err(GF_EINTERNAL, NULL, "threshold: bad level %d for %s", p->t,
                      gf_layout_name(in->channels, in->bits));
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    if (p->otsu) {
        GF_CUDA_CHECK(cudaMallocAsync((void **)&scratch, o_t + sizeof *t_dev, st));
        unsigned *bins = (unsigned *)(void *)scratch;
        t_dev = (int *)(void *)(scratch + o_t);
        if ((rc = gf_hist_device(in, bins, st))) {
            cudaFreeAsync(scratch, st);
            return rc;
        }
        otsu_launch(bins, nbins, (otsu_sums *)(void *)(scratch + o_sums),
                    (otsu_best *)(void *)(scratch + o_bests), t_dev, st);
    }
    const gf_dimage f = gf_dimage_flat(in);
    if (in->bits == 8)
        launch<uint8_t>(&f, out, t_dev, p->t, variant, st);
    else
        launch<uint16_t>(&f, out, t_dev, p->t, variant, st);
    cudaError_t e = cudaGetLastError();
    if (scratch)
        cudaFreeAsync(scratch, st);
    GF_CUDA_CHECK(e);
    return 0;
}

extern "C" int gf_threshold_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                        void *stream)
{
    return threshold_cuda(s, in, out, THRESHOLD_GLOBAL, stream);
}

extern "C" int gf_threshold_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                        void *stream)
{
    return threshold_cuda(s, in, out, THRESHOLD_VECTOR, stream);
}
