/* test_clahe.c - the CLAHE stage: its geometry (padding, tile size, clip
 * limit) against values worked by hand; the gold reference on one-valued
 * images against the rule worked out by hand; the CPU path against the
 * gold, bit for bit, on every layout, awkward sizes, random, one-valued,
 * two-valued and smooth images and random parameters, the outputs poisoned
 * first, and in place; the option's values and refusals. (OpenCV itself is
 * the oracle of tests/cli/clahe.bats.) */
#include "common.h"

#include "../../src/pipeline.h"
#include "../../src/stage.h"
#include "../../src/stages/clahe.h"

static void test_geometry(void **state)
{
    gf_clahe_geom g;
    (void)state;
    /* 512x383 with 8x8 pads to 520x384: tiles 65x48 */
    g = gf_clahe_geom_of(512, 383, 8, 2.0, 8, 8);
    assert_int_equal(g.tw, 65);
    assert_int_equal(g.th, 48);
    assert_int_equal(g.area, 3120);
    assert_int_equal(g.bins, 256);
    assert_int_equal(g.limit, 24); /* (int)(2 * 3120 / 256.0) = (int)24.375 */
    assert_true(g.scale == 255.0f / 3120.0f);
    assert_true(g.inv_tw == 1.0f / 65.0f && g.inv_th == 1.0f / 48.0f);
    /* both sides divide: no padding */
    g = gf_clahe_geom_of(512, 384, 8, 2.0, 8, 8);
    assert_int_equal(g.tw, 64);
    assert_int_equal(g.th, 48);
    /* one side divides, the other not: the dividing side gets a whole tile more */
    g = gf_clahe_geom_of(7, 16, 8, 2.0, 8, 8);
    assert_int_equal(g.tw, 1);
    assert_int_equal(g.th, 3); /* 16 + 8 rows */
    /* 16 bits: the limit of most bins is 1 */
    g = gf_clahe_geom_of(512, 383, 16, 2.0, 8, 8);
    assert_int_equal(g.bins, 65536);
    assert_int_equal(g.limit, 1);
    assert_true(g.scale == 65535.0f / 3120.0f);
    g = gf_clahe_geom_of(512, 383, 16, 40.0, 8, 8);
    assert_int_equal(g.limit, 1); /* (int)(40 * 3120 / 65536.0) = (int)1.904 */
    /* 1x1 with 8x8: 8x8 of one pixel each; the limit at least 1 */
    g = gf_clahe_geom_of(1, 1, 8, 2.0, 8, 8);
    assert_int_equal(g.tw, 1);
    assert_int_equal(g.th, 1);
    assert_int_equal(g.limit, 1);
    /* CLIP 0: no clipping; a grid of 1x1: the image, unpadded */
    g = gf_clahe_geom_of(300, 17, 8, 0.0, 1, 1);
    assert_int_equal(g.limit, 0);
    assert_int_equal(g.area, 5100);
    /* a limit past the tile's area is the area (the same tables) */
    g = gf_clahe_geom_of(65535, 65535, 8, 1000.0, 1, 1);
    assert_int_equal(g.area, 65535ll * 65535ll);
    assert_int_equal(g.limit, 65535ll * 65535ll);
    /* the interpolation's axis: tile 0 alone up to the first centre */
    int t1, t2;
    float a;
    gf_clahe_axis(0, 1.0f / 4.0f, 3, &t1, &t2, &a); /* f = -0.5 */
    assert_int_equal(t1, 0);
    assert_int_equal(t2, 0);
    assert_true(a == 0.5f);
    gf_clahe_axis(6, 1.0f / 4.0f, 3, &t1, &t2, &a); /* f = 1.0 */
    assert_int_equal(t1, 1);
    assert_int_equal(t2, 2);
    assert_true(a == 0.0f);
    gf_clahe_axis(11, 1.0f / 4.0f, 3, &t1, &t2, &a); /* f = 2.25 */
    assert_int_equal(t1, 2);
    assert_int_equal(t2, 2);
    assert_true(a == 0.25f);
    /* half to even */
    assert_int_equal(gf_clahe_round(2.5f, 255), 2);
    assert_int_equal(gf_clahe_round(3.5f, 255), 4);
    assert_int_equal(gf_clahe_round(255.49f, 255), 255);
    assert_int_equal(gf_clahe_round(-0.3f, 255), 0);
}

/* A one-valued image of value v: every tile's histogram is `area` counts
 * at v, so every table's value at v, and every output sample, is the
 * running sum through v of the cut bins (min(area, limit) at v, the batch
 * at every bin, one more at bins 0, s, 2s, ... r of them) scaled. */
static unsigned one_valued_output(const gf_clahe_geom *g, unsigned v)
{
    int64_t cum;

    if (!g->limit) {
        cum = g->area;
    } else {
        const int64_t kept = g->area < g->limit ? g->area : g->limit, e = g->area - kept;
        const int64_t batch = e / g->bins, r = e % g->bins;
        const int64_t s = r && g->bins / r > 1 ? g->bins / r : 1;
        const int64_t extra = r ? ((int64_t)v / s + 1 < r ? (int64_t)v / s + 1 : r) : 0;
        cum = kept + batch * ((int64_t)v + 1) + extra;
    }
    return gf_clahe_round((float)cum * g->scale, (unsigned)g->bins - 1);
}

static void test_one_valued(void **state)
{
    static const int sizes[][2] = {{1, 1}, {2, 2}, {13, 7}, {64, 64}, {100, 31}};
    static const double clips[] = {0.0, 0.01, 2.0, 7.5, 1000.0};
    (void)state;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int bits = 8; bits <= 16; bits += 8)
            for (size_t k = 0; k < sizeof clips / sizeof clips[0]; k++) {
                const int w = sizes[z][0], h = sizes[z][1];
                const int gw = 1 + (int)(test_rand() % 9), gh = 1 + (int)(test_rand() % 9);
                const unsigned v = test_rand() % gf_sample_max(bits);
                const gf_clahe_geom g = gf_clahe_geom_of(w, h, bits, clips[k], gw, gh);
                const unsigned want = one_valued_output(&g, v);
                gf_image in, gold, fast;
                assert_int_equal(gf_image_alloc(&in, w, h, 1, bits), 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        gf_sample_set(&in, x, y, 0, v);
                assert_int_equal(gf_image_alloc(&gold, w, h, 1, bits), 0);
                assert_int_equal(gf_image_alloc(&fast, w, h, 1, bits), 0);
                assert_int_equal(gf_clahe_gold(&in, &gold, clips[k], gw, gh), 0);
                assert_int_equal(gf_clahe_cpu(&in, &fast, clips[k], gw, gh), 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        if (gf_sample(&gold, x, y, 0) != want || gf_sample(&fast, x, y, 0) != want)
                            fail_msg("%dx%d %d-bit of %u, CLIP %g, %dx%d: (%d,%d) gold %u, "
                                     "fast %u, want %u",
                                     w, h, bits, v, clips[k], gw, gh, x, y,
                                     gf_sample(&gold, x, y, 0), gf_sample(&fast, x, y, 0), want);
                gf_image_free(&in);
                gf_image_free(&gold);
                gf_image_free(&fast);
            }
}

/* Fills im by kind: 0 random, 1 one value, 2 two values, 3 a smooth ramp
 * with a little noise. */
static void fill(gf_image *im, int kind)
{
    const unsigned max = gf_sample_max(im->bits), a = test_rand() % (max + 1),
                   b = test_rand() % (max + 1);
    for (int y = 0; y < im->height; y++)
        for (int x = 0; x < im->width; x++)
            for (int c = 0; c < im->channels; c++) {
                unsigned v = gf_sample(im, x, y, c);
                if (kind == 1)
                    v = a;
                else if (kind == 2)
                    v = test_rand() % 3 ? a : b;
                else if (kind == 3)
                    v = (unsigned)(((uint64_t)(3 * x + 2 * y + 40 * c) * (max / 200 + 1) +
                                    test_rand() % (max / 50 + 1)) % (max + 1));
                gf_sample_set(im, x, y, c, v);
            }
}

static void test_fast_equals_gold(void **state)
{
    static const int sizes[][2] = {{1, 1},   {2, 2},  {1, 7},    {7, 1},    {5, 5},
                                   {8, 8},   {9, 7},  {31, 33},  {64, 48},  {127, 129},
                                   {300, 17}, {17, 300}, {701, 379}};
    static const double clips[] = {0.0, 0.01, 1.0, 2.0, 3.3, 40.0, 1000.0};
    int checked = 0;
    (void)state;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
        for (int l = 0; l < 8; l++)
            for (int kind = 0; kind < 4; kind++) {
                const int w = sizes[z][0], h = sizes[z][1];
                const int ch = test_layouts[l][0], bits = test_layouts[l][1];
                /* 16-bit tables are 128 KiB a tile: smaller grids there */
                const int most = bits == 16 ? 12 : 64;
                const int gw = 1 + (int)(test_rand() % (unsigned)most);
                const int gh = 1 + (int)(test_rand() % (unsigned)most);
                const double clip = test_rand() % 2 ? clips[test_rand() % 7]
                                                     : (double)(test_rand() % 1001) / 100.0;
                gf_image in, gold, fast, mine;
                int x, y, c;
                random_layout(&in, w, h, ch, bits);
                fill(&in, kind);
                gf_alloc_poison = 0xA5;
                assert_int_equal(gf_image_alloc(&gold, w, h, ch, bits), 0);
                assert_int_equal(gf_image_alloc(&fast, w, h, ch, bits), 0);
                gf_alloc_poison = -1;
                assert_int_equal(gf_clahe_gold(&in, &gold, clip, gw, gh), 0);
                assert_int_equal(gf_clahe_cpu(&in, &fast, clip, gw, gh), 0);
                if (gf_image_diff(&gold, &fast, &x, &y, &c))
                    fail_msg("%dx%d %s kind %d, CLIP %g, %dx%d: (%d,%d) channel %d: gold %u, "
                             "fast %u",
                             w, h, gf_layout_name(ch, bits), kind, clip, gw, gh, x, y, c,
                             gf_sample(&gold, x, y, c), gf_sample(&fast, x, y, c));
                /* alpha is kept */
                for (y = 0; y < h && gf_lut_colours(ch) < ch; y++)
                    for (x = 0; x < w; x++)
                        assert_int_equal(gf_sample(&gold, x, y, ch - 1), gf_sample(&in, x, y, ch - 1));
                /* another poison: no sample left unwritten */
                gf_alloc_poison = 0x5A;
                assert_int_equal(gf_image_alloc(&mine, w, h, ch, bits), 0);
                gf_alloc_poison = -1;
                assert_int_equal(gf_clahe_cpu(&in, &mine, clip, gw, gh), 0);
                assert_int_equal(gf_image_diff(&gold, &mine, &x, &y, &c), 0);
                /* in place, on a copy of the input: the CPU path and the gold */
                for (int k = 0; k < 2; k++) {
                    for (int r = 0; r < h; r++)
                        memcpy(mine.data + (size_t)r * mine.stride, in.data + (size_t)r * in.stride,
                               (size_t)w * GF_PIXEL_BYTES(ch, bits));
                    assert_int_equal((k ? gf_clahe_gold : gf_clahe_cpu)(&mine, &mine, clip, gw, gh), 0);
                    if (gf_image_diff(&gold, &mine, &x, &y, &c))
                        fail_msg("%dx%d %s, CLIP %g, %dx%d: %s in place differs at (%d,%d,%d)", w,
                                 h, gf_layout_name(ch, bits), clip, gw, gh, k ? "gold" : "cpu", x,
                                 y, c);
                }
                gf_image_free(&in);
                gf_image_free(&gold);
                gf_image_free(&fast);
                gf_image_free(&mine);
                checked++;
            }
    assert_true(701 * 379 >= GF_PARALLEL_PIXELS); /* the threaded paths ran */
    assert_int_equal(checked, 13 * 8 * 4);
}

/* --clahe's values: the defaults without one, CLIP and the grid, and the
 * refusals naming the flag and the value. */
static void test_option(void **state)
{
    static const char *const bad[] = {"-1", "2,0x8", "2,65x8", "2,8", "2,", "1000.5", "abc",
                                      "", " 2", "2.5.1", "2,8x8x8", "2,8x", "1e3", "2;8x8"};
    const gf_stage_ops *ops = gf_stage_find("clahe");
    const gf_clahe_params *p;
    gf_stage s;
    char label[64];
    (void)state;
    assert_non_null(ops);
    assert_string_equal(ops->opts[0].name, "clahe");
    gf_stage_init(&s, ops);
    p = GF_CPARAMS(&s, gf_clahe_params);
    assert_int_equal(ops->opts[0].parse(&s, NULL), 0);
    assert_true(p->clip == 2.0 && p->gw == 8 && p->gh == 8);
    assert_string_equal(gf_stage_label(&s, label, sizeof label), "clahe 2,8x8");
    assert_int_equal(ops->opts[0].parse(&s, "3.5"), 0);
    assert_true(p->clip == 3.5 && p->gw == 8 && p->gh == 8);
    assert_int_equal(ops->opts[0].parse(&s, "0,4x16"), 0);
    assert_true(p->clip == 0.0 && p->gw == 4 && p->gh == 16);
    assert_int_equal(ops->opts[0].parse(&s, ",1x64"), 0);
    assert_true(p->clip == 2.0 && p->gw == 1 && p->gh == 64);
    assert_int_equal(ops->opts[0].parse(&s, "1000,64x1"), 0);
    assert_true(p->clip == 1000.0 && p->gw == 64 && p->gh == 1);
    assert_string_equal(gf_stage_label(&s, label, sizeof label), "clahe 1000,64x1");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        assert_int_equal(ops->opts[0].parse(&s, bad[i]), GF_EUSAGE);
        snprintf(want, sizeof want, "--clahe: '%s'", bad[i]);
        if (!strstr(gf_errmsg(), want))
            fail_msg("'%s': %s", bad[i], gf_errmsg());
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test(test_one_valued),
        cmocka_unit_test(test_fast_equals_gold),
        cmocka_unit_test(test_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
