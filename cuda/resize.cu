/* resize.cu - the resize stage on the device (src/stages/resize.h's rule,
 * Pillow 9.4's Image.resize): the weights come from the host's
 * gf_resize_axis_init, the same as the CPU paths use, and the kernels sum
 * them in the same order with the same roundings. Double sums use
 * __dmul_rn / __dadd_rn, so that no multiply-add is contracted. */
#include "check.h"

#include "../src/stages/resize.h"

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

/* An axis's tables on the device, within one allocation. */
typedef struct dev_axis {
    int *first, *count, *src;
    int32_t *k8;
    double *k;
} dev_axis;

static size_t round_up(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

/* Bytes of a's tables. */
static size_t axis_bytes(const gf_resize_axis *a)
{
    if (a->src)
        return round_up((size_t)a->out * sizeof(int));
    return 2 * round_up((size_t)a->out * sizeof(int)) +
           round_up((size_t)a->out * a->ksize * sizeof(int32_t)) +
           round_up((size_t)a->out * a->ksize * sizeof(double));
}

/* Copies a's tables to base (device) and points d at them; returns the
 * bytes used. */
static int axis_upload(const gf_resize_axis *a, unsigned char *base, dev_axis *d, size_t *used,
                       cudaStream_t st)
{
    size_t off = 0;
    memset(d, 0, sizeof *d);
#define PUT(field, host, bytes)                                                               \
    do {                                                                                      \
        d->field = (decltype(d->field))(void *)(base + off);                                  \
        GF_CUDA_CHECK(cudaMemcpyAsync(base + off, host, bytes, cudaMemcpyHostToDevice, st));  \
        off += round_up(bytes);                                                               \
    } while (0)
    if (a->src) {
        PUT(src, a->src, (size_t)a->out * sizeof(int));
    } else {
        PUT(first, a->first, (size_t)a->out * sizeof(int));
        PUT(count, a->count, (size_t)a->out * sizeof(int));
        PUT(k8, a->k8, (size_t)a->out * a->ksize * sizeof(int32_t));
        PUT(k, a->k, (size_t)a->out * a->ksize * sizeof(double));
    }
#undef PUT
    *used = off;
    return 0;
}

template <typename S, typename D, int C, bool HORIZ>
static void pass(const unsigned char *src, size_t spitch, unsigned char *dst, size_t dpitch,
                 int ow, int oh, const dev_axis *a, int ksize, int premul, int unpremul,
                 cudaStream_t st)
{
    const dim3 grid((ow + RS_BX - 1) / RS_BX, (oh + RS_BY - 1) / RS_BY);
    resize_global_kernel<S, D, C, HORIZ><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
        src, spitch, dst, dpitch, ow, oh, a->first, a->count, a->k8, a->k, ksize, premul,
        unpremul);
}

/* The passes for C channels. 8 bits: row pass to tmp (or out), column pass
 * from tmp (or the input) to out. 16 bits: the same with int32 between. */
template <int C>
static void passes(const gf_dimage *in, gf_dimage *out, unsigned char *tmp, size_t tpitch,
                   const dev_axis *ax, const dev_axis *ay, int kx, int ky, int alpha,
                   cudaStream_t st)
{
    const int need_h = out->width != in->width, need_v = out->height != in->height;
    const int ow = out->width, oh = out->height, ih = in->height;

    if (in->bits == 8) {
        if (need_h)
            pass<uint8_t, uint8_t, C, true>(in->data, in->pitch, need_v ? tmp : out->data,
                                            need_v ? tpitch : out->pitch, ow, ih, ax, kx, alpha,
                                            alpha && !need_v, st);
        if (need_v)
            pass<uint8_t, uint8_t, C, false>(need_h ? tmp : in->data,
                                             need_h ? tpitch : in->pitch, out->data, out->pitch,
                                             ow, oh, ay, ky, alpha && !need_h, alpha, st);
        return;
    }
    if (need_h && need_v) {
        pass<uint16_t, int32_t, C, true>(in->data, in->pitch, tmp, tpitch, ow, ih, ax, kx, 0, 0,
                                         st);
        pass<int32_t, uint16_t, C, false>(tmp, tpitch, out->data, out->pitch, ow, oh, ay, ky, 0,
                                          0, st);
    } else if (need_h)
        pass<uint16_t, uint16_t, C, true>(in->data, in->pitch, out->data, out->pitch, ow, ih, ax,
                                          kx, 0, 0, st);
    else
        pass<uint16_t, uint16_t, C, false>(in->data, in->pitch, out->data, out->pitch, ow, oh,
                                           ay, ky, 0, 0, st);
}

template <typename T, int C>
static void nearest(const gf_dimage *in, gf_dimage *out, const dev_axis *ax, const dev_axis *ay,
                    cudaStream_t st)
{
    const dim3 grid((out->width + RS_BX - 1) / RS_BX, (out->height + RS_BY - 1) / RS_BY);
    resize_nearest_kernel<T, C><<<grid, dim3(RS_BX, RS_BY), 0, st>>>(
        in->data, in->pitch, out->data, out->pitch, out->width, out->height, ax->src, ay->src);
}

extern "C" int gf_resize_global_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                     void *stream)
{
    const gf_resize_params *p = GF_CPARAMS(s, gf_resize_params);
    cudaStream_t st = (cudaStream_t)stream;
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    gf_resize_axis ax, ay;
    dev_axis dx, dy;
    unsigned char *block = NULL;
    size_t tpitch = 0, tbytes = 0, ux, uy;
    int ow, oh, rc, alpha;

    if (gf_resize_size(s, in->width, in->height, &ow, &oh))
        return gf_err(GF_EINTERNAL, NULL, "resize: no output size for %dx%d", in->width,
                      in->height);
    const gf_shape is = gf_dimage_shape_of(in), os = {ow, oh, in->channels, in->bits};
    (void)is;
    if ((rc = gf_dimage_shape(out, &os)))
        return rc;
    if (ow == in->width && oh == in->height) { /* the pipeline skips this; a copy keeps the
                                                  contract */
        GF_CUDA_CHECK(cudaMemcpy2DAsync(out->data, out->pitch, in->data, in->pitch,
                                        (size_t)ow * px, (size_t)oh, cudaMemcpyDeviceToDevice,
                                        st));
        return 0;
    }
    if ((rc = gf_resize_axis_init(&ax, in->width, ow, p->filter)))
        return rc;
    if ((rc = gf_resize_axis_init(&ay, in->height, oh, p->filter))) {
        gf_resize_axis_free(&ax);
        return rc;
    }
    if (p->filter != GF_FILTER_NEAREST && ow != in->width && oh != in->height) {
        tpitch = round_up((size_t)ow * in->channels * (in->bits == 8 ? 1 : 4));
        tbytes = tpitch * (size_t)in->height;
    }
    alpha = in->bits == 8 && p->filter != GF_FILTER_NEAREST &&
            (in->channels == 2 || in->channels == 4);
    {
        const size_t bytes = axis_bytes(&ax) + axis_bytes(&ay) + tbytes;
        cudaError_t e = cudaMallocAsync((void **)&block, bytes, st);
        if (e != cudaSuccess) {
            rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s: %s", __FILE__, __LINE__,
                        cudaGetErrorName(e), cudaGetErrorString(e));
            goto out;
        }
    }
    if ((rc = axis_upload(&ax, block, &dx, &ux, st)) ||
        (rc = axis_upload(&ay, block + ux, &dy, &uy, st)))
        goto out;
    if (p->filter == GF_FILTER_NEAREST) {
#define NEAREST(T, C) nearest<T, C>(in, out, &dx, &dy, st)
        GF_LAYOUT_SWITCH(in->channels, in->bits, NEAREST);
#undef NEAREST
    } else {
        unsigned char *tmp = block + ux + uy;
        switch (in->channels) {
        case 1: passes<1>(in, out, tmp, tpitch, &dx, &dy, ax.ksize, ay.ksize, 0, st); break;
        case 2: passes<2>(in, out, tmp, tpitch, &dx, &dy, ax.ksize, ay.ksize, alpha, st); break;
        case 3: passes<3>(in, out, tmp, tpitch, &dx, &dy, ax.ksize, ay.ksize, 0, st); break;
        default: passes<4>(in, out, tmp, tpitch, &dx, &dy, ax.ksize, ay.ksize, alpha, st); break;
        }
    }
    {
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s: %s", __FILE__, __LINE__,
                        cudaGetErrorName(e), cudaGetErrorString(e));
    }
out:
    if (block) {
        cudaError_t e = cudaFreeAsync(block, st);
        if (e != cudaSuccess && rc == 0)
            rc = gf_err(GF_EINTERNAL, NULL, "CUDA error at %s:%d: %s: %s", __FILE__, __LINE__,
                        cudaGetErrorName(e), cudaGetErrorString(e));
    }
    gf_resize_axis_free(&ax);
    gf_resize_axis_free(&ay);
    return rc;
}
