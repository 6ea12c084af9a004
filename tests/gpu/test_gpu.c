/* test_gpu.c - every CUDA variant of every registered stage, in every test
 * configuration the stage gives, on every layout the stage takes, against
 * its gold reference bit for bit, on fresh random images of awkward sizes,
 * on constant and two-valued images and on the samples. Outputs are
 * poisoned before each run. Usage:
 *   test_gpu [--small] [SAMPLE...]
 * --small keeps to sizes that compute-sanitizer runs in seconds. The random
 * seed is printed; GPUFILT_TEST_SEED replays one. GPUFILT_TEST_STAGES, an
 * extended regular expression, keeps to the stages whose names it matches;
 * GPUFILT_TEST_MAX_PIXELS leaves out the random sizes above it;
 * GPUFILT_TEST_VERBOSE names each check on stderr before it runs.
 * An inexact variant (gf_stage_ops.inexact: texture filtering) is not counted
 * as passed or failed: its differences from the gold are summed by stage,
 * variant and layout and printed before the totals ("inexact ..." lines).
 * Exits 0 with "SKIP" when no GPU is usable, 1 on any mismatch or error. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../src/codec/codec.h"
#include "../../src/gpu.h"
#include "../../src/pipeline.h"
#include "../../src/stage.h"
#include "../seed.h"

static int passed, failed;
static gf_gpu *gpu;
static regex_t only; /* GPUFILT_TEST_STAGES */
static int have_only;
static int verbose; /* GPUFILT_TEST_VERBOSE: each check named on stderr before it runs */
static double max_pixels = 1e18; /* GPUFILT_TEST_MAX_PIXELS: larger random images are left out */
static uint64_t rng_state;

/* The inexact variants' differences from the gold, by stage, variant and
 * layout. */
#define MAX_INEXACT 64
static struct {
    const char *stage, *variant;
    int channels, bits, checks;
    unsigned max_diff;
    double ndiff, nsamples;
} inexact[MAX_INEXACT];
static int ninexact;

static void note_inexact(const gf_stage *s, int v, const gf_image *img,
                         const gf_variant_result *r)
{
    int i = 0;
    while (i < ninexact && !(inexact[i].stage == s->ops->name &&
                             inexact[i].variant == s->ops->variants[v].name &&
                             inexact[i].channels == img->channels && inexact[i].bits == img->bits))
        i++;
    if (i == MAX_INEXACT)
        return;
    if (i == ninexact) {
        ninexact++;
        inexact[i].stage = s->ops->name;
        inexact[i].variant = s->ops->variants[v].name;
        inexact[i].channels = img->channels;
        inexact[i].bits = img->bits;
    }
    inexact[i].checks++;
    if (r->max_diff > inexact[i].max_diff)
        inexact[i].max_diff = r->max_diff;
    inexact[i].ndiff += r->ndiff;
    inexact[i].nsamples += r->nsamples;
}

static void random_image(gf_image *im, int w, int h, int channels, int bits)
{
    if (gf_image_random(im, w, h, channels, bits, &rng_state)) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

/* Runs every variant of stage s on img; each must equal the gold. */
static void check_stage(const gf_stage *s, const gf_image *img, const char *what)
{
    gf_variant_result res[GF_MAX_VARIANTS];
    gf_output ref;
    double ms;
    char label[48];

    gf_stage_label(s, label, sizeof label);
    if (verbose)
        fprintf(stderr, "check %s: %s\n", what, label);
    if (gf_stage_reference(s, img, &ref, &ms) ||
        gf_stage_check(gpu, s, img, &ref, 1, res)) {
        fprintf(stderr, "FAIL %s, %s: %s\n", what, label, gf_errmsg());
        exit(1); /* a CUDA error is sticky */
    }
    for (int v = 0; s->ops->variants[v].name; v++) {
        if (res[v].inexact) {
            note_inexact(s, v, img, &res[v]);
        } else if (res[v].match) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s: %s\n", what, res[v].why);
        }
    }
    gf_output_free(&ref);
}

/* Every configuration of every registered stage that takes img's layout,
 * on img. */
static void check_all(const gf_image *img, const char *what)
{
    const gf_shape sh = gf_image_shape(img);

    const int large = (uint64_t)sh.width * (uint64_t)sh.height >= GF_TEST_LARGE_PIXELS;

    for (int i = 0; gf_stages[i]; i++)
        for (int c = 0; !have_only || regexec(&only, gf_stages[i]->name, 0, NULL, 0) == 0; c++) {
            gf_stage s;
            gf_stage_init(&s, gf_stages[i]);
            if (!s.ops->config(&s, c, 0, &rng_state))
                break;
            if (large && gf_stages[i]->large_configs && c >= gf_stages[i]->large_configs)
                continue;
            if (gf_stage_accepts(&s, &sh) == 0)
                check_stage(&s, img, what);
        }
}

int main(int argc, char **argv)
{
    static const int full[][2] = {{1, 1},     {1, 7},    {7, 1},     {2, 2},     {5, 5},
                                  {31, 33},   {64, 64},  {65, 63},   {127, 129}, {129, 127},
                                  {16, 17},   {481, 35}, {496, 33}, {959, 70},  {130, 258},
                                  {1000, 999}, {4099, 3}, {3, 4099}, {1920, 1080}, {8000, 8000}};
    static const int small[][2] = {{1, 1},   {1, 7},   {7, 1},     {2, 2},   {5, 5},
                                   {31, 33}, {65, 63}, {127, 129}, {300, 67}, {16, 17},
                                   {481, 35}, {497, 9}, {129, 130}, {300, 260}};
    const int is_small = argc > 1 && !strcmp(argv[1], "--small");
    const int(*sizes)[2] = is_small ? small : full;
    const int nsizes = is_small ? (int)(sizeof small / sizeof small[0])
                                : (int)(sizeof full / sizeof full[0]);
    static const int layouts[8][2] = {{1, 8},  {2, 8},  {3, 8},  {4, 8},
                                      {1, 16}, {2, 16}, {3, 16}, {4, 16}};
    char name[128], what[256];
    gf_limits lim = {.max_pixels = GF_DEFAULT_MAX_PIXELS,
                     .max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES,
                     .max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES};

    if (gf_gpu_open(0, &gpu, name, sizeof name)) {
        printf("SKIP: %s\n", gf_errmsg());
        return 0;
    }
    verbose = getenv("GPUFILT_TEST_VERBOSE") && *getenv("GPUFILT_TEST_VERBOSE");
    if (getenv("GPUFILT_TEST_MAX_PIXELS") && *getenv("GPUFILT_TEST_MAX_PIXELS"))
        max_pixels = atof(getenv("GPUFILT_TEST_MAX_PIXELS"));
    if (getenv("GPUFILT_TEST_STAGES") && *getenv("GPUFILT_TEST_STAGES")) {
        if (regcomp(&only, getenv("GPUFILT_TEST_STAGES"), REG_EXTENDED | REG_NOSUB)) {
            fprintf(stderr, "GPUFILT_TEST_STAGES: not a regular expression\n");
            return 1;
        }
        have_only = 1;
    }
    rng_state = test_seed();
    printf("test_gpu on %s, seed %llu (GPUFILT_TEST_SEED=%llu replays it)\n", name,
           (unsigned long long)rng_state, (unsigned long long)rng_state);
    for (int i = 0; i < nsizes; i++)
        for (int l = 0; l < 8; l++) {
            gf_image img;
            const int ch = layouts[l][0], bits = layouts[l][1];
            /* the largest size in the layouts the speed targets name, beside gray;
             * under --small (compute-sanitizer) every layout on a few sizes */
            if (sizes[i][0] * sizes[i][1] > 16000000 && !(ch == 1 || (ch == 3 && bits == 8)))
                continue;
            if (is_small && l > 0 && i % 3 != 1)
                continue;
            if ((double)sizes[i][0] * sizes[i][1] > max_pixels)
                continue;
            random_image(&img, sizes[i][0], sizes[i][1], ch, bits);
            snprintf(what, sizeof what, "random %dx%d %s", sizes[i][0], sizes[i][1],
                     gf_layout_name(ch, bits));
            check_all(&img, what);
            gf_image_free(&img);
        }
    /* histograms punish atomics on flat data: constant and two-valued
     * images; three values in equal counts tie Otsu's scores exactly at two
     * different splits (the exact comparison's path) */
    for (int i = 0; i < 3; i++)
        for (int l = 0; l < 8; l++) {
            static const char *const kinds[] = {"constant", "two-valued", "three-valued"};
            static const unsigned three[] = {10, 20, 30};
            const int ch = layouts[l][0], bits = layouts[l][1];
            const unsigned hi = bits == 8 ? 250 : 65000;
            gf_image img;
            int w = is_small ? 301 : 4001, h = is_small ? 78 : 999;
            random_image(&img, w, h, ch, bits);
            for (size_t p = 0; p < (size_t)w * h * (size_t)ch; p++) {
                const unsigned v = gf_sample(&img, (int)(p / (size_t)ch % (size_t)w),
                                             (int)(p / (size_t)ch / (size_t)w), (int)(p % (size_t)ch));
                gf_sample_set(&img, (int)(p / (size_t)ch % (size_t)w),
                              (int)(p / (size_t)ch / (size_t)w), (int)(p % (size_t)ch),
                              i == 0 ? 200 : i == 1 ? (v & 1 ? 3 : hi) : three[p % 3]);
            }
            snprintf(what, sizeof what, "%s %dx%d %s", kinds[i], w, h, gf_layout_name(ch, bits));
            check_all(&img, what);
            gf_image_free(&img);
        }
    for (int i = 1 + is_small; i < argc; i++) {
        gf_image img;
        gf_load_info info;
        if (gf_load(argv[i], &lim, &img, &info)) {
            fprintf(stderr, "FAIL %s\n", gf_errmsg());
            failed++;
            continue;
        }
        check_all(&img, argv[i]);
        gf_image_free(&img);
    }
    gf_gpu_close(gpu);
    for (int i = 0; i < ninexact; i++)
        printf("inexact %s %s %s: max diff %u, %.0f of %.0f samples differ (%.3f%%) in %d "
               "checks\n",
               inexact[i].stage, inexact[i].variant,
               gf_layout_name(inexact[i].channels, inexact[i].bits), inexact[i].max_diff,
               inexact[i].ndiff, inexact[i].nsamples,
               inexact[i].nsamples > 0 ? 100.0 * inexact[i].ndiff / inexact[i].nsamples : 0.0,
               inexact[i].checks);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
