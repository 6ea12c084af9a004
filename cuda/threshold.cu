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

/* Otsu's t of bins into *t_out: thread v scores the split after value v
 * (prefix sums by a Hillis-Steele scan), then a tree reduction keeps the
 * highest score, the smaller t on ties: gf_otsu's answer. */
__global__ void __launch_bounds__(OTSU_THREADS)
    threshold_otsu_kernel(const unsigned *__restrict__ bins, int *t_out)
{
    __shared__ unsigned long long w[OTSU_THREADS], s[OTSU_THREADS];
    __shared__ gf_u256 num[OTSU_THREADS], den[OTSU_THREADS];
    __shared__ int idx[OTSU_THREADS];
    const int v = threadIdx.x;

    w[v] = bins[v];
    s[v] = (unsigned long long)v * bins[v];
    __syncthreads();
    for (int off = 1; off < OTSU_THREADS; off *= 2) {
        unsigned long long aw = v >= off ? w[v - off] : 0, as = v >= off ? s[v - off] : 0;
        __syncthreads();
        w[v] += aw;
        s[v] += as;
        __syncthreads();
    }
    const unsigned long long n = w[OTSU_THREADS - 1], total = s[OTSU_THREADS - 1];
    gf_u256 nu, de;
    int ok = v < 255 && gf_otsu_score(n, total, w[v], s[v], &nu, &de);
    num[v] = nu;
    den[v] = de;
    idx[v] = ok ? v : -1;
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
