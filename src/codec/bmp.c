/* bmp.c - BMP: decoded by stb_image (third_party/stb.c) once gpufilt's own
 * reading of the headers (Microsoft's BITMAPFILEHEADER and the
 * BITMAPCOREHEADER/INFOHEADER/V2-V5 layouts) has checked what stb does
 * not: the pixel data is all there, the palette fits its bit depth and the
 * file, palette indices are inside it, and the sizes are sane. Top-down
 * files (negative height) are read. The image is RGB, or RGBA where stb
 * finds an alpha mask (32-bit pixels; all-zero alpha is taken as opaque).
 * A BITMAPV5HEADER's embedded ICC profile is kept (read_icc). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../third_party/stb.h"
#include "formats.h"

typedef struct bmp_header {
    uint32_t offset;      /* where the pixel data starts */
    uint32_t hsz;         /* DIB header size */
    int64_t w, h;         /* h < 0: top-down */
    unsigned bpp;         /* bits per pixel */
    uint32_t compression; /* 0 BI_RGB, 3 BI_BITFIELDS */
    uint32_t colors;      /* palette entries stored */
} bmp_header;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned le16(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* Reads and checks the headers; returns 0 or an error message. */
static const char *parse(const unsigned char *b, size_t len, bmp_header *h)
{
    size_t pal_start, entry;

    memset(h, 0, sizeof *h);
    if (len < 26 || b[0] != 'B' || b[1] != 'M')
        return "BMP header cut short";
    h->offset = le32(b + 10);
    h->hsz = le32(b + 14);
    if (h->hsz != 12 && h->hsz != 40 && h->hsz != 56 && h->hsz != 108 && h->hsz != 124)
        return "BMP header of an unsupported kind";
    if (len < 14 + (size_t)h->hsz)
        return "BMP header cut short";
    if (h->hsz == 12) {
        h->w = le16(b + 18);
        h->h = (int16_t)le16(b + 20);
        if (le16(b + 22) != 1)
            return "BMP with more than one plane";
        h->bpp = le16(b + 24);
    } else {
        h->w = (int32_t)le32(b + 18);
        h->h = (int32_t)le32(b + 22);
        if (le16(b + 26) != 1)
            return "BMP with more than one plane";
        h->bpp = le16(b + 28);
        h->compression = le32(b + 30);
        h->colors = le32(b + 46);
    }
    if (h->bpp != 1 && h->bpp != 4 && h->bpp != 8 && h->bpp != 16 && h->bpp != 24 && h->bpp != 32)
        return "BMP of an unsupported bit depth";
    if (h->compression == 1 || h->compression == 2)
        return "run-length encoded BMP is not read";
    if (h->compression != 0 && !(h->compression == 3 && (h->bpp == 16 || h->bpp == 32)))
        return "BMP compression not supported";
    if (h->compression == 3 && h->hsz == 40 && len < 14 + 40 + 12)
        return "BMP header cut short";
    if (h->bpp <= 8) {
        /* the palette lies between the headers (and bitfield masks) and the
         * pixels; entries are 3 bytes in the core header, else 4 */
        pal_start = 14 + (size_t)h->hsz;
        entry = h->hsz == 12 ? 3 : 4;
        if (h->offset < pal_start)
            return "BMP palette missing";
        size_t stored = (h->offset - pal_start) / entry;
        /* biClrUsed: 0 for the full 2^bpp colours; never more than those,
         * nor than the file holds before the pixels */
        if (h->colors > (1u << h->bpp))
            return "BMP palette larger than its bit depth allows";
        if (h->colors > stored)
            return "BMP palette larger than the space before its pixels";
        if (h->colors == 0)
            h->colors = (uint32_t)(stored < (1u << h->bpp) ? stored : (1u << h->bpp));
        if (h->colors == 0)
            return "BMP palette missing";
    } else if (h->colors) {
        /* an optional palette for displays: it too must fit before the pixels */
        pal_start = 14 + (size_t)h->hsz + (h->compression == 3 && h->hsz == 40 ? 12 : 0);
        if (h->offset < pal_start || h->colors > (h->offset - pal_start) / 4)
            return "BMP palette larger than the space before its pixels";
    }
    return NULL;
}

int gf_bmp_sniff(const unsigned char *buf, size_t len)
{
    return len >= 2 && buf[0] == 'B' && buf[1] == 'M';
}

int gf_peek_bmp(const unsigned char *buf, size_t len, gf_shape *s)
{
    bmp_header hd;

    if (parse(buf, len, &hd) || hd.w < 1 || hd.h == 0 || hd.w > GF_MAX_DIM ||
        hd.h > GF_MAX_DIM || hd.h < -GF_MAX_DIM)
        return -1;
    s->width = (int)hd.w;
    s->height = (int)(hd.h < 0 ? -hd.h : hd.h);
    s->channels = hd.bpp == 32 ? 4 : 3;
    s->bits = 8;
    return 0;
}

/* The largest palette index the pixel rows use (bpp <= 8). */
static unsigned max_index(const unsigned char *px, size_t rowbytes, int w, int h, unsigned bpp)
{
    unsigned m = 0;

    for (int y = 0; y < h; y++) {
        const unsigned char *row = px + (size_t)y * rowbytes;
        for (int x = 0; x < w; x++) {
            unsigned v = bpp == 8 ? row[x]
                                  : (row[(size_t)x * bpp / 8] >> (8 - bpp - (x * bpp) % 8)) &
                                        ((1u << bpp) - 1);
            m = v > m ? v : m;
        }
    }
    return m;
}

#define V5_HEADER 124              /* BITMAPV5HEADER's bytes */
#define PROFILE_EMBEDDED 0x4d424544u /* bV5CSType 'MBED': an ICC profile in the file */
#define PROFILE_LINKED 0x4c494e4bu   /* 'LINK': a profile's file name */

/* A BITMAPV5HEADER's ICC profile (bV5CSType PROFILE_EMBEDDED; bV5ProfileData
 * counts from the header's start, bV5ProfileSize bytes) kept in info->meta
 * by meta.h's checks, or dropped with a warning: a linked profile (a file
 * name), one larger than 16 MiB or past the end of the file. */
static int read_icc(const char *name, const unsigned char *buf, size_t len, const bmp_header *h,
                    gf_load_info *info)
{
    uint32_t type, at, size;
    char why[120];

    if (h->hsz != V5_HEADER)
        return 0;
    type = le32(buf + 14 + 56);
    at = le32(buf + 14 + 112);
    size = le32(buf + 14 + 116);
    if (type == PROFILE_LINKED) {
        gf_meta_warn(name, "ICC profile dropped: the BMP links to a profile's file, which is "
                           "not read");
        return 0;
    }
    if (type != PROFILE_EMBEDDED)
        return 0;
    if (size > GF_MAX_ICC_BYTES)
        snprintf(why, sizeof why, "ICC profile dropped: larger than 16 MiB (%u bytes)", size);
    else if ((uint64_t)14 + at + size > len)
        snprintf(why, sizeof why, "ICC profile dropped: its %u bytes lie past the end of the file",
                 size);
    else
        return gf_meta_keep_icc(&info->meta, name, buf + 14 + at, size);
    gf_meta_warn(name, why);
    return 0;
}

int gf_decode_bmp(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info)
{
    bmp_header hd;
    const char *why = parse(buf, len, &hd);
    int w, h, comp, rc;
    unsigned char *px;
    size_t rowbytes, need;

    info->format = "bmp";
    if (why)
        return gf_err(GF_EDATA, name, "%s", why);
    /* checked as RGBA: stb decodes up to 4 bytes a pixel */
    if ((rc = gf_check_size(name, "BMP", hd.w < 0 ? 0 : (uint64_t)hd.w,
                            hd.h < 0 ? (uint64_t)-hd.h : (uint64_t)hd.h, 4, 8, lim)))
        return rc;
    w = (int)hd.w;
    h = (int)(hd.h < 0 ? -hd.h : hd.h);
    rowbytes = ((size_t)w * hd.bpp + 31) / 32 * 4;
    need = rowbytes * (size_t)h;
    if (hd.offset > len || len - hd.offset < need)
        return gf_err(GF_EDATA, name, "BMP pixel data cut short: %zu of %zu bytes",
                      hd.offset > len ? (size_t)0 : len - hd.offset, need);
    if (hd.bpp <= 8 && max_index(buf + hd.offset, rowbytes, w, h, hd.bpp) >= hd.colors)
        return gf_err(GF_EDATA, name, "BMP palette index outside its %u colours", hd.colors);
    if (len > 0x7fffffff)
        return gf_err(GF_EDATA, name, "BMP file too large to decode");
    px = gf_stb_load(buf, (int)len, &w, &h, &comp);
    if (!px)
        return gf_err(GF_EDATA, name, "cannot decode BMP: %s", gf_stb_failure());
    if ((rc = gf_image_alloc(out, w, h, comp, 8)) == 0)
        memcpy(out->data, px, (size_t)w * h * (size_t)comp); /* stride == w * comp */
    free(px);
    if (rc == 0 && (flags & GF_DECODE_META))
        rc = read_icc(name, buf, len, &hd, info);
    return rc;
}
