/* codec.h - reading, decoding, encoding and atomically writing images.
 * One file per format under src/codec/: PNG (libspng to decode; written by
 * gpufilt, deflated by ISA-L or libdeflate), JPEG (libjpeg-turbo's
 * TurboJPEG), BMP (stb_image, behind gpufilt's own header checks) and binary
 * PNM and PAM (gpufilt's own: stb's ignores maxval and has no PAM), TIFF
 * (libtiff) and WebP (libwebp), listed once in registry.c, where every
 * function below finds them.
 * third_party/README.md says why each library. Decoders keep the file's
 * channels (gray, gray+alpha, RGB, RGBA) and depth (8 or 16 bits); encoders
 * write what the image has, where the format can hold it. An ICC profile
 * and EXIF travel beside the image (gf_meta): read with GF_DECODE_META,
 * written through gf_encode_opts.meta. */
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
    uint64_t max_pixels;      /* width * height, checked from the header before decoding */
    uint64_t max_file_bytes;  /* encoded size; a larger input is not read past it */
    uint64_t max_image_bytes; /* the decoded image: width * height * channels * bytes a
                                 sample, checked from the header before decoding */
    uint32_t page;            /* --page: which image of a multi-page file (TIFF) to read,
                                 from 0; 0 for single-image formats */
    uint32_t draft_w, draft_h; /* --draft: a JPEG decodes shrunk on load for this size
                                  (gf_jpeg_draft_scale); 0: whole. Other formats whole */
} gf_limits;

#define GF_DEFAULT_MAX_PIXELS 268435456ull       /* 16384^2 */
#define GF_DEFAULT_MAX_FILE_BYTES 1073741824ull  /* 1 GiB */
#define GF_DEFAULT_MAX_IMAGE_BYTES 2147483648ull /* 2 GiB: 16384^2 RGBA 16-bit */

typedef enum gf_format {
    GF_FMT_NONE = 0,
    GF_FMT_PNG,  /* gray, gray+alpha, RGB, RGBA; 8 or 16 bits */
    GF_FMT_PGM,  /* P5: gray, 8 or 16 bits */
    GF_FMT_PPM,  /* P6: RGB, 8 or 16 bits */
    GF_FMT_PAM,  /* P7: any layout */
    GF_FMT_JPEG, /* gray or RGB, 8 bits */
    GF_FMT_TIFF, /* any layout */
    GF_FMT_WEBP, /* 8 bits: gray and gray+alpha are written as RGB(A) */
} gf_format;

/* TIFF compression (--compress). */
typedef enum gf_tiff_compress {
    GF_TIFF_DEFLATE = 0, /* the default, with the horizontal predictor */
    GF_TIFF_NONE,
    GF_TIFF_LZW, /* with the horizontal predictor */
    GF_TIFF_PACKBITS,
} gf_tiff_compress;

#define GF_DEFAULT_PNG_LEVEL 1
#define GF_DEFAULT_JPEG_QUALITY 90

/* The written format that a --format argument names, exactly ("png",
 * "pgm", "ppm", "pam", "jpeg", "jpg", "tiff", "tif" or "webp"), or
 * GF_FMT_NONE. */
gf_format gf_format_parse(const char *name);

/* The written formats' own --format names, in the registry's order, joined
 * by sep and, before the last, by last, into buf (n bytes, cut short to
 * fit): "png|pgm|ppm|pam|jpeg" (sep and last "|"), "png, pgm, ppm, pam or
 * jpeg" (", " and " or "), for --help and its messages. Returns buf. */
char *gf_format_list(char *buf, size_t n, const char *sep, const char *last);

/* The written format f's own name ("png", "pgm", "ppm", "pam", "jpeg",
 * "tiff", "webp") and the extension its files are given ("png", "pgm", "ppm",
 * "pam", "jpg", "tif", "webp");
 * "none" for GF_FMT_NONE or a format not written. */
const char *gf_format_name(gf_format f);
const char *gf_format_ext(gf_format f);

/* The options that apply to writing format f, separated by spaces
 * ("--png-level" for PNG, "--quality" for JPEG); "" for none. */
const char *gf_format_settings(gf_format f);

/* The output format that path's extension names (.png, .pgm, .ppm, .pam,
 * .jpg, .jpeg, .tif, .tiff, .webp; either case), or GF_FMT_NONE. */
gf_format gf_format_from_name(const char *path);

/* 0 when format f can hold an image of `channels` channels (1-4) of `bits`
 * (8, 16), and for GF_FMT_NONE; otherwise GF_EUSAGE with a message that
 * says what can: a depth the format lacks, --depth and the first format
 * that holds the layout (16-bit into JPEG: --depth 8, or PNG); else the
 * format's own advice (alpha into JPEG: PNG or PAM, or --gray; colour into
 * PGM: --gray, or PPM), or the formats that hold it. */
int gf_format_holds(gf_format f, int channels, int bits);

/* Settles the format of an output named path: *fmt is the --format given
 * (given != 0) or GF_FMT_NONE. An extension that names no written format
 * (.bmp, .gif, ...) is refused with the formats gpufilt writes and
 * their extensions; a --format that contradicts the extension is refused;
 * a name without an extension needs --format. A template field in the
 * extension ("{ext}") is left to the caller. Returns 0 with *fmt set, or
 * GF_EUSAGE. */
int gf_format_check_name(const char *path, gf_format *fmt, int given);

/* An image's colour profile and EXIF, carried from input to output (host
 * memory, malloc'd and owned; NULL and 0 when absent). icc: an ICC profile,
 * at most GF_MAX_ICC_BYTES, whose header's size field (bytes 0-3,
 * big-endian) is its length and which has "acsp" at offset 36. exif: the
 * TIFF-structured EXIF ("II*\0" or "MM\0*", an IFD0 offset within it;
 * without JPEG's "Exif\0\0"), at most GF_MAX_EXIF_BYTES, whose directories
 * and values lie within it (meta.h's gf_exif_check). Decoders drop anything
 * else, and a profile whose colour space contradicts the image or whose
 * container is broken (a PNG chunk's CRC, a TIFF tag past the end of the
 * file, ...), with one warning line on stderr each, "gpufilt: NAME: ICC
 * profile dropped: REASON" (or "EXIF dropped"), and decode the image as
 * usual. */
typedef struct gf_meta {
    unsigned char *icc;
    size_t icc_len;
    unsigned char *exif;
    size_t exif_len;
} gf_meta;

#define GF_MAX_ICC_BYTES (16u << 20) /* 16 MiB */
#define GF_MAX_EXIF_BYTES 65527u     /* what one JPEG APP1 segment holds */

/* Frees m's blobs and zeroes it; m may be NULL. */
void gf_meta_free(gf_meta *m);

/* Readies m for an output of `channels` channels: drops an ICC profile
 * whose colour space does not suit them (GRAY for 1 or 2 channels, RGB for
 * 3 or 4; any other space is dropped too), and with upright set rewrites the
 * EXIF Orientation to 1 (the pixels were turned upright, or turned by a
 * stage). In place; never fails. */
void gf_meta_prepare(gf_meta *m, int channels, int upright);

/* How to encode an image output. */
typedef struct gf_encode_opts {
    gf_format format;
    int png_level; /* deflate level 0-12 */
    int quality;   /* JPEG, lossy WebP: 1-100 */
    int compress;  /* TIFF: a gf_tiff_compress */
    int lossless;  /* WebP: 1 lossless (every sample kept), 0 lossy at quality */
    const gf_meta *meta; /* written where the format holds it (JPEG: ICC, EXIF; PNG: iCCP,
                            eXIf; TIFF: ICC, EXIF; WebP: ICCP, EXIF); NULL: none */
    const char *name;    /* the output's name, in warnings about what meta loses there;
                            NULL: "output" */
} gf_encode_opts;

/* What the decoder found. */
typedef struct gf_load_info {
    const char *format; /* "png", "jpeg", "bmp", "pgm", "ppm", "pam", "tiff", "webp": the
                           decoder's */
    int channels;       /* decoded: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int bits;           /* decoded: 8 or 16 */
    int orientation;    /* EXIF Orientation 1-8 (JPEG, PNG eXIf, WebP EXIF, the TIFF
                           tag); 1 when absent or malformed */
    gf_meta meta;       /* with GF_DECODE_META: the file's ICC profile and EXIF, the
                           caller's to free (gf_meta_free); else empty */
} gf_load_info;

/* gf_decode's flags. */
enum {
    /* The first stage takes the luma (--gray): a colour JPEG gives its own
     * Y component, as libjpeg-turbo's grayscale decode (djpeg -grayscale)
     * gives it. Other formats decode as always. */
    GF_DECODE_LUMA = 1,
    /* Keep the file's ICC profile and EXIF in info->meta (gf_meta's checks;
     * what fails them is dropped with a warning). Without it nothing is
     * kept and nothing is said. */
    GF_DECODE_META = 2,
};

/* The libjpeg-turbo scale 1/s (s = 8, 4, 2 or 1) at which a w x h JPEG
 * decodes for a requested size of dw x dh (both >= 1), as Pillow's
 * JpegImageFile.draft(mode, (dw, dh)) picks it: the largest s at most
 * min(w / dw, h / dh) in integer division (1 when that is 0). The decoded
 * image is ceil(w / s) x ceil(h / s). */
int gf_jpeg_draft_scale(int w, int h, uint32_t dw, uint32_t dh);

/* From a JPEG's header, before decoding (for --draft's target size): its
 * width x height in pixels and EXIF Orientation (1-8; 1 when none). 0, or
 * -1 when buf is not a JPEG whose header reads. */
int gf_jpeg_peek(const unsigned char *buf, size_t len, int *w, int *h, int *orientation);

/* Reads all of `path` ("-": stdin) into a malloc'd buffer *buf of *len
 * bytes (0 for an empty file), followed by a NUL byte not counted in *len.
 * Never reads, nor allocates for, more than lim->max_file_bytes + 1 bytes.
 * Errors: GF_ENOINPUT (missing, unreadable, a directory), GF_EDATA (larger
 * than lim->max_file_bytes), GF_EINTERNAL (out of memory). */
int gf_read_all(const char *path, const gf_limits *lim, unsigned char **buf, size_t *len);

/* gf_read_all for an image: the format is known from the first bytes and
 * the size from the header (gf_input_need), before the rest is read. Input that starts
 * with no known signature is refused at once; a header over the limits
 * (gf_check_size's) too. The input is then read no further than twice its
 * declared image's bytes plus GF_INPUT_SLACK (the decoder ignores anything
 * after the image's end); a header not understood within the first
 * GF_INPUT_PROBE bytes stops the reading there, and the decoder says why.
 * Errors as gf_read_all, and gf_decode's GF_EDATA for those refusals. */
int gf_read_image(const char *path, const gf_limits *lim, unsigned char **buf, size_t *len);
#define GF_INPUT_SLACK (32u << 20) /* bytes: metadata, JPEG or PNG overhead */
#define GF_INPUT_PROBE (16u << 20) /* bytes in which a header must be understood */

/* For gf_read_image: from the first len bytes of an input (len > 0 at the
 * end of input or once a chunk is read), 0 with *need set to the most
 * bytes worth reading (UINT64_MAX: no bound yet, len == 0; a TIFF, which
 * is read whole), 1 when the header needs more bytes, or GF_EDATA when the
 * signature is unknown (the message lists the formats read) or the header
 * exceeds lim. */
int gf_input_need(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  uint64_t *need);

/* Decodes buf (len bytes) into *out, a width x height image in host memory
 * (stride == its row's bytes) of the file's layout, detecting the format
 * from the content (each format's signature):
 * - PNG: every colour type and depth; 1-, 2- and 4-bit gray scale to 8 bits
 *   (bit replication), a palette gives RGB, or RGBA when it has a tRNS
 *   chunk; tRNS on gray or RGB gives alpha (0 for that colour, the maximum
 *   elsewhere); 16-bit samples as they are (host byte order in memory).
 * - JPEG: gray stays gray; colour gives RGB, bit for bit libjpeg-turbo's
 *   default decompression (accurate integer IDCT, fancy upsampling: as
 *   djpeg, and cv2.imread(f, IMREAD_COLOR) in RGB order); with
 *   GF_DECODE_LUMA the Y component alone; CMYK and YCCK are refused.
 * - BMP: RGB, or RGBA for 32-bit pixels with alpha.
 * - PGM/PPM (P5, P6) and PAM (P7, tuple types GRAYSCALE, GRAYSCALE_ALPHA,
 *   RGB and RGB_ALPHA): maxval up to 255 gives 8 bits, above 255 16 bits;
 *   a maxval other than 255 or 65535 scales to that range as
 *   round(v * max / maxval).
 * - TIFF: page lim->page, by tiff.c's rules (gray, gray+alpha, RGB, RGBA;
 *   MinIsWhite inverted, 1- to 4-bit gray to 8 bits, palettes to RGB, the
 *   first alpha of the extra samples kept); a page past the last, or
 *   lim->page above 0 for any other format, is GF_EDATA.
 * - WebP, lossy or lossless: RGB, or RGBA when the file has alpha, bit for
 *   bit libwebp's WebPDecode with its default options (fancy upsampling, no
 *   dithering: as dwebp); of an animated file the first frame as libwebp's
 *   WebPAnimDecoder composes it on the canvas (transparent black where the
 *   frame does not cover it), and a note on stderr, "gpufilt: NAME:
 *   animated WebP: the first of N frames is read".
 * Strict: PNG CRCs and palette indices are checked, PNM samples above maxval
 * and BMP pixel data cut short are errors, and any JPEG corruption
 * libjpeg-turbo reports, warnings included. Size limits (pixels and the
 * decoded image's bytes) are checked from the header before any pixel is
 * decoded. Peak memory besides buf: the output plus a few rows for PNG,
 * BMP's 4 bytes a pixel, progressive JPEG's coefficients (2 bytes a sample),
 * an interlaced PNG's decoded image (up to 8 bytes a pixel), a lossless
 * WebP's whole ARGB image (4 bytes a pixel), a lossy WebP's alpha plane (1
 * byte a pixel).
 * flags: GF_DECODE_LUMA or 0. name is used in messages only.
 * Errors: GF_EDATA for unknown or corrupt data, or over the limits, with a
 * message naming the format; GF_EINTERNAL out of memory. */
int gf_decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
              int flags, gf_image *out, gf_load_info *info);

/* The width, height and layout that buf's header gives, cheaply, without
 * decoding or checking limits (a PNG's tRNS alpha is not seen). Returns 0,
 * or -1 when the header is not understood. */
int gf_peek_size(const unsigned char *buf, size_t len, gf_shape *shape);

/* 1 when buf is a JPEG that a GPU decoder may take in place of
 * libjpeg-turbo: its header reads, it is YCbCr or gray (not RGB-coded, CMYK
 * or YCCK), within lim, Huffman-coded with at least one bit per luma block,
 * and it ends with its EOI marker (so it is not cut short). Sets *width,
 * *height and *info (format, channels, bits, orientation) as the CPU
 * decoder would with `flags` (GF_DECODE_LUMA: one channel; GF_DECODE_META:
 * info->meta, the caller's to free, its warnings naming `name`), and
 * *subsamp to TurboJPEG's chroma subsampling (TJSAMP_*). 0 otherwise (and
 * nothing kept): the CPU decodes it, and says why it fails. */
int gf_jpeg_gpu_candidate(const char *name, const unsigned char *buf, size_t len,
                          const gf_limits *lim, int flags, int *width, int *height, int *subsamp,
                          gf_load_info *info);

/* Adds m's EXIF (one APP1 "Exif\0\0" segment) and ICC profile (APP2
 * "ICC_PROFILE\0" segments of at most 65519 bytes of it each, numbered
 * from 1) to the JPEG in *buf (*len bytes, malloc'd: realloc'd here), right
 * after its SOI marker and a JFIF APP0 segment that follows it. A profile
 * over 255 segments (16,707,345 bytes) is left out with the warning
 * "gpufilt: NAME: ICC profile left out of the JPEG: ..." (name NULL:
 * "output"). m NULL or empty: nothing. Returns 0, or GF_EINTERNAL out of
 * memory (*buf and *len unchanged). */
int gf_jpeg_add_meta(unsigned char **buf, size_t *len, const gf_meta *m, const char *name);

/* gf_read_image + gf_decode (flags 0). */
int gf_load(const char *path, const gf_limits *lim, gf_image *out, gf_load_info *info);

/* Encodes im (host) into a malloc'd buffer (*out, *len) as o says
 * (o->format, and those of its settings that apply to the format); the
 * caller frees it; *out is NULL and *len 0 on error. PNG: the image's
 * layout (gray, gray+alpha, RGB, RGBA; 8 or 16 bits, big-endian in the
 * file), rows with the Average filter, deflate at o->png_level; PGM, PPM:
 * P5, P6 with maxval 255 or 65535; PAM: P7 with its tuple type; JPEG: 8-bit
 * gray or RGB (4:2:0) at o->quality (libjpeg-turbo); TIFF: the image's
 * layout, compressed as o->compress says (libtiff); WebP: 8-bit, gray and
 * gray+alpha as RGB and RGBA with R = G = B, lossless when o->lossless
 * (every sample kept, the colour under zero alpha too), else lossy at
 * o->quality with alpha kept losslessly (libwebp, method 4, one thread; an
 * alpha channel that is 255 throughout is left out). o->meta, when given,
 * adds its ICC profile and EXIF: JPEG APP1 Exif and APP2 ICC_PROFILE
 * segments after SOI and JFIF; PNG iCCP ("ICC Profile", zlib) and eXIf
 * chunks after IHDR; TIFF the ICC profile tag, and the EXIF as the image
 * directory's picture tags and EXIF and GPS directories (libtiff's custom
 * directories, written before the image's; tags libtiff will not take left
 * out with a warning naming o->name); WebP ICCP and EXIF chunks
 * (libwebpmux: an extended file); PNM and PAM nothing. Without
 * o->meta, or with an empty one, the bytes are as they were without
 * metadata. The bytes depend only on im and o. Errors: GF_EUSAGE when the format cannot hold the image
 * (gf_format_holds; WebP also refuses a side over 16383), GF_EINTERNAL (out
 * of memory, or o->format no written format). */
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
