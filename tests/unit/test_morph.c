/* test_morph.c - erode, dilate, open and close on the CPU: hand-computed
 * cases, then the fast path (out of place and in place, outputs poisoned)
 * and the gold against a brute-force window over the brute-force padded
 * image, on random images of every layout and awkward sizes, every border
 * mode and square and non-square structuring elements; the fast path
 * against the gold on an image large enough for several bands of rows; the
 * options' messages. */
#include "common.h"

#include "../../src/stages/morph.h"

static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                       GF_BORDER_CONSTANT};
static const char *const op_names[] = {"erode", "dilate", "open", "close"};

/* ---- The brute force: every window read whole from a padded copy made
 * with brute_padded_c. */

/* One erosion (max 0) or dilation (max 1) of in into out (allocated). */
static void brute_pass(const gf_image *in, gf_image *out, int max, int kw, int kh, gf_border b)
{
    const int w = in->width, h = in->height, C = in->channels, rx = kw / 2, ry = kh / 2;
    const int pw = w + 2 * rx, ph = h + 2 * ry;
    int *pad = malloc(sizeof *pad * (size_t)pw * (size_t)ph * (size_t)C);

    assert_non_null(pad);
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            for (int c = 0; c < C; c++)
                pad[((size_t)y * pw + x) * C + c] = brute_padded_c(in, x - rx, y - ry, c, b);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < C; c++) {
                int v = pad[((size_t)y * pw + x) * C + c];
                for (int dy = 0; dy < kh; dy++)
                    for (int dx = 0; dx < kw; dx++) {
                        const int s = pad[((size_t)(y + dy) * pw + x + dx) * C + c];
                        v = max ? (s > v ? s : v) : (s < v ? s : v);
                    }
                gf_sample_set(out, x, y, c, (unsigned)v);
            }
    free(pad);
}

static void brute(const gf_image *in, gf_image *out, gf_morph_op op, int kw, int kh, gf_border b)
{
    gf_image mid;

    if (op == GF_MORPH_ERODE || op == GF_MORPH_DILATE) {
        brute_pass(in, out, op == GF_MORPH_DILATE, kw, kh, b);
        return;
    }
    assert_int_equal(gf_image_alloc(&mid, in->width, in->height, in->channels, in->bits), 0);
    brute_pass(in, &mid, op == GF_MORPH_CLOSE, kw, kh, b);
    brute_pass(&mid, out, op == GF_MORPH_OPEN, kw, kh, b);
    gf_image_free(&mid);
}

/* The first differing sample of got and want, as a failure. */
static void expect_same(const gf_image *got, const gf_image *want, const char *what, int kw,
                        int kh, gf_morph_op op, gf_border b)
{
    for (int y = 0; y < want->height; y++)
        for (int x = 0; x < want->width; x++)
            for (int c = 0; c < want->channels; c++)
                if (gf_sample(got, x, y, c) != gf_sample(want, x, y, c))
                    fail_msg("%s: %dx%d %s, %s %dx%d border %d (value %d): (%d,%d) channel %d "
                             "is %u, want %u",
                             what, want->width, want->height,
                             gf_layout_name(want->channels, want->bits), op_names[op], kw, kh,
                             b.mode, b.value, x, y, c, gf_sample(got, x, y, c),
                             gf_sample(want, x, y, c));
}

/* ---- Hand-computed cases. */

/* Sample (x, y) of op kw x kh on the gray 8-bit w x h image px (fast path
 * and gold, which must agree). */
static unsigned one(const unsigned char *px, int w, int h, gf_morph_op op, int kw, int kh,
                    gf_border b, int x, int y)
{
    gf_image in = {w, h, 1, 8, (size_t)w, (unsigned char *)px}, out, ref;
    unsigned v;

    assert_int_equal(gf_image_alloc(&out, w, h, 1, 8), 0);
    assert_int_equal(gf_image_alloc(&ref, w, h, 1, 8), 0);
    memset(out.data, 0xA5, (size_t)w * h);
    memset(ref.data, 0x5A, (size_t)w * h);
    assert_int_equal(gf_morph_cpu(&in, &out, op, kw, kh, b), 0);
    assert_int_equal(gf_morph_gold(&in, &ref, op, kw, kh, b), 0);
    v = gf_sample(&out, x, y, 0);
    assert_int_equal(v, gf_sample(&ref, x, y, 0));
    gf_image_free(&out);
    gf_image_free(&ref);
    return v;
}

static void test_hand(void **state)
{
    static const unsigned char a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; /* 4x3 */
    const gf_border rep = {GF_BORDER_REPLICATE, 0}, r101 = {GF_BORDER_REFLECT101, 0};
    const gf_border zero = {GF_BORDER_CONSTANT, 0}, full = {GF_BORDER_CONSTANT, 255};
    (void)state;

    /* replicate, corner (0,0): rows 0 0 1, columns 0 0 1 -> 1 2 5 6 */
    assert_int_equal(one(a, 4, 3, GF_MORPH_ERODE, 3, 3, rep, 0, 0), 1);
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 3, 3, rep, 0, 0), 6);
    /* corner (3,2): rows 1 2 2, columns 2 3 3 -> 7 8 11 12 */
    assert_int_equal(one(a, 4, 3, GF_MORPH_ERODE, 3, 3, rep, 3, 2), 7);
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 3, 3, rep, 3, 2), 12);
    /* reflect101 at (0,0): rows 1 0 1, columns 1 0 1 -> 1 2 5 6 */
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 3, 3, r101, 0, 0), 6);
    /* reflect101, 5x5 at (0,0): rows 2 1 0 1 2, columns 2 1 0 1 2 -> all of columns 0..2 */
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 5, 5, r101, 0, 0), 11);
    assert_int_equal(one(a, 4, 3, GF_MORPH_ERODE, 5, 5, r101, 3, 0), 2);
    /* constant: the border wins where it is the extreme */
    assert_int_equal(one(a, 4, 3, GF_MORPH_ERODE, 3, 3, zero, 1, 1), 1);
    assert_int_equal(one(a, 4, 3, GF_MORPH_ERODE, 3, 3, zero, 0, 0), 0);
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 3, 3, zero, 1, 1), 11);
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 3, 3, full, 3, 1), 255);
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 3, 3, full, 2, 1), 12);
    /* wide and tall elements: 3x1 and 1x3 */
    assert_int_equal(one(a, 4, 3, GF_MORPH_ERODE, 3, 1, rep, 2, 1), 6);
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 1, 3, rep, 2, 1), 11);
    /* 7x1 at (0,0), replicate: the edge repeated and columns 0..3 -> 4 */
    assert_int_equal(one(a, 4, 3, GF_MORPH_DILATE, 7, 1, rep, 0, 0), 4);
    /* 1x1 leaves the image as it is */
    assert_int_equal(one(a, 4, 3, GF_MORPH_OPEN, 1, 1, zero, 2, 2), 11);

    /* open removes a bright pixel smaller than the element; close fills a
     * dark one */
    unsigned char dot[25];
    memset(dot, 0, sizeof dot);
    dot[12] = 200;
    assert_int_equal(one(dot, 5, 5, GF_MORPH_OPEN, 3, 3, rep, 2, 2), 0);
    assert_int_equal(one(dot, 5, 5, GF_MORPH_DILATE, 3, 3, rep, 1, 1), 200);
    memset(dot, 200, sizeof dot);
    dot[12] = 9;
    assert_int_equal(one(dot, 5, 5, GF_MORPH_CLOSE, 3, 3, rep, 2, 2), 200);
    assert_int_equal(one(dot, 5, 5, GF_MORPH_ERODE, 3, 3, rep, 3, 3), 9);
    /* a 3x3 bright square is open under the 3x3 element: opening keeps it */
    unsigned char sq[49];
    memset(sq, 10, sizeof sq);
    for (int y = 2; y < 5; y++)
        memset(sq + y * 7 + 2, 90, 3);
    assert_int_equal(one(sq, 7, 7, GF_MORPH_OPEN, 3, 3, rep, 2, 2), 90);
    assert_int_equal(one(sq, 7, 7, GF_MORPH_OPEN, 3, 3, rep, 1, 2), 10);
    assert_int_equal(one(sq, 7, 7, GF_MORPH_OPEN, 5, 5, rep, 3, 3), 10);
    /* close with constant 0 of a flat 3x3 image: the dilation is flat, the
     * erosion lets the border win everywhere but at the centre */
    unsigned char flat[9];
    memset(flat, 200, sizeof flat);
    assert_int_equal(one(flat, 3, 3, GF_MORPH_CLOSE, 3, 3, zero, 1, 1), 200);
    assert_int_equal(one(flat, 3, 3, GF_MORPH_CLOSE, 3, 3, zero, 0, 1), 0);
    /* open with constant 255: the erosion is flat, the dilation lets the
     * border win at the edges */
    assert_int_equal(one(flat, 3, 3, GF_MORPH_OPEN, 3, 3, full, 1, 1), 200);
    assert_int_equal(one(flat, 3, 3, GF_MORPH_OPEN, 3, 3, full, 2, 2), 255);
}

/* 16-bit and colour: each channel on its own, the full 16-bit range. */
static void test_hand_layouts(void **state)
{
    const gf_border rep = {GF_BORDER_REPLICATE, 0}, hi = {GF_BORDER_CONSTANT, 65535};
    uint16_t s16[3] = {1000, 65535, 7};
    gf_image in16 = {3, 1, 1, 16, sizeof s16, (unsigned char *)s16}, o16;
    unsigned char rgb[6] = {10, 200, 30, 20, 100, 40};
    gf_image inc = {2, 1, 3, 8, sizeof rgb, rgb}, oc;
    (void)state;

    assert_int_equal(gf_image_alloc(&o16, 3, 1, 1, 16), 0);
    assert_int_equal(gf_morph_cpu(&in16, &o16, GF_MORPH_ERODE, 3, 1, rep), 0);
    assert_int_equal(gf_sample(&o16, 0, 0, 0), 1000);
    assert_int_equal(gf_sample(&o16, 1, 0, 0), 7);
    assert_int_equal(gf_sample(&o16, 2, 0, 0), 7);
    assert_int_equal(gf_morph_cpu(&in16, &o16, GF_MORPH_DILATE, 3, 3, rep), 0);
    for (int x = 0; x < 3; x++)
        assert_int_equal(gf_sample(&o16, x, 0, 0), 65535);
    /* erode with the constant 65535: the constant never wins */
    assert_int_equal(gf_morph_cpu(&in16, &o16, GF_MORPH_ERODE, 1, 5, hi), 0);
    assert_int_equal(gf_sample(&o16, 0, 0, 0), 1000);
    assert_int_equal(gf_sample(&o16, 1, 0, 0), 65535);
    gf_image_free(&o16);

    assert_int_equal(gf_image_alloc(&oc, 2, 1, 3, 8), 0);
    assert_int_equal(gf_morph_cpu(&inc, &oc, GF_MORPH_ERODE, 3, 3, rep), 0);
    for (int x = 0; x < 2; x++) {
        assert_int_equal(gf_sample(&oc, x, 0, 0), 10);
        assert_int_equal(gf_sample(&oc, x, 0, 1), 100);
        assert_int_equal(gf_sample(&oc, x, 0, 2), 30);
    }
    assert_int_equal(gf_morph_cpu(&inc, &oc, GF_MORPH_DILATE, 5, 1, rep), 0);
    assert_int_equal(gf_sample(&oc, 0, 0, 0), 20);
    assert_int_equal(gf_sample(&oc, 0, 0, 1), 200);
    assert_int_equal(gf_sample(&oc, 0, 0, 2), 40);
    gf_image_free(&oc);
}

/* ---- Random images. */

/* Every op, border and window of wins on a random w x h image of every
 * layout: the fast path out of place and in place, and the gold, against
 * the brute force. */
static void check_random(int w, int h, const int (*wins)[2], int nwins)
{
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        gf_image in, out, copy, ref, want;
        random_layout(&in, w, h, ch, bits);
        assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&copy, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&ref, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&want, w, h, ch, bits), 0);
        for (int wi = 0; wi < nwins; wi++)
            for (int m = 0; m < 3; m++)
                for (int op = 0; op < 4; op++) {
                    const int kw = wins[wi][0], kh = wins[wi][1];
                    const gf_border b = {modes[m], (int)(test_rand() & gf_sample_max(bits))};
                    const size_t bytes = in.stride * (size_t)h;
                    memset(out.data, 0xA5, bytes);
                    memset(ref.data, 0x5A, bytes);
                    assert_int_equal(gf_morph_cpu(&in, &out, op, kw, kh, b), 0);
                    assert_int_equal(gf_morph_gold(&in, &ref, op, kw, kh, b), 0);
                    memcpy(copy.data, in.data, bytes);
                    assert_int_equal(gf_morph_cpu(&copy, &copy, op, kw, kh, b), 0);
                    brute(&in, &want, op, kw, kh, b);
                    expect_same(&out, &want, "fast", kw, kh, op, b);
                    expect_same(&copy, &want, "fast in place", kw, kh, op, b);
                    expect_same(&ref, &want, "gold", kw, kh, op, b);
                }
        gf_image_free(&in);
        gf_image_free(&out);
        gf_image_free(&copy);
        gf_image_free(&ref);
        gf_image_free(&want);
    }
}

static void test_random_sizes(void **state)
{
    /* direct (1, 3, 5) and van Herk (7 and up) columns; direct (1, 3, 5)
     * and doubling (7 and up) rows; a random element */
    int wins[][2] = {{3, 3}, {5, 5}, {1, 1}, {7, 3}, {3, 9}, {9, 7}, {1, 15}, {15, 1}, {0, 0}};
    static const int sizes[][2] = {{1, 1}, {1, 7},  {7, 1},  {2, 2},  {5, 5},
                                   {7, 5}, {31, 33}, {64, 65}, {200, 3}, {3, 130}};
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        wins[8][0] = 1 + 2 * (int)(test_rand() % 9);
        wins[8][1] = 1 + 2 * (int)(test_rand() % 9);
        check_random(sizes[i][0], sizes[i][1], (const int(*)[2])wins, 9);
    }
    check_random(1 + (int)(test_rand() % 100), 1 + (int)(test_rand() % 100),
                 (const int(*)[2])wins, 9);
}

/* The largest elements, on images smaller than them and a little larger. */
static void test_large_elements(void **state)
{
    static const int wins[][2] = {{63, 63}, {31, 5}, {5, 31}, {63, 1}, {1, 63}, {33, 17}};
    static const int sizes[][2] = {{1, 1}, {5, 3}, {2, 40}, {70, 2}, {23, 19}};
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_random(sizes[i][0], sizes[i][1], wins, (int)(sizeof wins / sizeof wins[0]));
}

/* An image large enough for several bands of rows (GF_PARALLEL): the fast
 * path against the gold, out of place and in place, gray and RGB 8-bit and
 * gray 16-bit, with elements whose van Herk blocks do not divide a band. */
static void test_bands(void **state)
{
    static const int wins[][2] = {{3, 3}, {15, 15}, {63, 63}, {9, 29}, {45, 5}};
    static const int layouts[][2] = {{1, 8}, {3, 8}, {1, 16}};
    const int w = 613, h = 517;
    (void)state;
    assert_true(GF_PARALLEL(w, h));
    for (int l = 0; l < 3; l++) {
        const int ch = layouts[l][0], bits = layouts[l][1];
        gf_image in, out, copy, ref;
        random_layout(&in, w, h, ch, bits);
        assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&copy, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&ref, w, h, ch, bits), 0);
        for (size_t wi = 0; wi < sizeof wins / sizeof wins[0]; wi++) {
            const int op = (int)(test_rand() % 4), kw = wins[wi][0], kh = wins[wi][1];
            const gf_border b = {modes[wi % 3], (int)(test_rand() & gf_sample_max(bits))};
            const size_t bytes = in.stride * (size_t)h;
            memset(out.data, 0xA5, bytes);
            memset(ref.data, 0x5A, bytes);
            assert_int_equal(gf_morph_cpu(&in, &out, op, kw, kh, b), 0);
            assert_int_equal(gf_morph_gold(&in, &ref, op, kw, kh, b), 0);
            memcpy(copy.data, in.data, bytes);
            assert_int_equal(gf_morph_cpu(&copy, &copy, op, kw, kh, b), 0);
            expect_same(&out, &ref, "fast", kw, kh, op, b);
            expect_same(&copy, &ref, "fast in place", kw, kh, op, b);
        }
        gf_image_free(&in);
        gf_image_free(&out);
        gf_image_free(&copy);
        gf_image_free(&ref);
    }
}

static void test_bad_args(void **state)
{
    gf_image a, b;
    const gf_border rep = {GF_BORDER_REPLICATE, 0};
    (void)state;
    random_image(&a, 4, 4);
    random_image(&b, 4, 4);
    assert_int_equal(gf_morph_cpu(&a, &b, GF_MORPH_ERODE, 4, 3, rep), GF_EINTERNAL);
    assert_int_equal(gf_morph_cpu(&a, &b, GF_MORPH_ERODE, 3, 65, rep), GF_EINTERNAL);
    assert_int_equal(gf_morph_gold(&a, &b, GF_MORPH_OPEN, 0, 3, rep), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
}

/* The options: windows parse to the stage's operation; bad ones name the
 * flag and the range. */
static void test_options(void **state)
{
    static const char *const bad[] = {"4", "0", "65", "3x4", "x3", "3x", "-3", "3x3x3", "a", ""};
    (void)state;
    for (int op = 0; op < 4; op++) {
        const gf_stage_ops *ops = gf_stage_find(op_names[op]);
        char flag[16], label[32];
        gf_stage s;
        assert_non_null(ops);
        snprintf(flag, sizeof flag, "--%s", op_names[op]);
        gf_stage_init(&s, ops);
        assert_int_equal(ops->opts[0].parse(&s, "7x3"), 0);
        assert_int_equal((int)gf_morph_op_of(&s), op);
        assert_int_equal(GF_CPARAMS(&s, gf_morph_params)->kw, 7);
        assert_int_equal(GF_CPARAMS(&s, gf_morph_params)->kh, 3);
        gf_stage_label(&s, label, sizeof label);
        assert_true(strstr(label, op_names[op]) == label && strstr(label, "7x3"));
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            gf_stage_init(&s, ops);
            assert_int_equal(ops->opts[0].parse(&s, bad[i]), GF_EUSAGE);
            if (!strstr(gf_errmsg(), flag) || !strstr(gf_errmsg(), "odd, 1..63"))
                fail_msg("'%s': %s", bad[i], gf_errmsg());
        }
        gf_stage_init(&s, ops);
        assert_int_equal(ops->opts[0].parse(&s, "1"), 0);
        assert_true(gf_stage_unchanged(&s, &(gf_shape){3, 3, 1, 8}));
        assert_int_equal(ops->opts[0].parse(&s, "63"), 0);
        assert_false(gf_stage_unchanged(&s, &(gf_shape){3, 3, 1, 8}));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand),         cmocka_unit_test(test_hand_layouts),
        cmocka_unit_test(test_random_sizes), cmocka_unit_test(test_large_elements),
        cmocka_unit_test(test_bands),        cmocka_unit_test(test_bad_args),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests_name("morph", tests, NULL, NULL);
}
