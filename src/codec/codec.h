/* codec.h - reading, decoding, encoding and atomically writing images.
 * Decoding of PNG, JPEG and BMP is stb_image's; binary PNM (P5/P6) is read
 * here (see third_party/README.md for why). Encoding is stb_image_write's PNG
 * with libdeflate, and PGM (P5) written here. */
#ifndef GF_CODEC_H
#define GF_CODEC_H

#include <stdint.h>

#include "../gf.h"

/* Largest width or height any loader accepts (stb's STBI_MAX_DIMENSIONS). */
#define GF_MAX_DIM 65535

typedef struct gf_limits {
    uint64_t max_pixels;     /* width * height, checked from the header before decoding */
    uint64_t max_file_bytes; /* encoded size */
} gf_limits;

#define GF_DEFAULT_MAX_PIXELS 268435456ull     /* 16384^2 */
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
    int png_level; /* libdeflate 0-12 */
    int quality;   /* JPEG 1-100 */
} gf_encode_opts;

/* What the decoder found. */
typedef struct gf_load_info {
    const char *format; /* "png", "jpeg", "bmp", "pgm", "ppm" */
    int channels;       /* in the file: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int bits;           /* 8 or 16 (per channel, in the file) */
} gf_load_info;

/* Reads all of `path` ("-": stdin) into a malloc'd buffer *buf of *len
 * bytes (0 for an empty file), followed by a NUL byte not counted in *len.
 * Errors: GF_ENOINPUT (missing, unreadable, a directory), GF_EDATA (larger
 * than lim->max_file_bytes). */
int gf_read_all(const char *path, const gf_limits *lim, unsigned char **buf, size_t *len);

/* Decodes buf (len bytes) into *out, a width x height 8-bit luma image in
 * host memory (stride == width), detecting the format from the content.
 * Colour becomes luma (77 R + 150 G + 29 B) >> 8, stb_image's weights; alpha
 * is dropped; 16-bit (and PNM maxval != 255) samples scale to 8 bits as
 * round(v * 255 / maxval) before that. name is used in messages only.
 * Errors: GF_EDATA for unknown or corrupt data, or over the limits (checked
 * from the header, before any pixel is decoded). */
int gf_decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
              gf_image *out, gf_load_info *info);

/* The width and height that buf's header gives, cheaply, without decoding
 * or checking limits. Returns 0, or -1 when the header is not understood. */
int gf_peek_size(const unsigned char *buf, size_t len, int *width, int *height);

/* gf_decode, also counting the decoded image's 8-bit R, G and B values into
 * rgb[3][256] (host memory, zeroed first; a gray image counts its gray value
 * in all three). */
int gf_decode_rgb(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256]);

/* gf_read_all + gf_decode. */
int gf_load(const char *path, const gf_limits *lim, gf_image *out, gf_load_info *info);

/* The output format that a file name's extension names (.png, .pgm, either
 * case), or GF_FMT_NONE. */
gf_format gf_format_from_name(const char *path);


/* Writes len bytes of buf (host memory) to `path`; "-" writes to stdout.
 * Any other path is written to a temporary file ".NAME.gpufilt-XXXXXX" in
 * the same directory and renamed over `path` only when complete, so `path`
 * is either untouched or whole; the temporary is removed on any error and by
 * gf_tmp_cleanup() from a signal handler. No fsync: whole files survive a
 * killed process, not a power cut.
 * Errors: GF_ECREATE (cannot create or rename), GF_EIO (write failed). */
int gf_write(const char *path, const unsigned char *buf, size_t len);

/* gf_encode + gf_write. */
int gf_save(const char *path, const gf_image *im, const gf_encode_opts *o);

/* Encodes im (host) into a malloc'd buffer (*out, *len) as o says; the
 * caller frees it. Errors: GF_EINTERNAL (out of memory). */
int gf_encode(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len);

/* Removes every temporary output file not yet renamed. Async-signal-safe. */
void gf_tmp_cleanup(void);

#endif
