/* stats.c - histogram statistics (stats.h). */
#include "stats.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../otsu.h"
#include "json.h"

int gf_hist_percentile(const uint32_t *bins, int nbins, uint64_t pixels, double p)
{
    /* cum >= p * pixels / 100, in integers: 100 * cum >= p * pixels */
    uint64_t cum = 0;
    long double need = (long double)p * pixels;

    for (int v = 0; v < nbins; v++) {
        cum += bins[v];
        if (cum && (long double)cum * 100 >= need)
            return v;
    }
    return nbins - 1;
}

void gf_hist_stats_compute(const uint32_t *bins, int nbins, gf_hist_stats *st)
{
    uint64_t n = 0;
    long double sum = 0, sum2 = 0;

    memset(st, 0, sizeof *st);
    for (int v = 0; v < nbins; v++) {
        n += bins[v];
        sum += (long double)v * bins[v];
        sum2 += (long double)v * v * bins[v];
    }
    if (n == 0)
        return;
    st->pixels = n;
    st->min = nbins - 1;
    for (int v = 0; v < nbins; v++)
        if (bins[v]) {
            st->min = v < st->min ? v : st->min;
            st->max = v;
            if (bins[v] > bins[st->mode])
                st->mode = v;
        }
    if (!bins[st->mode])
        st->mode = st->min;
    st->mean = (double)(sum / n);
    {
        long double var = sum2 / n - (sum / n) * (sum / n);
        st->stddev = var > 0 ? (double)sqrtl(var) : 0;
    }
    st->median = gf_hist_percentile(bins, nbins, n, 50);
    st->p1 = gf_hist_percentile(bins, nbins, n, 1);
    st->p5 = gf_hist_percentile(bins, nbins, n, 5);
    st->p25 = gf_hist_percentile(bins, nbins, n, 25);
    st->p75 = gf_hist_percentile(bins, nbins, n, 75);
    st->p95 = gf_hist_percentile(bins, nbins, n, 95);
    st->p99 = gf_hist_percentile(bins, nbins, n, 99);
    for (int v = 0; v < nbins; v++)
        if (bins[v]) {
            double p = (double)bins[v] / (double)n;
            st->entropy -= p * log2(p);
        }
    if (st->entropy <= 0)
        st->entropy = 0; /* no -0 */
    st->otsu = gf_otsu(bins, nbins);
}

/* The statistics' names, in the order they are printed, and where each
 * lives in gf_hist_stats: 'u' a uint64_t, 'i' an int, 'r' a double. */
static const struct {
    const char *key;
    char type;
    size_t off;
} fields[] = {
#define F(k, t) {#k, t, offsetof(gf_hist_stats, k)}
    F(pixels, 'u'), F(min, 'i'), F(max, 'i'), F(mean, 'r'),    F(stddev, 'r'),
    F(mode, 'i'),   F(median, 'i'), F(p1, 'i'), F(p5, 'i'),    F(p25, 'i'),
    F(p75, 'i'),    F(p95, 'i'),    F(p99, 'i'), F(entropy, 'r'), F(otsu, 'i'),
#undef F
};
#define NFIELDS (int)(sizeof fields / sizeof fields[0])
_Static_assert(NFIELDS == GF_HIST_NSTATS, "GF_HIST_NSTATS");

#define FIELD(st, k, T) (*(const T *)(const void *)((const char *)(st) + fields[k].off))

int gf_hist_stats_kv(const gf_hist_stats *st, const char *prefix, gf_stat *out)
{
    for (int k = 0; k < NFIELDS; k++) {
        snprintf(out[k].key, sizeof out[k].key, "%s%s", prefix, fields[k].key);
        if (fields[k].type == 'u')
            snprintf(out[k].value, sizeof out[k].value, "%llu",
                     (unsigned long long)FIELD(st, k, uint64_t));
        else if (fields[k].type == 'i')
            snprintf(out[k].value, sizeof out[k].value, "%d", FIELD(st, k, int));
        else
            snprintf(out[k].value, sizeof out[k].value, "%.4f", FIELD(st, k, double));
    }
    return NFIELDS;
}

json_t *gf_hist_stats_json(const gf_hist_stats *st)
{
    json_t *j = json_object();

    for (int k = 0; j && k < NFIELDS; k++) {
        json_t *v = fields[k].type == 'u'   ? json_integer((json_int_t)FIELD(st, k, uint64_t))
                    : fields[k].type == 'i' ? json_integer(FIELD(st, k, int))
                                            : gf_json_real(FIELD(st, k, double), 6);
        if (json_object_set_new(j, fields[k].key, v)) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}
