/* codec.h - reading, decoding, encoding and atomically writing images.
 * One file per format under src/codec/: PNG (libspng to decode; written by
 * gpufilt, deflated by libdeflate or zlib), JPEG (libjpeg-turbo's
 * TurboJPEG), BMP (stb_image, behind gpufilt's own header checks) and binary
 * PNM (gpufilt's own: stb's ignores maxval). third_party/README.md says why
 * each library. */
#ifndef GF_CODEC_H
#define GF_CODEC_H

#include <stdint.h>

#include "../gf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest width or height any decoder accepts. */
#define GF_MAX_DIM 65535

typedef struct gf_limits {
    uint64_t max_pixels;     /* width * height, checked from the header before decoding */
    uint64_t max_file_bytes; /* encoded size; a larger input is not read past it */
} gf_limits;

#define GF_DEFAULT_MAX_PIXELS 268435456ull      /* 16384^2 */
#define GF_DEFAULT_MAX_FILE_BYTES 1073741824ull /* 1 GiB */

typedef enum gf_format { GF_FMT_NONE = 0, GF_FMT_PNG, GF_FMT_PGM, GF_FMT_JPEG } gf_format;

#define GF_DEFAULT_PNG_LEVEL 1
#define GF_DEFAULT_JPEG_QUALITY 90

/* The format a --format argument names ("png", "pgm", "jpeg" or "jpg"), or
 * GF_FMT_NONE. */
gf_format gf_format_parse(const char *name);

/* The format's name ("png", "pgm", "jpeg") and file extension ("png",
 * "pgm", "jpg"). */
const char *gf_format_name(gf_format f);
const char *gf_format_ext(gf_format f);

/* The output format that path's extension names (.png, .pgm, .jpg, .jpeg;
 * either case), or GF_FMT_NONE. */
gf_format gf_format_from_name(const char *path);

/* Settles the format of an output named path: *fmt is the --format given
 * (explicit != 0) or GF_FMT_NONE. An extension that names no written format
 * (.webp, .tif, ...) is refused with the formats gpufilt writes; a --format
 * that contradicts the extension is refused; a name without an extension
 * needs --format. Returns 0 with *fmt set, or GF_EUSAGE. */
int gf_format_check_name(const char *path, gf_format *fmt, int explicit);

/* How to encode an image output. */
typedef struct gf_encode_opts {
    gf_format format;
    int png_level; /* deflate level 0-12 */
    int quality;   /* JPEG 1-100 */
} gf_encode_opts;

/* What the decoder found. */
typedef struct gf_load_info {
    const char *format; /* "png", "jpeg", "bmp", "pgm", "ppm" */
    int channels;       /* in the file: 1 gray, 2 gray+alpha, 3 colour, 4 colour+alpha */
    int bits;           /* 8 or 16 (per channel, in the file; fewer count as 8) */
    int orientation;    /* EXIF Orientation 1-8 (JPEG); 1 when absent or malformed */
} gf_load_info;

/* Reads all of `path` ("-": stdin) into a malloc'd buffer *buf of *len
 * bytes (0 for an empty file), followed by a NUL byte not counted in *len.
 * Never reads, nor allocates for, more than lim->max_file_bytes + 1 bytes.
 * Errors: GF_ENOINPUT (missing, unreadable, a directory), GF_EDATA (larger
 * than lim->max_file_bytes), GF_EINTERNAL (out of memory). */
int gf_read_all(const char *path, const gf_limits *lim, unsigned char **buf, size_t *len);

/* Decodes buf (len bytes) into *out, a width x height 8-bit luma image in
 * host memory (stride == width), detecting the format from the content.
 * PNG, BMP, PPM: colour becomes luma (77 R + 150 G + 29 B) >> 8 and alpha
 * is dropped; 16-bit (and PNM maxval != 255) samples first scale to 8 bits
 * as round(v * 255 / maxval). JPEG: the file's own luma (Y) component as
 * libjpeg-turbo's grayscale decode gives it (an RGB-coded JPEG: libjpeg's
 * luma of it); CMYK and YCCK are refused. Strict: PNG CRCs and palette
 * indices are checked, PNM samples above maxval and BMP pixel data cut short
 * are errors, and any JPEG corruption libjpeg-turbo reports, warnings
 * included. Size limits are checked from the header before any pixel is
 * decoded. Peak memory besides buf: the output plus a few rows for PNG,
 * BMP's 4 bytes a pixel, progressive JPEG's coefficients (2 bytes a sample),
 * an interlaced PNG's decoded image (up to 8 bytes a pixel).
 * When rgb is not NULL it receives the decoded image's 8-bit R, G and B
 * counts (rgb[3][256], zeroed first; a gray image counts its gray value in
 * all three). name is used in messages only.
 * Errors: GF_EDATA for unknown or corrupt data, or over the limits, with a
 * message naming the format; GF_EINTERNAL out of memory. */
int gf_decode_rgb(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256]);

/* gf_decode_rgb without the R, G and B counts. */
int gf_decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
              gf_image *out, gf_load_info *info);

/* The width and height that buf's header gives, cheaply, without decoding
 * or checking limits. Returns 0, or -1 when the header is not understood. */
int gf_peek_size(const unsigned char *buf, size_t len, int *width, int *height);

/* 1 when buf is a JPEG that a GPU decoder may take in place of
 * libjpeg-turbo: its header reads, it is YCbCr or gray (not RGB-coded, CMYK
 * or YCCK), within lim, Huffman-coded with at least one bit per luma block,
 * and it ends with its EOI marker (so it is not cut short). Sets *width,
 * *height and *info (format, channels, bits, orientation) as the CPU
 * decoder would. 0 otherwise: the CPU decodes it, and says why it fails. */
int gf_jpeg_gpu_candidate(const unsigned char *buf, size_t len, const gf_limits *lim, int *width,
                          int *height, gf_load_info *info);

/* gf_read_all + gf_decode. */
int gf_load(const char *path, const gf_limits *lim, gf_image *out, gf_load_info *info);

/* Encodes im (host) into a malloc'd buffer (*out, *len) as o says; the
 * caller frees it. PNG: 8-bit gray, rows with the Up filter, deflate at
 * o->png_level; PGM: P5; JPEG: 8-bit gray at o->quality (libjpeg-turbo).
 * The bytes depend only on im and o. Errors: GF_EINTERNAL (out of memory). */
int gf_encode(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len);

/* Writes len bytes of buf (host memory) to `path`; "-" writes to stdout.
 * A regular file (or none yet) is written to a temporary file
 * ".NAME.gpufilt-XXXXXX" in its directory and renamed over `path` only when
 * complete, so `path` is either untouched or whole; a symbolic link is
 * followed and its target replaced the same way, in the target's directory.
 * A device or FIFO (-o /dev/null) is written in place: there is no file to
 * leave partial. The temporary is registered before it exists, so it is
 * removed on any error and by gf_tmp_cleanup() from a signal handler. No
 * fsync: whole files survive a killed process, not a power cut.
 * Errors: GF_ECREATE (cannot create or rename), GF_EIO (write failed), both
 * with the reason errno gave. */
int gf_write(const char *path, const unsigned char *buf, size_t len);

/* gf_encode + gf_write. */
int gf_save(const char *path, const gf_image *im, const gf_encode_opts *o);

/* Removes every temporary output file not yet renamed. Async-signal-safe. */
void gf_tmp_cleanup(void);

#ifdef __cplusplus
}
#endif

#endif
