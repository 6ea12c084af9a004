/* device.cu - the CUDA context, device images, pinned staging and timers
 * declared in src/gpu.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pthread.h>

#include "check.h"

#include "../src/gpu.h"

static int opened; /* set once a context exists, by any thread; read at exit */

struct gf_gpu {
    int device;
    int cc; /* compute capability, major * 10 + minor */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    int time_runs;            /* gf_gpu_time_runs */
    unsigned char *pinned;    /* host staging buffer (cudaHostAlloc) */
    size_t pinned_bytes;
    gf_dimage slots[GF_GPU_SLOTS]; /* gf_gpu_buffer's reusable buffers */
};

/* cudaGetDeviceProperties, asked once per device: it takes milliseconds
 * under the driver's lock, and a batch opens a stream per worker. */
static cudaError_t device_props(int device, cudaDeviceProp *prop)
{
    enum { N = 16 };
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static cudaDeviceProp cache[N];
    static int known[N];
    cudaError_t e = cudaSuccess;

    if (device < 0 || device >= N)
        return cudaGetDeviceProperties(prop, device);
    pthread_mutex_lock(&lock);
    if (!known[device] && (e = cudaGetDeviceProperties(&cache[device], device)) == cudaSuccess)
        known[device] = 1;
    if (e == cudaSuccess)
        *prop = cache[device];
    pthread_mutex_unlock(&lock);
    return e;
}

extern "C" int gf_gpu_open(int device, gf_gpu **out, char *name, size_t n)
{
    int count = 0;
    cudaError_t e;
    cudaDeviceProp prop;
    gf_gpu *g;

    *out = NULL;
    e = cudaGetDeviceCount(&count);
    if (e == cudaErrorInsufficientDriver) { /* also what no driver at all looks like */
        void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!h)
            return gf_err(GF_ENOGPU, NULL, "no usable GPU: no NVIDIA driver (libcuda.so.1)");
        dlclose(h);
        return gf_err(GF_ENOGPU, NULL, "no usable GPU: the NVIDIA driver is older than CUDA %d.%d",
                      CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
    }
    if (e != cudaSuccess)
        return gf_err(GF_ENOGPU, NULL, "no usable GPU: %s", cudaGetErrorString(e));
    if (count == 0)
        return gf_err(GF_ENOGPU, NULL, "no usable GPU: no CUDA device found");
    if (device < 0 || device >= count)
        return gf_err(GF_ENOGPU, NULL, "no usable GPU: device %d requested, %d present", device,
                      count);
    e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaFree(0); /* creates the context now, not at the first real call */
    if (e == cudaSuccess)
        e = device_props(device, &prop);
    if (e != cudaSuccess)
        return gf_err(GF_ENOGPU, NULL, "no usable GPU: device %d: %s", device,
                      cudaGetErrorString(e));
    if (name)
        snprintf(name, n, "%s", prop.name);
    g = (gf_gpu *)calloc(1, sizeof *g);
    if (!g)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    g->device = device;
    g->cc = prop.major * 10 + prop.minor;
    if (cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreate(&g->start) != cudaSuccess || cudaEventCreate(&g->stop) != cudaSuccess) {
        gf_gpu_close(g);
        return gf_err(GF_EINTERNAL, NULL, "CUDA stream or event creation failed");
    }
    {
        /* Stage launchers take small scratch with cudaMallocAsync: keep the
         * pool's memory across synchronisations instead of mapping it anew
         * for every call. */
        cudaMemPool_t pool;
        uint64_t keep = 64ull << 20;
        if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    __atomic_store_n(&opened, 1, __ATOMIC_RELEASE);
    *out = g;
    return 0;
}

extern "C" int gf_gpu_count(int *n)
{
    cudaError_t e = cudaGetDeviceCount(n);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        *n = 0;
    else if (e != cudaSuccess)
        return gf_err(GF_ENOGPU, NULL, "no usable GPU: %s", cudaGetErrorString(e));
    return 0;
}

extern "C" int gf_gpu_sync(gf_gpu *g)
{
    GF_CUDA_CHECK(cudaSetDevice(g->device));
    GF_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

extern "C" void gf_gpu_env_long_batch(void)
{
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}

extern "C" int gf_gpu_opened(void)
{
    return __atomic_load_n(&opened, __ATOMIC_ACQUIRE);
}

extern "C" void gf_gpu_finish(gf_gpu *g)
{
    if (g) {
        cudaSetDevice(g->device);
        cudaStreamSynchronize(g->stream);
    }
}

extern "C" int gf_gpu_device(gf_gpu *g)
{
    return g->device;
}

extern "C" int gf_gpu_cc(gf_gpu *g)
{
    return g->cc;
}

extern "C" void gf_gpu_close(gf_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->device); /* close may run on another thread than open */
    if (g->pinned)
        cudaFreeHost(g->pinned);
    for (int i = 0; i < GF_GPU_SLOTS; i++)
        gf_dimage_free(&g->slots[i]);
    if (g->start)
        cudaEventDestroy(g->start);
    if (g->stop)
        cudaEventDestroy(g->stop);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    free(g);
}

extern "C" int gf_dimage_alloc(gf_gpu *g, gf_dimage *d, size_t bytes)
{
    memset(d, 0, sizeof *d);
    GF_CUDA_CHECK(cudaSetDevice(g->device));
    GF_CUDA_CHECK(cudaMalloc((void **)&d->data, bytes));
    d->capacity = bytes;
    /* Vector kernels read whole 16-byte vectors, so a row's padding past
     * its width is read (never used): zero it once, so no byte is read
     * before it is written. */
    GF_CUDA_CHECK(cudaMemsetAsync(d->data, 0, bytes, g->stream));
    return 0;
}

extern "C" int gf_gpu_buffer(gf_gpu *g, int slot, size_t bytes, gf_dimage *d)
{
    gf_dimage *b = &g->slots[slot];
    int rc;

    if (b->capacity < bytes) {
        gf_dimage_free(b);
        if ((rc = gf_dimage_alloc(g, b, bytes)))
            return rc;
    }
    *d = *b;
    return 0;
}

extern "C" void gf_dimage_free(gf_dimage *d)
{
    if (d->data)
        cudaFree(d->data);
    memset(d, 0, sizeof *d);
}

extern "C" int gf_dimage_shape(gf_dimage *d, const gf_shape *s)
{
    if (s->width < 1 || s->height < 1 || !gf_layout_valid(s->channels, s->bits) ||
        gf_dimage_bytes(s) > d->capacity)
        return gf_err(GF_EINTERNAL, NULL, "device image %dx%d %s exceeds its buffer", s->width,
                      s->height, gf_layout_name(s->channels, s->bits));
    d->width = s->width;
    d->height = s->height;
    d->channels = s->channels;
    d->bits = s->bits;
    d->pitch = gf_dimage_pitch(s);
    return 0;
}

extern "C" int gf_dimage_poison(gf_gpu *g, gf_dimage *d, int byte)
{
    GF_CUDA_CHECK(cudaMemsetAsync(d->data, byte, d->capacity, g->stream));
    GF_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

/* Grows the pinned staging buffer to at least `bytes`. */
static int staging(gf_gpu *g, size_t bytes)
{
    if (g->pinned_bytes >= bytes)
        return 0;
    if (g->pinned)
        cudaFreeHost(g->pinned);
    g->pinned = NULL;
    g->pinned_bytes = 0;
    GF_CUDA_CHECK(cudaHostAlloc((void **)&g->pinned, bytes, cudaHostAllocDefault));
    g->pinned_bytes = bytes;
    return 0;
}

extern "C" int gf_gpu_reserve(gf_gpu *g, size_t bytes)
{
    return staging(g, bytes);
}

extern "C" int gf_gpu_upload(gf_gpu *g, const gf_image *src, gf_dimage *dst, double *ms)
{
    double t0 = gf_now_ms();
    const gf_shape sh = gf_image_shape(src);
    size_t w = (size_t)src->width * GF_PIXEL_BYTES(src->channels, src->bits),
           h = (size_t)src->height;
    int rc;

    if ((rc = staging(g, w * h)) || (rc = gf_dimage_shape(dst, &sh)))
        return rc;
    if (src->stride == w)
        memcpy(g->pinned, src->data, w * h);
    else
        for (size_t y = 0; y < h; y++)
            memcpy(g->pinned + y * w, src->data + y * src->stride, w);
    GF_CUDA_CHECK(cudaMemcpy2DAsync(dst->data, dst->pitch, g->pinned, w, w, h,
                                    cudaMemcpyHostToDevice, g->stream));
    GF_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (ms)
        *ms = gf_now_ms() - t0;
    return 0;
}

extern "C" int gf_gpu_download(gf_gpu *g, const gf_dimage *src, gf_image *view, double *ms)
{
    double t0 = gf_now_ms();
    size_t w = (size_t)src->width * GF_PIXEL_BYTES(src->channels, src->bits),
           h = (size_t)src->height;
    int rc;

    if ((rc = staging(g, w * h)))
        return rc;
    GF_CUDA_CHECK(cudaMemcpy2DAsync(g->pinned, w, src->data, src->pitch, w, h,
                                    cudaMemcpyDeviceToHost, g->stream));
    GF_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    view->width = src->width;
    view->height = src->height;
    view->channels = src->channels;
    view->bits = src->bits;
    view->stride = w;
    view->data = g->pinned;
    if (ms)
        *ms = gf_now_ms() - t0;
    return 0;
}

extern "C" int gf_gpu_fetch(gf_gpu *g, void *dst, const void *src, size_t bytes)
{
    GF_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, g->stream));
    GF_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

extern "C" int gf_gpu_put(gf_gpu *g, void *dst, const void *src, size_t bytes)
{
    GF_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, g->stream));
    GF_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    return 0;
}

extern "C" int gf_gpu_timer_start(gf_gpu *g)
{
    GF_CUDA_CHECK(cudaEventRecord(g->start, g->stream));
    return 0;
}

extern "C" int gf_gpu_timer_stop(gf_gpu *g, double *ms)
{
    float f = 0;

    GF_CUDA_CHECK(cudaEventRecord(g->stop, g->stream));
    GF_CUDA_CHECK(cudaEventSynchronize(g->stop));
    GF_CUDA_CHECK(cudaGetLastError());
    GF_CUDA_CHECK(cudaEventElapsedTime(&f, g->start, g->stop));
    *ms = f;
    return 0;
}

extern "C" void *gf_gpu_stream(gf_gpu *g)
{
    return (void *)g->stream;
}

extern "C" int gf_gpu_time(gf_gpu *g, int reps, gf_timed_fn fn, void *ctx, double *median_ms)
{
    double *ms;
    int rc;

    if (reps < 1)
        reps = 1;
    ms = (double *)malloc((size_t)reps * sizeof *ms);
    if (!ms)
        return gf_err(GF_EINTERNAL, NULL, "out of memory");
    double warm = 0;
    if ((rc = gf_gpu_timer_start(g)) == 0 && (rc = fn(ctx, g->stream)) == 0)
        rc = gf_gpu_timer_stop(g, &warm);
    if (rc == 0 && warm >= GF_TIME_ONCE_MS) { /* a second a run: once is enough */
        reps = 1;
        ms[0] = warm;
    } else {
        if (warm > 0 && GF_TIME_BUDGET_MS / warm < reps)
            reps = GF_TIME_BUDGET_MS / warm < 1 ? 1 : (int)(GF_TIME_BUDGET_MS / warm);
        for (int i = 0; i < reps && rc == 0; i++)
            if ((rc = gf_gpu_timer_start(g)) == 0 && (rc = fn(ctx, g->stream)) == 0)
                rc = gf_gpu_timer_stop(g, &ms[i]);
    }
    if (rc == 0) {
        *median_ms = gf_median(ms, reps);
        g->time_runs = reps;
    }
    free(ms);
    return rc;
}

extern "C" int gf_gpu_time_runs(const gf_gpu *g)
{
    return g->time_runs;
}

extern "C" int gf_gpu_copy(gf_gpu *g, void *dst, const void *src, size_t bytes)
{
    GF_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream));
    return 0;
}

/* The display driver's version string from NVML, loaded at run time so that
 * gpufilt does not link against it; "" when it cannot be had. */
static void nvml_driver_version(char *out, size_t n)
{
    void *h = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
    char buf[96] = "";

    out[0] = 0;
    if (!h)
        return;
    int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
    int (*get)(char *, unsigned) = (int (*)(char *, unsigned))dlsym(h, "nvmlSystemGetDriverVersion");
    int (*shutdown)(void) = (int (*)(void))dlsym(h, "nvmlShutdown");
    if (init && get && shutdown && init() == 0) {
        if (get(buf, sizeof buf) == 0)
            snprintf(out, n, "%s", buf);
        shutdown();
    }
    dlclose(h);
}

extern "C" void gf_gpu_versions(char *driver, size_t dn, char *runtime, size_t rn)
{
    int d = 0, r = 0;
    char nv[96];

    cudaDriverGetVersion(&d);
    cudaRuntimeGetVersion(&r);
    nvml_driver_version(nv, sizeof nv);
    if (nv[0])
        snprintf(driver, dn, "%s (CUDA %d.%d)", nv, d / 1000, d % 1000 / 10);
    else
        snprintf(driver, dn, "CUDA %d.%d", d / 1000, d % 1000 / 10);
    snprintf(runtime, rn, "%d.%d", r / 1000, r % 1000 / 10);
}

/* Cached device queries (check.h): a few entries, filled under a lock. */
static pthread_mutex_t query_lock = PTHREAD_MUTEX_INITIALIZER;

/* Attribute attr of the current device into *out (0 on an error), asked
 * of CUDA when the device differs from the one cached in *cached_dev /
 * *cached. */
static int cached_attr(cudaDeviceAttr attr, int *cached_dev, int *cached, int *out)
{
    int dev, rc = 0;

    *out = 0;
    GF_CUDA_CHECK(cudaGetDevice(&dev));
    pthread_mutex_lock(&query_lock);
    if (*cached_dev != dev) {
        cudaError_t e = cudaDeviceGetAttribute(cached, attr, dev);
        if (e == cudaSuccess)
            *cached_dev = dev;
        else
            rc = gf_err(GF_EINTERNAL, NULL, "CUDA error: %s", cudaGetErrorString(e));
    }
    *out = *cached;
    pthread_mutex_unlock(&query_lock);
    return rc;
}

int gf_cuda_sms(int *sms)
{
    static int dev = -1, value;
    return cached_attr(cudaDevAttrMultiProcessorCount, &dev, &value, sms);
}

int gf_cuda_smem_optin(int *bytes)
{
    static int dev = -1, value;
    return cached_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, &dev, &value, bytes);
}

int gf_cuda_resident(const void *kernel, int threads, size_t smem, int *blocks)
{
    enum { N = 128 }; /* every kernel a run launches: the walker alone has dozens */
    static struct {
        const void *kernel;
        int threads, dev, per_sm;
        size_t smem;
    } cache[N];
    static int n;
    int dev, sms, per_sm = -1, rc;

    if ((rc = gf_cuda_sms(&sms)))
        return rc;
    GF_CUDA_CHECK(cudaGetDevice(&dev));
    pthread_mutex_lock(&query_lock);
    for (int i = 0; i < n; i++)
        if (cache[i].kernel == kernel && cache[i].threads == threads && cache[i].smem == smem &&
            cache[i].dev == dev)
            per_sm = cache[i].per_sm;
    pthread_mutex_unlock(&query_lock);
    if (per_sm < 0) {
        GF_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
        pthread_mutex_lock(&query_lock);
        if (n < N) {
            cache[n].kernel = kernel, cache[n].threads = threads, cache[n].smem = smem;
            cache[n].dev = dev, cache[n].per_sm = per_sm;
            n++;
        }
        pthread_mutex_unlock(&query_lock);
    }
    *blocks = sms * (per_sm > 0 ? per_sm : 1);
    return 0;
}
