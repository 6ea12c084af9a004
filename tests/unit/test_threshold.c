/* test_threshold.c - the threshold stage's CPU paths on every layout and
 * Otsu's threshold of 256 and 65536 bins, against an independent oracle:
 * the between-class variance w0 w1 (mu0 - mu1)^2 compared as exact
 * fractions in 128-bit integers (small images only), on hand-made and
 * fresh random histograms. */
#include "common.h"

#include "../../src/otsu.h"
#include "../../src/report/stats.h"
#include "../../src/stages/threshold.h"

/* Oracle: for each t, the score (s0 w1 - s1 w0)^2 / (w0 w1) with s1 = S - s0;
 * argmax, the smallest t on ties; 0 when no t splits. Needs N <= 4096. */
static int oracle_otsu(const uint32_t *bins, int nbins)
{
    unsigned __int128 best_num = 0, best_den = 1;
    long long w0 = 0, s0 = 0, n = 0, total = 0;
    int best = 0, found = 0;

    for (int v = 0; v < nbins; v++) {
        n += bins[v];
        total += (long long)v * bins[v];
    }
    for (int t = 0; t <= nbins - 2; t++) {
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
    static uint32_t bins[65536];
    (void)state;
    for (int nb = 256; nb <= 65536; nb *= 256) {
        memset(bins, 0, sizeof bins);
        assert_int_equal(gf_otsu(bins, nb), 0); /* empty */
        bins[7] = 10;
        assert_int_equal(gf_otsu(bins, nb), 0); /* one value: nothing splits */
        bins[200] = 10;
        /* two values: every t in 7..199 splits them equally well; the smallest wins */
        assert_int_equal(gf_otsu(bins, nb), 7);
        memset(bins, 0, sizeof bins);
        bins[10] = 3; /* 10 10 10 200 */
        bins[200] = 1;
        assert_int_equal(gf_otsu(bins, nb), 10);
        memset(bins, 0, sizeof bins);
        bins[0] = 1;
        bins[nb - 1] = 1;
        assert_int_equal(gf_otsu(bins, nb), 0);
    }
}

static void test_otsu_random(void **state)
{
    (void)state;
    static uint32_t bins[65536];
    for (int round = 0; round < 3300; round++) {
        /* 16-bit rounds: a tenth of them, values spread over 65536 bins */
        const int nb = round % 10 == 9 ? 65536 : 256, scale = nb / 256;
        int kind = round % 4, n = 1 + (int)(test_rand() % 4000);
        memset(bins, 0, (size_t)nb * sizeof *bins);
        for (int i = 0; i < n; i++) {
            unsigned v = test_rand();
            if (kind == 0)
                bins[v % (unsigned)nb]++;
            else if (kind == 1) /* two clusters */
                bins[((v & 1 ? 40 : 180) + (v >> 8) % 30) * scale + (v >> 16) % scale]++;
            else if (kind == 2) /* few values, ties likely */
                bins[(v % 4) * 60 * scale]++;
            else /* symmetric, so splits tie */
                bins[(v % 2 ? 100 : 156) * scale] += 1;
        }
        if (gf_otsu(bins, nb) != oracle_otsu(bins, nb))
            fail_msg("round %d (%d bins): gf_otsu %d, oracle %d", round, nb, gf_otsu(bins, nb),
                     oracle_otsu(bins, nb));
        gf_hist_stats st;
        gf_hist_stats_compute(bins, nb, &st);
        assert_int_equal(st.otsu, gf_otsu(bins, nb)); /* the statistic is the stage's level */
    }
}

/* A sample above t becomes the largest, every other 0: by the definition. */
static void check_levels(const gf_image *in, const gf_image *out, int t)
{
    const unsigned max = in->bits == 8 ? 255 : 65535;
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            for (int c = 0; c < in->channels; c++) {
                unsigned v = gf_sample(in, x, y, c);
                if (gf_sample(out, x, y, c) != (v > (unsigned)t ? max : 0))
                    fail_msg("(%d,%d,%d) of %s: %u with t %d gives %u", x, y, c,
                             gf_layout_name(in->channels, in->bits), v, t, gf_sample(out, x, y, c));
            }
}

static void test_paths(void **state)
{
    /* 4099x2049 (8.4 MP, rows 4099 bytes apart): the streamed path, with its
     * unaligned row starts and ends */
    static const int sizes[][2] = {{1, 1},      {1, 7},   {7, 1},     {31, 33},
                                   {127, 129}, {1000, 3}, {4099, 2049}};
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int l = 0; l < 8; l++) {
            const int ch = test_layouts[l][0], bits = test_layouts[l][1];
            const unsigned max = bits == 8 ? 255 : 65535;
            gf_image in, gold, fast;
            if (sizes[i][0] > 1000 && l % 4) /* the large size: one layout of each depth */
                continue;
            random_layout(&in, sizes[i][0], sizes[i][1], ch, bits);
            assert_int_equal(gf_image_alloc(&gold, in.width, in.height, ch, bits), 0);
            assert_int_equal(gf_image_alloc(&fast, in.width, in.height, ch, bits), 0);
            for (int k = 0; k < 6; k++) {
                int t = k == 0 ? 0 : k == 1 ? (int)max : k == 2 ? (int)max - 1
                                                       : (int)(test_rand() % (max + 1));
                memset(gold.data, 0x5A, gold.stride * (size_t)in.height);
                memset(fast.data, 0xA5, fast.stride * (size_t)in.height);
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
        check_levels(&in, &out, oracle_otsu(bins, 256));
        gf_image_free(&out);
    }
    gf_stage_init(&s, ops);
    assert_int_equal(ops->opts[0].parse(&s, "65536"), GF_EUSAGE);
    assert_int_equal(ops->opts[0].parse(&s, "-1"), GF_EUSAGE);
    assert_int_equal(ops->opts[0].parse(&s, "12x"), GF_EUSAGE);
    assert_int_equal(ops->opts[0].parse(&s, "255"), 0);
    /* a level above an 8-bit sample is refused for 8-bit images, with the fix */
    assert_int_equal(ops->opts[0].parse(&s, "256"), 0);
    gf_shape g8 = {4, 4, 1, 8}, g16 = {4, 4, 1, 16}, rgb = {4, 4, 3, 8};
    assert_int_equal(gf_stage_accepts(&s, &g8), GF_EUSAGE);
    assert_non_null(strstr(gf_errmsg(), "--depth 16"));
    assert_int_equal(gf_stage_accepts(&s, &g16), 0);
    /* otsu takes one channel and says to put --gray first */
    gf_stage_init(&s, ops);
    assert_int_equal(ops->opts[0].parse(&s, "otsu"), 0);
    assert_int_equal(gf_stage_accepts(&s, &rgb), GF_EUSAGE);
    assert_non_null(strstr(gf_errmsg(), "put --gray before it"));
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
