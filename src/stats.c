/* stats.c - histogram statistics (stats.h). */
#include "stats.h"

#include <math.h>
#include <string.h>

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
    {
        /* Otsu: between-class variance for t in [0, 254], classes [0,t], [t+1,255] */
        long double w0 = 0, s0 = 0, best = -1;
        for (int t = 0; t < 255; t++) {
            w0 += bins[t];
            s0 += (long double)t * bins[t];
            long double w1 = n - w0;
            if (w0 == 0 || w1 == 0)
                continue;
            long double m0 = s0 / w0, m1 = (sum - s0) / w1;
            long double between = w0 * w1 * (m0 - m1) * (m0 - m1);
            if (between > best) {
                best = between;
                st->otsu = t;
            }
        }
    }
}

void gf_hist_stats_print(FILE *f, const gf_hist_stats *st, char sep)
{
    fprintf(f,
            "pixels=%llu%cmin=%d%cmax=%d%cmean=%.4f%cstddev=%.4f%cmode=%d%cmedian=%d%c"
            "p1=%d%cp5=%d%cp25=%d%cp75=%d%cp95=%d%cp99=%d%centropy=%.4f%cotsu=%d\n",
            (unsigned long long)st->pixels, sep, st->min, sep, st->max, sep, st->mean, sep,
            st->stddev, sep, st->mode, sep, st->median, sep, st->p1, sep, st->p5, sep, st->p25,
            sep, st->p75, sep, st->p95, sep, st->p99, sep, st->entropy, sep, st->otsu);
}

void gf_hist_stats_json(FILE *f, const gf_hist_stats *st)
{
    fprintf(f,
            "{\"pixels\":%llu,\"min\":%d,\"max\":%d,\"mean\":%.6f,\"stddev\":%.6f,\"mode\":%d,"
            "\"median\":%d,\"p1\":%d,\"p5\":%d,\"p25\":%d,\"p75\":%d,\"p95\":%d,\"p99\":%d,"
            "\"entropy\":%.6f,\"otsu\":%d}",
            (unsigned long long)st->pixels, st->min, st->max, st->mean, st->stddev, st->mode,
            st->median, st->p1, st->p5, st->p25, st->p75, st->p95, st->p99, st->entropy,
            st->otsu);
}
