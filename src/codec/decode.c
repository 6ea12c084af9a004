/* decode.c - format detection, limits and sample conversion, shared by the
 * per-format decoders (codec.h, formats.h). */
#include <stdlib.h>
#include <string.h>

#include "formats.h"

int gf_check_size(const char *name, const char *fmt, uint64_t w, uint64_t h, int channels,
                  int bits, const gf_limits *lim)
{
    if (w < 1 || h < 1)
        return gf_err(GF_EDATA, name, "%s image of %llux%llu pixels is empty", fmt,
                      (unsigned long long)w, (unsigned long long)h);
    if (w > GF_MAX_DIM || h > GF_MAX_DIM)
        return gf_err(GF_EDATA, name, "%s image of %llux%llu exceeds the largest side, %d", fmt,
                      (unsigned long long)w, (unsigned long long)h, GF_MAX_DIM);
    if (w * h > lim->max_pixels)
        return gf_err(GF_EDATA, name, "%s image of %llux%llu pixels exceeds --max-pixels %llu",
                      fmt, (unsigned long long)w, (unsigned long long)h,
                      (unsigned long long)lim->max_pixels);
    if (w * h * GF_PIXEL_BYTES(channels, bits) > lim->max_image_bytes)
        return gf_err(GF_EDATA, name,
                      "%s image of %llux%llu %s takes %llu bytes, over --max-image-bytes %llu",
                      fmt, (unsigned long long)w, (unsigned long long)h,
                      gf_layout_words(channels, bits),
                      (unsigned long long)(w * h * GF_PIXEL_BYTES(channels, bits)),
                      (unsigned long long)lim->max_image_bytes);
    return 0;
}

int gf_scale_samples(const unsigned char *src, int in_bits, int be, unsigned maxval, size_t n,
                     unsigned char *dst, int out_bits)
{
    const unsigned max = gf_sample_max(out_bits);
    uint16_t *d16 = (uint16_t *)(void *)dst;

    for (size_t i = 0; i < n; i++) {
        unsigned v = in_bits == 8 ? src[i]
                     : be         ? (unsigned)src[2 * i] << 8 | src[2 * i + 1]
                                  : ((const uint16_t *)(const void *)src)[i];
        if (v > maxval)
            return -1;
        if (maxval != max)
            v = (unsigned)(((uint64_t)v * max + maxval / 2) / maxval);
        if (out_bits == 8)
            dst[i] = (unsigned char)v;
        else
            d16[i] = (uint16_t)v;
    }
    return 0;
}

typedef struct format {
    const char *name, *label; /* "png", "PNG" (messages) */
    int (*decode)(const char *, const unsigned char *, size_t, const gf_limits *, int, gf_image *,
                  gf_load_info *);
    int (*peek)(const unsigned char *, size_t, gf_shape *);
} format;

static const format formats[] = {
    {"png", "PNG", gf_decode_png, gf_peek_png},
    {"jpeg", "JPEG", gf_decode_jpeg, gf_peek_jpeg},
    {"bmp", "BMP", gf_decode_bmp, gf_peek_bmp},
    {"pnm", "PNM", gf_decode_pnm, gf_peek_pnm},
    {"tiff", "TIFF", gf_decode_tiff, gf_peek_tiff},
};

/* The format whose signature buf starts with, or NULL. */
static const format *sniff(const unsigned char *b, size_t n)
{
    if (n >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8))
        return &formats[0];
    if (n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff)
        return &formats[1];
    if (n >= 2 && b[0] == 'B' && b[1] == 'M')
        return &formats[2];
    if (n >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6' || b[1] == '7'))
        return &formats[3];
    if (gf_tiff_sniff(b, n))
        return &formats[4];
    return NULL;
}

static int unknown_format(const char *name)
{
    return gf_err(GF_EDATA, name, "unknown image format (PNG, JPEG, BMP, PGM, PPM, PAM and TIFF are read)");
}

int gf_input_need(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  uint64_t *need)
{
    const format *f = sniff(buf, len);
    gf_shape sh;
    int rc;

    *need = UINT64_MAX;
    if (len == 0)
        return 0; /* gf_decode says it is empty */
    if (!f)
        return unknown_format(name);
    if (f->decode == gf_decode_tiff) {
        /* TIFF: pages, and directories after their data, anywhere in the
         * file: read it whole (to --max-file-size); the first page's size is
         * checked when its directory is in what is read so far */
        if (lim->page == 0 && gf_peek_tiff(buf, len, &sh) == 0)
            return gf_check_size(name, f->label, (uint64_t)sh.width, (uint64_t)sh.height,
                                 sh.channels, sh.bits, lim);
        return 0;
    }
    if (f->peek(buf, len, &sh))
        return 1;
    if ((rc = gf_check_size(name, f->peek != gf_peek_pnm ? f->label : gf_pnm_label(buf),
                            (uint64_t)sh.width, (uint64_t)sh.height, sh.channels, sh.bits, lim)))
        return rc;
    *need = 2 * (uint64_t)sh.width * (uint64_t)sh.height * GF_PIXEL_BYTES(sh.channels, sh.bits) +
            GF_INPUT_SLACK;
    return 0;
}

int gf_decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
              int flags, gf_image *out, gf_load_info *info)
{
    const format *f = sniff(buf, len);
    int rc;

    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    info->orientation = 1;
    if (len == 0)
        return gf_err(GF_EDATA, name, "empty file");
    if (!f)
        return unknown_format(name);
    if (lim->page && f->decode != gf_decode_tiff) /* --page: TIFF alone has pages */
        return gf_err(GF_EDATA, name, "%s has one page; --page %u does not exist",
                      f->peek != gf_peek_pnm ? f->label : gf_pnm_label(buf), lim->page);
    rc = f->decode(name, buf, len, lim, flags, out, info);
    if (rc)
        gf_image_free(out);
    else {
        info->channels = out->channels;
        info->bits = out->bits;
    }
    return rc;
}

int gf_peek_size(const unsigned char *buf, size_t len, gf_shape *shape)
{
    const format *f = sniff(buf, len);
    return f ? f->peek(buf, len, shape) : -1;
}

int gf_load(const char *path, const gf_limits *lim, gf_image *out, gf_load_info *info)
{
    unsigned char *buf;
    size_t len;
    int rc = gf_read_image(path, lim, &buf, &len);

    if (rc)
        return rc;
    rc = gf_decode(strcmp(path, "-") ? path : "(stdin)", buf, len, lim, 0, out, info);
    free(buf);
    return rc;
}
