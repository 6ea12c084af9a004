/* crop.cu - the crop stage on the device (src/stages/crop.h). Variants:
 *   copy    the region's rows by one 2-D device-to-device copy (the
 *           baseline; no kernel of its own);
 *   vector  a kernel: each thread stores 16 aligned bytes of an output row,
 *           read as the two aligned 16-byte vectors of the input around them
 *           and funnel-shifted into place by the row's misalignment. */
#include "check.h"

#include "../src/stages/crop.h"

/* The region of s in in, and out shaped for it: 0, or an error. */
static int region(const gf_stage *s, const gf_dimage *in, gf_dimage *out, int *x, int *y, int *w,
                  int *h)
{
    if (gf_crop_of(s, in->width, in->height, x, y, w, h))
        return gf_err(GF_EINTERNAL, NULL, "crop: the region lies outside the %dx%d image",
                      in->width, in->height);
    const gf_shape os = {*w, *h, in->channels, in->bits};
    return gf_dimage_shape(out, &os);
}

extern "C" int gf_crop_copy_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                 void *stream)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    int x, y, w, h, rc;

    if ((rc = region(s, in, out, &x, &y, &w, &h)))
        return rc;
    GF_CUDA_CHECK(cudaMemcpy2DAsync(out->data, out->pitch,
                                    in->data + (size_t)y * in->pitch + (size_t)x * px, in->pitch,
                                    (size_t)w * px, (size_t)h, cudaMemcpyDeviceToDevice,
                                    (cudaStream_t)stream));
    return 0;
}

/* Threads a block of the vector kernel: 64 16-byte chunks of a row by 4
 * rows. */
#define CROP_BX 64
#define CROP_BY 4

/* Copies h rows of n bytes from src (row r at src + r * spitch; any
 * alignment) to dst (rows 16-byte aligned), a 16-byte chunk a thread. The
 * two aligned vectors around a source chunk lie within its row's pitch
 * (rows start 256-aligned and their padding is part of the allocation); the
 * bytes of them outside the region are read, never stored. */
__global__ void __launch_bounds__(CROP_BX *CROP_BY)
    crop_vector_kernel(const unsigned char *__restrict__ src, size_t spitch,
                       unsigned char *__restrict__ dst, size_t dpitch, size_t n, int h)
{
    const size_t off = 16 * ((size_t)blockIdx.x * CROP_BX + threadIdx.x);
    if (off >= n)
        return;
    for (int r = blockIdx.y * CROP_BY + threadIdx.y; r < h; r += gridDim.y * CROP_BY) {
        const unsigned char *s = src + (size_t)r * spitch + off;
        unsigned char *d = dst + (size_t)r * dpitch + off;
        const unsigned mis = (unsigned)((uintptr_t)s & 15);
        const size_t want = n - off < 16 ? n - off : 16; /* bytes of this chunk */
        const uint4 *a = (const uint4 *)(s - mis);
        const uint4 lo = a[0];
        const uint4 hi = mis + want > 16 ? a[1] : lo;
        const uint32_t wd[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        const unsigned ws = mis >> 2, bs = 8 * (mis & 3);
        uint32_t v[5], o[4];
#pragma unroll
        for (int k = 0; k < 5; k++) /* wd[ws + k], by selects: no local memory */
            v[k] = ws == 0 ? wd[k] : ws == 1 ? wd[k + 1] : ws == 2 ? wd[k + 2] : wd[k + 3];
#pragma unroll
        for (int k = 0; k < 4; k++)
            o[k] = __funnelshift_r(v[k], v[k + 1], bs);
        if (want == 16) {
            *(uint4 *)d = make_uint4(o[0], o[1], o[2], o[3]);
        } else {
            for (unsigned i = 0; i < (unsigned)want; i++) { /* o[i / 4], by selects */
                const uint32_t wv = i < 4 ? o[0] : i < 8 ? o[1] : i < 12 ? o[2] : o[3];
                d[i] = (unsigned char)(wv >> (8 * (i % 4)));
            }
        }
    }
}

extern "C" int gf_crop_vector_cuda(const gf_stage *s, const gf_dimage *in, gf_dimage *out,
                                   void *stream)
{
    const size_t px = GF_PIXEL_BYTES(in->channels, in->bits);
    int x, y, w, h, rc;

    if ((rc = region(s, in, out, &x, &y, &w, &h)))
        return rc;
    const size_t n = (size_t)w * px, chunks = (n + 15) / 16;
    const unsigned rows = (unsigned)((h + CROP_BY - 1) / CROP_BY);
    const dim3 grid((unsigned)((chunks + CROP_BX - 1) / CROP_BX), rows < 65535 ? rows : 65535);
    crop_vector_kernel<<<grid, dim3(CROP_BX, CROP_BY), 0, (cudaStream_t)stream>>>(
        in->data + (size_t)y * in->pitch + (size_t)x * px, in->pitch, out->data, out->pitch, n, h);
    GF_CUDA_CHECK(cudaGetLastError());
    return 0;
}
