/* png.c - PNG: decoded by libspng (Debian libspng-dev), row by row into
 * luma; encoded by stb_image_write with gpufilt's deflate
 * (third_party/stb.c). libspng checks every chunk's CRC, the IDAT stream's
 * Adler-32, palette indices against PLTE and tRNS against the colour type;
 * third_party/README.md says why it replaced stb_image for PNG. */
#include <stdlib.h>
#include <string.h>

#include <spng.h>

#include "../../third_party/stb.h"
#include "formats.h"

/* Ancillary chunks: any one at most this large, all of them (text, ICC
 * profiles, EXIF) at most CACHE_LIMIT in memory; the image data is not
 * limited by them. */
#define CHUNK_LIMIT (16u << 20)
#define CACHE_LIMIT (64u << 20)

int gf_peek_png(const unsigned char *buf, size_t len, int *w, int *h)
{
    if (len < 24 || memcmp(buf + 12, "IHDR", 4))
        return -1;
    uint32_t ww = (uint32_t)buf[16] << 24 | buf[17] << 16 | buf[18] << 8 | buf[19];
    uint32_t hh = (uint32_t)buf[20] << 24 | buf[21] << 16 | buf[22] << 8 | buf[23];
    if (ww < 1 || hh < 1 || ww > GF_MAX_DIM || hh > GF_MAX_DIM)
        return -1;
    *w = (int)ww;
    *h = (int)hh;
    return 0;
}

static int spng_error(const char *name, int e)
{
    if (e == SPNG_EMEM)
        return gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
    return gf_err(GF_EDATA, name, "cannot decode PNG: %s", spng_strerror(e));
}

/* Samples per pixel of a PNG colour type, as decoded (palette as RGB). */
static int channels_of(int color_type)
{
    switch (color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE: return 1;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: return 2;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: return 4;
    default: return 3; /* truecolor, indexed */
    }
}

/* An indexed row as stored (1, 2, 4 or 8 bits an index, packed from the
 * high bits) into luma through the palette; -1 when an index is outside it
 * (the PNG specification makes that an error; libspng would give black). */
static int indexed_to_luma(const struct spng_ihdr *ih, const struct spng_plte *pal,
                           const unsigned char *row, unsigned char *dst, uint32_t (*rgb)[256])
{
    const unsigned d = ih->bit_depth, mask = (1u << d) - 1;

    for (uint32_t x = 0; x < ih->width; x++) {
        unsigned i = d == 8 ? row[x] : (row[(size_t)x * d / 8] >> (8 - d - x * d % 8)) & mask;
        if (i >= pal->n_entries)
            return -1;
        const struct spng_plte_entry *e = &pal->entries[i];
        dst[x] = (unsigned char)((77u * e->red + 150u * e->green + 29u * e->blue) >> 8);
        if (rgb) {
            rgb[0][e->red]++;
            rgb[1][e->green]++;
            rgb[2][e->blue]++;
        }
    }
    return 0;
}

/* One decoded row (in the format chosen below) into luma; -1 for a bad
 * palette index. */
static int row_to_luma(const struct spng_ihdr *ih, const struct spng_plte *pal,
                       const unsigned char *row, unsigned char *dst, uint32_t (*rgb)[256])
{
    const int ch = channels_of(ih->color_type);

    if (ih->color_type == SPNG_COLOR_TYPE_INDEXED)
        return indexed_to_luma(ih, pal, row, dst, rgb);
    if (ih->color_type == SPNG_COLOR_TYPE_GRAYSCALE && ih->bit_depth <= 8) {
        memcpy(dst, row, ih->width); /* SPNG_FMT_G8 */
        return 0;
    }
    if (ih->bit_depth == 16)
        return gf_luma_row16(row, 1, ch, 65535, ih->width, dst, rgb);
    return gf_luma_row8(row, ch, 255, ih->width, dst, rgb);
}

/* Adam7: each pass's first column and row, and steps (PNG specification,
 * 8.2). */
static const unsigned char adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                          {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};

/* An interlaced indexed image: libspng 0.7 deinterlaces packed indices of
 * fewer than 8 bits wrongly, so the passes' scanlines are read raw and put
 * in place here, one index a byte, then mapped through the palette. */
static int decode_indexed_interlaced(spng_ctx *ctx, const struct spng_ihdr *ih,
                                     const struct spng_plte *pal, gf_image *out,
                                     uint32_t (*rgb)[256], const char *name)
{
    const unsigned d = ih->bit_depth, mask = (1u << d) - 1;
    const size_t line = ((size_t)ih->width * d + 7) / 8;
    unsigned char *sl = malloc(line + 1), *idx = malloc((size_t)ih->width * ih->height);
    struct spng_ihdr row8 = *ih;
    int e = 0, rc = 0;

    row8.bit_depth = 8;
    if (!sl || !idx) {
        rc = gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
        goto out;
    }
    for (;;) {
        struct spng_row_info ri;
        if ((e = spng_get_row_info(ctx, &ri)))
            break;
        e = spng_decode_scanline(ctx, sl, line);
        if (e && e != SPNG_EOI)
            break;
        const unsigned x0 = adam7[ri.pass][0], dx = adam7[ri.pass][2];
        for (uint32_t j = 0, x = x0; x < ih->width; j++, x += dx)
            idx[(size_t)ri.row_num * ih->width + x] =
                d == 8 ? sl[j] : (sl[(size_t)j * d / 8] >> (8 - d - j * d % 8)) & mask;
        if (e == SPNG_EOI)
            break;
    }
    if (e != SPNG_EOI) {
        rc = spng_error(name, e);
        goto out;
    }
    for (uint32_t y = 0; y < ih->height; y++)
        if (indexed_to_luma(&row8, pal, idx + (size_t)y * ih->width,
                            out->data + (size_t)y * out->stride, rgb)) {
            rc = gf_err(GF_EDATA, name, "PNG palette index outside its %u colours",
                        pal->n_entries);
            goto out;
        }
out:
    free(sl);
    free(idx);
    return rc;
}

int gf_decode_png(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  gf_image *out, gf_load_info *info, uint32_t (*rgb)[256])
{
    spng_ctx *ctx = spng_ctx_new(0);
    struct spng_ihdr ih;
    struct spng_plte pal = {0};
    unsigned char *rows = NULL;
    size_t size, rowbytes;
    int e, fmt, rc = 0;

    if (!ctx)
        return gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
    info->format = "png";
    if ((e = spng_set_image_limits(ctx, GF_MAX_DIM, GF_MAX_DIM)) ||
        (e = spng_set_chunk_limits(ctx, CHUNK_LIMIT, CACHE_LIMIT)) ||
        (e = spng_set_png_buffer(ctx, buf, len)) || (e = spng_get_ihdr(ctx, &ih))) {
        rc = e == SPNG_EUSER_WIDTH || e == SPNG_EUSER_HEIGHT || e == SPNG_EWIDTH ||
                     e == SPNG_EHEIGHT
                 ? gf_check_size(name, "PNG", (uint64_t)GF_MAX_DIM + 1, 1, lim)
                 : spng_error(name, e);
        goto out;
    }
    if ((rc = gf_check_size(name, "PNG", ih.width, ih.height, lim)))
        goto out;
    info->channels = channels_of(ih.color_type);
    info->bits = ih.bit_depth == 16 ? 16 : 8;
    if (ih.color_type == SPNG_COLOR_TYPE_INDEXED && (e = spng_get_plte(ctx, &pal))) {
        rc = spng_error(name, e);
        goto out;
    }
    /* gray of up to 8 bits comes as 8-bit gray (low depths scaled up by bit
     * replication), palette indices as stored, everything else as stored */
    fmt = ih.color_type == SPNG_COLOR_TYPE_GRAYSCALE && ih.bit_depth <= 8 ? SPNG_FMT_G8
          : ih.color_type == SPNG_COLOR_TYPE_INDEXED                       ? SPNG_FMT_PNG
                                                                           : SPNG_FMT_RAW;
    if ((e = spng_decoded_image_size(ctx, fmt, &size)) ||
        (e = spng_decode_image(ctx, NULL, 0, fmt, SPNG_DECODE_PROGRESSIVE))) {
        rc = spng_error(name, e);
        goto out;
    }
    if (ih.interlace_method && ih.color_type == SPNG_COLOR_TYPE_INDEXED) {
        if ((rc = gf_image_alloc(out, (int)ih.width, (int)ih.height)) == 0 &&
            (rc = decode_indexed_interlaced(ctx, &ih, &pal, out, rgb, name)) == 0 &&
            (e = spng_decode_chunks(ctx)))
            rc = spng_error(name, e);
        goto out;
    }
    rowbytes = size / ih.height;
    /* an interlaced image arrives pass by pass, so it is kept whole */
    rows = malloc(ih.interlace_method ? size : rowbytes);
    if (!rows || (rc = gf_image_alloc(out, (int)ih.width, (int)ih.height))) {
        rc = rc ? rc : gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
        goto out;
    }
    for (;;) {
        struct spng_row_info ri;
        unsigned char *row = rows;
        if ((e = spng_get_row_info(ctx, &ri)))
            break;
        if (ih.interlace_method)
            row += (size_t)ri.row_num * rowbytes;
        if ((e = spng_decode_row(ctx, row, rowbytes)) && e != SPNG_EOI)
            break;
        if (!ih.interlace_method &&
            row_to_luma(&ih, &pal, row, out->data + (size_t)ri.row_num * out->stride, rgb)) {
            rc = gf_err(GF_EDATA, name, "PNG palette index outside its %u colours",
                        pal.n_entries);
            goto out;
        }
        if (e == SPNG_EOI)
            break;
    }
    if (e != SPNG_EOI) {
        rc = spng_error(name, e);
        goto out;
    }
    for (uint32_t y = 0; ih.interlace_method && y < ih.height; y++)
        if (row_to_luma(&ih, &pal, rows + (size_t)y * rowbytes,
                        out->data + (size_t)y * out->stride, rgb)) {
            rc = gf_err(GF_EDATA, name, "PNG palette index outside its %u colours",
                        pal.n_entries);
            goto out;
        }
    /* the chunks after the image, up to IEND, must be whole too */
    if ((e = spng_decode_chunks(ctx)))
        rc = spng_error(name, e);
out:
    free(rows);
    spng_ctx_free(ctx);
    return rc;
}

int gf_encode_png(const gf_image *im, int level, unsigned char **out, size_t *len)
{
    int n = 0;

    *out = gf_stb_png_encode(im->data, (int)im->stride, im->width, im->height, level, &n);
    if (!*out)
        return gf_err(GF_EINTERNAL, NULL, "PNG encoding failed (out of memory)");
    *len = (size_t)n;
    return 0;
}
