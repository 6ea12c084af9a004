/* test_stages.c - every registered stage's fast CPU path against its gold
 * reference, bit for bit, in every test configuration the stage gives (all
 * border modes, levels and ops), on every layout the stage takes, on fresh
 * random images of awkward sizes, with the output poisoned first. */
#include "common.h"

#include "../../src/pipeline.h"
#include "../../src/stage.h"

/* Awkward sizes; the last has more than GF_PARALLEL_PIXELS pixels, so that
 * the paths that spread over threads run too. */
static const int sizes[][2] = {{1, 1},   {1, 7},    {7, 1},   {2, 2},     {5, 5},   {15, 17},
                               {16, 16}, {17, 15},  {31, 33}, {33, 31},   {64, 3},  {3, 64},
                               {127, 129}, {129, 127}, {300, 17}, {1000, 33}, {701, 379}};

static void test_fast_equals_gold(void **state)
{
    int checked = 0;
    (void)state;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int l = 0; l < 8; l++) {
            gf_image in;
            random_layout(&in, sizes[z][0], sizes[z][1], test_layouts[l][0], test_layouts[l][1]);
            const gf_shape sh = gf_image_shape(&in);
            for (int i = 0; gf_stages[i]; i++)
                for (int c = 0;; c++) {
                    gf_stage s;
                    gf_output gold, fast;
                    double ms;
                    gf_variant_result res;
                    char label[48];
                    gf_stage_init(&s, gf_stages[i]);
                    if (!s.ops->config(&s, c, 0, test_state()))
                        break;
                    /* large windows' gold by the definition only on the smaller sizes */
                    if (s.ops->large_configs && c >= s.ops->large_configs &&
                        (long)in.width * in.height > 4096)
                        continue;
                    if (gf_stage_accepts(&s, &sh))
                        continue; /* otsu takes one channel */
                    assert_int_equal(gf_stage_reference(&s, &in, &gold, &ms), 0);
                    gf_alloc_poison = 0xA5; /* outputs start as poison */
                    assert_int_equal(gf_stage_check_cpu(&s, &in, &gold, 1, &res), 0);
                    if (!res.match)
                        fail_msg("%dx%d %s: %s", in.width, in.height,
                                 gf_layout_name(in.channels, in.bits), res.why);
                    /* and with another poison: no output byte is left unwritten */
                    gf_alloc_poison = 0x5A;
                    memset(&fast, 0, sizeof fast);
                    assert_int_equal(gf_stage_run_cpu(&s, 0, &in, &fast.img, &fast.vals, &fast.n), 0);
                    if (!gf_stage_is_report(&s)) {
                        int x, y, ch;
                        assert_int_equal(gf_image_diff(&gold.img, &fast.img, &x, &y, &ch), 0);
                    }
                    gf_alloc_poison = -1;
                    if (s.ops->cpu_in_place) { /* over a copy of the input */
                        gf_image mine;
                        int x, y, ch;
                        assert_int_equal(gf_image_alloc(&mine, in.width, in.height, in.channels,
                                                        in.bits), 0);
                        for (int r = 0; r < in.height; r++)
                            memcpy(mine.data + (size_t)r * mine.stride,
                                   in.data + (size_t)r * in.stride,
                                   (size_t)in.width * GF_PIXEL_BYTES(in.channels, in.bits));
                        assert_int_equal(s.ops->cpu_in_place(&s, &mine), 0);
                        if (gf_image_diff(&gold.img, &mine, &x, &y, &ch))
                            fail_msg("%dx%d %s: in place differs at (%d,%d,%d)", in.width,
                                     in.height, gf_layout_name(in.channels, in.bits), x, y, ch);
                        gf_image_free(&mine);
                        checked++;
                    }
                    gf_output_free(&gold);
                    gf_output_free(&fast);
                    gf_stage_label(&s, label, sizeof label);
                    checked++;
                }
            gf_image_free(&in);
        }
    assert_true(checked > 1000);
    assert_true(701 * 379 >= GF_PARALLEL_PIXELS);
}

/* The baseline (variant 0) of every stage is exact, and no default names an
 * inexact variant: --compare, bench and make test-gpu measure against the
 * one, and the other is what a run without --variant gets. */
static void test_defaults_exact(void **state)
{
    (void)state;
    for (int i = 0; gf_stages[i]; i++) {
        const gf_stage_ops *ops = gf_stages[i];
        assert_non_null(ops->variants[0].name);
        if (gf_stage_variant_inexact(ops, 0))
            fail_msg("%s: the baseline variant %s is inexact", ops->name, ops->variants[0].name);
        for (const gf_default *d = ops->defaults; d && d->variant; d++) {
            const int v = gf_stage_variant_index(ops, d->variant);
            if (v < 0 || gf_stage_variant_inexact(ops, v))
                fail_msg("%s: default %s is %s", ops->name, d->variant,
                         v < 0 ? "not a variant" : "inexact");
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_equals_gold),
        cmocka_unit_test(test_defaults_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
