/* test_codec.c - decoding and encoding: round trips of every layout through
 * every format that holds it, what each format decodes to (channels, depth,
 * palettes, tRNS, maxval scaling), the strictness rules (CRCs, palette
 * indices, samples above maxval, data cut short, palettes larger than the
 * file), limits checked before decoding, and the atomic writer. PNG test
 * files are built here with zlib. */
#include "common.h"

#include <dirent.h>
#include <sys/stat.h>
#include <zlib.h>

#include <turbojpeg.h>

#include "../../src/codec/codec.h"
#include "../../src/codec/jpeg_color.h"
#include "../../src/pipeline.h"

static const gf_limits lim = {.max_pixels = GF_DEFAULT_MAX_PIXELS,
                              .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES,
                              .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};
static gf_encode_opts png_opts = {.format = GF_FMT_PNG, .png_level = GF_DEFAULT_PNG_LEVEL, .quality = GF_DEFAULT_JPEG_QUALITY};
static const gf_encode_opts pgm_opts = {.format = GF_FMT_PGM, .png_level = GF_DEFAULT_PNG_LEVEL, .quality = GF_DEFAULT_JPEG_QUALITY};

static void expect_data_error(const unsigned char *buf, size_t len, const gf_limits *l)
{
    gf_image im;
    gf_load_info info;
    int rc = gf_decode("t", buf, len, l, 0, &im, &info);
    if (rc != GF_EDATA)
        fail_msg("decoded with %d (%dx%d)", rc, im.width, im.height);
    assert_null(im.data);
}

static void decode_ok(const unsigned char *buf, size_t len, gf_image *im, gf_load_info *info)
{
    int rc = gf_decode("t", buf, len, &lim, 0, im, info);
    if (rc)
        fail_msg("decode: %s", gf_errmsg());
}

/* 1 when a and b hold the same pixels in the same layout. */
static int same_image(const gf_image *a, const gf_image *b)
{
    int x, y, c;
    return !gf_image_diff(a, b, &x, &y, &c);
}

/* Every layout through PNG at three levels, and through every PNM format
 * that holds it: the same samples back. */
static void test_roundtrips(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {31, 33}, {257, 3}};
    (void)state;
    for (int l = 0; l < 8; l++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            const int ch = test_layouts[l][0], bits = test_layouts[l][1];
            const gf_format pnm = ch == 1 ? GF_FMT_PGM : ch == 3 ? GF_FMT_PPM : GF_FMT_PAM;
            const gf_encode_opts opts[] = {{.format = GF_FMT_PNG, .png_level = 0, .quality = 90}, {.format = GF_FMT_PNG, .png_level = 1, .quality = 90},
                                           {.format = GF_FMT_PNG, .png_level = 12, .quality = 90}, {.format = pnm, .png_level = 1, .quality = 90},
                                           {.format = GF_FMT_PAM, .png_level = 1, .quality = 90}};
            gf_image a;
            random_layout(&a, sizes[i][0], sizes[i][1], ch, bits);
            for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
                gf_image b;
                gf_load_info info;
                unsigned char *buf;
                size_t len;
                assert_int_equal(gf_encode(&a, &opts[o], &buf, &len), 0);
                decode_ok(buf, len, &b, &info);
                assert_string_equal(info.format, gf_format_name(opts[o].format));
                assert_int_equal(info.channels, ch);
                assert_int_equal(info.bits, bits);
                if (!same_image(&a, &b))
                    fail_msg("%s %s %dx%d: not the same image back",
                             gf_format_name(opts[o].format), gf_layout_name(ch, bits), a.width,
                             a.height);
                free(buf);
                gf_image_free(&b);
            }
            gf_image_free(&a);
        }
}

/* What each format holds, and the message that names the way out. */
static void test_format_holds(void **state)
{
    (void)state;
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        assert_int_equal(gf_format_holds(GF_FMT_PNG, ch, bits), 0);
        assert_int_equal(gf_format_holds(GF_FMT_PAM, ch, bits), 0);
        assert_int_equal(gf_format_holds(GF_FMT_PGM, ch, bits), ch == 1 ? 0 : GF_EUSAGE);
        assert_int_equal(gf_format_holds(GF_FMT_PPM, ch, bits), ch == 3 ? 0 : GF_EUSAGE);
        assert_int_equal(gf_format_holds(GF_FMT_JPEG, ch, bits),
                         bits == 8 && (ch == 1 || ch == 3) ? 0 : GF_EUSAGE);
    }
    gf_format_holds(GF_FMT_JPEG, 1, 16);
    assert_non_null(strstr(gf_errmsg(), "--depth 8"));
    gf_format_holds(GF_FMT_JPEG, 4, 8);
    assert_non_null(strstr(gf_errmsg(), "PNG or PAM"));
    gf_format_holds(GF_FMT_PGM, 3, 8);
    assert_non_null(strstr(gf_errmsg(), "--gray"));
    /* gf_encode says so too, and makes nothing */
    gf_image a;
    unsigned char *buf = NULL;
    size_t len = 0;
    const gf_encode_opts jpeg = {.format = GF_FMT_JPEG, .png_level = 1, .quality = 90};
    random_layout(&a, 4, 4, 4, 8);
    assert_int_equal(gf_encode(&a, &jpeg, &buf, &len), GF_EUSAGE);
    assert_null(buf);
    gf_image_free(&a);
}

/* JPEG: gray and RGB encode and decode as such, close to the image; with
 * GF_DECODE_LUMA a colour JPEG gives one channel. */
static void test_jpeg_layouts(void **state)
{
    const gf_encode_opts jpeg = {.format = GF_FMT_JPEG, .png_level = 1, .quality = 95};
    (void)state;
    for (int ch = 1; ch <= 3; ch += 2) {
        gf_image a, b;
        gf_load_info info;
        unsigned char *buf;
        size_t len;
        long diff = 0;
        assert_int_equal(gf_image_alloc(&a, 40, 30, ch, 8), 0);
        for (int y = 0; y < 30; y++) /* smooth, so quality 95 keeps it close */
            for (int x = 0; x < 40; x++)
                for (int c = 0; c < ch; c++)
                    gf_sample_set(&a, x, y, c, (unsigned)(60 + 3 * x + 2 * y + 20 * c));
        assert_int_equal(gf_encode(&a, &jpeg, &buf, &len), 0);
        decode_ok(buf, len, &b, &info);
        assert_string_equal(info.format, "jpeg");
        assert_int_equal(b.channels, ch);
        for (int y = 0; y < 30; y++)
            for (int x = 0; x < 40; x++)
                for (int c = 0; c < ch; c++)
                    diff += labs((long)gf_sample(&a, x, y, c) - (long)gf_sample(&b, x, y, c));
        if (diff > 40L * 30 * ch * 3)
            fail_msg("JPEG of %d channels: mean error %.2f", ch, (double)diff / (40 * 30 * ch));
        gf_image_free(&b);
        assert_int_equal(gf_decode("t", buf, len, &lim, GF_DECODE_LUMA, &b, &info), 0);
        assert_int_equal(b.channels, 1);
        assert_int_equal(info.channels, 1);
        gf_image_free(&b);
        free(buf);
        gf_image_free(&a);
    }
}

/* The GPU's colour rule (src/codec/jpeg_color.h) on libjpeg-turbo's own
 * decoded planes gives libjpeg-turbo's own RGB, bit for bit, for every
 * chroma subsampling, at odd and tiny sizes (where 2:1 falls back to
 * replication), on noisy images that exercise clamping. */
static void test_jpeg_color_rule(void **state)
{
    static const int samps[] = {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_411};
    static const int sizes[][2] = {{1, 1}, {2, 2},  {3, 5},   {5, 3},  {4, 4},   {7, 5},
                                   {17, 9}, {9, 17}, {33, 31}, {64, 1}, {1, 64}, {101, 37}};
    tjhandle c = tjInitCompress(), d = tjInitDecompress();
    int checked = 0;
    (void)state;
    assert_non_null(c);
    assert_non_null(d);
    for (size_t si = 0; si < sizeof samps / sizeof samps[0]; si++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            const int w = sizes[z][0], h = sizes[z][1], ss = samps[si];
            unsigned char *px = malloc((size_t)w * h * 3), *ref = malloc((size_t)w * h * 3);
            unsigned char *jpg = NULL, *planes[3];
            unsigned long jlen = 0;
            int strides[3], hs = 1, vs = 1;
            assert_true(gf_jpeg_sampling(ss, &hs, &vs));
            for (int i = 0; i < w * h * 3; i++) /* noise on a gradient */
                px[i] = (unsigned char)((i % 3) * 60 + (i / 3 % w) * 3 + (test_rand() % 90));
            assert_int_equal(tjCompress2(c, px, w, 0, h, TJPF_RGB, &jpg, &jlen, ss, 85, 0), 0);
            assert_int_equal(tjDecompress2(d, jpg, jlen, ref, w, 0, h, TJPF_RGB, 0), 0);
            for (int k = 0; k < 3; k++) {
                strides[k] = tjPlaneWidth(k, w, ss);
                planes[k] = malloc((size_t)strides[k] * tjPlaneHeight(k, h, ss));
            }
            assert_int_equal(tjDecompressToYUVPlanes(d, jpg, jlen, planes, w, strides, h, 0), 0);
            const gf_jpeg_plane cb = {planes[1], (size_t)strides[1], tjPlaneWidth(1, w, ss),
                                      tjPlaneHeight(1, h, ss), hs, vs};
            gf_jpeg_plane cr = cb;
            cr.data = planes[2];
            assert_int_equal(cb.cw, (w + hs - 1) / hs);
            assert_int_equal(cb.ch, (h + vs - 1) / vs);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    unsigned char rgb[3];
                    gf_jpeg_ycc_rgb(planes[0][(size_t)y * strides[0] + x], gf_jpeg_chroma(&cb, x, y),
                                    gf_jpeg_chroma(&cr, x, y), rgb);
                    if (memcmp(rgb, ref + ((size_t)y * w + x) * 3, 3))
                        fail_msg("subsampling %d, %dx%d, at (%d,%d): %d %d %d, libjpeg-turbo %d %d %d",
                                 ss, w, h, x, y, rgb[0], rgb[1], rgb[2], ref[(y * w + x) * 3],
                                 ref[(y * w + x) * 3 + 1], ref[(y * w + x) * 3 + 2]);
                    checked++;
                }
            for (int k = 0; k < 3; k++)
                free(planes[k]);
            tjFree(jpg);
            free(px);
            free(ref);
        }
    tjDestroy(c);
    tjDestroy(d);
    assert_true(checked > 20000);
}

/* A PNG of one IHDR (colour type ct, `depth` bits, no interlace), an
 * optional PLTE of n entries, an optional tRNS of tn bytes, one IDAT of the
 * rows (filter bytes included) and IEND, into buf; returns its length. */
static size_t make_png_chunks(unsigned char *buf, int w, int h, int depth, int ct,
                              const unsigned char *plte, int n, const unsigned char *trns,
                              size_t tn, const unsigned char *rows, size_t rowlen)
{
    unsigned char ihdr[13] = {0, 0, 0, 0, 0, 0, 0, 0, (unsigned char)depth, (unsigned char)ct,
                              0, 0, 0};
    unsigned char z[4096];
    uLongf zlen = sizeof z;
    size_t len = 8;

    memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
    ihdr[3] = (unsigned char)w, ihdr[7] = (unsigned char)h;
    assert_int_equal(compress(z, &zlen, rows, rowlen), Z_OK);
    const struct { const char *type; const unsigned char *data; size_t n; } chunks[] = {
        {"IHDR", ihdr, 13}, {"PLTE", plte, (size_t)n * 3}, {"tRNS", trns, tn},
        {"IDAT", z, zlen},  {"IEND", NULL, 0}};
    for (int c = 0; c < 5; c++) {
        if ((c == 1 && !plte) || (c == 2 && !trns))
            continue;
        uint32_t crc;
        buf[len] = (unsigned char)(chunks[c].n >> 24), buf[len + 1] = (unsigned char)(chunks[c].n >> 16);
        buf[len + 2] = (unsigned char)(chunks[c].n >> 8), buf[len + 3] = (unsigned char)chunks[c].n;
        memcpy(buf + len + 4, chunks[c].type, 4);
        if (chunks[c].n)
            memcpy(buf + len + 8, chunks[c].data, chunks[c].n);
        crc = (uint32_t)crc32(0, buf + len + 4, (uInt)(4 + chunks[c].n));
        len += 8 + chunks[c].n;
        buf[len] = (unsigned char)(crc >> 24), buf[len + 1] = (unsigned char)(crc >> 16);
        buf[len + 2] = (unsigned char)(crc >> 8), buf[len + 3] = (unsigned char)crc;
        len += 4;
    }
    return len;
}

static size_t make_png(unsigned char *buf, int w, int h, int ct, const unsigned char *plte, int n,
                       const unsigned char *rows, size_t rowlen)
{
    return make_png_chunks(buf, w, h, 8, ct, plte, n, NULL, 0, rows, rowlen);
}

/* Gray+alpha, RGB and RGBA PNGs keep their samples, 8 and 16 bits (16 as
 * stored big-endian, in host order in memory). */
static void test_png_channels(void **state)
{
    static const int types[] = {4, 2, 6}, nch[] = {2, 3, 4};
    (void)state;
    for (int depth = 8; depth <= 16; depth += 8)
        for (int t = 0; t < 3; t++) {
            const int w = 9, h = 4, n = nch[t], bps = depth / 8, rowb = 1 + w * n * bps;
            unsigned char px[9 * 4 * 4 * 2], rows[4 * (1 + 9 * 4 * 2)], png[8192];
            gf_image im;
            gf_load_info info;
            for (size_t i = 0; i < sizeof px; i++)
                px[i] = (unsigned char)test_rand();
            for (int y = 0; y < h; y++) {
                rows[y * rowb] = 0;
                memcpy(rows + y * rowb + 1, px + (size_t)y * w * n * bps, (size_t)w * n * bps);
            }
            size_t len = make_png_chunks(png, w, h, depth, types[t], NULL, 0, NULL, 0, rows,
                                         (size_t)h * rowb);
            decode_ok(png, len, &im, &info);
            assert_int_equal(im.channels, n);
            assert_int_equal(im.bits, depth);
            for (int i = 0; i < w * h * n; i++) {
                const unsigned want = depth == 8 ? px[i] : (unsigned)px[2 * i] << 8 | px[2 * i + 1];
                assert_int_equal(gf_sample(&im, i / n % w, i / n / w, i % n), want);
            }
            gf_image_free(&im);
        }
}

/* tRNS: a palette's alphas make RGBA (entries past it opaque); gray's and
 * RGB's key colour makes gray+alpha and RGBA, 0 where the colour is the
 * key, the maximum elsewhere; 2-bit gray scales by bit replication, its
 * key with it. */
static void test_png_trns(void **state)
{
    static const unsigned char plte[9] = {10, 20, 30, 40, 50, 60, 70, 80, 90};
    static const unsigned char palpha[2] = {0, 128};
    unsigned char png[4096];
    gf_image im;
    gf_load_info info;
    size_t len;
    (void)state;
    {
        const unsigned char rows[4] = {0, 0, 1, 2};
        len = make_png_chunks(png, 3, 1, 8, 3, plte, 3, palpha, 2, rows, sizeof rows);
        decode_ok(png, len, &im, &info);
        assert_int_equal(im.channels, 4);
        const unsigned want[12] = {10, 20, 30, 0, 40, 50, 60, 128, 70, 80, 90, 255};
        for (int i = 0; i < 12; i++)
            assert_int_equal(gf_sample(&im, i / 4, 0, i % 4), want[i]);
        gf_image_free(&im);
    }
    {
        const unsigned char key[2] = {0, 7}, rows[4] = {0, 7, 8, 7};
        len = make_png_chunks(png, 3, 1, 8, 0, NULL, 0, key, 2, rows, sizeof rows);
        decode_ok(png, len, &im, &info);
        assert_int_equal(im.channels, 2);
        const unsigned want[6] = {7, 0, 8, 255, 7, 0};
        for (int i = 0; i < 6; i++)
            assert_int_equal(gf_sample(&im, i / 2, 0, i % 2), want[i]);
        gf_image_free(&im);
    }
    {
        const unsigned char key[6] = {0, 1, 0, 2, 0, 3}, rows[7] = {0, 1, 2, 3, 1, 2, 4};
        len = make_png_chunks(png, 2, 1, 8, 2, NULL, 0, key, 6, rows, sizeof rows);
        decode_ok(png, len, &im, &info);
        assert_int_equal(im.channels, 4);
        assert_int_equal(gf_sample(&im, 0, 0, 3), 0);
        assert_int_equal(gf_sample(&im, 1, 0, 3), 255);
        gf_image_free(&im);
    }
    {
        /* 2-bit gray 0 1 2 3 with key 2: 0 85 170 255, alpha 255 255 0 255 */
        const unsigned char key[2] = {0, 2}, rows[2] = {0, 0x1b};
        len = make_png_chunks(png, 4, 1, 2, 0, NULL, 0, key, 2, rows, sizeof rows);
        decode_ok(png, len, &im, &info);
        assert_int_equal(im.channels, 2);
        const unsigned want[8] = {0, 255, 85, 255, 170, 0, 255, 255};
        for (int i = 0; i < 8; i++)
            assert_int_equal(gf_sample(&im, i / 2, 0, i % 2), want[i]);
        gf_image_free(&im);
    }
}

/* What the probe of hostile inputs found: each must be an error, not an
 * image (palette index past PLTE, bad CRCs, samples above maxval). */
static void test_strict(void **state)
{
    static const unsigned char plte[6] = {10, 20, 30, 40, 50, 60};
    unsigned char rows[5] = {0, 0, 1, 200, 1}, png[4096];
    size_t len;
    gf_image im;
    gf_load_info info;
    (void)state;
    len = make_png(png, 4, 1, 3, plte, 2, rows, sizeof rows);
    expect_data_error(png, len, &lim);
    assert_non_null(strstr(gf_errmsg(), "palette index outside its 2 colours"));
    rows[3] = 1; /* all inside: decodes through the palette */
    len = make_png(png, 4, 1, 3, plte, 2, rows, sizeof rows);
    decode_ok(png, len, &im, &info);
    assert_int_equal(im.channels, 3);
    assert_memory_equal(im.data, "\x0a\x14\x1e\x28\x32\x3c\x28\x32\x3c\x28\x32\x3c", 12);
    gf_image_free(&im);
    for (size_t at = 29; at < len; at += 7) { /* any flipped byte: a CRC or Adler-32 fails */
        png[at] ^= 0x10;
        expect_data_error(png, len, &lim);
        png[at] ^= 0x10;
    }
    for (size_t cut = 8; cut < len; cut += 5) { /* cut anywhere, with a reason */
        expect_data_error(png, cut, &lim);
        assert_non_null(strstr(gf_errmsg(), "PNG"));
    }
    expect_data_error((const unsigned char *)"P6\n1 1\n1\n\377\377\377", 14, &lim);
    assert_string_equal(gf_errmsg(), "t: PPM sample above maxval 1 in row 0");
    expect_data_error((const unsigned char *)"P5\n2 1\n1\n\001\310", 12, &lim);
    expect_data_error((const unsigned char *)"P5\n1 1\n1000\n\003\351", 15, &lim);
}

static void test_pnm_scaling(void **state)
{
    gf_image im;
    gf_load_info info;
    (void)state;
    /* 16-bit, big-endian: kept as 16-bit samples */
    static const unsigned char p16[] = "P5\n4 1\n65535\n\xff\xff\x80\x00\x01\x00\x00\x80";
    decode_ok(p16, sizeof p16 - 1, &im, &info);
    assert_int_equal(info.bits, 16);
    assert_int_equal(gf_sample(&im, 0, 0, 0), 65535);
    assert_int_equal(gf_sample(&im, 1, 0, 0), 32768);
    assert_int_equal(gf_sample(&im, 2, 0, 0), 256);
    assert_int_equal(gf_sample(&im, 3, 0, 0), 128);
    gf_image_free(&im);
    /* maxval 15 with a comment: 15 -> 255, 7 -> 119 (7*255/15 = 119.0), 8 -> 136 */
    static const unsigned char p4[] = "P5 # scan\n3 # w\n1\n15\n\x0f\x07\x08";
    decode_ok(p4, sizeof p4 - 1, &im, &info);
    assert_int_equal(im.bits, 8);
    assert_int_equal(im.data[0], 255);
    assert_int_equal(im.data[1], 119);
    assert_int_equal(im.data[2], 136);
    gf_image_free(&im);
    /* maxval 1023 (a 10-bit scan): 16 bits, round(v * 65535 / 1023) */
    static const unsigned char p10[] = "P5\n2 1\n1023\n\x03\xff\x01\x00";
    decode_ok(p10, sizeof p10 - 1, &im, &info);
    assert_int_equal(im.bits, 16);
    assert_int_equal(gf_sample(&im, 0, 0, 0), 65535);
    assert_int_equal(gf_sample(&im, 1, 0, 0), (256 * 65535 + 511) / 1023);
    gf_image_free(&im);
    /* P6 (PPM) is RGB */
    static const unsigned char p6[] = "P6\n1 1\n255\n\x10\x80\xf0";
    decode_ok(p6, sizeof p6 - 1, &im, &info);
    assert_int_equal(im.channels, 3);
    assert_memory_equal(im.data, "\x10\x80\xf0", 3);
    gf_image_free(&im);
}

/* PAM: the four tuple types, a comment, BLACKANDWHITE, no tuple type; and
 * the headers that are refused. */
static void test_pam(void **state)
{
    gf_image im;
    gf_load_info info;
    (void)state;
    static const unsigned char ga[] =
        "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\n# alpha\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\n"
        "ENDHDR\n\x01\x02\x03\x04";
    decode_ok(ga, sizeof ga - 1, &im, &info);
    assert_string_equal(info.format, "pam");
    assert_int_equal(im.channels, 2);
    assert_memory_equal(im.data, "\x01\x02\x03\x04", 4);
    gf_image_free(&im);
    static const unsigned char rgba16[] =
        "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 65535\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        "\x00\x01\x01\x00\xff\xff\x80\x00";
    decode_ok(rgba16, sizeof rgba16 - 1, &im, &info);
    assert_int_equal(im.channels, 4);
    assert_int_equal(im.bits, 16);
    assert_int_equal(gf_sample(&im, 0, 0, 0), 1);
    assert_int_equal(gf_sample(&im, 0, 0, 1), 256);
    assert_int_equal(gf_sample(&im, 0, 0, 3), 32768);
    gf_image_free(&im);
    static const unsigned char bw[] =
        "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\nTUPLTYPE BLACKANDWHITE\nENDHDR\n\x01\x00";
    decode_ok(bw, sizeof bw - 1, &im, &info);
    assert_int_equal(im.channels, 1);
    assert_memory_equal(im.data, "\xff\x00", 2);
    gf_image_free(&im);
    static const unsigned char none[] = "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nENDHDR\nabc";
    decode_ok(none, sizeof none - 1, &im, &info);
    assert_int_equal(im.channels, 3);
    gf_image_free(&im);
    static const char *const bad[] = {
        "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE CMYK\nENDHDR\nabcd",
        "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\nabc",
        "P7\nWIDTH 1\nHEIGHT 1\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\nabc",
        "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nabc",
        "P7\nWIDTH 2\nHEIGHT 1\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\nabc",
        "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 3\nMAXVAL 100\nTUPLTYPE RGB\nENDHDR\nabe",
        "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\nabcde",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_data_error((const unsigned char *)bad[i], strlen(bad[i]), &lim);
}

static void test_bad_input(void **state)
{
    gf_image a;
    unsigned char *buf;
    size_t len;
    (void)state;
    expect_data_error((const unsigned char *)"hello world", 11, &lim);
    expect_data_error((const unsigned char *)"P5\n4 4\n255\n\1\2\3", 14, &lim); /* truncated */
    expect_data_error((const unsigned char *)"P5\n4 4\n0\n", 9, &lim);         /* maxval 0 */
    expect_data_error((const unsigned char *)"P5\n4", 4, &lim);                /* header */
    expect_data_error((const unsigned char *)"P5\n70000 1\n255\n", 15, &lim);  /* too wide */
    /* a truncated PNG */
    random_image(&a, 64, 64);
    assert_int_equal(gf_encode(&a, &png_opts, &buf, &len), 0);
    expect_data_error(buf, len / 2, &lim);
    /* over --max-pixels: refused from the header */
    gf_limits small = {.max_pixels = 64 * 63, .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES, .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};
    expect_data_error(buf, len, &small);
    assert_string_equal(gf_errmsg(), "t: PNG image of 64x64 pixels exceeds --max-pixels 4032");
    small.max_pixels = 64 * 64;
    gf_image ok;
    gf_load_info info;
    assert_int_equal(gf_decode("t", buf, len, &small, 0, &ok, &info), 0);
    gf_image_free(&ok);
    /* over --max-image-bytes: bytes count, not pixels */
    small.max_image_bytes = 64 * 64 - 1;
    expect_data_error(buf, len, &small);
    assert_non_null(strstr(gf_errmsg(), "4096 bytes, over --max-image-bytes 4095"));
    free(buf);
    gf_image_free(&a);
    /* a PNG header claiming 20000x20000 is refused before decoding */
    static const unsigned char big[] = "\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x4e\x20\0\0\x4e\x20"
                                       "\x08\x00\x00\x00\x00\0\0\0\0";
    expect_data_error(big, sizeof big - 1, &lim);
    if (!strstr(gf_errmsg(), "exceeds --max-pixels"))
        fail_msg("%s", gf_errmsg());
}

static void test_format_from_name(void **state)
{
    (void)state;
    assert_int_equal(gf_format_from_name("a.png"), GF_FMT_PNG);
    assert_int_equal(gf_format_from_name("dir.x/A.PGM"), GF_FMT_PGM);
    assert_int_equal(gf_format_from_name("a.jpg"), GF_FMT_JPEG);
    assert_int_equal(gf_format_from_name("a.ppm"), GF_FMT_PPM);
    assert_int_equal(gf_format_from_name("a.Pam"), GF_FMT_PAM);
    assert_int_equal(gf_format_from_name("a.webp"), GF_FMT_WEBP);
    assert_int_equal(gf_format_from_name("a.GIF"), GF_FMT_NONE);
    assert_int_equal(gf_format_from_name("dir.png/a"), GF_FMT_NONE);
    assert_int_equal(gf_format_from_name("-"), GF_FMT_NONE);
}

/* gf_format_holds's messages, word for word. */
static void expect_refusal(gf_format f, int channels, int bits, const char *msg)
{
    assert_int_equal(gf_format_holds(f, channels, bits), GF_EUSAGE);
    assert_string_equal(gf_errmsg(), msg);
}

/* What the registry gives: names, extensions, settings, the lists in --help
 * and in messages, and the advice for layouts a format refuses. */
static void test_format_registry(void **state)
{
    static const unsigned char ppm[] = "P6\n60000 2\n255\n";
    static const unsigned char pam[] = "P7\nWIDTH 9000\nHEIGHT 9000\nDEPTH 4\nMAXVAL 65535\n"
                                       "TUPLTYPE RGB_ALPHA\nENDHDR\n";
    const gf_limits small = {.max_pixels = 1000, .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES, .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};
    char buf[128];
    uint64_t need;
    gf_format f;
    (void)state;

    assert_string_equal(gf_format_list(buf, sizeof buf, "|", "|"), "png|pgm|ppm|pam|jpeg|tiff|webp");
    assert_string_equal(gf_format_list(buf, sizeof buf, ", ", " or "),
                        "png, pgm, ppm, pam, jpeg, tiff or webp");
    assert_string_equal(gf_format_list(buf, 8, "|", "|"), "png|pgm"); /* cut short to fit */
    assert_int_equal(gf_format_parse("jpg"), GF_FMT_JPEG);
    assert_int_equal(gf_format_parse("jpeg"), GF_FMT_JPEG);
    assert_int_equal(gf_format_parse("pam"), GF_FMT_PAM);
    assert_int_equal(gf_format_parse("PNG"), GF_FMT_NONE); /* exactly */
    assert_int_equal(gf_format_parse("bmp"), GF_FMT_NONE); /* read, not written */
    assert_string_equal(gf_format_name(GF_FMT_JPEG), "jpeg");
    assert_string_equal(gf_format_ext(GF_FMT_JPEG), "jpg");
    assert_string_equal(gf_format_ext(GF_FMT_PGM), "pgm");
    assert_string_equal(gf_format_name(GF_FMT_NONE), "none");
    assert_string_equal(gf_format_settings(GF_FMT_PNG), "--png-level");
    assert_string_equal(gf_format_settings(GF_FMT_JPEG), "--quality");
    assert_string_equal(gf_format_settings(GF_FMT_PPM), "");
    assert_string_equal(gf_format_settings(GF_FMT_WEBP), "--quality --lossless");
    assert_string_equal(gf_format_settings(GF_FMT_TIFF), "--compress");
    assert_string_equal(gf_format_ext(GF_FMT_TIFF), "tif");
    assert_int_equal(gf_format_parse("tif"), GF_FMT_TIFF);
    assert_int_equal(gf_format_from_name("a.JPEG"), GF_FMT_JPEG);
    assert_int_equal(gf_format_from_name("a.bmp"), GF_FMT_NONE);

    f = GF_FMT_NONE;
    assert_int_equal(gf_format_check_name("o/a.bmp", &f, 0), GF_EUSAGE);
    assert_string_equal(gf_errmsg(), "o/a.bmp: bmp images are not written; gpufilt writes PNG "
                                     "(.png), PGM (.pgm), PPM (.ppm), PAM (.pam), JPEG (.jpg, "
                                     ".jpeg), TIFF (.tif, .tiff) and WebP (.webp)");
    assert_int_equal(gf_format_check_name("o/a", &f, 0), GF_EUSAGE);
    assert_string_equal(gf_errmsg(), "o/a: cannot tell the output format from the name: give it "
                                     "an extension (.png, .pgm, .ppm, .pam, .jpg, .tif, .webp) or use "
                                     "--format "
                                     "png|pgm|ppm|pam|jpeg|tiff|webp");
    f = GF_FMT_PAM;
    assert_int_equal(gf_format_check_name("o/a", &f, 1), 0);
    assert_int_equal(f, GF_FMT_PAM);
    f = GF_FMT_NONE;
    assert_int_equal(gf_format_check_name("o/a.Jpeg", &f, 0), 0);
    assert_int_equal(f, GF_FMT_JPEG);

    expect_refusal(GF_FMT_JPEG, 3, 16,
                   "JPEG holds 8-bit samples, not a RGB 16-bit image: put --depth 8 before the "
                   "output, or write PNG");
    expect_refusal(GF_FMT_JPEG, 4, 16, /* the depth first */
                   "JPEG holds 8-bit samples, not a RGBA 16-bit image: put --depth 8 before the "
                   "output, or write PNG");
    expect_refusal(GF_FMT_JPEG, 2, 8,
                   "JPEG has no alpha channel, which this gray+alpha 8-bit image has: write PNG "
                   "or PAM to keep it (or --gray drops it)");
    expect_refusal(GF_FMT_PGM, 3, 16,
                   "PGM holds gray images, not RGB 16-bit: put --gray before the output, or "
                   "write PPM or PNG");
    expect_refusal(GF_FMT_PGM, 4, 8,
                   "PGM holds gray images, not RGBA 8-bit: put --gray before the output, or "
                   "write PAM or PNG");
    expect_refusal(GF_FMT_PPM, 1, 8, "PPM holds RGB images, not gray 8-bit: write PGM or PNG");
    expect_refusal(GF_FMT_PPM, 2, 16,
                   "PPM holds RGB images, not gray+alpha 16-bit: write PAM or PNG");
    assert_int_equal(gf_format_holds(GF_FMT_TIFF, 4, 16), 0);
    expect_refusal(GF_FMT_WEBP, 3, 16,
                   "WebP holds 8-bit samples, not a RGB 16-bit image: put --depth 8 before the "
                   "output, or write PNG");

    /* the format's own label in the size check of a header, and the formats read */
    assert_int_equal(gf_input_need("p", ppm, sizeof ppm - 1, &small, &need), GF_EDATA);
    assert_string_equal(gf_errmsg(), "p: PPM image of 60000x2 pixels exceeds --max-pixels 1000");
    assert_int_equal(gf_input_need("p", pam, sizeof pam - 1, &small, &need), GF_EDATA);
    assert_string_equal(gf_errmsg(), "p: PAM image of 9000x9000 pixels exceeds --max-pixels 1000");
    assert_int_equal(gf_input_need("u", (const unsigned char *)"GIF89a", 6, &small, &need),
                     GF_EDATA);
    assert_string_equal(gf_errmsg(),
                        "u: unknown image format (PNG, PGM, PPM, PAM, JPEG, TIFF, WebP and BMP are read)");
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)))
        n += e->d_name[0] != '.' || strstr(e->d_name, "gpufilt-") != NULL;
    closedir(d);
    return n;
}

static void test_atomic_write(void **state)
{
    char dir[] = "/tmp/gf-test-XXXXXX", path[512], bad[512];
    gf_image a, b;
    gf_load_info info;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.pgm", dir);
    random_image(&a, 17, 3);
    assert_int_equal(gf_save(path, &a, &pgm_opts), 0);
    assert_int_equal(gf_load(path, &lim, &b, &info), 0);
    assert_memory_equal(a.data, b.data, 17 * 3);
    gf_image_free(&b);
    assert_int_equal(count_entries(dir), 1);
    /* a directory that does not exist: GF_ECREATE, nothing left anywhere */
    snprintf(bad, sizeof bad, "%s/missing/out.png", dir);
    assert_int_equal(gf_save(bad, &a, &png_opts), GF_ECREATE);
    assert_non_null(strstr(gf_errmsg(), "No such file or directory"));
    assert_int_equal(count_entries(dir), 1);
    /* a symbolic link is written through: the link stays, its target changes */
    char link[512], target[512], cmd[600];
    struct stat st;
    snprintf(target, sizeof target, "%s/target.pgm", dir);
    snprintf(link, sizeof link, "%s/link.pgm", dir);
    assert_int_equal(symlink("target.pgm", link), 0);
    assert_int_equal(gf_save(link, &a, &pgm_opts), 0);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(gf_load(target, &lim, &b, &info), 0);
    assert_memory_equal(a.data, b.data, 17 * 3);
    gf_image_free(&b);
    /* a device is written in place and survives */
    assert_int_equal(gf_save("/dev/null", &a, &png_opts), 0);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(count_entries(dir), 3);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    gf_image_free(&a);
}

/* A stream is never read past --max-file-size (no doubling beyond it). */
static void test_read_limit(void **state)
{
    gf_limits l = {.max_pixels = GF_DEFAULT_MAX_PIXELS, .max_file_bytes = 3000000, .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};
    unsigned char *buf;
    size_t len;
    (void)state;
    assert_int_equal(gf_read_all("/dev/zero", &l, &buf, &len), GF_EDATA);
    assert_non_null(strstr(gf_errmsg(), "exceeds --max-file-size 3000000"));
    assert_int_equal(gf_read_all("/dev/null", &l, &buf, &len), 0);
    assert_int_equal(len, 0);
    assert_int_equal(buf[0], 0);
    free(buf);
    assert_int_equal(gf_read_all("/nonexistent", &l, &buf, &len), GF_ENOINPUT);
    assert_int_equal(gf_read_all("/tmp", &l, &buf, &len), GF_ENOINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrips),    cmocka_unit_test(test_format_holds),
        cmocka_unit_test(test_jpeg_layouts),  cmocka_unit_test(test_jpeg_color_rule),
        cmocka_unit_test(test_png_channels),
        cmocka_unit_test(test_png_trns),      cmocka_unit_test(test_pnm_scaling),
        cmocka_unit_test(test_pam),           cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_format_from_name), cmocka_unit_test(test_format_registry),
        cmocka_unit_test(test_atomic_write),
        cmocka_unit_test(test_strict),        cmocka_unit_test(test_read_limit),
    };
    png_opts.png_level = GF_DEFAULT_PNG_LEVEL;
    return cmocka_run_group_tests_name("codec", tests, NULL, NULL);
}
