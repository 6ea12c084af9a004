/* jpeg.c - JPEG through libjpeg-turbo's TurboJPEG API (Debian
 * libturbojpeg0-dev): colour as RGB by libjpeg-turbo's default
 * decompression (accurate integer IDCT, fancy upsampling: djpeg's and
 * OpenCV's), gray as stored, and on request the file's own luma (Y)
 * component as libjpeg-turbo's grayscale decode (djpeg -grayscale) gives
 * it; encoding of 8-bit gray and RGB. The EXIF Orientation tag is read here
 * too (TIFF 6.0 and Exif 2.3 layouts). */
#include <stdlib.h>
#include <string.h>

#include <turbojpeg.h>

#include "formats.h"

/* A Huffman-coded JPEG spends at least one bit on each 8x8 block of its
 * luma component (the DC code of the first scan), so a file of N bytes
 * holds at most 8 N blocks: 512 N pixels. Checked before the output is
 * allocated, against 1 KB files that claim gigapixels. */
#define MIN_BITS_PER_BLOCK 1

/* 1 when a Huffman-coded JPEG of len bytes can hold w x h pixels. */
static int long_enough(size_t len, int w, int h)
{
    return (uint64_t)len * 8 * 64 / MIN_BITS_PER_BLOCK >= (uint64_t)w * (uint64_t)h;
}

/* Decoding flags: stop at the first warning (truncated or corrupt data is
 * an error, and found quickly), and at most 500 progressive scans. */
#define DECODE_FLAGS (TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)

int gf_jpeg_sniff(const unsigned char *buf, size_t len)
{
    return len >= 3 && buf[0] == 0xff && buf[1] == 0xd8 && buf[2] == 0xff; /* SOI, a marker */
}

int gf_peek_jpeg(const unsigned char *buf, size_t len, gf_shape *s)
{
    tjhandle tj = tjInitDecompress();
    int ss, cs, rc = -1;

    if (tj && len <= (unsigned long)-1 &&
        tjDecompressHeader3(tj, buf, (unsigned long)len, &s->width, &s->height, &ss, &cs) == 0 &&
        s->width >= 1 && s->height >= 1) {
        s->channels = cs == TJCS_GRAY ? 1 : 3;
        s->bits = 8;
        rc = 0;
    }
    if (tj)
        tjDestroy(tj);
    return rc;
}

/* The start-of-frame marker's type: 1 for arithmetic coding (SOF9-11,
 * SOF13-15), 0 for Huffman, -1 when none is found. Walks the marker
 * segments by their lengths, within buf. */
static int arithmetic(const unsigned char *buf, size_t len)
{
    size_t p = 2;

    while (p + 4 <= len) {
        if (buf[p] != 0xff) /* no marker where one must be: let the decoder say */
            return -1;
        unsigned m = buf[p + 1];
        if (m == 0xff) {
            p++;
            continue;
        }
        if ((m >= 0xc0 && m <= 0xcf) && m != 0xc4 && m != 0xc8 && m != 0xcc)
            return m >= 0xc9;
        if (m == 0xd9 || m == 0xda)
            return -1;
        p += 2 + ((size_t)buf[p + 2] << 8 | buf[p + 3]);
    }
    return -1;
}

int gf_decode_jpeg(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info)
{
    tjhandle tj = tjInitDecompress();
    int w, h, subsamp, colorspace, channels, rc;

    info->format = "jpeg";
    if (!tj)
        return gf_err(GF_EINTERNAL, name, "JPEG decoder: %s", tjGetErrorStr2(NULL));
    if (len > (unsigned long)-1 ||
        tjDecompressHeader3(tj, buf, (unsigned long)len, &w, &h, &subsamp, &colorspace)) {
        rc = gf_err(GF_EDATA, name, "cannot decode JPEG: %s", tjGetErrorStr2(tj));
        goto out;
    }
    if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) {
        rc = gf_err(GF_EDATA, name, "CMYK and YCCK JPEGs are not read");
        goto out;
    }
    channels = colorspace == TJCS_GRAY || (flags & GF_DECODE_LUMA) ? 1 : 3;
    if ((rc = gf_check_size(name, "JPEG", (uint64_t)w, (uint64_t)h, channels, 8, lim)))
        goto out;
    if (arithmetic(buf, len) == 0 && !long_enough(len, w, h)) {
        rc = gf_err(GF_EDATA, name, "JPEG of %zu bytes is too short for %dx%d pixels", len, w, h);
        goto out;
    }
    info->orientation = gf_jpeg_orientation(buf, len);
    if ((rc = gf_image_alloc(out, w, h, channels, 8)))
        goto out;
    if (tjDecompress2(tj, buf, (unsigned long)len, out->data, w, (int)out->stride, h,
                      channels == 1 ? TJPF_GRAY : TJPF_RGB, DECODE_FLAGS)) {
        rc = gf_err(GF_EDATA, name, "cannot decode JPEG: %s", tjGetErrorStr2(tj));
        goto out;
    }
out:
    tjDestroy(tj);
    return rc;
}

int gf_jpeg_gpu_candidate(const unsigned char *buf, size_t len, const gf_limits *lim, int flags,
                          int *width, int *height, int *subsamp, gf_load_info *info)
{
    tjhandle tj;
    int colorspace, ok, channels = 1;

    if (len < 4 || !gf_jpeg_sniff(buf, len) || buf[len - 2] != 0xff || buf[len - 1] != 0xd9 ||
        arithmetic(buf, len) != 0 || !(tj = tjInitDecompress()))
        return 0;
    ok = len <= (unsigned long)-1 &&
         tjDecompressHeader3(tj, buf, (unsigned long)len, width, height, subsamp, &colorspace) ==
             0 &&
         (colorspace == TJCS_YCbCr || colorspace == TJCS_GRAY);
    if (ok)
        channels = colorspace == TJCS_GRAY || (flags & GF_DECODE_LUMA) ? 1 : 3;
    ok = ok &&
         gf_check_size(NULL, "JPEG", (uint64_t)*width, (uint64_t)*height, channels, 8, lim) == 0 &&
         long_enough(len, *width, *height);
    tjDestroy(tj);
    if (!ok)
        return 0;
    memset(info, 0, sizeof *info);
    info->format = "jpeg";
    info->channels = channels;
    info->bits = 8;
    info->orientation = gf_jpeg_orientation(buf, len);
    return 1;
}

int gf_encode_jpeg(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    tjhandle tj = tjInitCompress();
    unsigned char *buf = NULL;
    unsigned long size = 0;
    int rc = 0;

    if (!tj)
        return gf_err(GF_EINTERNAL, NULL, "JPEG encoder: %s", tjGetErrorStr2(NULL));
    if (tjCompress2(tj, im->data, im->width, (int)im->stride, im->height,
                    im->channels == 1 ? TJPF_GRAY : TJPF_RGB, &buf, &size,
                    im->channels == 1 ? TJSAMP_GRAY : TJSAMP_420, o->quality, 0)) {
        rc = gf_err(GF_EINTERNAL, NULL, "JPEG encoder: %s", tjGetErrorStr2(tj));
    } else if (!(*out = malloc(size ? size : 1))) {
        rc = gf_err(GF_EINTERNAL, NULL, "out of memory encoding JPEG");
    } else {
        memcpy(*out, buf, size);
        *len = size;
    }
    tjFree(buf);
    tjDestroy(tj);
    return rc;
}

/* Reads a 16- or 32-bit value of the TIFF byte order at p (4 bytes inside
 * the buffer are the caller's to check). */
static unsigned get16(const unsigned char *p, int le)
{
    return le ? (unsigned)p[0] | (unsigned)p[1] << 8 : (unsigned)p[0] << 8 | p[1];
}

static uint32_t get32(const unsigned char *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Orientation (tag 0x0112, SHORT, count 1) in IFD0 of the TIFF structure
 * at t (n bytes), or 1. */
static int tiff_orientation(const unsigned char *t, size_t n)
{
    int le;
    uint32_t ifd;

    if (n < 8 || !((t[0] == 'I' && t[1] == 'I') || (t[0] == 'M' && t[1] == 'M')))
        return 1;
    le = t[0] == 'I';
    if (get16(t + 2, le) != 42 || (ifd = get32(t + 4, le)) > n - 2)
        return 1;
    unsigned count = get16(t + ifd, le);
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n)
            return 1;
        if (get16(t + e, le) == 0x0112) {
            unsigned type = get16(t + e + 2, le), v = get16(t + e + 8, le);
            return type == 3 && get32(t + e + 4, le) == 1 && v >= 1 && v <= 8 ? (int)v : 1;
        }
    }
    return 1;
}

int gf_jpeg_orientation(const unsigned char *buf, size_t len)
{
    size_t p = 2;

    while (p + 4 <= len && buf[p] == 0xff) {
        unsigned m = buf[p + 1];
        size_t seg = (size_t)buf[p + 2] << 8 | buf[p + 3];
        if (m == 0xda || m == 0xd9 || seg < 2 || p + 2 + seg > len)
            return 1; /* the image data, or a broken segment: no EXIF before it */
        if (m == 0xe1 && seg >= 8 && !memcmp(buf + p + 4, "Exif\0\0", 6))
            return tiff_orientation(buf + p + 10, seg - 8);
        p += 2 + seg;
    }
    return 1;
}
