/* test_mean.c - border indexing and the CPU box mean: hand-computed values,
 * then random images against a brute-force reference. */
#include "common.h"

#include "../../src/stages/mean.h"

static void test_border_index(void **state)
{
    (void)state;
    /* n = 5: indices -2..6 */
    static const int rep[] = {0, 0, 0, 1, 2, 3, 4, 4, 4};
    static const int r101[] = {2, 1, 0, 1, 2, 3, 4, 3, 2};
    for (int i = -2; i <= 6; i++) {
        assert_int_equal(gf_border_index(i, 5, GF_BORDER_REPLICATE), rep[i + 2]);
        assert_int_equal(gf_border_index(i, 5, GF_BORDER_REFLECT101), r101[i + 2]);
        assert_int_equal(gf_border_index(i, 5, GF_BORDER_CONSTANT), i >= 0 && i < 5 ? i : -1);
    }
    /* n = 2 reflects with period 2: -2 -> 0, -1 -> 1, 2 -> 0, 3 -> 1 */
    assert_int_equal(gf_border_index(-2, 2, GF_BORDER_REFLECT101), 0);
    assert_int_equal(gf_border_index(-1, 2, GF_BORDER_REFLECT101), 1);
    assert_int_equal(gf_border_index(2, 2, GF_BORDER_REFLECT101), 0);
    assert_int_equal(gf_border_index(3, 2, GF_BORDER_REFLECT101), 1);
    /* n = 1: everything maps to 0 */
    assert_int_equal(gf_border_index(-2, 1, GF_BORDER_REFLECT101), 0);
    assert_int_equal(gf_border_index(2, 1, GF_BORDER_REPLICATE), 0);
    /* n = 3, far outside: period 4 */
    assert_int_equal(gf_border_index(-5, 3, GF_BORDER_REFLECT101), 1);
    assert_int_equal(gf_border_index(7, 3, GF_BORDER_REFLECT101), 1);
}

static unsigned char mean_of(const unsigned char *px, int w, int h, int k, gf_border b, int x,
                             int y)
{
    gf_image in = {w, h, 1, 8, (size_t)w, (unsigned char *)px}, out;
    unsigned char v;

    assert_int_equal(gf_image_alloc(&out, w, h, 1, 8), 0);
    memset(out.data, 0xA5, (size_t)w * h);
    assert_int_equal(gf_mean_cpu(&in, &out, k, k, b), 0);
    v = out.data[(size_t)y * w + x];
    gf_image_free(&out);
    return v;
}

static void test_rounding(void **state)
{
    (void)state;
    gf_border zero = {GF_BORDER_CONSTANT, 0};
    unsigned char one[1];

    /* 1x1 with constant 0: the sum is the pixel, over 9 or 25. */
    one[0] = 4; /* 4/9 = 0.44 */
    assert_int_equal(mean_of(one, 1, 1, 3, zero, 0, 0), 0);
    one[0] = 5; /* 5/9 = 0.56 */
    assert_int_equal(mean_of(one, 1, 1, 3, zero, 0, 0), 1);
    one[0] = 12; /* 12/25 = 0.48 */
    assert_int_equal(mean_of(one, 1, 1, 5, zero, 0, 0), 0);
    one[0] = 13; /* 13/25 = 0.52 */
    assert_int_equal(mean_of(one, 1, 1, 5, zero, 0, 0), 1);
    one[0] = 255; /* 255/9 = 28.33 */
    assert_int_equal(mean_of(one, 1, 1, 3, zero, 0, 0), 28);
    /* constant=255 around a 0: 8*255/9 = 226.67 -> 227 */
    one[0] = 0;
    gf_border full = {GF_BORDER_CONSTANT, 255};
    assert_int_equal(mean_of(one, 1, 1, 3, full, 0, 0), 227);
    /* replicate on 1x1 gives the pixel back */
    one[0] = 77;
    gf_border rep = {GF_BORDER_REPLICATE, 0};
    assert_int_equal(mean_of(one, 1, 1, 5, rep, 0, 0), 77);

    /* 3x3 interior: 1..9 sums to 45, 45/9 = 5 */
    static const unsigned char nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_int_equal(mean_of(nine, 3, 3, 3, rep, 1, 1), 5);
    /* corner (0,0), replicate: rows 1 1 2 / 1 1 2 / 4 4 5 = 21, 21/9 = 2.33 */
    assert_int_equal(mean_of(nine, 3, 3, 3, rep, 0, 0), 2);
    /* corner (0,0), reflect101: 5 4 5 / 2 1 2 / 5 4 5 = 33, 3.67 -> 4 */
    gf_border r101 = {GF_BORDER_REFLECT101, 0};
    assert_int_equal(mean_of(nine, 3, 3, 3, r101, 0, 0), 4);
    /* corner (2,2), constant 0: 5 6 8 9 = 28, 3.11 -> 3 */
    assert_int_equal(mean_of(nine, 3, 3, 3, zero, 2, 2), 3);
}

/* The fast path on a random w x h image of every layout, windows square
 * and not (short rows added as shifted rows, long ones slid), every border,
 * out of place and in place, against sums of the brute-force padded image,
 * channel by channel. */
static void check_random(int w, int h)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    int wins[][2] = {{3, 3}, {5, 5}, {1, 1}, {7, 3}, {3, 9}, {17, 5}, {0, 0}};

    wins[6][0] = 1 + 2 * (int)(test_rand() % 6);
    wins[6][1] = 1 + 2 * (int)(test_rand() % 6);
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        gf_image in, out, copy;
        random_layout(&in, w, h, ch, bits);
        assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&copy, w, h, ch, bits), 0);
        for (size_t wi = 0; wi < sizeof wins / sizeof wins[0]; wi++)
            for (int m = 0; m < 3; m++) {
                const int kw = wins[wi][0], kh = wins[wi][1], rx = kw / 2, ry = kh / 2;
                gf_border b = {modes[m], (int)(test_rand() & (bits == 8 ? 255 : 65535))};
                long area = kw * kh;
                memset(out.data, 0xA5, out.stride * (size_t)h);
                assert_int_equal(gf_mean_cpu(&in, &out, kw, kh, b), 0);
                memcpy(copy.data, in.data, in.stride * (size_t)h);
                assert_int_equal(gf_mean_cpu(&copy, &copy, kw, kh, b), 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        for (int c = 0; c < ch; c++) {
                            long s = 0;
                            for (int dy = -ry; dy <= ry; dy++)
                                for (int dx = -rx; dx <= rx; dx++)
                                    s += brute_padded_c(&in, x + dx, y + dy, c, b);
                            /* nearest integer; odd areas have no exact .5 */
                            long want = (s + area / 2) / area;
                            if ((long)gf_sample(&out, x, y, c) != want ||
                                (long)gf_sample(&copy, x, y, c) != want)
                                fail_msg("%dx%d %s %dx%d mode=%d v=%d at (%d,%d) channel %d: %u "
                                         "(in place %u), want %ld",
                                         w, h, gf_layout_name(ch, bits), kw, kh, modes[m], b.value,
                                         x, y, c, gf_sample(&out, x, y, c),
                                         gf_sample(&copy, x, y, c), want);
                        }
            }
        gf_image_free(&in);
        gf_image_free(&out);
        gf_image_free(&copy);
    }
}

/* gf_mean_div_apply equals the exact rounding for every odd area up to
 * 63 x 63, at both edges of every quotient's range of sums up to the
 * largest of each depth, and at random sums. */
static void test_div_any_area(void **state)
{
    (void)state;
    for (unsigned kw = 1; kw <= 63; kw += 2)
        for (unsigned kh = 1; kh <= 63; kh += 2) {
            const unsigned area = kw * kh;
            for (int bits = 8; bits <= 16; bits += 8) {
                const unsigned max = gf_sample_max(bits) * area;
                const gf_mean_div d = gf_mean_div_of(area, bits);
                for (unsigned q = 0; q <= gf_sample_max(bits); q += 1 + q / 16) {
                    /* floor((2s + a) / (2a)) steps from q-1 to q at s = q a - (a-1)/2 */
                    const unsigned edge = q * area - (q ? (area - 1) / 2 : 0);
                    const unsigned cases[4] = {edge, edge ? edge - 1 : 0, edge + 1,
                                               test_rand() % (max + 1)};
                    for (int i = 0; i < 4; i++) {
                        const unsigned s = cases[i] > max ? max : cases[i];
                        const unsigned want = (unsigned)((2ull * s + area) / (2ull * area));
                        if (gf_mean_div_apply(s, d) != want)
                            fail_msg("area %u, %d-bit: s %u gives %u, want %u", area, bits, s,
                                     gf_mean_div_apply(s, d), want);
                    }
                }
                assert_int_equal(gf_mean_div_apply(max, d), gf_sample_max(bits));
            }
        }
}

/* The warp kernel's multiply-add rounding equals the integer one for every
 * sum. */
static void test_div_rounding(void **state)
{
    (void)state;
    for (unsigned k = 3; k <= 5; k += 2) {
        const unsigned area = k * k;
        for (unsigned s = 0; s <= 255 * area; s++)
            assert_int_equal(gf_mean_div_bits(s, area) >> 24, (2 * s + area) / (2 * area));
        for (unsigned s = 0; s <= 65535 * area; s++)
            if (gf_mean_div16(s, area) != (2 * s + area) / (2 * area))
                fail_msg("gf_mean_div16(%u, %u) = %u", s, area, gf_mean_div16(s, area));
    }
}

static void test_random_sizes(void **state)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {5, 5},
                                   {7, 5}, {31, 33}, {127, 129}, {200, 3}};
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_random(sizes[i][0], sizes[i][1]);
    check_random(1 + (int)(test_rand() % 300), 1 + (int)(test_rand() % 300));
}

static void test_bad_ksize(void **state)
{
    gf_image a, b;
    gf_border rep = {GF_BORDER_REPLICATE, 0};
    (void)state;
    random_image(&a, 4, 4);
    random_image(&b, 4, 4);
    assert_int_equal(gf_mean_cpu(&a, &b, 4, 4, rep), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_border_index),
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_div_rounding),
        cmocka_unit_test(test_div_any_area),
        cmocka_unit_test(test_random_sizes),
        cmocka_unit_test(test_bad_ksize),
    };
    return cmocka_run_group_tests_name("mean", tests, NULL, NULL);
}
