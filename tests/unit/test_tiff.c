/* test_tiff.c - TIFF (src/codec/tiff.c): every layout through every
 * compression and back, exact, on random images of awkward sizes; files
 * that libtiff writes here in other forms (tiles, planar, big-endian,
 * MinIsWhite, 1-bit, palettes, associated alpha) against the samples they
 * were written from; --page on a 3-page file; and the refusals (cut short,
 * a directory chain that loops, a tile size of 0, a strip past the end, a
 * header claiming 100000x100000, float samples), each GF_EDATA with its one
 * message. */
#include "common.h"

#include <tiffio.h>

#include "../../src/codec/codec.h"
#include "../../src/codec/formats.h"
#include "../../src/pipeline.h"

static const gf_limits lim = {.max_pixels = GF_DEFAULT_MAX_PIXELS,
                              .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES,
                              .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};

static const int compressions[] = {GF_TIFF_DEFLATE, GF_TIFF_NONE, GF_TIFF_LZW, GF_TIFF_PACKBITS};
static const char *const compression_names[] = {"deflate", "none", "lzw", "packbits"};
static const uint16_t compression_tags[] = {COMPRESSION_ADOBE_DEFLATE, COMPRESSION_NONE,
                                            COMPRESSION_LZW, COMPRESSION_PACKBITS};

static unsigned char *encode(const gf_image *im, int compress, size_t *len)
{
    gf_encode_opts o = {.format = GF_FMT_TIFF, .png_level = GF_DEFAULT_PNG_LEVEL,
                        .quality = GF_DEFAULT_JPEG_QUALITY, .compress = compress};
    unsigned char *buf;
    if (gf_encode(im, &o, &buf, len))
        fail_msg("encode: %s", gf_errmsg());
    return buf;
}

/* The first 32-bit value of the byte order of buf's header at p. */
static uint32_t get32(const unsigned char *buf, size_t p)
{
    return buf[0] == 'I' ? (uint32_t)buf[p] | buf[p + 1] << 8 | buf[p + 2] << 16 |
                               (uint32_t)buf[p + 3] << 24
                         : (uint32_t)buf[p] << 24 | buf[p + 1] << 16 | buf[p + 2] << 8 | buf[p + 3];
}

static void put32le(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

/* Decodes with limits l; GF_EDATA expected, and a message that holds want. */
static void expect_refusal(const unsigned char *buf, size_t len, const gf_limits *l,
                           const char *want)
{
    gf_image im;
    gf_load_info info;
    int rc = gf_decode("t.tif", buf, len, l, 0, &im, &info);
    if (rc != GF_EDATA)
        fail_msg("decoded with %d, want GF_EDATA (%s)", rc, want);
    assert_null(im.data);
    if (!strstr(gf_errmsg(), want) || strncmp(gf_errmsg(), "t.tif: TIFF", 11) ||
        strchr(gf_errmsg(), '\n'))
        fail_msg("message '%s', want one line 't.tif: TIFF ...%s...'", gf_errmsg(), want);
}

static void decode_ok(const unsigned char *buf, size_t len, const gf_limits *l, gf_image *im)
{
    gf_load_info info;
    if (gf_decode("t.tif", buf, len, l, 0, im, &info))
        fail_msg("decode: %s", gf_errmsg());
    assert_string_equal(info.format, "tiff");
}

static void expect_same(const gf_image *want, const gf_image *got, const char *what)
{
    int x, y, c;
    if (got->channels != want->channels || got->bits != want->bits)
        fail_msg("%s: %s back, want %s", what, gf_layout_name(got->channels, got->bits),
                 gf_layout_name(want->channels, want->bits));
    if (gf_image_diff(want, got, &x, &y, &c))
        fail_msg("%s %dx%d: (%d,%d) channel %d is %u, want %u", what, want->width, want->height, x,
                 y, c, gf_sample(got, x, y, c), gf_sample(want, x, y, c));
}

/* The tags of a file gpufilt wrote, as libtiff reads them: compression k,
 * the predictor with deflate and LZW, ExtraSamples 2 with alpha, chunky. */
static void check_tags(const unsigned char *buf, size_t len, int k, int ch)
{
    char path[] = "/tmp/gf-tiff-tags-XXXXXX";
    uint16_t comp = 0, pred = 0, planar = 0, n = 0, *ex = NULL;
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
    TIFF *t = TIFFOpen(path, "r");
    assert_non_null(t);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &comp);
    TIFFGetFieldDefaulted(t, TIFFTAG_PREDICTOR, &pred);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    assert_int_equal(comp, compression_tags[k]);
    if (k == 0 || k == 2)
        assert_int_equal(pred, PREDICTOR_HORIZONTAL);
    else /* no Predictor tag (libtiff gives no default without the codec's) */
        assert_true(pred == 0 || pred == PREDICTOR_NONE);
    assert_int_equal(planar, PLANARCONFIG_CONTIG);
    if (ch % 2 == 0) {
        assert_true(TIFFGetField(t, TIFFTAG_EXTRASAMPLES, &n, &ex));
        assert_int_equal(n, 1);
        assert_int_equal(ex[0], EXTRASAMPLE_UNASSALPHA);
    } else {
        assert_false(TIFFGetField(t, TIFFTAG_EXTRASAMPLES, &n, &ex));
    }
    TIFFClose(t);
    unlink(path);
}

/* Every layout x every compression, encoded and decoded: the same samples;
 * the file says the compression asked for, the predictor with deflate and
 * LZW, and ExtraSamples 2 for alpha (read back by libtiff itself); the
 * bytes are the same twice. */
static void test_roundtrip(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 3}, {257, 131}, {1, 300}, {3000, 2}};
    (void)state;
    for (int l = 0; l < 8; l++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const int ch = test_layouts[l][0], bits = test_layouts[l][1];
            gf_image a;
            random_layout(&a, sizes[s][0], sizes[s][1], ch, bits);
            for (int k = 0; k < 4; k++) {
                char what[96];
                size_t len, len2;
                unsigned char *buf = encode(&a, compressions[k], &len);
                unsigned char *again = encode(&a, compressions[k], &len2);
                gf_image b;
                snprintf(what, sizeof what, "%s %s", gf_layout_name(ch, bits),
                         compression_names[k]);
                assert_true(gf_tiff_sniff(buf, len));
                assert_true(len == len2 && !memcmp(buf, again, len));
                decode_ok(buf, len, &lim, &b);
                expect_same(&a, &b, what);
                gf_shape sh;
                assert_int_equal(gf_peek_size(buf, len, &sh), 0);
                assert_true(sh.width == a.width && sh.height == a.height && sh.channels == ch &&
                            sh.bits == bits);
                if (s == 1)
                    check_tags(buf, len, k, ch);
                free(buf);
                free(again);
                gf_image_free(&b);
            }
            gf_image_free(&a);
        }
}

/* A file written by libtiff here: fields set by the caller's setup, then
 * the rows of `rows` (stored form, rowbytes each) in strips or tiles. */
typedef struct wfile {
    char path[64];
    TIFF *tif;
} wfile;

static TIFF *wopen(wfile *w, const char *mode)
{
    snprintf(w->path, sizeof w->path, "/tmp/gf-tiff-XXXXXX");
    int fd = mkstemp(w->path);
    assert_true(fd >= 0);
    close(fd);
    w->tif = TIFFOpen(w->path, mode);
    assert_non_null(w->tif);
    return w->tif;
}

/* Closes w's file and reads it back whole. */
static unsigned char *wclose(wfile *w, size_t *len)
{
    unsigned char *buf;
    TIFFClose(w->tif);
    assert_int_equal(gf_read_all(w->path, &lim, &buf, len), 0);
    unlink(w->path);
    return buf;
}

static void set_basic(TIFF *t, uint32_t w, uint32_t h, uint16_t bps, uint16_t spp, uint16_t photo)
{
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bps);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, photo);
}

/* The image a as planar (one plane a sample), tiled 16x16, big-endian,
 * LZW with the predictor: the same samples back. */
static void test_planar_tiled_bigendian(void **state)
{
    (void)state;
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1], bps = bits / 8;
        gf_image a, b;
        wfile w;
        size_t len;
        random_layout(&a, 37, 21, ch, bits);
        TIFF *t = wopen(&w, "wb");
        set_basic(t, 37, 21, (uint16_t)bits, (uint16_t)ch,
                  ch >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        if (ch % 2 == 0) {
            uint16_t ex = EXTRASAMPLE_UNASSALPHA;
            TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &ex);
        }
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_SEPARATE);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
        TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
        TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
        unsigned char *tile = calloc(16 * 16, (size_t)bps);
        for (int c = 0; c < ch; c++)
            for (int ty = 0; ty < 21; ty += 16)
                for (int tx = 0; tx < 37; tx += 16) {
                    memset(tile, 0, 16 * 16 * (size_t)bps);
                    for (int y = ty; y < ty + 16 && y < 21; y++)
                        for (int x = tx; x < tx + 16 && x < 37; x++) {
                            const unsigned v = gf_sample(&a, x, y, c);
                            const size_t i = (size_t)(y - ty) * 16 + (size_t)(x - tx);
                            if (bits == 8)
                                tile[i] = (unsigned char)v;
                            else
                                ((uint16_t *)(void *)tile)[i] = (uint16_t)v;
                        }
                    assert_true(TIFFWriteTile(t, tile, (uint32_t)tx, (uint32_t)ty, 0,
                                              (uint16_t)c) >= 0);
                }
        free(tile);
        unsigned char *buf = wclose(&w, &len);
        assert_int_equal(buf[0], 'M');
        decode_ok(buf, len, &lim, &b);
        expect_same(&a, &b, "planar tiled big-endian");
        free(buf);
        gf_image_free(&a);
        gf_image_free(&b);
    }
}

/* MinIsWhite 8 and 16 bits, 1-, 2- and 4-bit gray, and a palette: what
 * each decodes to, by the rules of tiff.c. */
static void test_gray_and_palette(void **state)
{
    (void)state;
    static const int depths[] = {1, 2, 4, 8, 16};
    for (size_t k = 0; k < 5; k++)
        for (int white = 0; white < 2; white++) {
            const int d = depths[k], W = 19, H = 5;
            const size_t rowb = ((size_t)W * d + 7) / 8;
            unsigned vals[19 * 5];
            unsigned char *row = calloc(rowb, 1);
            wfile w;
            size_t len;
            gf_image b;
            TIFF *t = wopen(&w, "w");
            set_basic(t, W, H, (uint16_t)d, 1,
                      white ? PHOTOMETRIC_MINISWHITE : PHOTOMETRIC_MINISBLACK);
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 2);
            TIFFSetField(t, TIFFTAG_COMPRESSION, d == 1 ? COMPRESSION_PACKBITS : COMPRESSION_NONE);
            for (int y = 0; y < H; y++) {
                memset(row, 0, rowb);
                for (int x = 0; x < W; x++) {
                    const unsigned v = test_rand() & ((1u << d) - 1);
                    vals[y * W + x] = v;
                    if (d == 16)
                        ((uint16_t *)(void *)row)[x] = (uint16_t)v;
                    else
                        row[(size_t)x * d / 8] |= (unsigned char)(v << (8 - d - x * d % 8));
                }
                assert_true(TIFFWriteScanline(t, row, (uint32_t)y, 0) >= 0);
            }
            free(row);
            unsigned char *buf = wclose(&w, &len);
            decode_ok(buf, len, &lim, &b);
            assert_int_equal(b.channels, 1);
            assert_int_equal(b.bits, d == 16 ? 16 : 8);
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    const unsigned max = d == 16 ? 65535 : 255;
                    unsigned v = vals[y * W + x] * (d == 16 ? 1 : 255u / ((1u << d) - 1));
                    if (white)
                        v = max - v;
                    if (gf_sample(&b, x, y, 0) != v)
                        fail_msg("%d-bit %s (%d,%d): %u, want %u", d,
                                 white ? "MinIsWhite" : "MinIsBlack", x, y, gf_sample(&b, x, y, 0),
                                 v);
                }
            free(buf);
            gf_image_free(&b);
        }
    /* palettes: 8-bit colours (multiples of 257) give 8-bit RGB, others 16 */
    for (int wide = 0; wide < 2; wide++)
        for (int d = 2; d <= 8; d += 6) {
            uint16_t cmap[3][256];
            unsigned char row[16];
            unsigned idx[16 * 3];
            wfile w;
            size_t len;
            gf_image b;
            for (int c = 0; c < 3; c++)
                for (int i = 0; i < 256; i++)
                    cmap[c][i] = wide ? (uint16_t)test_rand()
                                      : (uint16_t)((test_rand() & 255) * 257);
            TIFF *t = wopen(&w, "w");
            set_basic(t, 16, 3, (uint16_t)d, 1, PHOTOMETRIC_PALETTE);
            TIFFSetField(t, TIFFTAG_COLORMAP, cmap[0], cmap[1], cmap[2]);
            for (int y = 0; y < 3; y++) {
                memset(row, 0, sizeof row);
                for (int x = 0; x < 16; x++) {
                    const unsigned v = test_rand() & ((1u << d) - 1);
                    idx[y * 16 + x] = v;
                    row[(size_t)x * d / 8] |= (unsigned char)(v << (8 - d - x * d % 8));
                }
                assert_true(TIFFWriteScanline(t, row, (uint32_t)y, 0) >= 0);
            }
            unsigned char *buf = wclose(&w, &len);
            decode_ok(buf, len, &lim, &b);
            assert_int_equal(b.channels, 3);
            assert_int_equal(b.bits, wide ? 16 : 8);
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 16; x++)
                    for (int c = 0; c < 3; c++) {
                        const unsigned e = cmap[c][idx[y * 16 + x]];
                        assert_int_equal(gf_sample(&b, x, y, c), wide ? e : e / 257);
                    }
            free(buf);
            gf_image_free(&b);
        }
}

/* Associated alpha is divided out (floor(v * max / a), 0 where a is 0);
 * an extra sample that is not alpha is dropped. */
static void test_extra_samples(void **state)
{
    (void)state;
    static const unsigned char px[4][4] = {
        {100, 50, 20, 200}, {10, 20, 30, 0}, {255, 7, 1, 255}, {90, 91, 92, 91}};
    for (int kind = 0; kind < 2; kind++) {
        wfile w;
        size_t len;
        gf_image b;
        TIFF *t = wopen(&w, "w");
        uint16_t ex[2] = {kind ? EXTRASAMPLE_UNSPECIFIED : EXTRASAMPLE_ASSOCALPHA,
                          EXTRASAMPLE_ASSOCALPHA};
        set_basic(t, 4, 1, 8, kind ? 5 : 4, PHOTOMETRIC_RGB);
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, kind ? 2 : 1, ex);
        unsigned char row[20];
        for (int x = 0; x < 4; x++) {
            const int n = kind ? 5 : 4;
            memcpy(row + x * n, px[x], 3);
            row[x * n + 3] = kind ? 33 : px[x][3]; /* kind 1: an unspecified sample first */
            if (kind)
                row[x * n + 4] = px[x][3];
        }
        assert_true(TIFFWriteScanline(t, row, 0, 0) >= 0);
        unsigned char *buf = wclose(&w, &len);
        decode_ok(buf, len, &lim, &b);
        assert_int_equal(b.channels, 4);
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 4; c++) {
                const unsigned a = px[x][3], v = px[x][c];
                unsigned want = c == 3 || a == 255 ? v : a == 0 ? 0 : v * 255 / a;
                if (want > 255)
                    want = 255;
                if (gf_sample(&b, x, 0, c) != want)
                    fail_msg("kind %d pixel %d channel %d: %u, want %u", kind, x, c,
                             gf_sample(&b, x, 0, c), want);
            }
        free(buf);
        gf_image_free(&b);
    }
}

/* Samples beyond gray or RGB with no ExtraSamples tag: one is alpha, more
 * are refused. */
static void test_undeclared_extra(void **state)
{
    (void)state;
    for (int spp = 4; spp <= 5; spp++) {
        wfile w;
        size_t len;
        gf_image b;
        unsigned char row[3 * 5];
        for (size_t i = 0; i < sizeof row; i++)
            row[i] = (unsigned char)test_rand();
        TIFF *t = wopen(&w, "w");
        set_basic(t, 3, 1, 8, (uint16_t)spp, PHOTOMETRIC_RGB);
        assert_true(TIFFWriteScanline(t, row, 0, 0) >= 0);
        unsigned char *buf = wclose(&w, &len);
        if (spp == 5) {
            expect_refusal(buf, len, &lim, "no ExtraSamples tag");
        } else {
            decode_ok(buf, len, &lim, &b);
            assert_int_equal(b.channels, 4);
            assert_memory_equal(b.data, row, 12);
            gf_image_free(&b);
        }
        free(buf);
    }
}

/* A 3-page file, each page its own image: --page picks it; a page past the
 * end says how many there are. */
static void test_pages(void **state)
{
    gf_image a[3], b;
    wfile w;
    size_t len;
    (void)state;
    TIFF *t = wopen(&w, "w");
    for (int p = 0; p < 3; p++) {
        const int ch = 1 + p, bits = p == 1 ? 16 : 8;
        random_layout(&a[p], 5 + p, 4, ch, bits);
        set_basic(t, (uint32_t)a[p].width, 4, (uint16_t)bits, (uint16_t)ch,
                  ch >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        if (ch == 2) {
            uint16_t ex = EXTRASAMPLE_UNASSALPHA;
            TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &ex);
        }
        for (int y = 0; y < 4; y++)
            assert_true(TIFFWriteScanline(t, a[p].data + (size_t)y * a[p].stride, (uint32_t)y,
                                          0) >= 0);
        assert_true(TIFFWriteDirectory(t));
    }
    unsigned char *buf = wclose(&w, &len);
    for (uint32_t p = 0; p < 3; p++) {
        gf_limits l = lim;
        l.page = p;
        decode_ok(buf, len, &l, &b);
        expect_same(&a[p], &b, "page");
        gf_image_free(&b);
    }
    gf_limits l = lim;
    l.page = 3;
    expect_refusal(buf, len, &l, "TIFF has 3 pages; --page 3 does not exist");
    /* the first page's size from its header */
    gf_shape sh;
    assert_int_equal(gf_peek_size(buf, len, &sh), 0);
    assert_int_equal(sh.width, 5);
    /* a PNG has one page */
    unsigned char *png;
    size_t plen;
    gf_encode_opts po = {.format = GF_FMT_PNG, .png_level = 1, .quality = 90};
    assert_int_equal(gf_encode(&a[0], &po, &png, &plen), 0);
    l.page = 1;
    gf_load_info info;
    assert_int_equal(gf_decode("t.png", png, plen, &l, 0, &b, &info), GF_EDATA);
    assert_string_equal(gf_errmsg(), "t.png: PNG has one page; --page 1 does not exist");
    free(png);
    free(buf);
    for (int p = 0; p < 3; p++)
        gf_image_free(&a[p]);
}

/* The offset of the value of tag `tag` in the first directory of buf (a
 * little-endian classic TIFF), or 0. */
static size_t tag_value_at(const unsigned char *buf, size_t len, uint16_t tag)
{
    const uint32_t ifd = get32(buf, 4);
    const unsigned n = buf[ifd] | buf[ifd + 1] << 8;
    for (unsigned i = 0; i < n && ifd + 2 + 12 * (i + 1) <= len; i++) {
        const unsigned char *e = buf + ifd + 2 + 12 * i;
        if ((e[0] | e[1] << 8) == tag)
            return ifd + 2 + 12 * i + 8;
    }
    return 0;
}

/* The refusals: each GF_EDATA, with a message naming what. */
static void test_refusals(void **state)
{
    gf_image a;
    size_t len;
    (void)state;
    random_layout(&a, 300, 200, 3, 8);
    unsigned char *buf = encode(&a, GF_TIFF_NONE, &len);
    /* cut short: the directory (after the data) is lost, or the data */
    expect_refusal(buf, len / 2, &lim, "TIFF");
    expect_refusal(buf, 8, &lim, "cannot be read");
    /* a strip offset past the end of the file */
    unsigned char *bad = malloc(len);
    memcpy(bad, buf, len);
    size_t at = tag_value_at(bad, len, TIFFTAG_STRIPOFFSETS);
    assert_true(at > 0);
    put32le(bad + get32(bad, at), (uint32_t)len + 1000); /* the first strip's offset */
    expect_refusal(bad, len, &lim, "strip 0");
    /* a header claiming 100000x100000: refused before any decoding */
    memcpy(bad, buf, len);
    for (int i = 0; i < 2; i++) {
        const size_t v = tag_value_at(bad, len, i ? TIFFTAG_IMAGELENGTH : TIFFTAG_IMAGEWIDTH);
        bad[v - 6] = TIFF_LONG; /* the entry's type, then its value */
        bad[v - 5] = 0;
        put32le(bad + v, 100000);
    }
    expect_refusal(bad, len, &lim, "100000x100000");
    /* over --max-pixels */
    gf_limits small = lim;
    small.max_pixels = 300 * 200 - 1;
    expect_refusal(buf, len, &small, "TIFF image of 300x200 pixels exceeds --max-pixels");
    free(bad);
    free(buf);
    /* a directory chain that loops: page 0 sound, the third page's next
     * directory is the first again */
    {
        wfile w;
        TIFF *t = wopen(&w, "w");
        for (int p = 0; p < 3; p++) {
            set_basic(t, 300, 200, 8, 3, PHOTOMETRIC_RGB);
            for (int y = 0; y < 200; y++)
                TIFFWriteScanline(t, a.data + (size_t)y * a.stride, (uint32_t)y, 0);
            TIFFWriteDirectory(t);
        }
        buf = wclose(&w, &len);
        uint32_t first = get32(buf, 4), ifd = first, last = 0;
        while (ifd) {
            last = ifd;
            ifd = get32(buf, ifd + 2 + 12 * (buf[ifd] | buf[ifd + 1] << 8));
        }
        gf_image ok;
        decode_ok(buf, len, &lim, &ok);
        gf_image_free(&ok);
        put32le(buf + last + 2 + 12 * (buf[last] | buf[last + 1] << 8), first);
        expect_refusal(buf, len, &lim, "loop");
        /* and a next directory past the end */
        put32le(buf + last + 2 + 12 * (buf[last] | buf[last + 1] << 8), (uint32_t)len + 64);
        expect_refusal(buf, len, &lim, "directory chain is broken");
        free(buf);
    }
    /* a tile size of 0 */
    {
        wfile w;
        TIFF *t = wopen(&w, "w");
        set_basic(t, 32, 32, 8, 1, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
        unsigned char tile[256] = {0};
        for (int i = 0; i < 4; i++)
            TIFFWriteEncodedTile(t, (uint32_t)i, tile, sizeof tile);
        buf = wclose(&w, &len);
        size_t tw = tag_value_at(buf, len, TIFFTAG_TILEWIDTH);
        assert_true(tw > 0);
        memset(buf + tw, 0, 4);
        expect_refusal(buf, len, &lim, "TIFF");
        free(buf);
    }
    /* float samples, signed samples, CMYK, 32-bit */
    static const struct {
        uint16_t bps, spp, photo, fmt;
        const char *want;
    } kinds[] = {{32, 1, PHOTOMETRIC_MINISBLACK, SAMPLEFORMAT_IEEEFP, "floating-point"},
                 {16, 1, PHOTOMETRIC_MINISBLACK, SAMPLEFORMAT_INT, "signed integer"},
                 {8, 4, PHOTOMETRIC_SEPARATED, SAMPLEFORMAT_UINT, "CMYK"},
                 {32, 1, PHOTOMETRIC_MINISBLACK, SAMPLEFORMAT_UINT, "32-bit"},
                 {8, 3, PHOTOMETRIC_CIELAB, SAMPLEFORMAT_UINT, "Lab"}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        wfile w;
        unsigned char row[64] = {0};
        TIFF *t = wopen(&w, "w");
        set_basic(t, 4, 2, kinds[k].bps, kinds[k].spp, kinds[k].photo);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, kinds[k].fmt);
        for (int y = 0; y < 2; y++)
            TIFFWriteScanline(t, row, (uint32_t)y, 0);
        buf = wclose(&w, &len);
        expect_refusal(buf, len, &lim, kinds[k].want);
        free(buf);
    }
    gf_image_free(&a);
}

/* gf_read_image takes a TIFF whole, whatever its size, even when its
 * directory comes after more than GF_INPUT_PROBE bytes of data. */
static void test_read_whole(void **state)
{
    gf_image a, b;
    gf_load_info info;
    char path[] = "/tmp/gf-tiff-big-XXXXXX";
    size_t len;
    (void)state;
    random_layout(&a, 4000, 1500, 3, 8); /* 18 MB, its directory last */
    unsigned char *buf = encode(&a, GF_TIFF_NONE, &len);
    assert_true(len > GF_INPUT_PROBE && get32(buf, 4) > GF_INPUT_PROBE);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    close(fd);
    if (gf_load(path, &lim, &b, &info))
        fail_msg("%s", gf_errmsg());
    expect_same(&a, &b, "18 MB");
    unlink(path);
    free(buf);
    gf_image_free(&a);
    gf_image_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),       cmocka_unit_test(test_planar_tiled_bigendian),
        cmocka_unit_test(test_gray_and_palette), cmocka_unit_test(test_extra_samples),
        cmocka_unit_test(test_undeclared_extra), cmocka_unit_test(test_pages),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_read_whole),
    };
    TIFFSetErrorHandler(NULL); /* the files written here are meant to be odd */
    TIFFSetWarningHandler(NULL);
    return cmocka_run_group_tests_name("tiff", tests, NULL, NULL);
}
