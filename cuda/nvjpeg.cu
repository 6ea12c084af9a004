/* nvjpeg.cu - JPEG on the GPU through nvJPEG (src/gpujpeg.h). nvJPEG is
 * loaded with dlopen when first opened, each function called through a
 * pointer of its own declared type, so gpufilt neither needs it to start nor
 * to be built (GF_HAVE_NVJPEG=0 without the toolkit's nvjpeg.h: every call
 * here says nvJPEG is unavailable). The decoding follows NVIDIA's
 * CUDALibrarySamples nvJPEG-Decoder (hardware backend, batched). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "../src/gpujpeg.h"

#ifndef GF_HAVE_NVJPEG
#define GF_HAVE_NVJPEG 0
#endif

#if GF_HAVE_NVJPEG
#include <dlfcn.h>
#include <nvjpeg.h>
#include <pthread.h>

#define MAX_BATCH 256 /* files in one hardware batch, at most */

#define NVJPEG_FUNCTIONS(X)                                                                   \
    X(nvjpegCreateEx) X(nvjpegDestroy) X(nvjpegJpegStateCreate) X(nvjpegJpegStateDestroy)     \
    X(nvjpegJpegStreamCreate) X(nvjpegJpegStreamDestroy) X(nvjpegJpegStreamParseHeader)       \
    X(nvjpegDecodeBatchedSupported) X(nvjpegDecodeBatchedInitialize) X(nvjpegDecodeBatched)   \
    X(nvjpegEncoderStateCreate) X(nvjpegEncoderStateDestroy) X(nvjpegEncoderParamsCreate)     \
    X(nvjpegEncoderParamsDestroy) X(nvjpegEncoderParamsSetQuality)                            \
    X(nvjpegEncoderParamsSetSamplingFactors) X(nvjpegEncodeYUV)                               \
    X(nvjpegEncodeRetrieveBitstream)
#define POINTER(f) static decltype(&f) p_##f;
NVJPEG_FUNCTIONS(POINTER)
#undef POINTER
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;

#ifndef GF_CUDA_LIBDIR
#define GF_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif
static char load_error[160];

/* The library by its soname (the loader's path), else from the toolkit
 * gpufilt was built with, whose lib folder is often not on that path. */
static void load(void)
{
    static const char *const names[] = {"libnvjpeg.so.13", GF_CUDA_LIBDIR "/libnvjpeg.so.13",
                                        "libnvjpeg.so"};
    void *h = NULL;
    int ok;

    for (size_t i = 0; !h && i < sizeof names / sizeof names[0]; i++)
        if (!(h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) && i == 0)
            snprintf(load_error, sizeof load_error, "%s", dlerror());
    ok = h != NULL;
#define RESOLVE(f) ok = ok && (*(void **)&p_##f = dlsym(h, #f)) != NULL;
    NVJPEG_FUNCTIONS(RESOLVE)
#undef RESOLVE
    loaded = ok;
}

struct gf_jpeg_gpu {
    int device;
    nvjpegHandle_t handle; /* the hardware backend's */
    nvjpegJpegState_t state;
    nvjpegJpegStream_t parsed; /* for the headers */
    cudaStream_t stream;
};

#define NVJ(call) ((call) == NVJPEG_STATUS_SUCCESS)

extern "C" int gf_jpeg_gpu_open(int device, gf_jpeg_gpu **out)
{
    gf_jpeg_gpu *j;

    *out = NULL;
    pthread_once(&load_once, load);
    if (!loaded)
        return gf_err(GF_ENOGPU, NULL, "nvJPEG is not installed (%s)",
                      load_error[0] ? load_error : "libnvjpeg.so.13 lacks a function");
    j = (gf_jpeg_gpu *)calloc(1, sizeof *j);
    if (!j)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    j->device = device;
    if (cudaSetDevice(j->device) != cudaSuccess ||
        cudaStreamCreateWithFlags(&j->stream, cudaStreamNonBlocking) != cudaSuccess) {
        free(j);
        return gf_err(GF_EINTERNAL, NULL, "nvJPEG: no CUDA stream");
    }
    if (!NVJ(p_nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, NVJPEG_FLAGS_DEFAULT,
                              &j->handle))) {
        j->handle = NULL;
        gf_jpeg_gpu_close(j);
        return gf_err(GF_ENOGPU, NULL, "nvJPEG: this GPU has no hardware JPEG decoder");
    }
    if (!NVJ(p_nvjpegJpegStateCreate(j->handle, &j->state)) ||
        !NVJ(p_nvjpegJpegStreamCreate(j->handle, &j->parsed))) {
        gf_jpeg_gpu_close(j);
        return gf_err(GF_EINTERNAL, NULL, "nvJPEG: cannot create its decoder state");
    }
    *out = j;
    return 0;
}

extern "C" void gf_jpeg_gpu_close(gf_jpeg_gpu *j)
{
    if (!j)
        return;
    cudaSetDevice(j->device);
    if (j->parsed)
        p_nvjpegJpegStreamDestroy(j->parsed);
    if (j->state)
        p_nvjpegJpegStateDestroy(j->state);
    if (j->handle)
        p_nvjpegDestroy(j->handle);
    if (j->stream)
        cudaStreamDestroy(j->stream);
    free(j);
}

extern "C" int gf_jpeg_gpu_decode(gf_jpeg_gpu *j, int n, const unsigned char *const *data,
                                  const size_t *len, gf_dimage *const *out, int *status)
{
    const unsigned char *ptr[MAX_BATCH];
    size_t lens[MAX_BATCH];
    nvjpegImage_t img[MAX_BATCH];
    int idx[MAX_BATCH], m = 0;

    GF_CUDA_CHECK(cudaSetDevice(j->device));
    for (int i = 0; i < n; i++) {
        int supported = -1;
        status[i] = GF_JPEG_GPU_REFUSED;
        if (m == MAX_BATCH ||
            !NVJ(p_nvjpegJpegStreamParseHeader(j->handle, data[i], len[i], j->parsed)) ||
            !NVJ(p_nvjpegDecodeBatchedSupported(j->handle, j->parsed, &supported)) ||
            supported != 0)
            continue;
        memset(&img[m], 0, sizeof img[m]);
        img[m].channel[0] = out[i]->data;
        img[m].pitch[0] = out[i]->pitch;
        ptr[m] = data[i];
        lens[m] = len[i];
        idx[m++] = i;
    }
    if (m == 0)
        return 0;
    int ok = NVJ(p_nvjpegDecodeBatchedInitialize(j->handle, j->state, m, 1, NVJPEG_OUTPUT_Y)) &&
             NVJ(p_nvjpegDecodeBatched(j->handle, j->state, ptr, lens, img, j->stream));
    GF_CUDA_CHECK(cudaStreamSynchronize(j->stream));
    GF_CUDA_CHECK(cudaGetLastError());
    for (int k = 0; k < m; k++)
        status[idx[k]] = ok ? GF_JPEG_GPU_DONE : GF_JPEG_GPU_FAILED;
    return 0;
}

extern "C" int gf_jpeg_gpu_encode(gf_jpeg_gpu *j, void *stream, const gf_dimage *in, int quality,
                                  unsigned char **out, size_t *len)
{
    cudaStream_t st = (cudaStream_t)stream;
    nvjpegEncoderState_t es = NULL;
    nvjpegEncoderParams_t ep = NULL;
    nvjpegImage_t img;
    size_t n = 0;
    int rc = 0;

    *out = NULL;
    *len = 0;
    memset(&img, 0, sizeof img);
    img.channel[0] = in->data;
    img.pitch[0] = in->pitch;
    GF_CUDA_CHECK(cudaSetDevice(j->device));
    if (!NVJ(p_nvjpegEncoderStateCreate(j->handle, &es, st)) ||
        !NVJ(p_nvjpegEncoderParamsCreate(j->handle, &ep, st)) ||
        !NVJ(p_nvjpegEncoderParamsSetQuality(ep, quality, st)) ||
        !NVJ(p_nvjpegEncoderParamsSetSamplingFactors(ep, NVJPEG_CSS_GRAY, st)) ||
        !NVJ(p_nvjpegEncodeYUV(j->handle, es, ep, &img, NVJPEG_CSS_GRAY, in->width, in->height,
                               st)) ||
        !NVJ(p_nvjpegEncodeRetrieveBitstream(j->handle, es, NULL, &n, st))) {
        rc = gf_err(GF_EINTERNAL, NULL, "nvJPEG could not encode the image");
    } else if (!(*out = (unsigned char *)malloc(n ? n : 1))) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory encoding JPEG");
    } else if (!NVJ(p_nvjpegEncodeRetrieveBitstream(j->handle, es, *out, &n, st)) ||
               cudaStreamSynchronize(st) != cudaSuccess) {
        free(*out);
        *out = NULL;
        rc = gf_err(GF_EINTERNAL, NULL, "nvJPEG could not encode the image");
    } else {
        *len = n;
    }
    if (ep)
        p_nvjpegEncoderParamsDestroy(ep);
    if (es)
        p_nvjpegEncoderStateDestroy(es);
    return rc;
}

#else /* no nvjpeg.h when gpufilt was built */

extern "C" int gf_jpeg_gpu_open(int device, gf_jpeg_gpu **out)
{
    (void)device;
    *out = NULL;
    return gf_err(GF_ENOGPU, NULL, "gpufilt was built without nvJPEG");
}

extern "C" void gf_jpeg_gpu_close(gf_jpeg_gpu *j)
{
    (void)j;
}

extern "C" int gf_jpeg_gpu_decode(gf_jpeg_gpu *j, int n, const unsigned char *const *data,
                                  const size_t *len, gf_dimage *const *out, int *status)
{
    (void)j, (void)data, (void)len, (void)out;
    for (int i = 0; i < n; i++)
        status[i] = GF_JPEG_GPU_REFUSED;
    return 0;
}

extern "C" int gf_jpeg_gpu_encode(gf_jpeg_gpu *j, void *stream, const gf_dimage *in, int quality,
                                  unsigned char **out, size_t *len)
{
    (void)j, (void)stream, (void)in, (void)quality, (void)out, (void)len;
    return gf_err(GF_ENOGPU, NULL, "gpufilt was built without nvJPEG");
}

#endif
