/* gamma.c - the gamma stage: --gamma G on each colour channel (the rule:
 * tone.h): the level table with BLACK 0 and WHITE the largest sample. */
#include "tone.h"

_Static_assert(sizeof(gf_gamma_params) <= GF_STAGE_PARAMS, "gamma params");

static int gamma_table(const gf_stage *s, const gf_image *in, int gold, gf_lut *lut)
{
    (void)gold;
    return gf_level_table(0.0, (double)gf_sample_max(in->bits),
                          GF_CPARAMS(s, gf_gamma_params)->gamma, in->bits, lut);
}

GF_LUT_CPU_PATHS(gamma, gamma_table)

static void gamma_label(const gf_stage *s, char *buf, size_t n)
{
    snprintf(buf, n, "gamma %g", GF_CPARAMS(s, gf_gamma_params)->gamma);
}

static int parse_gamma(gf_stage *s, const char *arg)
{
    return gf_tone_parse_gamma("--gamma", "G", arg, &GF_PARAMS(s, gf_gamma_params)->gamma);
}

/* Configurations: the common 2.2 and its inverse, 1 (the identity), the
 * extremes and a random one; bench: 2.2. */
static int gamma_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const double g[] = {2.2, 0.45, 1.0, 0.01, 100.0};
    const int n = (int)(sizeof g / sizeof g[0]);

    if (i >= (bench ? 1 : n + 1))
        return 0;
    GF_PARAMS(s, gf_gamma_params)->gamma =
        i < n ? g[i] : 0.1 + (double)(gf_rand(rng) % 1000) / 100.0;
    return 1;
}

static const gf_stage_opt gamma_opts[] = {
    {"gamma", "G",
     "gamma of each colour channel, alpha kept: max * (v / max)^(1/G), rounded (G 0.01-100; "
     "ImageMagick's -gamma)",
     GF_OPT_ADD, parse_gamma},
    {NULL, NULL, NULL, 0, NULL},
};

GF_LUT_LAUNCHERS(gamma, gamma_table, NULL)

static const gf_variant gamma_variants[] = {
    GF_LUT_VARIANTS(gamma),
    {NULL, NULL},
};

const gf_stage_ops gf_stage_gamma = {
    .cpu_cost = 0.15, /* 8 bits; 16: cpu_cost_of */
    .cpu_cost_of = gf_lut_cost,
    .name = "gamma",
    .group = "tone",
    .opts = gamma_opts,
    .variants = gamma_variants,
    .defaults = gf_lut_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .label = gamma_label,
    .gold = gamma_gold,
    .cpu = gamma_cpu,
    .cpu_in_place = gamma_in_place,
    .config = gamma_config,
    .large_configs = 2, /* the rest on the smaller images: the gold takes a while */
};
