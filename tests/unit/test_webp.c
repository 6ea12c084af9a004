/* test_webp.c - WebP through gf_encode and gf_decode on fresh random images
 * of awkward sizes: lossless keeps every sample of every 8-bit layout (gray
 * comes back as RGB with R = G = B, gray+alpha as RGBA, or RGB when the
 * alpha is 255 throughout; the colour under zero alpha is kept), lossy stays close and keeps alpha exactly, both give
 * the same bytes every time; and the refusals: 16-bit and oversized images
 * (GF_EUSAGE, nothing made), every truncation of a file, garbage after a
 * RIFF header, limits (GF_EDATA, no image). dwebp's view of the same files
 * is tests/cli/webp.bats's. */
#include "common.h"

#include "../../src/codec/codec.h"

static const gf_limits lim = {.max_pixels = GF_DEFAULT_MAX_PIXELS,
                              .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES,
                              .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};

/* Awkward sizes, and one random one per run. */
static const int sizes[][2] = {{1, 1}, {7, 3}, {3, 7}, {1, 17}, {16, 16}, {257, 131}, {0, 0}};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static void size_at(int i, int *w, int *h)
{
    *w = sizes[i][0];
    *h = sizes[i][1];
    if (!*w) { /* the random one */
        *w = 1 + (int)(test_rand() % 300);
        *h = 1 + (int)(test_rand() % 200);
    }
}

static gf_encode_opts webp_opts(int lossless, int quality)
{
    gf_encode_opts o;
    memset(&o, 0, sizeof o);
    o.format = GF_FMT_WEBP;
    o.png_level = 1;
    o.quality = quality;
    o.lossless = lossless;
    return o;
}

static void encode_ok(const gf_image *a, const gf_encode_opts *o, unsigned char **buf,
                      size_t *len)
{
    int rc = gf_encode(a, o, buf, len);
    if (rc)
        fail_msg("encode %s %dx%d: %d %s", gf_layout_name(a->channels, a->bits), a->width,
                 a->height, rc, gf_errmsg());
    assert_true(*len >= 12);
    assert_memory_equal(*buf, "RIFF", 4);
    assert_memory_equal(*buf + 8, "WEBP", 4);
}

static void decode_ok(const unsigned char *buf, size_t len, gf_image *b, gf_load_info *info)
{
    int rc = gf_decode("t", buf, len, &lim, 0, b, info);
    if (rc)
        fail_msg("decode: %d %s", rc, gf_errmsg());
    assert_string_equal(info->format, "webp");
    assert_int_equal(info->bits, 8);
    assert_int_equal(b->bits, 8);
}

/* Sample c (of RGB or RGBA) that a's pixel (x, y) becomes in WebP: gray
 * gives R = G = B. */
static unsigned want_sample(const gf_image *a, int x, int y, int c)
{
    const int alpha = a->channels == 2 || a->channels == 4;
    if (alpha && c == 3)
        return gf_sample(a, x, y, a->channels - 1);
    return gf_sample(a, x, y, a->channels <= 2 ? 0 : c);
}

/* The channels a WebP of a reads back with: 4 when a has alpha that is not
 * 255 throughout (libwebp leaves out an opaque alpha channel), else 3. */
static int webp_channels(const gf_image *a)
{
    if (a->channels == 1 || a->channels == 3)
        return 3;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            if (gf_sample(a, x, y, a->channels - 1) != 255)
                return 4;
    return 3;
}

/* A random 8-bit image whose alpha (if any) is 0 in about a third of the
 * pixels and 255 in another third. */
static void random_alpha_image(gf_image *a, int w, int h, int ch)
{
    random_layout(a, w, h, ch, 8);
    if (ch == 2 || ch == 4)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                unsigned r = test_rand() % 3;
                if (r < 2)
                    gf_sample_set(a, x, y, ch - 1, r ? 255 : 0);
            }
}

/* Lossless: every sample of every 8-bit layout back, the colour under zero
 * alpha included; the same bytes on a second encode. */
static void test_lossless_roundtrip(void **state)
{
    const gf_encode_opts o = webp_opts(1, 90);
    (void)state;
    for (int ch = 1; ch <= 4; ch++)
        for (int i = 0; i < NSIZES; i++) {
            gf_image a, b;
            gf_load_info info;
            unsigned char *buf, *buf2;
            size_t len, len2;
            int w, h;
            size_at(i, &w, &h);
            random_alpha_image(&a, w, h, ch);
            encode_ok(&a, &o, &buf, &len);
            encode_ok(&a, &o, &buf2, &len2);
            if (len != len2 || memcmp(buf, buf2, len))
                fail_msg("lossless %s %dx%d: two encodes differ", gf_layout_name(ch, 8), w, h);
            decode_ok(buf, len, &b, &info);
            const int want_ch = webp_channels(&a);
            assert_int_equal(b.channels, want_ch);
            assert_int_equal(info.channels, want_ch);
            assert_int_equal(b.width, w);
            assert_int_equal(b.height, h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    for (int c = 0; c < want_ch; c++)
                        if (gf_sample(&b, x, y, c) != want_sample(&a, x, y, c))
                            fail_msg("lossless %s %dx%d: (%d, %d) sample %d is %u, not %u",
                                     gf_layout_name(ch, 8), w, h, x, y, c,
                                     gf_sample(&b, x, y, c), want_sample(&a, x, y, c));
            free(buf);
            free(buf2);
            gf_image_free(&a);
            gf_image_free(&b);
        }
}

/* An image with rows `stride` bytes apart (more than its pixels take) is
 * read by its stride. */
static void test_stride(void **state)
{
    const gf_encode_opts o = webp_opts(1, 90);
    (void)state;
    for (int ch = 1; ch <= 4; ch++) {
        gf_image wide, a, b;
        gf_load_info info;
        unsigned char *buf;
        size_t len;
        random_alpha_image(&wide, 23, 9, ch);
        a = wide;
        a.width = 17; /* the left 17 columns of the 23 */
        encode_ok(&a, &o, &buf, &len);
        decode_ok(buf, len, &b, &info);
        assert_int_equal(b.width, 17);
        for (int y = 0; y < 9; y++)
            for (int x = 0; x < 17; x++)
                for (int c = 0; c < b.channels; c++)
                    assert_int_equal(gf_sample(&b, x, y, c), want_sample(&a, x, y, c));
        free(buf);
        gf_image_free(&wide);
        gf_image_free(&b);
    }
}

/* A smooth random image: a random plane per channel plus noise of +-2,
 * which lossy WebP keeps close. */
static void smooth_image(gf_image *a, int w, int h, int ch)
{
    assert_int_equal(gf_image_alloc(a, w, h, ch, 8), 0);
    for (int c = 0; c < ch; c++) {
        const double base = 40 + test_rand() % 170, dx = (double)(test_rand() % 81) / 40 - 1,
                     dy = (double)(test_rand() % 81) / 40 - 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double v = base + dx * x * 60 / w + dy * y * 60 / h + (int)(test_rand() % 5) - 2;
                gf_sample_set(a, x, y, c, (unsigned)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5));
            }
    }
}

/* Lossy: close to the image (mean error under 8 where alpha is not 0: a
 * few pixels of independent colour planes lose 4 to 5 to 4:2:0 chroma), and
 * alpha exact; the same bytes on a second encode; a lower quality makes a
 * smaller file. */
static void test_lossy_roundtrip(void **state)
{
    (void)state;
    for (int ch = 1; ch <= 4; ch++)
        for (int i = 0; i < NSIZES; i++) {
            const gf_encode_opts q90 = webp_opts(0, 90), q5 = webp_opts(0, 5);
            gf_image a, b;
            gf_load_info info;
            unsigned char *buf, *buf2;
            size_t len, len2;
            double err = 0;
            long n = 0;
            int w, h;
            size_at(i, &w, &h);
            smooth_image(&a, w, h, ch);
            if (ch == 2 || ch == 4) /* some pixels fully transparent */
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        if (test_rand() % 4 == 0)
                            gf_sample_set(&a, x, y, ch - 1, 0);
            encode_ok(&a, &q90, &buf, &len);
            encode_ok(&a, &q90, &buf2, &len2);
            if (len != len2 || memcmp(buf, buf2, len))
                fail_msg("lossy %s %dx%d: two encodes differ", gf_layout_name(ch, 8), w, h);
            free(buf2);
            decode_ok(buf, len, &b, &info);
            assert_int_equal(b.channels, webp_channels(&a));
            assert_int_equal(b.width, w);
            assert_int_equal(b.height, h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    if (b.channels == 4 && gf_sample(&b, x, y, 3) != want_sample(&a, x, y, 3))
                        fail_msg("lossy %s %dx%d: alpha of (%d, %d) is %u, not %u",
                                 gf_layout_name(ch, 8), w, h, x, y, gf_sample(&b, x, y, 3),
                                 want_sample(&a, x, y, 3));
                    if (b.channels == 4 && want_sample(&a, x, y, 3) == 0)
                        continue; /* colour under zero alpha is free to change */
                    for (int c = 0; c < 3; c++, n++)
                        err += abs((int)gf_sample(&b, x, y, c) - (int)want_sample(&a, x, y, c));
                }
            if (n && err / (double)n >= 8)
                fail_msg("lossy %s %dx%d: mean error %.2f", gf_layout_name(ch, 8), w, h,
                         err / (double)n);
            if (w * h >= 256) {
                encode_ok(&a, &q5, &buf2, &len2);
                if (len2 >= len)
                    fail_msg("lossy %s %dx%d: quality 5 gives %zu bytes, 90 %zu",
                             gf_layout_name(ch, 8), w, h, len2, len);
                free(buf2);
            }
            free(buf);
            gf_image_free(&a);
            gf_image_free(&b);
        }
}

/* 16-bit images and sides over WebP's 16383 are refused before encoding,
 * with the way out; nothing is made. */
static void test_write_refusals(void **state)
{
    const gf_encode_opts o[2] = {webp_opts(0, 90), webp_opts(1, 90)};
    (void)state;
    for (int k = 0; k < 2; k++) {
        for (int ch = 1; ch <= 4; ch++) {
            gf_image a;
            unsigned char *buf = (unsigned char *)&a;
            size_t len = 1;
            random_layout(&a, 5, 4, ch, 16);
            assert_int_equal(gf_encode(&a, &o[k], &buf, &len), GF_EUSAGE);
            assert_non_null(strstr(gf_errmsg(), "WebP holds 8-bit samples"));
            assert_non_null(strstr(gf_errmsg(), "--depth 8"));
            assert_null(buf);
            assert_int_equal(len, 0);
            assert_int_equal(gf_format_holds(GF_FMT_WEBP, ch, 16), GF_EUSAGE);
            assert_int_equal(gf_format_holds(GF_FMT_WEBP, ch, 8), 0);
            gf_image_free(&a);
        }
        gf_image a;
        unsigned char *buf = NULL;
        size_t len = 0;
        random_layout(&a, 16384, 1, 3, 8);
        assert_int_equal(gf_encode(&a, &o[k], &buf, &len), GF_EUSAGE);
        assert_non_null(strstr(gf_errmsg(), "16383"));
        assert_null(buf);
        gf_image_free(&a);
    }
}

static void expect_data_error(const unsigned char *buf, size_t len, const gf_limits *l,
                              const char *what)
{
    gf_image im;
    gf_load_info info;
    int rc = gf_decode("t", buf, len, l, 0, &im, &info);
    if (rc != GF_EDATA)
        fail_msg("%s (%zu bytes): decoded with %d (%dx%d)", what, len, rc, im.width, im.height);
    assert_null(im.data);
    if (len >= 12 && !strstr(gf_errmsg(), "WebP"))
        fail_msg("%s (%zu bytes): the message does not name WebP: %s", what, len, gf_errmsg());
}

/* Every truncation of a lossy, a lossy-with-alpha and a lossless file is
 * GF_EDATA naming WebP; so is garbage after a RIFF WEBP header; the limits
 * are checked from the header. gf_peek_size reads the header. */
static void test_bad_input(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        const gf_encode_opts o = webp_opts(k == 2, 80);
        const int ch = k == 0 ? 3 : 4;
        gf_image a;
        unsigned char *buf;
        size_t len;
        gf_shape s;
        char what[64];
        random_alpha_image(&a, 19, 11, ch);
        encode_ok(&a, &o, &buf, &len);
        assert_int_equal(gf_peek_size(buf, len, &s), 0);
        assert_int_equal(s.width, 19);
        assert_int_equal(s.height, 11);
        assert_int_equal(s.channels, webp_channels(&a));
        assert_int_equal(s.bits, 8);
        snprintf(what, sizeof what, "%s cut short", k == 2 ? "lossless" : "lossy");
        for (size_t n = 0; n < len; n++)
            expect_data_error(buf, n, &lim, what);
        /* over the limits: refused from the header */
        gf_limits l = lim;
        l.max_pixels = 19 * 11 - 1;
        expect_data_error(buf, len, &l, "over --max-pixels");
        assert_non_null(strstr(gf_errmsg(), "WebP image of 19x11"));
        l = lim;
        l.max_image_bytes = 19 * 11 * (uint64_t)ch - 1;
        expect_data_error(buf, len, &l, "over --max-image-bytes");
        /* garbage after the RIFF header, the size kept */
        for (size_t i = 12; i < len; i++)
            buf[i] = (unsigned char)test_rand();
        expect_data_error(buf, len, &lim, "garbage after RIFF WEBP");
        free(buf);
        gf_image_free(&a);
    }
    /* a bare header; a header whose size exceeds the data */
    static const unsigned char bare[12] = {'R', 'I', 'F', 'F', 4, 0, 0, 0, 'W', 'E', 'B', 'P'};
    expect_data_error(bare, sizeof bare, &lim, "a bare header");
    unsigned char big[64];
    memcpy(big, bare, 12);
    big[4] = 0xff, big[5] = 0xff;
    for (size_t i = 12; i < sizeof big; i++)
        big[i] = (unsigned char)test_rand();
    expect_data_error(big, sizeof big, &lim, "random chunks");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lossless_roundtrip), cmocka_unit_test(test_stride),
        cmocka_unit_test(test_lossy_roundtrip),    cmocka_unit_test(test_write_refusals),
        cmocka_unit_test(test_bad_input),
    };
    test_state(); /* print the seed first */
    return cmocka_run_group_tests_name("webp", tests, NULL, NULL);
}
