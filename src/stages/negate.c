/* negate.c - the negative stage: --negate, MAX - v in each colour channel,
 * alpha kept (ImageMagick's -negate). */
#include "tone.h"

static int negate_table(const gf_stage *s, const gf_image *in, int gold, gf_lut *lut)
{
    const unsigned max = gf_sample_max(in->bits);
    int rc = gf_lut_alloc(lut, in->bits, 1);
    (void)s, (void)gold;

    for (unsigned v = 0; rc == 0 && v <= max; v++)
        gf_lut_set(lut, 0, v, max - v);
    return rc;
}

GF_LUT_CPU_PATHS(negate, negate_table)

static void negate_label(const gf_stage *s, char *buf, size_t n)
{
    (void)s;
    snprintf(buf, n, "negate");
}

static int parse_negate(gf_stage *s, const char *arg)
{
    (void)s, (void)arg;
    return 0;
}

static int negate_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    (void)s, (void)bench, (void)rng;
    return i == 0;
}

static const gf_stage_opt negate_opts[] = {
    {"negate", NULL, "the negative of each colour channel, max - v, alpha kept", GF_OPT_ADD,
     parse_negate},
    {NULL, NULL, NULL, 0, NULL},
};

GF_LUT_LAUNCHERS(negate, negate_table, NULL)

static const gf_variant negate_variants[] = {
    GF_LUT_VARIANTS(negate),
    {NULL, NULL},
};

const gf_stage_ops gf_stage_negate = {
    .cpu_cost = 0.15, /* 8 bits; 16: cpu_cost_of */
    .cpu_cost_of = gf_lut_cost,
    .name = "negate",
    .group = "tone",
    .opts = negate_opts,
    .variants = negate_variants,
    .defaults = gf_lut_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .label = negate_label,
    .gold = negate_gold,
    .cpu = negate_cpu,
    .cpu_in_place = negate_in_place,
    .config = negate_config,
};
