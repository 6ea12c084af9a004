/* gpu.h - the C side of gpufilt's CUDA code (cuda/device.cu): one device
 * context, pitched device images, pinned staging buffers and event timers.
 * Callable from C without the CUDA headers. Every function returns 0 or a
 * negative GF_E* code with a recorded message (see gf.h); CUDA errors become
 * GF_EINTERNAL with the CUDA file:line, a missing GPU GF_ENOGPU. */
#ifndef GF_GPU_H
#define GF_GPU_H

#include "gf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Row pitch of device images in bytes: rows start on 256-byte boundaries, so
 * 4- and 16-byte vector accesses at x % 4 == 0 (or 16) are aligned. */
#define GF_PITCH_ALIGN 256

/* An image in device memory: width x height pixels of `channels` samples of
 * `bits` each (gf.h's layouts), pitch bytes between rows (a multiple of
 * GF_PITCH_ALIGN), data a device pointer to capacity bytes. Stages change
 * the shape and pitch in place. */
typedef struct gf_dimage {
    int width;
    int height;
    int channels;
    int bits;
    size_t pitch;
    size_t capacity;
    unsigned char *data;
} gf_dimage;

/* d's shape. */
static inline gf_shape gf_dimage_shape_of(const gf_dimage *d)
{
    gf_shape s = {d->width, d->height, d->channels, d->bits};
    return s;
}

typedef struct gf_gpu gf_gpu;

/* Creates the CUDA context on device `device` (0-based) and returns it in
 * *out. name receives the device name (n bytes). Costs ~0.2 s at first use,
 * so gpufilt calls it from a thread while the input decodes.
 * Errors: GF_ENOGPU when no driver, no device or no such device. */
int gf_gpu_open(int device, gf_gpu **out, char *name, size_t n);

/* The number of CUDA devices visible to this process into *n (0 without a
 * driver). Errors: GF_ENOGPU when CUDA cannot start (the reason given). */
int gf_gpu_count(int *n);

/* Waits for g's stream. Errors: GF_EINTERNAL when its work failed. */
int gf_gpu_sync(gf_gpu *g);

/* The device's compute capability as major * 10 + minor (90 for an H100). */
int gf_gpu_cc(gf_gpu *g);

/* The device number g was opened on. */
int gf_gpu_device(gf_gpu *g);

/* Waits for everything g's stream was given (NULL is allowed) and keeps
 * the context for the process's exit: a command line that is done skips
 * CUDA's teardown (main exits with _exit once gf_gpu_opened()). */
void gf_gpu_finish(gf_gpu *g);

/* For a long batch, before its first thread starts (setenv is not
 * thread-safe) and before any CUDA context: CUDA_DEVICE_MAX_CONNECTIONS=32,
 * the most, unless the user set it. Every batch worker, and each hardware
 * JPEG decoder, has a stream of its own; with the driver's default of 8
 * hardware work queues a device, streams share queues, and a worker's
 * histogram kernel waited behind the decoder's stream, which waits on the
 * JPEG engine: 0.64 ms a kernel instead of 0.04, and 2,956-2,969 images/s
 * steady against 3,160-3,193 on the H100 machine. But 32 queues cost the
 * context 0.3 s more to create and the process 0.3 s more to end (a one-off
 * command took 1.06 s against 0.45), which only a batch of about 18,000
 * photos wins back (docs/benchmarks.md). */
void gf_gpu_env_long_batch(void);

/* 1 when this process has opened a CUDA context. */
int gf_gpu_opened(void);

/* Releases everything the context allocated; NULL is allowed. */
void gf_gpu_close(gf_gpu *g);

/* Allocates a device buffer of at least `bytes` bytes into d (shape unset).
 * Errors: GF_EINTERNAL when device memory runs out. */
int gf_dimage_alloc(gf_gpu *g, gf_dimage *d, size_t bytes);

/* Buffers a context keeps for reuse (cudaFree waits for the whole device,
 * so a batch must not free and allocate per file). */
#define GF_GPU_SLOTS 4

/* Sets *d to g's reusable buffer `slot` (0 .. GF_GPU_SLOTS-1), grown to at
 * least `bytes` bytes (shape unset). g owns it: do not gf_dimage_free it.
 * Errors: GF_EINTERNAL when device memory runs out. */
int gf_gpu_buffer(gf_gpu *g, int slot, size_t bytes, gf_dimage *d);

/* Frees d's device buffer; a zeroed d is allowed. */
void gf_dimage_free(gf_dimage *d);

/* The pitch in bytes for a row of an image of shape s, and the device bytes
 * the whole image needs. */
size_t gf_dimage_pitch(const gf_shape *s);
size_t gf_dimage_bytes(const gf_shape *s);

/* Sets d's shape to s with the standard pitch.
 * Errors: GF_EINTERNAL if it does not fit d->capacity. */
int gf_dimage_shape(gf_dimage *d, const gf_shape *s);

/* d as a one-channel image of its samples: width x channels samples a row,
 * the same bits, pitch and data. For the stages that treat every sample
 * alike (threshold, depth, flip, column sums). */
static inline gf_dimage gf_dimage_flat(const gf_dimage *d)
{
    gf_dimage f = *d;
    f.width = d->width * d->channels;
    f.channels = 1;
    return f;
}

/* Fills all capacity bytes of d with `byte`, to poison outputs in tests and
 * --compare. */
int gf_dimage_poison(gf_gpu *g, gf_dimage *d, int byte);

/* Makes the pinned staging buffer at least `bytes` long now, so that the
 * first upload does not pay for the allocation. Errors: GF_EINTERNAL. */
int gf_gpu_reserve(gf_gpu *g, size_t bytes);

/* Copies host image src into device image dst (shape and layout set to
 * src's) through a pinned staging buffer. *ms receives the wall time in ms (may be NULL). */
int gf_gpu_upload(gf_gpu *g, const gf_image *src, gf_dimage *dst, double *ms);

/* Copies device image src to the host through the pinned staging buffer.
 * *view is set to point into that buffer (stride = the row's bytes, layout
 * src's): it stays valid
 * until the next upload or download on g. *ms as for upload. */
int gf_gpu_download(gf_gpu *g, const gf_dimage *src, gf_image *view, double *ms);

/* Copies `bytes` bytes from device pointer src to host memory dst, waiting
 * for g's stream first. */
int gf_gpu_fetch(gf_gpu *g, void *dst, const void *src, size_t bytes);

/* Copies `bytes` bytes from host memory src to device pointer dst on g's
 * stream, and waits. */
int gf_gpu_put(gf_gpu *g, void *dst, const void *src, size_t bytes);

/* Brackets device work with CUDA events on g's stream: gf_gpu_timer_stop
 * waits for it, checks for launch and execution errors, and returns the
 * elapsed device time in ms. */
int gf_gpu_timer_start(gf_gpu *g);
int gf_gpu_timer_stop(gf_gpu *g, double *ms);

/* Device work to time: launches on `stream`, returns 0 or GF_E*. */
typedef int (*gf_timed_fn)(void *ctx, void *stream);

/* Runs fn once to warm up, then `reps` times, each between CUDA events;
 * *median_ms receives the median in ms. The warm-up is timed too, and a
 * slow fn runs fewer times: once (the warm-up's time) where the warm-up
 * took GF_TIME_ONCE_MS or more, else at most GF_TIME_BUDGET_MS / (the
 * warm-up's ms) times, at least once; gf_gpu_time_runs(g) then says how
 * many. Errors: as fn's, or GF_EINTERNAL. */
#define GF_TIME_ONCE_MS 1000.0
#define GF_TIME_BUDGET_MS 250.0
int gf_gpu_time(gf_gpu *g, int reps, gf_timed_fn fn, void *ctx, double *median_ms);

/* The runs whose median g's last gf_gpu_time gave (0 before any). */
int gf_gpu_time_runs(const gf_gpu *g);

/* Device-to-device copy of `bytes` bytes on g's stream (for the bandwidth
 * floor), src and dst device pointers. */
int gf_gpu_copy(gf_gpu *g, void *dst, const void *src, size_t bytes);

/* The display driver's version with the newest CUDA it supports, as
 * "580.159.04 (CUDA 13.0)" (NVML, loaded at run time; "CUDA 13.0" alone
 * without it), and the version of the CUDA runtime gpufilt is linked with,
 * as "13.0"; dn and rn bytes. */
void gf_gpu_versions(char *driver, size_t dn, char *runtime, size_t rn);

/* The CUDA stream all of g's work runs on, as an opaque pointer for the
 * stage launchers (cudaStream_t). */
void *gf_gpu_stream(gf_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
