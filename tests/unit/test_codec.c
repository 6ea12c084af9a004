/* test_codec.c - decoding and encoding: round trips, luma, scaling, the
 * strictness rules (CRCs, palette indices, samples above maxval, data cut
 * short), limits checked before decoding, and the atomic writer. PNG test
 * files are built here with zlib. */
#include "common.h"

#include <dirent.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../../src/codec/codec.h"

static const gf_limits lim = {GF_DEFAULT_MAX_PIXELS, GF_DEFAULT_MAX_FILE_BYTES};
static gf_encode_opts png_opts = {GF_FMT_PNG, GF_DEFAULT_PNG_LEVEL, GF_DEFAULT_JPEG_QUALITY};
static const gf_encode_opts pgm_opts = {GF_FMT_PGM, GF_DEFAULT_PNG_LEVEL, GF_DEFAULT_JPEG_QUALITY};

static void expect_data_error(const unsigned char *buf, size_t len, const gf_limits *l)
{
    gf_image im;
    gf_load_info info;
    int rc = gf_decode("t", buf, len, l, &im, &info);
    if (rc != GF_EDATA)
        fail_msg("decoded with %d (%dx%d)", rc, im.width, im.height);
    assert_null(im.data);
}

static void decode_ok(const unsigned char *buf, size_t len, gf_image *im, gf_load_info *info)
{
    int rc = gf_decode("t", buf, len, &lim, im, info);
    if (rc)
        fail_msg("decode: %s", gf_errmsg());
}

static void test_png_roundtrip(void **state)
{
    static const int sizes[][2] = {{1, 1}, {7, 5}, {31, 33}, {257, 3}};
    (void)state;
    for (int level = 0; level <= 12; level += 6) {
        png_opts.png_level = level;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            gf_image a, b;
            gf_load_info info;
            unsigned char *buf;
            size_t len;
            random_image(&a, sizes[i][0], sizes[i][1]);
            assert_int_equal(gf_encode(&a, &png_opts, &buf, &len), 0);
            decode_ok(buf, len, &b, &info);
            assert_string_equal(info.format, "png");
            assert_int_equal(info.channels, 1);
            assert_int_equal(b.width, a.width);
            assert_int_equal(b.height, a.height);
            assert_memory_equal(a.data, b.data, (size_t)a.width * a.height);
            free(buf);
            gf_image_free(&a);
            gf_image_free(&b);
        }
    }
    png_opts.png_level = GF_DEFAULT_PNG_LEVEL;
}

static void test_pgm_roundtrip(void **state)
{
    gf_image a, b;
    gf_load_info info;
    unsigned char *buf;
    size_t len;
    (void)state;
    random_image(&a, 13, 11);
    assert_int_equal(gf_encode(&a, &pgm_opts, &buf, &len), 0);
    assert_memory_equal(buf, "P5\n13 11\n255\n", 13);
    assert_int_equal(len, 13 + 13 * 11);
    decode_ok(buf, len, &b, &info);
    assert_string_equal(info.format, "pgm");
    assert_memory_equal(a.data, b.data, 13 * 11);
    free(buf);
    gf_image_free(&a);
    gf_image_free(&b);
}

/* A PNG of one IHDR (colour type ct, 8 bits, no interlace), an optional
 * PLTE of n entries, one IDAT of the rows (filter bytes included) and IEND,
 * into buf; returns its length. */
static size_t make_png(unsigned char *buf, int w, int h, int ct, const unsigned char *plte, int n,
                       const unsigned char *rows, size_t rowlen)
{
    unsigned char ihdr[13] = {0, 0, 0, 0, 0, 0, 0, 0, 8, (unsigned char)ct, 0, 0, 0};
    unsigned char z[4096];
    uLongf zlen = sizeof z;
    size_t len = 8;

    memcpy(buf, "\x89PNG\r\n\x1a\n", 8);
    ihdr[3] = (unsigned char)w, ihdr[7] = (unsigned char)h;
    assert_int_equal(compress(z, &zlen, rows, rowlen), Z_OK);
    const struct { const char *type; const unsigned char *data; size_t n; } chunks[] = {
        {"IHDR", ihdr, 13}, {"PLTE", plte, (size_t)n * 3}, {"IDAT", z, zlen}, {"IEND", NULL, 0}};
    for (int c = 0; c < 4; c++) {
        if (c == 1 && !plte)
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

/* RGB, RGBA and gray+alpha PNGs become (77 R + 150 G + 29 B) >> 8 luma. */
static void test_colour_to_luma(void **state)
{
    static const int types[] = {4, 2, 6}, nch[] = {2, 3, 4};
    (void)state;
    for (int t = 0; t < 3; t++) {
        const int w = 9, h = 4, n = nch[t];
        unsigned char px[9 * 4 * 4], rows[4 * (1 + 9 * 4)], png[8192];
        gf_image im;
        gf_load_info info;
        for (size_t i = 0; i < sizeof px; i++)
            px[i] = (unsigned char)test_rand();
        for (int y = 0; y < h; y++) {
            rows[y * (1 + w * n)] = 0;
            memcpy(rows + y * (1 + w * n) + 1, px + y * w * n, (size_t)w * n);
        }
        size_t len = make_png(png, w, h, types[t], NULL, 0, rows, (size_t)h * (1 + w * n));
        decode_ok(png, len, &im, &info);
        assert_int_equal(info.channels, n);
        for (int i = 0; i < w * h; i++) {
            const unsigned char *p = px + i * n;
            int want = n == 2 ? p[0] : (77 * p[0] + 150 * p[1] + 29 * p[2]) >> 8;
            assert_int_equal(im.data[i], want);
        }
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
    assert_int_equal(im.data[0], (77 * 10 + 150 * 20 + 29 * 30) >> 8);
    assert_int_equal(im.data[1], (77 * 40 + 150 * 50 + 29 * 60) >> 8);
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
    /* 16-bit, big-endian: 0xffff -> 255, 0x8000 -> 128, 0x0100 -> 1, 0x0080 -> 0 */
    static const unsigned char p16[] = "P5\n4 1\n65535\n\xff\xff\x80\x00\x01\x00\x00\x80";
    decode_ok(p16, sizeof p16 - 1, &im, &info);
    assert_int_equal(info.bits, 16);
    assert_int_equal(im.data[0], 255);
    assert_int_equal(im.data[1], 128);
    assert_int_equal(im.data[2], 1);
    assert_int_equal(im.data[3], 0);
    gf_image_free(&im);
    /* maxval 15 with a comment: 15 -> 255, 7 -> 119 (7*255/15 = 119.0), 8 -> 136 */
    static const unsigned char p4[] = "P5 # scan\n3 # w\n1\n15\n\x0f\x07\x08";
    decode_ok(p4, sizeof p4 - 1, &im, &info);
    assert_int_equal(im.data[0], 255);
    assert_int_equal(im.data[1], 119);
    assert_int_equal(im.data[2], 136);
    gf_image_free(&im);
    /* P6 (PPM) becomes luma */
    static const unsigned char p6[] = "P6\n1 1\n255\n\x10\x80\xf0";
    decode_ok(p6, sizeof p6 - 1, &im, &info);
    assert_int_equal(im.data[0], (77 * 0x10 + 150 * 0x80 + 29 * 0xf0) >> 8);
    gf_image_free(&im);
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
    gf_limits small = {64 * 63, GF_DEFAULT_MAX_FILE_BYTES};
    expect_data_error(buf, len, &small);
    assert_string_equal(gf_errmsg(), "t: PNG image of 64x64 pixels exceeds --max-pixels 4032");
    small.max_pixels = 64 * 64;
    gf_image ok;
    gf_load_info info;
    assert_int_equal(gf_decode("t", buf, len, &small, &ok, &info), 0);
    gf_image_free(&ok);
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
    assert_int_equal(gf_format_from_name("a.webp"), GF_FMT_NONE);
    assert_int_equal(gf_format_from_name("dir.png/a"), GF_FMT_NONE);
    assert_int_equal(gf_format_from_name("-"), GF_FMT_NONE);
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
    gf_limits l = {GF_DEFAULT_MAX_PIXELS, 3000000};
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
        cmocka_unit_test(test_png_roundtrip),  cmocka_unit_test(test_pgm_roundtrip),
        cmocka_unit_test(test_colour_to_luma), cmocka_unit_test(test_pnm_scaling),
        cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_format_from_name),
        cmocka_unit_test(test_atomic_write),   cmocka_unit_test(test_strict),
        cmocka_unit_test(test_read_limit),
    };
    png_opts.png_level = GF_DEFAULT_PNG_LEVEL;
    return cmocka_run_group_tests_name("codec", tests, NULL, NULL);
}
