/* gpujpeg.h - JPEG on the GPU (cuda/nvjpeg.cu): nvJPEG's hardware decoder,
 * in batches, writing each file's luma (Y) plane, or its RGB, straight into
 * a device image; and nvJPEG's encoder, for --backend cuda. nvJPEG is loaded when it
 * is first asked for (libnvjpeg.so.13 of the CUDA toolkit): a machine
 * without it, or a GPU without hardware JPEG engines, decodes JPEGs on the
 * CPU, with the same bytes.
 *
 * The hardware decoder gives libjpeg-turbo's grayscale decode bit for bit on
 * the files it accepts (docs/benchmarks.md, "JPEG on the GPU"): baseline,
 * Huffman-coded, YCbCr or gray, 4:4:4, 4:2:2, 4:2:0 and 4:4:0. For RGB its
 * planes are upsampled and converted by libjpeg-turbo's own rules
 * (src/codec/jpeg_color.h), for libjpeg-turbo's RGB bit for bit. Everything
 * else (progressive, arithmetic, 4:1:1, RGB- or CMYK-coded) is refused here
 * and goes to the CPU. */
#ifndef GF_GPUJPEG_H
#define GF_GPUJPEG_H

#include <stddef.h>

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gf_jpeg_gpu gf_jpeg_gpu;

/* Loads the nvJPEG library (dlopen) without touching a GPU, once a
 * process: a caller may do it while CUDA starts in another thread.
 * gf_jpeg_gpu_open loads it too. Errors: GF_ENOGPU (nvJPEG missing, or
 * gpufilt built without it). */
int gf_jpeg_gpu_load(void);

/* Opens nvJPEG's hardware decoder on GPU `device`, and its first lane
 * (below), with a stream of its own (the device's context must exist:
 * gf_gpu_open). Takes 0.4-0.9 s on
 * the H100 machine, of which nvjpegCreateEx 0.3-0.4 s (docs/benchmarks.md).
 * Errors: GF_ENOGPU (nvJPEG missing, or no hardware decoder), GF_EINTERNAL. */
int gf_jpeg_gpu_open(int device, gf_jpeg_gpu **out);

/* nvJPEG's decoding backends: the hardware decoder (what batches use), and
 * for `gpufilt bench jpeg` its others: Huffman on the GPU (GPU_HYBRID), and
 * Huffman on the CPU with the rest on the GPU (HYBRID). */
enum { GF_JPEG_BACKEND_HARDWARE = 0, GF_JPEG_BACKEND_GPU_HYBRID, GF_JPEG_BACKEND_HYBRID };

/* gf_jpeg_gpu_open with one of those backends; gf_jpeg_gpu_decode then
 * takes every baseline or progressive file the backend does. Errors as
 * gf_jpeg_gpu_open. */
int gf_jpeg_gpu_open_backend(int device, int backend, gf_jpeg_gpu **out);

/* Frees what gf_jpeg_gpu_open made; NULL is allowed. */
void gf_jpeg_gpu_close(gf_jpeg_gpu *j);

/* Outcome of one file in gf_jpeg_gpu_decode. */
enum { GF_JPEG_GPU_DONE = 0, GF_JPEG_GPU_REFUSED = 1, GF_JPEG_GPU_FAILED = 2 };

/* Batches one decoder takes at once, each from a thread of its own: its
 * lanes, each with nvJPEG's decoder state and a stream, under one handle.
 * One thread keeps the H100's JPEG engines about 80% busy (it prepares the
 * next batch's headers and bitstreams on the CPU while none runs); two
 * reach their rate and three gain nothing (docs/benchmarks.md). */
#define GF_JPEG_GPU_LANES 2

/* Decodes the n JPEG files data[i] (host memory, len[i] bytes) whose
 * headers the hardware decoder takes, in one batch, into out[i] (device
 * images whose shape the caller has set to the file's size: one channel for
 * its luma, three for RGB, 8 bits), and waits.
 * status[i]: GF_JPEG_GPU_DONE, GF_JPEG_GPU_REFUSED (not a file for the
 * hardware decoder) or GF_JPEG_GPU_FAILED; either of the last two is for the
 * CPU to decode. Returns 0, or GF_EINTERNAL when CUDA itself failed (the
 * context may be lost). Up to GF_JPEG_GPU_LANES threads at once run side by
 * side; a further one waits for the first lane. */
int gf_jpeg_gpu_decode(gf_jpeg_gpu *j, int n, const unsigned char *const *data,
                       const size_t *len, gf_dimage *const *out, int *status);

/* Encodes device image in (8-bit gray, or RGB as YCbCr 4:2:0) as a JPEG
 * at quality (1-100) on stream (g's), into a malloc'd buffer *out of *len
 * bytes. Thread-safe
 * for different streams: each stream gets an encoder state on its first
 * call, kept until gf_jpeg_gpu_close. Errors: GF_ENOGPU, GF_EINTERNAL. */
int gf_jpeg_gpu_encode(gf_jpeg_gpu *j, void *stream, const gf_dimage *in, int quality,
                       unsigned char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
