/* test_gaussian.c - the Gaussian blur and the unsharp mask on the CPU
 * (src/stages/gaussian.h): the integer weights against hand-computed values
 * and their properties, the default window rule, the split rounding, then
 * gf_gauss_gold, gf_gauss_cpu (out of place and in place) and the unsharp
 * mask's gold and fast path against brute-force references written here
 * from the rule's definition, on random images of every layout, awkward
 * sizes and every border mode. */
#include "common.h"

#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../../src/pipeline.h"
#include "../../src/stages/gaussian.h"

#define ONE 16384   /* the weights' sum, 2^14 */
#define MAXK 127

/* ---- the rule, written again from gaussian.h's definition ---- */

/* The weights of SIGMA and K: g_i = exp(-(i - c)^2 / (2 SIGMA^2)),
 * w_i = floor(2^14 g_i / sum(g) + 0.5), the centre taking what the sum
 * misses. */
static void rule_weights(double sigma, int k, int32_t *w)
{
    const int c = k / 2;
    double g[MAXK], sum = 0;
    int64_t total = 0;
    for (int i = 0; i < k; i++) {
        const int d = i - c;
        g[i] = exp(-(double)(d * d) / (2.0 * sigma * sigma));
        sum += g[i];
    }
    for (int i = 0; i < k; i++) {
        w[i] = (int32_t)floor(ONE * g[i] / sum + 0.5);
        total += w[i];
    }
    w[c] += (int32_t)(ONE - total);
}

/* The default window: floor(6 SIGMA + 1.5) | 1 (8-bit), floor(8 SIGMA +
 * 1.5) | 1 (16-bit), at most 127. */
static int rule_ksize(double sigma, int bits)
{
    int k = (int)floor((bits == 8 ? 6 : 8) * sigma + 1.5) | 1;
    return k > MAXK ? MAXK : k;
}

/* The padded image's channel c as (w + 2r) x (h + 2r) ints, through the
 * independent brute_padded_c. */
static int *padded_channel(const gf_image *in, int r, int c, gf_border b)
{
    const int pw = in->width + 2 * r, ph = in->height + 2 * r;
    int *p = malloc(sizeof *p * (size_t)pw * (size_t)ph);
    assert_non_null(p);
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++)
            p[(size_t)y * pw + x] = brute_padded_c(in, x - r, y - r, c, b);
    return p;
}

/* The Gaussian of in by the definition, the 2-D sum in 64 bits:
 * v = sum_i sum_j w_i w_j P(x + j - r, y + i - r), out = (v + 2^27) >> 28,
 * into want[(y w + x) C + c]. */
static void brute_gauss(const gf_image *in, int k, const int32_t *w, gf_border b,
                        unsigned *want)
{
    const int r = k / 2, W = in->width, H = in->height, C = in->channels, pw = W + 2 * r;
    for (int c = 0; c < C; c++) {
        int *p = padded_channel(in, r, c, b);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint64_t v = 0;
                for (int i = 0; i < k; i++)
                    for (int j = 0; j < k; j++)
                        v += (uint64_t)((int64_t)w[i] * w[j]) *
                             (uint64_t)p[(size_t)(y + i) * pw + x + j];
                want[((size_t)y * W + x) * C + c] = (unsigned)((v + (1ull << 27)) >> 28);
            }
        free(p);
    }
}

/* floor(n / 256) for any sign. */
static int64_t floor_div256(int64_t n)
{
    int64_t q = n / 256;
    return q * 256 > n ? q - 1 : q;
}

/* The unsharp mask of x with Gaussian g by the rule; *clamped gets -1 or 1
 * where it clamps at 0 or at max. */
static unsigned rule_unsharp(int64_t x, int64_t g, int64_t a, int64_t t, int64_t max,
                             int *clamped)
{
    const int64_t d = x - g;
    int64_t v;
    *clamped = 0;
    if (!(d > t || -d > t))
        return (unsigned)x;
    v = x + floor_div256(d * a + 128);
    if (v < 0) {
        *clamped = -1;
        return 0;
    }
    if (v > max) {
        *clamped = 1;
        return (unsigned)max;
    }
    return (unsigned)v;
}

static const char *mode_name(gf_border_mode m)
{
    return m == GF_BORDER_REPLICATE ? "replicate" : m == GF_BORDER_REFLECT101 ? "reflect101"
                                                                               : "constant";
}

static void poison(gf_image *im)
{
    memset(im->data, 0xA5, im->stride * (size_t)im->height);
}

static void copy_image(gf_image *dst, const gf_image *src)
{
    assert_int_equal(gf_image_alloc(dst, src->width, src->height, src->channels, src->bits), 0);
    for (int y = 0; y < src->height; y++)
        memcpy(dst->data + (size_t)y * dst->stride, src->data + (size_t)y * src->stride,
               (size_t)src->width * GF_PIXEL_BYTES(src->channels, src->bits));
}

/* The first sample of im that differs from want, as a failure. */
static void expect_image(const char *what, const gf_image *im, const unsigned *want,
                         const char *ctx)
{
    for (int y = 0; y < im->height; y++)
        for (int x = 0; x < im->width; x++)
            for (int c = 0; c < im->channels; c++) {
                const unsigned w = want[((size_t)y * im->width + x) * im->channels + c];
                if (gf_sample(im, x, y, c) != w)
                    fail_msg("%s %s: (%d,%d) channel %d is %u, want %u", what, ctx, x, y, c,
                             gf_sample(im, x, y, c), w);
            }
}

/* ---- weights, window, rounding ---- */

/* Weights worked by hand (exp(-1/2) = 0.60653066, exp(-2) = 0.13533528,
 * exp(-9/2) = 0.01110900, exp(-1/8) = 0.88249690, exp(-1/800) = 0.99875078). */
static void test_weights_hand(void **state)
{
    static const struct {
        double sigma;
        int k;
        int32_t w[9];
    } cases[] = {
        /* 2^14 {0.60653, 1, 0.60653} / 2.21306 = 4490.34, 7403.32, 4490.34: the
         * rounded 4490 + 7403 + 4490 = 16383, the centre takes the 1 */
        {1.0, 3, {4490, 7404, 4490}},
        /* 892.74, 4000.99, 6596.53, ...: 893 + 4001 + 6597 + ... = 16385, centre -1 */
        {1.0, 5, {893, 4001, 6596, 4001, 893}},
        /* 72.63, 884.83, 3965.52, 6538.04: rounded sum 16386, centre -2 */
        {1.0, 7, {73, 885, 3966, 6536, 3966, 885, 73}},
        /* exp(-1/8), exp(-1/2) over 3.97805: 2498.05, 3634.65, 4118.60: rounded
         * sum 16385, centre -1 */
        {2.0, 5, {2498, 3635, 4118, 3635, 2498}},
        /* 4.32, 1744.09, 12887.17: rounded sum 16383, centre +1 */
        {0.5, 5, {4, 1744, 12888, 1744, 4}},
        /* exp(-50) = 2e-22: all on the centre */
        {0.1, 3, {0, 16384, 0}},
        /* nearly flat: 5459.06, 5465.89 -> 5459 + 5466 + 5459 = 16384 */
        {20.0, 3, {5459, 5466, 5459}},
        /* 1031.70, 1522.11, 2009.48, 2373.93, 2509.54: rounded sum 16384 */
        {3.0, 9, {1032, 1522, 2009, 2374, 2510, 2374, 2009, 1522, 1032}},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t w[MAXK];
        memset(w, 0xA5, sizeof w);
        gf_gauss_weights(cases[i].sigma, cases[i].k, w);
        for (int j = 0; j < cases[i].k; j++)
            if (w[j] != cases[i].w[j])
                fail_msg("SIGMA %g K %d: w_%d = %d, want %d", cases[i].sigma, cases[i].k, j,
                         w[j], cases[i].w[j]);
        assert_int_equal(w[cases[i].k], (int32_t)0xA5A5A5A5); /* wrote K values only */
    }
}

/* Random SIGMA in [0.1, 20] and K odd in [3, 127]: the weights sum to 2^14,
 * are symmetric and non-negative, each non-centre one is the nearest
 * integer to 2^14 g_i / sum(g), and they equal the rule written here. */
static void test_weights_random(void **state)
{
    (void)state;
    for (int n = 0; n < 3000; n++) {
        const double sigma = n < 1000 ? 0.1 + (test_rand() % 1991) / 100.0
                                      : 0.1 + 19.9 * (test_rand() / 4294967296.0);
        const int k = 3 + 2 * (int)(test_rand() % 63), c = k / 2;
        int32_t w[MAXK], mine[MAXK];
        double g[MAXK], gs = 0;
        int64_t sum = 0;
        gf_gauss_weights(sigma, k, w);
        rule_weights(sigma, k, mine);
        for (int i = 0; i < k; i++) {
            g[i] = exp(-0.5 * (i - c) * (i - c) / (sigma * sigma));
            gs += g[i];
        }
        for (int i = 0; i < k; i++) {
            sum += w[i];
            if (w[i] < 0 || w[i] != w[k - 1 - i] || w[i] != mine[i])
                fail_msg("SIGMA %.17g K %d: w_%d = %d (mirror %d, rule %d)", sigma, k, i, w[i],
                         w[k - 1 - i], mine[i]);
            if (i != c && fabs(w[i] - ONE * g[i] / gs) > 0.5 + 1e-6)
                fail_msg("SIGMA %.17g K %d: w_%d = %d, exact %.6f", sigma, k, i, w[i],
                         ONE * g[i] / gs);
        }
        if (sum != ONE)
            fail_msg("SIGMA %.17g K %d: the weights sum to %lld", sigma, k, (long long)sum);
    }
}

/* The default window: OpenCV's rule by depth, at its steps, capped at 127;
 * a K given is kept. */
static void test_ksize(void **state)
{
    static const struct {
        double sigma;
        int bits, k;
    } cases[] = {
        {0.1, 8, 3},      /* 2.1 -> 2 | 1 */
        {0.25, 8, 3},     /* 3.0 exactly */
        {0.4, 8, 3},      /* 3.9 */
        {0.5, 8, 5},      /* 4.5 -> 4 | 1 */
        {0.7499, 8, 5},   /* 5.9994 */
        {0.75, 8, 7},     /* 6.0 exactly -> 6 | 1 */
        {1.0, 8, 7},      /* 7.5 */
        {2.0, 8, 13},     /* 13.5 */
        {2.5, 8, 17},     /* 16.5 -> 16 | 1 */
        {5.0, 8, 31},     /* 31.5 */
        {19.9, 8, 121},   /* 120.9 -> 120 | 1 */
        {20.0, 8, 121},   /* 121.5 */
        {0.1, 16, 3},     /* 2.3 */
        {0.5, 16, 5},     /* 5.5 */
        {0.8125, 16, 9},  /* 8.0 exactly -> 8 | 1 */
        {0.8124, 16, 7},  /* 7.9992 */
        {1.0, 16, 9},     /* 9.5 */
        {5.0, 16, 41},    /* 41.5 */
        {15.6875, 16, 127}, /* 127.0 exactly */
        {15.8125, 16, 127}, /* 128.0 -> 129, capped */
        {15.4, 16, 125},  /* 124.7 -> 124 | 1 */
        {20.0, 16, 127},  /* 161.5, capped */
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int got = gf_gauss_ksize(cases[i].sigma, 0, cases[i].bits);
        if (got != cases[i].k)
            fail_msg("ksize(SIGMA %g, %d-bit) = %d, want %d", cases[i].sigma, cases[i].bits, got,
                     cases[i].k);
    }
    for (int n = 0; n < 20000; n++) {
        const double sigma = 0.1 + (test_rand() % 19901) / 1000.0;
        const int bits = n & 1 ? 16 : 8, k = 3 + 2 * (int)(test_rand() % 63);
        assert_int_equal(gf_gauss_ksize(sigma, 0, bits), rule_ksize(sigma, bits));
        assert_int_equal(gf_gauss_ksize(sigma, k, bits), k);
    }
}

/* gf_gauss_round(a, b) = (a 2^16 + b + 2^27) >> 28 in 64 bits for every
 * a < 2^28, b < 2^30: the extremes, the steps of each half, random. */
static void test_round(void **state)
{
    static const uint32_t as[] = {0, 1, 2047, 2048, 4095, 4096, (1u << 27) - 1, 1u << 27,
                                  (1u << 28) - 2, (1u << 28) - 1};
    static const uint32_t bs[] = {0, 1, (1u << 16) - 1, 1u << 16, (1u << 27) - 1, 1u << 27,
                                  (1u << 28) - 1, 1u << 28, (1u << 30) - (1u << 16),
                                  (1u << 30) - 1};
    (void)state;
#define CHECK_ROUND(A, B)                                                                      \
    do {                                                                                      \
        const uint32_t a_ = (A), b_ = (B);                                                    \
        const unsigned want_ = (unsigned)(((uint64_t)a_ * 65536 + b_ + (1ull << 27)) >> 28);  \
        if (gf_gauss_round(a_, b_) != want_)                                                  \
            fail_msg("gf_gauss_round(%u, %u) = %u, want %u", a_, b_, gf_gauss_round(a_, b_),  \
                     want_);                                                                  \
    } while (0)
    /* hand: 2^12 (one unit) rounds to 1; 2^11 - 1 plus just under half of b stays 0 */
    assert_int_equal(gf_gauss_round(4096, 0), 1);
    assert_int_equal(gf_gauss_round(2047, (1u << 16) - 1), 0); /* (2^27 - 1 + 2^27) >> 28 */
    assert_int_equal(gf_gauss_round(2048, 0), 1);              /* exactly one half: up */
    assert_int_equal(gf_gauss_round(0, 1u << 27), 1);          /* b alone: 2^27 + 2^27 */
    assert_int_equal(gf_gauss_round(0, (1u << 27) - 1), 0);
    assert_int_equal(gf_gauss_round((1u << 28) - 1, (1u << 30) - 1), 65540);
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++)
        for (size_t j = 0; j < sizeof bs / sizeof bs[0]; j++)
            for (int da = -2; da <= 2; da++)
                for (int db = -2; db <= 2; db++) {
                    const int64_t a = (int64_t)as[i] + da, b = (int64_t)bs[j] + db;
                    if (a >= 0 && a < (1 << 28) && b >= 0 && b < (1 << 30))
                        CHECK_ROUND((uint32_t)a, (uint32_t)b);
                }
    /* every step of b's rounding near a few a */
    for (uint32_t b = 0; b < (1u << 30); b += (1u << 16) - 1)
        CHECK_ROUND(test_rand() & ((1u << 28) - 1), b);
    for (int n = 0; n < 2000000; n++)
        CHECK_ROUND(test_rand() & ((1u << 28) - 1), test_rand() & ((1u << 30) - 1));
#undef CHECK_ROUND
}

/* ---- the Gaussian on images ---- */

/* Sample (x, y) of gf_gauss_cpu of a w x h one-channel image of px (out of
 * place), checked to equal gf_gauss_gold's. */
static unsigned gauss_at(const unsigned *px, int w, int h, int bits, double sigma, int k,
                         gf_border b, int x, int y)
{
    gf_image in, out;
    unsigned v;
    assert_int_equal(gf_image_alloc(&in, w, h, 1, bits), 0);
    assert_int_equal(gf_image_alloc(&out, w, h, 1, bits), 0);
    for (int i = 0; i < w * h; i++)
        gf_sample_set(&in, i % w, i / w, 0, px[i]);
    poison(&out);
    assert_int_equal(gf_gauss_cpu(&in, &out, sigma, k, b), 0);
    v = gf_sample(&out, x, y, 0);
    poison(&out);
    assert_int_equal(gf_gauss_gold(&in, &out, sigma, k, b), 0);
    assert_int_equal(gf_sample(&out, x, y, 0), v);
    gf_image_free(&in);
    gf_image_free(&out);
    return v;
}

static void test_gauss_hand(void **state)
{
    const gf_border zero = {GF_BORDER_CONSTANT, 0}, rep = {GF_BORDER_REPLICATE, 0};
    const gf_border r101 = {GF_BORDER_REFLECT101, 0};
    (void)state;
    /* a 255 in the middle of 3x3 zeros, SIGMA 1, K 3 (4490, 7404, 4490):
     * corner 255 * 4490^2 / 2^28 = 19.15, edge 255 * 4490 * 7404 / 2^28 =
     * 31.58, centre 255 * 7404^2 / 2^28 = 52.08 */
    unsigned d8[9] = {0, 0, 0, 0, 255, 0, 0, 0, 0}, d16[9] = {0, 0, 0, 0, 65535, 0, 0, 0, 0};
    assert_int_equal(gauss_at(d8, 3, 3, 8, 1.0, 3, zero, 0, 0), 19);
    assert_int_equal(gauss_at(d8, 3, 3, 8, 1.0, 3, zero, 1, 0), 32);
    assert_int_equal(gauss_at(d8, 3, 3, 8, 1.0, 3, zero, 0, 1), 32);
    assert_int_equal(gauss_at(d8, 3, 3, 8, 1.0, 3, zero, 1, 1), 52);
    /* 16-bit: 4921.82, 8116.08, 13383.39 */
    assert_int_equal(gauss_at(d16, 3, 3, 16, 1.0, 3, zero, 2, 2), 4922);
    assert_int_equal(gauss_at(d16, 3, 3, 16, 1.0, 3, zero, 2, 1), 8116);
    assert_int_equal(gauss_at(d16, 3, 3, 16, 1.0, 3, zero, 1, 1), 13383);
    /* reflect101 at the corner (0,0) of the same: the window's rows -1, 0, 1
     * are rows 1, 0, 1, so the 255 appears at the four corners' diagonal
     * (1,1) in each reflected copy: 4 * 4490^2 = 4 * 19.15 = 76.60 -> 77 */
    assert_int_equal(gauss_at(d8, 3, 3, 8, 1.0, 3, r101, 0, 0), 77);
    /* replicate at (0,0): the 255 is (1,1) only, weight 4490^2: 19 */
    assert_int_equal(gauss_at(d8, 3, 3, 8, 1.0, 3, rep, 0, 0), 19);
    /* 1x1 with replicate: the weights sum to 2^14 each way, so x comes back */
    unsigned one[1] = {201};
    assert_int_equal(gauss_at(one, 1, 1, 8, 3.0, 127, rep, 0, 0), 201);
    one[0] = 65535;
    assert_int_equal(gauss_at(one, 1, 1, 16, 20.0, 127, r101, 0, 0), 65535);
    /* 1x1 with constant 0, SIGMA 1, K 7 (centre 6536): 100 * 6536^2 / 2^28 = 15.91 */
    one[0] = 100;
    assert_int_equal(gauss_at(one, 1, 1, 8, 1.0, 7, zero, 0, 0), 16);
    /* constant 255 around a 150: 150 * 0.15914 + 255 * 0.84086 = 238.29 */
    const gf_border full = {GF_BORDER_CONSTANT, 255};
    one[0] = 150;
    assert_int_equal(gauss_at(one, 1, 1, 8, 1.0, 7, full, 0, 0), 238);
    /* a constant image stays constant under every border that repeats it */
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        const unsigned v = test_rand() % (gf_sample_max(bits) + 1);
        const gf_border bs[3] = {rep, r101, {GF_BORDER_CONSTANT, (int)v}};
        gf_image in, out;
        assert_int_equal(gf_image_alloc(&in, 13, 6, ch, bits), 0);
        assert_int_equal(gf_image_alloc(&out, 13, 6, ch, bits), 0);
        for (int y = 0; y < 6; y++)
            for (int x = 0; x < 13; x++)
                for (int c = 0; c < ch; c++)
                    gf_sample_set(&in, x, y, c, v);
        for (int m = 0; m < 3; m++) {
            poison(&out);
            assert_int_equal(gf_gauss_cpu(&in, &out, 2.7, 17, bs[m]), 0);
            for (int y = 0; y < 6; y++)
                for (int x = 0; x < 13; x++)
                    for (int c = 0; c < ch; c++)
                        if (gf_sample(&out, x, y, c) != v)
                            fail_msg("constant %u %s %s: (%d,%d) is %u", v,
                                     gf_layout_name(ch, bits), mode_name(bs[m].mode), x, y,
                                     gf_sample(&out, x, y, c));
        }
        gf_image_free(&in);
        gf_image_free(&out);
    }
}

/* One image, one (SIGMA, K), one border: gold, fast out of place and fast
 * in place against the brute force. */
static void check_gauss(const gf_image *in, double sigma, int k, gf_border b)
{
    const size_t ns = (size_t)in->width * in->height * in->channels;
    unsigned *want = malloc(sizeof *want * ns);
    int32_t w[MAXK];
    gf_image out, mine;
    char ctx[160];

    assert_non_null(want);
    snprintf(ctx, sizeof ctx, "%dx%d %s SIGMA %.17g K %d %s=%d", in->width, in->height,
             gf_layout_name(in->channels, in->bits), sigma, k, mode_name(b.mode), b.value);
    rule_weights(sigma, k, w);
    brute_gauss(in, k, w, b, want);
    assert_int_equal(gf_image_alloc(&out, in->width, in->height, in->channels, in->bits), 0);
    poison(&out);
    assert_int_equal(gf_gauss_gold(in, &out, sigma, k, b), 0);
    expect_image("gf_gauss_gold", &out, want, ctx);
    poison(&out);
    assert_int_equal(gf_gauss_cpu(in, &out, sigma, k, b), 0);
    expect_image("gf_gauss_cpu", &out, want, ctx);
    copy_image(&mine, in);
    assert_int_equal(gf_gauss_cpu(&mine, &mine, sigma, k, b), 0);
    expect_image("gf_gauss_cpu in place", &mine, want, ctx);
    gf_image_free(&out);
    gf_image_free(&mine);
    free(want);
}

static gf_border random_border(int m, int bits)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    gf_border b = {modes[m], 0};
    if (b.mode == GF_BORDER_CONSTANT)
        b.value = (int)(test_rand() % (gf_sample_max(bits) + 1));
    return b;
}

static void test_gauss_random(void **state)
{
    /* 200x3 and 701x2: rows longer than the column rule's block of 512
     * samples, and not a multiple of it */
    static const int sizes[][2] = {{1, 1},  {1, 7},   {7, 1},     {2, 2},   {7, 5},
                                   {31, 33}, {3, 2},  {64, 3},    {3, 64},  {127, 129},
                                   {200, 3}, {701, 2}, {0, 0}};
    /* K 0: the default for the depth */
    static const struct {
        double sigma;
        int k;
    } cfg[] = {{0.8, 0}, {2.0, 0}, {1.5, 3}, {1.0, 5}, {0.3, 0}, {3.3, 9}, {5.0, 0}, {0.1, 3},
               {12.0, 7}, {0, 0}};
    const int ncfg = sizeof cfg / sizeof cfg[0], nsz = sizeof sizes / sizeof sizes[0];
    int sz[13][2];
    (void)state;
    memcpy(sz, sizes, sizeof sz);
    sz[nsz - 1][0] = 1 + (int)(test_rand() % 40);
    sz[nsz - 1][1] = 1 + (int)(test_rand() % 40);
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        for (int z = 0; z < nsz; z++) {
            gf_image in;
            random_layout(&in, sz[z][0], sz[z][1], ch, bits);
            for (int i = 0; i < ncfg; i++) {
                double sigma = cfg[i].sigma;
                int k = cfg[i].k;
                if (i == ncfg - 1) { /* random SIGMA, random or default K */
                    sigma = 0.1 + (test_rand() % 390) / 100.0;
                    k = test_rand() % 3 ? 3 + 2 * (int)(test_rand() % 12) : 0;
                }
                if (!k)
                    k = rule_ksize(sigma, bits);
                if (sz[z][0] * sz[z][1] > 10000 && k > 13)
                    continue; /* the brute force's K^2 a sample: small windows there */
                for (int m = 0; m < 3; m++)
                    check_gauss(&in, sigma, k, random_border(m, bits));
            }
            /* the largest window, on images no larger than 7x5 (all smaller
             * than it) */
            if (sz[z][0] * sz[z][1] <= 35)
                for (int m = 0; m < 3; m++) {
                    check_gauss(&in, 20.0, 127, random_border(m, bits));
                    check_gauss(&in, 0.1 + (test_rand() % 1990) / 100.0, 127,
                                random_border(m, bits));
                }
            gf_image_free(&in);
        }
    }
}

/* Strides wider than the rows, different for in and out. */
static void test_gauss_strides(void **state)
{
    (void)state;
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1], w = 23, h = 11;
        const size_t px = GF_PIXEL_BYTES(ch, bits), sin = w * px + 6, sout = w * px + 10;
        gf_image in = {w, h, ch, bits, sin, malloc(sin * h)};
        gf_image out = {w, h, ch, bits, sout, malloc(sout * h)};
        gf_image tight;
        unsigned *want = malloc(sizeof *want * w * h * ch);
        int32_t wt[MAXK];
        assert_non_null(in.data);
        assert_non_null(out.data);
        assert_non_null(want);
        random_layout(&tight, w, h, ch, bits);
        memset(in.data, 0x5A, sin * h);
        for (int y = 0; y < h; y++)
            memcpy(in.data + y * sin, tight.data + y * tight.stride, w * px);
        for (int m = 0; m < 3; m++) {
            const gf_border b = random_border(m, bits);
            rule_weights(1.7, 11, wt);
            brute_gauss(&tight, 11, wt, b, want);
            memset(out.data, 0xA5, sout * h);
            assert_int_equal(gf_gauss_cpu(&in, &out, 1.7, 11, b), 0);
            expect_image("gf_gauss_cpu, wide strides", &out, want, gf_layout_name(ch, bits));
            for (int y = 0; y < h; y++) /* the padding past each row is left alone */
                for (size_t i = w * px; i < sout; i++)
                    assert_int_equal(out.data[y * sout + i], 0xA5);
            memset(out.data, 0xA5, sout * h);
            assert_int_equal(gf_gauss_gold(&in, &out, 1.7, 11, b), 0);
            expect_image("gf_gauss_gold, wide strides", &out, want, gf_layout_name(ch, bits));
        }
        free(in.data);
        free(out.data);
        free(want);
        gf_image_free(&tight);
    }
}

/* Images large enough for the driver's bands of rows (GF_PARALLEL), with
 * more threads than cores so the bands are short, windows taller than a
 * band and reflections at both edges, out of place and in place: the fast
 * path equals the gold everywhere, and the gold the brute force at the
 * corners and at random pixels. */
static void test_gauss_bands(void **state)
{
    static const struct {
        int w, h, ch, bits;
        double sigma;
        int k;
    } cases[] = {
        {8192, 32, 1, 8, 6.0, 41},  /* 5 bands of 6-7 rows, r = 20 */
        {4096, 64, 4, 16, 1.3, 9},
        {513, 512, 3, 8, 2.0, 13},
        {1024, 256, 2, 16, 9.0, 61},
    };
    (void)state;
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
    omp_set_num_threads(5);
#endif
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gf_image in, gold, out, mine;
        const int w = cases[i].w, h = cases[i].h, ch = cases[i].ch, bits = cases[i].bits;
        const int k = cases[i].k, r = k / 2;
        random_layout(&in, w, h, ch, bits);
        for (int m = 0; m < 3; m++) {
            const gf_border b = random_border(m, bits);
            char ctx[96];
            int x, y, c;
            snprintf(ctx, sizeof ctx, "%dx%d %s K %d %s", w, h, gf_layout_name(ch, bits), k,
                     mode_name(b.mode));
            assert_int_equal(gf_image_alloc(&gold, w, h, ch, bits), 0);
            assert_int_equal(gf_image_alloc(&out, w, h, ch, bits), 0);
            poison(&gold);
            poison(&out);
            assert_int_equal(gf_gauss_gold(&in, &gold, cases[i].sigma, k, b), 0);
            assert_int_equal(gf_gauss_cpu(&in, &out, cases[i].sigma, k, b), 0);
            if (gf_image_diff(&gold, &out, &x, &y, &c))
                fail_msg("gf_gauss_cpu %s: (%d,%d) channel %d is %u, gold %u", ctx, x, y, c,
                         gf_sample(&out, x, y, c), gf_sample(&gold, x, y, c));
            copy_image(&mine, &in);
            assert_int_equal(gf_gauss_cpu(&mine, &mine, cases[i].sigma, k, b), 0);
            if (gf_image_diff(&gold, &mine, &x, &y, &c))
                fail_msg("gf_gauss_cpu in place %s: (%d,%d) channel %d is %u, gold %u", ctx, x,
                         y, c, gf_sample(&mine, x, y, c), gf_sample(&gold, x, y, c));
            /* the gold against the brute force at the four corners and 300
             * random pixels */
            {
                int32_t wt[MAXK];
                rule_weights(cases[i].sigma, k, wt);
                for (int n = 0; n < 304; n++) {
                    x = n < 4 ? (n & 1) * (w - 1) : (int)(test_rand() % (unsigned)w);
                    y = n < 4 ? (n >> 1) * (h - 1) : (int)(test_rand() % (unsigned)h);
                    c = (int)(test_rand() % (unsigned)ch);
                    uint64_t v = 0;
                    for (int a = 0; a < k; a++)
                        for (int bb = 0; bb < k; bb++)
                            v += (uint64_t)((int64_t)wt[a] * wt[bb]) *
                                 (uint64_t)brute_padded_c(&in, x + bb - r, y + a - r, c, b);
                    if (gf_sample(&gold, x, y, c) != (unsigned)((v + (1u << 27)) >> 28))
                        fail_msg("gf_gauss_gold %s: (%d,%d) channel %d is %u, want %u", ctx, x,
                                 y, c, gf_sample(&gold, x, y, c),
                                 (unsigned)((v + (1u << 27)) >> 28));
                }
            }
            gf_image_free(&gold);
            gf_image_free(&out);
            gf_image_free(&mine);
        }
        gf_image_free(&in);
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
}

/* Every window side from 3 to 21, and 31 and 41, on every layout, rows of
 * 1,100 pixels (several of the AVX-512 path's blocks of 1,024 samples, and
 * a ragged end) and of 1 to 70 (a vector or two): the fast path against
 * the gold, out of place and in place. The windows up to 17 on gray and
 * RGB take the AVX-512 path's row passes whose taps are constants, one
 * function a window. */
static void test_gauss_windows(void **state)
{
    (void)state;
    for (int l = 0; l < 8; l++) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        for (int kw = 0; kw < 26; kw++) {
            const int k = kw / 2 < 10 ? 3 + 2 * (kw / 2) : kw / 2 == 10 ? 31 : 41;
            const int w = kw % 2 ? 1100 : 1 + (int)(test_rand() % 70);
            const double sigma = 0.3 + (test_rand() % 500) / 100.0;
            gf_image in, gold, out;
            int x, y, c;
            random_layout(&in, w, 3, ch, bits);
            for (int m = 0; m < 3; m++) {
                const gf_border b = random_border(m, bits);
                assert_int_equal(gf_image_alloc(&gold, w, 3, ch, bits), 0);
                assert_int_equal(gf_image_alloc(&out, w, 3, ch, bits), 0);
                poison(&gold);
                poison(&out);
                assert_int_equal(gf_gauss_gold(&in, &gold, sigma, k, b), 0);
                assert_int_equal(gf_gauss_cpu(&in, &out, sigma, k, b), 0);
                if (gf_image_diff(&gold, &out, &x, &y, &c))
                    fail_msg("gf_gauss_cpu %dx3 %s SIGMA %.17g K %d %s: (%d,%d) channel %d is "
                             "%u, gold %u",
                             w, gf_layout_name(ch, bits), sigma, k, mode_name(b.mode), x, y, c,
                             gf_sample(&out, x, y, c), gf_sample(&gold, x, y, c));
                assert_int_equal(gf_gauss_cpu(&out, &out, sigma, k, b), 0); /* in place */
                assert_int_equal(gf_gauss_gold(&gold, &gold, sigma, k, b), 0);
                if (gf_image_diff(&gold, &out, &x, &y, &c))
                    fail_msg("gf_gauss_cpu in place %dx3 %s K %d: (%d,%d) channel %d", w,
                             gf_layout_name(ch, bits), k, x, y, c);
                gf_image_free(&gold);
                gf_image_free(&out);
            }
            gf_image_free(&in);
        }
    }
}

/* Taps a and b of window x set so that s + ca x_a + cb x_b lies within
 * [lo, hi] modulo 2^bits: the first of the 65,536 pairs that does, 1; else
 * 0 (x left alone). */
static int solve_taps(unsigned *x, int a, int b, int64_t s, int64_t ca, int64_t cb, int bits,
                      int64_t lo, int64_t hi)
{
    const int64_t mask = ((int64_t)1 << bits) - 1;
    for (int64_t va = 0; va < 256; va++)
        for (int64_t vb = 0; vb < 256; vb++) {
            const int64_t m = (s + ca * va + cb * vb) & mask;
            if (m >= lo && m <= hi) {
                x[a] = (unsigned)va;
                x[b] = (unsigned)vb;
                return 1;
            }
        }
    return 0;
}

/* A point made against the weights and the output it must have. */
typedef struct made {
    int x, y, c;
    unsigned want;
} made;

/* Gold and the fast path (out of place) on in: equal everywhere, and equal
 * to want at the n points made. */
static void check_made(const gf_image *in, double sigma, int k, const made *pts, int n,
                       const char *what)
{
    const gf_border rep = {GF_BORDER_REPLICATE, 0};
    gf_image gold, out;
    int x, y, c;
    assert_int_equal(gf_image_alloc(&gold, in->width, in->height, in->channels, 8), 0);
    assert_int_equal(gf_image_alloc(&out, in->width, in->height, in->channels, 8), 0);
    poison(&gold);
    poison(&out);
    assert_int_equal(gf_gauss_gold(in, &gold, sigma, k, rep), 0);
    assert_int_equal(gf_gauss_cpu(in, &out, sigma, k, rep), 0);
    for (int i = 0; i < n; i++)
        if (gf_sample(&gold, pts[i].x, pts[i].y, pts[i].c) != pts[i].want)
            fail_msg("%s K %d SIGMA %.17g: gold (%d,%d) channel %d is %u, want %u", what, k,
                     sigma, pts[i].x, pts[i].y, pts[i].c,
                     gf_sample(&gold, pts[i].x, pts[i].y, pts[i].c), pts[i].want);
    if (gf_image_diff(&gold, &out, &x, &y, &c))
        fail_msg("%s K %d SIGMA %.17g %s: gf_gauss_cpu (%d,%d) channel %d is %u, gold %u", what,
                 k, sigma, gf_layout_name(in->channels, 8), x, y, c, gf_sample(&out, x, y, c),
                 gf_sample(&gold, x, y, c));
    gf_image_free(&gold);
    gf_image_free(&out);
}

/* Lanes near a half, where the AVX-512 path's single-precision row pass
 * cannot tell the rounding and recomputes exactly (and the portable path
 * must round as well): 8-bit images made against the weights, every K-th
 * output of a row given a window of its own, two taps of it chosen.
 *   1-D: every row the same, so that v = 2^14 S, S = sum_j w_j x_j, and the
 *     output is (S + 2^13) >> 14: S made 2^13 + d modulo 2^14, d = 0 (an
 *     exact half, which rounds up) or +-1..3 (d 2^-14 from it: outside the
 *     recomputation's bound (r + 2) 2^-17 for windows up to 11, inside it
 *     from 13). Some weights allow no exact half (K 3 with w_0 odd: S is
 *     w_0 (x_0 + x_2 - 2 x_1) modulo 2^14), so only the whole test must
 *     have made some.
 *   2-D: a K-row image whose middle row B differs from the others A: at the
 *     middle row v = (2^14 - w_r) S_A + w_r S_B, made within (r + 2) 2^11
 *     of a half of 2^28 (inside the bound) by two taps of B; every
 *     configuration must have made some. Two taps of B reach a lattice of
 *     values modulo 2^28 that can miss that window for every output of a
 *     row (K 3, SIGMA 1.22, three channels, under one seed): a
 *     configuration that made none is drawn again with another SIGMA, up
 *     to HALVES_TRIES times. */
#define HALVES_TRIES 20

/* One configuration of test_gauss_halves: window k, ch channels, sigma;
 * adds the 1-D points made at an exact half and off it to *halves and *off;
 * returns the points made near a half in 2-D. */
static int halves_config(int k, int ch, double sigma, int *halves, int *off)
{
    static const int deltas[] = {0, 0, 1, -1, 0, 2, -2, 0, 3, -3};
    const int r = k / 2, w = 40 * k + 5;
    const int64_t half = (int64_t)1 << 27, near = (int64_t)(r + 2) * 2048;
    int32_t wt[MAXK];
    const size_t ns = (size_t)w * (size_t)ch;
    unsigned *a = malloc(sizeof *a * ns), *b = malloc(sizeof *b * ns);
    made *p1 = malloc(sizeof *p1 * ns), *p2 = malloc(sizeof *p2 * ns);
    int n1 = 0, n2 = 0;
    gf_image in;
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(p1);
    assert_non_null(p2);
    rule_weights(sigma, k, wt);
    for (int i = 0; i < w * ch; i++) {
        a[i] = test_rand() & 255;
        b[i] = test_rand() & 255;
    }
    for (int c = 0; c < ch; c++)
        for (int x = r, n = 0; x + r < w; x += k, n++) {
            unsigned xa[MAXK], xb[MAXK];
            int64_t s = 0, sa = 0, sb = 0;
            const int64_t d = deltas[n % 10];
            for (int j = 0; j < k; j++) {
                xa[j] = a[(x - r + j) * ch + c];
                xb[j] = b[(x - r + j) * ch + c];
                if (j != r && j != r - 1) {
                    s += wt[j] * (int64_t)xa[j];
                    sb += wt[j] * (int64_t)xb[j];
                }
            }
            if (solve_taps(xa, r, r - 1, s, wt[r], wt[r - 1], 14, 8192 + d, 8192 + d)) {
                *halves += d == 0;
                *off += d != 0;
            }
            for (int j = 0; j < k; j++) {
                a[(x - r + j) * ch + c] = xa[j];
                sa += wt[j] * (int64_t)xa[j];
            }
            p1[n1++] = (made){x, 1, c, (unsigned)((sa + 8192) >> 14)};
            if (solve_taps(xb, r, r - 1, (ONE - wt[r]) * sa + wt[r] * sb, (int64_t)wt[r] * wt[r],
                           (int64_t)wt[r] * wt[r - 1], 28, half - near, half + near)) {
                const int64_t v = (ONE - wt[r]) * sa + wt[r] * (sb + wt[r] * (int64_t)xb[r] +
                                                                wt[r - 1] * (int64_t)xb[r - 1]);
                for (int j = 0; j < k; j++)
                    b[(x - r + j) * ch + c] = xb[j];
                p2[n2++] = (made){x, r, c, (unsigned)((v + half) >> 28)};
            }
        }
    /* 1-D: three rows of A */
    assert_int_equal(gf_image_alloc(&in, w, 3, ch, 8), 0);
    for (int y = 0; y < 3; y++)
        for (int i = 0; i < w * ch; i++)
            gf_sample_set(&in, i / ch, y, i % ch, a[i]);
    check_made(&in, sigma, k, p1, n1, "1-D halves");
    gf_image_free(&in);
    /* 2-D: K rows of A, B in the middle */
    assert_int_equal(gf_image_alloc(&in, w, k, ch, 8), 0);
    for (int y = 0; y < k; y++)
        for (int i = 0; i < w * ch; i++)
            gf_sample_set(&in, i / ch, y, i % ch, y == r ? b[i] : a[i]);
    check_made(&in, sigma, k, p2, n2, "2-D near halves");
    gf_image_free(&in);
    free(a);
    free(b);
    free(p1);
    free(p2);
    return n2;
}

static void test_gauss_halves(void **state)
{
    static const int ks[] = {3, 5, 7, 9, 11, 13, 17, 21, 31};
    int halves = 0, off = 0;
    (void)state;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (int ch = 1; ch <= 4; ch++) {
            double sigma = 0;
            int tries = 0, n2 = 0;
            while (n2 == 0 && tries++ < HALVES_TRIES) {
                sigma = 0.5 + (test_rand() % 400) / 100.0;
                n2 = halves_config(ks[ki], ch, sigma, &halves, &off);
            }
            if (n2 == 0)
                fail_msg("K %d, %d channels: no point near a half made in 2-D in %d SIGMAs "
                         "(the last %.17g)",
                         ks[ki], ch, HALVES_TRIES, sigma);
        }
    if (halves < 100 || off < 100)
        fail_msg("1-D: made %d exact halves and %d points 1-3 2^-14 off: too few", halves, off);
}

static void test_gauss_bad_args(void **state)
{
    gf_image a, b, c;
    const gf_border rep = {GF_BORDER_REPLICATE, 0};
    (void)state;
    random_image(&a, 6, 5);
    random_image(&b, 6, 5);
    random_layout(&c, 6, 5, 1, 16);
    assert_int_equal(gf_gauss_cpu(&a, &b, 1.0, 4, rep), GF_EINTERNAL);
    assert_int_equal(gf_gauss_cpu(&a, &b, 1.0, 1, rep), GF_EINTERNAL);
    assert_int_equal(gf_gauss_cpu(&a, &b, 1.0, 129, rep), GF_EINTERNAL);
    assert_int_equal(gf_gauss_cpu(&a, &b, 0.09, 3, rep), GF_EINTERNAL);
    assert_int_equal(gf_gauss_cpu(&a, &b, 20.01, 3, rep), GF_EINTERNAL);
    assert_int_equal(gf_gauss_gold(&a, &b, 1.0, 4, rep), GF_EINTERNAL);
    assert_int_equal(gf_gauss_gold(&a, &c, 1.0, 3, rep), GF_EINTERNAL);
    assert_int_equal(gf_gauss_cpu(&a, &c, 1.0, 3, rep), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
    gf_image_free(&c);
}

/* ---- the unsharp mask ---- */

static gf_unsharp_params unsharp_params(double sigma, double amount, int threshold, gf_border b)
{
    gf_unsharp_params p;
    memset(&p, 0, sizeof p);
    p.g.border = b;
    p.g.sigma = sigma;
    p.amount_given = amount;
    p.amount = (int)lround(amount * 256);
    p.threshold = threshold;
    return p;
}

static unsigned unsharp_at(unsigned x, int bits, double sigma, double amount, int threshold,
                           gf_border b)
{
    gf_image in, out;
    gf_unsharp_params p = unsharp_params(sigma, amount, threshold, b);
    unsigned v;
    assert_int_equal(gf_image_alloc(&in, 1, 1, 1, bits), 0);
    assert_int_equal(gf_image_alloc(&out, 1, 1, 1, bits), 0);
    gf_sample_set(&in, 0, 0, 0, x);
    poison(&out);
    assert_int_equal(gf_unsharp_cpu(&in, &out, &p), 0);
    v = gf_sample(&out, 0, 0, 0);
    poison(&out);
    assert_int_equal(gf_unsharp_gold(&in, &out, &p), 0);
    assert_int_equal(gf_sample(&out, 0, 0, 0), v);
    gf_image_free(&in);
    gf_image_free(&out);
    return v;
}

/* 1x1 images, SIGMA 1 (8-bit K 7, centre weight 6536, 6536^2 / 2^28 =
 * 0.159142): with a constant border the blur is x 0.159 + V 0.841. */
static void test_unsharp_hand(void **state)
{
    const gf_border zero = {GF_BORDER_CONSTANT, 0}, full = {GF_BORDER_CONSTANT, 255};
    (void)state;
    /* x 100, V 0: g = 15.91 -> 16, d = 84; AMOUNT 1: 100 + 84 = 184 */
    assert_int_equal(unsharp_at(100, 8, 1.0, 1.0, 0, zero), 184);
    /* thresholds: |d| = 84 is not above 84, is above 83 */
    assert_int_equal(unsharp_at(100, 8, 1.0, 1.0, 84, zero), 100);
    assert_int_equal(unsharp_at(100, 8, 1.0, 1.0, 83, zero), 184);
    /* AMOUNT 0.5 (a = 128): floor((84 * 128 + 128) / 256) = floor(42.5) = 42 */
    assert_int_equal(unsharp_at(100, 8, 1.0, 0.5, 0, zero), 142);
    /* x 200: g = 31.83 -> 32, d = 168, 200 + 168 clamps at 255 */
    assert_int_equal(unsharp_at(200, 8, 1.0, 1.0, 0, zero), 255);
    /* x 150, V 255: g = 238.29 -> 238, d = -88; a = 128: floor(-43.5) = -44 */
    assert_int_equal(unsharp_at(150, 8, 1.0, 0.5, 0, full), 106);
    /* x 0, V 255: g = 214.42 -> 214, d = -214: clamps at 0 */
    assert_int_equal(unsharp_at(0, 8, 1.0, 1.0, 0, full), 0);
    assert_int_equal(unsharp_at(30, 8, 1.0, 1.0, 0, full), 0); /* g 219.2 -> 219: 30 - 189 */
    /* AMOUNT 0: the input, whatever d */
    assert_int_equal(unsharp_at(150, 8, 1.0, 0.0, 0, full), 150);
    /* AMOUNT 0.3: a = round(76.8) = 77; x 100, V 0: floor((84 * 77 + 128) / 256) =
     * floor(25.77) = 25 */
    assert_int_equal(unsharp_at(100, 8, 1.0, 0.3, 0, zero), 125);
    /* 16-bit, SIGMA 1 (K 9): centre weight by the rule, checked by the brute
     * force in the random test; here the clamp at 65535 */
    assert_int_equal(unsharp_at(60000, 16, 1.0, 2.0, 0, zero), 65535);
    assert_int_equal(unsharp_at(0, 16, 1.0, 1.0, 0, (gf_border){GF_BORDER_CONSTANT, 65535}), 0);
}

/* One image, one unsharp configuration: gold and fast against the rule;
 * counts the clamps at 0 and at max. */
static void check_unsharp(const gf_image *in, const gf_unsharp_params *p, int *low, int *high)
{
    const int k = rule_ksize(p->g.sigma, in->bits), max = (int)gf_sample_max(in->bits);
    const size_t ns = (size_t)in->width * in->height * in->channels;
    unsigned *g = malloc(sizeof *g * ns), *want = malloc(sizeof *want * ns);
    int32_t w[MAXK];
    gf_image out;
    char ctx[200];

    assert_non_null(g);
    assert_non_null(want);
    snprintf(ctx, sizeof ctx, "%dx%d %s SIGMA %.17g (K %d) AMOUNT %g (a %d) THRESHOLD %d %s=%d",
             in->width, in->height, gf_layout_name(in->channels, in->bits), p->g.sigma, k,
             p->amount_given, p->amount, p->threshold, mode_name(p->g.border.mode),
             p->g.border.value);
    rule_weights(p->g.sigma, k, w);
    brute_gauss(in, k, w, p->g.border, g);
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            for (int c = 0; c < in->channels; c++) {
                const size_t i = ((size_t)y * in->width + x) * in->channels + c;
                int cl;
                want[i] = rule_unsharp(gf_sample(in, x, y, c), g[i], p->amount, p->threshold,
                                       max, &cl);
                *low += cl < 0;
                *high += cl > 0;
                if (p->amount == 0 && want[i] != gf_sample(in, x, y, c))
                    fail_msg("the test's rule: AMOUNT 0 changed a sample");
            }
    assert_int_equal(gf_image_alloc(&out, in->width, in->height, in->channels, in->bits), 0);
    poison(&out);
    assert_int_equal(gf_unsharp_gold(in, &out, p), 0);
    expect_image("gf_unsharp_gold", &out, want, ctx);
    poison(&out);
    assert_int_equal(gf_unsharp_cpu(in, &out, p), 0);
    expect_image("gf_unsharp_cpu", &out, want, ctx);
    gf_image_free(&out);
    free(g);
    free(want);
}

static void test_unsharp_random(void **state)
{
    static const int sizes[][2] = {{1, 1},  {1, 7},   {7, 1}, {2, 2},
                                   {7, 5},  {31, 33}, {200, 3}, {0, 0}};
    static const struct {
        double sigma, amount;
        int threshold; /* -1: random, within a quarter of the depth's range */
    } cfg[] = {{1.0, 1.0, 0}, {0.6, 0.5, 3},  {2.0, 2.5, 0},  {1.3, 10.0, 1}, {0.5, 0.0, 0},
               {0.8, 0.3, -1}, {1.5, 1.7, -1}, {0.7, 4.0, 65535}, {0.1, 1.0, 0}};
    const int nsz = sizeof sizes / sizeof sizes[0];
    int sz[8][2];
    (void)state;
    memcpy(sz, sizes, sizeof sz);
    sz[nsz - 1][0] = 1 + (int)(test_rand() % 40);
    sz[nsz - 1][1] = 1 + (int)(test_rand() % 40);
    for (int bits = 8; bits <= 16; bits += 8) {
        int low = 0, high = 0;
        for (int l = 0; l < 8; l++) {
            const int ch = test_layouts[l][0];
            if (test_layouts[l][1] != bits)
                continue;
            for (int z = 0; z < nsz; z++) {
                gf_image in;
                random_layout(&in, sz[z][0], sz[z][1], ch, bits);
                for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
                    for (int m = 0; m < 3; m++) {
                        const int t = cfg[i].threshold >= 0
                                          ? cfg[i].threshold
                                          : (int)(test_rand() % (gf_sample_max(bits) / 4 + 1));
                        gf_unsharp_params p =
                            unsharp_params(cfg[i].sigma, cfg[i].amount, t, random_border(m, bits));
                        check_unsharp(&in, &p, &low, &high);
                    }
                /* a large SIGMA (K 37 / 49) and a random one, small images only */
                if (sz[z][0] * sz[z][1] <= 64)
                    for (int m = 0; m < 3; m++) {
                        gf_unsharp_params p = unsharp_params(6.0, 1.7, 2, random_border(m, bits));
                        check_unsharp(&in, &p, &low, &high);
                        p = unsharp_params(0.1 + (test_rand() % 1990) / 100.0,
                                           (test_rand() % 2561) / 256.0,
                                           (int)(test_rand() % 8), random_border(m, bits));
                        check_unsharp(&in, &p, &low, &high);
                    }
                gf_image_free(&in);
            }
        }
        /* the clamps were exercised at both ends */
        if (low == 0 || high == 0)
            fail_msg("%d-bit: %d clamps at 0, %d at the maximum: the test misses one", bits, low,
                     high);
    }
}

/* The fast path in bands of rows (as test_gauss_bands) against the gold. */
static void test_unsharp_bands(void **state)
{
    gf_image in, gold, out;
    (void)state;
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
    omp_set_num_threads(5);
#endif
    for (int l = 0; l < 8; l += 3) {
        const int ch = test_layouts[l][0], bits = test_layouts[l][1];
        random_layout(&in, 2048, 128, ch, bits);
        for (int m = 0; m < 3; m++) {
            gf_unsharp_params p = unsharp_params(2.0, 1.5, 1, random_border(m, bits));
            int x, y, c;
            assert_int_equal(gf_image_alloc(&gold, 2048, 128, ch, bits), 0);
            assert_int_equal(gf_image_alloc(&out, 2048, 128, ch, bits), 0);
            poison(&gold);
            poison(&out);
            assert_int_equal(gf_unsharp_gold(&in, &gold, &p), 0);
            assert_int_equal(gf_unsharp_cpu(&in, &out, &p), 0);
            if (gf_image_diff(&gold, &out, &x, &y, &c))
                fail_msg("gf_unsharp_cpu 2048x128 %s %s: (%d,%d) channel %d is %u, gold %u",
                         gf_layout_name(ch, bits), mode_name(p.g.border.mode), x, y, c,
                         gf_sample(&out, x, y, c), gf_sample(&gold, x, y, c));
            gf_image_free(&gold);
            gf_image_free(&out);
        }
        gf_image_free(&in);
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
}

static void test_unsharp_bad_args(void **state)
{
    gf_image a, b;
    gf_unsharp_params p = unsharp_params(1.0, 1.0, 0, (gf_border){GF_BORDER_REPLICATE, 0});
    (void)state;
    random_image(&a, 5, 4);
    random_image(&b, 5, 4);
    /* not in place */
    assert_int_equal(gf_unsharp_cpu(&a, &a, &p), GF_EINTERNAL);
    assert_int_equal(gf_unsharp_gold(&a, &a, &p), GF_EINTERNAL);
    p.amount = 2561;
    assert_int_equal(gf_unsharp_cpu(&a, &b, &p), GF_EINTERNAL);
    p.amount = 256;
    p.threshold = -1;
    assert_int_equal(gf_unsharp_cpu(&a, &b, &p), GF_EINTERNAL);
    gf_image_free(&a);
    gf_image_free(&b);
}

static int portable_path(void **state)
{
    (void)state;
    gf_gauss_simd = 0;
    return 0;
}

static int default_path(void **state)
{
    (void)state;
    gf_gauss_simd = 1;
    return 0;
}

int main(void)
{
    int rc;
#ifdef _OPENMP
    /* One thread but in the band tests, which ask for five: the golds' many
     * short parallel loops on small images would leave OpenMP's idle threads
     * spinning against the brute force (five times slower on 2 cores). */
    omp_set_num_threads(1);
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights_hand),   cmocka_unit_test(test_weights_random),
        cmocka_unit_test(test_ksize),          cmocka_unit_test(test_round),
        cmocka_unit_test(test_gauss_hand),     cmocka_unit_test(test_gauss_random),
        cmocka_unit_test(test_gauss_strides),  cmocka_unit_test(test_gauss_bands),
        cmocka_unit_test(test_gauss_windows),  cmocka_unit_test(test_gauss_halves),
        cmocka_unit_test(test_gauss_bad_args), cmocka_unit_test(test_unsharp_hand),
        cmocka_unit_test(test_unsharp_random), cmocka_unit_test(test_unsharp_bands),
        cmocka_unit_test(test_unsharp_bad_args),
    };
    /* the fast paths' tests again on the portable path, where the first run
     * took the AVX-512 one */
    const struct CMUnitTest portable[] = {
        cmocka_unit_test(test_gauss_hand),    cmocka_unit_test(test_gauss_random),
        cmocka_unit_test(test_gauss_strides), cmocka_unit_test(test_gauss_bands),
        cmocka_unit_test(test_gauss_windows), cmocka_unit_test(test_gauss_halves),
        cmocka_unit_test(test_unsharp_hand),  cmocka_unit_test(test_unsharp_random),
        cmocka_unit_test(test_unsharp_bands),
    };
    fprintf(stderr, "8-bit fast path: %s\n",
            gf_gauss_avx512() ? "AVX-512, then the portable one" : "portable (no AVX-512 here)");
    rc = cmocka_run_group_tests_name("gaussian", tests, NULL, NULL);
    if (gf_gauss_avx512())
        rc |= cmocka_run_group_tests_name("gaussian, portable path", portable, portable_path,
                                          default_path);
    return rc;
}
