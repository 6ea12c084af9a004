/* tiff.c - TIFF: read and written by libtiff (Debian libtiff-dev, 4.5), from
 * and to memory through TIFFClientOpenExt; libtiff's messages go to a
 * handler of each handle (TIFFOpenOptions), so images decoded in several
 * threads at once each get their own, and libtiff never prints.
 * third_party/README.md says why libtiff.
 *
 * Reading (gf_decode's contract, codec.h): the page lim->page of the file
 * (0: the first), after the whole chain of image directories (IFDs) has been
 * walked, so that a chain that loops or points past the end is refused even
 * when the page asked for is sound. Strips or tiles, chunky or planar
 * (PlanarConfig 2), either byte order, classic TIFF or BigTIFF, whatever
 * compression libtiff decodes (none, LZW, Deflate, PackBits, JPEG; with the
 * horizontal predictor or not). A JPEG-compressed YCbCr image comes as RGB
 * (libtiff's TIFFTAG_JPEGCOLORMODE). Decoded layouts:
 *   - MinIsBlack gray of 8 or 16 bits as it is; MinIsWhite inverted
 *     (max - v); 1-, 2- and 4-bit gray to 8 bits by bit replication (1-bit:
 *     0 and 255), MinIsWhite inverted;
 *   - RGB of 8 or 16 bits as it is;
 *   - a palette (1, 2, 4, 8 or 16-bit indices) gives RGB: 8-bit, v / 257,
 *     when every colormap value is a multiple of 257 (what 8-bit colours
 *     scaled to TIFF's 16-bit colormap are; Pillow reads those alike), else
 *     16-bit with the colormap's values as they are (nothing is lost);
 *   - extra samples (ExtraSamples): the first alpha among them, unassociated
 *     (2) as it is, associated (1, premultiplied) divided out as Pillow
 *     does it for 8-bit RGBA (its RGBa unpacker), at every depth and for
 *     gray+alpha alike: floor(v * max / a), at most max, 0 where a is 0;
 *     other extra samples are dropped. Without an ExtraSamples tag, one
 *     sample beyond gray or RGB is taken as unassociated alpha, more are
 *     refused.
 * Refused (GF_EDATA, one line naming what it is): floating-point, signed
 * or other SampleFormats; CMYK and other separated inks, CIE/ICC/ITU Lab,
 * LogL/LogLuv, CFA and other photometric interpretations; YCbCr that is not
 * JPEG-compressed; samples of a depth other than 1, 2, 4 (gray and palette
 * alone), 8 or 16 bits (32 included); any error libtiff reports, as "TIFF
 * ..." with its text. Limits (gf_check_size) are checked from the page's
 * directory before any pixel is decoded. Memory besides buf (which libtiff
 * reads in place, as a mapped file): the output, one strip or one row of
 * tiles of one plane as stored, and one tile; a tile over TILE_SLACK bytes
 * more than four times the image's plane is refused.
 *
 * Writing: the image's layout (gray, gray+alpha, RGB, RGBA; 8 or 16 bits),
 * little-endian, chunky, alpha as ExtraSamples 2 (unassociated), strips of
 * about STRIP_BYTES, compressed as gf_encode_opts.compress says (Deflate
 * and LZW with the horizontal predictor, at libtiff's default levels). No
 * date, no software version: the bytes depend only on the image, the
 * options, the metadata and libtiff.
 *
 * Metadata: the ICC profile is tag 34675. EXIF (a TIFF-structured blob,
 * meta.h) is IFD0's picture tags (gf_exif_ifd0_tag: Make, Model,
 * Orientation, ...) in the image directory, and an EXIF and a GPS
 * directory that libtiff writes as custom directories (TIFFCreateEXIFDirectory,
 * TIFFCreateGPSDirectory, TIFFWriteCustomDirectory) after the header and
 * before the image directory, which points to them (tags 34665, 34853);
 * each tag as libtiff's own field where it knows it (its type, count and
 * calling convention; EXIF's rationals, which libtiff 4.5 keeps as floats,
 * to float precision), else as a field of its own type. Read back, the
 * page's directory is read from the file's bytes (gf_ifd_read), so that
 * what libtiff passes over in silence is said: its ICC tag (a 2 GB count,
 * data past the end of the file) and its EXIF (gf_exif_from_tiff: the
 * picture tags and the EXIF and GPS directories, built into one blob). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "formats.h"

#define CLIENT "tiff"           /* the name libtiff is given; left out of messages */
#define MAX_ALLOC (256u << 20)  /* bytes: the most libtiff allocates at once */
#define TILE_SLACK (16u << 20)  /* bytes a tile row may exceed 4 x its plane by */
#define STRIP_BYTES (64u << 10) /* written strips: about this much raw data */

/* The first error libtiff reported on a handle, one line; while strict,
 * warnings count as errors (libtiff 4.5 warns of a directory chain that
 * loops). */
typedef struct tmsg {
    char text[400];
    int errors, strict;
} tmsg;

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    tmsg *m = user;

    (void)tif;
    (void)module;
    if (m && m->errors++ == 0) {
        vsnprintf(m->text, sizeof m->text, fmt, ap);
        for (char *p = m->text; *p; p++)
            if (*p == '\n' || *p == '\r' || *p == '\t')
                *p = ' ';
    }
    return 1; /* handled: the global handlers are not called */
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    const tmsg *m = user;

    if (m && m->strict)
        return on_error(tif, user, module, fmt, ap);
    return 1;
}

/* The process-wide handlers (for any message libtiff sends without a
 * handle) print nothing. */
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;
static void quiet_globals(void)
{
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

/* A file in memory: read in place (mapped), or written into a growing
 * buffer. */
typedef struct membuf {
    unsigned char *b;
    size_t len, cap, pos;
    int writing, failed;
} membuf;

static tmsize_t m_read(thandle_t h, void *dst, tmsize_t n)
{
    membuf *m = h;
    size_t k;

    if (n <= 0 || m->pos >= m->len)
        return 0;
    k = m->len - m->pos < (size_t)n ? m->len - m->pos : (size_t)n;
    memcpy(dst, m->b + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t m_write(thandle_t h, void *src, tmsize_t n)
{
    membuf *m = h;

    if (!m->writing || n < 0 || m->failed)
        return -1;
    if (m->pos + (size_t)n > m->cap) {
        size_t cap = m->cap ? m->cap : 1u << 16;
        while (cap < m->pos + (size_t)n)
            cap *= 2;
        unsigned char *nb = realloc(m->b, cap);
        if (!nb) {
            m->failed = 1;
            return -1;
        }
        m->b = nb;
        m->cap = cap;
    }
    if (m->pos > m->len) /* a seek past the end leaves zeros */
        memset(m->b + m->len, 0, m->pos - m->len);
    memcpy(m->b + m->pos, src, (size_t)n);
    m->pos += (size_t)n;
    if (m->pos > m->len)
        m->len = m->pos;
    return n;
}

static toff_t m_seek(thandle_t h, toff_t off, int whence)
{
    membuf *m = h;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)m->pos : (int64_t)m->len;
    int64_t to = whence == SEEK_SET ? (int64_t)off : base + (int64_t)off;

    if (to < 0 || (uint64_t)to > (uint64_t)1 << 48)
        return (toff_t)-1;
    m->pos = (size_t)to;
    return (toff_t)to;
}

static int m_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t m_size(thandle_t h)
{
    return ((membuf *)h)->len;
}

static int m_map(thandle_t h, void **base, toff_t *size)
{
    membuf *m = h;

    if (m->writing)
        return 0;
    *base = m->b;
    *size = m->len;
    return 1;
}

static void m_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h, (void)base, (void)size;
}

static TIFF *open_mem(membuf *m, tmsg *msg, const char *mode)
{
    TIFFOpenOptions *o;
    TIFF *tif;

    pthread_once(&quiet_once, quiet_globals);
    if (!(o = TIFFOpenOptionsAlloc()))
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, msg);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, msg);
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, MAX_ALLOC);
    tif = TIFFClientOpenExt(CLIENT, mode, m, m_read, m_write, m_seek, m_close, m_size, m_map,
                            m_unmap, o);
    TIFFOpenOptionsFree(o);
    return tif;
}

int gf_tiff_sniff(const unsigned char *buf, size_t len)
{
    return len >= 4 && ((!memcmp(buf, "II", 2) && (buf[2] == 42 || buf[2] == 43) && !buf[3]) ||
                        (!memcmp(buf, "MM", 2) && !buf[2] && (buf[3] == 42 || buf[3] == 43)));
}

/* A page's layout: as stored, and as decoded. */
typedef struct tlayout {
    uint32_t w, h;
    uint16_t spp, bps, photo, planar, compression;
    int color;         /* colour samples: 1 gray or palette index, 3 RGB */
    int alpha;         /* the sample kept as alpha, or -1 */
    int assoc;         /* that alpha is associated (premultiplied) */
    int palette, min_is_white;
    uint16_t *cmap[3]; /* a palette's colormap, 1 << bps entries each (libtiff's) */
    int channels, bits; /* decoded */
} tlayout;

/* The current directory's layout into *L; 0, or -1 with why[] saying what
 * is not read. */
static int layout(TIFF *tif, tlayout *L, char *why, size_t nwhy)
{
    uint16_t fmt = SAMPLEFORMAT_UINT, nextra = 0, *extra = NULL;
    int declared;

    memset(L, 0, sizeof *L);
    L->alpha = -1;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &L->w) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &L->h)) {
        snprintf(why, nwhy, "image has no width or height");
        return -1;
    }
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &L->bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &L->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &fmt);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &L->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &L->compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &L->photo)) {
        snprintf(why, nwhy, "image has no PhotometricInterpretation");
        return -1;
    }
    if (fmt != SAMPLEFORMAT_UINT) {
        snprintf(why, nwhy, "image of %s samples (SampleFormat %u) is not read",
                 fmt == SAMPLEFORMAT_IEEEFP ? "floating-point"
                 : fmt == SAMPLEFORMAT_INT  ? "signed integer"
                 : fmt == SAMPLEFORMAT_VOID ? "untyped"
                                            : "complex",
                 fmt);
        return -1;
    }
    switch (L->photo) {
    case PHOTOMETRIC_MINISWHITE: L->min_is_white = 1; /* fall through */
    case PHOTOMETRIC_MINISBLACK: L->color = 1; break;
    case PHOTOMETRIC_PALETTE: L->color = 1, L->palette = 1; break;
    case PHOTOMETRIC_RGB: L->color = 3; break;
    case PHOTOMETRIC_YCBCR:
        if (L->compression != COMPRESSION_JPEG) {
            snprintf(why, nwhy, "YCbCr image that is not JPEG-compressed is not read");
            return -1;
        }
        L->color = 3;
        break;
    case PHOTOMETRIC_SEPARATED:
        snprintf(why, nwhy, "CMYK (separated) image is not read; gray, RGB and palette are");
        return -1;
    case PHOTOMETRIC_CIELAB:
    case PHOTOMETRIC_ICCLAB:
    case PHOTOMETRIC_ITULAB:
        snprintf(why, nwhy, "Lab image (PhotometricInterpretation %u) is not read", L->photo);
        return -1;
    case PHOTOMETRIC_MASK: snprintf(why, nwhy, "transparency mask is not read"); return -1;
    case PHOTOMETRIC_LOGL:
    case PHOTOMETRIC_LOGLUV: snprintf(why, nwhy, "LogL/LogLuv image is not read"); return -1;
    default:
        snprintf(why, nwhy, "image of PhotometricInterpretation %u is not read", L->photo);
        return -1;
    }
    if (L->bps == 32 || !(L->bps == 1 || L->bps == 2 || L->bps == 4 || L->bps == 8 ||
                          L->bps == 16)) {
        snprintf(why, nwhy, "image of %u-bit samples is not read (8 and 16 bits are; 1, 2 "
                 "and 4 for gray and palette)", L->bps);
        return -1;
    }
    if (L->spp < L->color) {
        snprintf(why, nwhy, "%s image with %u sample%s a pixel", L->color == 3 ? "RGB" : "gray",
                 L->spp, L->spp == 1 ? "" : "s");
        return -1;
    }
    if (L->bps < 8 && (L->spp != 1 || L->color != 1)) {
        snprintf(why, nwhy, "%u-bit samples are read for gray and palette images without "
                 "extra samples only", L->bps);
        return -1;
    }
    if (L->palette) {
        if (L->spp != 1) {
            snprintf(why, nwhy, "palette image with %u samples a pixel is not read", L->spp);
            return -1;
        }
        if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &L->cmap[0], &L->cmap[1], &L->cmap[2])) {
            snprintf(why, nwhy, "palette image has no ColorMap");
            return -1;
        }
    }
    declared = TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &nextra, &extra);
    if (L->spp > L->color) {
        const int n = L->spp - L->color;
        if (declared) {
            for (int i = 0; i < n && i < nextra && L->alpha < 0; i++)
                if (extra[i] == EXTRASAMPLE_ASSOCALPHA || extra[i] == EXTRASAMPLE_UNASSALPHA) {
                    L->alpha = L->color + i;
                    L->assoc = extra[i] == EXTRASAMPLE_ASSOCALPHA;
                }
        } else if (L->spp <= 4) {
            L->alpha = L->color; /* one undeclared sample: unassociated alpha */
        } else {
            snprintf(why, nwhy, "image of %u samples a pixel has no ExtraSamples tag saying "
                     "what the %d after its %s sample%s are", L->spp, n,
                     L->color == 3 ? "RGB" : "gray", L->color == 3 ? "s" : "");
            return -1;
        }
    }
    L->channels = (L->palette ? 3 : L->color) + (L->alpha >= 0);
    L->bits = L->bps == 16 ? 16 : 8;
    if (L->palette) {
        const size_t n = (size_t)1 << L->bps;
        L->bits = 8;
        for (int c = 0; c < 3; c++)
            for (size_t i = 0; i < n; i++)
                if (L->cmap[c][i] % 257)
                    L->bits = 16;
    }
    return 0;
}

int gf_peek_tiff(const unsigned char *buf, size_t len, gf_shape *s)
{
    membuf m = {(unsigned char *)(uintptr_t)buf, len, len, 0, 0, 0};
    tmsg msg = {{0}, 0, 0};
    tlayout L;
    char why[200];
    TIFF *tif;
    int rc = -1;

    if (!gf_tiff_sniff(buf, len))
        return -1;
    /* O: strip and tile offsets are read when needed, not here */
    if (!(tif = open_mem(&m, &msg, "rO")))
        return -1;
    if (layout(tif, &L, why, sizeof why) == 0 && L.w >= 1 && L.h >= 1 && L.w <= GF_MAX_DIM &&
        L.h <= GF_MAX_DIM) {
        *s = (gf_shape){(int)L.w, (int)L.h, L.channels, L.bits};
        rc = 0;
    }
    TIFFClose(tif);
    return rc;
}

/* Decoding state. */
typedef struct tdec {
    const char *name;
    TIFF *tif;
    tmsg *msg;
    tlayout L;
    gf_image *out;
    int map[GF_MAX_CHANNELS]; /* output channel -> stored sample; -1: from the palette */
    int direct; /* chunky rows of the output's samples, in its order: copied as they are */
} tdec;

/* libtiff's error, or what failed when it said nothing. */
static int tiff_error(const tdec *d, const char *what)
{
    if (d->msg->errors)
        return gf_err(GF_EDATA, d->name, "TIFF %s: %s", what, d->msg->text);
    return gf_err(GF_EDATA, d->name, "TIFF %s", what);
}

/* Sample x of a stored row of `n` samples a pixel (bits: L->bps; 16-bit
 * host order, as libtiff gives it). */
static unsigned stored(const tlayout *L, const unsigned char *row, size_t i)
{
    if (L->bps == 8)
        return row[i];
    if (L->bps == 16) {
        uint16_t v;
        memcpy(&v, row + 2 * i, 2);
        return v;
    }
    const size_t bit = i * L->bps;
    return (unsigned)(row[bit / 8] >> (8 - L->bps - bit % 8)) & ((1u << L->bps) - 1);
}

/* One stored row of plane p (all samples when chunky) into row y of the
 * output. */
static void put_row(const tdec *d, int p, const unsigned char *raw, uint32_t y)
{
    const tlayout *L = &d->L;
    gf_image *o = d->out;
    const int chunky = L->planar != PLANARCONFIG_SEPARATE, n = chunky ? L->spp : 1;
    const unsigned max = gf_sample_max(o->bits), smax = (1u << L->bps) - 1;

    if (d->direct) { /* the stored row is the output's row */
        memcpy(o->data + (size_t)y * o->stride, raw,
               (size_t)L->w * GF_PIXEL_BYTES(o->channels, o->bits));
        return;
    }
    for (uint32_t x = 0; x < L->w; x++) {
        if (L->palette) {
            const unsigned i = stored(L, raw, x);
            for (int c = 0; c < 3; c++)
                gf_sample_set(o, (int)x, (int)y, c,
                              o->bits == 8 ? L->cmap[c][i] / 257u : L->cmap[c][i]);
            continue;
        }
        for (int c = 0; c < o->channels; c++) {
            const int s = d->map[c];
            if (!chunky && s != p)
                continue;
            unsigned v = stored(L, raw, (size_t)x * n + (chunky ? s : 0));
            if (L->bps < 8)
                v = v * (255u / smax); /* bit replication: 1 -> 255, 3 -> 255, 15 -> 255 */
            if (L->min_is_white && s == 0)
                v = max - v;
            gf_sample_set(o, (int)x, (int)y, c, v);
        }
    }
}

/* Associated alpha divided out, as Pillow's RGBa unpacker does (8-bit
 * RGBA), at either depth and for gray+alpha too. */
static void unpremultiply(gf_image *o)
{
    const unsigned max = gf_sample_max(o->bits);
    const int a = o->channels - 1;

    for (int y = 0; y < o->height; y++)
        for (int x = 0; x < o->width; x++) {
            const unsigned al = gf_sample(o, x, y, a);
            if (al == max)
                continue;
            for (int c = 0; c < a; c++) {
                unsigned v = al ? (unsigned)((uint64_t)gf_sample(o, x, y, c) * max / al) : 0;
                gf_sample_set(o, x, y, c, v > max ? max : v);
            }
        }
}

/* Plane p (0 for chunky) from its strips. */
static int read_strips(tdec *d, uint16_t p, unsigned char *band, tmsize_t band_size,
                       uint64_t scanline)
{
    uint32_t rps = 0;

    TIFFGetFieldDefaulted(d->tif, TIFFTAG_ROWSPERSTRIP, &rps);
    if (rps == 0 || rps > d->L.h)
        rps = d->L.h;
    for (uint32_t y = 0; y < d->L.h; y += rps) {
        const uint32_t rows = d->L.h - y < rps ? d->L.h - y : rps;
        const uint32_t strip = TIFFComputeStrip(d->tif, y, p);
        tmsize_t n = TIFFReadEncodedStrip(d->tif, strip, band, band_size);
        if (n < 0 || (uint64_t)n < rows * scanline) {
            char what[64];
            snprintf(what, sizeof what, "strip %u cannot be read", strip);
            return n < 0 ? tiff_error(d, what)
                         : gf_err(GF_EDATA, d->name, "TIFF strip %u is cut short", strip);
        }
        for (uint32_t r = 0; r < rows; r++)
            put_row(d, p, band + r * scanline, y + r);
    }
    return 0;
}

/* Plane p (0 for chunky) from its tiles, a row of tiles at a time. */
static int read_tiles(tdec *d, uint16_t p, uint32_t tw, uint32_t th, unsigned char *band,
                      unsigned char *tile, tmsize_t tile_size, uint64_t tile_row)
{
    const uint32_t across = (d->L.w + tw - 1) / tw;
    const uint64_t band_row = across * tile_row;

    for (uint32_t y = 0; y < d->L.h; y += th) {
        const uint32_t rows = d->L.h - y < th ? d->L.h - y : th;
        for (uint32_t tx = 0; tx < across; tx++) {
            const uint32_t t = TIFFComputeTile(d->tif, tx * tw, y, 0, p);
            tmsize_t n = TIFFReadEncodedTile(d->tif, t, tile, tile_size);
            if (n < 0 || (uint64_t)n < th * tile_row) {
                char what[64];
                snprintf(what, sizeof what, "tile %u cannot be read", t);
                return n < 0 ? tiff_error(d, what)
                             : gf_err(GF_EDATA, d->name, "TIFF tile %u is cut short", t);
            }
            for (uint32_t r = 0; r < rows; r++)
                memcpy(band + r * band_row + tx * tile_row, tile + r * tile_row, tile_row);
        }
        for (uint32_t r = 0; r < rows; r++)
            put_row(d, p, band + r * band_row, y + r);
    }
    return 0;
}

/* The pixels of the current directory, whose layout is d->L, into d->out. */
static int read_pixels(tdec *d)
{
    const tlayout *L = &d->L;
    const int planes = L->planar == PLANARCONFIG_SEPARATE ? L->spp : 1;
    const uint64_t plane_bytes =
        (uint64_t)L->h * (((uint64_t)L->w * L->bps * (planes > 1 ? 1 : L->spp) + 7) / 8);
    unsigned char *band = NULL, *tile = NULL;
    int rc = 0;

    if (!TIFFIsCODECConfigured(L->compression)) {
        const TIFFCodec *c = TIFFFindCODEC(L->compression);
        return gf_err(GF_EDATA, d->name, "TIFF compression %u%s%s%s is not supported",
                      L->compression, c ? " (" : "", c ? c->name : "", c ? ")" : "");
    }
    if (TIFFIsTiled(d->tif)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(d->tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(d->tif, TIFFTAG_TILELENGTH, &th);
        const uint64_t tile_row = TIFFTileRowSize64(d->tif), tile_size = TIFFTileSize64(d->tif);
        const uint64_t across = tw ? (L->w + (uint64_t)tw - 1) / tw : 0;
        if (tw == 0 || th == 0 || tile_row == 0 || tile_size == 0 ||
            (L->bps < 8 && (uint64_t)tw * L->bps % 8))
            return gf_err(GF_EDATA, d->name, "TIFF tile of %ux%u pixels is not read", tw, th);
        if (tile_size < th * tile_row || across * th * tile_row > 4 * plane_bytes + TILE_SLACK ||
            tile_size > 4 * plane_bytes + TILE_SLACK)
            return gf_err(GF_EDATA, d->name,
                          "TIFF tiles of %ux%u pixels are too large for its %ux%u image", tw, th,
                          L->w, L->h);
        band = malloc((size_t)(across * th * tile_row));
        tile = malloc((size_t)tile_size);
        if (!band || !tile)
            rc = gf_err(GF_EINTERNAL, d->name, "out of memory decoding TIFF");
        for (int p = 0; rc == 0 && p < planes; p++)
            rc = read_tiles(d, (uint16_t)p, tw, th, band, tile, (tmsize_t)tile_size, tile_row);
    } else {
        const uint64_t scanline = TIFFScanlineSize64(d->tif), strip = TIFFStripSize64(d->tif);
        if (scanline == 0 || strip == 0 || strip > plane_bytes + TILE_SLACK)
            return tiff_error(d, "strips cannot be read");
        band = malloc((size_t)strip);
        if (!band)
            rc = gf_err(GF_EINTERNAL, d->name, "out of memory decoding TIFF");
        for (int p = 0; rc == 0 && p < planes; p++)
            rc = read_strips(d, (uint16_t)p, band, (tmsize_t)strip, scanline);
    }
    free(band);
    free(tile);
    if (rc == 0 && L->assoc)
        unpremultiply(d->out);
    return rc;
}

#define ICC_TAG 34675    /* InterColorProfile */
#define MAX_DIR_ENTRIES 4096 /* libtiff reads no directory of more */

/* The page's ICC profile from its directory's entries e[0, k), read from
 * the file's bytes (buf, len) rather than libtiff's, so that one libtiff
 * would pass over in silence (its data past the file's end, a count of
 * 2^31) is dropped with a warning naming why. */
static int read_icc(const tdec *d, const gf_ifd_entry *e, int k, gf_load_info *info)
{
    char why[120];

    for (int i = 0; i < k; i++) {
        if (e[i].tag != ICC_TAG)
            continue;
        if (e[i].type != GF_TIFF_UNDEFINED && e[i].type != GF_TIFF_BYTE)
            snprintf(why, sizeof why, "ICC profile dropped: its tag is of type %u, not bytes",
                     e[i].type);
        else if (e[i].count > GF_MAX_ICC_BYTES)
            snprintf(why, sizeof why, "ICC profile dropped: its tag claims %llu bytes, more "
                     "than 16 MiB", (unsigned long long)e[i].count);
        else if (!e[i].value)
            snprintf(why, sizeof why, "ICC profile dropped: its %llu bytes lie past the end of "
                     "the file", (unsigned long long)e[i].count);
        else
            return gf_meta_keep_icc(&info->meta, d->name, e[i].value, (size_t)e[i].count);
        gf_meta_warn(d->name, why);
        return 0;
    }
    return 0;
}

/* The page's EXIF: the tags of its directory e[0, k) that EXIF's IFD0
 * shares, and its EXIF and GPS IFDs (gf_exif_from_tiff), built into one
 * EXIF blob and kept by gf_meta_keep_exif's rules. */
static int read_exif(const tdec *d, const unsigned char *buf, size_t len, const gf_ifd_entry *e,
                     int k, gf_load_info *info)
{
    gf_exif_dirs *x = malloc(sizeof *x);
    unsigned char *blob = NULL;
    size_t n = 0;
    const char *why;
    int rc = 0;

    if (!x)
        return gf_err(GF_EINTERNAL, d->name, "out of memory reading metadata");
    if ((why = gf_exif_from_tiff(buf, len, buf[0] == 'I', TIFFIsBigTIFF(d->tif), e, k, x))) {
        char msg[120];
        snprintf(msg, sizeof msg, "EXIF dropped: %s", why);
        gf_meta_warn(d->name, msg);
    } else if (x->n[GF_EXIF_IFD0] + x->n[GF_EXIF_EXIF] + x->n[GF_EXIF_GPS] > 0) {
        if (!(blob = gf_exif_build(x, &n)))
            rc = gf_err(GF_EINTERNAL, d->name, "out of memory reading metadata");
        else
            rc = gf_meta_keep_exif(&info->meta, d->name, blob, n);
    }
    free(blob);
    free(x);
    return rc;
}

/* The page's Orientation tag (1-8, else 1), and with GF_DECODE_META in
 * flags its ICC profile (tag 34675) and EXIF (read_exif) kept in
 * info->meta, from the page's directory as the file's bytes (buf, len)
 * hold it. */
static int read_meta(const tdec *d, const unsigned char *buf, size_t len, int flags,
                     gf_load_info *info)
{
    uint16_t o = 1;
    gf_ifd_entry *e;
    const char *why;
    int k, rc;

    if (TIFFGetField(d->tif, TIFFTAG_ORIENTATION, &o) && o >= 1 && o <= 8)
        info->orientation = o;
    if (!(flags & GF_DECODE_META))
        return 0;
    if (!(e = malloc(MAX_DIR_ENTRIES * sizeof *e)))
        return gf_err(GF_EINTERNAL, d->name, "out of memory reading metadata");
    /* libtiff has read this directory, so its entries lie within the file */
    k = gf_ifd_read(buf, len, TIFFCurrentDirOffset(d->tif), buf[0] == 'I', TIFFIsBigTIFF(d->tif),
                    e, MAX_DIR_ENTRIES, &why);
    rc = k < 0 ? 0 : read_icc(d, e, k, info);
    if (rc == 0 && k >= 0)
        rc = read_exif(d, buf, len, e, k, info);
    free(e);
    return rc;
}

int gf_decode_tiff(const char *name, const unsigned char *buf, size_t len, const gf_limits *lim,
                   int flags, gf_image *out, gf_load_info *info)
{
    membuf m = {(unsigned char *)(uintptr_t)buf, len, len, 0, 0, 0};
    tmsg msg = {{0}, 0, 0};
    tdec d = {name, NULL, &msg, {0}, out, {0}, 0};
    char why[200];
    tdir_t pages;
    int rc = 0;

    info->format = "tiff";
    if (!(d.tif = open_mem(&m, &msg, "r")))
        return gf_err(GF_EDATA, name, "TIFF cannot be read%s%s", msg.errors ? ": " : "",
                      msg.errors ? msg.text : " (no first directory)");
    /* the whole chain of directories: one that loops or points outside the
     * file is an error, whatever page is read */
    msg.errors = 0;
    msg.strict = 1;
    pages = TIFFNumberOfDirectories(d.tif);
    msg.strict = 0;
    if (msg.errors) {
        rc = gf_err(GF_EDATA, name, "TIFF directory chain is broken: %s", msg.text);
        goto out;
    }
    if (lim->page >= pages) {
        rc = gf_err(GF_EDATA, name, "TIFF has %u page%s; --page %u does not exist", pages,
                    pages == 1 ? "" : "s", lim->page);
        goto out;
    }
    if (!TIFFSetDirectory(d.tif, (tdir_t)lim->page)) {
        rc = tiff_error(&d, "page cannot be read");
        goto out;
    }
    if (layout(d.tif, &d.L, why, sizeof why)) {
        rc = gf_err(GF_EDATA, name, "TIFF %s", why);
        goto out;
    }
    if ((rc = gf_check_size(name, "TIFF", d.L.w, d.L.h, d.L.channels, d.L.bits, lim)))
        goto out;
    if (d.L.photo == PHOTOMETRIC_YCBCR &&
        !TIFFSetField(d.tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB)) {
        rc = tiff_error(&d, "YCbCr cannot be converted to RGB");
        goto out;
    }
    for (int c = 0; c < d.L.color; c++)
        d.map[c] = c;
    if (d.L.alpha >= 0)
        d.map[d.L.color] = d.L.alpha;
    d.direct = d.L.planar != PLANARCONFIG_SEPARATE && !d.L.palette && !d.L.min_is_white &&
               (int)d.L.bps == d.L.bits && (int)d.L.spp == d.L.channels &&
               (d.L.alpha < 0 || d.L.alpha == d.L.color);
    if ((rc = gf_image_alloc(out, (int)d.L.w, (int)d.L.h, d.L.channels, d.L.bits)))
        goto out;
    msg.errors = 0;
    if ((rc = read_pixels(&d)) == 0)
        rc = read_meta(&d, buf, len, flags, info);
out:
    TIFFClose(d.tif);
    return rc;
}

/* Writing EXIF. What class of values a TIFF type holds: text, integers
 * (bytes and undefined bytes among them) or real numbers (rationals,
 * floats); 0 for a type not known. */
enum { V_TEXT = 1, V_INT, V_REAL };
static int value_class(unsigned type)
{
    switch (type) {
    case GF_TIFF_ASCII: return V_TEXT;
    case GF_TIFF_RATIONAL:
    case GF_TIFF_SRATIONAL:
    case GF_TIFF_FLOAT:
    case GF_TIFF_DOUBLE: return V_REAL;
    default: return gf_tiff_type_size(type) ? V_INT : 0;
    }
}

/* Sets entry x (values in byte order le) on tif's current directory: as
 * libtiff's own field where its field list for the directory knows the
 * tag, converted to that field's type and calling convention (libtiff
 * 4.5's TIFFSetField: a count first where it takes one, one value as an
 * int or a double, a fixed array, a string), else as a field of x's own
 * type added to the list. Returns 1 when set; 0 when left out: a value of
 * another class than the field's (text for numbers), too few values for a
 * fixed count, or libtiff refusing it. */
static int set_entry(TIFF *tif, const gf_ifd_entry *x, int le)
{
    static char anon_name[] = "EXIF tag"; /* libtiff keeps the pointer */
    const TIFFField *f = TIFFFindField(tif, x->tag, TIFF_ANY);
    int ok = 0, size, wc;
    unsigned char *v;

    if (!x->value || x->count == 0 || x->count > UINT32_MAX || x->type > GF_TIFF_DOUBLE ||
        !value_class(x->type))
        return 0;
    if (!f) {
        TIFFFieldInfo fi = {x->tag, TIFF_VARIABLE2, TIFF_VARIABLE2, (TIFFDataType)x->type,
                            FIELD_CUSTOM, 1, 1, anon_name};
        if (TIFFMergeFieldInfo(tif, &fi, 1) || !(f = TIFFFindField(tif, x->tag, TIFF_ANY)))
            return 0;
    }
    if (value_class(TIFFFieldDataType(f)) != value_class(x->type))
        return 0;
    wc = TIFFFieldWriteCount(f);
    if (value_class(x->type) == V_TEXT) {
        char *s = malloc((size_t)x->count + 1);
        if (!s)
            return 0;
        memcpy(s, x->value, (size_t)x->count);
        s[x->count] = 0;
        ok = TIFFFieldPassCount(f) ? TIFFSetField(tif, x->tag, (uint32_t)strlen(s) + 1, s)
                                   : TIFFSetField(tif, x->tag, s);
        free(s);
        return ok;
    }
    /* numbers: as the field's set/get type stores them (4-byte float or
     * 8-byte double for a rational) */
    if ((size = TIFFFieldSetGetSize(f)) == 0 || size > 8 ||
        !(v = malloc((size_t)x->count * (size_t)size)))
        return 0;
    for (uint64_t i = 0; i < x->count; i++) {
        unsigned char *p = v + i * (size_t)size;
        if (value_class(x->type) == V_REAL) {
            const double r = gf_ifd_real(x, i, le);
            const float fl = (float)r;
            if (size == 8)
                memcpy(p, &r, 8);
            else
                memcpy(p, &fl, 4);
        } else {
            const int64_t n = gf_ifd_int(x, i, le);
            const uint8_t b = (uint8_t)n;
            const uint16_t s = (uint16_t)n;
            const uint32_t l = (uint32_t)n;
            memcpy(p, size == 1 ? (const void *)&b : size == 2 ? (const void *)&s
                                                  : size == 4 ? (const void *)&l
                                                              : (const void *)&n,
                   (size_t)size);
        }
    }
    if (TIFFFieldPassCount(f)) {
        if (TIFFFieldSetGetCountSize(f) == 2 && x->count > UINT16_MAX)
            ok = 0;
        else if (TIFFFieldSetGetCountSize(f) == 2)
            ok = TIFFSetField(tif, x->tag, (int)x->count, v);
        else
            ok = TIFFSetField(tif, x->tag, (uint32_t)x->count, v);
    } else if (wc == 1) {
        ok = value_class(x->type) == V_REAL ? TIFFSetField(tif, x->tag, gf_ifd_real(x, 0, le))
             : size == 8 ? TIFFSetField(tif, x->tag, (uint64_t)gf_ifd_int(x, 0, le))
                         : TIFFSetField(tif, x->tag, (uint32_t)gf_ifd_int(x, 0, le));
    } else if (wc > 1 && x->count >= (uint64_t)wc) {
        ok = TIFFSetField(tif, x->tag, v);
    }
    free(v);
    return ok;
}

/* The EXIF tags libtiff would not take (set_entry's 0), for one warning. */
#define LEFT_OUT_LISTED 6
typedef struct left_out {
    unsigned tag[LEFT_OUT_LISTED];
    int n;
} left_out;

/* set_entry, noting a tag left out in *lo. */
static int set_or_note(TIFF *tif, const gf_ifd_entry *x, int le, left_out *lo)
{
    if (set_entry(tif, x, le))
        return 1;
    if (lo->n < LEFT_OUT_LISTED)
        lo->tag[lo->n] = x->tag;
    lo->n++;
    return 0;
}

/* "gpufilt: NAME: EXIF tags left out of the TIFF ...: 0x..., 0x..." when
 * lo has any. */
static void warn_left_out(const char *name, const left_out *lo)
{
    char msg[200];
    int k;

    if (!lo->n)
        return;
    k = snprintf(msg, sizeof msg, "EXIF tag%s left out of the TIFF (of a type or count libtiff "
                 "does not take for %s):", lo->n == 1 ? "" : "s", lo->n == 1 ? "it" : "them");
    for (int i = 0; i < lo->n && i < LEFT_OUT_LISTED && k > 0 && (size_t)k < sizeof msg; i++)
        k += snprintf(msg + k, sizeof msg - (size_t)k, "%s 0x%04x", i ? "," : "", lo->tag[i]);
    if (lo->n > LEFT_OUT_LISTED && k > 0 && (size_t)k < sizeof msg)
        snprintf(msg + k, sizeof msg - (size_t)k, " and %d more", lo->n - LEFT_OUT_LISTED);
    gf_meta_warn(name ? name : "output", msg);
}

/* Writes the EXIF directory `dir` of x (GF_EXIF_EXIF or GF_EXIF_GPS) as a
 * custom directory of tif (libtiff's TIFFCreateEXIFDirectory or
 * TIFFCreateGPSDirectory, then TIFFWriteCustomDirectory), before the image
 * directory; its offset in *off (0 when it has no entry that libtiff
 * takes); what libtiff refuses noted in *lo. Returns 1, or 0 when libtiff
 * fails. */
static int write_exif_dir(TIFF *tif, const gf_exif_dirs *x, int dir, uint64_t *off,
                          left_out *lo)
{
    int set = 0;

    *off = 0;
    if (!x->n[dir])
        return 1;
    if ((dir == GF_EXIF_EXIF ? TIFFCreateEXIFDirectory(tif) : TIFFCreateGPSDirectory(tif)) != 0)
        return 0;
    for (int i = 0; i < x->n[dir]; i++)
        set += set_or_note(tif, &x->e[dir][i], x->le, lo);
    if (set && !TIFFWriteCustomDirectory(tif, off))
        return 0;
    TIFFFreeDirectory(tif);
    return 1;
}

/* The image directory's share of the EXIF x: IFD0's entries that
 * gf_exif_ifd0_tag takes (Orientation among them; the others describe how
 * the EXIF's own image was stored, and are left out in silence), and the
 * pointers to the EXIF and GPS directories written before it; what libtiff
 * refuses noted in *lo. Returns 1, or 0 when libtiff refuses a pointer. */
static int set_exif_ifd0(TIFF *tif, const gf_exif_dirs *x, const uint64_t off[GF_EXIF_DIRS],
                         left_out *lo)
{
    for (int i = 0; i < x->n[GF_EXIF_IFD0]; i++)
        if (gf_exif_ifd0_tag(x->e[GF_EXIF_IFD0][i].tag))
            set_or_note(tif, &x->e[GF_EXIF_IFD0][i], x->le, lo);
    return (!off[GF_EXIF_EXIF] || TIFFSetField(tif, TIFFTAG_EXIFIFD, off[GF_EXIF_EXIF])) &&
           (!off[GF_EXIF_GPS] || TIFFSetField(tif, TIFFTAG_GPSIFD, off[GF_EXIF_GPS]));
}

int gf_encode_tiff(const gf_image *im, const gf_encode_opts *o, unsigned char **out, size_t *len)
{
    static const uint16_t scheme[] = {[GF_TIFF_DEFLATE] = COMPRESSION_ADOBE_DEFLATE,
                                      [GF_TIFF_NONE] = COMPRESSION_NONE,
                                      [GF_TIFF_LZW] = COMPRESSION_LZW,
                                      [GF_TIFF_PACKBITS] = COMPRESSION_PACKBITS};
    const size_t row = (size_t)im->width * GF_PIXEL_BYTES(im->channels, im->bits);
    const uint32_t rps = row >= STRIP_BYTES            ? 1
                         : STRIP_BYTES / row > (size_t)im->height ? (uint32_t)im->height
                                                                  : (uint32_t)(STRIP_BYTES / row);
    const uint16_t alpha = EXTRASAMPLE_UNASSALPHA;
    membuf m = {NULL, 0, 0, 0, 1, 0};
    tmsg msg = {{0}, 0, 0};
    unsigned char *strip = NULL;
    gf_exif_dirs *exif = NULL;
    uint64_t exif_off[GF_EXIF_DIRS] = {0};
    left_out lo = {{0}, 0};
    TIFF *tif;
    int ok = 1;

    *out = NULL;
    *len = 0;
    if (o->compress < 0 || o->compress > GF_TIFF_PACKBITS)
        return gf_err(GF_EINTERNAL, NULL, "TIFF compression %d unknown", o->compress);
    /* the EXIF kept (its checks passed when it was read) */
    if (o->meta && o->meta->exif && o->meta->exif_len) {
        if (!(exif = malloc(sizeof *exif)))
            return gf_err(GF_EINTERNAL, NULL, "TIFF encoding failed: out of memory");
        if (gf_exif_parse(o->meta->exif, o->meta->exif_len, exif)) {
            free(exif);
            exif = NULL;
        }
    }
    /* l: little-endian, whatever the host */
    if (!(tif = open_mem(&m, &msg, "wl"))) {
        free(m.b);
        free(exif);
        return gf_err(GF_EINTERNAL, NULL, "TIFF encoding failed: %s",
                      msg.errors ? msg.text : "out of memory");
    }
    const int compress = scheme[o->compress];
    /* the EXIF and GPS directories first, after the header; then the
     * image's, which points to them */
    if (exif && (exif->n[GF_EXIF_EXIF] || exif->n[GF_EXIF_GPS]))
        ok = write_exif_dir(tif, exif, GF_EXIF_EXIF, &exif_off[GF_EXIF_EXIF], &lo) &&
             write_exif_dir(tif, exif, GF_EXIF_GPS, &exif_off[GF_EXIF_GPS], &lo) &&
             TIFFCreateDirectory(tif) == 0;
    ok = ok && TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)im->width) &&
         TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)im->height) &&
         TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)im->bits) &&
         TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)im->channels) &&
         TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                      im->channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK) &&
         TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
         TIFFSetField(tif, TIFFTAG_COMPRESSION, compress) &&
         TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rps) &&
         (im->channels % 2 || TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &alpha)) &&
         ((compress != COMPRESSION_ADOBE_DEFLATE && compress != COMPRESSION_LZW) ||
          TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL)) &&
         (!o->meta || !o->meta->icc || !o->meta->icc_len ||
          TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)o->meta->icc_len, o->meta->icc)) &&
         (!exif || set_exif_ifd0(tif, exif, exif_off, &lo));
    /* libtiff changes what it is given (predictor, byte swapping): a copy */
    if (ok && !(strip = malloc(row * rps)))
        ok = 0;
    for (uint32_t s = 0, y = 0; ok && y < (uint32_t)im->height; s++, y += rps) {
        const uint32_t rows = (uint32_t)im->height - y < rps ? (uint32_t)im->height - y : rps;
        for (uint32_t r = 0; r < rows; r++)
            memcpy(strip + r * row, im->data + (size_t)(y + r) * im->stride, row);
        ok = TIFFWriteEncodedStrip(tif, s, strip, (tmsize_t)(rows * row)) >= 0;
    }
    ok = ok && TIFFFlush(tif) == 1 && !m.failed;
    TIFFClose(tif);
    free(strip);
    free(exif);
    if (!ok || m.failed) {
        free(m.b);
        return gf_err(GF_EINTERNAL, NULL, "TIFF encoding failed: %s",
                      msg.errors ? msg.text : "out of memory");
    }
    warn_left_out(o->name, &lo);
    *out = m.b;
    *len = m.len;
    return 0;
}
