/* nvjpeg.cu - JPEG on the GPU through nvJPEG (src/gpujpeg.h). nvJPEG is
 * loaded with dlopen when first opened, each function called through a
 * pointer of its own declared type, so gpufilt neither needs it to start nor
 * to be built (GF_HAVE_NVJPEG=0 without the toolkit's nvjpeg.h: every call
 * here says nvJPEG is unavailable). The decoding follows NVIDIA's
 * CUDALibrarySamples nvJPEG-Decoder (hardware backend, batched). A colour
 * JPEG is decoded to its planes (NVJPEG_OUTPUT_YUV) and made RGB here by
 * libjpeg-turbo's own upsampling and colour arithmetic
 * (src/codec/jpeg_color.h): nvJPEG's RGB output differs from
 * libjpeg-turbo's on subsampled files (docs/benchmarks.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "../src/codec/codec.h"
#include "../src/codec/jpeg_color.h"
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
    X(nvjpegJpegStreamGetComponentsNum) X(nvjpegJpegStreamGetComponentDimensions)             \
    X(nvjpegJpegStreamGetChromaSubsampling)                                                   \
    X(nvjpegDecodeBatchedSupported) X(nvjpegDecodeBatchedInitialize) X(nvjpegDecodeBatched)   \
    X(nvjpegDecodeBatchedPreAllocate)                                                         \
    X(nvjpegEncoderStateCreate) X(nvjpegEncoderStateDestroy) X(nvjpegEncoderParamsCreate)     \
    X(nvjpegEncoderParamsDestroy) X(nvjpegEncoderParamsSetQuality)                            \
    X(nvjpegEncoderParamsSetSamplingFactors) X(nvjpegEncodeYUV) X(nvjpegEncodeImage)          \
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

/* A decode lane: what one thread's batch needs of its own (nvJPEG's
 * thread-safety rules: a decoder state and a JPEG stream a thread), under
 * the handle all lanes share. */
typedef struct lane {
    pthread_mutex_t lock;  /* held for a batch */
    int made;              /* 1 made, 0 not yet, -1 could not be */
    nvjpegJpegState_t state;
    nvjpegJpegStream_t parsed; /* for the headers */
    cudaStream_t stream;
    unsigned char *planes; /* the colour files' decoded planes, device memory */
    size_t planes_bytes;
    /* what the hardware decoder's buffers were preallocated for (prealloc) */
    int pre_n, pre_w, pre_h, pre_rank;
    nvjpegChromaSubsampling_t pre_css;
    nvjpegOutputFormat_t pre_fmt;
} lane;

struct gf_jpeg_gpu {
    int device;
    int backend;           /* GF_JPEG_BACKEND_* */
    nvjpegHandle_t handle;
    lane lanes[GF_JPEG_GPU_LANES];
    /* a lane's batch holds it to read, a preallocation to write: nvJPEG's
     * thread-safety notes cover decoding with a state a thread, not a
     * preallocation beside another thread's decode */
    pthread_rwlock_t prealloc;
    pthread_mutex_t lock; /* for encoders */
    struct {
        cudaStream_t stream;
        int channels; /* 1: gray; 3: RGB, chroma 4:2:0 */
        int quality;
        nvjpegEncoderState_t state;
        nvjpegEncoderParams_t params;
    } enc[MAX_ENCODERS];
    int nenc;
};

#define NVJ(call) ((call) == NVJPEG_STATUS_SUCCESS)

extern "C" int gf_jpeg_gpu_load(void)
{
    pthread_once(&load_once, load);
    if (!loaded)
        return gf_err(GF_ENOGPU, NULL, "nvJPEG is not installed (%s)",
                      load_error[0] ? load_error : "libnvjpeg.so.13 lacks a function");
    return 0;
}

extern "C" int gf_jpeg_gpu_open(int device, gf_jpeg_gpu **out)
{
    return gf_jpeg_gpu_open_backend(device, GF_JPEG_BACKEND_HARDWARE, out);
}

/* Makes lane l of j: its stream, decoder state and JPEG stream; 1 when
 * made (the device set). */
static int lane_make(gf_jpeg_gpu *j, lane *l)
{
    if (l->made == 0)
        l->made = cudaStreamCreateWithFlags(&l->stream, cudaStreamNonBlocking) == cudaSuccess &&
                          NVJ(p_nvjpegJpegStateCreate(j->handle, &l->state)) &&
                          NVJ(p_nvjpegJpegStreamCreate(j->handle, &l->parsed))
                      ? 1
                      : -1;
    return l->made == 1;
}

static void lane_free(lane *l)
{
    if (l->planes)
        cudaFree(l->planes);
    if (l->parsed)
        p_nvjpegJpegStreamDestroy(l->parsed);
    if (l->state)
        p_nvjpegJpegStateDestroy(l->state);
    if (l->stream)
        cudaStreamDestroy(l->stream);
    pthread_mutex_destroy(&l->lock);
}

extern "C" int gf_jpeg_gpu_open_backend(int device, int backend, gf_jpeg_gpu **out)
{
    static const nvjpegBackend_t backends[] = {NVJPEG_BACKEND_HARDWARE, NVJPEG_BACKEND_GPU_HYBRID,
                                               NVJPEG_BACKEND_HYBRID};
    gf_jpeg_gpu *j;
    int rc;

    *out = NULL;
    if ((rc = gf_jpeg_gpu_load()))
        return rc;
    j = (gf_jpeg_gpu *)calloc(1, sizeof *j);
    if (!j)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    j->device = device;
    j->backend = backend;
    pthread_mutex_init(&j->lock, NULL);
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra); /* one lane waiting to preallocate blocks new batches */
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&j->prealloc, &ra);
    pthread_rwlockattr_destroy(&ra);
    for (int k = 0; k < GF_JPEG_GPU_LANES; k++)
        pthread_mutex_init(&j->lanes[k].lock, NULL);
    if (cudaSetDevice(j->device) != cudaSuccess ||
        !NVJ(p_nvjpegCreateEx(backends[backend], NULL, NULL, NVJPEG_FLAGS_DEFAULT,
                              &j->handle))) {
        j->handle = NULL;
        gf_jpeg_gpu_close(j);
        return gf_err(GF_ENOGPU, NULL, backend == GF_JPEG_BACKEND_HARDWARE
                                           ? "nvJPEG: this GPU has no hardware JPEG decoder"
                                           : "nvJPEG: the backend cannot start");
    }
    if (!lane_make(j, &j->lanes[0])) { /* the others on their first batch */
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
    pthread_rwlock_destroy(&j->prealloc);
    for (int k = 0; k < GF_JPEG_GPU_LANES; k++)
        lane_free(&j->lanes[k]);
    if (j->handle)
        p_nvjpegDestroy(j->handle);
    free(j);
}

/* jpeg_rgb_kernel: a colour JPEG's planes to interleaved RGB (8u_C3) in
 * out, libjpeg-turbo's way (src/codec/jpeg_color.h): a thread takes 4
 * pixels of a row, reads their luma as a word and their chroma through the
 * upsampling rule, and stores 12 bytes as 3 words (rows start on 256-byte
 * boundaries, so they are aligned). 64x4 threads a block. */
#define RGB_BX 64
#define RGB_BY 4

__global__ void __launch_bounds__(RGB_BX *RGB_BY)
    jpeg_rgb_kernel(const unsigned char *__restrict__ y, size_t ypitch, gf_jpeg_plane cb,
                    gf_jpeg_plane cr, unsigned char *__restrict__ out, size_t opitch, int w, int h)
{
    const int x0 = 4 * (blockIdx.x * RGB_BX + threadIdx.x), row = blockIdx.y * RGB_BY + threadIdx.y;

    if (x0 >= w || row >= h)
        return;
    unsigned char px[12];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int x = min(x0 + k, w - 1); /* past the row's end: computed, not stored */
        gf_jpeg_ycc_rgb(y[(size_t)row * ypitch + x], gf_jpeg_chroma(&cb, x, row),
                        gf_jpeg_chroma(&cr, x, row), px + 3 * k);
    }
    unsigned char *o = out + (size_t)row * opitch + 3 * (size_t)x0;
    if (x0 + 4 <= w) {
        unsigned *ow = (unsigned *)(void *)o;
#pragma unroll
        for (int q = 0; q < 3; q++)
            ow[q] = (unsigned)px[4 * q] | (unsigned)px[4 * q + 1] << 8 |
                    (unsigned)px[4 * q + 2] << 16 | (unsigned)px[4 * q + 3] << 24;
    } else {
        for (int k = 0; k < 3 * (w - x0); k++)
            o[k] = px[k];
    }
}

/* What a colour file needs in the planes buffer: the luma plane and two
 * chroma planes of the component sizes, rows padded to GF_PITCH_ALIGN. */
typedef struct colour_file {
    int w, h, hs, vs, cw, ch;
    size_t ypitch, cpitch, off; /* off: where its planes start */
} colour_file;

static size_t align_pitch(int width)
{
    return ((size_t)width + GF_PITCH_ALIGN - 1) / GF_PITCH_ALIGN * GF_PITCH_ALIGN;
}

/* The planes buffer grown to at least bytes (cudaFree and cudaMalloc wait
 * for the device: it only grows, to the largest batch seen). */
static int planes_buffer(lane *l, size_t bytes)
{
    if (l->planes_bytes >= bytes)
        return 0;
    if (l->planes)
        cudaFree(l->planes);
    l->planes = NULL;
    l->planes_bytes = 0;
    GF_CUDA_CHECK(cudaMalloc((void **)&l->planes, bytes));
    l->planes_bytes = bytes;
    return 0;
}

/* What a batch's files need of the hardware decoder's buffers: the most
 * width and height, and the chroma subsampling with the most samples. */
typedef struct need {
    int w, h, rank;
    nvjpegChromaSubsampling_t css;
} need;

/* Samples a pixel in halves for each subsampling (unknown: as 4:4:4). */
static int css_rank(nvjpegChromaSubsampling_t css)
{
    switch (css) {
    case NVJPEG_CSS_GRAY: return 2;
    case NVJPEG_CSS_410: case NVJPEG_CSS_411: case NVJPEG_CSS_410V: return 3;
    case NVJPEG_CSS_420: return 3;
    case NVJPEG_CSS_422: case NVJPEG_CSS_440: return 4;
    default: return 6;
    }
}

static void need_add(need *d, int w, int h, nvjpegChromaSubsampling_t css)
{
    d->w = w > d->w ? w : d->w;
    d->h = h > d->h ? h : d->h;
    if (css_rank(css) > d->rank) {
        d->rank = css_rank(css);
        d->css = css;
    }
}

/* The hardware decoder allocates its buffers for each batch unless they
 * were preallocated for at least that batch: nvjpegDecodeBatchedPreAllocate
 * (as DALI does), for m files of need d in format fmt, once and again
 * whenever a batch needs more. On the H100 machine a batch of 64 2400x1600
 * photos then decodes in 19 ms rather than 30-33 (docs/benchmarks.md).
 * Never for more than an eighth of the free device memory: a batch of
 * giant images is decoded with the library's own allocations. The caller
 * holds j->prealloc to read; it is taken to write meanwhile. */
static void preallocate(gf_jpeg_gpu *j, lane *l, int m, need d, nvjpegOutputFormat_t fmt)
{
    size_t free_b = 0, total_b = 0;

    if (j->backend != GF_JPEG_BACKEND_HARDWARE || m == 0 ||
        (m <= l->pre_n && d.w <= l->pre_w && d.h <= l->pre_h && d.rank <= l->pre_rank &&
         (fmt == l->pre_fmt || fmt == NVJPEG_OUTPUT_Y)))
        return;
    m = m > l->pre_n ? m : l->pre_n;
    need_add(&d, l->pre_w, l->pre_h, l->pre_rank > d.rank ? l->pre_css : d.css);
    if (l->pre_n && l->pre_fmt != NVJPEG_OUTPUT_Y)
        fmt = l->pre_fmt;
    pthread_rwlock_unlock(&j->prealloc);
    pthread_rwlock_wrlock(&j->prealloc);
    const int ok =
        cudaMemGetInfo(&free_b, &total_b) == cudaSuccess &&
        (double)m * d.w * d.h * d.rank / 2 <= (double)free_b / 8 &&
        NVJ(p_nvjpegDecodeBatchedPreAllocate(j->handle, l->state, m, d.w, d.h, d.css, fmt));
    pthread_rwlock_unlock(&j->prealloc);
    pthread_rwlock_rdlock(&j->prealloc);
    if (!ok)
        return;
    l->pre_n = m;
    l->pre_w = d.w;
    l->pre_h = d.h;
    l->pre_rank = d.rank;
    l->pre_css = d.css;
    l->pre_fmt = fmt;
}

/* Decodes the m files ptr/lens into img (all of one output format) on
 * lane l, not waiting; 1 when nvJPEG took them. */
static int decode_batch(gf_jpeg_gpu *j, lane *l, int m, const unsigned char *const *ptr,
                        const size_t *lens, nvjpegImage_t *img, nvjpegOutputFormat_t fmt)
{
    return m == 0 ||
           (NVJ(p_nvjpegDecodeBatchedInitialize(j->handle, l->state, m, 1, fmt)) &&
            NVJ(p_nvjpegDecodeBatched(j->handle, l->state, ptr, lens, img, l->stream)));
}

/* gf_jpeg_gpu_decode on lane l, which the caller holds. */
static int decode_on(gf_jpeg_gpu *j, lane *l, int n, const unsigned char *const *data,
                     const size_t *len, gf_dimage *const *out, int *status)
{
    /* two sub-batches: files to their luma (1 channel), files to RGB */
    const unsigned char *ptr[2][MAX_BATCH];
    size_t lens[2][MAX_BATCH], total = 0;
    nvjpegImage_t img[2][MAX_BATCH];
    int idx[2][MAX_BATCH], m[2] = {0, 0};
    colour_file cf[MAX_BATCH];
    need nd[2] = {{0, 0, 0, NVJPEG_CSS_GRAY}, {0, 0, 0, NVJPEG_CSS_GRAY}};

    for (int i = 0; i < n; i++) {
        const int rgb = out[i]->channels == 3;
        int supported = -1;
        nvjpegChromaSubsampling_t css = NVJPEG_CSS_UNKNOWN;
        status[i] = GF_JPEG_GPU_REFUSED;
        if (m[rgb] == MAX_BATCH || (out[i]->channels != 1 && out[i]->channels != 3) ||
            !NVJ(p_nvjpegJpegStreamParseHeader(j->handle, data[i], len[i], l->parsed)) ||
            (j->backend == GF_JPEG_BACKEND_HARDWARE &&
             (!NVJ(p_nvjpegDecodeBatchedSupported(j->handle, l->parsed, &supported)) ||
              supported != 0)) ||
            !NVJ(p_nvjpegJpegStreamGetChromaSubsampling(l->parsed, &css)))
            continue;
        if (rgb) {
            colour_file *c = &cf[m[1]];
            unsigned ncomp = 0, cw = 0, ch = 0;
            /* the sampling factors libjpeg-turbo's rule knows, by TJSAMP_* */
            static const int tjsamp[] = {0, 1, 2, 4, 5}; /* CSS 444 422 420 440 411 */
            if (!NVJ(p_nvjpegJpegStreamGetComponentsNum(l->parsed, &ncomp)) || ncomp != 3 ||
                css < 0 || css > NVJPEG_CSS_411 || !gf_jpeg_sampling(tjsamp[css], &c->hs, &c->vs) ||
                !NVJ(p_nvjpegJpegStreamGetComponentDimensions(l->parsed, 1, &cw, &ch)))
                continue;
            c->w = out[i]->width;
            c->h = out[i]->height;
            c->cw = (int)cw;
            c->ch = (int)ch;
            /* the chroma planes libjpeg-turbo upsamples from */
            if (c->cw != (c->w + c->hs - 1) / c->hs || c->ch != (c->h + c->vs - 1) / c->vs)
                continue;
            c->ypitch = align_pitch(c->w);
            c->cpitch = align_pitch(c->cw);
            c->off = total;
            total += c->ypitch * (size_t)c->h + 2 * c->cpitch * (size_t)c->ch;
        }
        memset(&img[rgb][m[rgb]], 0, sizeof img[rgb][m[rgb]]);
        if (!rgb) {
            img[0][m[0]].channel[0] = out[i]->data;
            img[0][m[0]].pitch[0] = out[i]->pitch;
        }
        need_add(&nd[rgb], out[i]->width, out[i]->height, css);
        ptr[rgb][m[rgb]] = data[i];
        lens[rgb][m[rgb]] = len[i];
        idx[rgb][m[rgb]++] = i;
    }
    if (m[1] && planes_buffer(l, total)) {
        for (int k = 0; k < m[1]; k++) /* no room for planes: the CPU decodes them */
            idx[1][k] = -1;
        m[1] = 0;
    }
    for (int k = 0; k < m[1]; k++) {
        const colour_file *c = &cf[k];
        unsigned char *p = l->planes + c->off;
        img[1][k].channel[0] = p;
        img[1][k].pitch[0] = c->ypitch;
        img[1][k].channel[1] = p + c->ypitch * (size_t)c->h;
        img[1][k].channel[2] = img[1][k].channel[1] + c->cpitch * (size_t)c->ch;
        img[1][k].pitch[1] = img[1][k].pitch[2] = c->cpitch;
    }
    for (int g = 0; g < 2; g++) {
        const nvjpegOutputFormat_t fmt = g ? NVJPEG_OUTPUT_YUV : NVJPEG_OUTPUT_Y;
        preallocate(j, l, m[g], nd[g], fmt);
        int ok = decode_batch(j, l, m[g], ptr[g], lens[g], img[g], fmt);
        for (int k = 0; ok && g == 1 && k < m[1]; k++) {
            const colour_file *c = &cf[k];
            const gf_jpeg_plane cb = {img[1][k].channel[1], c->cpitch, c->cw, c->ch, c->hs, c->vs};
            gf_jpeg_plane cr = cb;
            cr.data = img[1][k].channel[2];
            const gf_dimage *o = out[idx[1][k]];
            dim3 grid((c->w + 4 * RGB_BX - 1) / (4 * RGB_BX), (c->h + RGB_BY - 1) / RGB_BY);
            jpeg_rgb_kernel<<<grid, dim3(RGB_BX, RGB_BY), 0, l->stream>>>(
                img[1][k].channel[0], c->ypitch, cb, cr, o->data, o->pitch, c->w, c->h);
        }
        GF_CUDA_CHECK(cudaStreamSynchronize(l->stream));
        GF_CUDA_CHECK(cudaGetLastError());
        for (int k = 0; k < m[g]; k++)
            status[idx[g][k]] = ok ? GF_JPEG_GPU_DONE : GF_JPEG_GPU_FAILED;
    }
    return 0;
}

extern "C" int gf_jpeg_gpu_decode(gf_jpeg_gpu *j, int n, const unsigned char *const *data,
                                  const size_t *len, gf_dimage *const *out, int *status)
{
    lane *l = NULL;
    int rc;

    GF_CUDA_CHECK(cudaSetDevice(j->device));
    /* a free lane (made on its first batch), else the first when it is free */
    for (int k = 0; k < GF_JPEG_GPU_LANES && !l; k++)
        if (pthread_mutex_trylock(&j->lanes[k].lock) == 0) {
            l = &j->lanes[k];
            if (!lane_make(j, l)) {
                pthread_mutex_unlock(&l->lock);
                l = NULL;
            }
        }
    if (!l) {
        l = &j->lanes[0];
        pthread_mutex_lock(&l->lock);
    }
    pthread_rwlock_rdlock(&j->prealloc);
    rc = decode_on(j, l, n, data, len, out, status);
    pthread_rwlock_unlock(&j->prealloc);
    pthread_mutex_unlock(&l->lock);
    return rc;
}

/* The encoder state and parameters for stream st at quality: made on a
 * stream's first encode and kept (making them takes milliseconds). A
 * stream belongs to one thread, so its entry is used by one at a time. */
static int encoder(gf_jpeg_gpu *j, cudaStream_t st, int channels, int quality,
                   nvjpegEncoderState_t *es, nvjpegEncoderParams_t *ep)
{
    int i, rc = 0;

    pthread_mutex_lock(&j->lock);
    for (i = 0; i < j->nenc && (j->enc[i].stream != st || j->enc[i].channels != channels); i++)
        ;
    if (i == j->nenc) {
        if (i == MAX_ENCODERS ||
            !NVJ(p_nvjpegEncoderStateCreate(j->handle, &j->enc[i].state, st))) {
            rc = gf_err(GF_EINTERNAL, NULL, "nvJPEG: cannot create an encoder");
        } else if (!NVJ(p_nvjpegEncoderParamsCreate(j->handle, &j->enc[i].params, st)) ||
                   !NVJ(p_nvjpegEncoderParamsSetSamplingFactors(
                       j->enc[i].params, channels == 1 ? NVJPEG_CSS_GRAY : NVJPEG_CSS_420, st))) {
            p_nvjpegEncoderStateDestroy(j->enc[i].state);
            rc = gf_err(GF_EINTERNAL, NULL, "nvJPEG: cannot create an encoder");
        } else {
            j->enc[i].stream = st;
            j->enc[i].channels = channels;
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
    nvjpegEncoderState_t es = NULL;
    nvjpegEncoderParams_t ep = NULL;
    nvjpegImage_t img;
    size_t n = 0;
    int rc;

    *out = NULL;
    *len = 0;
    memset(&img, 0, sizeof img);
    img.channel[0] = in->data;
    img.pitch[0] = in->pitch;
    GF_CUDA_CHECK(cudaSetDevice(j->device));
    if (in->bits != 8 || (in->channels != 1 && in->channels != 3))
        return gf_format_holds(GF_FMT_JPEG, in->channels, in->bits);
    if ((rc = encoder(j, st, in->channels, quality, &es, &ep)))
        return rc;
    if (!NVJ(in->channels == 1
                 ? p_nvjpegEncodeYUV(j->handle, es, ep, &img, NVJPEG_CSS_GRAY, in->width,
                                     in->height, st)
                 : p_nvjpegEncodeImage(j->handle, es, ep, &img, NVJPEG_INPUT_RGBI, in->width,
                                       in->height, st)) ||
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

extern "C" int gf_jpeg_gpu_load(void)
{
    return gf_err(GF_ENOGPU, NULL, "gpufilt was built without nvJPEG");
}

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

extern "C" int gf_jpeg_gpu_open_backend(int device, int backend, gf_jpeg_gpu **out)
{
    (void)device, (void)backend;
    *out = NULL;
    return gf_err(GF_ENOGPU, NULL, "gpufilt was built without nvJPEG");
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
