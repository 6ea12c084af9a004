/* test_stats.c - histogram statistics against hand-computed cases. */
#include "common.h"

#include <math.h>

#include "../../src/report/stats.h"

static void test_one_pixel(void **state)
{
    uint32_t bins[256] = {0};
    gf_hist_stats st;
    (void)state;
    bins[7] = 1;
    gf_hist_stats_compute(bins, 256, &st);
    assert_int_equal(st.pixels, 1);
    assert_int_equal(st.min, 7);
    assert_int_equal(st.max, 7);
    assert_true(st.mean == 7.0);
    assert_true(st.stddev == 0.0);
    assert_int_equal(st.mode, 7);
    assert_int_equal(st.median, 7);
    assert_int_equal(st.p1, 7);
    assert_int_equal(st.p99, 7);
    assert_true(st.entropy == 0.0);
    assert_int_equal(st.otsu, 0);
}

static void test_two_values(void **state)
{
    uint32_t bins[256] = {0};
    gf_hist_stats st;
    (void)state;
    bins[10] = 3; /* 10 10 10 200 */
    bins[200] = 1;
    gf_hist_stats_compute(bins, 256, &st);
    assert_int_equal(st.pixels, 4);
    assert_true(st.mean == 57.5);
    assert_true(fabs(st.stddev - sqrt(6768.75)) < 1e-9);
    assert_int_equal(st.mode, 10);
    assert_int_equal(st.median, 10); /* cum 3 >= 2 */
    assert_int_equal(st.p75, 10);    /* cum 3 >= 3 */
    assert_int_equal(st.p95, 200);   /* 3 < 3.8 */
    assert_true(fabs(st.entropy - (-(0.75 * log2(0.75) + 0.25 * log2(0.25)))) < 1e-9);
    assert_int_equal(st.otsu, 10); /* every t in 10..199 splits the same: the smallest */
    assert_int_equal(st.min, 10);
    assert_int_equal(st.max, 200);
}

static void test_uniform(void **state)
{
    uint32_t bins[256];
    gf_hist_stats st;
    (void)state;
    for (int v = 0; v < 256; v++)
        bins[v] = 1;
    gf_hist_stats_compute(bins, 256, &st);
    assert_true(st.mean == 127.5);
    assert_true(fabs(st.entropy - 8.0) < 1e-12);
    assert_int_equal(st.median, 127); /* cum 128 >= 128 */
    assert_int_equal(st.p1, 2);       /* cum 3 >= 2.56 */
    assert_int_equal(st.p99, 253);    /* cum 254 >= 253.44 */
    assert_int_equal(st.mode, 0);     /* ties: the smallest */
    assert_int_equal(st.otsu, 127);
}

static void test_empty(void **state)
{
    uint32_t bins[256] = {0};
    gf_hist_stats st;
    (void)state;
    gf_hist_stats_compute(bins, 256, &st);
    assert_int_equal(st.pixels, 0);
    assert_int_equal(st.max, 0);
}

/* Random histograms: percentiles by their definition, mean by brute force. */
static void test_random_percentiles(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++) {
        uint32_t bins[256];
        uint64_t n = 0;
        for (int v = 0; v < 256; v++)
            n += bins[v] = test_rand() % 4 ? 0 : test_rand() % 1000;
        bins[test_rand() % 256] += 1;
        n += 1;
        for (int p = 1; p <= 100; p += 7) {
            int got = gf_hist_percentile(bins, 256, n, p);
            uint64_t cum = 0;
            int want = -1;
            for (int v = 0; v < 256 && want < 0; v++) {
                cum += bins[v];
                if ((double)cum >= p * (double)n / 100.0)
                    want = v;
            }
            assert_int_equal(got, want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_pixel), cmocka_unit_test(test_two_values),
        cmocka_unit_test(test_uniform),   cmocka_unit_test(test_empty),
        cmocka_unit_test(test_random_percentiles),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
