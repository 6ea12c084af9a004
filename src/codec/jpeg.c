/* jpeg.c - JPEG through libjpeg-turbo's TurboJPEG API (Debian
 * libturbojpeg0-dev): colour as RGB by libjpeg-turbo's default
 * decompression (accurate integer IDCT, fancy upsampling: djpeg's and
 * OpenCV's), gray as stored, and on request the file's own luma (Y)
 * component as libjpeg-turbo's grayscale decode (djpeg -grayscale) gives
 * it; encoding of 8-bit gray and RGB. The EXIF (APP1) and ICC profile
 * (APP2) segments are read and written here too, their contents checked
 * and the Orientation tag read by meta.c. */
#include <stdio.h>
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

static int read_meta(const char *name, const unsigned char *buf, size_t len, gf_meta *m);

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

int gf_jpeg_draft_scale(int w, int h, uint32_t dw, uint32_t dh)
{
    const int64_t a = dw ? (int64_t)w / dw : 1, b = dh ? (int64_t)h / dh : 1;
    const int64_t scale = a < b ? a : b;
    return scale >= 8 ? 8 : scale >= 4 ? 4 : scale >= 2 ? 2 : 1;
}

int gf_decode_jpeg(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info)
{
    tjhandle tj = tjInitDecompress();
    int w, h, subsamp, colorspace, channels, rc, s = 1;

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
    /* --draft: libjpeg's DCT scaling to 1/s, which TurboJPEG picks as the
     * largest scale whose image fits ceil(w / s) x ceil(h / s) */
    if (lim->draft_w && lim->draft_h)
        s = gf_jpeg_draft_scale(w, h, lim->draft_w, lim->draft_h);
    w = (w + s - 1) / s;
    h = (h + s - 1) / s;
    if ((rc = gf_image_alloc(out, w, h, channels, 8)))
        goto out;
    if (tjDecompress2(tj, buf, (unsigned long)len, out->data, w, (int)out->stride, h,
                      channels == 1 ? TJPF_GRAY : TJPF_RGB, DECODE_FLAGS)) {
        rc = gf_err(GF_EDATA, name, "cannot decode JPEG: %s", tjGetErrorStr2(tj));
        goto out;
    }
    /* once the image is whole: a file that fails says one thing, its error */
    if (flags & GF_DECODE_META)
        rc = read_meta(name, buf, len, &info->meta);
out:
    tjDestroy(tj);
    return rc;
}

int gf_jpeg_peek(const unsigned char *buf, size_t len, int *w, int *h, int *orientation)
{
    tjhandle tj;
    int subsamp, colorspace, rc = -1;

    if (len < 4 || !gf_jpeg_sniff(buf, len) || len > (unsigned long)-1 ||
        !(tj = tjInitDecompress()))
        return -1;
    if (tjDecompressHeader3(tj, buf, (unsigned long)len, w, h, &subsamp, &colorspace) == 0) {
        *orientation = gf_jpeg_orientation(buf, len);
        rc = 0;
    }
    tjDestroy(tj);
    return rc;
}

int gf_jpeg_gpu_candidate(const char *name, const unsigned char *buf, size_t len,
                          const gf_limits *lim, int flags, int *width, int *height, int *subsamp,
                          gf_load_info *info)
{
    tjhandle tj;
    int colorspace, ok, channels = 1;

    if (len < 4 || !gf_jpeg_sniff(buf, len) || buf[len - 2] != 0xff || buf[len - 1] != 0xd9 ||
        lim->draft_w || arithmetic(buf, len) != 0 || !(tj = tjInitDecompress()))
        return 0; /* --draft: the CPU's scaled decode, the same bytes on every backend */
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
    if ((flags & GF_DECODE_META) && read_meta(name, buf, len, &info->meta)) {
        gf_meta_free(&info->meta); /* out of memory: the CPU decoder says so */
        return 0;
    }
    if (!(flags & GF_DECODE_LUMA))
        gf_meta_fit(&info->meta, name, colorspace == TJCS_GRAY ? 1 : 3);
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
        if ((rc = gf_jpeg_add_meta(out, len, o->meta, o->name))) {
            free(*out);
            *out = NULL;
            *len = 0;
        }
    }
    tjFree(buf);
    tjDestroy(tj);
    return rc;
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
            return gf_exif_orientation_or_1(buf + p + 10, seg - 8);
        p += 2 + seg;
    }
    return 1;
}

#define ICC_SIG "ICC_PROFILE" /* and its NUL: 12 bytes */
#define ICC_CHUNK 65519        /* bytes of profile in one APP2 segment at most */

/* Keeps the first APP1 Exif segment's EXIF and the ICC profile of the APP2
 * ICC_PROFILE segments (each numbered i of n, 1 <= i <= n, every one once:
 * joined in their order) before the image data in m, by meta.h's checks. */
static int read_meta(const char *name, const unsigned char *buf, size_t len, gf_meta *m)
{
    size_t p = 2, at[256] = {0}, size[256] = {0}, total = 0;
    unsigned count = 0, seen = 0;
    int exif = 0, rc = 0;
    const char *bad = NULL;
    unsigned char *icc;

    while (p + 4 <= len && buf[p] == 0xff) {
        unsigned mk = buf[p + 1];
        size_t seg = (size_t)buf[p + 2] << 8 | buf[p + 3];
        if (mk == 0xff) {
            p++;
            continue;
        }
        if (mk == 0xda || mk == 0xd9 || seg < 2 || p + 2 + seg > len)
            break;
        const unsigned char *d = buf + p + 4;
        const size_t n = seg - 2;
        if (mk == 0xe1 && !exif && n >= 6 && !memcmp(d, "Exif\0\0", 6)) {
            exif = 1;
            if ((rc = gf_meta_keep_exif(m, name, d + 6, n - 6)))
                return rc;
        } else if (mk == 0xe2 && n >= 12 && !memcmp(d, ICC_SIG, 12) && !bad) {
            const unsigned i = n >= 14 ? d[12] : 0, c = n >= 14 ? d[13] : 0;
            if (n < 14)
                bad = "an APP2 segment is cut short";
            else if (c == 0 || i == 0 || i > c || (count && c != count))
                bad = "its APP2 segments are misnumbered";
            else if (at[i])
                bad = "an APP2 segment is repeated";
            else {
                count = c;
                at[i] = p + 4 + 14;
                size[i] = n - 14;
                total += n - 14;
                seen++;
            }
        }
        p += 2 + seg;
    }
    if (!bad && count && seen != count)
        bad = "some of its APP2 segments are missing";
    if (bad) {
        char msg[128];
        snprintf(msg, sizeof msg, "ICC profile dropped: %s", bad);
        gf_meta_warn(name, msg);
        return 0;
    }
    if (!count)
        return 0;
    if (total > GF_MAX_ICC_BYTES) {
        gf_meta_warn(name, "ICC profile dropped: larger than 16 MiB");
        return 0;
    }
    if (!(icc = malloc(total ? total : 1)))
        return gf_err(GF_EINTERNAL, name, "out of memory reading metadata");
    for (unsigned i = 1, o = 0; i <= count; o += (unsigned)size[i], i++)
        memcpy(icc + o, buf + at[i], size[i]);
    rc = gf_meta_keep_icc(m, name, icc, total);
    free(icc);
    return rc;
}

static void put16(unsigned char *p, size_t v)
{
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

int gf_jpeg_add_meta(unsigned char **buf, size_t *len, const gf_meta *m, const char *name)
{
    size_t at = 2, extra = 0, nicc = 0;
    int icc = m && m->icc && m->icc_len;
    const int exif = m && m->exif && m->exif_len && m->exif_len <= GF_MAX_EXIF_BYTES;
    unsigned char *out, *q;

    if (icc) {
        nicc = (m->icc_len + ICC_CHUNK - 1) / ICC_CHUNK;
        if (nicc > 255) {
            gf_meta_warn(name ? name : "output",
                         "ICC profile left out of the JPEG: over 255 APP2 segments");
            icc = 0;
        }
    }
    if ((!icc && !exif) || *len < 2)
        return 0;
    if (*len >= 10 && (*buf)[2] == 0xff && (*buf)[3] == 0xe0 && !memcmp(*buf + 6, "JFIF", 4) &&
        4 + (((size_t)(*buf)[4] << 8) | (*buf)[5]) <= *len)
        at = 4 + (((size_t)(*buf)[4] << 8) | (*buf)[5]);
    if (exif)
        extra += 4 + 6 + m->exif_len;
    if (icc)
        extra += nicc * (4 + 14) + m->icc_len;
    if (!(out = malloc(*len + extra)))
        return gf_err(GF_EINTERNAL, NULL, "out of memory writing JPEG metadata");
    memcpy(out, *buf, at);
    q = out + at;
    if (exif) {
        q[0] = 0xff, q[1] = 0xe1;
        put16(q + 2, 2 + 6 + m->exif_len);
        memcpy(q + 4, "Exif\0\0", 6);
        memcpy(q + 10, m->exif, m->exif_len);
        q += 10 + m->exif_len;
    }
    for (size_t i = 0; icc && i < nicc; i++) {
        const size_t off = i * ICC_CHUNK,
                     n = m->icc_len - off < ICC_CHUNK ? m->icc_len - off : ICC_CHUNK;
        q[0] = 0xff, q[1] = 0xe2;
        put16(q + 2, 2 + 14 + n);
        memcpy(q + 4, ICC_SIG, 12);
        q[16] = (unsigned char)(i + 1);
        q[17] = (unsigned char)nicc;
        memcpy(q + 18, m->icc + off, n);
        q += 18 + n;
    }
    memcpy(q, *buf + at, *len - at);
    free(*buf);
    *buf = out;
    *len += extra;
    return 0;
}
