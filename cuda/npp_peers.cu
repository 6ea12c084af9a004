/* npp_peers.cu - NPP and cuBLAS as gpufilt bench's library peers. Built only
 * with `make PEERS=1` on a machine with the full CUDA toolkit: NPP and cuBLAS
 * stay out of the default link line (and of CI, which lacks NPP). */
#include <cublas_v2.h>
#include <npp.h>
#include <string.h>

#include "check.h"

#include "../src/peers.h"
#include "../src/stages/tone.h"

/* NPP's context for `stream` on the current device (NPP 13 has no
 * nppGetStreamContext: the caller fills it in). Kept for the last stream, so
 * that no device query falls inside a timed region. */
static NppStreamContext npp_ctx(void *stream)
{
    static NppStreamContext ctx;
    static void *last;
    static int valid;
    cudaDeviceProp p;
    unsigned flags = 0;

    if (valid && last == stream)
        return ctx;
    last = stream;
    valid = 1;
    memset(&ctx, 0, sizeof ctx);
    cudaGetDevice(&ctx.nCudaDeviceId);
    cudaGetDeviceProperties(&p, ctx.nCudaDeviceId);
    cudaStreamGetFlags((cudaStream_t)stream, &flags);
    ctx.hStream = (cudaStream_t)stream;
    ctx.nMultiProcessorCount = p.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
    ctx.nStreamFlags = flags;
    return ctx;
}

#define NPP_CHECK(call)                                                                        \
    do {                                                                                       \
        NppStatus gf_s_ = (call);                                                              \
        if (gf_s_ != NPP_SUCCESS)                                                              \
            return gf_err(GF_EINTERNAL, NULL, "NPP error %d at %s:%d", (int)gf_s_, __FILE__,   \
                          __LINE__);                                                           \
    } while (0)

/* The layouts NPP has functions for here. */
enum { L8C1, L8C3, L16C1, LNONE };

static int layout_of(const gf_dimage *d)
{
    return d->bits == 8 ? (d->channels == 1 ? L8C1 : d->channels == 3 ? L8C3 : LNONE)
                        : d->channels == 1 ? L16C1 : LNONE;
}

/* *l = in's layout, and out shaped os: 0, 1 when NPP has no function here
 * for that layout, or gf_dimage_shape's error. */
static int prepare(const gf_dimage *in, gf_dimage *out, const gf_shape *os, int *l)
{
    *l = layout_of(in);
    return *l == LNONE ? 1 : gf_dimage_shape(out, os);
}

extern "C" int gf_npp_box(const gf_dimage *in, gf_dimage *out, int ksize, void *stream)
{
    NppiSize size = {in->width, in->height}, mask = {ksize, ksize};
    NppiPoint offset = {0, 0}, anchor = {ksize / 2, ksize / 2};
    const gf_shape os = gf_dimage_shape_of(in);
    const NppStreamContext ctx = npp_ctx(stream);
    int l, rc;

    if ((rc = prepare(in, out, &os, &l)))
        return rc;
    if (l == L8C1)
        NPP_CHECK(nppiFilterBoxBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset, out->data,
                                                 (int)out->pitch, size, mask, anchor,
                                                 NPP_BORDER_REPLICATE, ctx));
    else if (l == L8C3)
        NPP_CHECK(nppiFilterBoxBorder_8u_C3R_Ctx(in->data, (int)in->pitch, size, offset, out->data,
                                                 (int)out->pitch, size, mask, anchor,
                                                 NPP_BORDER_REPLICATE, ctx));
    else
        NPP_CHECK(nppiFilterBoxBorder_16u_C1R_Ctx(
            (const Npp16u *)in->data, (int)in->pitch, size, offset, (Npp16u *)out->data,
            (int)out->pitch, size, mask, anchor, NPP_BORDER_REPLICATE, ctx));
    return 0;
}

extern "C" int gf_npp_transpose(const gf_dimage *in, gf_dimage *out, void *stream)
{
    NppiSize size = {in->width, in->height};
    const gf_shape os = {in->height, in->width, in->channels, in->bits};
    const NppStreamContext ctx = npp_ctx(stream);
    int l, rc;

    if ((rc = prepare(in, out, &os, &l)))
        return rc;
    if (l == L8C1)
        NPP_CHECK(nppiTranspose_8u_C1R_Ctx(in->data, (int)in->pitch, out->data, (int)out->pitch,
                                           size, ctx));
    else if (l == L8C3)
        NPP_CHECK(nppiTranspose_8u_C3R_Ctx(in->data, (int)in->pitch, out->data, (int)out->pitch,
                                           size, ctx));
    else
        NPP_CHECK(nppiTranspose_16u_C1R_Ctx((const Npp16u *)in->data, (int)in->pitch,
                                            (Npp16u *)out->data, (int)out->pitch, size, ctx));
    return 0;
}

extern "C" int gf_npp_rotate180(const gf_dimage *in, gf_dimage *out, void *stream)
{
    NppiSize size = {in->width, in->height};
    const gf_shape os = gf_dimage_shape_of(in);
    const NppStreamContext ctx = npp_ctx(stream);
    int l, rc;

    if ((rc = prepare(in, out, &os, &l)))
        return rc;
    if (l == L8C1)
        NPP_CHECK(nppiMirror_8u_C1R_Ctx(in->data, (int)in->pitch, out->data, (int)out->pitch, size,
                                        NPP_BOTH_AXIS, ctx));
    else if (l == L8C3)
        NPP_CHECK(nppiMirror_8u_C3R_Ctx(in->data, (int)in->pitch, out->data, (int)out->pitch, size,
                                        NPP_BOTH_AXIS, ctx));
    else
        NPP_CHECK(nppiMirror_16u_C1R_Ctx((const Npp16u *)in->data, (int)in->pitch,
                                         (Npp16u *)out->data, (int)out->pitch, size, NPP_BOTH_AXIS,
                                         ctx));
    return 0;
}

extern "C" int gf_npp_hist(const gf_dimage *in, int *hist, void *temp, size_t *temp_bytes,
                           void *stream)
{
    NppiSize size = {in->width, in->height};
    const NppStreamContext ctx = npp_ctx(stream);
    const int l = layout_of(in);

    if (l == L8C1) {
        if (!temp)
            NPP_CHECK(nppiHistogramEvenGetBufferSize_8u_C1R_Ctx(size, 257, temp_bytes, ctx));
        else
            NPP_CHECK(nppiHistogramEven_8u_C1R_Ctx(in->data, (int)in->pitch, size, hist, 257, 0,
                                                   256, (Npp8u *)temp, ctx));
    } else if (l == L8C3) {
        int levels[3] = {257, 257, 257};
        Npp32s lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
        Npp32s *h[3] = {hist, hist + 256, hist + 512};
        if (!temp)
            NPP_CHECK(nppiHistogramEvenGetBufferSize_8u_C3R_Ctx(size, levels, temp_bytes, ctx));
        else
            NPP_CHECK(nppiHistogramEven_8u_C3R_Ctx(in->data, (int)in->pitch, size, h, levels, lower,
                                                   upper, (Npp8u *)temp, ctx));
    } else if (l == L16C1) {
        if (!temp)
            NPP_CHECK(nppiHistogramEvenGetBufferSize_16u_C1R_Ctx(size, 65537, temp_bytes, ctx));
        else
            NPP_CHECK(nppiHistogramEven_16u_C1R_Ctx((const Npp16u *)in->data, (int)in->pitch, size,
                                                    hist, 65537, 0, 65536, (Npp8u *)temp, ctx));
    } else {
        return 1;
    }
    return 0;
}

/* A device buffer of at least `bytes` bytes kept between calls (the first
 * call is gf_gpu_time's warm-up, outside the timed runs). */
static int npp_scratch(void **buf, size_t *have, size_t bytes)
{
    if (*have >= bytes)
        return 0;
    if (*buf)
        cudaFree(*buf);
    *buf = NULL;
    *have = 0;
    if (cudaMalloc(buf, bytes) != cudaSuccess)
        return gf_err(GF_EINTERNAL, NULL, "NPP peer: out of device memory");
    *have = bytes;
    return 0;
}

static NppiMaskSize npp_mask(int k)
{
    switch (k) {
    case 3: return NPP_MASK_SIZE_3_X_3;
    case 5: return NPP_MASK_SIZE_5_X_5;
    case 7: return NPP_MASK_SIZE_7_X_7;
    case 9: return NPP_MASK_SIZE_9_X_9;
    case 11: return NPP_MASK_SIZE_11_X_11;
    case 13: return NPP_MASK_SIZE_13_X_13;
    default: return NPP_MASK_SIZE_15_X_15;
    }
}

extern "C" int gf_npp_stencil(int kind, const gf_dimage *in, gf_dimage *out, int k,
                              const int *kernel, int divisor, void *stream)
{
    static void *buf, *mask;
    static size_t buf_bytes, mask_bytes;
    NppiSize size = {in->width, in->height}, msize = {k, k};
    NppiPoint offset = {0, 0}, anchor = {k / 2, k / 2};
    const gf_shape os = gf_dimage_shape_of(in);
    const NppStreamContext ctx = npp_ctx(stream);
    const NppiBorderType rep = NPP_BORDER_REPLICATE;
    int l, rc;

    if ((rc = prepare(in, out, &os, &l)))
        return rc;
    if (l != L8C1 && !(l == L8C3 && kind == GF_NPP_GAUSS))
        return 1;
    switch (kind) {
    case GF_NPP_GAUSS:
        if (k > 15)
            return 1;
        if (l == L8C1)
            NPP_CHECK(nppiFilterGaussBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset,
                                                       out->data, (int)out->pitch, size,
                                                       npp_mask(k), rep, ctx));
        else
            NPP_CHECK(nppiFilterGaussBorder_8u_C3R_Ctx(in->data, (int)in->pitch, size, offset,
                                                       out->data, (int)out->pitch, size,
                                                       npp_mask(k), rep, ctx));
        return 0;
    case GF_NPP_MEDIAN: {
        Npp32u n = 0;
        NPP_CHECK(nppiFilterMedianBorderGetBufferSize_8u_C1R_Ctx(size, msize, &n, rep, ctx));
        if ((rc = npp_scratch(&buf, &buf_bytes, n ? n : 1)))
            return rc;
        NPP_CHECK(nppiFilterMedianBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset,
                                                    out->data, (int)out->pitch, size, msize,
                                                    anchor, (Npp8u *)buf, rep, ctx));
        return 0;
    }
    case GF_NPP_ERODE:
    case GF_NPP_DILATE:
        if (mask_bytes < (size_t)k * k) {
            if ((rc = npp_scratch(&mask, &mask_bytes, (size_t)k * k)))
                return rc;
            cudaMemset(mask, 1, (size_t)k * k);
        }
        if (kind == GF_NPP_ERODE)
            NPP_CHECK(nppiErodeBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset, out->data,
                                                 (int)out->pitch, size, (const Npp8u *)mask, msize,
                                                 anchor, rep, ctx));
        else
            NPP_CHECK(nppiDilateBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset,
                                                  out->data, (int)out->pitch, size,
                                                  (const Npp8u *)mask, msize, anchor, rep, ctx));
        return 0;
    case GF_NPP_SOBEL:
        NPP_CHECK(nppiFilterSobelHorizBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset,
                                                        out->data, (int)out->pitch, size, rep,
                                                        ctx));
        return 0;
    case GF_NPP_LAPLACE:
        NPP_CHECK(nppiFilterLaplaceBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset,
                                                     out->data, (int)out->pitch, size,
                                                     NPP_MASK_SIZE_3_X_3, rep, ctx));
        return 0;
    case GF_NPP_CONV: {
        /* the weights go to the device at the first call with them (the
         * warm-up), not in the timed ones */
        static Npp32s last[15 * 15];
        static int last_n;
        static void *wbuf;
        static size_t wbuf_bytes;
        const size_t bytes = (size_t)k * k * sizeof(Npp32s);
        if (k > 15)
            return 1;
        if (kernel && (last_n != k * k || memcmp(last, kernel, bytes))) {
            if ((rc = npp_scratch(&wbuf, &wbuf_bytes, bytes)))
                return rc;
            if (cudaMemcpy(wbuf, kernel, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
                return gf_err(GF_EINTERNAL, NULL, "NPP peer: copy failed");
            memcpy(last, kernel, bytes);
            last_n = k * k;
        }
        NPP_CHECK(nppiFilterBorder_8u_C1R_Ctx(in->data, (int)in->pitch, size, offset, out->data,
                                              (int)out->pitch, size, (const Npp32s *)wbuf, msize,
                                              anchor, divisor, rep, ctx));
        return 0;
    }
    }
    return 1;
}

extern "C" int gf_npp_resize(const gf_dimage *in, gf_dimage *out, int ow, int oh, int filter,
                             void *stream)
{
    NppiSize ssize = {in->width, in->height}, dsize = {ow, oh};
    NppiRect sroi = {0, 0, in->width, in->height}, droi = {0, 0, ow, oh};
    const gf_shape os = {ow, oh, in->channels, in->bits};
    const NppStreamContext ctx = npp_ctx(stream);
    const int interp = filter == GF_NPP_LINEAR    ? NPPI_INTER_LINEAR
                       : filter == GF_NPP_CUBIC   ? NPPI_INTER_CUBIC
                       : filter == GF_NPP_LANCZOS ? NPPI_INTER_LANCZOS
                                                  : NPPI_INTER_SUPER;
    int l, rc;

    if ((rc = prepare(in, out, &os, &l)))
        return rc;
    if (l == L8C1)
        NPP_CHECK(nppiResize_8u_C1R_Ctx(in->data, (int)in->pitch, ssize, sroi, out->data,
                                        (int)out->pitch, dsize, droi, interp, ctx));
    else if (l == L8C3)
        NPP_CHECK(nppiResize_8u_C3R_Ctx(in->data, (int)in->pitch, ssize, sroi, out->data,
                                        (int)out->pitch, dsize, droi, interp, ctx));
    else
        NPP_CHECK(nppiResize_16u_C1R_Ctx((const Npp16u *)in->data, (int)in->pitch, ssize, sroi,
                                         (Npp16u *)out->data, (int)out->pitch, dsize, droi,
                                         interp, ctx));
    return 0;
}

extern "C" int gf_npp_copy(const gf_dimage *in, gf_dimage *out, int x, int y, int w, int h,
                           void *stream)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    const unsigned char *src = in->data + (size_t)y * in->pitch + (size_t)x * px;
    const gf_shape os = {w, h, in->channels, in->bits};
    const NppStreamContext ctx = npp_ctx(stream);
    NppiSize roi = {w, h};
    int l, rc;

    if ((rc = prepare(in, out, &os, &l)))
        return rc;
    if (l == L8C1)
        NPP_CHECK(nppiCopy_8u_C1R_Ctx(src, (int)in->pitch, out->data, (int)out->pitch, roi, ctx));
    else if (l == L8C3)
        NPP_CHECK(nppiCopy_8u_C3R_Ctx(src, (int)in->pitch, out->data, (int)out->pitch, roi, ctx));
    else
        NPP_CHECK(nppiCopy_16u_C1R_Ctx((const Npp16u *)src, (int)in->pitch, (Npp16u *)out->data,
                                       (int)out->pitch, roi, ctx));
    return 0;
}

/* nppiLUTPalette of in's layout with tables[c] for channel c (device). */
static int npp_palette(const gf_dimage *in, gf_dimage *out, const void *const *tables,
                       NppStreamContext ctx)
{
    NppiSize size = {in->width, in->height};
    const gf_shape os = gf_dimage_shape_of(in);
    int l, rc;

    if ((rc = prepare(in, out, &os, &l)))
        return rc;
    if (l == L8C1) {
        NPP_CHECK(nppiLUTPalette_8u_C1R_Ctx(in->data, (int)in->pitch, out->data, (int)out->pitch,
                                            size, (const Npp8u *)tables[0], 8, ctx));
    } else if (l == L8C3) {
        const Npp8u *t[3] = {(const Npp8u *)tables[0], (const Npp8u *)tables[1],
                             (const Npp8u *)tables[2]};
        NPP_CHECK(nppiLUTPalette_8u_C3R_Ctx(in->data, (int)in->pitch, out->data, (int)out->pitch,
                                            size, t, 8, ctx));
    } else {
        NPP_CHECK(nppiLUTPalette_16u_C1R_Ctx((const Npp16u *)in->data, (int)in->pitch,
                                             (Npp16u *)out->data, (int)out->pitch, size,
                                             (const Npp16u *)tables[0], 16, ctx));
    }
    return 0;
}

extern "C" int gf_npp_lut(const gf_dimage *in, gf_dimage *out, const void *table, void *stream)
{
    const void *tables[3] = {table, table, table};
    return npp_palette(in, out, tables, npp_ctx(stream));
}

extern "C" int gf_npp_equalize(const gf_dimage *in, gf_dimage *out, void *stream)
{
    static void *temp, *hist, *tables;
    static size_t temp_bytes, hist_bytes, tables_bytes;
    static int host_hist[3 * 65536];
    static unsigned char host_tables[3 * 65536 * 2];
    const int l = layout_of(in), ch = in->channels, nb = in->bits == 8 ? 256 : 65536;
    const unsigned max = (unsigned)nb - 1;
    const uint32_t n = (uint32_t)in->width * (uint32_t)in->height;
    const size_t tbytes = (size_t)nb * (size_t)(in->bits / 8);
    cudaStream_t st = (cudaStream_t)stream;
    size_t need = 0;
    int rc;

    if (l == LNONE)
        return 1;
    if ((rc = gf_npp_hist(in, NULL, NULL, &need, stream)) ||
        (rc = npp_scratch(&temp, &temp_bytes, need ? need : 1)) ||
        (rc = npp_scratch(&hist, &hist_bytes, (size_t)ch * nb * sizeof(int))) ||
        (rc = npp_scratch(&tables, &tables_bytes, (size_t)ch * tbytes)) ||
        (rc = gf_npp_hist(in, (int *)hist, temp, &need, stream)))
        return rc;
    if (cudaMemcpyAsync(host_hist, hist, (size_t)ch * nb * sizeof(int), cudaMemcpyDeviceToHost,
                        st) != cudaSuccess ||
        cudaStreamSynchronize(st) != cudaSuccess)
        return gf_err(GF_EINTERNAL, NULL, "NPP peer: histogram copy failed");
    for (int c = 0; c < ch; c++) { /* OpenCV's equalizeHist table (tone.h) */
        const int *h = host_hist + (size_t)c * nb;
        unsigned char *t8 = host_tables + (size_t)c * tbytes;
        uint16_t *t16 = (uint16_t *)(void *)t8;
        int i0 = 0;
        while (i0 < nb - 1 && !h[i0])
            i0++;
        const float scale = (uint32_t)h[i0] == n ? 0.0f : gf_equalize_scale(max, n - (uint32_t)h[i0]);
        uint32_t sum = 0;
        for (int i = 0; i < nb; i++) {
            unsigned v;
            if ((uint32_t)h[i0] == n)
                v = (unsigned)i; /* one value: kept */
            else if (i <= i0)
                v = 0;
            else
                v = gf_equalize_entry(sum += (uint32_t)h[i], scale, max);
            if (nb == 256)
                t8[i] = (unsigned char)v;
            else
                t16[i] = (uint16_t)v;
        }
    }
    if (cudaMemcpyAsync(tables, host_tables, (size_t)ch * tbytes, cudaMemcpyHostToDevice, st) !=
        cudaSuccess)
        return gf_err(GF_EINTERNAL, NULL, "NPP peer: table copy failed");
    const void *t[3] = {tables, (const unsigned char *)tables + (ch > 1 ? tbytes : 0),
                        (const unsigned char *)tables + (ch > 2 ? 2 * tbytes : 0)};
    return npp_palette(in, out, t, npp_ctx(stream));
}

extern "C" int gf_cublas_sgemm(const float *a, const float *b, float *c, int m, int n, int k,
                               void *stream)
{
    static cublasHandle_t handle;
    const float one = 1.0f, zero = 0.0f;

    if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
        return gf_err(GF_EINTERNAL, NULL, "cublasCreate failed");
    cublasSetStream(handle, (cudaStream_t)stream);
    /* row-major C = A B is column-major C^T = B^T A^T */
    if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n) !=
        CUBLAS_STATUS_SUCCESS)
        return gf_err(GF_EINTERNAL, NULL, "cublasSgemm failed");
    return 0;
}
