/* formats.h - what the codec's per-format files share (internal to
 * src/codec/). Decoders follow gf_decode_rgb's contract (codec.h) for their
 * format; *info is zeroed and *out empty on entry. */
#ifndef GF_FORMATS_H
#define GF_FORMATS_H

#include <stdint.h>

#include "codec.h"

/* Refuses a w x h image that is empty, has a side over GF_MAX_DIM or more
 * pixels than lim allows: GF_EDATA with "FMT image of WxH ...". */
int gf_check_size(const char *name, const char *fmt, uint64_t w, uint64_t h,
                  const gf_limits *lim);

/* n pixels of `channels` interleaved samples (1 gray, 2 gray+alpha, 3 RGB,
 * 4 RGBA) to 8-bit luma in dst: each sample scaled from 0..maxval to 8 bits
 * as round(v * 255 / maxval), then (77 R + 150 G + 29 B) >> 8 for colour.
 * Counts the 8-bit R, G and B of colour pixels into rgb when it is not NULL.
 * _8: one byte a sample; _16: two, big-endian when be, else host order.
 * Returns 0, or -1 when a sample exceeds maxval (dst is then incomplete). */
int gf_luma_row8(const unsigned char *src, int channels, unsigned maxval, size_t n,
                 unsigned char *dst, uint32_t (*rgb)[256]);
int gf_luma_row16(const unsigned char *src, int be, int channels, unsigned maxval, size_t n,
                  unsigned char *dst, uint32_t (*rgb)[256]);

int gf_decode_png(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256]);
int gf_decode_jpeg(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   gf_image *out, gf_load_info *info, uint32_t (*rgb)[256]);
int gf_decode_bmp(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256]);
int gf_decode_pnm(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256]);

/* Width and height from each format's header, or -1 (gf_peek_size). */
int gf_peek_png(const unsigned char *buf, size_t len, int *w, int *h);
int gf_peek_jpeg(const unsigned char *buf, size_t len, int *w, int *h);
int gf_peek_bmp(const unsigned char *buf, size_t len, int *w, int *h);
int gf_peek_pnm(const unsigned char *buf, size_t len, int *w, int *h);

/* The EXIF Orientation (1-8) of a JPEG's APP1 Exif segment; 1 when there is
 * none or it is malformed. Reads only within buf. */
int gf_jpeg_orientation(const unsigned char *buf, size_t len);

/* Encoders, gf_encode's contract (codec.h). */
int gf_encode_png(const gf_image *im, int level, unsigned char **out, size_t *len);
int gf_encode_pgm(const gf_image *im, unsigned char **out, size_t *len);
int gf_encode_jpeg(const gf_image *im, int quality, unsigned char **out, size_t *len);

#endif
