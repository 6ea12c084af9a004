/* autocontrast.c - the contrast stretch stage: --autocontrast [LOW[,HIGH]],
 * Pillow's ImageOps.autocontrast on each colour channel (the rule: tone.h). */
#include <stdlib.h>
#include <string.h>

#include "gaussian.h" /* gf_gauss_parse_decimal */
#include "tone.h"

_Static_assert(sizeof(gf_autocontrast_params) <= GF_STAGE_PARAMS, "autocontrast params");

/* Pillow's cut of `cut` pixels from h, bin by bin from bin `from` in steps
 * of `step` (1: from the low end; -1: from the high end). */
static void cut_pixels(uint32_t *h, int nb, int from, int step, uint64_t cut)
{
    for (int i = from; i >= 0 && i < nb; i += step) {
        if (cut > h[i]) {
            cut -= h[i];
            h[i] = 0;
        } else {
            h[i] -= (uint32_t)cut;
            cut = 0;
        }
        if (cut == 0)
            break;
    }
}

/* Table c from channel c's histogram (nb bins; h is a copy it changes), as
 * Pillow's loops make it: the cuts from each end, then lo and hi. */
static void channel_table(uint32_t *h, int nb, double low, double high, gf_lut *lut, int c)
{
    const unsigned max = (unsigned)nb - 1;
    uint64_t n = 0;
    int lo, hi;

    for (int i = 0; i < nb; i++)
        n += h[i];
    if (low > 0 || high > 0) { /* a cut of 0 changes nothing */
        cut_pixels(h, nb, 0, 1, gf_autocontrast_cut(n, low));
        cut_pixels(h, nb, nb - 1, -1, gf_autocontrast_cut(n, high));
    }
    for (lo = 0; lo < nb - 1 && !h[lo]; lo++) /* none: lo MAX, hi 0, as Python's loops end */
        ;
    for (hi = nb - 1; hi > 0 && !h[hi]; hi--)
        ;
    if (hi <= lo) {
        gf_lut_identity(lut, c);
        return;
    }
    double scale, offset;
    gf_autocontrast_line(max, lo, hi, &scale, &offset);
    for (int v = 0; v < nb; v++)
        gf_lut_set(lut, c, (unsigned)v, gf_autocontrast_entry((unsigned)v, scale, offset, max));
}

static int autocontrast_table(const gf_stage *s, const gf_image *in, int gold, gf_lut *lut)
{
    const gf_autocontrast_params *p = GF_CPARAMS(s, gf_autocontrast_params);
    const int nb = gf_hist_bins(in->bits), colours = gf_lut_colours(in->channels);
    uint32_t *bins;
    int rc;

    if ((rc = gf_lut_hist(in, gold, &bins)))
        return rc;
    if ((rc = gf_lut_alloc(lut, in->bits, colours)) == 0)
        for (int c = 0; c < colours; c++)
            channel_table(bins + (size_t)c * (size_t)nb, nb, p->low, p->high, lut, c);
    free(bins);
    return rc;
}

GF_LUT_CPU_PATHS(autocontrast, autocontrast_table)

static void autocontrast_label(const gf_stage *s, char *buf, size_t n)
{
    const gf_autocontrast_params *p = GF_CPARAMS(s, gf_autocontrast_params);
    snprintf(buf, n, "autocontrast %g,%g", p->low, p->high);
}

/* [LOW[,HIGH]]: none is 0; one value N is (N, N), as in Pillow. */
static int parse_autocontrast(gf_stage *s, const char *arg)
{
    gf_autocontrast_params *p = GF_PARAMS(s, gf_autocontrast_params);
    const char *end;
    double v[2];

    p->low = p->high = 0;
    if (!arg)
        return 0;
    if (gf_gauss_parse_decimal(arg, &v[0], &end) || !(v[0] <= GF_AUTOCONTRAST_MAX_CUT))
        goto bad;
    v[1] = v[0];
    if (*end == ',') {
        if (gf_gauss_parse_decimal(end + 1, &v[1], &end) || !(v[1] <= GF_AUTOCONTRAST_MAX_CUT))
            goto bad;
    }
    if (*end)
        goto bad;
    p->low = v[0];
    p->high = v[1];
    return 0;
bad:
    return gf_err(GF_EUSAGE, NULL,
                  "--autocontrast: '%s' is not LOW[,HIGH], percentages from 0 to %g", arg,
                  GF_AUTOCONTRAST_MAX_CUT);
}

/* Configurations: no cut, Pillow's common 2%, uneven cuts, a decimal one,
 * the largest, and a random pair; bench: none and 2%. */
static int autocontrast_config(gf_stage *s, int i, int bench, uint64_t *rng)
{
    static const double cuts[][2] = {{0, 0}, {2, 2}, {0, 5}, {10, 0.5}, {0.1, 0.1}, {49, 49}};
    gf_autocontrast_params *p = GF_PARAMS(s, gf_autocontrast_params);
    const int n = (int)(sizeof cuts / sizeof cuts[0]);

    if (i >= (bench ? 2 : n + 1))
        return 0;
    if (i < n) {
        p->low = cuts[i][0];
        p->high = cuts[i][1];
    } else {
        p->low = (double)(gf_rand(rng) % 4901) / 100.0;
        p->high = (double)(gf_rand(rng) % 4901) / 100.0;
    }
    return 1;
}

static const gf_stage_opt autocontrast_opts[] = {
    {"autocontrast", "[LOW[,HIGH]]",
     "stretch each colour channel to 0..max after cutting LOW and HIGH percent (0-49, default "
     "0) of its pixels from the ends of its histogram, alpha kept (Pillow's "
     "ImageOps.autocontrast)",
     GF_OPT_ADD, parse_autocontrast},
    {NULL, NULL, NULL, 0, NULL},
};

GF_LUT_LAUNCHERS(autocontrast, NULL, gf_autocontrast_tables_cuda)

static const gf_variant autocontrast_variants[] = {
    GF_LUT_VARIANTS(autocontrast),
    {NULL, NULL},
};

const gf_stage_ops gf_stage_autocontrast = {
    .cpu_cost = 0.60, /* 8 bits; 16: cpu_cost_of */
    .cpu_cost_of = gf_lut_cost_hist,
    .name = "autocontrast",
    .group = "tone",
    .opts = autocontrast_opts,
    .variants = autocontrast_variants,
    .defaults = gf_lut_defaults,
    .layouts = GF_LAYOUTS_ALL,
    .label = autocontrast_label,
    .gold = autocontrast_gold,
    .cpu = autocontrast_cpu,
    .cpu_in_place = autocontrast_in_place,
    .config = autocontrast_config,
    .large_configs = 2, /* the rest on the smaller images: the gold takes a while */
};
