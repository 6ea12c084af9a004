/* common.h - the bottom layer of src/codec/ (internal): what the format
 * files and the layers above them share, calling nothing of src/codec/
 * above it. common.c checks sizes and converts samples; io.c reads inputs
 * (and writes outputs, codec.h); meta.c checks ICC profiles and EXIF
 * (meta.h). The layers, each calling only those below: common.c, io.c and
 * meta.c; the formats (png.c, jpeg.c, bmp.c, pnm.c: formats.h);
 * registry.c (registry.h); decode.c and encode.c (codec.h). make test-layers
 * checks that no file of src/codec/ calls or includes its way back up. */
#ifndef GF_CODEC_COMMON_H
#define GF_CODEC_COMMON_H

#include <stdint.h>

#include "codec.h"

/* Refuses a w x h image of `channels` samples of `bits` that is empty, has
 * a side over GF_MAX_DIM, more pixels than lim allows, or more bytes
 * decoded: GF_EDATA with "FMT image of WxH ..." (fmt: the format's label,
 * "PNG"; name: the file, in the message only). */
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

/* How many bytes of an input are worth reading, from its first len bytes:
 * gf_input_need's contract (codec.h). */
typedef int (*gf_input_need_fn)(const char *name, const unsigned char *buf, size_t len,
                                const gf_limits *lim, uint64_t *need);

/* gf_read_all (need NULL), or gf_read_image with `need` judging the
 * header: as codec.h says of each, with need in place of gf_input_need. */
int gf_read_input(const char *path, const gf_limits *lim, gf_input_need_fn need,
                  unsigned char **buf, size_t *len);

#endif
