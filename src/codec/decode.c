/* decode.c - format detection, limits and sample conversion, shared by the
 * per-format decoders (codec.h, formats.h). */
#include <stdlib.h>
#include <string.h>

#include "formats.h"

int gf_check_size(const char *name, const char *fmt, uint64_t w, uint64_t h,
                  const gf_limits *lim)
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
    return 0;
}

/* Converts n pixels of `channels` samples, each read by GET(i) as 0..maxval,
 * to 8-bit luma; written once per sample type by the macro below. */
#define LUMA_LOOP(GET)                                                                        \
    for (size_t i = 0; i < n; i++) {                                                          \
        if (channels <= 2) {                                                                  \
            unsigned v = GET(i * channels);                                                   \
            if (v > maxval)                                                                   \
                return -1;                                                                    \
            dst[i] = (unsigned char)SCALE(v);                                                 \
        } else {                                                                              \
            unsigned r = GET(i * channels), g = GET(i * channels + 1),                        \
                     b = GET(i * channels + 2);                                               \
            if (r > maxval || g > maxval || b > maxval)                                       \
                return -1;                                                                    \
            r = SCALE(r), g = SCALE(g), b = SCALE(b);                                         \
            dst[i] = (unsigned char)((77 * r + 150 * g + 29 * b) >> 8);                       \
            if (rgb) {                                                                        \
                rgb[0][r]++;                                                                  \
                rgb[1][g]++;                                                                  \
                rgb[2][b]++;                                                                  \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
    return 0;
#define SCALE(v) (maxval == 255 ? (v) : ((v) * 255u + maxval / 2) / maxval)

int gf_luma_row8(const unsigned char *src, int channels, unsigned maxval, size_t n,
                 unsigned char *dst, uint32_t (*rgb)[256])
{
#define GET8(k) ((unsigned)src[k])
    LUMA_LOOP(GET8)
#undef GET8
}

int gf_luma_row16(const unsigned char *src, int be, int channels, unsigned maxval, size_t n,
                  unsigned char *dst, uint32_t (*rgb)[256])
{
#define GET16(k)                                                                              \
    (be ? (unsigned)src[2 * (k)] << 8 | src[2 * (k) + 1]                                      \
        : (unsigned)((const uint16_t *)(const void *)src)[k])
    LUMA_LOOP(GET16)
#undef GET16
}
#undef SCALE
#undef LUMA_LOOP

typedef struct format {
    const char *name;
    int (*decode)(const char *, const unsigned char *, size_t, const gf_limits *, gf_image *,
                  gf_load_info *, uint32_t (*)[256]);
    int (*peek)(const unsigned char *, size_t, int *, int *);
} format;

static const format formats[] = {
    {"png", gf_decode_png, gf_peek_png},
    {"jpeg", gf_decode_jpeg, gf_peek_jpeg},
    {"bmp", gf_decode_bmp, gf_peek_bmp},
    {"pnm", gf_decode_pnm, gf_peek_pnm},
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
    if (n >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6'))
        return &formats[3];
    return NULL;
}

/* Counts a luma image into all three of rgb: a gray image's R, G and B. */
static void count_gray(const gf_image *im, uint32_t (*rgb)[256])
{
    for (int y = 0; y < im->height; y++)
        for (int x = 0; x < im->width; x++)
            rgb[0][im->data[(size_t)y * im->stride + x]]++;
    memcpy(rgb[1], rgb[0], sizeof rgb[0]);
    memcpy(rgb[2], rgb[0], sizeof rgb[0]);
}

int gf_decode_rgb(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256])
{
    const format *f = sniff(buf, len);
    int rc;

    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    info->orientation = 1;
    if (len == 0)
        return gf_err(GF_EDATA, name, "empty file");
    if (!f)
        return gf_err(GF_EDATA, name,
                      "unknown image format (PNG, JPEG, BMP, PGM and PPM are read)");
    if (rgb)
        memset(rgb, 0, 3 * sizeof rgb[0]);
    rc = f->decode(name, buf, len, lim, out, info, rgb);
    if (rc)
        gf_image_free(out);
    else if (rgb && info->channels <= 2)
        count_gray(out, rgb);
    return rc;
}

int gf_decode(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
              gf_image *out, gf_load_info *info)
{
    return gf_decode_rgb(name, buf, len, lim, out, info, NULL);
}

int gf_peek_size(const unsigned char *buf, size_t len, int *width, int *height)
{
    const format *f = sniff(buf, len);
    return f ? f->peek(buf, len, width, height) : -1;
}

int gf_load(const char *path, const gf_limits *lim, gf_image *out, gf_load_info *info)
{
    unsigned char *buf;
    size_t len;
    int rc = gf_read_all(path, lim, &buf, &len);

    if (rc)
        return rc;
    rc = gf_decode(strcmp(path, "-") ? path : "(stdin)", buf, len, lim, out, info);
    free(buf);
    return rc;
}
