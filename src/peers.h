/* peers.h - library peers for gpufilt bench (cuda/peers.cu, and with
 * `make PEERS=1` on a machine with NPP and cuBLAS, cuda/npp_peers.cu). */
#ifndef GF_PEERS_H
#define GF_PEERS_H

#include <stddef.h>

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUB's DeviceHistogram of in (device) into hist (device, a bin per value
 * of each channel, channel after channel, as gpufilt's): HistogramEven for
 * 8-bit (257 levels) and 16-bit (65537) gray, MultiHistogramEven<3, 3> for
 * RGB 8-bit. Call with temp NULL to get *temp_bytes, then with a device
 * buffer of that size. Returns 0, 1 for a layout it has no call for, or
 * GF_EINTERNAL. */
int gf_cub_hist(const gf_dimage *in, unsigned *hist, void *temp, size_t *temp_bytes,
                void *stream);

/* Seed kernels (cuda/seeds.cu). Variants: */
enum { GF_SEED_NAIVE = 0, GF_SEED_TILED = 1, GF_SEED_PADDED = 2 };

/* Transpose of a rows x cols float matrix (device, row-major, dense) into
 * out (cols x rows): GF_SEED_NAIVE (writes scattered), GF_SEED_TILED (16x16
 * shared tile), GF_SEED_PADDED (16x17, no bank conflicts). Any size. */
int gf_seed_transpose_f32(const float *in, float *out, int rows, int cols, int variant,
                          void *stream);

/* C (m x n) = A (m x k) B (k x n), float, device, row-major, dense:
 * GF_SEED_NAIVE or GF_SEED_TILED (16x16 shared tiles, edges zero-filled).
 * Any size. */
int gf_seed_matmul_f32(const float *a, const float *b, float *c, int m, int n, int k,
                       int variant, void *stream);

/* Library peers built only with `make PEERS=1` (cuda/npp_peers.cu, linking
 * NPP and cuBLAS); declared weak, so they are NULL when not built in. Each
 * takes the NPP function of in's layout (_8u_C1R, _8u_C3R, _16u_C1R),
 * launches on `stream` and returns 0, 1 for a layout NPP has no function
 * for here, or GF_EINTERNAL. */
#define GF_WEAK __attribute__((weak))
/* nppiFilterBoxBorder, replicate border (NPP rounds down). */
int gf_npp_box(const gf_dimage *in, gf_dimage *out, int ksize, void *stream) GF_WEAK;
/* nppiTranspose. */
int gf_npp_transpose(const gf_dimage *in, gf_dimage *out, void *stream) GF_WEAK;
/* nppiMirror about both axes: rotate 180. */
int gf_npp_rotate180(const gf_dimage *in, gf_dimage *out, void *stream) GF_WEAK;
/* nppiHistogramEven, a bin per value of each channel into hist (device
 * ints, channel after channel); temp as for gf_cub_hist. */
int gf_npp_hist(const gf_dimage *in, int *hist, void *temp, size_t *temp_bytes,
                void *stream) GF_WEAK;
/* NPP's neighbourhood filters, replicate border, 8u_C1R (and 8u_C3R for the
 * Gaussian): nppiFilterGaussBorder (k 3..15, NPP's own weights),
 * nppiFilterMedianBorder, nppiErodeBorder / nppiDilateBorder with a k x k
 * mask of ones, nppiFilterSobelHorizBorder (one direction), nppiFilterLaplaceBorder
 * 3x3, nppiFilterBorder (kernel: k x k int32 weights on the host, or NULL to
 * keep the last; divisor). Scratch buffers are kept between calls. */
enum { GF_NPP_GAUSS, GF_NPP_MEDIAN, GF_NPP_ERODE, GF_NPP_DILATE, GF_NPP_SOBEL, GF_NPP_LAPLACE,
       GF_NPP_CONV };
int gf_npp_stencil(int kind, const gf_dimage *in, gf_dimage *out, int k, const int *kernel,
                   int divisor, void *stream) GF_WEAK;
/* nppiResize of in (the whole image) to ow x oh (out shaped so) with
 * NPP's interpolation of `filter`: NPPI_INTER_LINEAR, _CUBIC, _LANCZOS or
 * _SUPER (super sampling: shrinking only). NPP's own rules, not Pillow's:
 * timed, not compared. */
enum { GF_NPP_LINEAR, GF_NPP_CUBIC, GF_NPP_LANCZOS, GF_NPP_SUPER };
int gf_npp_resize(const gf_dimage *in, gf_dimage *out, int ow, int oh, int filter,
                  void *stream) GF_WEAK;
/* nppiCopy of the w x h region of in from column x, row y into out (shaped
 * w x h): the crop. */
int gf_npp_copy(const gf_dimage *in, gf_dimage *out, int x, int y, int w, int h,
                void *stream) GF_WEAK;
/* The tone stages' peers: nppiLUTPalette (the whole table, exact; NPP's
 * nppiLUT maps ranges between levels and nppiLUT_Linear interpolates), the
 * same device table for each channel (256 or 65536 entries of the image's
 * depth at `table`). */
int gf_npp_lut(const gf_dimage *in, gf_dimage *out, const void *table, void *stream) GF_WEAK;
/* Equalisation from NPP's pieces: nppiHistogramEven, OpenCV's equalizeHist
 * table from it on the host (src/stages/tone.h's rule; the histogram comes
 * down and the tables go up, waiting for the stream), nppiLUTPalette with a
 * table a channel. Scratch buffers are kept between calls. */
int gf_npp_equalize(const gf_dimage *in, gf_dimage *out, void *stream) GF_WEAK;
/* cublasSgemm of the row-major C = A B above (FP32, default math mode). */
int gf_cublas_sgemm(const float *a, const float *b, float *c, int m, int n, int k,
                    void *stream) GF_WEAK;

#ifdef __cplusplus
}
#endif

#endif
