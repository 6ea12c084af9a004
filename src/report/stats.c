/* stats.c - histogram statistics (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../otsu.h"
#include "json.h"

int gf_hist_percentile(const uint32_t *bins, uint64_t pixels, double p)
{
    /* cum >= p * pixels / 100, in integers: 100 * cum >= p * pixels */
    uint64_t cum = 0;
    long double need = (long double)p * pixels;

    for (int v = 0; v < 256; v++) {
        cum += bins[v];
        if (cum && (long double)cum * 100 >= need)
            return v;
    }
    return 255;
}

void gf_hist_stats_compute(const uint32_t *bins, gf_hist_stats *st)
{
    uint64_t n = 0;
    long double sum = 0, sum2 = 0;

    memset(st, 0, sizeof *st);
    for (int v = 0; v < 256; v++) {
        n += bins[v];
        sum += (long double)v * bins[v];
        sum2 += (long double)v * v * bins[v];
    }
    if (n == 0)
        return;
    st->pixels = n;
    st->min = 255;
    for (int v = 0; v < 256; v++)
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
    st->median = gf_hist_percentile(bins, n, 50);
    st->p1 = gf_hist_percentile(bins, n, 1);
    st->p5 = gf_hist_percentile(bins, n, 5);
    st->p25 = gf_hist_percentile(bins, n, 25);
    st->p75 = gf_hist_percentile(bins, n, 75);
    st->p95 = gf_hist_percentile(bins, n, 95);
    st->p99 = gf_hist_percentile(bins, n, 99);
    for (int v = 0; v < 256; v++)
        if (bins[v]) {
            double p = (double)bins[v] / (double)n;
            st->entropy -= p * log2(p);
        }
    if (st->entropy <= 0)
        st->entropy = 0; /* no -0 */
    st->otsu = gf_otsu(bins);
}

int gf_hist_stats_kv(const gf_hist_stats *st, gf_stat *out)
{
    int n = 0;
#define KV(k, fmt, v) snprintf(out[n].key, sizeof out[n].key, "%s", k), \
                      snprintf(out[n].value, sizeof out[n].value, fmt, v), n++
    KV("pixels", "%llu", (unsigned long long)st->pixels);
    KV("min", "%d", st->min);
    KV("max", "%d", st->max);
    KV("mean", "%.4f", st->mean);
    KV("stddev", "%.4f", st->stddev);
    KV("mode", "%d", st->mode);
    KV("median", "%d", st->median);
    KV("p1", "%d", st->p1);
    KV("p5", "%d", st->p5);
    KV("p25", "%d", st->p25);
    KV("p75", "%d", st->p75);
    KV("p95", "%d", st->p95);
    KV("p99", "%d", st->p99);
    KV("entropy", "%.4f", st->entropy);
    KV("otsu", "%d", st->otsu);
#undef KV
    return n;
}

json_t *gf_hist_stats_json(const gf_hist_stats *st)
{
    return json_pack("{s:I,s:i,s:i,s:o,s:o,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:o,s:i}",
                     "pixels", (json_int_t)st->pixels, "min", st->min, "max", st->max, "mean",
                     gf_json_real(st->mean, 6), "stddev", gf_json_real(st->stddev, 6), "mode",
                     st->mode, "median", st->median, "p1", st->p1, "p5", st->p5, "p25", st->p25,
                     "p75", st->p75, "p95", st->p95, "p99", st->p99, "entropy",
                     gf_json_real(st->entropy, 6), "otsu", st->otsu);
}
