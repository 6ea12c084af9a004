/* test_tone.c - the tone stages (--equalize, --autocontrast, --level,
 * --gamma, --negate) and their table machinery (src/stages/lut.c): the CPU
 * paths, the vector one and the portable one, in place and not, against
 * the gold reference on fresh random images of awkward sizes and every
 * layout, outputs poisoned first; the rules on hand-made images whose
 * tables are worked out by hand (ties to even, one value, two values);
 * Pillow's floor division of the cut; the options' accepted and refused
 * values. */
#include "common.h"

#include "../../src/pipeline.h"
#include "../../src/stages/tone.h"

static const char *const names[] = {"equalize", "autocontrast", "level", "gamma", "negate"};
#define NSTAGES (int)(sizeof names / sizeof names[0])

static const int sizes[][2] = {{1, 1}, {2, 2}, {1, 9}, {9, 1}, {3, 5}, {63, 2}, {64, 1},
                               {65, 3}, {127, 31}, {31, 127}, {257, 13}, {701, 379}};

/* A random image whose channels each take a random sub-range of the depth
 * (a uniform one would leave autocontrast nothing to stretch). */
static void narrow_image(gf_image *im, int w, int h, int ch, int bits)
{
    const unsigned max = gf_sample_max(bits);
    unsigned lo[4], span[4];

    random_layout(im, w, h, ch, bits);
    for (int c = 0; c < ch; c++) {
        lo[c] = test_rand() % (max + 1);
        span[c] = test_rand() % (max + 1 - lo[c]) + 1;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < ch; c++)
                gf_sample_set(im, x, y, c, lo[c] + gf_sample(im, x, y, c) % span[c]);
}

/* The CPU paths of s on in against its gold: fresh outputs poisoned with
 * two bytes, the portable path beside the vector one, and in place. */
static void check_paths(const gf_stage *s, const gf_image *in)
{
    gf_image gold, fast, mine;
    int x, y, c;
    char label[64];

    gf_stage_label(s, label, sizeof label);
    assert_int_equal(gf_stage_run_cpu(s, 1, in, &gold, NULL, NULL), 0);
    for (int k = 0; k < 4; k++) {
        gf_alloc_poison = k % 2 ? 0x5A : 0xA5;
        gf_lut_simd = k < 2;
        assert_int_equal(gf_stage_run_cpu(s, 0, in, &fast, NULL, NULL), 0);
        if (gf_image_diff(&gold, &fast, &x, &y, &c))
            fail_msg("%s, %dx%d %s, %s path: differs at (%d,%d) channel %d", label, in->width,
                     in->height, gf_layout_name(in->channels, in->bits),
                     gf_lut_simd ? "vector" : "portable", x, y, c);
        gf_image_free(&fast);
    }
    gf_alloc_poison = -1;
    gf_lut_simd = 1;
    assert_int_equal(gf_image_alloc(&mine, in->width, in->height, in->channels, in->bits), 0);
    for (int r = 0; r < in->height; r++)
        memcpy(mine.data + (size_t)r * mine.stride, in->data + (size_t)r * in->stride,
               (size_t)in->width * GF_PIXEL_BYTES(in->channels, in->bits));
    assert_int_equal(s->ops->cpu_in_place(s, &mine), 0);
    if (gf_image_diff(&gold, &mine, &x, &y, &c))
        fail_msg("%s, %dx%d %s: in place differs at (%d,%d) channel %d", label, in->width,
                 in->height, gf_layout_name(in->channels, in->bits), x, y, c);
    /* alpha is kept */
    if (in->channels == 2 || in->channels == 4)
        for (y = 0; y < in->height; y++)
            for (x = 0; x < in->width; x++)
                assert_int_equal(gf_sample(&gold, x, y, in->channels - 1),
                                 gf_sample(in, x, y, in->channels - 1));
    gf_image_free(&mine);
    gf_image_free(&gold);
}

static void test_paths(void **state)
{
    int checked = 0;
    (void)state;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int l = 0; l < 8; l++)
            for (int kind = 0; kind < 2; kind++) {
                gf_image in;
                if (kind)
                    narrow_image(&in, sizes[z][0], sizes[z][1], test_layouts[l][0],
                                 test_layouts[l][1]);
                else
                    random_layout(&in, sizes[z][0], sizes[z][1], test_layouts[l][0],
                                  test_layouts[l][1]);
                const gf_shape sh = gf_image_shape(&in);
                for (int i = 0; i < NSTAGES; i++)
                    for (int c = 0;; c++) {
                        gf_stage s;
                        gf_stage_init(&s, gf_stage_find(names[i]));
                        if (!s.ops->config(&s, c, 0, test_state()))
                            break;
                        assert_int_equal(gf_stage_accepts(&s, &sh), 0);
                        check_paths(&s, &in);
                        checked++;
                    }
                gf_image_free(&in);
            }
    assert_true(checked > 2000);
    /* images whose input and output pass 16 MB: the output is streamed (rows
     * of odd lengths, so every alignment of a row's start comes up) */
    for (int l = 0; l < 4; l++) {
        gf_image in;
        narrow_image(&in, 4001 + 2 * l, 2053, test_layouts[l][0], 8);
        for (int i = 0; i < NSTAGES; i++) {
            gf_stage s;
            gf_stage_init(&s, gf_stage_find(names[i]));
            assert_true(s.ops->config(&s, 0, 0, test_state()));
            check_paths(&s, &in);
        }
        gf_image_free(&in);
    }
}

/* Stage `name` with option value arg (NULL: none) on a w x 1 gray image of
 * `bits` bits with samples v[0..w), into got[0..w). */
static void run_row(const char *name, const char *arg, int bits, const unsigned *v, int w,
                    unsigned *got)
{
    gf_stage s;
    gf_image in, out;

    gf_stage_init(&s, gf_stage_find(name));
    assert_int_equal(s.ops->opts[0].parse(&s, arg), 0);
    assert_int_equal(gf_image_alloc(&in, w, 1, 1, bits), 0);
    for (int x = 0; x < w; x++)
        gf_sample_set(&in, x, 0, 0, v[x]);
    for (int gold = 0; gold < 2; gold++) {
        assert_int_equal(gf_stage_run_cpu(&s, gold, &in, &out, NULL, NULL), 0);
        for (int x = 0; x < w; x++) {
            const unsigned g = gf_sample(&out, x, 0, 0);
            if (gold && g != got[x])
                fail_msg("--%s %s: the gold gives %u at %d, the fast path %u", name,
                         arg ? arg : "", g, x, got[x]);
            got[x] = g;
        }
        gf_image_free(&out);
    }
    gf_image_free(&in);
}

#define EXPECT(name, arg, bits, ...)                                                          \
    do {                                                                                      \
        static const unsigned in_[][2] = {__VA_ARGS__};                                       \
        enum { N_ = sizeof in_ / sizeof in_[0] };                                             \
        unsigned v_[N_], got_[N_];                                                            \
        for (int i_ = 0; i_ < N_; i_++)                                                       \
            v_[i_] = in_[i_][0];                                                              \
        run_row(name, arg, bits, v_, N_, got_);                                               \
        for (int i_ = 0; i_ < N_; i_++)                                                       \
            if (got_[i_] != in_[i_][1])                                                       \
                fail_msg("--%s %s: %u gives %u, not %u", name, (const char *)(arg ? arg : ""), \
                         in_[i_][0], got_[i_], in_[i_][1]);                                   \
    } while (0)

/* Tables worked out by hand: {input, output} samples of a row. */
static void test_rules(void **state)
{
    (void)state;
    /* equalize: h 2 each of 0..3, scale 255/6 = 42.5: 2 x 42.5 = 85 ... */
    EXPECT("equalize", NULL, 8, {0, 0}, {0, 0}, {1, 85}, {1, 85}, {2, 170}, {2, 170}, {3, 255},
           {3, 255});
    /* N - h0 = 6: the one pixel of 1 gives 1 x 42.5 = 42.5, to even 42 */
    EXPECT("equalize", NULL, 8, {0, 0}, {1, 42}, {2, 255}, {2, 255}, {2, 255}, {2, 255},
           {2, 255});
    /* N - h0 = 2: 1 x 127.5, to even 128 */
    EXPECT("equalize", NULL, 8, {0, 0}, {5, 128}, {9, 255});
    /* the first value is 0 wherever it is; one value stays */
    EXPECT("equalize", NULL, 16, {300, 0}, {301, 65535});
    EXPECT("equalize", NULL, 8, {77, 77}, {77, 77}, {77, 77});
    EXPECT("equalize", NULL, 16, {60000, 60000});
    /* autocontrast: lo 10, hi 30, scale 12.75, offset -127.5: int(127.5) = 127 */
    EXPECT("autocontrast", NULL, 8, {10, 0}, {20, 127}, {30, 255});
    /* 16 bits: scale 32767.5, offset -98302.5: int(32767.5) = 32767 */
    EXPECT("autocontrast", NULL, 16, {3, 0}, {5, 65535}, {4, 32767}, {5, 65535});
    EXPECT("autocontrast", NULL, 8, {40, 40}, {40, 40}); /* hi <= lo: the identity */
    /* a cut of 34% of 3 pixels is 1 from each end: 10 and 30 lose theirs,
     * 20 alone is left, hi <= lo, the identity */
    EXPECT("autocontrast", "34", 8, {10, 10}, {20, 20}, {30, 30});
    /* 20% of 10 is 2 from each end: both 0s, then 9 and 8; lo 1, hi 6,
     * scale 51, offset -51 */
    EXPECT("autocontrast", "20", 8, {0, 0}, {0, 0}, {1, 0}, {2, 51}, {3, 102}, {4, 153},
           {5, 204}, {6, 255}, {8, 255}, {9, 255});
    /* negate, level, gamma */
    EXPECT("negate", NULL, 8, {0, 255}, {1, 254}, {255, 0});
    EXPECT("negate", NULL, 16, {0, 65535}, {40000, 25535});
    EXPECT("level", "10,240", 8, {0, 0}, {10, 0}, {125, 128}, {240, 255}, {255, 255});
    EXPECT("level", "0%,100%,1", 16, {0, 0}, {12345, 12345}, {65535, 65535});
    EXPECT("level", "127,128", 8, {0, 0}, {127, 0}, {128, 255});
    EXPECT("gamma", "2.2", 8, {0, 0}, {1, 21}, {64, 136}, {128, 186}, {254, 255}, {255, 255});
    EXPECT("gamma", "0.45", 16, {0, 0}, {1, 0}, {1000, 6}, {32768, 14045}, {65535, 65535});
    EXPECT("gamma", "1", 8, {0, 0}, {99, 99}, {255, 255});
}

/* floor(n * pct / 100) as Python's float floor division gives it. */
static void test_cut(void **state)
{
    (void)state;
    assert_int_equal(gf_autocontrast_cut(300, 1.0), 3);
    assert_int_equal(gf_autocontrast_cut(299, 1.0), 2);
    assert_int_equal(gf_autocontrast_cut(1000, 0.1), 1); /* 1000 x 0.1 rounds to 100.0 */
    assert_int_equal(gf_autocontrast_cut(999, 0.1), 0);
    assert_int_equal(gf_autocontrast_cut(0, 49.0), 0);
    assert_int_equal(gf_autocontrast_cut(4294967295u, 49.0), 2104533974);
    for (int i = 0; i < 100000; i++) { /* whole percentages: integer arithmetic */
        const uint64_t n = test_rand() % 100000000u;
        const unsigned pct = test_rand() % 50;
        assert_int_equal(gf_autocontrast_cut(n, (double)pct), n * pct / 100);
    }
}

/* The options' values: accepted ones parse, the bad ones are GF_EUSAGE. */
static void test_parse(void **state)
{
    static const struct {
        const char *name, *arg;
        int ok;
    } cases[] = {
        {"level", "10,240", 1},      {"level", "10%,90%,2.2", 1}, {"level", "0,65535", 1},
        {"level", "0.5,1.5", 1},     {"level", "20,50%", 1},      {"level", "200,100", 0},
        {"level", "10", 0},          {"level", "0,255,0", 0},     {"level", "0,65536", 0},
        {"level", "0,101%", 0},      {"level", "5%,5%", 0},       {"level", "-1,5", 0},
        {"level", "1,2,3,4", 0},     {"level", "1,2,", 0},        {"level", "", 0},
        {"gamma", "2.2", 1},         {"gamma", "0.01", 1},        {"gamma", "100", 1},
        {"gamma", "0", 0},           {"gamma", "abc", 0},         {"gamma", "100.5", 0},
        {"gamma", "1e2", 0},         {"gamma", "-2", 0},          {"gamma", "", 0},
        {"autocontrast", "0", 1},    {"autocontrast", "49", 1},   {"autocontrast", "1.5,0", 1},
        {"autocontrast", "50", 0},   {"autocontrast", "1,2,3", 0}, {"autocontrast", "-1", 0},
        {"autocontrast", "1,", 0},   {"autocontrast", ",1", 0},   {"autocontrast", "", 0},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gf_stage s;
        gf_stage_init(&s, gf_stage_find(cases[i].name));
        const int rc = s.ops->opts[0].parse(&s, cases[i].arg);
        if (cases[i].ok ? rc != 0 : rc != GF_EUSAGE)
            fail_msg("--%s '%s': %d (%s)", cases[i].name, cases[i].arg, rc, gf_errmsg());
        if (!cases[i].ok && !strstr(gf_errmsg(), cases[i].name))
            fail_msg("--%s '%s': the message '%s' does not name the flag", cases[i].name,
                     cases[i].arg, gf_errmsg());
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
