/* equalize.c - the histogram equalisation stage: --equalize, OpenCV's
 * equalizeHist on each colour channel (the rule: tone.h). */
#include <stdlib.h>

#include "tone.h"

/* Table c from channel c's histogram h of n pixels. */
static void channel_table(const uint32_t *h, int nb, uint32_t n, gf_lut *lut, int c)
{
    const unsigned max = (unsigned)nb - 1;
    int i0 = 0;

    while (!h[i0]) /* n >= 1: some bin is not empty */
        i0++;
    if (h[i0] == n) { /* one value: the channel stays */
        gf_lut_identity(lut, c);
        return;
    }
    const float scale = gf_equalize_scale(max, n - h[i0]);
    uint32_t sum = 0;
    for (int i = 0; i <= i0; i++)
        gf_lut_set(lut, c, (unsigned)i, 0);
    for (int i = i0 + 1; i < nb; i++) {
        sum += h[i];
        gf_lut_set(lut, c, (unsigned)i, gf_equalize_entry(sum, scale, max));
    }
}

static int equalize_table(const gf_stage *s, const gf_image *in, int gold, gf_lut *lut)
{
    const int nb = gf_hist_bins(in->bits), colours = gf_lut_colours(in->channels);
    const uint32_t n = (uint32_t)((uint64_t)in->width * (uint64_t)in->height);
    uint32_t *bins;
    int rc;
    (void)s;

    if ((rc = gf_lut_hist(in, gold, &bins)))
        return rc;
    if ((rc = gf_lut_alloc(lut, in->bits, colours)) == 0)
        for (int c = 0; c < colours; c++)
            channel_table(bins + (size_t)c * (size_t)nb, nb, n, lut, c);
    free(bins);
    return rc;
}

GF_LUT_CPU_PATHS(equalize, equalize_table)

static void equalize_label(const gf_stage *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "equalize");
}

static int parse_equalize(gf_stage *s, const char *arg)
{
    (void)s, (void)arg;
    return 0;
}

/* One configuration: the stage has no parameters. */
static int equalize_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    (void)s, (void)bench, (void)rng;
    return i == 0;
}

static const gf_stage_opt equalize_opts[] = {
    {"equalize", NULL,
     "histogram equalisation of each colour channel, alpha kept (OpenCV's equalizeHist: the "
     "same bytes at 8 bits)",
     GF_OPT_ADD, parse_equalize},
    {NULL, NULL, NULL, 0, NULL},
};

GF_LUT_LAUNCHERS(equalize, NULL, gf_equalize_tables_cuda)

static const gf_variant equalize_variants[] = {
    GF_LUT_VARIANTS(equalize),
    {NULL, NULL},
};

const gf_stage_ops gf_stage_equalize = {
    .cpu_cost = 0.60, /* 8 bits; 16: cpu_cost_of */
    .cpu_cost_of = gf_lut_cost_hist,
    .name = "equalize",
    .group = "tone",
    .opts = equalize_opts,
    .variants = equalize_variants,
    .defaults = gf_lut_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .label = equalize_label,
    .gold = equalize_gold,
    .cpu = equalize_cpu,
    .cpu_in_place = equalize_in_place,
    .config = equalize_config,
};
