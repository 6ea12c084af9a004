/* test_convolve.c - the CPU correlation with a user kernel: parsing KERNEL,
 * hand-computed impulses and step edges, the rounding at its ties (sum/N =
 * k + 1/2 of both signs, both signs of N), clamping, the 32-bit rounding
 * against an independent one at the edges of every quotient, and the fast
 * path and the gold on random images of every layout against a brute-force
 * correlation, out of place and in place, with 16-, 32- and 64-bit sums. */
#include "common.h"

#include "../../src/stages/convolve.h"

/* round(s / n) to nearest, ties away from zero, written independently of
 * the stage: the quotient truncated toward zero, moved one away from zero
 * when the remainder is at least half of |n|. */
static long long round_div(long long s, long long n)
{
    long long q = s / n, r = s - q * n;
    if (2 * (r < 0 ? -r : r) >= (n < 0 ? -n : n))
        q += (s < 0) == (n < 0) ? 1 : -1;
    return q;
}

static unsigned want_sample(long long s, long long n, long long bias, int bits)
{
    long long v = round_div(s, n) + bias, max = gf_sample_max(bits);
    return (unsigned)(v < 0 ? 0 : v > max ? max : v);
}

static void params(gf_convolve_params *p, int kw, int kh, const int *w, int divisor, int bias)
{
    memset(p, 0, sizeof *p);
    p->st.kw = kw;
    p->st.kh = kh;
    p->st.border.mode = GF_BORDER_REPLICATE;
    for (int k = 0; k < kw * kh; k++)
        p->weights[k] = w[k];
    p->divisor = divisor;
    p->bias = bias;
}

/* Runs p on a w x h one-channel image of `bits` with samples px, by the
 * fast path (out of place and in place) and the gold, which must agree;
 * the result goes to res. */
static void run(const gf_convolve_params *p, const unsigned *px, int w, int h, int bits,
                unsigned *res)
{
    gf_image in, out, gold;

    assert_int_equal(gf_image_alloc(&in, w, h, 1, bits), 0);
    assert_int_equal(gf_image_alloc(&out, w, h, 1, bits), 0);
    assert_int_equal(gf_image_alloc(&gold, w, h, 1, bits), 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            gf_sample_set(&in, x, y, 0, px[y * w + x]);
    memset(out.data, 0xA5, out.stride * (size_t)h);
    memset(gold.data, 0xA5, gold.stride * (size_t)h);
    assert_int_equal(gf_convolve_cpu(&in, &out, p), 0);
    assert_int_equal(gf_convolve_gold(&in, &gold, p), 0);
    assert_int_equal(gf_convolve_cpu(&in, &in, p), 0);
    for (int i = 0; i < w * h; i++) {
        res[i] = gf_sample(&out, i % w, i / w, 0);
        if (gf_sample(&gold, i % w, i / w, 0) != res[i] ||
            gf_sample(&in, i % w, i / w, 0) != res[i])
            fail_msg("%dx%d kernel, N %d, B %d, %d-bit, at (%d,%d): fast %u, gold %u, in place %u",
                     p->st.kw, p->st.kh, (int)p->divisor, (int)p->bias, bits, i % w, i / w,
                     res[i], gf_sample(&gold, i % w, i / w, 0), gf_sample(&in, i % w, i / w, 0));
    }
    gf_image_free(&in);
    gf_image_free(&out);
    gf_image_free(&gold);
}

static void test_parse(void **state)
{
    gf_convolve_params p;
    (void)state;

    memset(&p, 0, sizeof p);
    assert_int_equal(gf_convolve_parse_kernel("--convolve", "3x1:1,2,3", &p), 0);
    assert_int_equal(p.st.kw, 3);
    assert_int_equal(p.st.kh, 1);
    assert_int_equal(p.weights[0], 1);
    assert_int_equal(p.weights[2], 3);
    assert_int_equal(p.divisor, 6); /* the sum */
    assert_int_equal(gf_convolve_parse_kernel("--convolve", " 1x3 : -1, +0 ,\n 1\n", &p), 0);
    assert_int_equal(p.st.kw, 1);
    assert_int_equal(p.st.kh, 3);
    assert_int_equal(p.weights[0], -1);
    assert_int_equal(p.weights[1], 0);
    assert_int_equal(p.divisor, 1); /* the sum is 0 */
    assert_int_equal(gf_convolve_parse_kernel("--convolve", "3x3:1 2 1\n2 4 2\n1 2 1", &p), 0);
    assert_int_equal(p.divisor, 16);
    assert_int_equal(p.weights[4], 4);
    assert_int_equal(gf_convolve_parse_kernel("--convolve", "1x1:-5", &p), 0);
    assert_int_equal(p.divisor, 1); /* negative sum */
    assert_int_equal(gf_convolve_parse_kernel("--convolve", "1x1:-65535", &p), 0);
    assert_int_equal(p.weights[0], -65535);
    {
        char big[4096];
        int n = sprintf(big, "15x15:");
        for (int k = 0; k < 225; k++)
            n += sprintf(big + n, "%s65535", k ? "," : "");
        assert_int_equal(gf_convolve_parse_kernel("--convolve", big, &p), 0);
        assert_int_equal(p.divisor, 225 * 65535);
        assert_int_equal(p.weights[224], 65535);
    }
    static const char *const bad[] = {
        "",           "3x3",           "2x1:1,1",     "1x2:1,1",       "17x1:" ,
        "3x:1,2,3",   "x3:1,2,3",      "3x1:1,2",     "3x1:1,2,3,4",   "3x1:1,,2,3",
        "3x1:1,2,3,", "1x1:65536",     "1x1:-65536",  "1x1:1.5",       "1x1:a",
        "1x1:0x10",   "3*1:1,2,3",     "0x1:",        "-1x1:1",        "3x1:1;2;3",
        "1x1:99999999999999999999",    "1x1:--1",     "1x1:+",         "3X1:1,2,3",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (gf_convolve_parse_kernel("--convolve", bad[i], &p) != GF_EUSAGE)
            fail_msg("'%s' was accepted", bad[i]);
    gf_convolve_parse_kernel("--convolve", "4x3:1", &p);
    assert_non_null(strstr(gf_errmsg(), "--convolve: size must be WxH, W and H odd, 1..15"));
    gf_convolve_parse_kernel("--convolve", "3x3:1,2", &p);
    assert_non_null(strstr(gf_errmsg(), "takes 9 weights, not 2"));
    gf_convolve_parse_kernel("--convolve", "1x1:70000", &p);
    assert_non_null(strstr(gf_errmsg(), "-65535..65535"));
}

/* An impulse v in a 5x5 image of zeros (constant 0 border) through a 3x3
 * kernel: the correlation gives the kernel back, mirrored about the
 * centre; a horizontal step through [-1 0 1]. */
static void test_hand(void **state)
{
    static const int k[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    gf_convolve_params p;
    unsigned px[25], res[25];
    (void)state;

    memset(px, 0, sizeof px);
    px[12] = 10;
    params(&p, 3, 3, k, 1, 0);
    p.st.border.mode = GF_BORDER_CONSTANT;
    run(&p, px, 5, 5, 8, res);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            const int near = x >= 1 && x <= 3 && y >= 1 && y <= 3;
            const unsigned want = near ? 10u * (unsigned)k[(3 - y) * 3 + (3 - x)] : 0;
            if (res[y * 5 + x] != want)
                fail_msg("impulse at (%d,%d): %u, want %u", x, y, res[y * 5 + x], want);
        }
    /* divisor 45 (the sum, the default): 10 w / 45 rounded: w = 9 -> 2, 1 -> 0.22 -> 0,
     * 5 -> 1.11 -> 1 */
    params(&p, 3, 3, k, 45, 0);
    p.st.border.mode = GF_BORDER_CONSTANT;
    run(&p, px, 5, 5, 8, res);
    assert_int_equal(res[6], 2);  /* (1,1): weight 9, 90/45 */
    assert_int_equal(res[18], 0); /* (3,3): weight 1, 10/45 */
    assert_int_equal(res[12], 1); /* centre: weight 5, 50/45 */
    /* a horizontal difference [-1 0 1] over the row 0 0 10 10 10 (replicate):
     * 0 10 10 0 0; with bias 3 and divisor -1: -10 + 3 clamps to 0, 0 + 3 */
    static const int d[3] = {-1, 0, 1};
    static const unsigned row[5] = {0, 0, 10, 10, 10};
    params(&p, 3, 1, d, 1, 0);
    run(&p, row, 5, 1, 16, res);
    static const unsigned want1[5] = {0, 10, 10, 0, 0};
    for (int x = 0; x < 5; x++)
        assert_int_equal(res[x], want1[x]);
    params(&p, 3, 1, d, -1, 3);
    run(&p, row, 5, 1, 16, res);
    static const unsigned want2[5] = {3, 0, 0, 3, 3};
    for (int x = 0; x < 5; x++)
        assert_int_equal(res[x], want2[x]);
    /* reflect101 on a 1x3 column through 1x3 [1 0 0] (the pixel above):
     * above row 0 is row 1 */
    static const int up[3] = {1, 0, 0};
    static const unsigned col[3] = {5, 6, 7};
    params(&p, 1, 3, up, 1, 0);
    p.st.border.mode = GF_BORDER_REFLECT101;
    run(&p, col, 1, 3, 8, res);
    assert_int_equal(res[0], 6);
    assert_int_equal(res[1], 5);
    assert_int_equal(res[2], 6);
}

/* The ties: sum / N = k + 1/2 rounds away from zero, for both signs of the
 * sum and of N; the values beside the ties round to nearest. A 1x1 kernel
 * of weight w over a 1x1 image v gives s = w v. */
static void test_ties(void **state)
{
    static const struct {
        int w, n, bias;
        unsigned v, want;
    } cases[] = {
        {1, 2, 0, 1, 1},      /* 0.5 -> 1 */
        {1, 2, 0, 3, 2},      /* 1.5 -> 2 */
        {1, 2, 0, 5, 3},      /* 2.5 -> 3 (not to even) */
        {-1, 2, 10, 1, 9},    /* -0.5 -> -1 */
        {-1, 2, 10, 3, 8},    /* -1.5 -> -2 */
        {1, -2, 10, 5, 7},    /* -2.5 -> -3 */
        {-1, -2, 0, 5, 3},    /* 2.5 -> 3 */
        {1, 4, 0, 6, 2},      /* 1.5 -> 2 */
        {1, 4, 0, 5, 1},      /* 1.25 -> 1 */
        {1, 4, 0, 7, 2},      /* 1.75 -> 2 */
        {-1, 4, 10, 5, 9},    /* -1.25 -> -1 */
        {-1, 4, 10, 7, 8},    /* -1.75 -> -2 */
        {1, 3, 0, 4, 1},      /* 1.33 -> 1 */
        {1, 3, 0, 5, 2},      /* 1.67 -> 2 */
        {3, 2, 0, 255, 255},  /* 382.5 -> 383, clamped */
        {-3, 2, 300, 255, 0}, /* -382.5 -> -383 + 300 < 0 */
        {-3, 2, 600, 255, 217}, /* -383 + 600 */
        {1, 510, 0, 255, 1},  /* 0.5 -> 1 */
        {-1, 510, 1, 255, 0}, /* -0.5 -> -1, + 1 */
        {1, 511, 0, 255, 0},  /* 0.499 -> 0 */
        {1, 2147483647, 7, 255, 7}, /* far above the sum: 0, the bias alone */
        {-65535, -1, -16711300, 255, 125}, /* 16711425 - 16711300 */
        {65535, 1, -2147483647, 255, 0},
        {1, 1, 2147483647, 0, 255},
    };
    gf_convolve_params p;
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int bits = 8; bits <= 16; bits += 8) {
            /* the listed value is the 8-bit one (with its clamps) */
            const unsigned want = want_sample((long long)cases[i].w * cases[i].v, cases[i].n,
                                              cases[i].bias, bits);
            unsigned res;
            if (bits == 8)
                assert_int_equal(want, cases[i].want);
            params(&p, 1, 1, &cases[i].w, cases[i].n, cases[i].bias);
            run(&p, &cases[i].v, 1, 1, bits, &res);
            if (res != want)
                fail_msg("case %zu (%d-bit): %d * %u / %d + %d gives %u, want %u", i, bits,
                         cases[i].w, cases[i].v, cases[i].n, cases[i].bias, res, want);
        }
}

/* gf_convolve_finish against the independent rounding for the divisors
 * 1..2000, powers of two and their neighbours up to 2^31 - 1, at the two
 * sums either side of every tie it reaches and at random sums, for bounds
 * up to the largest narrow one (2^30 - 1, here 16384 * 65535). */
static void test_narrow_rounding(void **state)
{
    static const int weights[] = {1, 3, 100, 16384};
    gf_convolve_params p;
    (void)state;

    for (size_t wi = 0; wi < sizeof weights / sizeof weights[0]; wi++)
        for (int bits = 8; bits <= 16; bits += 8) {
            params(&p, 1, 1, &weights[wi], 1, 0);
            const long long bound = gf_convolve_bound(&p, bits);
            assert_true(gf_convolve_narrow(&p, bits));
            long long divs[2000 + 3 * 31];
            int nd = 0;
            for (int n = 1; n <= 2000; n++)
                divs[nd++] = n;
            for (int e = 11; e < 31; e++)
                divs[nd++] = (1ll << e) - 1, divs[nd++] = 1ll << e, divs[nd++] = (1ll << e) + 1;
            divs[nd++] = 2147483647;
            for (int di = 0; di < nd; di++)
                for (int sign = -1; sign <= 1; sign += 2) {
                    p.divisor = (int32_t)(sign * divs[di]);
                    p.bias = (int32_t)(test_rand() % 2001) - 1000;
                    const gf_convolve_div d = gf_convolve_div_of(&p, bits);
                    const long long n = divs[di];
                    /* ties at s = (k + 1/2) n for odd n: none; test s = k n + floor(n/2) and + 1 */
                    for (int t = 0; t < 24; t++) {
                        long long k = t < 12 ? t : (long long)(test_rand() % (bound / n + 1));
                        long long cases[4] = {k * n + n / 2, k * n + n / 2 - 1, k * n + (n + 1) / 2,
                                              (long long)(test_rand() % (bound + 1))};
                        for (int c = 0; c < 4; c++)
                            for (int sg = -1; sg <= 1; sg += 2) {
                                long long s = sg * cases[c];
                                if (s > bound || s < -bound)
                                    continue;
                                const unsigned got = gf_convolve_finish((int32_t)s, d);
                                const unsigned want = want_sample(s, p.divisor, p.bias, bits);
                                const unsigned wide = gf_convolve_finish_wide(
                                    s, p.divisor, p.bias, gf_sample_max(bits));
                                if (got != want || wide != want)
                                    fail_msg("s %lld / N %d + B %d (%d-bit, bound %lld): %u "
                                             "(wide %u), want %u",
                                             s, (int)p.divisor, (int)p.bias, bits, bound, got,
                                             wide, want);
                            }
                    }
                }
        }
}

/* The quotient itself, with no clamp in the way: 16-bit samples, a bias that
 * brings round(s / N) into 0..65535, for s across a narrow bound. */
static void test_quotients(void **state)
{
    gf_convolve_params p;
    const int w = 16384;
    (void)state;

    params(&p, 1, 1, &w, 1, 0);
    const long long bound = gf_convolve_bound(&p, 16);
    for (int i = 0; i < 200000; i++) {
        const long long n = 1 + (long long)(test_rand() % 40000);
        const long long s = (long long)(test_rand() % (2 * bound + 1)) - bound;
        p.divisor = (int32_t)(test_rand() % 2 ? n : -n);
        const long long q = round_div(s, p.divisor);
        p.bias = (int32_t)(30000 - q);
        const unsigned got = gf_convolve_finish((int32_t)s, gf_convolve_div_of(&p, 16));
        if (got != 30000)
            fail_msg("s %lld / N %d: %lld, want %lld", s, (int)p.divisor,
                     (long long)got - 30000 + q, q);
    }
}

/* The brute-force reference over brute_padded_c and round_div. */
static void check_random(int w, int h)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    static const int wins[][2] = {{3, 3}, {5, 5}, {1, 7}, {7, 1}, {1, 1}, {15, 15}, {3, 9}};
    gf_convolve_params p;

    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        gf_image in, out, copy, gold;
        random_layout(&in, w, h, ch, bits);
        assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&copy, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&gold, w, h, ch, bits), 0);
        for (size_t wi = 0; wi < sizeof wins / sizeof wins[0]; wi++)
            for (int range = 0; range < 3; range++) {
                const int kw = wins[wi][0], kh = wins[wi][1], rx = kw / 2, ry = kh / 2;
                /* weights in -8..8 (16-bit sums on 8-bit images), -300..300
                 * (32-bit), -65535..65535 (64-bit on 16-bit images) */
                const int span = range == 0 ? 8 : range == 1 ? 300 : 65535;
                int wt[225];
                long long sum = 0;
                for (int k = 0; k < kw * kh; k++) {
                    wt[k] = (int)(test_rand() % (2u * span + 1)) - span;
                    if (test_rand() % 5 == 0)
                        wt[k] = 0;
                    sum += wt[k];
                }
                const unsigned r = test_rand() % 4;
                int n = r == 0 ? (sum > 0 ? (int)sum : 1)
                               : (int)(1 + test_rand() % (r == 1 ? 50 : 100000));
                if (test_rand() % 2 && r)
                    n = -n;
                params(&p, kw, kh, wt, n, (int)(test_rand() % 1001) - 500);
                p.st.border = (gf_border){modes[(wi + range) % 3],
                                          (int)(test_rand() & (bits == 8 ? 255 : 65535))};
                memset(out.data, 0xA5, out.stride * (size_t)h);
                memset(gold.data, 0xA5, gold.stride * (size_t)h);
                assert_int_equal(gf_convolve_cpu(&in, &out, &p), 0);
                assert_int_equal(gf_convolve_gold(&in, &gold, &p), 0);
                memcpy(copy.data, in.data, in.stride * (size_t)h);
                assert_int_equal(gf_convolve_cpu(&copy, &copy, &p), 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        for (int c = 0; c < ch; c++) {
                            long long s = 0;
                            for (int dy = -ry; dy <= ry; dy++)
                                for (int dx = -rx; dx <= rx; dx++)
                                    s += (long long)wt[(dy + ry) * kw + dx + rx] *
                                         brute_padded_c(&in, x + dx, y + dy, c, p.st.border);
                            const unsigned want = want_sample(s, p.divisor, p.bias, bits);
                            if (gf_sample(&out, x, y, c) != want ||
                                gf_sample(&copy, x, y, c) != want ||
                                gf_sample(&gold, x, y, c) != want)
                                fail_msg("%dx%d %s, %dx%d kernel (range %d, narrow %d), N %d, "
                                         "B %d, mode %d v %d, at (%d,%d) channel %d: %u (in "
                                         "place %u, gold %u), want %u (sum %lld)",
                                         w, h, gf_layout_name(ch, bits), kw, kh, span,
                                         gf_convolve_narrow(&p, bits), (int)p.divisor,
                                         (int)p.bias, p.st.border.mode, p.st.border.value, x, y,
                                         c, gf_sample(&out, x, y, c), gf_sample(&copy, x, y, c),
                                         gf_sample(&gold, x, y, c), want, s);
                        }
            }
        gf_image_free(&in);
        gf_image_free(&out);
        gf_image_free(&copy);
        gf_image_free(&gold);
    }
}

static void test_random_sizes(void **state)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {2, 3},  {7, 5},
                                   {9, 16}, {31, 33}, {2100, 2}, {3, 40}, {70, 23}};
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_random(sizes[i][0], sizes[i][1]);
    check_random(1 + (int)(test_rand() % 100), 1 + (int)(test_rand() % 100));
}

/* Large enough for several threads' bands (GF_PARALLEL), in place, against
 * the gold. */
static void test_bands(void **state)
{
    gf_image in, out, copy;
    gf_convolve_params p;
    int wt[25];
    (void)state;
    for (int k = 0; k < 25; k++)
        wt[k] = (int)(test_rand() % 17) - 8;
    params(&p, 5, 5, wt, 7, 9);
    p.st.border.mode = GF_BORDER_REFLECT101;
    random_layout(&in, 700, 500, 3, 8);
    assert_int_equal(gf_image_alloc(&out, 700, 500, 3, 8), 0);
    assert_int_equal(gf_image_alloc(&copy, 700, 500, 3, 8), 0);
    memset(out.data, 0xA5, out.stride * 500);
    assert_int_equal(gf_convolve_gold(&in, &out, &p), 0);
    memcpy(copy.data, in.data, in.stride * 500);
    assert_int_equal(gf_convolve_cpu(&copy, &copy, &p), 0);
    assert_memory_equal(out.data, copy.data, out.stride * 500);
    gf_image_free(&in);
    gf_image_free(&out);
    gf_image_free(&copy);
}

static void test_bad_args(void **state)
{
    gf_image a, b;
    gf_convolve_params p;
    const int one[17] = {1};
    (void)state;
    random_image(&a, 4, 4);
    random_image(&b, 4, 4);
    params(&p, 1, 1, one, 0, 0); /* divisor 0 */
    assert_int_equal(gf_convolve_cpu(&a, &b, &p), GF_EINTERNAL);
    assert_int_equal(gf_convolve_gold(&a, &b, &p), GF_EINTERNAL);
    params(&p, 2, 1, one, 1, 0); /* even */
    assert_int_equal(gf_convolve_cpu(&a, &b, &p), GF_EINTERNAL);
    params(&p, 17, 1, one, 1, 0); /* over 15 */
    assert_int_equal(gf_convolve_cpu(&a, &b, &p), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),           cmocka_unit_test(test_hand),
        cmocka_unit_test(test_ties),            cmocka_unit_test(test_narrow_rounding),
        cmocka_unit_test(test_quotients),       cmocka_unit_test(test_random_sizes),
        cmocka_unit_test(test_bands),           cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests_name("convolve", tests, NULL, NULL);
}
