/* png.c - PNG: decoded by libspng (Debian libspng-dev), row by row, into
 * the file's own layout; encoded here, any layout, with libdeflate or, for
 * large images in parallel segments, zlib. libspng checks every chunk's CRC, the IDAT stream's
 * Adler-32, palette indices against PLTE and tRNS against the colour type;
 * third_party/README.md says why it replaced stb_image for PNG. */
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <spng.h>
#include <zlib.h>

#include "formats.h"

/* Ancillary chunks: any one at most this large, all of them (text, ICC
 * profiles, EXIF) at most CACHE_LIMIT in memory; the image data is not
 * limited by them. */
#define CHUNK_LIMIT (16u << 20)
#define CACHE_LIMIT (64u << 20)

/* PNG colour types' channels (a palette as RGB). */
static const unsigned char type_channels[7] = {1, 0, 3, 3, 2, 0, 4};

int gf_peek_png(const unsigned char *buf, size_t len, gf_shape *s)
{
    if (len < 26 || memcmp(buf + 12, "IHDR", 4) || buf[25] > 6 || !type_channels[buf[25]])
        return -1;
    uint32_t ww = (uint32_t)buf[16] << 24 | buf[17] << 16 | buf[18] << 8 | buf[19];
    uint32_t hh = (uint32_t)buf[20] << 24 | buf[21] << 16 | buf[22] << 8 | buf[23];
    if (ww < 1 || hh < 1 || ww > GF_MAX_DIM || hh > GF_MAX_DIM)
        return -1;
    s->width = (int)ww;
    s->height = (int)hh;
    s->channels = type_channels[buf[25]];
    s->bits = buf[24] == 16 ? 16 : 8;
    return 0;
}

static int spng_error(const char *name, int e)
{
    if (e == SPNG_EMEM)
        return gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
    return gf_err(GF_EDATA, name, "cannot decode PNG: %s", spng_strerror(e));
}

/* Samples per pixel of a PNG colour type as stored (a palette index: 1). */
static int stored_channels(int color_type)
{
    switch (color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE: return 1;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA: return 2;
    case SPNG_COLOR_TYPE_TRUECOLOR: return 3;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA: return 4;
    default: return 1;
    }
}

/* What a PNG decodes to: its stored colour type's channels, a palette as
 * RGB, plus alpha when a tRNS chunk gives gray, RGB or a palette one. */
typedef struct png_layout {
    struct spng_ihdr ih;
    struct spng_plte pal;
    struct spng_trns trns;
    int has_trns;
    int channels, bits;
} png_layout;

static uint16_t be16(const unsigned char *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* The palette index of pixel x of a row as stored (1, 2, 4 or 8 bits an
 * index, packed from the high bits). */
static unsigned index_at(const unsigned char *row, uint32_t x, unsigned d)
{
    return d == 8 ? row[x] : (row[(size_t)x * d / 8] >> (8 - d - x * d % 8)) & ((1u << d) - 1);
}

/* One decoded row into the output's layout: indexed (as stored, `d` bits an
 * index) through the palette, tRNS as alpha, 16-bit samples from big-endian
 * to host order. -1 when an index is outside the palette (the PNG
 * specification makes that an error; libspng would give black). */
static int row_convert(const png_layout *L, const unsigned char *row, unsigned d,
                       unsigned char *dst)
{
    const uint32_t w = L->ih.width;
    const int sc = stored_channels(L->ih.color_type), ch = L->channels;
    uint16_t *d16 = (uint16_t *)(void *)dst;

    if (L->ih.color_type == SPNG_COLOR_TYPE_INDEXED) {
        for (uint32_t x = 0; x < w; x++) {
            const unsigned i = index_at(row, x, d);
            if (i >= L->pal.n_entries)
                return -1;
            const struct spng_plte_entry *e = &L->pal.entries[i];
            unsigned char *o = dst + (size_t)x * ch;
            o[0] = e->red, o[1] = e->green, o[2] = e->blue;
            if (ch == 4)
                o[3] = i < L->trns.n_type3_entries ? L->trns.type3_alpha[i] : 255;
        }
        return 0;
    }
    if (L->ih.color_type == SPNG_COLOR_TYPE_GRAYSCALE && L->ih.bit_depth <= 8) {
        /* SPNG_FMT_G8: low depths scaled by bit replication, as is tRNS's gray */
        const unsigned key = L->trns.gray * (255u / ((1u << L->ih.bit_depth) - 1));
        for (uint32_t x = 0; x < w; x++) {
            dst[(size_t)x * ch] = row[x];
            if (ch == 2)
                dst[(size_t)x * 2 + 1] = row[x] == key ? 0 : 255;
        }
        return 0;
    }
    for (uint32_t x = 0; x < w; x++) {
        for (int c = 0; c < sc; c++) {
            const size_t i = (size_t)x * sc + c, o = (size_t)x * ch + c;
            if (L->bits == 16)
                d16[o] = be16(row + 2 * i);
            else
                dst[o] = row[i];
        }
        if (ch > sc) { /* tRNS of gray or RGB: transparent where the stored colour is the key */
            const size_t o = (size_t)x * ch + sc;
            int key;
            if (L->bits == 16)
                key = sc == 1 ? d16[o - 1] == L->trns.gray
                              : d16[o - 3] == L->trns.red && d16[o - 2] == L->trns.green &&
                                    d16[o - 1] == L->trns.blue;
            else
                key = sc == 1 ? dst[o - 1] == L->trns.gray
                              : dst[o - 3] == L->trns.red && dst[o - 2] == L->trns.green &&
                                    dst[o - 1] == L->trns.blue;
            if (L->bits == 16)
                d16[o] = key ? 0 : 65535;
            else
                dst[o] = key ? 0 : 255;
        }
    }
    return 0;
}

/* The error for a palette index outside the palette. */
static int bad_index(const char *name, const struct spng_plte *pal)
{
    return gf_err(GF_EDATA, name, "PNG palette index outside its %u colours", pal->n_entries);
}

/* Adam7: each pass's first column and row, and steps (PNG specification,
 * 8.2). */
static const unsigned char adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                          {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};

/* An interlaced indexed image: libspng 0.7 deinterlaces packed indices of
 * fewer than 8 bits wrongly, so the passes' scanlines are read raw and put
 * in place here, one index a byte, then mapped through the palette. */
static int decode_indexed_interlaced(spng_ctx *ctx, const png_layout *L, gf_image *out,
                                     const char *name)
{
    const unsigned d = L->ih.bit_depth;
    const size_t line = ((size_t)L->ih.width * d + 7) / 8;
    unsigned char *sl = malloc(line + 1), *idx = malloc((size_t)L->ih.width * L->ih.height);
    int e = 0, rc = 0;

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
        for (uint32_t j = 0, x = x0; x < L->ih.width; j++, x += dx)
            idx[(size_t)ri.row_num * L->ih.width + x] = (unsigned char)index_at(sl, j, d);
        if (e == SPNG_EOI)
            break;
    }
    if (e != SPNG_EOI) {
        rc = spng_error(name, e);
        goto out;
    }
    for (uint32_t y = 0; y < L->ih.height; y++)
        if (row_convert(L, idx + (size_t)y * L->ih.width, 8, out->data + (size_t)y * out->stride)) {
            rc = bad_index(name, &L->pal);
            goto out;
        }
out:
    free(sl);
    free(idx);
    return rc;
}

int gf_decode_png(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info)
{
    spng_ctx *ctx = spng_ctx_new(0);
    png_layout L;
    unsigned char *rows = NULL;
    size_t size, rowbytes;
    int e, fmt, rc = 0;
    (void)flags;

    memset(&L, 0, sizeof L);
    if (!ctx)
        return gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
    info->format = "png";
    if ((e = spng_set_image_limits(ctx, GF_MAX_DIM, GF_MAX_DIM)) ||
        (e = spng_set_chunk_limits(ctx, CHUNK_LIMIT, CACHE_LIMIT)) ||
        (e = spng_set_png_buffer(ctx, buf, len)) || (e = spng_get_ihdr(ctx, &L.ih))) {
        rc = e == SPNG_EUSER_WIDTH || e == SPNG_EUSER_HEIGHT || e == SPNG_EWIDTH ||
                     e == SPNG_EHEIGHT
                 ? gf_check_size(name, "PNG", (uint64_t)GF_MAX_DIM + 1, 1, 1, 8, lim)
                 : spng_error(name, e);
        goto out;
    }
    L.bits = L.ih.bit_depth == 16 ? 16 : 8;
    L.channels = L.ih.color_type == SPNG_COLOR_TYPE_INDEXED ? 3 : stored_channels(L.ih.color_type);
    /* the limits from the header alone, before any other chunk is read;
     * again below once tRNS may have added alpha */
    if ((rc = gf_check_size(name, "PNG", L.ih.width, L.ih.height, L.channels, L.bits, lim)))
        goto out;
    if (L.ih.color_type == SPNG_COLOR_TYPE_INDEXED && (e = spng_get_plte(ctx, &L.pal))) {
        rc = spng_error(name, e);
        goto out;
    }
    e = spng_get_trns(ctx, &L.trns);
    if (e && e != SPNG_ECHUNKAVAIL) {
        rc = spng_error(name, e);
        goto out;
    }
    L.has_trns = e == 0;
    if (L.has_trns && (L.channels == 1 || L.channels == 3))
        L.channels++;
    if ((rc = gf_check_size(name, "PNG", L.ih.width, L.ih.height, L.channels, L.bits, lim)))
        goto out;
    /* gray of up to 8 bits comes as 8-bit gray (low depths scaled up by bit
     * replication), palette indices as stored, everything else as stored */
    fmt = L.ih.color_type == SPNG_COLOR_TYPE_GRAYSCALE && L.ih.bit_depth <= 8 ? SPNG_FMT_G8
          : L.ih.color_type == SPNG_COLOR_TYPE_INDEXED                         ? SPNG_FMT_PNG
                                                                               : SPNG_FMT_RAW;
    if ((e = spng_decoded_image_size(ctx, fmt, &size)) ||
        (e = spng_decode_image(ctx, NULL, 0, fmt, SPNG_DECODE_PROGRESSIVE))) {
        rc = spng_error(name, e);
        goto out;
    }
    if ((rc = gf_image_alloc(out, (int)L.ih.width, (int)L.ih.height, L.channels, L.bits)))
        goto out;
    if (L.ih.interlace_method && L.ih.color_type == SPNG_COLOR_TYPE_INDEXED) {
        if ((rc = decode_indexed_interlaced(ctx, &L, out, name)) == 0 &&
            (e = spng_decode_chunks(ctx)))
            rc = spng_error(name, e);
        goto out;
    }
    rowbytes = size / L.ih.height;
    /* an interlaced image arrives pass by pass, so it is kept whole */
    rows = malloc(L.ih.interlace_method ? size : rowbytes);
    if (!rows) {
        rc = gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
        goto out;
    }
    for (;;) {
        struct spng_row_info ri;
        unsigned char *row = rows;
        if ((e = spng_get_row_info(ctx, &ri)))
            break;
        if (L.ih.interlace_method)
            row += (size_t)ri.row_num * rowbytes;
        if ((e = spng_decode_row(ctx, row, rowbytes)) && e != SPNG_EOI)
            break;
        if (!L.ih.interlace_method &&
            row_convert(&L, row, L.ih.bit_depth, out->data + (size_t)ri.row_num * out->stride)) {
            rc = bad_index(name, &L.pal);
            goto out;
        }
        if (e == SPNG_EOI)
            break;
    }
    if (e != SPNG_EOI) {
        rc = spng_error(name, e);
        goto out;
    }
    for (uint32_t y = 0; L.ih.interlace_method && y < L.ih.height; y++)
        if (row_convert(&L, rows + (size_t)y * rowbytes, L.ih.bit_depth,
                        out->data + (size_t)y * out->stride)) {
            rc = bad_index(name, &L.pal);
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

/* Encoding. Rows are filtered with Up (each byte minus the one above it),
 * which vectorises and is within 3% of Paeth's size on photos at 60% of its
 * time; the first row of each later segment (below) uses None. The filtered rows
 * of an image of at least SEGMENT_MIN_BYTES of them, at a level up to
 * SEGMENT_MAX_LEVEL, are deflated in segments of SEGMENT_BYTES in parallel
 * by zlib, each a raw deflate stream ended
 * with a sync flush (the last with the final block), joined into one zlib
 * stream as pigz does, one IDAT chunk each, the Adler-32 combined
 * (adler32_combine); all else by libdeflate in one piece. zlib deflates a
 * byte about 3.4 times slower than libdeflate at level 1 (15.6 against 4.6
 * ms per MB of a photo), so segments pay only for large images on several
 * cores: a batch's workers, one core each, and images below about 12 MP
 * take libdeflate. The choice depends only on the image's size and level,
 * so the bytes do not depend on the number of cores. */
#define SEGMENT_BYTES (1u << 20)
#define SEGMENT_MIN_BYTES (12u << 20)
#define SEGMENT_MAX_LEVEL 3 /* higher levels want the smallest file: libdeflate whole */
#define FILTER_NONE 0
#define FILTER_UP 2

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* Writes chunk `type` with its n bytes at dst (dst + 8 already holding the
 * data when data is NULL); returns its length. */
static size_t chunk(unsigned char *dst, const char *type, const unsigned char *data, size_t n)
{
    put32(dst, (uint32_t)n);
    memcpy(dst + 4, type, 4);
    if (data && n)
        memcpy(dst + 8, data, n);
    put32(dst + 8 + n, (uint32_t)libdeflate_crc32(0, dst + 4, n + 4));
    return n + 12;
}

/* Bytes of one of im's rows in the file (16-bit samples big-endian). */
static size_t row_bytes(const gf_image *im)
{
    return (size_t)im->width * GF_PIXEL_BYTES(im->channels, im->bits);
}

/* Rows [y0, y1) of im, filtered, into f (filter byte + row_bytes each).
 * 16-bit samples go big-endian, as PNG stores them, with Up taken on those
 * bytes. */
GF_CLONES static void filter_rows(const gf_image *im, int y0, int y1, unsigned char *restrict f)
{
    const size_t n = row_bytes(im);
    for (int y = y0; y < y1; y++, f += n + 1) {
        const unsigned char *restrict row = im->data + (size_t)y * im->stride;
        const unsigned char *restrict up = y > y0 ? row - im->stride : row;
        /* the image's first row is Up over an implicit row of zeros (the
         * bytes as they are); a later segment's first row is None */
        f[0] = y == y0 && y > 0 ? FILTER_NONE : FILTER_UP;
        if (im->bits == 16) {
            const uint16_t *restrict r16 = (const uint16_t *)(const void *)row,
                                     *restrict u16 = (const uint16_t *)(const void *)up;
            for (size_t i = 0; i < n / 2; i++) {
                const unsigned v = r16[i], u = y == y0 ? 0 : u16[i];
                f[1 + 2 * i] = (unsigned char)((v >> 8) - (u >> 8));
                f[2 + 2 * i] = (unsigned char)(v - u);
            }
        } else if (y == y0) {
            memcpy(f + 1, row, n);
        } else {
            for (size_t x = 0; x < n; x++)
                f[1 + x] = (unsigned char)(row[x] - up[x]);
        }
    }
}

typedef struct segment {
    unsigned char *z; /* deflated bytes */
    size_t n, raw;    /* their count; the filtered bytes they hold */
    uint32_t adler;   /* of the filtered bytes */
    int failed;
} segment;

/* zlib's level for --png-level (0 to SEGMENT_MAX_LEVEL here): the same,
 * with the Z_RLE strategy (matches at distance 1 only, what OpenCV's PNG
 * writer uses by default): on Up-filtered images it is zlib's fastest and,
 * measured on a photo, a smooth image and a smoothed one, 5% larger to 30%
 * smaller than libdeflate at level 1, where zlib's default strategy was 9%
 * to 19% larger. */
static int zlib_level(int level)
{
    return level > 9 ? 9 : level;
}

/* Segment k of nseg (rows_per rows each) deflated raw by zlib. */
static void deflate_segment(const gf_image *im, int level, int rows_per, int k, int nseg,
                            segment *sg)
{
    const int y0 = k * rows_per, y1 = y0 + rows_per < im->height ? y0 + rows_per : im->height;
    const size_t raw = (size_t)(y1 - y0) * (row_bytes(im) + 1);
    unsigned char *f = malloc(raw);
    z_stream z;

    memset(&z, 0, sizeof z);
    sg->raw = raw;
    if (!f || deflateInit2(&z, zlib_level(level), Z_DEFLATED, -15, 8, Z_RLE) != Z_OK) {
        free(f);
        sg->failed = 1;
        return;
    }
    filter_rows(im, y0, y1, f);
    sg->adler = (uint32_t)adler32(1, f, (uInt)raw);
    sg->z = malloc(deflateBound(&z, raw) + 16);
    if (sg->z) {
        z.next_in = f;
        z.avail_in = (uInt)raw;
        z.next_out = sg->z;
        z.avail_out = (uInt)(deflateBound(&z, raw) + 16);
        sg->failed = deflate(&z, k == nseg - 1 ? Z_FINISH : Z_SYNC_FLUSH) !=
                     (k == nseg - 1 ? Z_STREAM_END : Z_OK);
        sg->n = (size_t)(z.next_out - sg->z);
    } else {
        sg->failed = 1;
    }
    deflateEnd(&z);
    free(f);
}

/* One zlib stream of all the filtered rows, by libdeflate. */
static int deflate_whole(const gf_image *im, int level, segment *sg)
{
    const size_t raw = (size_t)im->height * (row_bytes(im) + 1);
    unsigned char *f = malloc(raw);
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    size_t bound;

    sg->failed = 1;
    if (f && c) {
        filter_rows(im, 0, im->height, f);
        bound = libdeflate_zlib_compress_bound(c, raw);
        if ((sg->z = malloc(bound))) {
            sg->n = libdeflate_zlib_compress(c, f, raw, sg->z, bound);
            sg->failed = sg->n == 0;
        }
    }
    libdeflate_free_compressor(c);
    free(f);
    return sg->failed;
}

int gf_encode_png(const gf_image *im, int level, unsigned char **out, size_t *len)
{
    /* PNG's colour type by channels: gray, gray+alpha, RGB, RGBA */
    static const unsigned char color_type[5] = {0, 0, 4, 2, 6};
    const size_t rowlen = row_bytes(im) + 1;
    const int rows_per = SEGMENT_BYTES / rowlen ? (int)(SEGMENT_BYTES / rowlen) : 1;
    int nseg = (im->height + rows_per - 1) / rows_per;
    segment *sg = calloc((size_t)nseg, sizeof *sg);
    unsigned char ihdr[13], *p;
    size_t total = 8 + 25 + 12 + 6; /* signature, IHDR, IEND, zlib header and Adler-32 */
    int failed = 0;

    if (!sg)
        return gf_err(GF_EINTERNAL, NULL, "out of memory encoding PNG");
    if (nseg == 1 || level > SEGMENT_MAX_LEVEL ||
        (uint64_t)rowlen * (uint64_t)im->height < SEGMENT_MIN_BYTES) {
        nseg = 1;
        failed = deflate_whole(im, level, &sg[0]);
    } else {
#pragma omp parallel for schedule(dynamic, 1) reduction(| : failed)
        for (int k = 0; k < nseg; k++) {
            deflate_segment(im, level, rows_per, k, nseg, &sg[k]);
            failed |= sg[k].failed;
        }
    }
    for (int k = 0; k < nseg; k++)
        total += sg[k].n + 12;
    *out = failed ? NULL : malloc(total);
    if (!*out) {
        for (int k = 0; k < nseg; k++)
            free(sg[k].z);
        free(sg);
        return gf_err(GF_EINTERNAL, NULL, "PNG encoding failed (out of memory)");
    }
    p = *out;
    memcpy(p, "\x89PNG\r\n\x1a\n", 8);
    p += 8;
    put32(ihdr, (uint32_t)im->width);
    put32(ihdr + 4, (uint32_t)im->height);
    /* depth, colour type, deflate, adaptive filters, no interlace */
    ihdr[8] = (unsigned char)im->bits;
    ihdr[9] = color_type[im->channels];
    memset(ihdr + 10, 0, 3);
    p += chunk(p, "IHDR", ihdr, 13);
    if (nseg == 1) {
        p += chunk(p, "IDAT", sg[0].z, sg[0].n);
    } else {
        /* zlib header: deflate, 32K window, the level's FLEVEL, FCHECK */
        const int zl = zlib_level(level);
        unsigned flevel = zl < 2 ? 0 : zl < 6 ? 1 : zl == 6 ? 2 : 3;
        unsigned cmf = 0x78, flg = flevel << 6;
        uint32_t adler = sg[0].adler;
        flg += 31 - (cmf * 256 + flg) % 31;
        for (int k = 1; k < nseg; k++)
            adler = (uint32_t)adler32_combine(adler, sg[k].adler, (z_off_t)sg[k].raw);
        for (int k = 0; k < nseg; k++) {
            unsigned char *d = p + 8;
            size_t n = 0;
            if (k == 0) {
                d[n++] = (unsigned char)cmf;
                d[n++] = (unsigned char)flg;
            }
            memcpy(d + n, sg[k].z, sg[k].n);
            n += sg[k].n;
            if (k == nseg - 1) {
                put32(d + n, adler);
                n += 4;
            }
            p += chunk(p, "IDAT", NULL, n);
        }
    }
    p += chunk(p, "IEND", NULL, 0);
    *len = (size_t)(p - *out);
    for (int k = 0; k < nseg; k++)
        free(sg[k].z);
    free(sg);
    return 0;
}
