/* test_resize.c - the resize stage's weights and helpers: every axis's
 * sources lie in the image, its 8-bit weights sum to one in fixed point
 * (within the rounding of each), nearest's indices are Pillow's; the
 * premultiply helpers against their definitions over every input. The
 * samples themselves are checked against Pillow by tests/cli/resize.bats,
 * and the CPU path against the gold by test_stages. */
#include "common.h"

#include <math.h>

#include "../../src/stages/resize.h"

static void test_axes(void **state)
{
    (void)state;
    for (int t = 0; t < 400; t++) {
        const int in = 1 + (int)(test_rand() % (t % 4 ? 300 : 5000));
        const int out = 1 + (int)(test_rand() % (t % 3 ? 300 : 3000));
        const gf_resize_filter f = (gf_resize_filter)(t % GF_FILTER_COUNT);
        gf_resize_axis a;
        assert_int_equal(gf_resize_axis_init(&a, in, out, f), 0);
        for (int i = 0; i < out; i++) {
            if (f == GF_FILTER_NEAREST) {
                /* the centre of output pixel i, truncated, within a rounding */
                const double c = (i + 0.5) * in / out;
                assert_true(a.src[i] >= 0 && a.src[i] < in);
                assert_true(fabs(a.src[i] - floor(c)) <= 1.0);
                continue;
            }
            long long sum = 0;
            assert_true(a.first[i] >= 0 && a.count[i] >= 1 && a.count[i] <= a.ksize);
            assert_true(a.first[i] + a.count[i] <= in);
            for (int j = 0; j < a.count[i]; j++)
                sum += a.k8[(size_t)i * a.ksize + j];
            if (llabs(sum - (1 << GF_RESIZE_BITS)) > a.count[i])
                fail_msg("%d -> %d %s: output %d weights sum to %lld", in, out,
                         gf_resize_filter_names[f], i, sum);
        }
        gf_resize_axis_free(&a);
    }
}

static void test_premultiply(void **state)
{
    (void)state;
    for (unsigned v = 0; v < 256; v++)
        for (unsigned a = 0; a < 256; a++) {
            const unsigned p = gf_resize_premul(v, a);
            /* MULDIV255 is v * a / 255 rounded to nearest */
            assert_int_equal(p, (v * a + 127) / 255);
            const unsigned u = gf_resize_unpremul(v, a);
            if (a == 0 || a == 255)
                assert_int_equal(u, v);
            else
                assert_int_equal(u, v * 255 / a > 255 ? 255 : v * 255 / a);
        }
    assert_int_equal(gf_resize_clip8(-1), 0);
    assert_int_equal(gf_resize_clip8(256 << GF_RESIZE_BITS), 255);
    assert_int_equal(gf_resize_clip8((17 << GF_RESIZE_BITS) + (1 << (GF_RESIZE_BITS - 1))), 17);
    assert_int_equal(gf_resize_round(2.5), 3);
    assert_int_equal(gf_resize_round(-2.5), -3);
    assert_int_equal(gf_resize_round(-2.4999), -2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axes),
        cmocka_unit_test(test_premultiply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
