/* test_gpu.c - every CUDA variant of every stage against the CPU reference,
 * bit for bit, on fresh random images of awkward sizes and on the samples.
 * Outputs are poisoned before each run. Usage:
 *   test_gpu [--small] [SAMPLE...]
 * --small keeps to sizes that compute-sanitizer runs in seconds. Exits 0
 * with "SKIP" when no GPU is usable, 1 on any mismatch or error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/gpu.h"
#include "../../src/image.h"
#include "../../src/pipeline.h"
#include "../../src/stage.h"
#include "../../src/stages/orient.h"

static int passed, failed;
static gf_gpu *gpu;

/* Fresh inputs every run; the seed is printed to reproduce. */
static uint64_t rng_state;
static unsigned rnd(void)
{
    return gf_rand(&rng_state);
}

static void random_image(gf_image *im, int w, int h)
{
    if (gf_image_random(im, w, h, &rng_state)) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
}

/* Runs every variant of stage s on img; each must equal the CPU reference. */
static void check_stage(const gf_stage *s, const gf_image *img, const char *what)
{
    gf_variant_result res[GF_MAX_VARIANTS];
    gf_output ref;
    double cpu_ms;

    if (gf_stage_check(gpu, s, img, 1, &ref, &cpu_ms, res)) {
        fprintf(stderr, "FAIL %s: %s\n", what, gf_errmsg());
        exit(1); /* a CUDA error is sticky */
    }
    for (int v = 0; s->ops->variants[v]; v++) {
        if (res[v].match) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s: %s\n", what, res[v].why);
        }
    }
    gf_output_free(&ref);
}

/* Every stage configuration worth checking, on one image. */
static void check_all(const gf_image *img, const char *what)
{
    static const gf_border_mode modes[] = {GF_BORDER_REPLICATE, GF_BORDER_REFLECT101,
                                           GF_BORDER_CONSTANT};
    gf_stage s;

    memset(&s, 0, sizeof s);
    s.ops = &gf_stage_mean;
    for (int k = 3; k <= 5; k += 2)
        for (int m = 0; m < 3; m++) {
            s.u.mean.ksize = k;
            s.u.mean.border.mode = modes[m];
            s.u.mean.border.value = (int)(rnd() & 255);
            check_stage(&s, img, what);
        }
    static const gf_stage_ops *const reports[] = {&gf_stage_hist, &gf_stage_colsum,
                                                  &gf_stage_rowsum};
    for (int r = 0; r < 3; r++) {
        memset(&s, 0, sizeof s);
        s.ops = reports[r];
        check_stage(&s, img, what);
    }
    for (int op = 0; op < GF_ORIENT_NOPS; op++) {
        memset(&s, 0, sizeof s);
        s.ops = gf_orient_swaps(op) ? &gf_stage_transpose : &gf_stage_mirror;
        s.u.orient.op = op;
        check_stage(&s, img, what);
    }
}

int main(int argc, char **argv)
{
    static const int full[][2] = {{1, 1},   {1, 7},    {7, 1},     {2, 2},      {5, 5},
                                  {31, 33}, {64, 64},  {65, 63},   {127, 129},  {129, 127},
                                  {1000, 999}, {4099, 3}, {3, 4099}, {8000, 8000}};
    static const int small[][2] = {{1, 1},   {1, 7},   {7, 1},     {2, 2},   {5, 5},
                                   {31, 33}, {65, 63}, {127, 129}, {300, 67}};
    int is_small = argc > 1 && !strcmp(argv[1], "--small");
    const int(*sizes)[2] = is_small ? small : full;
    int nsizes = is_small ? (int)(sizeof small / sizeof small[0])
                          : (int)(sizeof full / sizeof full[0]);
    char name[128], what[256];
    gf_limits lim = {GF_DEFAULT_MAX_PIXELS, GF_DEFAULT_MAX_FILE_BYTES};

    if (gf_gpu_open(0, &gpu, name, sizeof name)) {
        printf("SKIP: %s\n", gf_errmsg());
        return 0;
    }
    rng_state = (unsigned long long)time(NULL) * 0x9E3779B97F4A7C15ull | 1;
    printf("test_gpu on %s, seed %llu\n", name, (unsigned long long)rng_state);
    for (int i = 0; i < nsizes; i++) {
        gf_image img;
        random_image(&img, sizes[i][0], sizes[i][1]);
        snprintf(what, sizeof what, "random %dx%d", sizes[i][0], sizes[i][1]);
        check_all(&img, what);
        gf_image_free(&img);
    }
    /* histograms punish atomics on flat data: constant and two-valued images */
    for (int i = 0; i < 2; i++) {
        gf_image img;
        int w = is_small ? 301 : 4001, h = is_small ? 77 : 999;
        random_image(&img, w, h);
        for (size_t p = 0; p < (size_t)w * h; p++)
            img.data[p] = i == 0 ? 200 : (img.data[p] & 1 ? 3 : 250);
        snprintf(what, sizeof what, "%s %dx%d", i == 0 ? "constant" : "two-valued", w, h);
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
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
