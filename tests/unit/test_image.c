/* test_image.c - decoding, luma, 16-bit and maxval scaling, limits, encode
 * round trips and atomic writes. */
#include "common.h"

#include <dirent.h>
#include <sys/stat.h>

#include "../../src/codec/codec.h"

/* From the configured stb build (third_party/stb.c), to make colour PNGs. */
unsigned char *stbi_write_png_to_mem(const unsigned char *pixels, int stride_bytes, int x, int y,
                                     int n, int *out_len);

static const gf_limits lim = {GF_DEFAULT_MAX_PIXELS, GF_DEFAULT_MAX_FILE_BYTES};
static gf_encode_opts png_opts = {GF_FMT_PNG, GF_DEFAULT_PNG_LEVEL, GF_DEFAULT_JPEG_QUALITY};
static const gf_encode_opts pgm_opts = {GF_FMT_PGM, GF_DEFAULT_PNG_LEVEL, GF_DEFAULT_JPEG_QUALITY};

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

/* RGB, RGBA and gray+alpha PNGs become (77 R + 150 G + 29 B) >> 8 luma. */
static void test_colour_to_luma(void **state)
{
    (void)state;
    for (int n = 2; n <= 4; n++) {
        const int w = 9, h = 4;
        unsigned char px[9 * 4 * 4];
        gf_image im;
        gf_load_info info;
        int len;
        for (size_t i = 0; i < sizeof px; i++)
            px[i] = (unsigned char)test_rand();
        unsigned char *png = stbi_write_png_to_mem(px, w * n, w, h, n, &len);
        assert_non_null(png);
        decode_ok(png, (size_t)len, &im, &info);
        assert_int_equal(info.channels, n);
        for (int i = 0; i < w * h; i++) {
            const unsigned char *p = px + i * n;
            int want = n == 2 ? p[0] : (77 * p[0] + 150 * p[1] + 29 * p[2]) >> 8;
            assert_int_equal(im.data[i], want);
        }
        free(png);
        gf_image_free(&im);
    }
    /* hand-computed: pure red 255 -> 76, pure green -> 149, white -> 255 */
    unsigned char rgb[9] = {255, 0, 0, 0, 255, 0, 255, 255, 255};
    int len;
    unsigned char *png = stbi_write_png_to_mem(rgb, 9, 3, 1, 3, &len);
    gf_image im;
    gf_load_info info;
    decode_ok(png, (size_t)len, &im, &info);
    assert_int_equal(im.data[0], 76);
    assert_int_equal(im.data[1], 149);
    assert_int_equal(im.data[2], 255);
    free(png);
    gf_image_free(&im);
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

static void expect_data_error(const unsigned char *buf, size_t len, const gf_limits *l)
{
    gf_image im;
    gf_load_info info;
    assert_int_equal(gf_decode("t", buf, len, l, &im, &info), GF_EDATA);
    assert_null(im.data);
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
    assert_string_equal(gf_errmsg(), "t: image of 64x64 pixels exceeds --max-pixels 4032");
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
    assert_int_equal(count_entries(dir), 1);
    unlink(path);
    rmdir(dir);
    gf_image_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_roundtrip),  cmocka_unit_test(test_pgm_roundtrip),
        cmocka_unit_test(test_colour_to_luma), cmocka_unit_test(test_pnm_scaling),
        cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_format_from_name),
        cmocka_unit_test(test_atomic_write),
    };
    png_opts.png_level = GF_DEFAULT_PNG_LEVEL;
    return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
