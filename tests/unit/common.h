/* common.h - helpers shared by the unit tests: fresh random images and an
 * independent brute-force padded-pixel reader. */
#ifndef GF_TEST_COMMON_H
#define GF_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/border.h"
#include "../../src/gf.h"
#include "../seed.h"

/* gf_rand's state: GPUFILT_TEST_SEED when set, else from the clock and the
 * process id; printed once, so any failure can be replayed. */
static uint64_t test_rng;
static inline uint64_t *test_state(void)
{
    if (!test_rng) {
        test_rng = test_seed();
        fprintf(stderr, "random seed %llu (GPUFILT_TEST_SEED=%llu replays it)\n",
                (unsigned long long)test_rng, (unsigned long long)test_rng);
    }
    return &test_rng;
}

static inline unsigned test_rand(void)
{
    return gf_rand(test_state());
}

/* A width x height image of random samples of the layout (channels, bits),
 * never all zero. */
static inline void random_layout(gf_image *im, int width, int height, int channels, int bits)
{
    assert_int_equal(gf_image_random(im, width, height, channels, bits, test_state()), 0);
    im->data[0] |= 1;
}

/* The same, 8-bit gray. */
static inline void random_image(gf_image *im, int width, int height)
{
    random_layout(im, width, height, 1, 8);
}

/* Every layout, for the tests that iterate them: (channels, bits). */
static const int test_layouts[8][2] = {{1, 8},  {2, 8},  {3, 8},  {4, 8},
                                       {1, 16}, {2, 16}, {3, 16}, {4, 16}};

/* Sample c of the padded image by its definition, written independently of
 * gf_border_index: replicate clamps, reflect101 mirrors about the edge pixels
 * until inside, constant gives v. */
static inline int brute_padded_c(const gf_image *im, int x, int y, int c0, gf_border b)
{
    int c[2] = {x, y}, n[2] = {im->width, im->height};

    for (int k = 0; k < 2; k++) {
        if (c[k] >= 0 && c[k] < n[k])
            continue;
        if (b.mode == GF_BORDER_CONSTANT)
            return b.value;
        if (b.mode == GF_BORDER_REPLICATE || n[k] == 1) {
            c[k] = c[k] < 0 ? 0 : n[k] - 1;
            continue;
        }
        while (c[k] < 0 || c[k] >= n[k])
            c[k] = c[k] < 0 ? -c[k] : 2 * (n[k] - 1) - c[k];
    }
    return (int)gf_sample(im, c[0], c[1], c0);
}

/* The same for one-channel images. */
static inline int brute_padded(const gf_image *im, int x, int y, gf_border b)
{
    return brute_padded_c(im, x, y, 0, b);
}

#endif
