/* pnm.c - binary PNM and PAM, read and written here: PGM (P5) and PPM (P6)
 * as netpbm's pgm(5) and ppm(5) define them (header tokens separated by
 * whitespace and '#' comments, then one whitespace byte, then the samples,
 * two bytes big-endian each when maxval > 255), and PAM (P7) as pam(5)
 * does (header lines WIDTH, HEIGHT, DEPTH, MAXVAL, TUPLTYPE, ENDHDR). A
 * sample above maxval is an error, as netpbm treats it; so is pixel data
 * cut short. stb_image's PNM reader ignores maxval and has no PAM, so it is
 * not used (third_party/README.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"

#define MAX_TOKEN 100000000ul /* no header number is longer than this */

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* Skips whitespace and '#' comments from *pos. */
static void skip_space(const unsigned char *buf, size_t len, size_t *pos)
{
    size_t p = *pos;
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
    *pos = p;
}

static int token(const unsigned char *buf, size_t len, size_t *pos, unsigned long *val)
{
    size_t p = *pos;
    unsigned long v = 0;
    int digits = 0;

    skip_space(buf, len, &p);
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

/* A word of a PAM header (letters, digits, '_'), into w (n bytes). */
static int word(const unsigned char *buf, size_t len, size_t *pos, char *w, size_t n)
{
    size_t p = *pos, k = 0;

    skip_space(buf, len, &p);
    while (p < len && !is_space(buf[p]) && buf[p] != '#') {
        if (k + 1 >= n)
            return -1;
        w[k++] = (char)buf[p++];
    }
    w[k] = 0;
    *pos = p;
    return k ? 0 : -1;
}

/* What a PNM or PAM header says. */
typedef struct pnm_header {
    unsigned long w, h, depth, maxval;
    int channels;    /* decoded: 1 to 4 */
    size_t data;     /* where the samples start */
    const char *fmt; /* "PGM", "PPM", "PAM" */
} pnm_header;

/* PAM tuple types and the channels each gives. */
static const struct {
    const char *name;
    int channels;
} tuple_types[] = {{"GRAYSCALE", 1},       {"BLACKANDWHITE", 1}, {"GRAYSCALE_ALPHA", 2},
                   {"BLACKANDWHITE_ALPHA", 2}, {"RGB", 3},        {"RGB_ALPHA", 4}};

/* P7: lines of a name and its value up to ENDHDR. NULL, or what is wrong. */
static const char *parse_pam(const unsigned char *buf, size_t len, pnm_header *hd)
{
    size_t pos = 2;
    char name[32], tt[32] = "";
    int seen = 0;

    for (;;) {
        if (word(buf, len, &pos, name, sizeof name))
            return "corrupt PAM header";
        if (!strcmp(name, "ENDHDR"))
            break;
        unsigned long *v = !strcmp(name, "WIDTH")    ? &hd->w
                           : !strcmp(name, "HEIGHT") ? &hd->h
                           : !strcmp(name, "DEPTH")  ? &hd->depth
                           : !strcmp(name, "MAXVAL") ? &hd->maxval
                                                     : NULL;
        if (v) {
            if (token(buf, len, &pos, v))
                return "corrupt PAM header";
            seen |= v == &hd->w ? 1 : v == &hd->h ? 2 : v == &hd->depth ? 4 : 8;
        } else if (!strcmp(name, "TUPLTYPE")) {
            if (word(buf, len, &pos, tt, sizeof tt))
                return "corrupt PAM header";
        } else {
            return "corrupt PAM header";
        }
    }
    /* ENDHDR ends its line */
    while (pos < len && buf[pos] != '\n')
        if (!is_space(buf[pos++]))
            return "corrupt PAM header";
    if (pos >= len || seen != 15)
        return "corrupt PAM header";
    hd->data = pos + 1;
    hd->channels = 0;
    for (size_t i = 0; i < sizeof tuple_types / sizeof tuple_types[0]; i++)
        if (!strcmp(tt, tuple_types[i].name))
            hd->channels = tuple_types[i].channels;
    if (!tt[0] && hd->depth >= 1 && hd->depth <= 4)
        hd->channels = (int)hd->depth; /* no tuple type: by the depth */
    if (!hd->channels)
        return "PAM tuple type is not GRAYSCALE, GRAYSCALE_ALPHA, RGB or RGB_ALPHA";
    if ((unsigned long)hd->channels != hd->depth)
        return "PAM depth does not match its tuple type";
    return NULL;
}

/* "PGM", "PPM" or "PAM" for a buffer that starts P5, P6 or P7. */
static const char *label(const unsigned char *buf)
{
    return buf[1] == '7' ? "PAM" : buf[1] == '6' ? "PPM" : "PGM";
}

/* Reads the header of a P5, P6 or P7 file. NULL, or what is wrong. */
static const char *parse(const unsigned char *buf, size_t len, pnm_header *hd)
{
    size_t pos = 2;

    memset(hd, 0, sizeof *hd);
    if (len < 3 || buf[0] != 'P' || buf[1] < '5' || buf[1] > '7')
        return "not a binary PGM, PPM or PAM file";
    hd->fmt = label(buf);
    if (buf[1] == '7')
        return parse_pam(buf, len, hd);
    hd->channels = hd->depth = buf[1] == '6' ? 3 : 1;
    if (token(buf, len, &pos, &hd->w) || token(buf, len, &pos, &hd->h) ||
        token(buf, len, &pos, &hd->maxval) || pos >= len || !is_space(buf[pos]))
        return buf[1] == '6' ? "corrupt PPM header" : "corrupt PGM header";
    hd->data = pos + 1;
    return NULL;
}

/* 1 when buf starts with the magic number P<kind> (the header after it is
 * the decoder's to judge). */
static int magic(const unsigned char *buf, size_t len, char kind)
{
    return len >= 2 && buf[0] == 'P' && buf[1] == kind;
}

int gf_pgm_sniff(const unsigned char *buf, size_t len)
{
    return magic(buf, len, '5');
}

int gf_ppm_sniff(const unsigned char *buf, size_t len)
{
    return magic(buf, len, '6');
}

int gf_pam_sniff(const unsigned char *buf, size_t len)
{
    return magic(buf, len, '7');
}

int gf_peek_pnm(const unsigned char *buf, size_t len, gf_shape *s)
{
    pnm_header hd;

    if (parse(buf, len, &hd) || hd.w < 1 || hd.h < 1 || hd.w > GF_MAX_DIM || hd.h > GF_MAX_DIM ||
        hd.maxval < 1 || hd.maxval > 65535)
        return -1;
    s->width = (int)hd.w;
    s->height = (int)hd.h;
    s->channels = hd.channels;
    s->bits = gf_maxval_bits((unsigned)hd.maxval);
    return 0;
}

int gf_decode_pnm(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info)
{
    pnm_header hd;
    const char *why = parse(buf, len, &hd);
    size_t need, bps, row;
    int bits, rc;
    (void)flags;

    if (why)
        return gf_err(GF_EDATA, name, "%s", why);
    info->format = buf[1] == '5' ? "pgm" : buf[1] == '6' ? "ppm" : "pam"; /* parse saw P5-P7 */
    if (hd.maxval < 1 || hd.maxval > 65535)
        return gf_err(GF_EDATA, name, "%s maxval %lu is not in 1..65535", hd.fmt, hd.maxval);
    bits = gf_maxval_bits((unsigned)hd.maxval);
    if ((rc = gf_check_size(name, hd.fmt, hd.w, hd.h, hd.channels, bits, lim)))
        return rc;
    bps = hd.maxval > 255 ? 2 : 1; /* bytes a sample in the file */
    row = (size_t)hd.w * (size_t)hd.channels;
    need = row * hd.h * bps;
    if (len - hd.data < need)
        return gf_err(GF_EDATA, name, "%s pixel data cut short: %zu of %zu bytes", hd.fmt,
                      len - hd.data, need);
    if ((rc = gf_image_alloc(out, (int)hd.w, (int)hd.h, hd.channels, bits)))
        return rc;
    for (unsigned long y = 0; y < hd.h; y++)
        if (gf_scale_samples(buf + hd.data + (size_t)y * row * bps, (int)bps * 8, 1,
                             (unsigned)hd.maxval, row, out->data + (size_t)y * out->stride, bits))
            return gf_err(GF_EDATA, name, "%s sample above maxval %lu in row %lu", hd.fmt,
                          hd.maxval, y);
    return 0;
}

int gf_encode_pnm(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    const gf_format f = o->format; /* GF_FMT_PGM, GF_FMT_PPM or GF_FMT_PAM */
    static const char *const tuple[5] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    const unsigned max = gf_sample_max(im->bits);
    const size_t row = (size_t)im->width * GF_PIXEL_BYTES(im->channels, im->bits);
    char hdr[160];
    int hl = f == GF_FMT_PAM
                 ? snprintf(hdr, sizeof hdr,
                            "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %u\nTUPLTYPE %s\nENDHDR\n",
                            im->width, im->height, im->channels, max, tuple[im->channels])
                 : snprintf(hdr, sizeof hdr, "P%c\n%d %d\n%u\n", f == GF_FMT_PPM ? '6' : '5',
                            im->width, im->height, max);
    size_t total = (size_t)hl + row * (size_t)im->height;
    unsigned char *b = malloc(total);

    if (!b)
        return gf_err(GF_EINTERNAL, NULL, "out of memory encoding %s",
                      f == GF_FMT_PAM ? "PAM" : f == GF_FMT_PPM ? "PPM" : "PGM");
    memcpy(b, hdr, (size_t)hl);
    for (int y = 0; y < im->height; y++) {
        const unsigned char *src = im->data + (size_t)y * im->stride;
        unsigned char *dst = b + hl + (size_t)y * row;
        if (im->bits == 8) {
            memcpy(dst, src, row);
        } else { /* big-endian in the file */
            const uint16_t *s16 = (const uint16_t *)(const void *)src;
            for (size_t i = 0; i < row / 2; i++) {
                dst[2 * i] = (unsigned char)(s16[i] >> 8);
                dst[2 * i + 1] = (unsigned char)s16[i];
            }
        }
    }
    *out = b;
    *len = total;
    return 0;
}
