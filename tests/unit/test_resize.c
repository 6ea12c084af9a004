/* test_resize.c - the resize stage's weights and helpers: every axis's
 * sources lie in the image, its 8-bit weights sum to one in fixed point
 * (within the rounding of each), nearest's indices are Pillow's; the
 * premultiply helpers against their definitions over every input; the
 * CPU path (at 8 bits AVX-512, AVX2 and portable; 16 bits) against the gold
 * on shapes that reach each of its corners. The samples themselves are
 * checked against Pillow by tests/cli/resize.bats, and the CPU path against
 * the gold on every stage's sizes by test_stages. */
#include "common.h"

#include <math.h>

#include "../../src/pipeline.h"
#include "../../src/stage.h"
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

static const char *const paths[] = {"portable", "AVX2", "AVX-512"};

/* in -> WxH! with filter f by the gold and by the CPU path (output poisoned
 * first): the same bytes. */
static void check_cpu(const gf_image *in, int w, int h, gf_resize_filter f)
{
    const gf_stage_ops *ops = gf_stage_find("resize");
    gf_stage s;
    gf_image gold, fast;
    char g[32];
    int x, y, c;
    gf_stage_init(&s, ops);
    snprintf(g, sizeof g, "%dx%d!", w, h);
    assert_int_equal(ops->opts[0].parse(&s, g), 0);
    GF_PARAMS(&s, gf_resize_params)->filter = f;
    assert_int_equal(gf_image_alloc(&gold, w, h, in->channels, in->bits), 0);
    assert_int_equal(gf_image_alloc(&fast, w, h, in->channels, in->bits), 0);
    memset(fast.data, 0xA5, fast.stride * (size_t)h);
    assert_int_equal(ops->gold(&s, in, &gold), 0);
    assert_int_equal(ops->cpu(&s, in, &fast), 0);
    if (gf_image_diff(&gold, &fast, &x, &y, &c))
        fail_msg("%s %dx%d %s -> %dx%d (%s path): differs at (%d, %d) channel %d: %u, gold %u",
                 gf_layout_name(in->channels, in->bits), in->width, in->height,
                 gf_resize_filter_names[f], w, h,
                 in->bits == 8 ? paths[gf_resize_level()] : "16-bit", x, y, c,
                 gf_sample(&fast, x, y, c), gf_sample(&gold, x, y, c));
    gf_image_free(&gold);
    gf_image_free(&fast);
}

/* The 8-bit CPU path's row and column passes (AVX-512 and AVX2 where the
 * CPU has them, then the portable ones) against the gold: heights on either
 * side of the blocks of 16 and 8 rows, odd and even widths (an output's
 * first source odd or even), shrinks by up to 700 (thousands of taps, whose
 * sums pass 2^31 in one weight plane), enlargements and one-axis resizes,
 * every layout (16 bits: odd output counts, outputs of unequal taps), every
 * filter. */
static void test_cpu_paths(void **state)
{
    static const int shapes[][4] = {
        {1, 1, 3, 2},      {2, 17, 1, 5},    {17, 2, 5, 1},    {15, 16, 7, 16},
        {16, 31, 5, 32},   {33, 47, 33, 9},  {1400, 3, 2, 3},  {3, 1400, 3, 2},
        {211, 35, 60, 70}, {97, 161, 97, 40}, {64, 64, 64, 200}, {301, 17, 77, 17},
    };
    (void)state;
    char ran[64] = "";
    for (int simd = 2; simd >= 0; simd--) {
        gf_resize_simd = simd;
        if (gf_resize_level() != simd)
            continue; /* the CPU lacks it */
        strcat(ran, paths[simd]);
        strcat(ran, simd ? ", " : "");
        for (size_t z = 0; z < sizeof shapes / sizeof shapes[0]; z++)
            for (int l = 0; l < 8; l++) { /* 16 bits too: their passes pair outputs */
                gf_image in;
                random_layout(&in, shapes[z][0], shapes[z][1], test_layouts[l][0],
                              test_layouts[l][1]);
                for (int f = 1; f < GF_FILTER_COUNT; f++) /* nearest has no passes */
                    check_cpu(&in, shapes[z][2], shapes[z][3], (gf_resize_filter)f);
                gf_image_free(&in);
            }
        for (int t = 0; t < 40; t++) { /* and random shapes */
            gf_image in;
            const int iw = 1 + (int)(test_rand() % 700), ih = 1 + (int)(test_rand() % 90);
            random_layout(&in, iw, ih, 1 + (int)(test_rand() % 4), t % 4 ? 8 : 16);
            check_cpu(&in, 1 + (int)(test_rand() % 400), 1 + (int)(test_rand() % 120),
                      (gf_resize_filter)(1 + test_rand() % (GF_FILTER_COUNT - 1)));
            gf_image_free(&in);
        }
    }
    gf_resize_simd = 2;
    print_message("8-bit CPU paths run: %s\n", ran);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axes),
        cmocka_unit_test(test_premultiply),
        cmocka_unit_test(test_cpu_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
