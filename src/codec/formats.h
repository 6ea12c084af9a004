/* formats.h - what the codec's per-format files share (internal to
 * src/codec/). Decoders follow gf_decode's contract (codec.h) for their
 * format; *info is zeroed and *out empty on entry. */
#ifndef GF_FORMATS_H
#define GF_FORMATS_H

#include <stdint.h>

#include "codec.h"

/* Refuses a w x h image of `channels` samples of `bits` that is empty, has
 * a side over GF_MAX_DIM, more pixels than lim allows, or more bytes
 * decoded: GF_EDATA with "FMT image of WxH ...". */
int gf_check_size(const char *name, const char *fmt, uint64_t w, uint64_t h, int channels,
                  int bits, const gf_limits *lim);

/* n samples of a file (8-bit when in_bits is 8, else 16-bit big-endian
 * when be, host order when not) of range 0..maxval into dst as samples of
 * out_bits (8: uint8; 16: uint16, host order), scaled to the full range as
 * round(v * max / maxval) unless maxval is already that max. Returns 0, or
 * -1 when a sample exceeds maxval (dst is then incomplete). */
int gf_scale_samples(const unsigned char *src, int in_bits, int be, unsigned maxval, size_t n,
                     unsigned char *dst, int out_bits);

/* The depth a file's maxval (1..65535) decodes to: 8 up to 255, else 16. */
static inline int gf_maxval_bits(unsigned maxval)
{
    return maxval > 255 ? 16 : 8;
}

int gf_decode_png(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info);
int gf_decode_jpeg(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info);
int gf_decode_bmp(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info);
int gf_decode_pnm(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info);

/* Size and layout from each format's header, or -1 (gf_peek_size). */
int gf_peek_png(const unsigned char *buf, size_t len, gf_shape *s);
int gf_peek_jpeg(const unsigned char *buf, size_t len, gf_shape *s);
int gf_peek_bmp(const unsigned char *buf, size_t len, gf_shape *s);
int gf_peek_pnm(const unsigned char *buf, size_t len, gf_shape *s);

/* "PGM", "PPM" or "PAM" for a buffer that starts P5, P6 or P7. */
const char *gf_pnm_label(const unsigned char *buf);

/* The EXIF Orientation (1-8) of a JPEG's APP1 Exif segment; 1 when there is
 * none or it is malformed. Reads only within buf. */
int gf_jpeg_orientation(const unsigned char *buf, size_t len);

/* Encoders, gf_encode's contract (codec.h), for images the format holds. */
int gf_encode_png(const gf_image *im, int level, unsigned char **out, size_t *len);
int gf_encode_pnm(const gf_image *im, gf_format f, unsigned char **out, size_t *len);
int gf_encode_jpeg(const gf_image *im, int quality, unsigned char **out, size_t *len);

/* TIFF (tiff.c): 1 when buf starts as a TIFF ("II*\0", "MM\0*") or BigTIFF
 * ("II+\0", "MM\0+"); the decoder (gf_decode's contract, of page
 * lim->page); the size and layout of the first page, -1 when its directory
 * is not within buf or not read; the encoder (any layout, o->compress). */
int gf_tiff_sniff(const unsigned char *buf, size_t len);
int gf_decode_tiff(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info);
int gf_peek_tiff(const unsigned char *buf, size_t len, gf_shape *s);
int gf_encode_tiff(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len);

#endif
