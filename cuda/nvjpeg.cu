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

#define MAX_ENCODERS 128 /* encoder states kept, one per stream that encodes */

struct gf_jpeg_gpu {
    int device;
    nvjpegHandle_t handle; /* the hardware backend's */
    nvjpegJpegState_t state;
    nvjpegJpegStream_t parsed; /* for the headers */
    cudaStream_t stream;
    pthread_mutex_t lock; /* for encoders */
    struct {
        cudaStream_t stream;
        int quality;
        nvjpegEncoderState_t state;
        nvjpegEncoderParams_t params;
    } enc[MAX_ENCODERS];
    int nenc;
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
    pthread_mutex_init(&j->lock, NULL);
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
    for (int i = 0; i < j->nenc; i++) {
        p_nvjpegEncoderParamsDestroy(j->enc[i].params);
        p_nvjpegEncoderStateDestroy(j->enc[i].state);
    }
    pthread_mutex_destroy(&j->lock);
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
        if (m == MAX_BATCH || out[i]->channels != 1 ||
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

/* The encoder state and parameters for stream st at quality: made on a
 * stream's first encode and kept (making them takes milliseconds). A
 * stream belongs to one thread, so its entry is used by one at a time. */
static int encoder(gf_jpeg_gpu *j, cudaStream_t st, int quality, nvjpegEncoderState_t *es,
                   nvjpegEncoderParams_t *ep)
{
    int i, rc = 0;

    pthread_mutex_lock(&j->lock);
    for (i = 0; i < j->nenc && j->enc[i].stream != st; i++)
        ;
    if (i == j->nenc) {
        if (i == MAX_ENCODERS ||
            !NVJ(p_nvjpegEncoderStateCreate(j->handle, &j->enc[i].state, st))) {
            rc = gf_err(GF_EINTERNAL, NULL, "nvJPEG: cannot create an encoder");
        } else if (!NVJ(p_nvjpegEncoderParamsCreate(j->handle, &j->enc[i].params, st)) ||
                   !NVJ(p_nvjpegEncoderParamsSetSamplingFactors(j->enc[i].params,
                                                                NVJPEG_CSS_GRAY, st))) {
            p_nvjpegEncoderStateDestroy(j->enc[i].state);
            rc = gf_err(GF_EINTERNAL, NULL, "nvJPEG: cannot create an encoder");
        } else {
            j->enc[i].stream = st;
            j->enc[i].quality = -1;
            j->nenc++;
        }
    }
    pthread_mutex_unlock(&j->lock);
    if (rc)
        return rc;
    if (j->enc[i].quality != quality) {
        if (!NVJ(p_nvjpegEncoderParamsSetQuality(j->enc[i].params, quality, st)))
            return gf_err(GF_EINTERNAL, NULL, "nvJPEG: bad quality %d", quality);
        j->enc[i].quality = quality;
    }
    *es = j->enc[i].state;
    *ep = j->enc[i].params;
    return 0;
}

extern "C" int gf_jpeg_gpu_encode(gf_jpeg_gpu *j, void *stream, const gf_dimage *in, int quality,
                                  unsigned char **out, size_t *len)
{
    cudaStream_t st = (cudaStream_t)stream;
    nvjpegEncoderState_t es;
    nvjpegEncoderParams_t ep;
    nvjpegImage_t img;
    size_t n = 0;
    int rc;

    *out = NULL;
    *len = 0;
    memset(&img, 0, sizeof img);
    img.channel[0] = in->data;
    img.pitch[0] = in->pitch;
    GF_CUDA_CHECK(cudaSetDevice(j->device));
    if ((rc = encoder(j, st, quality, &es, &ep)))
        return rc;
    if (!NVJ(p_nvjpegEncodeYUV(j->handle, es, ep, &img, NVJPEG_CSS_GRAY, in->width, in->height,
                               st)) ||
        !NVJ(p_nvjpegEncodeRetrieveBitstream(j->handle, es, NULL, &n, st)))
        return gf_err(GF_EINTERNAL, NULL, "nvJPEG could not encode the image");
    if (!(*out = (unsigned char *)malloc(n ? n : 1)))
        return gf_err(GF_EINTERNAL, NULL, "out of memory encoding JPEG");
    if (!NVJ(p_nvjpegEncodeRetrieveBitstream(j->handle, es, *out, &n, st)) ||
        cudaStreamSynchronize(st) != cudaSuccess) {
        free(*out);
        *out = NULL;
        return gf_err(GF_EINTERNAL, NULL, "nvJPEG could not encode the image");
    }
    *len = n;
    return 0;
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
