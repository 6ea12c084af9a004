/* test_edges.c - the CPU Sobel, Scharr and Laplacian: hand-computed step
 * edges and impulses (with clamping), then the fast path and the gold on
 * random images of every layout, size and border against a brute-force
 * correlation, out of place and in place. */
#include "common.h"

#include "../../src/stages/edges.h"

static const char *const names[3] = {"sobel", "scharr", "laplacian"};

/* Runs rule on a w x h one-channel image of `bits` with samples px (row by
 * row), by the fast path (out of place and in place) and the gold; all
 * three must agree; the result goes to res. */
static void run_rule(gf_edge_rule rule, const unsigned *px, int w, int h, int bits, gf_border b,
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
    assert_int_equal(gf_edges_cpu(&in, &out, rule, b), 0);
    assert_int_equal(gf_edges_gold(&in, &gold, rule, b), 0);
    assert_int_equal(gf_edges_cpu(&in, &in, rule, b), 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            res[y * w + x] = gf_sample(&out, x, y, 0);
            if (gf_sample(&gold, x, y, 0) != res[y * w + x] ||
                gf_sample(&in, x, y, 0) != res[y * w + x])
                fail_msg("%s at (%d,%d): fast %u, gold %u, in place %u", names[rule], x, y,
                         res[y * w + x], gf_sample(&gold, x, y, 0), gf_sample(&in, x, y, 0));
        }
    gf_image_free(&in);
    gf_image_free(&out);
    gf_image_free(&gold);
}

/* A vertical step edge 0 | 10 between columns 1 and 2 of a 5x3 image,
 * replicate: Gx = (1 + 2 + 1) * 10 = 40 (Scharr 16 * 10 = 160) at the two
 * columns beside it, Gy = 0 everywhere; the Laplacian is +10 left of the
 * edge and -10 right of it. The same edge, horizontal: Gy instead of Gx. */
static void test_step_edge(void **state)
{
    static const unsigned want[3][5] = {{0, 40, 40, 0, 0}, {0, 160, 160, 0, 0}, {0, 10, 10, 0, 0}};
    const gf_border rep = {GF_BORDER_REPLICATE, 0};
    unsigned px[15], pt[15], res[15];
    (void)state;

    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++)
            px[y * 5 + x] = x >= 2 ? 10 : 0;
    for (int y = 0; y < 5; y++) /* 3 x 5, the transpose */
        for (int x = 0; x < 3; x++)
            pt[y * 3 + x] = y >= 2 ? 10 : 0;
    for (int r = 0; r < 3; r++)
        for (int bits = 8; bits <= 16; bits += 8) {
            run_rule((gf_edge_rule)r, px, 5, 3, bits, rep, res);
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 5; x++)
                    if (res[y * 5 + x] != want[r][x])
                        fail_msg("%s step at (%d,%d): %u, want %u", names[r], x, y,
                                 res[y * 5 + x], want[r][x]);
            run_rule((gf_edge_rule)r, pt, 3, 5, bits, rep, res);
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 3; x++)
                    if (res[y * 3 + x] != want[r][y])
                        fail_msg("%s horizontal step at (%d,%d): %u, want %u", names[r], x, y,
                                 res[y * 3 + x], want[r][y]);
        }
    /* a step of 100 clamps: Sobel 400 -> 255 on 8 bits, 400 on 16 */
    for (int i = 0; i < 15; i++)
        px[i] = px[i] ? 100 : 0;
    run_rule(GF_EDGE_SOBEL, px, 5, 3, 8, rep, res);
    assert_int_equal(res[1], 255);
    assert_int_equal(res[2], 255);
    run_rule(GF_EDGE_SOBEL, px, 5, 3, 16, rep, res);
    assert_int_equal(res[1], 400);
    assert_int_equal(res[7], 400);
}

/* An impulse v at the centre of a 5x5 image, constant 0 border: the
 * correlation gives the kernels back, mirrored: Sobel |Gx| + |Gy| is 2v on
 * all eight neighbours; Scharr 6v on the corners and 10v on the sides;
 * Laplacian 4v at the centre and v on the four sides. Then clamped: v =
 * 255 on 8 bits, v = 20000 on 16. */
static void test_impulse(void **state)
{
    static const int mult[3][3][3] = {
        {{2, 2, 2}, {2, 0, 2}, {2, 2, 2}},
        {{6, 10, 6}, {10, 0, 10}, {6, 10, 6}},
        {{0, 1, 0}, {1, 4, 1}, {0, 1, 0}},
    };
    static const unsigned vals[][2] = {{7, 8}, {7, 16}, {255, 8}, {20000, 16}};
    const gf_border zero = {GF_BORDER_CONSTANT, 0};
    unsigned px[25], res[25];
    (void)state;

    for (size_t vi = 0; vi < sizeof vals / sizeof vals[0]; vi++) {
        const unsigned v = vals[vi][0], bits = vals[vi][1], max = gf_sample_max((int)bits);
        memset(px, 0, sizeof px);
        px[12] = v;
        for (int r = 0; r < 3; r++) {
            run_rule((gf_edge_rule)r, px, 5, 5, (int)bits, zero, res);
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 5; x++) {
                    const int near = x >= 1 && x <= 3 && y >= 1 && y <= 3;
                    const unsigned m = near ? (unsigned)mult[r][y - 1][x - 1] * v : 0;
                    const unsigned want = m < max ? m : max;
                    if (res[y * 5 + x] != want)
                        fail_msg("%s impulse %u (%u-bit) at (%d,%d): %u, want %u", names[r], v,
                                 bits, x, y, res[y * 5 + x], want);
                }
        }
    }
    /* a constant border of 9 around a 1x1 zero: every neighbour is 9. Sobel:
     * Gx = Gy = 0 (symmetric); Laplacian 4 * 9 = 36 */
    {
        const gf_border nine = {GF_BORDER_CONSTANT, 9};
        unsigned one = 0, r1;
        run_rule(GF_EDGE_SOBEL, &one, 1, 1, 8, nine, &r1);
        assert_int_equal(r1, 0);
        run_rule(GF_EDGE_LAPLACIAN, &one, 1, 1, 8, nine, &r1);
        assert_int_equal(r1, 36);
    }
}

/* The brute-force reference: the rule's correlations written out, over
 * brute_padded_c. */
static long brute(gf_edge_rule rule, const gf_image *in, int x, int y, int c, gf_border b)
{
#define P(dx, dy) ((long)brute_padded_c(in, x + (dx), y + (dy), c, b))
    long m;
    if (rule == GF_EDGE_LAPLACIAN) {
        const long l = P(0, -1) + P(0, 1) + P(-1, 0) + P(1, 0) - 4 * P(0, 0);
        m = l < 0 ? -l : l;
    } else {
        const long a = rule == GF_EDGE_SOBEL ? 1 : 3, bb = rule == GF_EDGE_SOBEL ? 2 : 10;
        const long gx = a * (P(1, -1) - P(-1, -1)) + bb * (P(1, 0) - P(-1, 0)) +
                        a * (P(1, 1) - P(-1, 1));
        const long gy = a * (P(-1, 1) - P(-1, -1)) + bb * (P(0, 1) - P(0, -1)) +
                        a * (P(1, 1) - P(1, -1));
        m = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
    }
#undef P
    return m < (long)gf_sample_max(in->bits) ? m : (long)gf_sample_max(in->bits);
}

static void check_random(int w, int h)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        gf_image in, out, copy, gold;
        random_layout(&in, w, h, ch, bits);
        if (test_rand() % 2) /* low-contrast samples too, so that fewer sums clamp */
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w * ch; x++)
                    gf_sample_set(&in, x / ch, y, x % ch, gf_sample(&in, x / ch, y, x % ch) % 40);
        assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&copy, w, h, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&gold, w, h, ch, bits), 0);
        for (int r = 0; r < 3; r++)
            for (int m = 0; m < 3; m++) {
                const gf_border b = {modes[m], (int)(test_rand() & (bits == 8 ? 255 : 65535))};
                memset(out.data, 0xA5, out.stride * (size_t)h);
                memset(gold.data, 0xA5, gold.stride * (size_t)h);
                assert_int_equal(gf_edges_cpu(&in, &out, (gf_edge_rule)r, b), 0);
                assert_int_equal(gf_edges_gold(&in, &gold, (gf_edge_rule)r, b), 0);
                memcpy(copy.data, in.data, in.stride * (size_t)h);
                assert_int_equal(gf_edges_cpu(&copy, &copy, (gf_edge_rule)r, b), 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        for (int c = 0; c < ch; c++) {
                            const long want = brute((gf_edge_rule)r, &in, x, y, c, b);
                            if ((long)gf_sample(&out, x, y, c) != want ||
                                (long)gf_sample(&copy, x, y, c) != want ||
                                (long)gf_sample(&gold, x, y, c) != want)
                                fail_msg("%dx%d %s %s mode=%d v=%d at (%d,%d) channel %d: %u "
                                         "(in place %u, gold %u), want %ld",
                                         w, h, gf_layout_name(ch, bits), names[r], modes[m],
                                         b.value, x, y, c, gf_sample(&out, x, y, c),
                                         gf_sample(&copy, x, y, c), gf_sample(&gold, x, y, c),
                                         want);
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
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {2, 3}, {3, 2},
                                   {7, 5}, {31, 33}, {127, 129}, {2100, 3}, {600, 40}};
    (void)state;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        check_random(sizes[i][0], sizes[i][1]);
    check_random(1 + (int)(test_rand() % 300), 1 + (int)(test_rand() % 300));
}

/* Large enough for several threads' bands (GF_PARALLEL), in place. */
static void test_bands(void **state)
{
    gf_image in, out, copy;
    const gf_border b = {GF_BORDER_REFLECT101, 0};
    (void)state;
    random_layout(&in, 700, 500, 3, 8);
    assert_int_equal(gf_image_alloc(&out, 700, 500, 3, 8), 0);
    assert_int_equal(gf_image_alloc(&copy, 700, 500, 3, 8), 0);
    for (int r = 0; r < 3; r++) {
        memset(out.data, 0xA5, out.stride * 500);
        assert_int_equal(gf_edges_gold(&in, &out, (gf_edge_rule)r, b), 0);
        memcpy(copy.data, in.data, in.stride * 500);
        assert_int_equal(gf_edges_cpu(&copy, &copy, (gf_edge_rule)r, b), 0);
        assert_memory_equal(out.data, copy.data, out.stride * 500);
    }
    gf_image_free(&in);
    gf_image_free(&out);
    gf_image_free(&copy);
}

static void test_bad_args(void **state)
{
    gf_image a, b;
    const gf_border rep = {GF_BORDER_REPLICATE, 0};
    (void)state;
    random_image(&a, 4, 4);
    random_image(&b, 4, 5);
    assert_int_equal(gf_edges_cpu(&a, &b, GF_EDGE_SOBEL, rep), GF_EINTERNAL);
    assert_int_equal(gf_edges_gold(&a, &a, (gf_edge_rule)7, rep), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_edge),
        cmocka_unit_test(test_impulse),
        cmocka_unit_test(test_random_sizes),
        cmocka_unit_test(test_bands),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests_name("edges", tests, NULL, NULL);
}
