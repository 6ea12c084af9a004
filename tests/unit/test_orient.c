/* test_orient.c - the CPU orientation stages: hand-computed cases in numpy's
 * terms, and the group identities on fresh random images of every
 * layout. */
#include "common.h"

#include "../../src/stages/orient.h"

static gf_image apply(const gf_image *in, gf_orient_op op)
{
    gf_image out;
    int sw = gf_orient_swaps(op);

    assert_int_equal(gf_image_alloc(&out, sw ? in->height : in->width, sw ? in->width : in->height,
                                    in->channels, in->bits), 0);
    memset(out.data, 0xA5, out.stride * (size_t)out.height);
    assert_int_equal(gf_orient_cpu(in, &out, op), 0);
    return out;
}

/* Applies ops[0], ops[1], ... in order. */
static gf_image chain(const gf_image *in, const gf_orient_op *ops, int n)
{
    gf_image cur = apply(in, ops[0]);
    for (int i = 1; i < n; i++) {
        gf_image next = apply(&cur, ops[i]);
        gf_image_free(&cur);
        cur = next;
    }
    return cur;
}

static void assert_same(const gf_image *a, const gf_image *b)
{
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->channels, b->channels);
    assert_int_equal(a->bits, b->bits);
    assert_memory_equal(a->data, b->data, a->stride * (size_t)a->height);
}

/* a = [[1 2 3], [4 5 6]] (2 rows, 3 columns) */
static void test_hand_cases(void **state)
{
    static const unsigned char a[6] = {1, 2, 3, 4, 5, 6};
    static const struct {
        gf_orient_op op;
        int w, h;
        unsigned char want[6];
    } cases[] = {
        {GF_TRANSPOSE, 2, 3, {1, 4, 2, 5, 3, 6}},  /* a.T */
        {GF_TRANSVERSE, 2, 3, {6, 3, 5, 2, 4, 1}}, /* rot90(a, 2).T */
        {GF_ROTATE90, 2, 3, {4, 1, 5, 2, 6, 3}},   /* rot90(a, -1) */
        {GF_ROTATE270, 2, 3, {3, 6, 2, 5, 1, 4}},  /* rot90(a, 1) */
        {GF_ROTATE180, 3, 2, {6, 5, 4, 3, 2, 1}},
        {GF_FLIP, 3, 2, {4, 5, 6, 1, 2, 3}}, /* flipud */
        {GF_FLOP, 3, 2, {3, 2, 1, 6, 5, 4}}, /* fliplr */
    };
    gf_image in = {3, 2, 1, 8, 3, (unsigned char *)a};
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gf_image out = apply(&in, cases[i].op);
        assert_int_equal(out.width, cases[i].w);
        assert_int_equal(out.height, cases[i].h);
        assert_memory_equal(out.data, cases[i].want, 6);
        gf_image_free(&out);
    }
    /* the same with RGB 16-bit pixels (v, 10 v, 100 v): whole pixels move,
     * their samples in order */
    uint16_t rgb[18];
    gf_image in3 = {3, 2, 3, 16, 18, (unsigned char *)rgb};
    for (int p = 0; p < 6; p++)
        rgb[3 * p] = a[p], rgb[3 * p + 1] = (uint16_t)(10 * a[p]), rgb[3 * p + 2] = (uint16_t)(100 * a[p]);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gf_image out = apply(&in3, cases[i].op);
        for (int p = 0; p < 6; p++) {
            const uint16_t *o = (const uint16_t *)(const void *)out.data + 3 * p;
            assert_int_equal(o[0], cases[i].want[p]);
            assert_int_equal(o[1], 10 * cases[i].want[p]);
            assert_int_equal(o[2], 100 * cases[i].want[p]);
        }
        gf_image_free(&out);
    }
}

static void check_identities(int w, int h, int channels, int bits)
{
    gf_image a, x, y;
    random_layout(&a, w, h, channels, bits);
#define SAME_AS(OPS_A, OPS_B)                                                                  \
    do {                                                                                       \
        static const gf_orient_op la[] = OPS_A, lb[] = OPS_B;                                  \
        x = chain(&a, la, (int)(sizeof la / sizeof la[0]));                                    \
        y = chain(&a, lb, (int)(sizeof lb / sizeof lb[0]));                                    \
        assert_same(&x, &y);                                                                   \
        gf_image_free(&x);                                                                     \
        gf_image_free(&y);                                                                     \
    } while (0)
#define L(...) {__VA_ARGS__}
    /* back to the input */
    static const gf_orient_op r4[] = {GF_ROTATE90, GF_ROTATE90, GF_ROTATE90, GF_ROTATE90};
    static const gf_orient_op t2[] = {GF_TRANSPOSE, GF_TRANSPOSE};
    static const gf_orient_op tv2[] = {GF_TRANSVERSE, GF_TRANSVERSE};
    static const gf_orient_op r90_270[] = {GF_ROTATE90, GF_ROTATE270};
    static const gf_orient_op ff[] = {GF_FLIP, GF_FLIP};
    static const gf_orient_op r180x2[] = {GF_ROTATE180, GF_ROTATE180};
    const gf_orient_op *ids[] = {r4, t2, tv2, r90_270, ff, r180x2};
    const int nids[] = {4, 2, 2, 2, 2, 2};
    for (int i = 0; i < 6; i++) {
        x = chain(&a, ids[i], nids[i]);
        assert_same(&x, &a);
        gf_image_free(&x);
    }
    /* compositions */
    SAME_AS(L(GF_FLOP, GF_ROTATE90), L(GF_TRANSVERSE));
    SAME_AS(L(GF_ROTATE90, GF_FLIP), L(GF_TRANSVERSE));
    SAME_AS(L(GF_ROTATE90, GF_FLOP), L(GF_TRANSPOSE));
    SAME_AS(L(GF_FLIP, GF_ROTATE90), L(GF_TRANSPOSE));
    SAME_AS(L(GF_FLIP, GF_FLOP), L(GF_ROTATE180));
    SAME_AS(L(GF_ROTATE90, GF_ROTATE90), L(GF_ROTATE180));
    SAME_AS(L(GF_ROTATE180, GF_ROTATE90), L(GF_ROTATE270));
    SAME_AS(L(GF_TRANSPOSE, GF_ROTATE180), L(GF_TRANSVERSE));
#undef SAME_AS
#undef L
    gf_image_free(&a);
}

static void test_identities(void **state)
{
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {31, 33}, {127, 129},
                                   {65, 64}, {200, 70}};
    (void)state;
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            check_identities(sizes[i][0], sizes[i][1], ch, bits);
        check_identities(1 + (int)(test_rand() % 500), 1 + (int)(test_rand() % 500), ch, bits);
    }
}

static void test_wrong_output_size(void **state)
{
    gf_image a, b;
    (void)state;
    random_image(&a, 3, 2);
    random_image(&b, 3, 2);
    assert_int_equal(gf_orient_cpu(&a, &b, GF_TRANSPOSE), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_cases),
        cmocka_unit_test(test_identities),
        cmocka_unit_test(test_wrong_output_size),
    };
    return cmocka_run_group_tests_name("orient", tests, NULL, NULL);
}
