/* pnm.c - binary PNM, read and written here: PGM (P5) and PPM (P6) as
 * netpbm's pgm(5) and ppm(5) define them: header tokens separated by
 * whitespace and '#' comments, then one whitespace byte, then the samples,
 * two bytes big-endian each when maxval > 255. A sample above maxval is an
 * error, as netpbm treats it; so is pixel data cut short. stb_image's PNM
 * reader ignores maxval, so it is not used (third_party/README.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"

#define MAX_TOKEN 100000000ul /* no header number is longer than this */

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static int token(const unsigned char *buf, size_t len, size_t *pos, unsigned long *val)
{
    size_t p = *pos;
    unsigned long v = 0;
    int digits = 0;

    for (;;) {
        while (p < len && is_space(buf[p]))
            p++;
        if (p < len && buf[p] == '#') {
            while (p < len && buf[p] != '\n' && buf[p] != '\r')
                p++;
            continue;
        }
        break;
    }
    while (p < len && buf[p] >= '0' && buf[p] <= '9') {
        if (v > MAX_TOKEN)
            return -1;
        v = v * 10 + (unsigned long)(buf[p++] - '0');
        digits++;
    }
    if (!digits)
        return -1;
    *pos = p;
    *val = v;
    return 0;
}

int gf_peek_pnm(const unsigned char *buf, size_t len, int *w, int *h)
{
    unsigned long ww, hh;
    size_t pos = 2;

    if (len < 3 || token(buf, len, &pos, &ww) || token(buf, len, &pos, &hh) || ww < 1 || hh < 1 ||
        ww > GF_MAX_DIM || hh > GF_MAX_DIM)
        return -1;
    *w = (int)ww;
    *h = (int)hh;
    return 0;
}

int gf_decode_pnm(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256])
{
    unsigned long w, h, maxval;
    size_t pos = 2, need, bps;
    int channels, rc;
    const char *fmt;

    if (len < 3 || buf[0] != 'P' || (buf[1] != '5' && buf[1] != '6'))
        return gf_err(GF_EDATA, name, "not a binary PGM or PPM file");
    channels = buf[1] == '6' ? 3 : 1;
    fmt = channels == 1 ? "PGM" : "PPM";
    info->format = channels == 1 ? "pgm" : "ppm";
    if (token(buf, len, &pos, &w) || token(buf, len, &pos, &h) ||
        token(buf, len, &pos, &maxval) || pos >= len || !is_space(buf[pos]))
        return gf_err(GF_EDATA, name, "corrupt %s header", fmt);
    pos++;
    if (maxval < 1 || maxval > 65535)
        return gf_err(GF_EDATA, name, "%s maxval %lu is not in 1..65535", fmt, maxval);
    if ((rc = gf_check_size(name, fmt, w, h, lim)))
        return rc;
    info->channels = channels;
    info->bits = maxval > 255 ? 16 : 8;
    bps = (size_t)(info->bits / 8);
    need = (size_t)w * h * (size_t)channels * bps;
    if (len - pos < need)
        return gf_err(GF_EDATA, name, "%s pixel data cut short: %zu of %zu bytes", fmt, len - pos,
                      need);
    if ((rc = gf_image_alloc(out, (int)w, (int)h)))
        return rc;
    for (unsigned long y = 0; y < h; y++) {
        const unsigned char *row = buf + pos + (size_t)y * w * channels * bps;
        int bad = info->bits == 8
                      ? gf_luma_row8(row, channels, (unsigned)maxval, w, out->data + y * w, rgb)
                      : gf_luma_row16(row, 1, channels, (unsigned)maxval, w, out->data + y * w,
                                      rgb);
        if (bad)
            return gf_err(GF_EDATA, name, "%s sample above maxval %lu in row %lu", fmt, maxval, y);
    }
    return 0;
}

int gf_encode_pgm(const gf_image *im, unsigned char **out, size_t *len)
{
    char hdr[64];
    int hl = snprintf(hdr, sizeof hdr, "P5\n%d %d\n255\n", im->width, im->height);
    size_t total = (size_t)hl + (size_t)im->width * (size_t)im->height;
    unsigned char *b = malloc(total);

    if (!b)
        return gf_err(GF_EINTERNAL, NULL, "out of memory encoding PGM");
    memcpy(b, hdr, (size_t)hl);
    for (int y = 0; y < im->height; y++)
        memcpy(b + hl + (size_t)y * im->width, im->data + (size_t)y * im->stride,
               (size_t)im->width);
    *out = b;
    *len = total;
    return 0;
}
