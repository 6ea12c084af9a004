/* level.c - the levels stage: --level BLACK,WHITE[,GAMMA], ImageMagick's
 * -level formula on each colour channel (the rule: tone.h). */
#include <string.h>

#include "gaussian.h" /* gf_gauss_parse_decimal */
#include "tone.h"

_Static_assert(sizeof(gf_level_params) <= GF_STAGE_PARAMS, "level params");

int gf_level_table(double black, double white, double gamma, int bits, gf_lut *lut)
{
    const double max = (double)gf_sample_max(bits), inv = 1.0 / gamma;
    int rc = gf_lut_alloc(lut, bits, 1);

    for (int v = 0; rc == 0 && v < gf_hist_bins(bits); v++) {
        double f = ((double)v - black) / (white - black);
        f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
        gf_lut_set(lut, 0, (unsigned)v, (unsigned)floor(max * pow(f, inv) + 0.5));
    }
    return rc;
}

int gf_tone_parse_gamma(const char *opt, const char *name, const char *s, double *gamma)
{
    const char *end;
    double g;

    if (gf_gauss_parse_decimal(s, &g, &end) || *end || !(g >= GF_TONE_MIN_GAMMA) ||
        !(g <= GF_TONE_MAX_GAMMA))
        return gf_err(GF_EUSAGE, NULL, "%s: %s must be a number from %g to %g, not '%s'", opt,
                      name, GF_TONE_MIN_GAMMA, GF_TONE_MAX_GAMMA, s);
    *gamma = g;
    return 0;
}

/* BLACK or WHITE of p at `bits` bits: the sample, or its percentage of MAX. */
static double point(double v, int pct, int bits)
{
    return pct ? v / 100.0 * (double)gf_sample_max(bits) : v;
}

static int level_table(const gf_stage *s, const gf_image *in, int gold, gf_lut *lut)
{
    const gf_level_params *p = GF_CPARAMS(s, gf_level_params);
    (void)gold;
    return gf_level_table(point(p->black, p->black_pct, in->bits),
                          point(p->white, p->white_pct, in->bits), p->gamma, in->bits, lut);
}

GF_LUT_CPU_PATHS(level, level_table)

/* The value as given, else (a test configuration) "B,W,G" with % where
 * given. */
static void level_text(const gf_level_params *p, char *buf, size_t n)
{
    if (p->text[0])
        snprintf(buf, n, "%s", p->text);
    else
        snprintf(buf, n, "%g%s,%g%s,%g", p->black, p->black_pct ? "%" : "", p->white,
                 p->white_pct ? "%" : "", p->gamma);
}

static void level_label(const gf_stage *s, char *buf, size_t n)
{
    char text[96];
    level_text(GF_CPARAMS(s, gf_level_params), text, sizeof text);
    snprintf(buf, n, "level %s", text);
}

/* WHITE within the image's depth, and BLACK below WHITE there. */
static int level_check(const gf_stage *s, const gf_shape *in)
{
    const gf_level_params *p = GF_CPARAMS(s, gf_level_params);
    const double max = (double)gf_sample_max(in->bits);
    const double b = point(p->black, p->black_pct, in->bits),
                 w = point(p->white, p->white_pct, in->bits);
    char text[96];

    level_text(p, text, sizeof text);
    if (w > max)
        return gf_err(GF_EUSAGE, NULL,
                      "--level %s: WHITE %g is above %g, the largest sample of a %s image: give "
                      "samples in 0..%g or percentages, or put --depth 16 before it",
                      text, w, max, gf_layout_words(in->channels, in->bits), max);
    if (!(b < w))
        return gf_err(GF_EUSAGE, NULL,
                      "--level %s: BLACK (%g) must be below WHITE (%g) in a %s image", text, b, w,
                      gf_layout_words(in->channels, in->bits));
    return 0;
}

/* One of BLACK and WHITE at s: a decimal number, then an optional '%';
 * *end after it. */
static int parse_point(const char *s, double *v, int *pct, const char **end)
{
    if (gf_gauss_parse_decimal(s, v, end))
        return -1;
    *pct = **end == '%';
    *end += *pct;
    return *pct ? (*v <= 100.0 ? 0 : -1) : (*v <= 65535.0 ? 0 : -1);
}

static int parse_level(gf_stage *s, const char *arg)
{
    gf_level_params *p = GF_PARAMS(s, gf_level_params);
    const char *end;

    p->gamma = 1.0;
    snprintf(p->text, sizeof p->text, "%s", arg);
    if (parse_point(arg, &p->black, &p->black_pct, &end) || *end != ',' ||
        parse_point(end + 1, &p->white, &p->white_pct, &end) || (*end && *end != ','))
        return gf_err(GF_EUSAGE, NULL,
                      "--level: '%s' is not BLACK,WHITE[,GAMMA] (samples 0-65535, or "
                      "percentages 0%%-100%% with %%)",
                      arg);
    if (*end == ',' && gf_tone_parse_gamma("--level", "GAMMA", end + 1, &p->gamma))
        return gf_err(GF_EUSAGE, NULL, "--level: '%s': GAMMA must be a number from %g to %g", arg,
                      GF_TONE_MIN_GAMMA, GF_TONE_MAX_GAMMA);
    /* of one kind, their order is known now; mixed, at the image's depth (check) */
    if (p->black_pct == p->white_pct && !(p->black < p->white))
        return gf_err(GF_EUSAGE, NULL, "--level: '%s': BLACK must be below WHITE", arg);
    return 0;
}

/* Configurations (every one suits 8 and 16 bits): a plain range, gamma
 * either side of 1, percentages, the whole range, a one-sample step, a
 * mixed pair and a random one; bench: 10%,90%,1.5. */
static int level_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const struct {
        double black, white;
        int black_pct, white_pct;
        double gamma;
    } cfg[] = {
        {10, 240, 0, 0, 1.0},  {0, 255, 0, 0, 2.2},    {30, 200, 0, 0, 0.45},
        {10, 90, 1, 1, 1.5},   {0, 100, 1, 1, 0.01},   {0, 100, 1, 1, 100},
        {127, 128, 0, 0, 1.0}, {0.5, 99.5, 1, 1, 1.0}, {20, 50, 0, 1, 3.0},
    };
    gf_level_params *p = GF_PARAMS(s, gf_level_params);
    const int n = (int)(sizeof cfg / sizeof cfg[0]);

    if (i > (bench ? 0 : n))
        return 0;
    if (bench || i < n) {
        const int k = bench ? 3 : i;
        p->black = cfg[k].black;
        p->white = cfg[k].white;
        p->black_pct = cfg[k].black_pct;
        p->white_pct = cfg[k].white_pct;
        p->gamma = cfg[k].gamma;
    } else {
        p->black = (double)(gf_rand(rng) % 200);
        p->white = p->black + 1 + (double)(gf_rand(rng) % (unsigned)(255 - p->black));
        p->gamma = 0.2 + (double)(gf_rand(rng) % 500) / 100.0;
    }
    return 1;
}

static const gf_stage_opt level_opts[] = {
    {"level", "BLACK,WHITE[,GAMMA]",
     "levels of each colour channel, alpha kept: BLACK to 0, WHITE to max, GAMMA between "
     "(samples, or percentages of max with %; GAMMA 0.01-100, default 1; ImageMagick's -level)",
     GF_OPT_ADD, parse_level},
    {NULL, NULL, NULL, 0, NULL},
};

GF_LUT_LAUNCHERS(level, level_table, NULL)

static const gf_variant level_variants[] = {
    GF_LUT_VARIANTS(level),
    {NULL, NULL},
};

const gf_stage_ops gf_stage_level = {
    .cpu_cost = 0.15, /* 8 bits; 16: cpu_cost_of */
    .cpu_cost_of = gf_lut_cost,
    .name = "level",
    .group = "tone",
    .opts = level_opts,
    .variants = level_variants,
    .defaults = gf_lut_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .check = level_check,
    .label = level_label,
    .gold = level_gold,
    .cpu = level_cpu,
    .cpu_in_place = level_in_place,
    .config = level_config,
    .large_configs = 2, /* the rest on the smaller images: the gold takes a while */
};
