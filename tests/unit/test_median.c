/* test_median.c - the median filter: the selection networks on every 0-1
 * input, hand-computed medians with each border mode, then the gold and the
 * fast path against an independent brute force (the window sorted with
 * qsort) on random images of every layout, in place and not, into poisoned
 * outputs. */
#include "common.h"

#include "../../src/stages/median.h"

/* ---- The networks, bit-sliced: 64 inputs of zeros and ones a word, MIN
 * an AND and MAX an OR. */
typedef uint64_t sample_t;
#define MIN_(a, b) ((a) & (b))
#define MAX_(a, b) ((a) | (b))
#define NET_STEP(dst, OP, a, b) const sample_t v##dst = OP##_(v##a, v##b);
#define CS_AT(a, b)                                                                           \
    {                                                                                         \
        const sample_t t_ = MIN_(x[a], x[b]);                                                 \
        x[b] = MAX_(x[a], x[b]);                                                              \
        x[a] = t_;                                                                            \
    }

/* Input i (bit i of the input's number) of the 64 inputs numbered
 * 64 w .. 64 w + 63, as a word. */
static uint64_t input_word(int i, uint64_t w)
{
    static const uint64_t pat[6] = {0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull,
                                    0xF0F0F0F0F0F0F0F0ull, 0xFF00FF00FF00FF00ull,
                                    0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull};
    return i < 6 ? pat[i] : (w >> (i - 6) & 1) ? ~0ull : 0;
}

/* Lane j set where input 64 w + j has at least `need` ones among its n bits. */
static uint64_t at_least(uint64_t w, int n, int need)
{
    uint64_t r = 0;
    for (int j = 0; j < 64; j++) {
        const uint64_t num = (w << 6 | (uint64_t)j) & ((1ull << n) - 1);
        if (__builtin_popcountll(num) >= need)
            r |= 1ull << j;
    }
    return r;
}

/* The column sorts sort every 0-1 input. */
static void test_sorts(void **state)
{
    (void)state;
    for (int n = 0; n < 32; n++) {
        sample_t x[5];
        for (int i = 0; i < 5; i++)
            x[i] = (sample_t)(n >> i & 1);
        GF_MEDIAN_SORT5(CS_AT)
        for (int i = 0; i < 4; i++)
            assert_true(x[i] <= x[i + 1]);
        if (n < 8) {
            for (int i = 0; i < 3; i++)
                x[i] = (sample_t)(n >> i & 1);
            GF_MEDIAN_SORT3(CS_AT)
            assert_true(x[0] <= x[1] && x[1] <= x[2]);
        }
    }
}

/* The 3x3 and 5x5 medians (columns sorted, then the network) of every 0-1
 * window: 1 exactly where at least (K*K+1)/2 of the K*K inputs are 1. Input
 * k*K + d is row k, column d of the window. */
static void test_networks(void **state)
{
    (void)state;
    for (uint64_t w = 0; w < (1ull << (9 - 6)); w++) {
        sample_t in[9], x[3], v[9];
        for (int i = 0; i < 9; i++)
            in[i] = input_word(i, w);
        for (int d = 0; d < 3; d++) {
            for (int k = 0; k < 3; k++)
                x[k] = in[k * 3 + d];
            GF_MEDIAN_SORT3(CS_AT)
            for (int r = 0; r < 3; r++)
                v[r * 3 + d] = x[r];
        }
        const sample_t v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3], v4 = v[4], v5 = v[5],
                       v6 = v[6], v7 = v[7], v8 = v[8];
        GF_MEDIAN3_NET(NET_STEP)
        assert_true(v20 == at_least(w, 9, 5)); /* 2^9 inputs: 8 whole words */
    }
    for (uint64_t w = 0; w < (1ull << (25 - 6)); w++) {
        sample_t in[25], x[5], v[25];
        for (int i = 0; i < 25; i++)
            in[i] = input_word(i, w);
        for (int d = 0; d < 5; d++) {
            for (int k = 0; k < 5; k++)
                x[k] = in[k * 5 + d];
            GF_MEDIAN_SORT5(CS_AT)
            for (int r = 0; r < 5; r++)
                v[r * 5 + d] = x[r];
        }
        const sample_t v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3], v4 = v[4], v5 = v[5],
                       v6 = v[6], v7 = v[7], v8 = v[8], v9 = v[9], v10 = v[10], v11 = v[11],
                       v12 = v[12], v13 = v[13], v14 = v[14], v15 = v[15], v16 = v[16],
                       v17 = v[17], v18 = v[18], v19 = v[19], v20 = v[20], v21 = v[21],
                       v22 = v[22], v23 = v[23], v24 = v[24];
        GF_MEDIAN5_NET(NET_STEP)
        if (v142 != at_least(w, 25, 13))
            fail_msg("5x5 network wrong on inputs %llu..%llu", (unsigned long long)(w << 6),
                     (unsigned long long)(w << 6 | 63));
    }
}

/* ---- Hand-computed medians. */

/* The median at (x, y) of the w x h image px (8-bit gray), by the fast path
 * and by the gold, which must agree. */
static unsigned median_of(const unsigned char *px, int w, int h, int k, gf_border b, int x,
                          int y)
{
    gf_image in = {w, h, 1, 8, (size_t)w, (unsigned char *)px}, out, ref;
    unsigned v;

    assert_int_equal(gf_image_alloc(&out, w, h, 1, 8), 0);
    assert_int_equal(gf_image_alloc(&ref, w, h, 1, 8), 0);
    memset(out.data, 0xA5, (size_t)w * h);
    memset(ref.data, 0x5A, (size_t)w * h);
    assert_int_equal(gf_median_cpu(&in, &out, k, b), 0);
    assert_int_equal(gf_median_gold(&in, &ref, k, b), 0);
    v = out.data[(size_t)y * w + x];
    assert_int_equal(v, ref.data[(size_t)y * w + x]);
    gf_image_free(&out);
    gf_image_free(&ref);
    return v;
}

/* The same for a 16-bit gray image. */
static unsigned median16_of(const uint16_t *px, int w, int h, int k, gf_border b, int x, int y)
{
    gf_image in = {w, h, 1, 16, (size_t)w * 2, (unsigned char *)(uintptr_t)px}, out, ref;
    unsigned v;

    assert_int_equal(gf_image_alloc(&out, w, h, 1, 16), 0);
    assert_int_equal(gf_image_alloc(&ref, w, h, 1, 16), 0);
    memset(out.data, 0xA5, (size_t)w * h * 2);
    memset(ref.data, 0x5A, (size_t)w * h * 2);
    assert_int_equal(gf_median_cpu(&in, &out, k, b), 0);
    assert_int_equal(gf_median_gold(&in, &ref, k, b), 0);
    v = gf_sample(&out, x, y, 0);
    assert_int_equal(v, gf_sample(&ref, x, y, 0));
    gf_image_free(&out);
    gf_image_free(&ref);
    return v;
}

static void test_hand(void **state)
{
    (void)state;
    const gf_border rep = {GF_BORDER_REPLICATE, 0}, r101 = {GF_BORDER_REFLECT101, 0},
                    zero = {GF_BORDER_CONSTANT, 0}, hundred = {GF_BORDER_CONSTANT, 100},
                    c200 = {GF_BORDER_CONSTANT, 200};
    static const unsigned char nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    unsigned char one[1] = {77};

    /* the centre of 1..9 */
    assert_int_equal(median_of(nine, 3, 3, 3, rep, 1, 1), 5);
    /* (0,0) replicate: 1 1 2 / 1 1 2 / 4 4 5 -> 1 1 1 1 [2] 2 4 4 5 */
    assert_int_equal(median_of(nine, 3, 3, 3, rep, 0, 0), 2);
    /* (1,0) replicate: 1 2 3 / 1 2 3 / 4 5 6 -> 1 1 2 2 [3] 3 4 5 6 */
    assert_int_equal(median_of(nine, 3, 3, 3, rep, 1, 0), 3);
    /* (0,0) reflect101: 5 4 5 / 2 1 2 / 5 4 5 -> 1 2 2 4 [4] 5 5 5 5 */
    assert_int_equal(median_of(nine, 3, 3, 3, r101, 0, 0), 4);
    /* (2,2) constant 0: 5 6 0 / 8 9 0 / 0 0 0 -> five 0s */
    assert_int_equal(median_of(nine, 3, 3, 3, zero, 2, 2), 0);
    /* (2,2) constant 100: 5 6 8 9 and five 100s */
    assert_int_equal(median_of(nine, 3, 3, 3, hundred, 2, 2), 100);
    /* (1,1) constant 100, 5x5: 1..9 and sixteen 100s */
    assert_int_equal(median_of(nine, 3, 3, 5, hundred, 1, 1), 100);
    /* (1,1) replicate, 5x5: rows 1 1 2 3 3 twice, 4 4 5 6 6, 7 7 8 9 9 twice:
     * 1 x4, 2 x2, 3 x4, 4 x2, 5, 6 x2, 7 x4, 8 x2, 9 x4: the 13th is 5 */
    assert_int_equal(median_of(nine, 3, 3, 5, rep, 1, 1), 5);
    /* 1x1: replicate gives the pixel back at any K; a constant takes over */
    assert_int_equal(median_of(one, 1, 1, 5, rep, 0, 0), 77);
    assert_int_equal(median_of(one, 1, 1, 63, r101, 0, 0), 77);
    assert_int_equal(median_of(one, 1, 1, 3, c200, 0, 0), 200);
    assert_int_equal(median_of(one, 1, 1, 7, zero, 0, 0), 0);

    /* 5x5 of 1..25 (row-major) around the centre: 13; K = 7 with a constant
     * border of 100 there: 1..25 and 24 100s: the 25th of 49 is 25 */
    unsigned char px[25];
    for (int i = 0; i < 25; i++)
        px[i] = (unsigned char)(i + 1);
    assert_int_equal(median_of(px, 5, 5, 5, rep, 2, 2), 13);
    assert_int_equal(median_of(px, 5, 5, 7, hundred, 2, 2), 25);
    /* (0,0), 7x7 replicate: rows 1 1 1 1 2 3 4 (four times), 6 6 6 6 7 8 9,
     * 11 11 11 11 12 13 14, 16 16 16 16 17 18 19: 1 sixteen times, then 2,
     * 3 and 4 four times each: the 25th of 49 is 4 */
    assert_int_equal(median_of(px, 5, 5, 7, rep, 0, 0), 4);

    /* 16-bit: the same shapes with large values */
    uint16_t big[9];
    for (int i = 0; i < 9; i++)
        big[i] = (uint16_t)(1000 * (i + 1) + 7);
    assert_int_equal(median16_of(big, 3, 3, 3, rep, 1, 1), 5007);
    assert_int_equal(median16_of(big, 3, 3, 3, r101, 0, 0), 4007);
    const gf_border c60000 = {GF_BORDER_CONSTANT, 60000};
    assert_int_equal(median16_of(big, 3, 3, 3, c60000, 2, 2), 60000);
    assert_int_equal(median16_of(big, 3, 3, 9, rep, 1, 1), 5007);
    /* 7x7 reflect101 on 3x3 at (1,1): rows 1 0 1 2 1 0 1 -> each row of the
     * window is 5 4 5 6 5 4 5 of its source row's values (3 columns
     * weighted 2, 3, 2); rows weighted 2, 3, 2 too: 9 values with weights
     * 4 6 4 / 6 9 6 / 4 6 4; sorted by value 1007:4 2007:6 3007:4 4007:6
     * 5007:9 ... the 25th of 49 falls in 5007 (20 below, 29 with it) */
    assert_int_equal(median16_of(big, 3, 3, 7, r101, 1, 1), 5007);
}

/* ---- Random images against a brute force. */

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* The median of sample c's k x k window at (x, y), by sorting the window of
 * brute_padded_c's padded image. */
static int brute_median(const gf_image *in, int x, int y, int c, int k, gf_border b)
{
    int v[GF_MEDIAN_MAX_SIDE * GF_MEDIAN_MAX_SIDE], n = 0;
    for (int dy = -k / 2; dy <= k / 2; dy++)
        for (int dx = -k / 2; dx <= k / 2; dx++)
            v[n++] = brute_padded_c(in, x + dx, y + dy, c, b);
    qsort(v, (size_t)n, sizeof v[0], cmp_int);
    return v[n / 2];
}

/* A random w x h image of the layout; kind 1: few distinct values (ties),
 * kind 2: a ramp with noise (the median moving across bins). */
static void test_image(gf_image *im, int w, int h, int ch, int bits, int kind)
{
    const unsigned max = gf_sample_max(bits);
    random_layout(im, w, h, ch, bits);
    if (kind == 0)
        return;
    const unsigned vals[3] = {test_rand() & max, test_rand() & max, test_rand() & max};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++) {
                unsigned v = gf_sample(im, x, y, c);
                if (kind == 1)
                    v = vals[v % 3];
                else
                    v = (unsigned)(((uint64_t)max * (unsigned)(x + 2 * y)) /
                                   (unsigned)(w + 2 * h)) ^ (v & (max >> 5));
                gf_sample_set(im, x, y, c, v);
            }
}

/* The gold, the fast path and the fast path in place on a w x h image of
 * every layout, each window side in ks (0 ends), every border, against the
 * brute force. */
static void check_random(int w, int h, const int *ks, int kind)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        gf_image in, out, gold, copy;
        test_image(&in, w, h, ch, bits, kind);
        assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&gold, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&copy, w, h, ch, bits), 0);
        for (int ki = 0; ks[ki]; ki++)
            for (int m = 0; m < 3; m++) {
                const int k = ks[ki];
                const gf_border b = {modes[m], (int)(test_rand() & gf_sample_max(bits))};
                memset(out.data, 0xA5, out.stride * (size_t)h);
                memset(gold.data, 0x5A, gold.stride * (size_t)h);
                memcpy(copy.data, in.data, in.stride * (size_t)h);
                assert_int_equal(gf_median_cpu(&in, &out, k, b), 0);
                assert_int_equal(gf_median_gold(&in, &gold, k, b), 0);
                assert_int_equal(gf_median_cpu(&copy, &copy, k, b), 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        for (int c = 0; c < ch; c++) {
                            const unsigned want = (unsigned)brute_median(&in, x, y, c, k, b);
                            if (gf_sample(&out, x, y, c) != want ||
                                gf_sample(&gold, x, y, c) != want ||
                                gf_sample(&copy, x, y, c) != want)
                                fail_msg("%dx%d %s kind %d, K=%d mode=%d v=%d at (%d,%d) "
                                         "channel %d: fast %u, gold %u, in place %u, want %u",
                                         w, h, gf_layout_name(ch, bits), kind, k, modes[m],
                                         b.value, x, y, c, gf_sample(&out, x, y, c),
                                         gf_sample(&gold, x, y, c), gf_sample(&copy, x, y, c),
                                         want);
                        }
            }
        gf_image_free(&in);
        gf_image_free(&out);
        gf_image_free(&gold);
        gf_image_free(&copy);
    }
}

/* Awkward sizes, each with one kind of image (random, ties, ramp); windows
 * up to 15 everywhere, and larger ones (a random K up to 63) on the
 * smallest images, where the window reaches far past every edge. */
static void test_random_sizes(void **state)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2},  {2, 3},  {7, 5},
                                   {4, 9}, {16, 17}, {31, 33}, {200, 3}, {3, 40}};
    int small_k[] = {3, 5, 7, 9, 15, 0, 0};
    static const int ks[] = {3, 5, 7, 15, 0};
    (void)state;
    small_k[5] = 17 + 2 * (int)(test_rand() % 24); /* 17 .. 63 */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_random(sizes[i][0], sizes[i][1], sizes[i][0] * sizes[i][1] <= 40 ? small_k : ks,
                     (int)(i % 3));
    static const int some_k[] = {3, 5, 11, 0};
    check_random(1 + (int)(test_rand() % 40), 1 + (int)(test_rand() % 40), some_k, 0);
    static const int big_k[] = {63, 0};
    check_random(5, 24, big_k, 2);
}

/* Images large enough for the fast path's threads (bands of rows, each
 * starting its histograms afresh), in place and not, against the gold. */
static void test_bands(void **state)
{
    static const int ks[] = {3, 5, 7, 11};
    (void)state;
    for (int l = 0; l < 8; l += 3) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1], w = 700 / ch, h = 400;
        gf_image in, out, gold;
        test_image(&in, w, h, ch, bits, l % 2 ? 2 : 0);
        assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&gold, w, h, ch, bits), 0);
        for (int ki = 0; ki < 4; ki++) {
            const gf_border b = {(gf_border_mode)(ki % 3), (int)(test_rand() & 255)};
            memset(out.data, 0xA5, out.stride * (size_t)h);
            assert_int_equal(gf_median_gold(&in, &gold, ks[ki], b), 0);
            assert_int_equal(gf_median_cpu(&in, &out, ks[ki], b), 0);
            assert_memory_equal(out.data, gold.data, out.stride * (size_t)h);
            assert_int_equal(gf_median_cpu(&in, &in, ks[ki], b), 0); /* in place */
            assert_memory_equal(in.data, gold.data, in.stride * (size_t)h);
            /* in now holds the result, which the next K filters */
        }
        gf_image_free(&in);
        gf_image_free(&out);
        gf_image_free(&gold);
    }
}

static void test_bad_args(void **state)
{
    gf_image a, b, c;
    const gf_border rep = {GF_BORDER_REPLICATE, 0};
    (void)state;
    random_image(&a, 4, 4);
    random_image(&b, 4, 4);
    random_image(&c, 5, 4);
    assert_int_equal(gf_median_cpu(&a, &b, 4, rep), GF_EINTERNAL);
    assert_int_equal(gf_median_cpu(&a, &b, 1, rep), GF_EINTERNAL);
    assert_int_equal(gf_median_cpu(&a, &b, 65, rep), GF_EINTERNAL);
    assert_int_equal(gf_median_gold(&a, &b, 2, rep), GF_EINTERNAL);
    assert_int_equal(gf_median_cpu(&a, &c, 3, rep), GF_EINTERNAL);
    assert_int_equal(gf_median_gold(&a, &c, 3, rep), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
    gf_image_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorts),
        cmocka_unit_test(test_networks),
        cmocka_unit_test(test_hand),
        cmocka_unit_test(test_random_sizes),
        cmocka_unit_test(test_bands),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests_name("median", tests, NULL, NULL);
}
