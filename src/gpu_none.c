/* gpu_none.c - the GPU side of a build without CUDA (make CUDA=0): no
 * device can be opened, so nothing else here is ever reached; each returns
 * GF_ENOGPU or does nothing. */
#include <string.h>

#include "gpu.h"
#include "gpujpeg.h"
#include "peers.h"

#define NO_GPU gf_err(GF_ENOGPU, NULL, "no usable GPU: gpufilt was built without CUDA")

int gf_gpu_open(int device, gf_gpu **out, char *name, size_t n)
{
    (void)device;
    *out = NULL;
    if (name && n)
        name[0] = 0;
    return NO_GPU;
}

int gf_gpu_count(int *n) { *n = 0; return 0; }
int gf_gpu_sync(gf_gpu *g) { (void)g; return NO_GPU; }
int gf_gpu_cc(gf_gpu *g) { (void)g; return 0; }
int gf_gpu_device(gf_gpu *g) { (void)g; return 0; }
void gf_gpu_finish(gf_gpu *g) { (void)g; }
void gf_gpu_env_long_batch(void) {}
int gf_gpu_opened(void) { return 0; }
void gf_gpu_close(gf_gpu *g) { (void)g; }
int gf_dimage_alloc(gf_gpu *g, gf_dimage *d, size_t bytes) { (void)g, (void)bytes; memset(d, 0, sizeof *d); return NO_GPU; }
int gf_gpu_buffer(gf_gpu *g, int slot, size_t bytes, gf_dimage *d) { (void)g, (void)slot, (void)bytes; memset(d, 0, sizeof *d); return NO_GPU; }
void gf_dimage_free(gf_dimage *d) { memset(d, 0, sizeof *d); }
int gf_dimage_shape(gf_dimage *d, const gf_shape *s) { (void)d, (void)s; return NO_GPU; }
int gf_dimage_poison(gf_gpu *g, gf_dimage *d, int byte) { (void)g, (void)d, (void)byte; return NO_GPU; }
int gf_gpu_reserve(gf_gpu *g, size_t bytes) { (void)g, (void)bytes; return NO_GPU; }
int gf_gpu_upload(gf_gpu *g, const gf_image *src, gf_dimage *dst, double *ms) { (void)g, (void)src, (void)dst, (void)ms; return NO_GPU; }
int gf_gpu_download(gf_gpu *g, const gf_dimage *src, gf_image *view, double *ms) { (void)g, (void)src, (void)view, (void)ms; return NO_GPU; }
int gf_gpu_fetch(gf_gpu *g, void *dst, const void *src, size_t bytes) { (void)g, (void)dst, (void)src, (void)bytes; return NO_GPU; }
int gf_gpu_put(gf_gpu *g, void *dst, const void *src, size_t bytes) { (void)g, (void)dst, (void)src, (void)bytes; return NO_GPU; }
int gf_gpu_timer_start(gf_gpu *g) { (void)g; return NO_GPU; }
int gf_gpu_timer_stop(gf_gpu *g, double *ms) { (void)g, (void)ms; return NO_GPU; }
int gf_gpu_time(gf_gpu *g, int reps, gf_timed_fn fn, void *ctx, double *median_ms) { (void)g, (void)reps, (void)fn, (void)ctx, (void)median_ms; return NO_GPU; }
int gf_gpu_time_runs(const gf_gpu *g) { (void)g; return 0; }
int gf_gpu_copy(gf_gpu *g, void *dst, const void *src, size_t bytes) { (void)g, (void)dst, (void)src, (void)bytes; return NO_GPU; }
void *gf_gpu_stream(gf_gpu *g) { (void)g; return NULL; }

void gf_gpu_versions(char *driver, size_t dn, char *runtime, size_t rn)
{
    if (dn)
        driver[0] = 0;
    if (rn)
        runtime[0] = 0;
}

int gf_cub_hist(const gf_dimage *in, unsigned *hist, void *temp, size_t *temp_bytes, void *stream)
{
    (void)in, (void)hist, (void)temp, (void)temp_bytes, (void)stream;
    return NO_GPU;
}

int gf_seed_transpose_f32(const float *in, float *out, int rows, int cols, int variant,
                          void *stream)
{
    (void)in, (void)out, (void)rows, (void)cols, (void)variant, (void)stream;
    return NO_GPU;
}

int gf_seed_matmul_f32(const float *a, const float *b, float *c, int m, int n, int k, int variant,
                       void *stream)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k, (void)variant, (void)stream;
    return NO_GPU;
}

int gf_jpeg_gpu_load(void)
{
    return NO_GPU;
}

int gf_jpeg_gpu_open(int device, gf_jpeg_gpu **out)
{
    (void)device;
    *out = NULL;
    return NO_GPU;
}

int gf_jpeg_gpu_open_backend(int device, int backend, gf_jpeg_gpu **out)
{
    (void)backend;
    return gf_jpeg_gpu_open(device, out);
}

void gf_jpeg_gpu_close(gf_jpeg_gpu *j)
{
    (void)j;
}

int gf_jpeg_gpu_decode(gf_jpeg_gpu *j, int n, const unsigned char *const *data,
                       const size_t *len, gf_dimage *const *out, int *status)
{
    (void)j, (void)data, (void)len, (void)out;
    for (int i = 0; i < n; i++)
        status[i] = GF_JPEG_GPU_REFUSED;
    return 0;
}

int gf_jpeg_gpu_encode(gf_jpeg_gpu *j, void *stream, const gf_dimage *in, int quality,
                       unsigned char **out, size_t *len)
{
    (void)j, (void)stream, (void)in, (void)quality, (void)out, (void)len;
    return NO_GPU;
}
