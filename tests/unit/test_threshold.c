/* test_threshold.c - the threshold stage's CPU paths and Otsu's threshold,
 * against an independent oracle: the between-class variance
 * w0 w1 (mu0 - mu1)^2 compared as exact fractions in 128-bit integers
 * (small images only), on hand-made and fresh random histograms. */
#include "common.h"

#include "../../src/otsu.h"
#include "../../src/report/stats.h"
#include "../../src/stages/threshold.h"

/* Oracle: for each t, the score (s0 w1 - s1 w0)^2 / (w0 w1) with s1 = S - s0;
 * argmax, the smallest t on ties; 0 when no t splits. Needs N <= 2^20. */
static int oracle_otsu(const uint32_t *bins)
{
    unsigned __int128 best_num = 0, best_den = 1;
    long long w0 = 0, s0 = 0, n = 0, total = 0;
    int best = 0, found = 0;

    for (int v = 0; v < 256; v++) {
        n += bins[v];
        total += (long long)v * bins[v];
    }
    for (int t = 0; t <= 254; t++) {
        w0 += bins[t];
        s0 += (long long)t * bins[t];
        long long w1 = n - w0, s1 = total - s0;
        if (w0 == 0 || w1 == 0)
            continue;
        __int128 d = (__int128)s0 * w1 - (__int128)s1 * w0;
        unsigned __int128 num = (unsigned __int128)(d < 0 ? -d : d) * (unsigned __int128)(d < 0 ? -d : d);
        unsigned __int128 den = (unsigned __int128)w0 * w1;
        if (!found || num * best_den > best_num * den) {
            best_num = num;
            best_den = den;
            best = t;
            found = 1;
        }
    }
    return best;
}

static void test_otsu_hand(void **state)
{
    uint32_t bins[256] = {0};
    (void)state;
    assert_int_equal(gf_otsu(bins), 0); /* empty */
    bins[7] = 10;
    assert_int_equal(gf_otsu(bins), 0); /* one value: nothing splits */
    bins[200] = 10;
    /* two values: every t in 7..199 splits them equally well; the smallest wins */
    assert_int_equal(gf_otsu(bins), 7);
    memset(bins, 0, sizeof bins);
    bins[10] = 3; /* 10 10 10 200 */
    bins[200] = 1;
    assert_int_equal(gf_otsu(bins), 10);
    memset(bins, 0, sizeof bins);
    bins[0] = 1;
    bins[255] = 1;
    assert_int_equal(gf_otsu(bins), 0);
}

static void test_otsu_random(void **state)
{
    (void)state;
    for (int round = 0; round < 3000; round++) {
        uint32_t bins[256] = {0};
        int kind = round % 4, n = 1 + (int)(test_rand() % 4000);
        for (int i = 0; i < n; i++) {
            unsigned v = test_rand();
            if (kind == 0)
                bins[v % 256]++;
            else if (kind == 1) /* two clusters */
                bins[(v & 1 ? 40 : 180) + (v >> 8) % 30]++;
            else if (kind == 2) /* few values, ties likely */
                bins[(v % 4) * 60]++;
            else /* symmetric, so splits tie */
                bins[v % 2 ? 100 : 156] += 1;
        }
        if (gf_otsu(bins) != oracle_otsu(bins))
            fail_msg("round %d: gf_otsu %d, oracle %d", round, gf_otsu(bins), oracle_otsu(bins));
        gf_hist_stats st;
        gf_hist_stats_compute(bins, &st);
        assert_int_equal(st.otsu, gf_otsu(bins)); /* the statistic is the stage's level */
    }
}

/* A pixel above t becomes 255, every other 0: by the definition. */
static void check_levels(const gf_image *in, const gf_image *out, int t)
{
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++) {
            int v = in->data[(size_t)y * in->stride + x];
            if (out->data[(size_t)y * out->stride + x] != (v > t ? 255 : 0))
                fail_msg("(%d,%d): %d with t %d gives %d", x, y, v, t,
                         out->data[(size_t)y * out->stride + x]);
        }
}

static void test_paths(void **state)
{
    /* 4099x2049 (8.4 MP, rows 4099 bytes apart): the streamed path, with its
     * unaligned row starts and ends */
    static const int sizes[][2] = {{1, 1},      {1, 7},   {7, 1},     {31, 33},
                                   {127, 129}, {1000, 3}, {4099, 2049}};
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        gf_image in, gold, fast;
        random_image(&in, sizes[i][0], sizes[i][1]);
        assert_int_equal(gf_image_alloc(&gold, in.width, in.height), 0);
        assert_int_equal(gf_image_alloc(&fast, in.width, in.height), 0);
        for (int k = 0; k < 6; k++) {
            int t = k == 0 ? 0 : k == 1 ? 255 : k == 2 ? 254 : (int)(test_rand() % 256);
            memset(gold.data, 0x5A, (size_t)in.width * in.height);
            memset(fast.data, 0xA5, (size_t)in.width * in.height);
            assert_int_equal(gf_threshold_gold(&in, &gold, t), 0);
            assert_int_equal(gf_threshold_cpu(&in, &fast, t), 0);
            check_levels(&in, &gold, t);
            check_levels(&in, &fast, t);
        }
        gf_image_free(&in);
        gf_image_free(&gold);
        gf_image_free(&fast);
    }
}

/* The stage with otsu thresholds at the oracle's level, through the
 * registry's descriptor and its option parser. */
static void test_stage_otsu(void **state)
{
    const gf_stage_ops *ops = gf_stage_find("threshold");
    gf_stage s;
    gf_image in, out;
    uint32_t bins[256] = {0};
    (void)state;
    assert_non_null(ops);
    gf_stage_init(&s, ops);
    assert_int_equal(ops->opts[0].parse(&s, "otsu"), 0);
    random_image(&in, 61, 37);
    for (int i = 0; i < 61 * 37; i++) /* two clusters */
        in.data[i] = (unsigned char)(in.data[i] % 2 ? 30 + in.data[i] % 40 : 170 + in.data[i] % 60);
    for (int i = 0; i < 61 * 37; i++)
        bins[in.data[i]]++;
    for (int gold = 0; gold < 2; gold++) {
        uint32_t *vals = NULL;
        size_t n;
        assert_int_equal(gf_stage_run_cpu(&s, gold, &in, &out, &vals, &n), 0);
        check_levels(&in, &out, oracle_otsu(bins));
        gf_image_free(&out);
    }
    gf_stage_init(&s, ops);
    assert_int_equal(ops->opts[0].parse(&s, "256"), GF_EUSAGE);
    assert_int_equal(ops->opts[0].parse(&s, "-1"), GF_EUSAGE);
    assert_int_equal(ops->opts[0].parse(&s, "12x"), GF_EUSAGE);
    assert_int_equal(ops->opts[0].parse(&s, "255"), 0);
    gf_image_free(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_otsu_hand),
        cmocka_unit_test(test_otsu_random),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_stage_otsu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
