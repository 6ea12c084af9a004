/* png.c - PNG: decoded by libspng (Debian libspng-dev), row by row, into
 * the file's own layout; encoded here, any layout, deflated by ISA-L's igzip
 * (the default levels, large images in parallel segments) or libdeflate
 * (stored, and levels 3 to 12). libspng checks every chunk's CRC, the IDAT stream's
 * Adler-32, palette indices against PLTE and tRNS against the colour type;
 * third_party/README.md says why it replaced stb_image for PNG. The
 * metadata chunks (iCCP, eXIf) are read here, from the file's bytes
 * (find_meta). */
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <spng.h>
#include <isa-l/igzip_lib.h>

#include "formats.h"
#include "igzip.h"

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

/* The metadata chunks, iCCP and eXIf, are read by gpufilt from the file's
 * bytes rather than through libspng, which passes over a broken one in
 * silence (a bad CRC, a profile that does not inflate, an eXIf with
 * JPEG's "Exif\0\0" first) or fails the whole file for one over its chunk
 * limits. They are found before libspng runs; what is dropped is hidden
 * from it (it decodes a copy of the file without those chunks) and, once
 * the image has decoded, said (with GF_DECODE_META). */
#define MAX_DROPPED 8 /* chunks dropped at most; past it, the rest are left to libspng */

typedef struct png_meta {
    int flags;
    unsigned char *icc;        /* the first iCCP's profile, inflated (malloc'd) */
    size_t icc_len;
    const unsigned char *exif; /* the first eXIf's payload, in the file */
    size_t exif_len;
    size_t drop_at[MAX_DROPPED], drop_len[MAX_DROPPED]; /* whole chunks, in file order */
    const char *drop_what[MAX_DROPPED], *drop_why[MAX_DROPPED]; /* NULL why: said by none */
    int ndrop;
    int icc_seen, exif_seen;
} png_meta;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Hides the chunk at [at, at + n) from libspng; with why, "WHAT dropped:
 * WHY" is said once the image has decoded. */
static void drop_chunk(png_meta *pm, size_t at, size_t n, const char *what, const char *why)
{
    if (pm->ndrop < MAX_DROPPED) {
        pm->drop_at[pm->ndrop] = at;
        pm->drop_len[pm->ndrop] = n;
        pm->drop_what[pm->ndrop] = what;
        pm->drop_why[pm->ndrop++] = why;
    }
}

/* 1 when the iCCP profile name k (n bytes, a NUL after them) is what PNG
 * allows (and libspng checks): 1-79 printable Latin-1 characters, no space
 * first or last, none doubled. */
static int good_keyword(const unsigned char *k, size_t n)
{
    if (n < 1 || n > 79 || k[0] == ' ' || k[n - 1] == ' ')
        return 0;
    for (size_t i = 0; i < n; i++)
        if (k[i] < 32 || (k[i] > 126 && k[i] < 161) || (k[i] == ' ' && k[i + 1] == ' '))
            return 0;
    return 1;
}

/* An iCCP chunk's payload d (n bytes): its profile inflated into a
 * malloc'd *icc of *icc_len bytes; NULL, or why it cannot be. */
static const char *inflate_iccp(const unsigned char *d, size_t n, unsigned char **icc,
                                size_t *icc_len)
{
    const unsigned char *nul = memchr(d, 0, n < 81 ? n : 81);
    struct libdeflate_decompressor *z;
    size_t cap, got = 0, head;
    enum libdeflate_result r = LIBDEFLATE_INSUFFICIENT_SPACE;

    *icc = NULL;
    if (!nul || !good_keyword(d, (size_t)(nul - d)))
        return "its iCCP chunk's profile name is malformed";
    head = (size_t)(nul - d) + 2; /* the name, its NUL, the compression method */
    if (head > n || nul[1] != 0)
        return "its iCCP chunk's compression method is not 0 (zlib)";
    d += head;
    n -= head;
    if (!(z = libdeflate_alloc_decompressor()))
        return "out of memory";
    /* a buffer that grows to one byte past the limit, so that a larger
     * profile is told from one that just fits */
    for (cap = n < (1u << 14) ? 1u << 16 : 4 * n; r == LIBDEFLATE_INSUFFICIENT_SPACE;
         cap = cap > GF_MAX_ICC_BYTES / 2 ? GF_MAX_ICC_BYTES + 1 : 2 * cap) {
        unsigned char *b = realloc(*icc, cap);
        if (!b) {
            r = LIBDEFLATE_BAD_DATA;
            break;
        }
        *icc = b;
        r = libdeflate_zlib_decompress(z, d, n, *icc, cap, &got);
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE && cap > GF_MAX_ICC_BYTES)
            break;
    }
    libdeflate_free_decompressor(z);
    if (r == LIBDEFLATE_SUCCESS && got <= GF_MAX_ICC_BYTES) {
        *icc_len = got;
        return NULL;
    }
    free(*icc);
    *icc = NULL;
    return r == LIBDEFLATE_INSUFFICIENT_SPACE ? "larger than 16 MiB"
                                              : "its iCCP chunk does not inflate (zlib)";
}

/* One iCCP or eXIf chunk (its data d, n bytes; the whole chunk at [at, at
 * + whole) in the file; crc_ok and before_image, no PLTE or IDAT yet, as
 * found): taken into pm, or dropped. */
static void meta_chunk(png_meta *pm, int is_icc, const unsigned char *d, size_t n, size_t at,
                       size_t whole, int crc_ok, int before_image)
{
    const char *what = is_icc ? "ICC profile" : "EXIF";
    int *seen = is_icc ? &pm->icc_seen : &pm->exif_seen;
    const char *why = NULL;

    if (*seen)
        why = is_icc ? "a second iCCP chunk" : "a second eXIf chunk";
    else if (!crc_ok)
        why = is_icc ? "its iCCP chunk's CRC is wrong" : "its eXIf chunk's CRC is wrong";
    else if (n > CHUNK_LIMIT)
        why = "larger than 16 MiB";
    else if (is_icc && !before_image)
        why = "its iCCP chunk comes after PLTE or IDAT";
    else if (is_icc) /* inflated even when not kept: libspng would, and fail past its limits */
        why = inflate_iccp(d, n, &pm->icc, &pm->icc_len);
    *seen = 1;
    if (why) {
        drop_chunk(pm, at, whole, what, why);
        return;
    }
    if (!is_icc) {
        pm->exif = d;
        pm->exif_len = n;
        /* libspng takes an eXIf that starts "II*\0" or "MM\0*" only: the
         * rest (JPEG's "Exif\0\0" first, say) is hidden from it too */
        if (!(n >= 4 && (!memcmp(d, "II*\0", 4) || !memcmp(d, "MM\0*", 4))))
            drop_chunk(pm, at, whole, what, NULL);
    }
}

/* Finds the metadata chunks of the PNG buf (len bytes) into *pm (see
 * above), and where some are dropped, a malloc'd copy of buf without them
 * in *copy (*copy_len bytes) for libspng; *copy NULL otherwise. A chunk
 * structure that breaks off ends the walk: libspng says what is wrong.
 * Returns 0, or GF_EINTERNAL out of memory. */
static int find_meta(const char *name, const unsigned char *buf, size_t len, png_meta *pm,
                     unsigned char **copy, size_t *copy_len)
{
    int before_image = 1;
    size_t p = 8;

    *copy = NULL;
    while (p <= len && len - p >= 12) {
        const size_t n = be32(buf + p);
        const unsigned char *type = buf + p + 4;
        if (n > len - p - 12 || !memcmp(type, "IEND", 4))
            break;
        const int icc = !memcmp(type, "iCCP", 4), exif = !memcmp(type, "eXIf", 4);
        if (icc || exif)
            meta_chunk(pm, icc, buf + p + 8, n, p, n + 12,
                       libdeflate_crc32(0, type, n + 4) == be32(buf + p + 8 + n), before_image);
        else if (!memcmp(type, "PLTE", 4) || !memcmp(type, "IDAT", 4))
            before_image = 0;
        p += n + 12;
    }
    if (!pm->ndrop)
        return 0;
    if (!(*copy = malloc(len)))
        return gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
    *copy_len = 0;
    p = 0;
    for (int i = 0; i <= pm->ndrop; i++) { /* the spans between the chunks dropped */
        const size_t to = i < pm->ndrop ? pm->drop_at[i] : len;
        memcpy(*copy + *copy_len, buf + p, to - p);
        *copy_len += to - p;
        if (i < pm->ndrop)
            p = pm->drop_at[i] + pm->drop_len[i];
    }
    return 0;
}

/* After the image decoded: the drops said, the EXIF's Orientation read,
 * and with GF_DECODE_META the profile and EXIF kept in info (meta.h's
 * checks). */
static int keep_meta(const char *name, png_meta *pm, gf_load_info *info)
{
    int rc = 0;

    for (int i = 0; i < pm->ndrop; i++)
        if (pm->drop_why[i] && (pm->flags & GF_DECODE_META)) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s dropped: %s", pm->drop_what[i], pm->drop_why[i]);
            gf_meta_warn(name, msg);
        }
    if (pm->exif)
        info->orientation = gf_exif_orientation_or_1(pm->exif, pm->exif_len);
    if (!(pm->flags & GF_DECODE_META))
        return 0;
    if (pm->exif)
        rc = gf_meta_keep_exif(&info->meta, name, pm->exif, pm->exif_len);
    if (rc == 0 && pm->icc)
        rc = gf_meta_keep_icc(&info->meta, name, pm->icc, pm->icc_len);
    return rc;
}

int gf_decode_png(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                  int flags, gf_image *out, gf_load_info *info)
{
    spng_ctx *ctx = spng_ctx_new(0);
    png_layout L;
    png_meta pm;
    unsigned char *rows = NULL, *copy = NULL;
    size_t size, rowbytes, copy_len = 0;
    int e, fmt, rc = 0;

    memset(&L, 0, sizeof L);
    memset(&pm, 0, sizeof pm);
    pm.flags = flags;
    if (!ctx)
        return gf_err(GF_EINTERNAL, name, "out of memory decoding PNG");
    info->format = "png";
    if ((rc = find_meta(name, buf, len, &pm, &copy, &copy_len)))
        goto out;
    if ((e = spng_set_image_limits(ctx, GF_MAX_DIM, GF_MAX_DIM)) ||
        (e = spng_set_chunk_limits(ctx, CHUNK_LIMIT, CACHE_LIMIT)) ||
        (e = spng_set_png_buffer(ctx, copy ? copy : buf, copy ? copy_len : len)) ||
        (e = spng_get_ihdr(ctx, &L.ih))) {
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
    if (rc == 0)
        rc = keep_meta(name, &pm, info);
    free(pm.icc);
    free(copy);
    free(rows);
    spng_ctx_free(ctx);
    return rc;
}

/* Encoding. Every row is filtered with Average (PNG filter 3: each byte
 * minus the mean of the byte one pixel to its left and the byte above it,
 * both of the unfiltered image, so it vectorises): on the photo corpus
 * (docs/benchmarks.md) its output was 3.9% smaller than Up's with
 * libdeflate, 4.2% with ISA-L.
 * The filtered rows are deflated by
 *   - levels 1 and 2: ISA-L's igzip at its level 1 or 2, in segments of
 *     SEGMENT_BYTES of rows from SEGMENT_MIN_BYTES, deflated in parallel
 *     (each a raw deflate stream ended with a full flush, the last with the
 *     final block, joined into one zlib stream as pigz does, one IDAT chunk
 *     each), below that in one piece; igzip deflated the corpus 2.1 times as
 *     fast as libdeflate at level 1, its files 1.3-1.5% larger (third_party/README.md);
 *   - level 0 (stored) and 3 to 12: libdeflate, in one piece.
 * The segments depend only on the image's size and the level, so the bytes
 * do not depend on the number of cores. Nothing igzip may read changes
 * while it deflates: each segment's rows lie between PAD_BYTES of zeros,
 * written before the segments are, so a load before a segment's start or
 * past its end meets neither another segment's rows (filtered by another
 * thread meanwhile) nor memory outside the allocation; the stream, level
 * buffer and output are zeroed, and each stream lies where igzip.c puts it,
 * away from an igzip bug that made the bytes depend on the stream's address
 * (docs/benchmarks.md: "A large image's PNG bytes"). */
#define SEGMENT_BYTES (1u << 20)
#define SEGMENT_MIN_BYTES (12u << 20)
#define ISAL_MAX_LEVEL 2
#define FILTER_AVERAGE 3
#define PAD_BYTES 512

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

#define ICC_NAME "ICC Profile" /* iCCP's profile name */
#define ICC_LEVEL 9               /* libdeflate's level for the profile */

/* The payload of an iCCP chunk for o->meta's profile (its name, NUL,
 * compression method 0, the profile as one zlib stream) in *dst, malloc'd,
 * of *n bytes; *dst NULL and 0 when there is no profile. -1 out of memory. */
static int iccp_payload(const gf_encode_opts *o, unsigned char **dst, size_t *n)
{
    const gf_meta *m = o->meta;
    struct libdeflate_compressor *c;
    const size_t head = sizeof ICC_NAME + 1;
    size_t bound, z = 0;

    *dst = NULL;
    *n = 0;
    if (!m || !m->icc || !m->icc_len)
        return 0;
    if (!(c = libdeflate_alloc_compressor(ICC_LEVEL)))
        return -1;
    bound = libdeflate_zlib_compress_bound(c, m->icc_len);
    if ((*dst = malloc(head + bound))) {
        memcpy(*dst, ICC_NAME, sizeof ICC_NAME);
        (*dst)[sizeof ICC_NAME] = 0;
        z = libdeflate_zlib_compress(c, m->icc, m->icc_len, *dst + head, bound);
    }
    libdeflate_free_compressor(c);
    if (!z) {
        free(*dst);
        *dst = NULL;
        return -1;
    }
    *n = head + z;
    return 0;
}

/* Bytes of one of im's rows in the file (16-bit samples big-endian). */
static size_t row_bytes(const gf_image *im)
{
    return (size_t)im->width * GF_PIXEL_BYTES(im->channels, im->bits);
}

/* Row y of im as PNG stores it, n bytes: 8-bit rows as they are, 16-bit
 * samples big-endian (into tmp). */
static const unsigned char *stored_row(const gf_image *im, int y, size_t n, unsigned char *tmp)
{
    const unsigned char *row = im->data + (size_t)y * im->stride;
    if (im->bits != 16)
        return row;
    const uint16_t *r16 = (const uint16_t *)(const void *)row;
    for (size_t i = 0; i < n / 2; i++) {
        tmp[2 * i] = (unsigned char)(r16[i] >> 8);
        tmp[2 * i + 1] = (unsigned char)r16[i];
    }
    return tmp;
}

/* Filter byte and n bytes of row `cur` filtered with Average over `up`
 * (NULL: the first row, over zeros) into f; bpp bytes a pixel. The mean is
 * floor((a + b) / 2), written as the rounded-up mean less the low bit of
 * a ^ b: compilers make the first one instruction (x86 pavgb, Arm urhadd). */
GF_CLONES GF_VECTORIZE static void average_row(const unsigned char *restrict cur,
                                               const unsigned char *restrict up, size_t n,
                                               size_t bpp, unsigned char *restrict f)
{
    f[0] = FILTER_AVERAGE;
    f++;
    if (!up) {
        for (size_t x = 0; x < bpp && x < n; x++)
            f[x] = cur[x];
        for (size_t x = bpp; x < n; x++)
            f[x] = (unsigned char)(cur[x] - (cur[x - bpp] >> 1));
        return;
    }
    for (size_t x = 0; x < bpp && x < n; x++)
        f[x] = (unsigned char)(cur[x] - (up[x] >> 1));
    for (size_t x = bpp; x < n; x++) {
        const unsigned a = cur[x - bpp], b = up[x];
        f[x] = (unsigned char)(cur[x] - (((a + b + 1) >> 1) - ((a ^ b) & 1)));
    }
}

/* Rows [y0, y1) of im, filtered, into f (filter byte + row_bytes each).
 * Each row's filter reads the unfiltered row above it, so any range is
 * filtered alone. Returns 0, or 1 when out of memory. */
static int filter_rows(const gf_image *im, int y0, int y1, unsigned char *f)
{
    const size_t n = row_bytes(im), bpp = GF_PIXEL_BYTES(im->channels, im->bits);
    unsigned char *tmp = im->bits == 16 ? malloc(2 * n) : NULL;
    const unsigned char *up;

    if (im->bits == 16 && !tmp)
        return 1;
    up = y0 > 0 ? stored_row(im, y0 - 1, n, tmp) : NULL;
    /* 16-bit: the two halves of tmp take turns as this row and the one above */
    for (int y = y0, half = 1; y < y1; y++, f += n + 1, half ^= 1) {
        const unsigned char *cur = stored_row(im, y, n, tmp ? tmp + (size_t)half * n : NULL);
        average_row(cur, up, n, bpp, f);
        up = cur;
    }
    free(tmp);
    return 0;
}

/* Deflated bytes of rows, or of the whole stream. */
typedef struct segment {
    unsigned char *z;
    size_t n;
    int failed;
} segment;

/* Filtered bytes f[0, raw) deflated raw by igzip at `level` into sg, a
 * whole stream's end (the final block) when last, else ended byte-aligned
 * by a full flush. The stream lies where igzip.c places it, so the bytes
 * do not depend on where memory lies. */
static void deflate_isal(const unsigned char *f, size_t raw, int level, int last, segment *sg)
{
    static const uint32_t buf_size[ISAL_MAX_LEVEL + 1] = {ISAL_DEF_LVL0_DEFAULT,
                                                          ISAL_DEF_LVL1_DEFAULT,
                                                          ISAL_DEF_LVL2_DEFAULT};
    /* stored blocks cost 5 bytes in 65535; headers and the flush's end */
    const size_t cap = raw + raw / 1024 + 1024;
    struct isal_zstream *placed = gf_igzip_stream(f, raw, 0), own;
    struct isal_zstream *z = placed ? placed : &own;

    /* zeroed, as are the stream and the output: igzip's stateless deflate
     * reads parts of the stream and level buffer that
     * isal_deflate_stateless_init does not set (valgrind) */
    sg->z = calloc(1, cap);
    unsigned char *level_buf = calloc(1, buf_size[level]);
    sg->failed = 1;
    if (!placed)
        memset(&own, 0, sizeof own);
    if (sg->z && level_buf) {
        isal_deflate_stateless_init(z);
        z->next_in = (uint8_t *)(uintptr_t)f;
        z->avail_in = (uint32_t)raw;
        z->next_out = sg->z;
        z->avail_out = (uint32_t)cap;
        z->level = (uint32_t)level;
        z->level_buf = level_buf;
        z->level_buf_size = buf_size[level];
        z->gzip_flag = IGZIP_DEFLATE;
        z->end_of_stream = (uint16_t)last;
        z->flush = last ? NO_FLUSH : FULL_FLUSH;
        if (isal_deflate_stateless(z) == COMP_OK) {
            sg->n = z->total_out;
            sg->failed = 0;
        }
    }
    free(level_buf);
    gf_igzip_stream_free(placed);
}

/* The filtered rows f (raw bytes) as one zlib stream by libdeflate. */
static void deflate_libdeflate(const unsigned char *f, size_t raw, int level, segment *sg)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    size_t bound;

    sg->failed = 1;
    if (c) {
        bound = libdeflate_zlib_compress_bound(c, raw);
        if ((sg->z = malloc(bound))) {
            sg->n = libdeflate_zlib_compress(c, f, raw, sg->z, bound);
            sg->failed = sg->n == 0;
        }
    }
    libdeflate_free_compressor(c);
}

/* The row after segment k's last of nseg segments of rows_per rows. */
static int segment_end(int k, int nseg, int rows_per, int height)
{
    const int y0 = k * rows_per;
    return nseg == 1 || y0 + rows_per > height ? height : y0 + rows_per;
}

int gf_encode_png(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    const int level = o->png_level;
    /* PNG's colour type by channels: gray, gray+alpha, RGB, RGBA */
    static const unsigned char color_type[5] = {0, 0, 4, 2, 6};
    const size_t rowlen = row_bytes(im) + 1, raw = rowlen * (size_t)im->height;
    const int rows_per = SEGMENT_BYTES / rowlen ? (int)(SEGMENT_BYTES / rowlen) : 1;
    const int isal = level >= 1 && level <= ISAL_MAX_LEVEL;
    int nseg = isal && raw >= SEGMENT_MIN_BYTES ? (im->height + rows_per - 1) / rows_per : 1;
    /* segment k's rows at f + PAD_BYTES + k * stride, zeros before and after */
    const size_t stride = (size_t)rows_per * rowlen + PAD_BYTES;
    segment *sg = calloc((size_t)nseg, sizeof *sg);
    unsigned char *f = malloc(nseg > 1 ? PAD_BYTES + (size_t)nseg * stride : raw + 2 * PAD_BYTES),
                  ihdr[13], *p;
    size_t total = 8 + 25 + 12 + 6; /* signature, IHDR, IEND, zlib header and Adler-32 */
    uint32_t adler = 1;
    unsigned char *iccp = NULL;
    size_t iccp_len = 0;
    const int exif = o->meta && o->meta->exif && o->meta->exif_len;
    int failed = !sg || !f || iccp_payload(o, &iccp, &iccp_len);

    for (int k = 0; !failed && k < nseg; k++) {
        const int y0 = k * rows_per, y1 = segment_end(k, nseg, rows_per, im->height);
        unsigned char *fk = f + PAD_BYTES + (size_t)k * stride;
        memset(fk - PAD_BYTES, 0, PAD_BYTES);
        memset(fk + (size_t)(y1 - y0) * rowlen, 0, PAD_BYTES);
    }
#pragma omp parallel for schedule(dynamic, 1) reduction(| : failed) if (nseg > 1)
    for (int k = 0; k < nseg; k++) {
        if (failed)
            continue;
        const int y0 = k * rows_per, y1 = segment_end(k, nseg, rows_per, im->height);
        unsigned char *fk = f + PAD_BYTES + (size_t)k * stride;
        const size_t n = (size_t)(y1 - y0) * rowlen;
        if (filter_rows(im, y0, y1, fk)) {
            failed = 1;
            continue;
        }
        if (isal)
            deflate_isal(fk, n, level, k == nseg - 1, &sg[k]);
        else
            deflate_libdeflate(fk, n, level, &sg[k]);
        failed |= sg[k].failed;
    }
    for (int k = 0; !failed && k < nseg; k++)
        total += sg[k].n + 12;
    total += (iccp ? iccp_len + 12 : 0) + (exif ? o->meta->exif_len + 12 : 0);
    *out = failed ? NULL : malloc(total);
    if (!*out) {
        free(iccp);
        for (int k = 0; sg && k < nseg; k++)
            free(sg[k].z);
        free(sg);
        free(f);
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
    if (iccp)
        p += chunk(p, "iCCP", iccp, iccp_len);
    if (exif)
        p += chunk(p, "eXIf", o->meta->exif, o->meta->exif_len);
    free(iccp);
    if (!isal) {
        p += chunk(p, "IDAT", sg[0].z, sg[0].n);
    } else {
        /* zlib header: deflate, 32K window, FLEVEL 0 (the fastest), FCHECK */
        const unsigned cmf = 0x78, flg = 31 - (cmf * 256) % 31;
        for (int k = 0; k < nseg; k++) {
            const int y0 = k * rows_per, y1 = segment_end(k, nseg, rows_per, im->height);
            adler = libdeflate_adler32(adler, f + PAD_BYTES + (size_t)k * stride,
                                       (size_t)(y1 - y0) * rowlen);
        }
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
    free(f);
    return 0;
}
