/* formats.h - the functions of the codec's per-format files (internal to
 * src/codec/), which registry.c lists. A format file calls only the bottom
 * layer (common.h, meta.h), never decode.c, encode.c or the registry. For a format
 * "x" (file x.c), as registry.h's gf_codec holds them:
 * - gf_x_sniff: 1 when buf (len bytes, len may be short) starts with the
 *   format's signature, else 0. The signatures of all formats are disjoint.
 * - gf_decode_x: gf_decode's contract (codec.h) for the format; *info is
 *   zeroed (orientation 1) and *out empty on entry; it sets info->format,
 *   info->orientation where the file has one, and with GF_DECODE_META in
 *   flags info->meta (meta.h's gf_meta_keep_*).
 * - gf_peek_x: gf_peek_size's contract: width, height and layout from the
 *   header, or -1.
 * - gf_encode_x: gf_encode's contract, for an image whose layout the
 *   format's entry holds (gf_format_holds has said yes), with the settings
 *   of o that apply to the format. */
#ifndef GF_FORMATS_H
#define GF_FORMATS_H

#include <string.h>

#include "common.h"
#include "meta.h"

/* PNG (png.c; libspng decodes). */
static inline int gf_png_sniff(const unsigned char *buf, size_t len)
{
    return len >= 8 && !memcmp(buf, "\x89PNG\r\n\x1a\n", 8);
}
int gf_decode_png(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info);
int gf_peek_png(const unsigned char *buf, size_t len, gf_shape *s);
int gf_encode_png(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len);

/* JPEG (jpeg.c; libjpeg-turbo). */
int gf_jpeg_sniff(const unsigned char *buf, size_t len);
int gf_decode_jpeg(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info);
int gf_peek_jpeg(const unsigned char *buf, size_t len, gf_shape *s);
int gf_encode_jpeg(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len);

/* The EXIF Orientation (1-8) of a JPEG's APP1 Exif segment; 1 when there is
 * none or it is malformed. Reads only within buf. */
int gf_jpeg_orientation(const unsigned char *buf, size_t len);

/* BMP (bmp.c; read only). */
int gf_bmp_sniff(const unsigned char *buf, size_t len);
int gf_decode_bmp(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info);
int gf_peek_bmp(const unsigned char *buf, size_t len, gf_shape *s);

/* PGM (P5), PPM (P6) and PAM (P7) (pnm.c): three formats, each its own
 * signature, that share the decoder, the header peek and the encoder (which
 * writes o->format's kind). */
int gf_pgm_sniff(const unsigned char *buf, size_t len);
int gf_ppm_sniff(const unsigned char *buf, size_t len);
int gf_pam_sniff(const unsigned char *buf, size_t len);
int gf_decode_pnm(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info);
int gf_peek_pnm(const unsigned char *buf, size_t len, gf_shape *s);
int gf_encode_pnm(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len);

/* WebP (webp.c): 1 when buf starts "RIFF" ???? "WEBP"; the decoder and
 * header reader as above (-1: not understood; 3 or 4 channels of 8 bits);
 * the encoder as gf_encode's for 8-bit images of any channels, lossless
 * when o->lossless, else lossy at o->quality. */
int gf_webp_sniff(const unsigned char *buf, size_t len);
int gf_decode_webp(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info);
int gf_peek_webp(const unsigned char *buf, size_t len, gf_shape *s);
int gf_encode_webp(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len);

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
