/* threshold.cu - binary threshold of every sample: out = in > t ? max : 0,
 * with t given or Otsu's of the image (one channel). The image is taken as
 * one channel of width x channels samples. Otsu's t comes from the
 * histogram (gf_hist_device) and the exact integer comparison of
 * src/otsu.h, the same code the CPU reference runs, computed by one block
 * on the device so the image never leaves it. */
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

/* Otsu's t of bins[NB] into *t_out, gf_otsu's answer, by one block of
 * THREADS threads, each taking NB / THREADS consecutive bins: their counts
 * and value sums, an exclusive scan over the block, then each split's score
 * in double (gf_otsu_approx) and the block's highest score M. Every split
 * within GF_OTSU_NEAR of M whose bin is not empty is a candidate (the exact
 * maximum is among them); each thread keeps its best candidate by the exact
 * 256-bit comparison of src/otsu.h, and the block reduces them the same
 * way, the smaller t winning ties. */
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

__device__ __forceinline__ double warp_max(double x)
{
    for (int off = 16; off; off /= 2)
        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, off));
    return x;
}

template <int NB, int THREADS>
__global__ void __launch_bounds__(THREADS)
    threshold_otsu_kernel(const unsigned *__restrict__ bins, int *t_out)
{
    constexpr int WARPS = THREADS / 32, CH = NB / THREADS;
    __shared__ unsigned long long wsum[WARPS], ssum[WARPS];
    __shared__ double wmax[WARPS];
    __shared__ otsu_best wbest[WARPS];
    const int tid = threadIdx.x, lane = tid % 32, wp = tid / 32, v0 = tid * CH;
    unsigned long long cw = 0, cs = 0;

#pragma unroll 4
    for (int i = 0; i < CH; i++) {
        cw += bins[v0 + i];
        cs += (unsigned long long)(v0 + i) * bins[v0 + i];
    }
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
    __syncthreads();
    unsigned long long n = 0, total = 0;
    for (int k = 0; k < WARPS; k++) {
        if (k < wp)
            w += wsum[k], s += ssum[k];
        n += wsum[k], total += ssum[k];
    }
    w -= cw, s -= cs; /* exclusive: the splits before this chunk */
    const unsigned long long w_start = w, s_start = s;
    double m = -1.0;
    for (int i = 0; i < CH; i++) {
        const int v = v0 + i;
        w += bins[v];
        s += (unsigned long long)v * bins[v];
        if (v < NB - 1)
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
    for (int i = 0; m >= 0 && i < CH; i++) {
        const int v = v0 + i;
        w += bins[v];
        s += (unsigned long long)v * bins[v];
        otsu_best c;
        if (v >= NB - 1 || (v > 0 && !bins[v]) || gf_otsu_approx(n, total, w, s) < m * GF_OTSU_NEAR ||
            !gf_otsu_score(n, total, w, s, &c.num, &c.den))
            continue;
        c.v = v;
        best = otsu_pick(best, c);
    }
    for (int off = 16; off; off /= 2)
        best = otsu_pick(best, otsu_shfl(best, off));
    if (lane == 0)
        wbest[wp] = best;
    __syncthreads();
    if (tid == 0) {
        for (int k = 1; k < WARPS; k++)
            best = otsu_pick(best, wbest[k]);
        *t_out = best.v < 0 ? 0 : best.v; /* 0: no split separates the pixels */
    }
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
    unsigned *scratch = NULL; /* nbins counts, then t */
    int *t_dev = NULL, rc;

    if ((!p->otsu && (p->t < 0 || (unsigned)p->t > gf_sample_max(in->bits))) ||
        (p->otsu && in->channels != 1))
        return gf_err(GF_EINTERNAL, NULL, "threshold: bad level %d for %s", p->t,
                      gf_layout_name(in->channels, in->bits));
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    if (p->otsu) {
        GF_CUDA_CHECK(cudaMallocAsync((void **)&scratch, (nbins + 1) * sizeof *scratch, st));
        t_dev = (int *)(scratch + nbins);
        if ((rc = gf_hist_device(in, scratch, st))) {
            cudaFreeAsync(scratch, st);
            return rc;
        }
        if (nbins == 256)
            threshold_otsu_kernel<256, 256><<<1, 256, 0, st>>>(scratch, t_dev);
        else
            threshold_otsu_kernel<65536, 1024><<<1, 1024, 0, st>>>(scratch, t_dev);
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
