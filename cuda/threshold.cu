/* threshold.cu - binary threshold of an 8-bit image: out = in > t ? 255 : 0,
 * with t given or Otsu's of the image. Otsu's t comes from the histogram
 * (gf_hist_device) and the exact integer comparison of src/otsu.h, the same
 * code the CPU reference runs, computed by one block on the device so the
 * image never leaves it. */
#include "check.h"

#include "../src/otsu.h"
#include "../src/stages/hist.h"
#include "../src/stages/threshold.h"

/* threshold_global_kernel: one thread per pixel, 32x8 blocks. */
#define GLOBAL_BX 32
#define GLOBAL_BY 8
/* threshold_vector_kernel: 16 pixels per thread (one 16-byte load and
 * store; rows start on 256-byte boundaries), 64x4 blocks. */
#define VEC 16
#define VEC_BX 64
#define VEC_BY 4
#define OTSU_THREADS 256 /* one per candidate t (255 of them) */

/* The level: *t_dev when given (Otsu's, computed on the device), else t. */
__device__ __forceinline__ unsigned level(const int *t_dev, int t)
{
    return (unsigned)(t_dev ? *t_dev : t);
}

__global__ void threshold_global_kernel(const unsigned char *__restrict__ in,
                                        unsigned char *__restrict__ out, int w, int h,
                                        size_t ipitch, size_t opitch, const int *t_dev, int t)
{
    const int x = blockIdx.x * GLOBAL_BX + threadIdx.x, y = blockIdx.y * GLOBAL_BY + threadIdx.y;

    if (x < w && y < h)
        out[(size_t)y * opitch + x] = in[(size_t)y * ipitch + x] > level(t_dev, t) ? 255 : 0;
}

__global__ void threshold_vector_kernel(const unsigned char *__restrict__ in,
                                        unsigned char *__restrict__ out, int w, int h,
                                        size_t ipitch, size_t opitch, const int *t_dev, int t)
{
    const int x = (blockIdx.x * VEC_BX + threadIdx.x) * VEC, y = blockIdx.y * VEC_BY + threadIdx.y;

    if (x >= w || y >= h)
        return;
    const unsigned lv = level(t_dev, t), tt = lv * 0x01010101u;
    const unsigned char *src = in + (size_t)y * ipitch + x;
    unsigned char *dst = out + (size_t)y * opitch + x;
    if (x + VEC <= w) {
        uint4 v = *(const uint4 *)src;
        v.x = __vcmpgtu4(v.x, tt); /* 0xff in each byte above the level */
        v.y = __vcmpgtu4(v.y, tt);
        v.z = __vcmpgtu4(v.z, tt);
        v.w = __vcmpgtu4(v.w, tt);
        *(uint4 *)dst = v;
    } else {
        for (int k = 0; x + k < w; k++)
            dst[k] = src[k] > lv ? 255 : 0;
    }
}

/* Otsu's t of bins into *t_out, gf_otsu's answer. Thread v takes the split
 * after value v: prefix sums by warp shuffles, then its score in double
 * from the exact difference s0*N - S*w0 (128-bit integers, so no
 * cancellation); the block's highest score M. Every split within 1e-9 of M
 * is a candidate (a double is within 1e-15 of the exact score, so the exact
 * maximum is among them), less those whose bin v is empty (the split at v-1
 * is the same, and smaller). One candidate is the answer; several (true
 * ties, or scores closer than 1e-9) go through the exact 256-bit comparison
 * of src/otsu.h, the smaller t winning ties. */
__device__ __forceinline__ double warp_max(double x)
{
    for (int off = 16; off; off /= 2)
        x = fmax(x, __shfl_xor_sync(0xffffffffu, x, off));
    return x;
}

__global__ void __launch_bounds__(OTSU_THREADS)
    threshold_otsu_kernel(const unsigned *__restrict__ bins, int *t_out)
{
    constexpr int WARPS = OTSU_THREADS / 32;
    __shared__ unsigned long long wsum[WARPS], ssum[WARPS];
    __shared__ double wmax[WARPS];
    __shared__ gf_u256 num[OTSU_THREADS], den[OTSU_THREADS];
    __shared__ int idx[OTSU_THREADS];
    const int v = threadIdx.x, lane = v % 32, wp = v / 32;
    unsigned long long w = bins[v], s = (unsigned long long)v * bins[v];

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
    const bool ok = v < 255 && w != 0 && w != n;
    double score = -1.0;
    if (ok) {
        const unsigned __int128 a = (unsigned __int128)s * n, b = (unsigned __int128)total * w;
        const double d = (double)(a >= b ? a - b : b - a);
        score = d * d / ((double)w * (double)(n - w));
    }
    double m = warp_max(score);
    if (lane == 0)
        wmax[wp] = m;
    __syncthreads();
    for (int k = 0; k < WARPS; k++)
        m = fmax(m, wmax[k]);
    const bool cand = ok && score >= m * (1.0 - 1e-9) && (v == 0 || bins[v] != 0);
    const int ncand = __syncthreads_count(cand);
    if (ncand <= 1) {
        if (cand)
            *t_out = v;
        else if (ncand == 0 && v == 0)
            *t_out = 0; /* no split separates the pixels */
        return;
    }
    gf_u256 nu = gf_u256_from(0), de = gf_u256_from(1);
    if (cand)
        gf_otsu_score(n, total, w, s, &nu, &de);
    num[v] = nu;
    den[v] = de;
    idx[v] = cand ? v : -1;
    __syncthreads();
    for (int half = OTSU_THREADS / 2; half > 0; half /= 2) {
        if (v < half) {
            const int a = idx[v], b = idx[v + half];
            int take_b = 0;
            if (b >= 0 && a < 0) {
                take_b = 1;
            } else if (a >= 0 && b >= 0) {
                int c = gf_u256_cmp(gf_u256_mul(num[v + half], den[v]),
                                    gf_u256_mul(num[v], den[v + half]));
                take_b = c > 0 || (c == 0 && b < a);
            }
            if (take_b) {
                num[v] = num[v + half];
                den[v] = den[v + half];
                idx[v] = b;
            }
        }
        __syncthreads();
    }
    if (v == 0)
        *t_out = idx[0] < 0 ? 0 : idx[0];
}

enum { THRESHOLD_GLOBAL, THRESHOLD_VECTOR };

static int threshold_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int variant,
                          void *stream)
{
    const gf_threshold_params *p = GF_CPARAMS(s, gf_threshold_params);
    cudaStream_t st = (cudaStream_t)stream;
    const int w = in->width, h = in->height;
    unsigned *scratch = NULL; /* 256 counts, then t */
    int *t_dev = NULL, rc;

    if (!p->otsu && (p->t < 0 || p->t > 255))
        return gf_err(GF_EINTERNAL, NULL, "threshold: bad level %d", p->t);
    if ((rc = gf_dimage_shape(out, w, h)))
        return rc;
    if (p->otsu) {
        GF_CUDA_CHECK(cudaMallocAsync((void **)&scratch, 257 * sizeof *scratch, st));
        t_dev = (int *)(scratch + 256);
        if ((rc = gf_hist_device(in, scratch, st))) {
            cudaFreeAsync(scratch, st);
            return rc;
        }
        threshold_otsu_kernel<<<1, OTSU_THREADS, 0, st>>>(scratch, t_dev);
    }
    if (variant == THRESHOLD_GLOBAL) {
        dim3 grid((w + GLOBAL_BX - 1) / GLOBAL_BX, (h + GLOBAL_BY - 1) / GLOBAL_BY);
        threshold_global_kernel<<<grid, dim3(GLOBAL_BX, GLOBAL_BY), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, t_dev, p->t);
    } else {
        dim3 grid((w + VEC_BX * VEC - 1) / (VEC_BX * VEC), (h + VEC_BY - 1) / VEC_BY);
        threshold_vector_kernel<<<grid, dim3(VEC_BX, VEC_BY), 0, st>>>(
            in->data, out->data, w, h, in->pitch, out->pitch, t_dev, p->t);
    }
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
